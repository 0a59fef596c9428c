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
pub(crate) mod urls;
pub(crate) mod verify;
pub(crate) mod version;

#[cfg(test)]
mod table_check;

use a2a_card::{Algorithm, Profile};
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

/// `verify --profile`: a profile name, or `auto` (every profile), as the library's
/// [`a2a_card::canonical::accepted_profiles`] reads them.
pub(crate) fn profile_name_parser() -> PossibleValuesParser {
    PossibleValuesParser::new(Profile::ALL.map(Profile::as_str).into_iter().chain(["auto"]))
}

/// `--alg`: a JWS algorithm name, as the library spells and checks it.
pub(crate) fn alg_parser() -> impl TypedValueParser<Value = Algorithm> {
    clap::builder::NonEmptyStringValueParser::new()
        .try_map(|s| Algorithm::from_name(&s).map_err(|e| e.message().to_string()))
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
