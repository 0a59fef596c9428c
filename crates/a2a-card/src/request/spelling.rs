//! How each front end writes the names of options in the messages of errors: the core keeps
//! the canonical (snake_case) name in every error ([`Error::options`]), and a front end spells
//! it through a [`Spelling`] of its own, or one of the naming conventions here ([`Snake`],
//! [`Camel`]). The core knows no front end's words: a command line's flags are its own.

use super::camel_case;
use crate::Error;

/// What a front end does with a template's double quotes around the name of an option
/// (`give "{profile}" or "{profiles}"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quotes {
    /// Kept where the template writes them, none added.
    AsWritten,
    /// Every name in double quotes, whether the template writes them or not.
    Always,
    /// None: the template's dropped (a name that is not a word of the sentence, such as a
    /// command line's flag).
    Never,
}

/// How a front end writes the names of options in messages: [`Error::spelled`] asks it.
///
/// ```
/// use a2a_card::request::{Quotes, Spelling, VerifyRequest};
/// /// A front end that writes options in upper case, without quotes.
/// struct Upper;
/// impl Spelling for Upper {
///     fn name(&self, option: &str) -> String {
///         option.to_uppercase()
///     }
///     fn quotes(&self) -> Quotes {
///         Quotes::Never
///     }
/// }
/// let e = VerifyRequest { max_chain: Some(9), ..Default::default() }.options().unwrap_err();
/// assert_eq!(e.spelled(&Upper).message(), "MAX_CHAIN must be 1 to 8, got 9");
/// ```
pub trait Spelling {
    /// The name of an option, given its canonical (snake_case) name, without quotes.
    fn name(&self, option: &str) -> String;

    /// What becomes of a template's double quotes around a name; [`Quotes::AsWritten`]
    /// unless said otherwise.
    fn quotes(&self) -> Quotes {
        Quotes::AsWritten
    }

    /// Whether the message of an error about one input (a key, a file) gets the input's name
    /// (`keys[0]`) in front: yes unless said otherwise; a front end that shows the input
    /// elsewhere (as the error's place) says no.
    fn names_input(&self) -> bool {
        true
    }

    /// A message about one option that does not name it, labelled with the option's name as
    /// this spelling writes it (`name`, in its quotes): `name: message` unless said otherwise.
    ///
    /// ```
    /// use a2a_card::request::{Snake, Spelling};
    /// assert_eq!(Snake.label("kid", "too long"), "kid: too long");
    /// ```
    fn label(&self, name: &str, message: &str) -> String {
        format!("{name}: {message}")
    }
}

/// The canonical snake_case name, as the Rust request and the Python package spell it.
///
/// ```
/// use a2a_card::request::{Snake, Spelling};
/// assert_eq!(Snake.name("max_keys_per_kid"), "max_keys_per_kid");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Snake;

impl Spelling for Snake {
    fn name(&self, option: &str) -> String {
        option.to_string()
    }
}

/// camelCase in double quotes, as the npm package spells it.
///
/// ```
/// use a2a_card::request::{Camel, Spelling};
/// assert_eq!(Camel.name("max_keys_per_kid"), "maxKeysPerKid");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Camel;

impl Spelling for Camel {
    fn name(&self, option: &str) -> String {
        camel_case(option)
    }

    fn quotes(&self) -> Quotes {
        Quotes::Always
    }
}

/// A spelling with a label of its own for a message about an option that does not name it
/// ([`Spelling::label`]: the function gets the name as the spelling writes it, and the message).
///
/// ```
/// use a2a_card::request::{Camel, Labelled, Request, MigrateRequest};
/// let e = MigrateRequest { protocol_version: Some(String::new()), ..Default::default() };
/// let of = |name: &str, message: &str| format!("option {name} of migrate: {message}");
/// assert_eq!(
///     e.build().unwrap_err().spelled(&Labelled(&Camel, &of)).message(),
///     "option \"protocolVersion\" of migrate: the protocolVersion must not be empty"
/// );
/// ```
pub struct Labelled<'a>(pub &'a dyn Spelling, pub &'a dyn Fn(&str, &str) -> String);

impl Spelling for Labelled<'_> {
    fn name(&self, option: &str) -> String {
        self.0.name(option)
    }

    fn quotes(&self) -> Quotes {
        self.0.quotes()
    }

    fn names_input(&self) -> bool {
        self.0.names_input()
    }

    fn label(&self, name: &str, message: &str) -> String {
        (self.1)(name, message)
    }
}

/// The name of `option` as `spelling` writes it where a sentence names it on its own: in
/// quotes for [`Quotes::Always`].
fn written(spelling: &dyn Spelling, option: &str) -> String {
    let name = spelling.name(option);
    match spelling.quotes() {
        Quotes::Always => format!("\"{name}\""),
        Quotes::AsWritten | Quotes::Never => name,
    }
}

impl Error {
    /// The same error with the options it names spelled as a front end spells them (see
    /// [`Spelling`]). A message made from a template names each option where the template
    /// says; another error about an option gets the option's name in front; an error about
    /// one input (a key, a file) gets the input's name in front instead, unless the spelling
    /// says no ([`Spelling::names_input`]).
    ///
    /// ```
    /// use a2a_card::request::{Camel, Snake};
    /// use a2a_card::{Error, ErrorCode};
    /// let e = Error::new(ErrorCode::Usage, "bad value").for_option("require_eku");
    /// assert_eq!(e.clone().spelled(&Snake).message(), "require_eku: bad value");
    /// assert_eq!(e.spelled(&Camel).message(), "\"requireEku\": bad value");
    /// ```
    #[must_use]
    pub fn spelled(mut self, spelling: &dyn Spelling) -> Error {
        if self.options().is_empty() && self.input().is_none() {
            return self;
        }
        if let Some(template) = self.template() {
            let mut message = render(template, self.options(), spelling);
            if let Some((input, false)) = self.input().filter(|_| spelling.names_input()) {
                message = format!("{input}: {message}");
            }
            self.set_message(message);
        } else {
            self = self.spell_untemplated(spelling);
        }
        // Spelled once: spelling it again changes nothing.
        let done = crate::error::template_literal(self.message());
        self.set_template(done);
        self
    }

    fn spell_untemplated(mut self, spelling: &dyn Spelling) -> Error {
        match (self.input(), self.option()) {
            (Some((input, false)), _) if spelling.names_input() => {
                let message = format!("{input}: {}", self.message());
                self.set_message(message);
            }
            (None, Some(option)) => {
                let spelled = written(spelling, option);
                // A message that starts with the option's name names it there; another gets
                // the name in front.
                let message = match self.message().strip_prefix(option) {
                    Some(rest) if !rest.starts_with(|c: char| c == '_' || c.is_ascii_alphanumeric()) => {
                        // A name this spelling writes alike is left as the sentence has it
                        // (`mode "any" is not one of ...`), unless it labels the message.
                        if spelled.trim_matches('"') == option && !rest.starts_with(':') {
                            self.message().to_string()
                        } else {
                            format!("{spelled}{rest}")
                        }
                    }
                    _ => spelling.label(&spelled, self.message()),
                };
                self.set_message(message);
            }
            _ => {}
        }
        self
    }
}

/// The template with each `{name}` of `options` spelled, its quotes as the spelling says
/// ([`Quotes`]).
fn render(template: &str, options: &[&'static str], spelling: &dyn Spelling) -> String {
    crate::error::fill_template(template, options, |o, quoted| {
        let name = spelling.name(o);
        match (spelling.quotes(), quoted) {
            (Quotes::AsWritten, true) | (Quotes::Always, _) => format!("\"{name}\""),
            (Quotes::AsWritten, false) | (Quotes::Never, _) => name,
        }
    })
}
