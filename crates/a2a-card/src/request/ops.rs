//! The requests of the operations besides verification: [`CANONICALIZE`] (canonicalize and
//! inspect), [`LINT`] and [`MIGRATE`], each a table of options and a request type filled by the
//! front ends through the [`Request`] trait, as [`super::VerifyRequest`] is for [`VERIFY`] and
//! [`super::SignRequest`] for [`super::SIGN`].
//!
//! [`VERIFY`]: super::VERIFY

use super::table::{option, ALL, MAX_DEPTH, MAX_INPUT_BYTES, PROFILE, UNKNOWN};
use super::{check_count, Kind, OptionSpec, OptionValue};
use crate::canonical::{CanonicalizeOptions, Limits, Profile, UnknownMembers};
use crate::card::lint::LintOptions;
use crate::card::migrate::MigrateOptions;
use crate::{Error, ErrorCode};

/// A request of one operation: the table of its options, how a front end sets one by its
/// canonical name, and what the request makes once every option is set. The front ends read
/// their input shape by each row's [`Kind`] into [`Request::set`], then call
/// [`Request::build`], so an option added to a table needs no change in them.
///
/// ```
/// use a2a_card::request::{CanonicalizeRequest, OptionValue, Request};
/// let mut r = CanonicalizeRequest::default();
/// r.set("profile", OptionValue::Text("prune-empty".into())).unwrap();
/// assert_eq!(r.build().unwrap().profile.as_str(), "prune-empty");
/// let e = r.set("profil", OptionValue::Text("spec".into())).unwrap_err();
/// assert_eq!(e.message(), "no option \"profil\" in a canonicalization");
/// ```
pub trait Request: Default {
    /// The options of the request, one row each.
    const TABLE: &'static [OptionSpec];
    /// Pairs of options of [`Request::TABLE`] that are not given together (a front end refuses
    /// the pair as it refuses its own arguments that conflict).
    const CONFLICTS: &'static [(&'static str, &'static str)] = &[];
    /// What the request makes.
    type Built;
    /// Sets the option of [`Request::TABLE`] with this canonical name: an unknown name, or a
    /// value of another kind, is a `usage` error.
    fn set(&mut self, name: &str, value: OptionValue) -> Result<(), Error>;
    /// The defaults of the table for what was not set, every bound and rule applied.
    fn build(&self) -> Result<Self::Built, Error>;
}

/// The refusal of a name `table` (the options of `what`) lacks, or of a value of another kind than its row's.
///
/// ```
/// use a2a_card::request::{refused_value, LINT};
/// assert_eq!(refused_value(LINT, "x", "a lint").message(), "no option \"x\" in a lint");
/// assert_eq!(refused_value(LINT, "max_depth", "a lint").option(), Some("max_depth"));
/// ```
pub fn refused_value(table: &'static [OptionSpec], name: &str, what: &str) -> Error {
    match option(table, name) {
        Some(spec) => Error::new(
            ErrorCode::Usage,
            format!("a value of the wrong kind ({})", kind_debug(&spec.kind)),
        )
        .for_option(spec.name),
        None => Error::new(ErrorCode::Usage, format!("no option {name:?} in {what}")),
    }
}

/// `format!("{:?}", kind)` as the derived `Debug` writes it, each duration as `Duration`'s
/// `Debug` writes it without a precision (`1ms`, `60s`, `1.5s`): the .wasm then carries no
/// `Debug` of `Kind` nor `core::fmt`'s duration formatting (a test compares the two).
fn kind_debug(kind: &Kind) -> String {
    match *kind {
        Kind::Count { min, max, default } => {
            format!("Count {{ min: {min}, max: {max}, default: {default} }}")
        }
        Kind::Choice(names) => format!("Choice({names:?})"),
        Kind::Names(names) => format!("Names({names:?})"),
        Kind::Text => "Text".into(),
        Kind::Texts => "Texts".into(),
        Kind::List => "List".into(),
        Kind::Keys { list } => format!("Keys {{ list: {list} }}"),
        Kind::Pem => "Pem".into(),
        Kind::Time => "Time".into(),
        Kind::Flag(b) => format!("Flag({b})"),
        Kind::Members => "Members".into(),
        Kind::Seconds { min, max, default } => format!(
            "Seconds {{ min: {}, max: {}, default: {} }}",
            duration_debug(min),
            duration_debug(max),
            duration_debug(default)
        ),
        Kind::Path => "Path".into(),
    }
}

/// `format!("{:?}", d)`: the largest unit of s, ms, us and ns with a whole part, the fraction
/// without trailing zeros.
fn duration_debug(d: std::time::Duration) -> String {
    let (secs, nanos) = (d.as_secs(), u64::from(d.subsec_nanos()));
    let (whole, mut frac, mut divisor, unit) = if secs > 0 {
        (secs, nanos, 100_000_000, "s")
    } else if nanos >= 1_000_000 {
        (nanos / 1_000_000, nanos % 1_000_000, 100_000, "ms")
    } else if nanos >= 1_000 {
        (nanos / 1_000, nanos % 1_000, 100, "\u{b5}s")
    } else {
        (nanos, 0, 1, "ns")
    };
    let mut out = whole.to_string();
    if frac > 0 {
        out.push('.');
        while frac > 0 && divisor > 0 {
            out.push(char::from(b'0' + (frac / divisor) as u8));
            frac %= divisor;
            divisor /= 10;
        }
    }
    out.push_str(unit);
    out
}

/// A count option of `table`: its default when not given, its bounds when given.
pub(crate) fn count(
    table: &'static [OptionSpec],
    name: &'static str,
    given: Option<usize>,
) -> Result<usize, Error> {
    let Some(spec) = option(table, name) else {
        return Err(Error::new(
            ErrorCode::Usage,
            format!("no option {name} in the table"),
        ));
    };
    match given {
        None => Ok(spec.count_default().unwrap_or_default()),
        Some(n) => check_count(spec, n),
    }
}

/// The reader limits of `max_input_bytes` and `max_depth`, rows of `table`.
pub(super) fn limits(
    table: &'static [OptionSpec],
    max_input_bytes: Option<usize>,
    max_depth: Option<usize>,
) -> Result<Limits, Error> {
    Ok(Limits {
        max_input_bytes: count(table, "max_input_bytes", max_input_bytes)?,
        max_depth: count(table, "max_depth", max_depth)?,
    })
}

/// A name option read as its type (`FromStr`), its error about the option; `default` when not
/// given.
pub(super) fn named<T: std::str::FromStr<Err = Error>>(
    given: &Option<String>,
    name: &'static str,
    default: T,
) -> Result<T, Error> {
    match given {
        None => Ok(default),
        Some(text) => text.parse::<T>().map_err(|e| e.for_option(name)),
    }
}

/// The options of canonicalize (and inspect, which reads the canonical bytes alike): the
/// profile, unknown members and the reader limits.
///
/// ```
/// use a2a_card::request::{option, CANONICALIZE};
/// assert_eq!(option(CANONICALIZE, "max_depth").unwrap().bounds(), Some((1, 512)));
/// ```
pub const CANONICALIZE: &[OptionSpec] = &[PROFILE, UNKNOWN, MAX_INPUT_BYTES, MAX_DEPTH];

/// The options of lint: the reader limits.
pub const LINT: &[OptionSpec] = &[MAX_INPUT_BYTES, MAX_DEPTH];

/// The options of migrate: the protocol version of the interfaces and the reader limits.
pub const MIGRATE: &[OptionSpec] = &[
    OptionSpec {
        name: "protocol_version",
        kind: Kind::Text,
        fronts: ALL,
        doc: "The protocolVersion of every interface; by default the 0.3 card's own, as Major.Minor.",
    },
    MAX_INPUT_BYTES,
    MAX_DEPTH,
];

/// The options of canonicalize and inspect, one member per row of [`CANONICALIZE`] (`None`:
/// the table's default).
///
/// ```
/// use a2a_card::request::{CanonicalizeRequest, Request};
/// let e = CanonicalizeRequest { max_depth: Some(513), ..Default::default() }.build().unwrap_err();
/// assert_eq!((e.option(), e.message()), (Some("max_depth"), "max_depth must be 1 to 512, got 513"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CanonicalizeRequest {
    /// The profile, by name.
    pub profile: Option<String>,
    /// What to do with unknown members, by name.
    pub unknown: Option<String>,
    /// The largest card, in bytes.
    pub max_input_bytes: Option<usize>,
    /// The deepest nesting of a card.
    pub max_depth: Option<usize>,
}

impl Request for CanonicalizeRequest {
    const TABLE: &'static [OptionSpec] = CANONICALIZE;
    type Built = CanonicalizeOptions;

    fn set(&mut self, name: &str, value: OptionValue) -> Result<(), Error> {
        use OptionValue as V;
        match (name, value) {
            ("profile", V::Text(v)) => self.profile = Some(v),
            ("unknown", V::Text(v)) => self.unknown = Some(v),
            ("max_input_bytes", V::Count(n)) => self.max_input_bytes = Some(n),
            ("max_depth", V::Count(n)) => self.max_depth = Some(n),
            (name, _) => return Err(refused_value(Self::TABLE, name, "a canonicalization")),
        }
        Ok(())
    }

    fn build(&self) -> Result<CanonicalizeOptions, Error> {
        Ok(CanonicalizeOptions {
            profile: named(&self.profile, "profile", Profile::Spec)?,
            unknown: named(&self.unknown, "unknown", UnknownMembers::default())?,
            limits: limits(Self::TABLE, self.max_input_bytes, self.max_depth)?,
        })
    }
}

/// The options of lint, one member per row of [`LINT`].
///
/// ```
/// use a2a_card::request::{LintRequest, Request};
/// assert_eq!(LintRequest::default().build().unwrap().limits.max_depth, 128);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LintRequest {
    /// The largest card, in bytes.
    pub max_input_bytes: Option<usize>,
    /// The deepest nesting of a card.
    pub max_depth: Option<usize>,
}

impl Request for LintRequest {
    const TABLE: &'static [OptionSpec] = LINT;
    type Built = LintOptions;

    fn set(&mut self, name: &str, value: OptionValue) -> Result<(), Error> {
        use OptionValue as V;
        match (name, value) {
            ("max_input_bytes", V::Count(n)) => self.max_input_bytes = Some(n),
            ("max_depth", V::Count(n)) => self.max_depth = Some(n),
            (name, _) => return Err(refused_value(Self::TABLE, name, "a lint")),
        }
        Ok(())
    }

    fn build(&self) -> Result<LintOptions, Error> {
        Ok(LintOptions {
            limits: limits(Self::TABLE, self.max_input_bytes, self.max_depth)?,
        })
    }
}

/// The options of migrate, one member per row of [`MIGRATE`].
///
/// ```
/// use a2a_card::request::{MigrateRequest, Request};
/// let e = MigrateRequest { protocol_version: Some(String::new()), ..Default::default() };
/// let e = e.build().unwrap_err();
/// assert_eq!((e.option(), e.message()), (Some("protocol_version"), "the protocolVersion must not be empty"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MigrateRequest {
    /// The protocolVersion of every interface.
    pub protocol_version: Option<String>,
    /// The largest card, in bytes.
    pub max_input_bytes: Option<usize>,
    /// The deepest nesting of a card.
    pub max_depth: Option<usize>,
}

impl Request for MigrateRequest {
    const TABLE: &'static [OptionSpec] = MIGRATE;
    type Built = MigrateOptions;

    fn set(&mut self, name: &str, value: OptionValue) -> Result<(), Error> {
        use OptionValue as V;
        match (name, value) {
            ("protocol_version", V::Text(v)) => self.protocol_version = Some(v),
            ("max_input_bytes", V::Count(n)) => self.max_input_bytes = Some(n),
            ("max_depth", V::Count(n)) => self.max_depth = Some(n),
            (name, _) => return Err(refused_value(Self::TABLE, name, "a migration")),
        }
        Ok(())
    }

    fn build(&self) -> Result<MigrateOptions, Error> {
        let opts = MigrateOptions {
            limits: limits(Self::TABLE, self.max_input_bytes, self.max_depth)?,
            protocol_version: self.protocol_version.clone(),
        };
        opts.check().map_err(|e| e.for_option("protocol_version"))?;
        Ok(opts)
    }
}

#[cfg(test)]
mod tests {
    use super::{duration_debug, kind_debug, Kind};
    use std::time::Duration;

    #[test]
    fn kind_debug_is_the_derived_debug() {
        let tables = [
            super::super::VERIFY,
            super::super::SIGN,
            super::CANONICALIZE,
            super::LINT,
            super::MIGRATE,
        ];
        for spec in tables.iter().flat_map(|t| t.iter()) {
            assert_eq!(kind_debug(&spec.kind), format!("{:?}", spec.kind));
        }
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for i in 0..100_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let d = Duration::new(x >> (i % 64), (x % 1_000_000_000) as u32);
            let small = Duration::from_nanos(x % 10u64.pow(i % 10));
            let kind = Kind::Seconds {
                min: d,
                max: small,
                default: Duration::from_millis(x % 100_000),
            };
            assert_eq!(kind_debug(&kind), format!("{kind:?}"));
            assert_eq!(duration_debug(small), format!("{small:?}"));
        }
        for kind in [
            Kind::Count {
                min: 0,
                max: usize::MAX,
                default: 7,
            },
            Kind::Choice(&["a", "b\"c"]),
            Kind::Names(&[]),
            Kind::Text,
            Kind::Texts,
            Kind::List,
            Kind::Keys { list: true },
            Kind::Pem,
            Kind::Time,
            Kind::Flag(false),
            Kind::Members,
            Kind::Path,
        ] {
            assert_eq!(kind_debug(&kind), format!("{kind:?}"));
        }
    }
}
