//! `lint`: checks an Agent Card against A2A v1.0 before it is signed or published.
//!
//! Every finding carries a [`Rule`] (a stable kebab-case code), a [`Severity`], the JSON Pointer
//! of the member at fault and a sentence a person can act on. The REQUIRED members and the
//! known members come from the presence table ([`crate::schema`]); unknown members are the ones
//! the canonicalizer leaves unsigned ([`crate::canonicalize_value`]); signature entries are read
//! with the verifier's own header rules ([`crate::jws::decode_header`],
//! [`crate::jws::check_card_header`]).
//!
//! ```
//! use a2a_card::lint::{lint_card, LintOptions, Rule, Severity};
//!
//! let card = br#"{"name":"A","description":"d","version":"1","capabilities":{},
//!   "supportedInterfaces":[{"url":"https://a.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
//!   "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}"#;
//! let report = lint_card(card, &LintOptions::default()).unwrap();
//! assert!(report.has_errors());
//! let f = &report.findings[0];
//! assert_eq!((f.rule, f.severity, f.pointer.as_str()), (Rule::RequiredEmpty, Severity::Error, "/skills"));
//! assert_eq!(f.rule.as_str(), "required-empty");
//! ```

use crate::error::{pointer_token, Error};
use crate::json::{self, Limits, Value};
use crate::presence::{canonicalize_value, CanonicalizeOptions, Profile, UnknownMembers};
use crate::schema::{FieldDesc, Kind, MessageDesc, Presence, AGENT_CARD};
use crate::{b64, jws};
use serde::{Serialize, Serializer};
use std::collections::{HashMap, HashSet};

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The card is not a valid A2A v1.0 card, or its signatures cannot be verified.
    Error,
    /// The card is valid but something in it is deprecated, unsigned or left over from A2A 0.3.
    Warning,
    /// Worth knowing; nothing is wrong.
    Info,
}

impl Severity {
    /// `error`, `warning` or `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One lint rule. Each has a stable kebab-case code ([`Rule::as_str`]) and one severity
/// ([`Rule::severity`]); the section of A2A v1.0 (or the RFC) it enforces is named on each variant.
/// New rules may be added; [`Rule::ALL`] lists them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// `required-missing` (error): a field marked `(google.api.field_behavior) = REQUIRED` in
    /// `specification/a2a.proto` is absent or `null` (section 5.7, "Required Fields").
    RequiredMissing,
    /// `required-empty` (error): a REQUIRED repeated field is an empty array; section 5.7 says
    /// arrays marked as required must hold at least one element. (`skills[].tags` is reported by
    /// [`Rule::SkillWithoutTags`] instead.)
    RequiredEmpty,
    /// `schema-error` (error): what the canonicalizer refuses (a value of the wrong JSON type, a
    /// field under both its JSON and proto names, two members of one `oneof`, a card that is not
    /// an object). Such a card cannot be signed. The first such problem in document order is
    /// reported, with the canonicalizer's code in the message.
    SchemaError,
    /// `url-not-absolute` (error): a URL field (interface, provider, documentation, icon, OAuth
    /// and OpenID Connect endpoints) that is not an absolute URL with a scheme and, for http(s),
    /// a host (`specification/a2a.proto` field comments; RFC 3986 section 4.3).
    UrlNotAbsolute,
    /// `url-not-https` (error): an absolute URL that is not `https` where A2A v1.0 asks for
    /// HTTPS/TLS. `supportedInterfaces[].url` with a core binding must be `https` (section 7.1,
    /// production deployments use HTTPS for HTTP-based bindings and TLS for gRPC; the proto's
    /// AgentInterface.url asks for an absolute HTTPS URL); with a custom binding only the
    /// plaintext `http:` and `ws:` are reported, since section 5.8's own example serves a custom
    /// binding over `wss:`. `oauth2MetadataUrl` (the proto says TLS is required), the OAuth flow
    /// endpoints (RFC 6749 section 3) and `openIdConnectUrl` (OpenID Connect Discovery 1.0) must
    /// be `https` too.
    UrlNotHttps,
    /// `protocol-binding-invalid` (error): `supportedInterfaces[].protocolBinding` is neither a
    /// core binding (`JSONRPC`, `GRPC`, `HTTP+JSON`, exact spelling) nor an absolute URI
    /// (AgentInterface.protocol_binding, an open string whose core values are those three;
    /// section 5.8: a custom binding is identified by a URI).
    ProtocolBindingInvalid,
    /// `protocol-version-malformed` (error): `supportedInterfaces[].protocolVersion` is not
    /// `MAJOR.MINOR` in decimal digits, such as `1.0` or `0.3` (AgentInterface.protocol_version;
    /// versioning, section 3.6: the protocol version is major.minor, patch versions do not
    /// appear).
    ProtocolVersionMalformed,
    /// `media-type-invalid` (error): an entry of `defaultInputModes`, `defaultOutputModes` or a
    /// skill's `inputModes`/`outputModes` is not an RFC 6838 media type (`type "/" subtype` of
    /// restricted-name characters, with optional `; name=value` parameters). The proto defines
    /// these lists as media types.
    MediaTypeInvalid,
    /// `skill-id-duplicate` (error): two skills share an `id` (AgentSkill.id, "a unique
    /// identifier for the agent's skill"). Reported at the later one.
    SkillIdDuplicate,
    /// `skill-without-tags` (error): a skill has no `tags`, or an empty list (AgentSkill.tags is
    /// REQUIRED; section 5.7 asks for at least one element).
    SkillWithoutTags,
    /// `security-scheme-undefined` (error): a security requirement (card-level or per skill)
    /// names a scheme that `securitySchemes` does not define (SecurityRequirement.schemes keys
    /// refer to AgentCard.security_schemes; OpenAPI 3.2 security requirement object).
    SecuritySchemeUndefined,
    /// `oauth-flow-deprecated` (warning): an OAuth 2.0 `implicit` or `password` flow; both are
    /// `deprecated = true` in `OAuthFlows` (use Authorization Code with PKCE, or Device Code).
    OauthFlowDeprecated,
    /// `unknown-member` (warning): a member A2A v1.0 does not define. Section 5.7 lets receivers
    /// ignore it, and verifiers that parse into protobuf drop it, so a signature does not cover
    /// it (section 8.4.1; see [`UnknownMembers::Exclude`]). Members inside a
    /// `google.protobuf.Struct` are never unknown.
    UnknownMember,
    /// `legacy-member` (warning): an A2A 0.3 member (or one of a pre-1.0 draft) that v1.0
    /// replaced or removed: top-level `url`, `preferredTransport`, `additionalInterfaces`,
    /// `protocolVersion`, `security`, `supportsAuthenticatedExtendedCard`, a skill's `security`,
    /// an interface's `transport`, `capabilities.stateTransitionHistory`. The message names the
    /// replacement. Like any unknown member it is not signed, and it is reported once, as this
    /// rule. (A2A v1.0 "What's new": `supportedInterfaces` with `protocolBinding` and
    /// `protocolVersion`, `securityRequirements`; Appendix A.2.2: `capabilities.extendedAgentCard`.)
    LegacyMember,
    /// `signature-malformed` (error): a `signatures` entry a verifier would refuse before any
    /// cryptography: not an object, `protected` or `signature` missing or not strict base64url,
    /// a protected header that is not valid I-JSON, names an unknown algorithm, lacks `kid`, has
    /// a `typ` other than `JOSE`, or repeats a parameter in `header` (section 8.4.2; RFC 7515).
    SignatureMalformed,
}

impl Rule {
    /// Every rule, in the order of the documentation.
    pub const ALL: &'static [Rule] = &[
        Rule::RequiredMissing,
        Rule::RequiredEmpty,
        Rule::SchemaError,
        Rule::UrlNotAbsolute,
        Rule::UrlNotHttps,
        Rule::ProtocolBindingInvalid,
        Rule::ProtocolVersionMalformed,
        Rule::MediaTypeInvalid,
        Rule::SkillIdDuplicate,
        Rule::SkillWithoutTags,
        Rule::SecuritySchemeUndefined,
        Rule::OauthFlowDeprecated,
        Rule::UnknownMember,
        Rule::LegacyMember,
        Rule::SignatureMalformed,
    ];

    /// The stable kebab-case code of the rule.
    ///
    /// ```
    /// assert_eq!(a2a_card::lint::Rule::RequiredMissing.as_str(), "required-missing");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::RequiredMissing => "required-missing",
            Rule::RequiredEmpty => "required-empty",
            Rule::SchemaError => "schema-error",
            Rule::UrlNotAbsolute => "url-not-absolute",
            Rule::UrlNotHttps => "url-not-https",
            Rule::ProtocolBindingInvalid => "protocol-binding-invalid",
            Rule::ProtocolVersionMalformed => "protocol-version-malformed",
            Rule::MediaTypeInvalid => "media-type-invalid",
            Rule::SkillIdDuplicate => "skill-id-duplicate",
            Rule::SkillWithoutTags => "skill-without-tags",
            Rule::SecuritySchemeUndefined => "security-scheme-undefined",
            Rule::OauthFlowDeprecated => "oauth-flow-deprecated",
            Rule::UnknownMember => "unknown-member",
            Rule::LegacyMember => "legacy-member",
            Rule::SignatureMalformed => "signature-malformed",
        }
    }

    /// The rule with this code.
    ///
    /// ```
    /// use a2a_card::lint::Rule;
    /// assert_eq!(Rule::from_name("legacy-member"), Some(Rule::LegacyMember));
    /// assert_eq!(Rule::from_name("nope"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Rule> {
        Rule::ALL.iter().copied().find(|r| r.as_str() == name)
    }

    /// The severity of every finding of this rule.
    pub fn severity(self) -> Severity {
        match self {
            Rule::OauthFlowDeprecated | Rule::UnknownMember | Rule::LegacyMember => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Rule {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One problem found in a card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The rule that found it.
    pub rule: Rule,
    /// How much it matters (always `rule.severity()`).
    pub severity: Severity,
    /// The JSON Pointer (RFC 6901) of the member at fault; for a missing member, where it
    /// should be.
    pub pointer: String,
    /// What is wrong and what to do, in one sentence.
    pub message: String,
}

/// Everything `lint` found, in document order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LintReport {
    /// The findings, in document order (a missing member sorts with the object that lacks it).
    pub findings: Vec<Finding>,
}

impl LintReport {
    /// Whether any finding is an error.
    pub fn has_errors(&self) -> bool {
        self.count(Severity::Error) > 0
    }

    /// How many findings have this severity.
    pub fn count(&self, severity: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == severity).count()
    }
}

/// Options of [`lint_card`].
#[derive(Default, Clone, Debug)]
pub struct LintOptions {
    /// Reader limits (input size, nesting).
    pub limits: Limits,
}

/// Lints a card given as bytes.
///
/// Returns `Err` only when the bytes cannot be read as I-JSON at all (the strict reader's error,
/// with its pointer or offset). Everything else, type errors included, is a finding.
///
/// ```
/// use a2a_card::lint::{lint_card, LintOptions};
///
/// // A 0.3 leftover is a warning; the missing REQUIRED members are errors.
/// let report = lint_card(br#"{"name":"A","url":"https://a.example"}"#, &LintOptions::default()).unwrap();
/// let codes: Vec<&str> = report.findings.iter().map(|f| f.rule.as_str()).collect();
/// assert_eq!(codes[0], "required-missing"); // /description, placed with the root object
/// assert_eq!(codes.last(), Some(&"legacy-member")); // /url
/// assert!(report.has_errors());
///
/// // Bytes that are not I-JSON are not lintable.
/// let err = lint_card(br#"{"name":"A","name":"B"}"#, &LintOptions::default()).unwrap_err();
/// assert_eq!(err.code().as_str(), "duplicate-member");
/// ```
pub fn lint_card(bytes: &[u8], opts: &LintOptions) -> Result<LintReport, Error> {
    let value = json::parse_with(bytes, &opts.limits)?;
    Ok(lint_value(&value))
}

/// Lints a card already read by [`json::parse_with`].
pub fn lint_value(card: &Value) -> LintReport {
    let copts = CanonicalizeOptions {
        profile: Profile::Spec,
        unknown: UnknownMembers::Exclude,
        limits: Limits::default(),
    };
    let canon = canonicalize_value(card, &copts);
    let mut l = Linter {
        findings: Vec::new(),
        unsigned: HashSet::new(),
        schemes: HashSet::new(),
        skill_ids: HashMap::new(),
        binding: None,
    };
    let (unsigned, schema_error) = match canon {
        Ok(c) => (Some(c.unsigned), None),
        Err(e) => (None, Some(e)),
    };
    if let Some(e) = &schema_error {
        let ptr = e.pointer().unwrap_or("").to_string();
        l.add(
            Rule::SchemaError,
            ptr,
            format!(
                "{} ({}); the card cannot be signed until this is fixed",
                e.message(),
                e.code()
            ),
        );
    }
    l.unsigned = unsigned.unwrap_or_default().into_iter().collect();
    if let Value::Object(members) = card {
        l.schemes = scheme_names(members);
        l.message(members, &AGENT_CARD, "", true, unsigned_known(&schema_error));
    }
    let mut findings = l.findings;
    let order = document_order(card);
    findings.sort_by_cached_key(|f| position(&order, &f.pointer));
    LintReport { findings }
}

/// Whether the unsigned list is authoritative (the canonicalizer succeeded).
fn unsigned_known(err: &Option<Error>) -> bool {
    err.is_none()
}

/// The index of every pointer of the document, in document order.
fn document_order(v: &Value) -> HashMap<String, usize> {
    fn walk(v: &Value, ptr: &mut String, out: &mut HashMap<String, usize>) {
        let n = out.len();
        out.insert(ptr.clone(), n);
        match v {
            Value::Object(m) => {
                for (k, item) in m {
                    let mark = ptr.len();
                    ptr.push('/');
                    ptr.push_str(&pointer_token(k));
                    walk(item, ptr, out);
                    ptr.truncate(mark);
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let mark = ptr.len();
                    ptr.push('/');
                    ptr.push_str(&i.to_string());
                    walk(item, ptr, out);
                    ptr.truncate(mark);
                }
            }
            _ => {}
        }
    }
    let mut out = HashMap::new();
    walk(v, &mut String::new(), &mut out);
    out
}

/// The document position of a pointer: its own, or that of its longest existing prefix.
fn position(order: &HashMap<String, usize>, ptr: &str) -> usize {
    let mut p = ptr;
    loop {
        if let Some(i) = order.get(p) {
            return *i;
        }
        match p.rfind('/') {
            Some(at) => p = &p[..at],
            None => return 0,
        }
    }
}

/// The names defined in the card's `securitySchemes` (or `security_schemes`).
fn scheme_names(root: &[(String, Value)]) -> HashSet<String> {
    let mut out = HashSet::new();
    for (k, v) in root {
        if k == "securitySchemes" || k == "security_schemes" {
            if let Value::Object(m) = v {
                out.extend(m.iter().map(|(name, _)| name.clone()));
            }
        }
    }
    out
}

fn join(ptr: &str, seg: &str) -> String {
    let mut s = String::with_capacity(ptr.len() + seg.len() + 1);
    s.push_str(ptr);
    s.push('/');
    s.push_str(&pointer_token(seg));
    s
}

/// Members of A2A 0.3 (and of pre-1.0 drafts) that A2A v1.0 replaced or removed:
/// (message, member, what replaces it in 1.0, or `None` when nothing does). `protocolVersions`
/// and `supportsExtendedAgentCard` come from pre-1.0 drafts (Appendix A.2.2), the others from 0.3.
const LEGACY: &[(&str, &str, Option<&str>)] = &[
    ("AgentCard", "url", Some("supportedInterfaces[].url")),
    (
        "AgentCard",
        "preferredTransport",
        Some("supportedInterfaces[].protocolBinding"),
    ),
    ("AgentCard", "additionalInterfaces", Some("supportedInterfaces")),
    (
        "AgentCard",
        "protocolVersion",
        Some("supportedInterfaces[].protocolVersion"),
    ),
    (
        "AgentCard",
        "protocolVersions",
        Some("supportedInterfaces[].protocolVersion"),
    ),
    ("AgentCard", "security", Some("securityRequirements")),
    (
        "AgentCard",
        "supportsAuthenticatedExtendedCard",
        Some("capabilities.extendedAgentCard"),
    ),
    (
        "AgentCard",
        "supportsExtendedAgentCard",
        Some("capabilities.extendedAgentCard"),
    ),
    ("AgentSkill", "security", Some("securityRequirements")),
    ("AgentInterface", "transport", Some("protocolBinding")),
    ("AgentCapabilities", "stateTransitionHistory", None),
];

/// What a URL field must be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum UrlNeed {
    Absolute,
    Https,
}

/// The URL fields of the schema: (message, JSON field name, requirement).
const URL_FIELDS: &[(&str, &str, UrlNeed)] = &[
    ("AgentInterface", "url", UrlNeed::Https),
    ("AgentProvider", "url", UrlNeed::Absolute),
    ("AgentCard", "documentationUrl", UrlNeed::Absolute),
    ("AgentCard", "iconUrl", UrlNeed::Absolute),
    ("OAuth2SecurityScheme", "oauth2MetadataUrl", UrlNeed::Https),
    ("OpenIdConnectSecurityScheme", "openIdConnectUrl", UrlNeed::Https),
    ("AuthorizationCodeOAuthFlow", "authorizationUrl", UrlNeed::Https),
    ("AuthorizationCodeOAuthFlow", "tokenUrl", UrlNeed::Https),
    ("AuthorizationCodeOAuthFlow", "refreshUrl", UrlNeed::Https),
    ("ClientCredentialsOAuthFlow", "tokenUrl", UrlNeed::Https),
    ("ClientCredentialsOAuthFlow", "refreshUrl", UrlNeed::Https),
    ("ImplicitOAuthFlow", "authorizationUrl", UrlNeed::Https),
    ("ImplicitOAuthFlow", "refreshUrl", UrlNeed::Https),
    ("PasswordOAuthFlow", "tokenUrl", UrlNeed::Https),
    ("PasswordOAuthFlow", "refreshUrl", UrlNeed::Https),
    ("DeviceCodeOAuthFlow", "deviceAuthorizationUrl", UrlNeed::Https),
    ("DeviceCodeOAuthFlow", "tokenUrl", UrlNeed::Https),
    ("DeviceCodeOAuthFlow", "refreshUrl", UrlNeed::Https),
];

struct Linter {
    findings: Vec<Finding>,
    /// The members the canonicalizer left out (unknown members), when it succeeded.
    unsigned: HashSet<String>,
    /// The scheme names `securitySchemes` defines.
    schemes: HashSet<String>,
    /// Skill ids seen so far, with the pointer of the first.
    skill_ids: HashMap<String, String>,
    /// The `protocolBinding` of the interface being linted.
    binding: Option<String>,
}

impl Linter {
    fn add(&mut self, rule: Rule, pointer: String, message: String) {
        self.findings.push(Finding {
            rule,
            severity: rule.severity(),
            pointer,
            message,
        });
    }

    /// Lints one message object.
    fn message(
        &mut self,
        members: &[(String, Value)],
        desc: &'static MessageDesc,
        ptr: &str,
        root: bool,
        unsigned_known: bool,
    ) {
        if desc.name == "AgentInterface" {
            self.binding = members
                .iter()
                .find(|(k, _)| k == "protocolBinding" || k == "protocol_binding")
                .and_then(|(_, v)| v.as_str())
                .map(str::to_string);
        }
        // REQUIRED members: present (not null), and arrays not empty.
        for field in desc.fields.iter().filter(|f| f.presence == Presence::Required) {
            let given = members
                .iter()
                .find(|(k, v)| (k == field.json || k == field.proto) && !matches!(v, Value::Null));
            let skill_tags = desc.name == "AgentSkill" && field.json == "tags";
            match given {
                None => {
                    let (rule, msg) = if skill_tags {
                        (
                            Rule::SkillWithoutTags,
                            "the skill has no \"tags\"; give it at least one keyword".to_string(),
                        )
                    } else {
                        (
                            Rule::RequiredMissing,
                            format!(
                                "{}.{} is REQUIRED in A2A v1.0 and is missing",
                                desc.name, field.json
                            ),
                        )
                    };
                    self.add(rule, join(ptr, field.json), msg);
                }
                Some((name, Value::Array(items)))
                    if items.is_empty()
                        && matches!(field.kind, Kind::RepeatedString | Kind::RepeatedMessage(_)) =>
                {
                    let (rule, msg) = if skill_tags {
                        (
                            Rule::SkillWithoutTags,
                            "the skill's \"tags\" list is empty; give it at least one keyword".to_string(),
                        )
                    } else {
                        (
                            Rule::RequiredEmpty,
                            format!(
                                "{}.{} is REQUIRED and must hold at least one element (A2A v1.0 section 5.7); it is empty",
                                desc.name, field.json
                            ),
                        )
                    };
                    self.add(rule, join(ptr, name), msg);
                }
                Some(_) => {}
            }
        }
        for (name, value) in members {
            let p = join(ptr, name);
            if root && name == "signatures" {
                self.signatures(value, &p);
                continue;
            }
            match desc.field(name) {
                None => {
                    let legacy = LEGACY.iter().find(|(m, n, _)| *m == desc.name && n == name);
                    if let Some((_, _, instead)) = legacy {
                        let era = if matches!(name.as_str(), "protocolVersions" | "supportsExtendedAgentCard")
                        {
                            "a pre-1.0 draft member"
                        } else {
                            "an A2A 0.3 member"
                        };
                        let msg = match instead {
                            Some(instead) => format!(
                                "{name:?} is {era}; A2A v1.0 uses {instead} instead (as it stands, signatures do not cover it)"
                            ),
                            None => format!(
                                "{name:?} is {era} that A2A v1.0 removed; drop it (as it stands, signatures do not cover it)"
                            ),
                        };
                        self.add(Rule::LegacyMember, p, msg);
                    } else if !unsigned_known || self.unsigned.contains(&p) {
                        self.add(
                            Rule::UnknownMember,
                            p,
                            format!(
                                "{} has no member {name:?} in A2A v1.0; signatures will not cover it",
                                desc.name
                            ),
                        );
                    }
                }
                Some((field, _)) => self.field(desc, field, value, &p, unsigned_known),
            }
        }
    }

    /// Lints one known field's value. Values of the wrong type are left to the canonicalizer's
    /// `schema-error`.
    fn field(
        &mut self,
        desc: &'static MessageDesc,
        field: &'static FieldDesc,
        value: &Value,
        p: &str,
        unsigned_known: bool,
    ) {
        match (field.kind, value) {
            (Kind::String, Value::String(s)) => self.string_field(desc, field, s, p),
            (Kind::Message(inner), Value::Object(m)) => {
                if desc.name == "OAuthFlows" && (field.json == "implicit" || field.json == "password") {
                    self.add(
                        Rule::OauthFlowDeprecated,
                        p.to_string(),
                        format!(
                            "the OAuth 2.0 {} flow is deprecated in A2A v1.0; use authorizationCode (with PKCE) or deviceCode",
                            field.json
                        ),
                    );
                }
                self.message(m, inner, p, false, unsigned_known);
            }
            (Kind::RepeatedMessage(inner), Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    if let Value::Object(m) = item {
                        let ip = format!("{p}/{i}");
                        if inner.name == "AgentSkill" {
                            self.skill_id(m, &ip);
                        }
                        self.message(m, inner, &ip, false, unsigned_known);
                    }
                }
            }
            (Kind::RepeatedString, Value::Array(items)) => {
                let modes = matches!(
                    field.json,
                    "defaultInputModes" | "defaultOutputModes" | "inputModes" | "outputModes"
                );
                if modes {
                    for (i, item) in items.iter().enumerate() {
                        if let Value::String(s) = item {
                            if let Err(why) = check_media_type(s) {
                                self.add(
                                    Rule::MediaTypeInvalid,
                                    format!("{p}/{i}"),
                                    format!("{s:?} is not a media type (RFC 6838): {why}"),
                                );
                            }
                        }
                    }
                }
            }
            (Kind::MapMessage(inner), Value::Object(entries)) => {
                let requirement = desc.name == "SecurityRequirement";
                for (k, item) in entries {
                    let ip = join(p, k);
                    if requirement && !self.schemes.contains(k) {
                        self.add(
                            Rule::SecuritySchemeUndefined,
                            ip.clone(),
                            format!(
                                "the security requirement names the scheme {k:?}, which securitySchemes does not define"
                            ),
                        );
                    }
                    if let Value::Object(m) = item {
                        self.message(m, inner, &ip, false, unsigned_known);
                    }
                }
            }
            _ => {}
        }
    }

    fn string_field(&mut self, desc: &MessageDesc, field: &FieldDesc, s: &str, p: &str) {
        if let Some((_, _, need)) = URL_FIELDS
            .iter()
            .find(|(m, f, _)| *m == desc.name && *f == field.json)
        {
            // An empty implicit-presence URL is absent; an empty REQUIRED one is not a URL.
            if s.is_empty() && field.presence == Presence::Implicit {
                return;
            }
            match absolute_url_scheme(s) {
                Err(why) => self.add(
                    Rule::UrlNotAbsolute,
                    p.to_string(),
                    format!("{}.{} {s:?} is not an absolute URL: {why}", desc.name, field.json),
                ),
                Ok(scheme) => {
                    // A custom binding (section 5.8) may use its own scheme (wss:, ...); only
                    // the plaintext http: and ws: are refused for it. Core bindings run over
                    // HTTPS (section 7.1: HTTPS for HTTP-based bindings, TLS for gRPC).
                    let custom = desc.name == "AgentInterface"
                        && !matches!(self.binding.as_deref(), Some("JSONRPC" | "GRPC" | "HTTP+JSON"));
                    let insecure = if custom {
                        scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("ws")
                    } else {
                        !scheme.eq_ignore_ascii_case("https")
                    };
                    if *need == UrlNeed::Https && insecure {
                        self.add(
                            Rule::UrlNotHttps,
                            p.to_string(),
                            format!(
                                "{}.{} must be an https URL (A2A v1.0 asks for HTTPS/TLS here); found scheme {scheme:?}",
                                desc.name, field.json
                            ),
                        );
                    }
                }
            }
        }
        if desc.name == "AgentInterface" && field.json == "protocolBinding" {
            let core = matches!(s, "JSONRPC" | "GRPC" | "HTTP+JSON");
            if !core && absolute_uri_scheme(s).is_err() {
                let hint = ["JSONRPC", "GRPC", "HTTP+JSON"]
                    .iter()
                    .find(|c| {
                        c.eq_ignore_ascii_case(s) || (s.eq_ignore_ascii_case("rest") && **c == "HTTP+JSON")
                    })
                    .map(|c| format!(" (did you mean {c:?}?)"))
                    .unwrap_or_default();
                self.add(
                    Rule::ProtocolBindingInvalid,
                    p.to_string(),
                    format!(
                        "protocolBinding {s:?} is neither a core binding (JSONRPC, GRPC, HTTP+JSON) nor an absolute URI{hint}"
                    ),
                );
            }
        }
        if desc.name == "AgentInterface" && field.json == "protocolVersion" {
            if let Err(why) = check_protocol_version(s) {
                self.add(
                    Rule::ProtocolVersionMalformed,
                    p.to_string(),
                    format!("protocolVersion {s:?} is malformed: {why}"),
                );
            }
        }
    }

    fn skill_id(&mut self, skill: &[(String, Value)], ip: &str) {
        let Some((name, Value::String(id))) = skill.iter().find(|(k, _)| k == "id") else {
            return;
        };
        let p = join(ip, name);
        match self.skill_ids.get(id) {
            Some(first) => {
                let msg = format!("skill id {id:?} is already used at {first}; skill ids must be unique");
                self.add(Rule::SkillIdDuplicate, p, msg);
            }
            None => {
                self.skill_ids.insert(id.clone(), p);
            }
        }
    }

    /// `signatures`: each entry as a verifier reads it, before any cryptography.
    fn signatures(&mut self, value: &Value, p: &str) {
        let items = match value {
            Value::Null => return,
            Value::Array(items) => items,
            other => {
                self.add(
                    Rule::SignatureMalformed,
                    p.to_string(),
                    format!("\"signatures\" must be an array, found {}", other.type_name()),
                );
                return;
            }
        };
        for (i, item) in items.iter().enumerate() {
            let ep = format!("{p}/{i}");
            let Value::Object(_) = item else {
                self.add(
                    Rule::SignatureMalformed,
                    ep,
                    format!("a signature entry must be an object, found {}", item.type_name()),
                );
                continue;
            };
            let header = match item.get("header") {
                None | Some(Value::Null) => None,
                Some(h @ Value::Object(_)) => Some(h),
                Some(other) => {
                    self.add(
                        Rule::SignatureMalformed,
                        format!("{ep}/header"),
                        format!("\"header\" must be an object, found {}", other.type_name()),
                    );
                    continue;
                }
            };
            match item.get("protected") {
                Some(Value::String(prot)) => {
                    let checked = jws::decode_header(prot, header, jws::DEFAULT_MAX_HEADER_BYTES)
                        .and_then(|h| jws::check_card_header(&h));
                    if let Err(e) = checked {
                        let at = if e.code() == crate::ErrorCode::HeaderConflict {
                            format!("{ep}/header")
                        } else {
                            format!("{ep}/protected")
                        };
                        self.add(
                            Rule::SignatureMalformed,
                            at,
                            format!(
                                "{} ({}); verifiers will refuse this signature",
                                e.message(),
                                e.code()
                            ),
                        );
                    }
                }
                Some(other) => self.add(
                    Rule::SignatureMalformed,
                    format!("{ep}/protected"),
                    format!("\"protected\" must be a string, found {}", other.type_name()),
                ),
                None => self.add(
                    Rule::SignatureMalformed,
                    format!("{ep}/protected"),
                    "the signature entry has no \"protected\" header".to_string(),
                ),
            }
            match item.get("signature") {
                Some(Value::String(sig)) => match b64::decode_strict(sig) {
                    Ok(bytes) if bytes.is_empty() => self.add(
                        Rule::SignatureMalformed,
                        format!("{ep}/signature"),
                        "\"signature\" is empty".to_string(),
                    ),
                    Ok(_) => {}
                    Err(e) => self.add(
                        Rule::SignatureMalformed,
                        format!("{ep}/signature"),
                        format!("\"signature\" is not strict base64url: {}", e.message()),
                    ),
                },
                Some(other) => self.add(
                    Rule::SignatureMalformed,
                    format!("{ep}/signature"),
                    format!("\"signature\" must be a string, found {}", other.type_name()),
                ),
                None => self.add(
                    Rule::SignatureMalformed,
                    format!("{ep}/signature"),
                    "the signature entry has no \"signature\"".to_string(),
                ),
            }
        }
    }
}

/// The scheme of an absolute URI (RFC 3986 section 3.1: `ALPHA *( ALPHA / DIGIT / "+" / "-" /
/// "." )` then `:`), with something after the colon and no whitespace or control characters.
fn absolute_uri_scheme(s: &str) -> Result<&str, String> {
    if let Some(c) = s.chars().find(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!("it contains the character {c:?}"));
    }
    let Some(colon) = s.find(':') else {
        return Err("it has no scheme (such as https:)".into());
    };
    let scheme = &s[..colon];
    let mut chars = scheme.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) {
        return Err("it has no scheme (such as https:)".into());
    }
    if s.len() == colon + 1 {
        return Err("nothing follows the scheme".into());
    }
    Ok(scheme)
}

/// The scheme of an absolute URL: an absolute URI, and for http and https an authority with a
/// non-empty host (`scheme://host...`).
fn absolute_url_scheme(s: &str) -> Result<&str, String> {
    let scheme = absolute_uri_scheme(s)?;
    if scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https") {
        let rest = &s[scheme.len() + 1..];
        let Some(auth) = rest.strip_prefix("//") else {
            return Err("an http(s) URL needs \"//\" and a host after the scheme".into());
        };
        let end = auth.find(['/', '?', '#']).unwrap_or(auth.len());
        let authority = &auth[..end];
        let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let host = if host_port.starts_with('[') {
            host_port
                .split_once(']')
                .map_or("", |(h, _)| h.trim_start_matches('['))
        } else {
            host_port.split(':').next().unwrap_or("")
        };
        if host.is_empty() {
            return Err("it has no host".into());
        }
    }
    Ok(scheme)
}

/// `MAJOR.MINOR`, each a decimal number without leading zeros.
fn check_protocol_version(s: &str) -> Result<(), String> {
    let parts: Vec<&str> = s.split('.').collect();
    let number =
        |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && (p == "0" || !p.starts_with('0'));
    match parts.as_slice() {
        [major, minor] if number(major) && number(minor) => Ok(()),
        [major, minor, _] if number(major) && number(minor) => Err(format!(
            "a protocol version is MAJOR.MINOR, without a patch number (use \"{major}.{minor}\")"
        )),
        _ => Err("a protocol version is MAJOR.MINOR in decimal digits, such as \"1.0\"".into()),
    }
}

/// RFC 6838 section 4.2 restricted-name: 1 to 127 characters, the first a letter or digit, the
/// others letters, digits or `! # $ & - ^ _ . +`.
fn restricted_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 127
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(c))
}

/// RFC 9110 token (parameter names and unquoted values).
fn token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c))
}

/// Checks a media type: `type "/" subtype *( OWS ";" OWS name "=" value )`, type and subtype
/// restricted names (RFC 6838 section 4.2), parameters as in RFC 9110 section 5.6.6 (value a
/// token or a quoted string). Returns why it is not one.
///
/// ```
/// use a2a_card::lint::check_media_type;
/// assert!(check_media_type("application/vnd.geo+json").is_ok());
/// assert!(check_media_type("text/plain; charset=\"utf-8\"").is_ok());
/// assert!(check_media_type("text").is_err());
/// assert!(check_media_type("image/*").is_err());
/// ```
pub fn check_media_type(s: &str) -> Result<(), String> {
    let (essence, params) = match s.find(';') {
        Some(at) => (&s[..at], Some(&s[at..])),
        None => (s, None),
    };
    let essence = essence.trim_end_matches([' ', '\t']);
    let Some((ty, sub)) = essence.split_once('/') else {
        return Err("a media type is type/subtype, such as \"text/plain\"".into());
    };
    if ty == "*" || sub == "*" {
        return Err("wildcards (*) are media ranges, not media types".into());
    }
    if !restricted_name(ty) {
        return Err(format!("the type {ty:?} is not a valid name"));
    }
    if !restricted_name(sub) {
        return Err(format!("the subtype {sub:?} is not a valid name"));
    }
    let mut rest = params.unwrap_or("");
    while !rest.is_empty() {
        let Some(r) = rest.strip_prefix(';') else {
            return Err("parameters are separated by \";\"".into());
        };
        let r = r.trim_start_matches([' ', '\t']);
        let Some(eq) = r.find('=') else {
            return Err("a parameter is name=value".into());
        };
        let name = &r[..eq];
        if !token(name) {
            return Err(format!("the parameter name {name:?} is not a token"));
        }
        let after = &r[eq + 1..];
        let consumed = if let Some(q) = after.strip_prefix('"') {
            // quoted-string: qdtext or backslash escapes, up to the closing quote.
            let mut end = None;
            let mut escaped = false;
            for (i, c) in q.char_indices() {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == '"' {
                    end = Some(i);
                    break;
                } else if c.is_control() && c != '\t' {
                    return Err("a quoted parameter value holds a control character".into());
                }
            }
            match end {
                Some(i) => 1 + i + 1,
                None => return Err("a quoted parameter value is not closed".into()),
            }
        } else {
            let end = after.find([';', ' ', '\t']).unwrap_or(after.len());
            if !token(&after[..end]) {
                return Err(format!(
                    "the value of parameter {name:?} is not a token or quoted string"
                ));
            }
            end
        };
        rest = after[consumed..].trim_start_matches([' ', '\t']);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_types() {
        for ok in [
            "text/plain",
            "application/json",
            "application/vnd.geo+json",
            "text/plain; charset=utf-8",
            "text/plain;charset=\"utf-8\"",
            "multipart/form-data; boundary=\"a b\\\"c\"",
            "image/svg+xml",
            "application/x-www-form-urlencoded",
            "a/b;x=1;y=2",
        ] {
            assert_eq!(check_media_type(ok), Ok(()), "{ok}");
        }
        for bad in [
            "text",
            "",
            "/plain",
            "text/",
            "*/*",
            "text/*",
            "text/plain/x",
            "text /plain",
            ".text/plain",
            "text/pl ain",
            "text/plain;",
            "text/plain; charset",
            "text/plain; charset=",
            "text/plain; charset=\"utf-8",
            "text/plain; =x",
            "tëxt/plain",
            "text/plain charset=x",
        ] {
            assert!(check_media_type(bad).is_err(), "{bad:?} accepted");
        }
        let long = format!("a/{}", "b".repeat(127));
        assert_eq!(check_media_type(&long), Ok(()));
        let too_long = format!("a/{}", "b".repeat(128));
        assert!(check_media_type(&too_long).is_err());
    }

    #[test]
    fn urls() {
        assert_eq!(absolute_url_scheme("https://a.example/x"), Ok("https"));
        assert_eq!(absolute_url_scheme("HTTP://[::1]:8080/"), Ok("HTTP"));
        assert_eq!(absolute_url_scheme("https://user@host"), Ok("https"));
        assert_eq!(absolute_url_scheme("urn:example:x"), Ok("urn"));
        for bad in [
            "/a2a",
            "a.example/x",
            "https:/a.example",
            "https://",
            "https:///x",
            "https://:443/",
            "https://a b/",
            "1http://a",
            "https:",
            "",
        ] {
            assert!(absolute_url_scheme(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn protocol_versions() {
        for ok in ["1.0", "0.3", "10.12"] {
            assert_eq!(check_protocol_version(ok), Ok(()));
        }
        for bad in ["1", "1.0.0", "v1.0", "01.0", "1.", ".1", "1.x", "", "1.0-rc1"] {
            assert!(check_protocol_version(bad).is_err(), "{bad:?} accepted");
        }
    }
}
