//! The one error type of the toolkit: a stable code, the place, and a sentence a person can act on.
//!
//! The codes here are the ones the library raises. A retrieval over the network has its own
//! codes and facts (the URL, the HTTP status) in `a2a_card_fetch::Error`, which wraps this
//! type for a fetched document that is refused. An external key's failures carry the codes of
//! the crate that reaches it (`a2a_card_keys::ErrorCode`) in [`ErrorCode::External`].

use std::fmt;

/// Stable, kebab-case error codes. The spelling of each code is part of the public interface:
/// test vectors, the CLI and the wasm package all report these strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// The bytes are not JSON: bad syntax, invalid UTF-8, a lone surrogate, a byte-order mark,
    /// trailing data.
    InvalidJson,
    /// An object names the same member twice (compared after unescaping).
    DuplicateMember,
    /// A number overflows a double, or an integer lies outside +-(2^53-1).
    NumberOutOfRange,
    /// Arrays and objects nest deeper than the limit.
    NestingTooDeep,
    /// The input is larger than the limit.
    InputTooLarge,
    /// A field is given under both its JSON name and its proto name.
    DualName,
    /// A value has the wrong JSON type for its field.
    TypeMismatch,
    /// Two members of one protobuf `oneof` are set at once.
    OneofConflict,
    /// A member the schema does not know, refused because the caller asked for `reject`.
    UnknownMember,
    /// An algorithm name that is not supported (or never allowed, such as `none`).
    UnknownAlgorithm,
    /// The algorithm does not fit the key.
    KeyAlgorithmMismatch,
    /// Key material that cannot be read.
    InvalidKey,
    /// A PEM that is encrypted; decrypt it first.
    EncryptedKey,
    /// A key that is too weak to be used: RSA under 2048 bits, or an Ed25519 or Ed448 point of
    /// small order (under which a forged signature verifies).
    WeakKey,
    /// A JWK whose members contradict its `kty` or `crv`.
    JwkInconsistent,
    /// Base64url text that is not strict (padding, foreign characters, non-canonical tail bits).
    InvalidBase64url,
    /// A protected or unprotected JWS header that breaks the rules.
    MalformedHeader,
    /// A `crit` header parameter naming something not understood.
    UnsupportedCrit,
    /// `b64: false` (unencoded payload) is not supported.
    UnsupportedB64,
    /// The same header parameter in both the protected and the unprotected header.
    HeaderConflict,
    /// A JWS header larger than the limit.
    HeaderTooLarge,
    /// More signatures on a card than the limit.
    TooManySignatures,
    /// More keys than a limit allows: trusted keys sharing one `kid`, or keys in a JWK Set.
    TooManyKeys,
    /// Verifying the card would take more signature checks than the limit.
    TooManyChecks,
    /// The cryptographic check failed.
    SignatureInvalid,
    /// No trusted key matches the signature.
    UntrustedKey,
    /// The signature declares (in its protected header) the canonical profile it was made
    /// over, and the verifier's policy does not accept that profile.
    ProfileNotAccepted,
    /// The algorithm is not in the caller's allowed set.
    AlgorithmNotAllowed,
    /// The key's validity window has ended or not begun.
    KeyExpired,
    /// The key is marked revoked.
    KeyRevoked,
    /// The trust store or policy file is malformed.
    InvalidTrustStore,
    /// A card lacks what the operation needs (for example a signature entry that is not an object).
    MalformedCard,
    /// Signing would leave members of the card uncovered by the signature (unknown or A2A 0.3
    /// members), and the signer did not choose to (the option `unknown`: `exclude` or `retain`;
    /// `SignOptions::allow_unsigned`).
    UnsignedMembers,
    /// A signature made by an external key does not verify with that key's public key (the
    /// token or plugin signed with another key, or returned garbage); nothing was signed.
    ExternalSignatureInvalid,
    /// `sign` refused a card that lint finds errors in (the CLI's `sign --lint error`).
    LintFailed,
    /// `sign` refused a card that already carries a signature with the kid it would sign under
    /// (at that entry's JSON Pointer): the caller chooses to replace it
    /// (`SignOptions::replace_same_kid`) or to add one more beside it
    /// (`SignOptions::append_same_kid`).
    KidAlreadySigned,
    /// Reading or writing a file failed.
    Io,
    /// An `x5c` chain that does not build to one of the verifier's trust anchors (unknown root, a CA flag or path length broken, name constraints violated, a required EKU missing, the chain longer than the limit, no anchor or identity rule), or an `x5u`, which is never fetched.
    CertificateUntrusted,
    /// A certificate of an `x5c` chain, or a trust anchor's window, is expired or not yet valid at the verification time.
    CertificateExpired,
    /// A certificate of an `x5c` chain is revoked by a CRL the verifier gave, or its anchor is marked revoked.
    CertificateRevoked,
    /// The leaf certificate of an `x5c` chain names no identity the verifier expects (DNS or IP SAN of the origin, SPIFFE ID, an anchor's identities).
    CertificateIdentityMismatch,
    /// The leaf certificate's public key is not the signature's key (or does not fit its `alg`, or may not sign).
    CertificateKeyMismatch,
    /// An `x5c` entry, a certificate bundle or a CRL that does not decode (base64, DER).
    CertificateMalformed,

    /// The caller combined options that cannot work together.
    Usage,

    /// A failure of an external key, under the code the crate that reaches the key gives it
    /// (`a2a_card_keys::ErrorCode`: `key-unavailable`, `external-signer-failed`, `timeout`).
    /// A [`Signer`](crate::Signer) outside this crate reports its failures with it; the
    /// spelling is that crate's, and [`ErrorCode::ALL`] does not list it.
    ///
    /// ```
    /// use a2a_card::ErrorCode;
    /// let code = ErrorCode::External("key-unavailable");
    /// assert_eq!(code.as_str(), "key-unavailable");
    /// assert!(code.is_external_key());
    /// assert_eq!(ErrorCode::from_name("key-unavailable"), None);
    /// ```
    External(&'static str),
}

impl ErrorCode {
    /// The stable kebab-case spelling of the code.
    ///
    /// ```
    /// assert_eq!(a2a_card::ErrorCode::DuplicateMember.as_str(), "duplicate-member");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidJson => "invalid-json",
            ErrorCode::DuplicateMember => "duplicate-member",
            ErrorCode::NumberOutOfRange => "number-out-of-range",
            ErrorCode::NestingTooDeep => "nesting-too-deep",
            ErrorCode::InputTooLarge => "input-too-large",
            ErrorCode::DualName => "dual-name",
            ErrorCode::TypeMismatch => "type-mismatch",
            ErrorCode::OneofConflict => "oneof-conflict",
            ErrorCode::UnknownMember => "unknown-member",
            ErrorCode::UnknownAlgorithm => "unknown-algorithm",
            ErrorCode::KeyAlgorithmMismatch => "key-algorithm-mismatch",
            ErrorCode::InvalidKey => "invalid-key",
            ErrorCode::EncryptedKey => "encrypted-key",
            ErrorCode::WeakKey => "weak-key",
            ErrorCode::JwkInconsistent => "jwk-inconsistent",
            ErrorCode::InvalidBase64url => "invalid-base64url",
            ErrorCode::MalformedHeader => "malformed-header",
            ErrorCode::UnsupportedCrit => "unsupported-crit",
            ErrorCode::UnsupportedB64 => "unsupported-b64",
            ErrorCode::HeaderConflict => "header-conflict",
            ErrorCode::HeaderTooLarge => "header-too-large",
            ErrorCode::TooManySignatures => "too-many-signatures",
            ErrorCode::TooManyKeys => "too-many-keys",
            ErrorCode::TooManyChecks => "too-many-checks",
            ErrorCode::SignatureInvalid => "signature-invalid",
            ErrorCode::UntrustedKey => "untrusted-key",
            ErrorCode::ProfileNotAccepted => "profile-not-accepted",
            ErrorCode::AlgorithmNotAllowed => "algorithm-not-allowed",
            ErrorCode::KeyExpired => "key-expired",
            ErrorCode::KeyRevoked => "key-revoked",
            ErrorCode::InvalidTrustStore => "invalid-trust-store",
            ErrorCode::MalformedCard => "malformed-card",
            ErrorCode::UnsignedMembers => "unsigned-members",
            ErrorCode::ExternalSignatureInvalid => "external-signature-invalid",
            ErrorCode::LintFailed => "lint-failed",
            ErrorCode::KidAlreadySigned => "kid-already-signed",
            ErrorCode::Io => "io",
            ErrorCode::CertificateUntrusted => "certificate-untrusted",
            ErrorCode::CertificateExpired => "certificate-expired",
            ErrorCode::CertificateRevoked => "certificate-revoked",
            ErrorCode::CertificateIdentityMismatch => "certificate-identity-mismatch",
            ErrorCode::CertificateKeyMismatch => "certificate-key-mismatch",
            ErrorCode::CertificateMalformed => "certificate-malformed",
            ErrorCode::Usage => "usage",
            ErrorCode::External(code) => code,
        }
    }

    /// Every code, in declaration order (for documentation and exhaustive tests).
    pub const ALL: &'static [ErrorCode] = &[
        ErrorCode::InvalidJson,
        ErrorCode::DuplicateMember,
        ErrorCode::NumberOutOfRange,
        ErrorCode::NestingTooDeep,
        ErrorCode::InputTooLarge,
        ErrorCode::DualName,
        ErrorCode::TypeMismatch,
        ErrorCode::OneofConflict,
        ErrorCode::UnknownMember,
        ErrorCode::UnknownAlgorithm,
        ErrorCode::KeyAlgorithmMismatch,
        ErrorCode::InvalidKey,
        ErrorCode::EncryptedKey,
        ErrorCode::WeakKey,
        ErrorCode::JwkInconsistent,
        ErrorCode::InvalidBase64url,
        ErrorCode::MalformedHeader,
        ErrorCode::UnsupportedCrit,
        ErrorCode::UnsupportedB64,
        ErrorCode::HeaderConflict,
        ErrorCode::HeaderTooLarge,
        ErrorCode::TooManySignatures,
        ErrorCode::TooManyKeys,
        ErrorCode::TooManyChecks,
        ErrorCode::SignatureInvalid,
        ErrorCode::UntrustedKey,
        ErrorCode::ProfileNotAccepted,
        ErrorCode::AlgorithmNotAllowed,
        ErrorCode::KeyExpired,
        ErrorCode::KeyRevoked,
        ErrorCode::InvalidTrustStore,
        ErrorCode::MalformedCard,
        ErrorCode::UnsignedMembers,
        ErrorCode::ExternalSignatureInvalid,
        ErrorCode::LintFailed,
        ErrorCode::KidAlreadySigned,
        ErrorCode::Io,
        ErrorCode::CertificateUntrusted,
        ErrorCode::CertificateExpired,
        ErrorCode::CertificateRevoked,
        ErrorCode::CertificateIdentityMismatch,
        ErrorCode::CertificateKeyMismatch,
        ErrorCode::CertificateMalformed,
        ErrorCode::Usage,
    ];

    /// True for the failures of an external key (an [`ErrorCode::External`] code, and
    /// `external-signature-invalid`): the key could not be reached, did not answer in time, or
    /// what it answered cannot be used. A command-line tool maps them to its "key retrieval
    /// failed" exit code.
    ///
    /// ```
    /// use a2a_card::ErrorCode;
    /// assert!(ErrorCode::External("timeout").is_external_key());
    /// assert!(ErrorCode::ExternalSignatureInvalid.is_external_key());
    /// assert!(!ErrorCode::InvalidKey.is_external_key());
    /// ```
    pub fn is_external_key(self) -> bool {
        matches!(self, ErrorCode::External(_) | ErrorCode::ExternalSignatureInvalid)
    }

    /// The code with the given spelling, if there is one.
    ///
    /// ```
    /// use a2a_card::ErrorCode;
    /// assert_eq!(ErrorCode::from_name("dual-name"), Some(ErrorCode::DualName));
    /// assert_eq!(ErrorCode::from_name("no-such-code"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<ErrorCode> {
        Self::ALL.iter().copied().find(|c| c.as_str() == name)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error with a stable [`ErrorCode`], the JSON Pointer (RFC 6901) of the member it concerns
/// where there is one, the byte offset in the input where that is known, and a message.
///
/// ```
/// let err = a2a_card::jcs(br#"{"a":1,"a":2}"#).unwrap_err();
/// assert_eq!(err.code().as_str(), "duplicate-member");
/// assert_eq!(err.pointer(), Some("/a"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    code: ErrorCode,
    pointer: Option<String>,
    offset: Option<usize>,
    message: String,
    /// What an error about options adds (boxed: most errors have none, and a `Result` of the
    /// library stays small).
    detail: Option<Box<Detail>>,
}

/// The options an error is about, and the input it arose in.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Detail {
    /// The options the error is about, by their canonical names (the `request` table's).
    options: Vec<&'static str>,
    /// The caller's input it arose in (`keys[0]`, a file name) and whether the message already
    /// names it.
    input: Option<(String, bool)>,
    /// The message with each option it names written `{name}`, for the front ends to spell.
    template: Option<String>,
}

/// The rule for a count a caller chooses (a limit of the library's options): a whole number
/// from `min` to `max`, refused otherwise with `usage` and a message naming the option as the
/// library spells it. Every front end (the CLI's flags, the Python and npm options) applies
/// the same bounds through the `check` of the options it fills.
///
/// ```
/// use a2a_card::error::check_count;
/// assert!(check_count("max_signatures", 16, 1, 256).is_ok());
/// let e = check_count("max_signatures", 1_000_000_000_000, 1, 256).unwrap_err();
/// assert_eq!(e.code().as_str(), "usage");
/// assert_eq!(e.message(), "max_signatures must be 1 to 256, got 1000000000000");
/// ```
pub fn check_count(option: &'static str, n: usize, min: usize, max: usize) -> Result<(), Error> {
    if (min..=max).contains(&n) {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::Usage,
        format!("{option} must be {min} to {max}, got {n}"),
    )
    .for_option(option))
}

impl Error {
    /// A new error with a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            pointer: None,
            offset: None,
            message: message.into(),
            detail: None,
        }
    }

    fn detail_mut(&mut self) -> &mut Detail {
        self.detail.get_or_insert_with(Box::default)
    }

    /// The same error, about an option of a request, by its canonical (snake_case) name in
    /// [`crate::request::VERIFY`]: each front end spells it its own way
    /// ([`Error::spelled`] with its [`crate::request::Spelling`]). An error may be about
    /// several options.
    ///
    /// ```
    /// use a2a_card::{Error, ErrorCode};
    /// let e = Error::new(ErrorCode::Usage, "max_chain must be 1 to 8, got 9").for_option("max_chain");
    /// assert_eq!(e.option(), Some("max_chain"));
    /// ```
    pub fn for_option(mut self, name: &'static str) -> Self {
        self.detail_mut().options.push(name);
        self
    }

    /// The option the error is about (its canonical name), if it is about one: the last one
    /// named ([`Error::for_option`]).
    pub fn option(&self) -> Option<&'static str> {
        self.options().last().copied()
    }

    /// Every option the error is about.
    pub fn options(&self) -> &[&'static str] {
        self.detail.as_ref().map_or(&[], |d| d.options.as_slice())
    }

    /// The same error, about one input of an option (a key, a file), named as the caller named
    /// it; `named` says whether the message already names it.
    pub fn from_input(mut self, input: impl Into<String>, named: bool) -> Self {
        self.detail_mut().input = Some((input.into(), named));
        self
    }

    /// The input the error arose in, and whether the message names it.
    pub fn input(&self) -> Option<(&str, bool)> {
        self.detail
            .as_ref()?
            .input
            .as_ref()
            .map(|(s, n)| (s.as_str(), *n))
    }

    /// The message alone, replaced (the code, place and facts kept).
    pub(crate) fn set_message(&mut self, message: String) {
        self.message = message;
    }

    /// The message with its options written `{name}`, when it was made from one.
    pub(crate) fn template(&self) -> Option<&str> {
        self.detail.as_ref()?.template.as_deref()
    }

    /// Keeps the template the message was rendered from.
    pub(crate) fn set_template(&mut self, template: String) {
        self.detail_mut().template = Some(template);
    }

    /// The same error, placed at a JSON Pointer.
    pub fn at(mut self, pointer: impl Into<String>) -> Self {
        self.pointer = Some(pointer.into());
        self
    }

    /// The same error, placed at a byte offset of the input.
    pub fn at_offset(mut self, offset: usize) -> Self {
        self.offset = Some(offset);
        self
    }

    /// The same error, its message prefixed with the context it arose in (a file, an option,
    /// a header parameter); code and place are kept.
    ///
    /// ```
    /// let e = a2a_card::jcs(b"[1,]").unwrap_err().context("card.json");
    /// assert!(e.message().starts_with("card.json: "));
    /// assert_eq!(e.code().as_str(), "invalid-json");
    /// ```
    #[must_use]
    pub fn context(mut self, context: &str) -> Self {
        self.message = format!("{context}: {}", self.message);
        self
    }

    /// The same error with its JSON Pointer placed under `prefix` (the pointer of the document
    /// it was found in, inside a larger one); an error without a pointer gets `prefix`.
    ///
    /// ```
    /// let e = a2a_card::jcs(br#"{"a":1,"a":2}"#).unwrap_err().under("/keys/0");
    /// assert_eq!(e.pointer(), Some("/keys/0/a"));
    /// ```
    #[must_use]
    pub fn under(mut self, prefix: &str) -> Self {
        self.pointer = Some(format!("{prefix}{}", self.pointer.as_deref().unwrap_or("")));
        self
    }

    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The JSON Pointer of the offending member, `""` for the whole document.
    pub fn pointer(&self) -> Option<&str> {
        self.pointer.as_deref()
    }

    /// The byte offset in the input, where known.
    pub fn offset(&self) -> Option<usize> {
        self.offset
    }

    /// The sentence describing the problem, without code or place.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The place as people read it: `/a/b`, `(document root)`, or `byte 12`.
    pub fn place(&self) -> Option<String> {
        match (&self.pointer, self.offset) {
            (Some(p), Some(o)) if p.is_empty() => Some(format!("byte {o}")),
            (Some(p), Some(o)) => Some(format!("{p} (byte {o})")),
            (Some(p), None) if p.is_empty() => Some("(document root)".to_string()),
            (Some(p), None) => Some(p.clone()),
            (None, Some(o)) => Some(format!("byte {o}")),
            (None, None) => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        if let Some(place) = self.place() {
            write!(f, " at {place}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Escapes one JSON Pointer reference token (RFC 6901: `~` -> `~0`, `/` -> `~1`).
///
/// ```
/// assert_eq!(a2a_card::pointer_token("a/b~c"), "a~1b~0c");
/// ```
pub fn pointer_token(segment: &str) -> String {
    if !segment.contains(['~', '/']) {
        return segment.to_string();
    }
    segment.replace('~', "~0").replace('/', "~1")
}

/// One JSON Pointer reference token unescaped, the inverse of [`pointer_token`] (RFC 6901:
/// `~1` -> `/`, then `~0` -> `~`); borrowed when it holds no `~`.
pub(crate) fn unescape_pointer_token(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains('~') {
        token.replace("~1", "/").replace("~0", "~").into()
    } else {
        token.into()
    }
}

/// Text written into a template of [`option_error`] as it is: a `{` is doubled, so that text
/// from outside (a kid, a file name) never reads as an option's place.
///
/// ```
/// use a2a_card::request::{option_error, template_literal, Camel};
/// let kid = template_literal("{append}");
/// let e = option_error(a2a_card::ErrorCode::Usage, &format!("kid {kid}: use {{append}}"), &["append"]);
/// assert_eq!(e.message(), "kid {append}: use append");
/// assert_eq!(e.spelled(&Camel).message(), "kid {append}: use \"append\"");
/// ```
pub fn template_literal(text: &str) -> String {
    text.replace('{', "{{")
}

/// A template with each `{name}` of `options` (and each `"{name}"`, `quoted`) given by `spell`,
/// and each `{{` written as `{`. The one reader of templates: [`option_error`] and the
/// front ends' spellings both fill through it.
pub(crate) fn fill_template(
    template: &str,
    options: &[&'static str],
    spell: impl Fn(&str, bool) -> String,
) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    'scan: while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("{{") {
            out.push('{');
            rest = after;
            continue;
        }
        for o in options {
            for quoted in [true, false] {
                let place = if quoted {
                    format!("\"{{{o}}}\"")
                } else {
                    format!("{{{o}}}")
                };
                if let Some(after) = rest.strip_prefix(place.as_str()) {
                    out.push_str(&spell(o, quoted));
                    rest = after;
                    continue 'scan;
                }
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// A message about options: `template` names each of `options` as `{name}` (in double quotes
/// or not), and writes a literal `{` as `{{` ([`template_literal`]); the message is the template with the canonical names, and the template is kept for
/// `Error::spelled` (in [`crate::request`]), which spells them as each front end does (its
/// [`crate::request::Spelling`]). It
/// lives in the error layer so that every layer can raise it.
///
/// ```
/// use a2a_card::request::{option_error, Camel};
/// let e = option_error(a2a_card::ErrorCode::Usage, "no answer within 1 s ({key_timeout})", &["key_timeout"]);
/// assert_eq!(e.message(), "no answer within 1 s (key_timeout)");
/// assert_eq!(e.options(), ["key_timeout"]);
/// assert_eq!(e.spelled(&Camel).message(), "no answer within 1 s (\"keyTimeout\")");
/// ```
pub fn option_error(code: ErrorCode, template: &str, options: &[&'static str]) -> Error {
    // The canonical spelling: each `{name}` is the name itself, its quotes as written.
    let message = fill_template(template, options, |o, quoted| {
        if quoted {
            format!("\"{o}\"")
        } else {
            o.to_string()
        }
    });
    let mut e = Error::new(code, message);
    for o in options {
        e = e.for_option(o);
    }
    e.set_template(template.to_string());
    e
}

#[cfg(test)]
mod tests {
    use super::{pointer_token, unescape_pointer_token};

    /// Unescaping gives back each token `pointer_token` escaped, and `~01` stays `~1` (RFC 6901
    /// section 4: `~1` is replaced first, so `~0` never makes a new `~1`).
    #[test]
    fn pointer_tokens_unescape_to_what_was_escaped() {
        for s in ["", "name", "a/b", "a~b", "~1", "~0", "/~/~~//", "é/~"] {
            assert_eq!(unescape_pointer_token(&pointer_token(s)), s, "{s:?}");
        }
        assert_eq!(unescape_pointer_token("~01"), "~1");
        assert!(matches!(
            unescape_pointer_token("plain"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
