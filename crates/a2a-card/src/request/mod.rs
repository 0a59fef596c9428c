//! Requests: the options of an operation as one document every front end fills in, read and
//! checked once, here. The CLI, the npm package and the Python package only read their own
//! input shape (flags, a JavaScript object, keyword arguments) into a request and print what
//! comes back; defaults, bounds, the rules between options, the trust roots and the cache of
//! parsed keys are this module's.
//!
//! [`VERIFY`] is the table of the verify options (name, kind, default, bounds, documentation,
//! the CLI's flag); [`VerifyRequest::build`] turns a request into a [`ReadyVerifier`]. An error
//! about an option carries it ([`Error::option`]), and each front end spells it its own way
//! with [`Error::spelled`]: `--max-chain` on the command line, `max_chain` in Python,
//! `"maxChain"` in JavaScript. No message of the library names a flag or a package.
//!
//! ```
//! use a2a_card::request::{Spelling, VerifyRequest};
//! let e = VerifyRequest { max_chain: Some(9), ..Default::default() }.options().unwrap_err();
//! assert_eq!(e.option(), Some("max_chain"));
//! assert_eq!(e.message(), "max_chain must be 1 to 8, got 9");
//! assert_eq!(e.clone().spelled(Spelling::Flag).message(), "--max-chain must be 1 to 8, got 9");
//! assert_eq!(e.spelled(Spelling::Camel).message(), "\"maxChain\" must be 1 to 8, got 9");
//! ```

mod cache;
mod table;
mod verify;

pub use cache::{parsed_jwks, parsed_key, parsed_trust, PARSED_CACHE};
pub use table::{camel_case, option, Fronts, Kind, OptionSpec, VERIFY};
pub use verify::{Input, OptionValue, ReadyVerifier, VerifyRequest};

pub use crate::error::option_error;
use crate::{Error, ErrorCode};

/// How a front end spells the names of options in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// The canonical snake_case name, as the Rust request and the Python package spell it.
    Snake,
    /// camelCase in double quotes, as the npm package spells it.
    Camel,
    /// The CLI's flag (`--max-chain`; `--alg` for `algorithms`).
    Flag,
}

impl Spelling {
    /// The name of an option of [`VERIFY`] (or any canonical name) in this spelling.
    ///
    /// ```
    /// use a2a_card::request::Spelling;
    /// assert_eq!(Spelling::Flag.name("algorithms"), "--alg");
    /// assert_eq!(Spelling::Camel.name("max_keys_per_kid"), "\"maxKeysPerKid\"");
    /// ```
    pub fn name(self, option: &str) -> String {
        match self {
            Spelling::Snake => option.to_string(),
            Spelling::Camel => format!("\"{}\"", camel_case(option)),
            Spelling::Flag => match table::option(VERIFY, option).and_then(|o| o.fronts.cli) {
                Some(flag) => flag.to_string(),
                None => format!("--{}", option.replace('_', "-")),
            },
        }
    }
}

impl Error {
    /// The same error with the options it names spelled as a front end spells them (see
    /// [`Spelling`]). A message made from a template names each option where the template
    /// says; another error about an option gets the option's name in front; an error about
    /// one input (a key, a file) gets the input's name in front instead, except for
    /// [`Spelling::Flag`] (the CLI prints the file as the error's place).
    ///
    /// ```
    /// use a2a_card::request::Spelling;
    /// use a2a_card::{Error, ErrorCode};
    /// let e = Error::new(ErrorCode::Usage, "bad value").for_option("require_eku");
    /// assert_eq!(e.spelled(Spelling::Flag).message(), "--require-eku: bad value");
    /// ```
    #[must_use]
    pub fn spelled(mut self, spelling: Spelling) -> Error {
        if self.options().is_empty() && self.input().is_none() {
            return self;
        }
        if let Some(template) = self.template() {
            let mut message = render(template, self.options(), spelling);
            if let Some((input, false)) = self.input().filter(|_| spelling != Spelling::Flag) {
                message = format!("{input}: {message}");
            }
            self.set_message(message);
        } else {
            self = self.spell_untemplated(spelling);
        }
        // Spelled once: spelling it again changes nothing.
        let done = self.message().to_string();
        self.set_template(done);
        self
    }

    fn spell_untemplated(mut self, spelling: Spelling) -> Error {
        match (self.input(), self.option()) {
            (Some((input, false)), _) if spelling != Spelling::Flag => {
                let message = format!("{input}: {}", self.message());
                self.set_message(message);
            }
            (None, Some(option)) => {
                let spelled = spelling.name(option);
                // A message that starts with the option's name names it there; another gets
                // the name in front.
                let message = match self.message().strip_prefix(option) {
                    Some(rest) if !rest.starts_with(|c: char| c == '_' || c.is_alphanumeric()) => {
                        // A name this spelling writes alike is left as the sentence has it
                        // (`mode "any" is not one of ...`), unless it labels the message.
                        if spelled.trim_matches('"') == option && !rest.starts_with(':') {
                            self.message().to_string()
                        } else {
                            format!("{spelled}{rest}")
                        }
                    }
                    _ => format!("{spelled}: {}", self.message()),
                };
                self.set_message(message);
            }
            _ => {}
        }
        self
    }
}

/// The template with each `{name}` of `options` spelled; quotes around a placeholder are kept
/// for names, added for the npm spelling (which quotes) and dropped for flags.
fn render(template: &str, options: &[&'static str], spelling: Spelling) -> String {
    let mut out = template.to_string();
    for o in options {
        let bare = format!("{{{o}}}");
        let quoted = format!("\"{bare}\"");
        let name = spelling.name(o);
        let unquoted = name.trim_matches('"').to_string();
        out = match spelling {
            Spelling::Snake => out.replace(&bare, &name),
            Spelling::Camel => out.replace(&quoted, &name).replace(&bare, &name),
            Spelling::Flag => out.replace(&quoted, &unquoted).replace(&bare, &unquoted),
        };
    }
    out
}

/// The rule for a count option of a table: from its least to its greatest value.
pub(crate) fn check_count(spec: &OptionSpec, n: usize) -> Result<usize, Error> {
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
