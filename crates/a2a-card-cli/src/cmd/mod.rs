//! One module per subcommand. Each has an `Args` struct (clap derive), an `AFTER_HELP` text
//! with at least one example, and `run(Args)`. The value parsers shared by several subcommands
//! are here: each maps a name to the library's own type through the library's own lookup.

pub(crate) mod batch;
pub(crate) mod canonicalize;
pub(crate) mod completions;
pub(crate) mod fetch;
pub(crate) mod inspect;
pub(crate) mod jwks;
pub(crate) mod keygen;
pub(crate) mod lint;
pub(crate) mod man;
pub(crate) mod migrate;
pub(crate) mod schema;
pub(crate) mod sign;
pub(crate) mod verify;
pub(crate) mod version;

#[cfg(test)]
mod table_check;

use a2a_card::request::CanonicalizeRequest;
use a2a_card::Algorithm;
use a2a_card::{Limits, Profile, UnknownMembers};
use clap::builder::{PossibleValuesParser, TypedValueParser};

/// A whole number from `min` to `max` (a count of `unit`, when not empty), for the numeric
/// options: anything else, a sign, a decimal or a number past the range, is refused with the
/// range in the message.
pub(crate) fn count_parser(
    min: usize,
    max: usize,
    unit: &'static str,
) -> impl TypedValueParser<Value = usize> {
    clap::builder::NonEmptyStringValueParser::new().try_map(move |s| {
        let of = if unit.is_empty() {
            String::new()
        } else {
            format!(" of {unit}")
        };
        let range = format!("give a number{of} from {min} to {max}");
        let n: usize = s
            .parse()
            .map_err(|_| format!("{s:?} is not a whole number; {range}"))?;
        if (min..=max).contains(&n) {
            Ok(n)
        } else {
            Err(format!("{n} is out of range; {range}"))
        }
    })
}

/// The default of a count option of the core's table (`a2a_card::request::VERIFY`).
pub(crate) fn table_default(name: &str) -> usize {
    a2a_card::request::option(a2a_card::request::VERIFY, name)
        .and_then(|o| o.count_default())
        .unwrap_or_default()
}

/// A count flag with the bounds of the core's table.
pub(crate) fn table_count(name: &str, unit: &'static str) -> impl TypedValueParser<Value = usize> {
    let (min, max) = a2a_card::request::option(a2a_card::request::VERIFY, name)
        .and_then(|o| o.bounds())
        .unwrap_or((1, 0));
    count_parser(min, max, unit)
}

/// `--profile`: a name of [`Profile::ALL`] (`spec`, `prune-empty`, `served-as-is`, ...).
pub(crate) fn profile_parser() -> impl TypedValueParser<Value = Profile> {
    PossibleValuesParser::new(Profile::ALL.map(Profile::as_str))
        .try_map(|s| s.parse::<Profile>().map_err(|_| format!("unknown profile {s:?}")))
}

/// `verify --profile`: a profile name, or `auto` (every profile), as the library's
/// [`a2a_card::canonical::accepted_profiles`] reads them.
pub(crate) fn profile_name_parser() -> PossibleValuesParser {
    PossibleValuesParser::new(Profile::ALL.map(Profile::as_str).into_iter().chain(["auto"]))
}

/// `--unknown`: `exclude`, `retain` or `reject`.
pub(crate) fn unknown_parser() -> impl TypedValueParser<Value = UnknownMembers> {
    PossibleValuesParser::new(UnknownMembers::ALL.map(UnknownMembers::as_str)).try_map(|s| {
        s.parse::<UnknownMembers>()
            .map_err(|_| format!("unknown mode {s:?}"))
    })
}

/// `--alg`: a JWS algorithm name, as the library spells and checks it.
pub(crate) fn alg_parser() -> impl TypedValueParser<Value = Algorithm> {
    clap::builder::NonEmptyStringValueParser::new()
        .try_map(|s| Algorithm::from_name(&s).map_err(|e| e.message().to_string()))
}

/// The options that decide the canonical bytes, shared by `canonicalize`, `inspect` and `sign`
/// (flattened into each one's arguments).
#[derive(Debug, clap::Args)]
pub(crate) struct CanonArgs {
    /// Which rules produce the bytes: `spec` (A2A v1.0 text and its 8.4.1 example),
    /// `prune-empty` (Python and JS SDKs), `served-as-is` (Go SDK), `a2a-sdk-0.3` and
    /// `a2a-sdk-0.3.21` (the Python SDK 0.3 signer: 0.3.24 and later, 0.3.21 to 0.3.23).
    #[arg(long, value_name = "PROFILE", default_value = "spec", value_parser = profile_parser())]
    pub(crate) profile: Profile,

    /// Members the schema does not define: `exclude` them (not covered, reported as unsigned;
    /// the default), `retain` them in the covered bytes, or `reject` the card. `sign` refuses a
    /// card with such members unless you choose here.
    #[arg(long, value_name = "MODE", value_parser = unknown_parser())]
    pub(crate) unknown: Option<UnknownMembers>,

    #[command(flatten)]
    pub(crate) limits: LimitArgs,
}

impl CanonArgs {
    /// The core's request of canonicalize for these flags.
    pub(crate) fn request(&self) -> CanonicalizeRequest {
        // `..default()` keeps this building when the core's table gets a row.
        #[allow(clippy::needless_update)]
        CanonicalizeRequest {
            profile: Some(self.profile.as_str().to_string()),
            unknown: self.unknown.map(|u| u.as_str().to_string()),
            max_input_bytes: Some(self.limits.max_input_bytes),
            max_depth: Some(self.limits.max_depth),
            ..CanonicalizeRequest::default()
        }
    }
}

/// `--max-input-bytes` and `--max-depth`: the reader limits, for every subcommand that reads a
/// card.
#[derive(Debug, clap::Args)]
pub(crate) struct LimitArgs {
    /// Refuse cards larger than this many bytes (1 to 1073741824, 1 GiB).
    #[arg(long, value_name = "N", default_value_t = table_default("max_input_bytes"),
          value_parser = table_count("max_input_bytes", "bytes"))]
    pub(crate) max_input_bytes: usize,

    /// Refuse arrays and objects nested deeper than this (the root object is level 1; 1 to
    /// 512).
    #[arg(long, value_name = "N", default_value_t = table_default("max_depth"),
          value_parser = table_count("max_depth", "levels"))]
    pub(crate) max_depth: usize,
}

impl LimitArgs {
    /// The library's reader limits for these flags.
    pub(crate) fn limits(&self) -> Limits {
        Limits {
            max_input_bytes: self.max_input_bytes,
            max_depth: self.max_depth,
        }
    }
}

/// `-o/--out FILE` and `--force`, for the subcommands that print a document: stdout unless a
/// file is named.
#[derive(Debug, clap::Args)]
pub(crate) struct OutArgs {
    /// Write to FILE (replaced whole, through a temporary file and a rename) instead of
    /// stdout. FILE must be a regular file or not exist (a symbolic link is written through).
    #[arg(short = 'o', long = "out", value_name = "FILE")]
    pub(crate) out: Option<std::path::PathBuf>,

    /// Replace the -o file even when it is read-only.
    #[arg(long, requires = "out")]
    pub(crate) force: bool,
}

impl OutArgs {
    /// Writes `bytes` to the file, or to stdout.
    pub(crate) fn write(&self, bytes: &[u8]) -> Result<(), crate::Failure> {
        match &self.out {
            Some(path) => crate::io::replace_file(path, bytes, None, self.force),
            None => crate::io::write_stdout(bytes),
        }
    }
}
