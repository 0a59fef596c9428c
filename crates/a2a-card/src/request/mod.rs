//! Requests: the options of an operation as one document every front end fills in, read and
//! checked once, here. The CLI, the npm package and the Python package only read their own
//! input shape (flags, a JavaScript object, keyword arguments) into a request and print what
//! comes back; defaults, bounds, the rules between options, the trust roots and the cache of
//! parsed keys are this module's.
//!
//! [`SIGN`], [`CANONICALIZE`], [`LINT`] and [`MIGRATE`] are the tables of the other operations, with
//! their requests ([`Request`]: `set` by name, `build`), read by the front ends alike.
//!
//! Each package reads its language's values by the tables through [`read_request`], with a
//! [`Language`] of its own (the shapes of its values, the words of its messages).
//!
//! [`VERIFY`] is the table of the verify options (canonical name, kind, default, bounds,
//! documentation, which front ends offer it); [`VerifyRequest::build`] turns a request into a
//! [`ReadyVerifier`]. An error about an option carries it by its canonical name
//! ([`Error::option`]), and each front end spells it its own way with [`Error::spelled`] and a
//! [`Spelling`]: `max_chain` in Python ([`Snake`]), `"maxChain"` in JavaScript ([`Camel`]),
//! the command line's flag by the CLI's own map. No message of the library names a flag or a
//! package, and the core knows no front end's words.
//!
//! ```
//! use a2a_card::request::{Camel, VerifyRequest};
//! let e = VerifyRequest { max_chain: Some(9), ..Default::default() }.options().unwrap_err();
//! assert_eq!(e.option(), Some("max_chain"));
//! assert_eq!(e.message(), "max_chain must be 1 to 8, got 9");
//! assert_eq!(e.spelled(&Camel).message(), "\"maxChain\" must be 1 to 8, got 9");
//! ```

mod cache;
mod native;
mod ops;
mod sign;
mod spelling;
mod table;
mod verify;

pub(crate) use cache::{parsed_jwks, parsed_key, parsed_trust};
pub use native::{read_request, read_value, Language, Shape, Show, Words};
pub use ops::{
    refused_value, CanonicalizeRequest, LintRequest, MigrateRequest, Request, CANONICALIZE, LINT, MIGRATE,
};
pub use sign::{SignRequest, SIGN};
pub use spelling::{Camel, Labelled, Quotes, Snake, Spelling};
pub use table::{camel_case, option, Fronts, Kind, OptionSpec, VERIFY};
pub use verify::{Input, OptionValue, ReadyVerifier, VerifyRequest};

use crate::canonical::number::plain_decimal;
pub use crate::error::{option_error, template_literal};
use crate::{Error, ErrorCode};

/// The rule for a count option of a table: from its least to its greatest value.
///
/// ```
/// use a2a_card::request::{check_count, option, VERIFY};
/// let chain = option(VERIFY, "max_chain").unwrap();
/// assert_eq!(check_count(chain, 2).unwrap(), 2);
/// assert_eq!(check_count(chain, 9).unwrap_err().message(), "max_chain must be 1 to 8, got 9");
/// ```
pub fn check_count(spec: &OptionSpec, n: usize) -> Result<usize, Error> {
    let (min, max) = spec.bounds().unwrap_or((0, usize::MAX));
    if (min..=max).contains(&n) {
        return Ok(n);
    }
    Err(option_error(
        ErrorCode::Usage,
        &format!("{{{}}} must be {min} to {max}, got {n}", spec.name),
        &[spec.name],
    ))
}

/// The rule for a seconds option of a table ([`Kind::Seconds`]): from its shortest to its
/// longest length.
///
/// ```
/// use a2a_card::request::{check_seconds, Fronts, Kind, OptionSpec};
/// use std::time::Duration;
/// let spec = OptionSpec {
///     name: "timeout",
///     kind: Kind::Seconds { min: Duration::from_millis(1), max: Duration::from_secs(60), default: Duration::from_secs(30) },
///     fronts: Fronts { cli: true, npm: false, python: false },
///     doc: "The longest wait.",
/// };
/// assert!(check_seconds(&spec, Duration::from_secs(2)).is_ok());
/// let e = check_seconds(&spec, Duration::from_secs(61)).unwrap_err();
/// assert_eq!(e.message(), "timeout must be 0.001 to 60 seconds, got 61");
/// ```
pub fn check_seconds(spec: &OptionSpec, d: std::time::Duration) -> Result<std::time::Duration, Error> {
    match spec.kind {
        Kind::Seconds { min, max, .. } if !(min..=max).contains(&d) => Err(option_error(
            ErrorCode::Usage,
            &format!(
                "{{{}}} must be {} to {} seconds, got {}",
                spec.name,
                plain_decimal(min.as_secs_f64()),
                plain_decimal(max.as_secs_f64()),
                plain_decimal(d.as_secs_f64())
            ),
            &[spec.name],
        )),
        _ => Ok(d),
    }
}
