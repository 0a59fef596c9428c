//! What lint reports: rules with a stable code and a severity, findings with a JSON Pointer.

use crate::canonical::Limits;
use serde::{Serialize, Serializer};

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
    /// it (section 8.4.1; see [`crate::UnknownMembers::Exclude`]). Members inside a
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

    /// The refusal of a card to be signed because of its findings of `at` severity or worse
    /// (`at` = [`Severity::Error`]: errors only; [`Severity::Warning`]: errors and warnings):
    /// `lint-failed` at the first such finding's pointer, naming up to five of them, or `Ok`
    /// when there are none.
    ///
    /// ```
    /// use a2a_card::lint::{lint_card, LintOptions, Severity};
    /// let report = lint_card(br#"{"name":"A","description":"d","version":"1"}"#, &LintOptions::default()).unwrap();
    /// let err = report.refuse_signing(Severity::Error).unwrap_err();
    /// assert_eq!(err.code().as_str(), "lint-failed");
    /// assert!(err.message().contains("required-missing at /supportedInterfaces"));
    /// ```
    pub fn refuse_signing(&self, at: Severity) -> Result<(), crate::Error> {
        const SHOWN: usize = 5;
        let blocking: Vec<&Finding> = self.findings.iter().filter(|f| f.severity <= at).collect();
        let Some(first) = blocking.first() else {
            return Ok(());
        };
        let errors = self.count(Severity::Error);
        let warnings = blocking.len() - errors;
        let mut counted = format!("{errors} error(s)");
        if at >= Severity::Warning {
            counted.push_str(&format!(" and {warnings} warning(s)"));
        }
        let listed: Vec<String> = blocking
            .iter()
            .take(SHOWN)
            .map(|f| format!("{} at {}", f.rule.as_str(), f.pointer))
            .collect();
        let more = blocking.len().saturating_sub(SHOWN);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        // An A2A 0.3 card lints with errors (v1.0's REQUIRED members are missing): the fix is
        // the migration, so say so.
        let migrate = self
            .findings
            .iter()
            .find(|f| f.rule == Rule::LegacyMember)
            .map(|f| {
                format!(
                    ". It has A2A 0.3 members (such as {}): migrate rewrites it for v1.0 first",
                    f.pointer
                )
            })
            .unwrap_or_default();
        // The caller's switch for the check is the option `lint` (each front end spells it);
        // the findings' text is escaped for the template.
        let found = format!("{}{more}{migrate}", listed.join(", ")).replace('{', "{{");
        Err(crate::error::option_error(
            crate::ErrorCode::LintFailed,
            &format!(
                "lint finds {counted} in the card, so it is not signed: {found}. Fix them (lint \
                 shows each with its reason), or sign it as it is, without the lint check ({{lint}} \
                 off)"
            ),
            &["lint"],
        )
        .at(first.pointer.clone()))
    }
}

/// Options of [`super::lint_card`].
#[derive(Default, Clone, Debug)]
pub struct LintOptions {
    /// Reader limits (input size, nesting).
    pub limits: Limits,
}
