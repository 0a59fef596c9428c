//! The CLI's words for the libraries' options: each option, by the canonical name the
//! libraries' errors carry ([`a2a_card::Error::options`], the rows of the core's
//! `request::VERIFY`), and the flag that sets it here. A failure spells the options its error
//! names with it ([`Flags`], in `Failure::new`), and the table check (`cmd/table_check.rs`)
//! holds it against clap and the core's table. The libraries know none of these flags.

use crate::io::read_key_text;
use crate::Failure;
use a2a_card::request::{Input, Kind, OptionSpec, OptionValue, Quotes, Request, Spelling};
use a2a_card_fetch::{FetchRequest, ManyRequest, RemoteRequest};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Command};
use std::any::TypeId;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// The options whose flag is not the kebab case of the canonical name ([`flag`] makes the
/// others: `--max-chain` for `max_chain`, `--key-timeout` for the keys library's
/// `key_timeout`): the core's verify and signing tables' and the fetcher's (`FETCH`).
pub(crate) const FLAGS: &[(&str, &str)] = &[
    ("keys", "--key"),
    ("crls", "--crl"),
    ("algorithms", "--alg"),
    ("profiles", "--profile"),
    ("also_profiles", "--also-profile"),
    // The fetcher's (a2a_card_fetch::FETCH).
    ("roots", "--ca-file"),
    // The remote batch's (a2a_card_fetch::ManyOptions).
    ("origin_delay", "--delay-ms"),
];

/// The flag of an option: its own ([`FLAGS`]), else its name in kebab case (`--max-chain-len`
/// for a library's `max_chain_len`, which no flag sets alone).
pub(crate) fn flag(option: &str) -> String {
    match FLAGS.iter().find(|(o, _)| *o == option) {
        Some((_, flag)) => flag.to_string(),
        None => format!("--{}", option.replace('_', "-")),
    }
}

/// The option a flag sets: one of [`FLAGS`], or a row of a core's table by the flag [`flag`]
/// makes for it.
#[cfg(test)]
pub(crate) fn option_of(given: &str) -> Option<&'static str> {
    use a2a_card::request::{CANONICALIZE, LINT, MIGRATE, SIGN, VERIFY};
    let mapped = FLAGS.iter().find(|(_, f)| *f == given).map(|(o, _)| *o);
    let rows = || [VERIFY, SIGN, CANONICALIZE, LINT, MIGRATE].into_iter().flatten();
    mapped.or_else(|| rows().map(|s| s.name).find(|n| flag(n) == given))
}

/// Options spelled as the command line gives them: each by its flag, never in quotes; an error
/// about one input (a key or certificate file) names the file as its place, not in the message.
pub(crate) struct Flags;

impl Spelling for Flags {
    fn name(&self, option: &str) -> String {
        flag(option)
    }

    fn quotes(&self) -> Quotes {
        Quotes::Never
    }

    fn names_input(&self) -> bool {
        false
    }
}

/// The options of a core's table (`R::TABLE`: `request::VERIFY` for `verify`, `SIGN` for
/// `sign`, `CANONICALIZE`
/// for `canonicalize` and `inspect`, `LINT`, `MIGRATE`) that the subcommand does not declare
/// with a flag of its own: each becomes a flag made from its row (the flag of [`flag`], the
/// row's documentation with its bounds and default as help, the value by its kind), so that an
/// option added to the table is on the command line with no change here. Flattened last into
/// the subcommand's arguments: it sees the flags declared before it.
#[derive(Debug, Clone, Default)]
pub(crate) struct TableFlags<R: Request> {
    /// What was given on the command line, by canonical name, in the table's order.
    pub(crate) given: Vec<(&'static str, Given)>,
    request: PhantomData<R>,
}

impl<R: Request> TableFlags<R> {
    /// Sets what was given into `request` (files of keys or certificates read).
    pub(crate) fn fill(&self, request: &mut R) -> Result<(), Failure> {
        self.fill_part(request, true)?;
        self.fill_part(request, false)
    }

    /// Sets the files given (`files`: read and set) or the other values (`!files`) into
    /// `request`.
    pub(crate) fn fill_part(&self, request: &mut R, files: bool) -> Result<(), Failure> {
        for (name, value) in &self.given {
            if matches!(value, Given::Files(_)) != files {
                continue;
            }
            let value = match value {
                Given::Value(v) => v.clone(),
                Given::Files(paths) => OptionValue::Inputs(
                    paths
                        .iter()
                        .map(|p| read_key_text(p).map(|(text, source)| Input::new(text, source)))
                        .collect::<Result<_, _>>()?,
                ),
                Given::Pairs(items) => OptionValue::Members(members(name, items)?),
            };
            request.set(name, value).map_err(refused)?;
        }
        Ok(())
    }

    /// The files given to flags made from rows of keys or certificates, in the table's order:
    /// each with its flag and whether it holds keys (else certificates).
    pub(crate) fn files(&self) -> impl Iterator<Item = (String, &Path, bool)> + Clone {
        self.given.iter().flat_map(|(name, value)| {
            let paths = match value {
                Given::Files(paths) => paths.as_slice(),
                _ => &[],
            };
            let keys = R::TABLE
                .iter()
                .any(|s| s.name == *name && matches!(s.kind, Kind::Keys { .. }));
            paths.iter().map(move |p| (flag(name), p.as_path(), keys))
        })
    }

    /// Whether the option with this canonical name was given on the command line.
    pub(crate) fn is_given(&self, name: &str) -> bool {
        self.given.iter().any(|(n, _)| *n == name)
    }

    /// The flag of the first option given, if any (for refusing them where they mean nothing).
    pub(crate) fn first_given(&self) -> Option<String> {
        self.given.first().map(|(name, _)| flag(name))
    }

    /// `request` (the flags the subcommand declares) with what was given here, built.
    pub(crate) fn build(&self, mut request: R) -> Result<R::Built, Failure> {
        self.fill(&mut request)?;
        request.build().map_err(refused)
    }
}

/// A refusal of a core's request, its options spelled as flags: about a key, JWKS,
/// trust-store or certificate file, that file (exit 3); else the command line.
pub(crate) fn refused(e: a2a_card::Error) -> Failure {
    let source = e.input().map(|(s, _)| s.to_string());
    match source {
        Some(source) => Failure::new(e, source).key_retrieval(),
        None => Failure::new(e, crate::io::COMMAND_LINE),
    }
}

/// A value given to a flag made from the table.
#[derive(Debug, Clone)]
pub(crate) enum Given {
    /// A value of its kind.
    Value(OptionValue),
    /// Files of keys or certificates, read when the request is filled.
    Files(Vec<PathBuf>),
    /// `NAME=JSON` items, read when the request is filled.
    Pairs(Vec<String>),
}

/// The `NAME=JSON` items given to the flag of `option` (header parameters), each value read
/// with the library's strict reader.
fn members(option: &str, items: &[String]) -> Result<Vec<(String, serde_json::Value)>, Failure> {
    let flag = flag(option);
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let Some((name, value)) = item.split_once('=').filter(|(n, _)| !n.is_empty()) else {
            return Err(Failure::usage(format!(
                "{flag} takes NAME=JSON (e.g. {flag} 'x-note=\"text\"'), got {}",
                crate::io::quoted(item)
            )));
        };
        let value =
            a2a_card::canonical::parse_json(value.as_bytes(), &a2a_card::Limits::default()).map_err(|e| {
                let e = e.context(&format!(
                    "the value of {flag} {name} is JSON (a text is quoted: {flag} '{name}=\"{}\"')",
                    value.replace(['"', '\'', '\\'], "")
                ));
                Failure::new(e, format!("{flag} {name}"))
            })?;
        out.push((name.to_string(), value));
    }
    Ok(out)
}

/// A row of the table the CLI offers, with the id and the long name of the flag made from it.
type Row = (&'static OptionSpec, &'static str, &'static str);

/// The rows of `R::TABLE` the CLI offers, made once per table.
fn rows<R: Request + 'static>() -> &'static [Row] {
    type Made = Vec<(TypeId, &'static [Row])>;
    static ROWS: Mutex<Made> = Mutex::new(Vec::new());
    let mut made = ROWS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, rows)) = made.iter().find(|(t, _)| *t == TypeId::of::<R>()) {
        return rows;
    }
    let rows: Vec<Row> = R::TABLE
        .iter()
        .filter(|s| s.fronts.cli)
        .map(|s| {
            let long = flag(s.name).trim_start_matches("--").to_string();
            (s, leak(format!("table:{}", s.name)), leak(long))
        })
        .collect();
    let rows: &'static [Row] = Box::leak(rows.into_boxed_slice());
    made.push((TypeId::of::<R>(), rows));
    rows
}

/// A text for the life of the program (clap's words are `'static`; a few, made once).
fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

/// The value names of the flags made from rows, where not the kind's (`N`, `TEXT`, ...).
const VALUE_NAMES: &[(&str, &str)] = &[("proxy", "URL"), ("allow_jku", "PREFIX"), ("delay_ms", "MS")];

/// The help heading of the flags made from `R`'s table and the argument they need: the
/// fetcher's under their own headings, the others under the default one (not the one of the
/// flags declared before them).
fn context<R: 'static>() -> (Option<&'static str>, Option<&'static str>) {
    let is = |t: TypeId| TypeId::of::<R>() == t;
    if is(TypeId::of::<ManyRequest>()) {
        (Some("Remote batches (--urls)"), Some("urls"))
    } else if is(TypeId::of::<FetchRequest>()) || is(TypeId::of::<RemoteRequest>()) {
        (Some("Fetching (a URL)"), None)
    } else {
        (None, None)
    }
}

/// The flag made from a row.
fn table_arg<R: 'static>(spec: &'static OptionSpec, id: &'static str, long: &'static str) -> Arg {
    let (heading, needs) = context::<R>();
    let mut arg = Arg::new(id).long(long).help_heading(heading);
    if let Some(needs) = needs {
        arg = arg.requires(needs);
    }
    let value_name = VALUE_NAMES.iter().find(|(n, _)| *n == spec.name).map(|(_, v)| *v);
    // The unit a count is of, when its name ends with one (`max_header_bytes`: bytes).
    let unit = match spec.name.rsplit('_').next() {
        Some("depth") => "levels",
        Some(unit) if unit.ends_with('s') => unit,
        _ => "",
    };
    let doc = spec.doc.trim_end_matches('.');
    match spec.kind {
        Kind::Count { min, max, default } => arg
            .value_name(value_name.unwrap_or("N"))
            .default_value(leak(default.to_string()))
            .value_parser(crate::cmd::count_parser(min, max, unit))
            .help(format!("{} ({min} to {max})", doc)),
        Kind::Choice(names) => arg
            .value_name("NAME")
            .default_value(names[0])
            .value_parser(PossibleValuesParser::new(names))
            .help(doc),
        Kind::Names(names) => arg
            .value_name("NAME")
            .value_parser(PossibleValuesParser::new(names))
            .help(doc),
        Kind::Members => arg
            .value_name("NAME=JSON")
            .action(ArgAction::Append)
            .help(format!("{} (NAME=JSON, repeatable)", doc)),
        Kind::Text => arg.value_name(value_name.unwrap_or("TEXT")).help(doc),
        Kind::Texts | Kind::List => arg
            .value_name(value_name.unwrap_or("TEXT"))
            .action(ArgAction::Append)
            .help(format!("{} (repeatable)", doc)),
        Kind::Keys { .. } | Kind::Pem => arg
            .value_name("FILE")
            .action(ArgAction::Append)
            .value_parser(clap::value_parser!(PathBuf))
            .help(format!("{} (repeatable)", doc)),
        Kind::Seconds { min, max, default } => arg
            .value_name("SECS")
            .default_value(leak(default.as_secs_f64().to_string()))
            .value_parser(secs_parser(min.as_secs_f64(), max.as_secs_f64()))
            .help(format!(
                "{doc} (decimals allowed; {} to {})",
                min.as_secs_f64(),
                max.as_secs_f64()
            )),
        Kind::Path => arg
            .value_name(if spec.name.ends_with("_dir") {
                "DIR"
            } else {
                "PATH"
            })
            .value_parser(clap::value_parser!(PathBuf))
            .help(doc),
        Kind::Time => arg
            .value_name("SECONDS")
            .value_parser(clap::value_parser!(i64))
            .help(doc),
        // A switch when it is off by default.
        Kind::Flag(false) => arg.action(ArgAction::SetTrue).help(doc),
        Kind::Flag(default) => arg
            .value_name("BOOL")
            .default_value(if default { "true" } else { "false" })
            .value_parser(clap::value_parser!(bool))
            .help(doc),
    }
}

/// A number of seconds (decimals allowed) from `min` to `max`, as a `Duration`. NaN,
/// infinities, negative numbers and anything past `max` are refused here, so that no timeout
/// given can overflow a `Duration` or an `Instant` later.
pub(crate) fn secs_parser(min: f64, max: f64) -> impl TypedValueParser<Value = Duration> {
    clap::builder::NonEmptyStringValueParser::new().try_map(move |s| {
        let range = format!("give a number of seconds from {min} to {max}");
        let secs: f64 = s
            .trim()
            .parse()
            .map_err(|_| format!("{s:?} is not a number of seconds; {range}"))?;
        if !(min..=max).contains(&secs) {
            return Err(format!("{s:?} is out of range; {range}"));
        }
        Duration::try_from_secs_f64(secs).map_err(|e| format!("{s:?}: {e}; {range}"))
    })
}

impl<R: Request + 'static> clap::Args for TableFlags<R> {
    fn augment_args(mut cmd: Command) -> Command {
        let rows = rows::<R>();
        for (spec, id, long) in rows {
            if !cmd.get_arguments().any(|a| a.get_long() == Some(long)) {
                let mut arg = table_arg::<R>(spec, id, long);
                // The pairs of the request that are not given together.
                for (_, b) in R::CONFLICTS.iter().filter(|(a, _)| *a == spec.name) {
                    let other = rows.iter().find(|(s, _, _)| s.name == *b).map(|r| r.1);
                    arg = arg.conflicts_with(other.unwrap_or(b));
                }
                cmd = cmd.arg(arg);
            }
        }
        cmd
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl<R: Request + 'static> clap::FromArgMatches for TableFlags<R> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut flags = TableFlags {
            given: Vec::new(),
            request: PhantomData,
        };
        flags.update_from_arg_matches(matches)?;
        Ok(flags)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        for (spec, id, _) in rows::<R>() {
            // A row whose flag the subcommand declares itself has no flag made here; a default
            // is the request's own.
            if m.try_get_raw(id).is_err() || m.value_source(id) != Some(ValueSource::CommandLine) {
                continue;
            }
            let texts = || -> Option<Vec<String>> { Some(m.get_many::<String>(id)?.cloned().collect()) };
            let value = match spec.kind {
                Kind::Count { .. } => m
                    .get_one::<usize>(id)
                    .map(|n| Given::Value(OptionValue::Count(*n))),
                Kind::Choice(_) | Kind::Names(_) | Kind::Text => m
                    .get_one::<String>(id)
                    .map(|t| Given::Value(OptionValue::Text(t.clone()))),
                Kind::Texts | Kind::List => texts().map(|t| Given::Value(OptionValue::Texts(t))),
                Kind::Keys { .. } | Kind::Pem => m
                    .get_many::<PathBuf>(id)
                    .map(|p| Given::Files(p.cloned().collect())),
                Kind::Time => m.get_one::<i64>(id).map(|t| Given::Value(OptionValue::Time(*t))),
                Kind::Seconds { .. } => m
                    .get_one::<Duration>(id)
                    .map(|d| Given::Value(OptionValue::Seconds(*d))),
                Kind::Path => m
                    .get_one::<PathBuf>(id)
                    .map(|p| Given::Value(OptionValue::Path(p.clone()))),
                Kind::Flag(_) => m.get_one::<bool>(id).map(|b| Given::Value(OptionValue::Flag(*b))),
                Kind::Members => texts().map(Given::Pairs),
            };
            if let Some(value) = value {
                self.given.push((spec.name, value));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_card::request::{Input, VerifyRequest};

    fn spelled(e: a2a_card::Error) -> String {
        e.spelled(&Flags).message().to_string()
    }

    #[test]
    fn errors_name_their_options_by_flag() {
        let chain = VerifyRequest {
            max_chain: Some(9),
            ..Default::default()
        };
        assert_eq!(
            spelled(chain.options().unwrap_err()),
            "--max-chain must be 1 to 8, got 9"
        );
        let hmac = VerifyRequest {
            algorithms: Some(vec!["HS256".into()]),
            ..Default::default()
        };
        let hmac = spelled(hmac.options().unwrap_err());
        assert!(hmac.starts_with("--alg: HS256 needs a shared secret"), "{hmac}");
        let none = VerifyRequest {
            fetched: true,
            ..Default::default()
        };
        assert_eq!(
            spelled(none.trust_store().unwrap_err()),
            "no trust roots: give at least one of --key, --jwks, --trust or --trust-anchors, or an --allow-jku prefix"
        );
        // Spelling twice changes nothing.
        let once = chain.options().unwrap_err().spelled(&Flags);
        assert_eq!(once.clone().spelled(&Flags), once);
        // An error about a file: the file is the place, the message is the library's.
        let bad = VerifyRequest {
            keys: Some(vec![Input::new("not a key", "keys[0]")]),
            ..Default::default()
        }
        .build()
        .unwrap_err();
        assert_eq!(spelled(bad.clone()), bad.message());
        // The keys library's options, and a library option no flag sets alone.
        let timeout = a2a_card::request::option_error(
            a2a_card::ErrorCode::Usage,
            "no answer within 1 s ({key_timeout}); see {pkcs11_module}",
            &["key_timeout", "pkcs11_module"],
        );
        assert_eq!(
            spelled(timeout),
            "no answer within 1 s (--key-timeout); see --pkcs11-module"
        );
        let len = a2a_card::VerifyOptions {
            max_chain_len: 0,
            ..Default::default()
        };
        assert_eq!(
            spelled(len.check().unwrap_err()),
            "--max-chain-len must be 1 to 8, got 0"
        );
    }
}
