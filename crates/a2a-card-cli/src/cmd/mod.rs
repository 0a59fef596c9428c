//! One module per subcommand. Each has an `Args` struct (clap derive), an `AFTER_HELP` text
//! with at least one example, and `run(Args)`. The value parsers shared by several subcommands
//! are here: each maps a name to the library's own type through the library's own lookup.

pub(crate) mod batch;
pub(crate) mod canonicalize;
pub(crate) mod fetch;
pub(crate) mod inspect;
pub(crate) mod jwks;
pub(crate) mod keygen;
pub(crate) mod sign;
pub(crate) mod verify;

use a2a_card::alg::Algorithm;
use a2a_card::{Mode, Profile, UnknownMembers};
use clap::builder::{PossibleValuesParser, TypedValueParser};

/// `--profile`: `spec`, `prune-empty` or `served-as-is`.
pub(crate) fn profile_parser() -> impl TypedValueParser<Value = Profile> {
    PossibleValuesParser::new(Profile::ALL.map(Profile::as_str))
        .try_map(|s| Profile::from_name(&s).ok_or(format!("unknown profile {s:?}")))
}

/// `--unknown`: `exclude`, `retain` or `reject`.
pub(crate) fn unknown_parser() -> impl TypedValueParser<Value = UnknownMembers> {
    PossibleValuesParser::new(
        [
            UnknownMembers::Exclude,
            UnknownMembers::Retain,
            UnknownMembers::Reject,
        ]
        .map(UnknownMembers::as_str),
    )
    .try_map(|s| UnknownMembers::from_name(&s).ok_or(format!("unknown mode {s:?}")))
}

/// `--alg`: a JWS algorithm name, as the library spells and checks it.
pub(crate) fn alg_parser() -> impl TypedValueParser<Value = Algorithm> {
    clap::builder::NonEmptyStringValueParser::new()
        .try_map(|s| Algorithm::from_name(&s).map_err(|e| e.message().to_string()))
}

/// `--mode`: `require`, `all` or `if-present`.
pub(crate) fn mode_parser() -> impl TypedValueParser<Value = Mode> {
    PossibleValuesParser::new([Mode::Require, Mode::All, Mode::IfPresent].map(Mode::as_str))
        .try_map(|s| Mode::from_name(&s).ok_or(format!("unknown mode {s:?}")))
}
