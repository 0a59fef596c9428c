//! The report of a verification, typed, and its two written forms: JSON ([`Report::to_json`],
//! the members and order the CLI documents) and text for people ([`Report::to_text`]). The CLI,
//! the fetcher and the WebAssembly package print these forms; none of them writes its own.

use crate::canonical::Profile;
use crate::error::{Error, ErrorCode};
use serde::{Serialize, Serializer};
use std::fmt;

/// What a card must show to pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// At least one valid signature from a trusted key (the default).
    #[default]
    Require,
    /// At least one signature, and every signature valid.
    All,
    /// An unsigned card passes; a card with signatures passes only when every one is valid.
    IfPresent,
}

impl Mode {
    /// `require`, `all` or `if-present`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Require => "require",
            Mode::All => "all",
            Mode::IfPresent => "if-present",
        }
    }

    /// The mode with this name.
    #[deprecated(note = "use `name.parse::<Mode>().ok()` (`FromStr`)")]
    pub fn from_name(name: &str) -> Option<Mode> {
        name.parse().ok()
    }

    /// Every mode.
    pub const ALL: [Mode; 3] = [Mode::Require, Mode::All, Mode::IfPresent];

    /// The mode with this name, or a `usage` error listing the names.
    #[deprecated(note = "use `name.parse::<Mode>()` (`FromStr`)")]
    pub fn parse(name: &str) -> Result<Mode, Error> {
        name.parse()
    }
}

impl std::str::FromStr for Mode {
    type Err = Error;

    /// The mode with this name, or a `usage` error listing the names.
    ///
    /// ```
    /// use a2a_card::Mode;
    /// assert_eq!("if-present".parse::<Mode>().unwrap(), Mode::IfPresent);
    /// let e = "any".parse::<Mode>().unwrap_err();
    /// assert_eq!(e.message(), r#"mode "any" is not one of "require", "all", "if-present""#);
    /// ```
    fn from_str(name: &str) -> Result<Mode, Error> {
        Mode::ALL.into_iter().find(|m| m.as_str() == name).ok_or_else(|| {
            Error::new(
                ErrorCode::Usage,
                format!(
                    "mode {name:?} is not one of {}",
                    crate::canonical::quoted_names(Mode::ALL.map(Mode::as_str))
                ),
            )
        })
    }
}

impl fmt::Display for Mode {
    /// The mode's name (`require`, `all`, `if-present`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The code of a verdict: `valid`, or the stable [`ErrorCode`] of the first reason the signature
/// failed. It is written as its kebab-case spelling and compares equal to it.
///
/// ```
/// use a2a_card::signature::VerdictCode;
/// use a2a_card::ErrorCode;
/// assert_eq!(VerdictCode::Valid, "valid");
/// assert_eq!(VerdictCode::Refused(ErrorCode::KeyRevoked).as_str(), "key-revoked");
/// assert!(!VerdictCode::Refused(ErrorCode::SignatureInvalid).is_valid());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VerdictCode {
    /// The signature verifies with a trusted key under the policy.
    Valid,
    /// It does not, for this reason.
    Refused(ErrorCode),
}

impl VerdictCode {
    /// `valid`, or the error code's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictCode::Valid => "valid",
            VerdictCode::Refused(c) => c.as_str(),
        }
    }

    /// True for [`VerdictCode::Valid`].
    pub fn is_valid(self) -> bool {
        self == VerdictCode::Valid
    }

    /// The error code, when the signature was refused.
    pub fn error_code(self) -> Option<ErrorCode> {
        match self {
            VerdictCode::Valid => None,
            VerdictCode::Refused(c) => Some(c),
        }
    }
}

impl fmt::Display for VerdictCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for VerdictCode {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for VerdictCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for VerdictCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// The verdict on one signature: its code, a sentence, and where the fault is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// `valid`, or an error code such as `signature-invalid`, `untrusted-key`,
    /// `algorithm-not-allowed`, `key-algorithm-mismatch`, `key-expired`, `key-revoked`,
    /// `malformed-header`, `unsupported-crit`.
    pub code: VerdictCode,
    /// A sentence a person can act on.
    pub message: String,
    /// The JSON Pointer of the member at fault (for example `/signatures/0/protected`), when
    /// the verdict is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
}

impl Verdict {
    pub(crate) fn valid() -> Self {
        Verdict {
            code: VerdictCode::Valid,
            message: "the signature verifies with a trusted key".into(),
            pointer: None,
        }
    }

    pub(crate) fn from_error(e: &Error) -> Self {
        Verdict {
            code: VerdictCode::Refused(e.code()),
            message: e.message().to_string(),
            pointer: e.pointer().map(str::to_string),
        }
    }

    /// True for `valid`.
    pub fn is_valid(&self) -> bool {
        self.code.is_valid()
    }
}

/// Where a trusted key came from.
///
/// ```
/// use a2a_card::signature::KeySource;
/// let s: KeySource = "jwks.json".into();
/// assert_eq!(s, KeySource::Pinned { label: "jwks.json".into() });
/// assert_eq!(s.label(), "jwks.json");
/// let origin = "https://a.example".parse().unwrap();
/// let jku = KeySource::Jku { url: "https://a.example/keys/jwks.json".into(), origin };
/// assert_eq!(jku.label(), "jku:https://a.example/keys/jwks.json");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum KeySource {
    /// A key the caller passed in directly: a key or JWKS file, or a key pinned in code; `label`
    /// names it (a file name, `pinned`).
    Pinned {
        /// The name given.
        label: String,
    },
    /// An entry of a trust-store file (keys with policy).
    TrustStore {
        /// The file (or other name) the store was read from.
        file: String,
    },
    /// The leaf of an `x5c` chain that built to a trust anchor of the verifier.
    Certificate {
        /// Where the anchor came from (a `--trust-anchors` bundle or a trust store).
        anchor_source: String,
    },
    /// A JWK Set fetched from an allowed `jku`, trusted for cards of one origin.
    Jku {
        /// The URL the keys came from (the `jku`, or where its redirects under the allowlist
        /// prefix led).
        url: String,
        /// The origin whose cards its keys may sign.
        origin: crate::signature::Origin,
    },
}

impl KeySource {
    /// The source as one string, as the JSON report's `key.source` writes it: the label or file
    /// name, or `jku:` and the URL.
    pub fn label(&self) -> String {
        match self {
            KeySource::Pinned { label } => label.clone(),
            KeySource::TrustStore { file } => file.clone(),
            KeySource::Jku { url, .. } => format!("jku:{url}"),
            KeySource::Certificate { anchor_source } => format!("x5c:{anchor_source}"),
        }
    }

    /// True for a key fetched from a `jku`.
    pub fn is_jku(&self) -> bool {
        matches!(self, KeySource::Jku { .. })
    }
}

impl From<&str> for KeySource {
    fn from(label: &str) -> Self {
        KeySource::Pinned {
            label: label.to_string(),
        }
    }
}

impl From<String> for KeySource {
    fn from(label: String) -> Self {
        KeySource::Pinned { label }
    }
}

impl Serialize for KeySource {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.label())
    }
}

/// The trusted key a signature was checked with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeyUsed {
    /// Its `kid`.
    pub kid: String,
    /// Its RFC 7638 thumbprint.
    pub thumbprint: String,
    /// Where it came from.
    pub source: KeySource,
}

/// One certificate of a chain used, for the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChainCert {
    /// Its subject name (`CN=agent, O=Example`).
    pub subject: String,
    /// Its serial number, hex.
    pub serial: String,
}

/// How trust was reached through an `x5c` chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CertificateUsed {
    /// The certificates of the path, leaf first (the intermediates the path used).
    pub chain: Vec<ChainCert>,
    /// The subject of the trust anchor the path reached.
    pub anchor: String,
    /// Where that anchor came from.
    pub anchor_source: String,
    /// The identity rule the leaf met.
    pub identity: String,
}

/// The report on one signature entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SignatureReport {
    /// Its index in `signatures`.
    pub index: usize,
    /// The protected `kid`, when the header decoded.
    pub kid: Option<String>,
    /// The protected `alg`, when the header decoded.
    pub alg: Option<String>,
    /// The `jku` named, if any: information, never fetched here.
    pub jku: Option<String>,
    /// The key used for the cryptographic check.
    pub key: Option<KeyUsed>,
    /// For a signature with an `x5c` chain that built to an anchor: the chain, anchor and
    /// identity (absent from the JSON otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub certificate: Option<CertificateUsed>,
    /// The profile whose canonical bytes it verified against.
    #[serde(serialize_with = "profile_name")]
    pub profile: Option<Profile>,
    /// The verdict.
    pub verdict: Verdict,
}

fn profile_name<S: Serializer>(p: &Option<Profile>, s: S) -> Result<S::Ok, S::Error> {
    match p {
        Some(p) => s.serialize_str(p.as_str()),
        None => s.serialize_none(),
    }
}

/// The outcome of verifying a card. It serializes (serde) with every field below except the
/// canonical bytes, plus `canonical_sha256`; [`Report::to_json`] adds the canonical bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// True when the card meets the mode.
    pub ok: bool,
    /// The mode applied.
    pub mode: Mode,
    /// Why the card passed or failed, in a sentence.
    pub reason: String,
    /// The profile whose bytes were verified (the first valid signature's), else the first
    /// accepted profile.
    pub profile: Profile,
    /// The canonical bytes of that profile: the content the verdict is about.
    pub canonical: Vec<u8>,
    /// JSON Pointers of members present in the card but not covered by those bytes; for a card
    /// without signatures, every top-level member (nothing is covered).
    pub unsigned: Vec<String>,
    /// One report per signature entry, in order.
    pub signatures: Vec<SignatureReport>,
}

/// What a text report says besides the verification itself, and how it names key sources.
///
/// ```
/// use a2a_card::signature::TextForm;
/// let form = TextForm { card: vec!["card: card.json".into()], ..TextForm::default() };
/// assert!(form.notes.is_empty());
/// ```
#[derive(Debug, Clone, Default)]
pub struct TextForm {
    /// Lines after the verdict saying where the card came from (`card: FILE`, for a URL also
    /// `origin:`, `final url:`, redirects, `cache:`), written as given.
    pub card: Vec<String>,
    /// Lines after the signatures (for a URL: what was done with each `jku`).
    pub notes: Vec<String>,
    /// Name keys that did not come from a `jku` as `trust store FILE` rather than `FILE` (the
    /// form of a fetched card's report, where keys come from files or from `jku`s).
    pub trust_store_prefix: bool,
}

impl Report {
    /// The verified content: the canonical bytes, but only when the card passed and at least
    /// one signature verified. An unsigned card that mode `if-present` lets pass has none:
    /// nothing in it is covered.
    pub fn verified_content(&self) -> Option<&[u8]> {
        (self.ok && self.signatures.iter().any(|s| s.verdict.is_valid())).then_some(self.canonical.as_slice())
    }

    /// SHA-256 of the canonical bytes, hex (computed on demand, not on the verification path).
    pub fn canonical_sha256(&self) -> String {
        sha256_hex(&self.canonical)
    }

    /// The report as JSON: `ok`, `mode`, `reason`, `profile`, `canonical_sha256`, `canonical`
    /// (the canonical bytes as a string), `unsigned`, `signatures` (each with `index`, `kid`,
    /// `alg`, `jku`, `key` (`kid`, `thumbprint`, `source`), `profile`, `verdict` (`code`,
    /// `message`, `pointer` when there is one)), in this order.
    ///
    /// ```
    /// use a2a_card::{sign_card, verify_card, Algorithm, PrivateKey, SignOptions, TrustStore, VerifyOptions};
    /// let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    /// let signed = sign_card(br#"{"name":"A","description":"d","skills":[]}"#, &key, &SignOptions::default()).unwrap();
    /// let mut trust = TrustStore::new();
    /// trust.pin(key.public().clone(), "k.pem");
    /// let json = verify_card(&signed.card, &trust, &VerifyOptions::default()).unwrap().to_json();
    /// let names: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
    /// assert_eq!(names, ["ok", "mode", "reason", "profile", "canonical_sha256", "canonical", "unsigned", "signatures"]);
    /// assert_eq!(json["signatures"][0]["key"]["source"], "k.pem");
    /// ```
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(Full(self)).unwrap_or(serde_json::Value::Null)
    }

    /// [`Report::to_json`] written as pretty JSON text (two-space indent, no final newline),
    /// straight from the report: the same bytes as `serde_json::to_vec_pretty(&report.to_json())`
    /// without building the value first.
    ///
    /// ```
    /// use a2a_card::{verify_card, Mode, TrustStore, VerifyOptions};
    /// let opts = VerifyOptions { mode: Mode::IfPresent, ..VerifyOptions::default() };
    /// let r = verify_card(br#"{"name":"A"}"#, &TrustStore::new(), &opts).unwrap();
    /// assert_eq!(r.to_json_pretty(), serde_json::to_vec_pretty(&r.to_json()).unwrap());
    /// ```
    pub fn to_json_pretty(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.canonical.len() * 2 + 1024);
        // Writing to a Vec fails only on a serializer error, which these types never raise.
        let _ = serde_json::to_writer_pretty(&mut out, &Full(self));
        out
    }

    /// The report for people: the verdict and its reason, the `card` lines of `form`, the
    /// mode, profile and canonical SHA-256, one line per signature (index, kid, alg, verdict
    /// and the key used), the `notes` lines, and the members the signatures do not cover. Text
    /// taken from the card or a key is escaped so that it cannot break a line.
    ///
    /// ```
    /// use a2a_card::signature::TextForm;
    /// use a2a_card::{verify_card, TrustStore, VerifyOptions, Mode};
    /// let opts = VerifyOptions { mode: Mode::IfPresent, ..VerifyOptions::default() };
    /// let r = verify_card(br#"{"name":"A"}"#, &TrustStore::new(), &opts).unwrap();
    /// let text = r.to_text(&TextForm { card: vec!["card: a.json".into()], ..TextForm::default() });
    /// assert!(text.starts_with("VALID: the card is not signed"));
    /// assert!(text.contains("\nsignatures: none\n"));
    /// ```
    pub fn to_text(&self, form: &TextForm) -> String {
        let mut out = String::new();
        let verdict = if self.ok { "VALID" } else { "INVALID" };
        out.push_str(&format!("{verdict}: {}\n", printable(&self.reason)));
        for line in &form.card {
            out.push_str(line);
            out.push('\n');
        }
        out.push_str(&format!("mode: {}\n", self.mode.as_str()));
        out.push_str(&format!("profile: {}\n", self.profile.as_str()));
        out.push_str(&format!("canonical sha256: {}\n", self.canonical_sha256()));
        if self.signatures.is_empty() {
            out.push_str("signatures: none\n");
        }
        for s in &self.signatures {
            let kid = s.kid.as_deref().map_or_else(|| "(none)".to_string(), quoted);
            let alg = s.alg.as_deref().map_or_else(|| "(none)".to_string(), printable);
            out.push_str(&format!(
                "signature {}: kid {kid} alg {alg}: {}: {}",
                s.index,
                s.verdict.code,
                printable(&s.verdict.message)
            ));
            if let Some(key) = &s.key {
                let from = match &key.source {
                    KeySource::Jku { url, .. } => format!("jku {}", printable(url)),
                    KeySource::Certificate { anchor_source } => {
                        format!("x5c, anchor of {}", printable(anchor_source))
                    }
                    other if form.trust_store_prefix => format!("trust store {}", printable(&other.label())),
                    other => printable(&other.label()),
                };
                out.push_str(&format!(" (key from {from}"));
                if let Some(p) = s.profile {
                    out.push_str(&format!(", profile {}", p.as_str()));
                    // What a profile other than the specification's is for.
                    if p != Profile::Spec {
                        out.push_str(&format!(": {}", p.signed_by()));
                    }
                }
                out.push(')');
            }
            if let Some(c) = &s.certificate {
                let chain: Vec<String> = c
                    .chain
                    .iter()
                    .map(|x| format!("{} (serial {})", printable(&x.subject), x.serial))
                    .collect();
                out.push_str(&format!(
                    "\n  certificate chain: {}; anchor {} from {}; identity {}",
                    chain.join(", issued by "),
                    printable(&c.anchor),
                    printable(&c.anchor_source),
                    printable(&c.identity)
                ));
            }
            out.push('\n');
        }
        for line in &form.notes {
            out.push_str(line);
            out.push('\n');
        }
        push_unsigned(
            &mut out,
            &self.unsigned,
            "are not covered by the signatures; do not rely on them",
        );
        for note in crate::signature::near::notes(&self.unsigned) {
            out.push_str(&format!("note: {note}\n"));
        }
        out
    }

    /// The members of [`Report::unsigned`] one edit away from a member A2A v1.0 defines, each
    /// with that member (`[{"pointer": "/documentationURL", "member": "documentationUrl"}]`), or
    /// `None` when there is none: the JSON forms' `did_you_mean`, present only then.
    ///
    /// ```
    /// use a2a_card::{verify_card, Mode, TrustStore, VerifyOptions};
    /// let opts = VerifyOptions { mode: Mode::IfPresent, ..VerifyOptions::default() };
    /// let r = verify_card(br#"{"name":"A","capabilites":{}}"#, &TrustStore::new(), &opts).unwrap();
    /// assert_eq!(r.did_you_mean().unwrap(), serde_json::json!([{"pointer": "/capabilites", "member": "capabilities"}]));
    /// assert_eq!(r.to_json()["did_you_mean"][0]["member"], "capabilities");
    /// ```
    pub fn did_you_mean(&self) -> Option<serde_json::Value> {
        let near = crate::signature::near::to_json(&self.unsigned);
        near.as_array().is_some_and(|a| !a.is_empty()).then_some(near)
    }
}

impl Serialize for Report {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let near = self.did_you_mean();
        let mut s = serializer.serialize_struct("Report", 7 + usize::from(near.is_some()))?;
        s.serialize_field("ok", &self.ok)?;
        s.serialize_field("mode", &self.mode)?;
        s.serialize_field("reason", &self.reason)?;
        s.serialize_field("profile", self.profile.as_str())?;
        s.serialize_field("canonical_sha256", &self.canonical_sha256())?;
        s.serialize_field("unsigned", &self.unsigned)?;
        if let Some(near) = &near {
            s.serialize_field("did_you_mean", near)?;
        } else {
            s.skip_field("did_you_mean")?;
        }
        s.serialize_field("signatures", &self.signatures)?;
        s.end()
    }
}

/// The form of [`Report::to_json`]: every field in its order, the canonical bytes as text.
struct Full<'a>(&'a Report);

impl Serialize for Full<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let r = self.0;
        let near = r.did_you_mean();
        let mut s = serializer.serialize_struct("Report", 8 + usize::from(near.is_some()))?;
        s.serialize_field("ok", &r.ok)?;
        s.serialize_field("mode", r.mode.as_str())?;
        s.serialize_field("reason", &r.reason)?;
        s.serialize_field("profile", r.profile.as_str())?;
        s.serialize_field("canonical_sha256", &r.canonical_sha256())?;
        s.serialize_field("canonical", &String::from_utf8_lossy(&r.canonical))?;
        s.serialize_field("unsigned", &r.unsigned)?;
        if let Some(near) = &near {
            s.serialize_field("did_you_mean", near)?;
        } else {
            s.skip_field("did_you_mean")?;
        }
        s.serialize_field("signatures", &r.signatures)?;
        s.end()
    }
}

/// SHA-256 of bytes, lower-case hex.
///
/// ```
/// assert_eq!(&a2a_card::sha256_hex(b"")[..16], "e3b0c44298fc1c14");
/// ```
pub fn sha256_hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let d = ring::digest::digest(&ring::digest::SHA256, bytes);
    let mut out = String::with_capacity(64);
    for b in d.as_ref() {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 15)]));
    }
    out
}

impl crate::canonical::Canonical {
    /// What the canonical bytes are, as the CLI's `canonicalize --report` prints it and the
    /// packages' `canonicalize_with_report` return it: `{"profile", "unsigned", "sha256",
    /// "bytes"}` (`bytes`: the length), with the bytes as text first, `"canonical"`, when
    /// `with_text`.
    ///
    /// ```
    /// use a2a_card::{canonicalize, CanonicalizeOptions};
    /// let c = canonicalize(br#"{"name":"A","x-vendor":1}"#, &CanonicalizeOptions::default()).unwrap();
    /// let r = c.report(true);
    /// assert_eq!((r["canonical"].as_str(), r["unsigned"][0].as_str(), r["bytes"].as_u64()), (Some(r#"{"name":"A"}"#), Some("/x-vendor"), Some(12)));
    /// assert_eq!(c.report(false).as_object().unwrap().keys().collect::<Vec<_>>(), ["profile", "unsigned", "sha256", "bytes"]);
    /// ```
    pub fn report(&self, with_text: bool) -> serde_json::Value {
        let mut report = serde_json::Map::new();
        if with_text {
            report.insert("canonical".into(), String::from_utf8_lossy(&self.bytes).into());
        }
        report.insert("profile".into(), self.profile.as_str().into());
        report.insert("unsigned".into(), self.unsigned.clone().into());
        report.insert("sha256".into(), sha256_hex(&self.bytes).into());
        report.insert("bytes".into(), self.bytes.len().into());
        report.into()
    }
}

/// `s` with control characters escaped, so that text taken from a card or a key file cannot
/// break a line of a report or drive a terminal.
///
/// ```
/// assert_eq!(a2a_card::signature::printable("a\nb"), "a\\nb");
/// ```
pub fn printable(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// `s` as a JSON string literal (quoted, escaped): for names taken from cards and keys.
///
/// ```
/// assert_eq!(a2a_card::signature::quoted("k\"1"), r#""k\"1""#);
/// ```
pub fn quoted(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// The `unsigned:` line of a text form, and a warning saying `what` of those members when there
/// are any.
pub(crate) fn push_unsigned(out: &mut String, unsigned: &[String], what: &str) {
    out.push_str(&format!(
        "unsigned: {}\n",
        serde_json::Value::from(unsigned.to_vec())
    ));
    if !unsigned.is_empty() {
        out.push_str(&format!(
            "warning: {} member(s) of the card {what}\n",
            unsigned.len()
        ));
    }
}
