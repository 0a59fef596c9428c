//! The rules, walked over a card in document order.

use super::findings::{Finding, Rule};
use super::syntax::{absolute_uri_scheme, absolute_url_scheme, check_media_type, check_protocol_version};
use crate::canonical::table::{FieldDesc, Kind, MessageDesc, Presence};
use crate::canonical::value::Value;
use crate::error::pointer_token;
use crate::signature::entries::signatures_member;

use std::collections::{HashMap, HashSet};

/// What a URL field must be.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum UrlNeed {
    Absolute,
    Https,
}

/// The URL fields of the schema: (message, JSON field name, requirement).
pub(super) const URL_FIELDS: &[(&str, &str, UrlNeed)] = &[
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

pub(super) struct Linter {
    pub(super) findings: Vec<Finding>,
    /// The members the canonicalizer left out (unknown members), when it succeeded.
    pub(super) unsigned: HashSet<String>,
    /// The scheme names `securitySchemes` defines.
    pub(super) schemes: HashSet<String>,
    /// Skill ids seen so far, with the pointer of the first.
    pub(super) skill_ids: HashMap<String, String>,
    /// The `protocolBinding` of the interface being linted.
    pub(super) binding: Option<String>,
}

impl Linter {
    pub(super) fn add(&mut self, rule: Rule, pointer: String, message: String) {
        self.findings.push(Finding {
            rule,
            severity: rule.severity(),
            pointer,
            message,
        });
    }

    /// Lints one message object.
    pub(super) fn message(
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
                self.signatures(value);
                continue;
            }
            match desc.field(name) {
                None => {
                    let legacy = crate::canonical::table::LEGACY
                        .iter()
                        .find(|(m, n, _)| *m == desc.name && n == name);
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
                        let near = crate::signature::near::near_member(desc, name)
                            .map(|m| format!("; did you mean {m:?}?"))
                            .unwrap_or_default();
                        self.add(
                            Rule::UnknownMember,
                            p,
                            format!(
                                "{} has no member {name:?} in A2A v1.0; signatures will not cover it{near}",
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
    pub(super) fn field(
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

    pub(super) fn string_field(&mut self, desc: &MessageDesc, field: &FieldDesc, s: &str, p: &str) {
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

    pub(super) fn skill_id(&mut self, skill: &[(String, Value)], ip: &str) {
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
    /// The `signatures` member, read by the verifier's own reader of signature entries: each
    /// fault it would refuse is a finding at its pointer.
    pub(super) fn signatures(&mut self, value: &Value) {
        let sigs = match signatures_member(Some(value.clone()), usize::MAX) {
            Ok(s) => s,
            Err(e) => {
                self.add(
                    Rule::SignatureMalformed,
                    e.pointer().unwrap_or("/signatures").to_string(),
                    e.message().to_string(),
                );
                return;
            }
        };
        for entry in sigs.entries() {
            if let Some(p) = entry.problem() {
                self.add(
                    Rule::SignatureMalformed,
                    p.pointer().unwrap_or_default().to_string(),
                    p.message().to_string(),
                );
                continue;
            }
            if let Err(e) = entry.header() {
                self.add(
                    Rule::SignatureMalformed,
                    e.pointer().unwrap_or_default().to_string(),
                    format!(
                        "{} ({}); verifiers will refuse this signature",
                        e.message(),
                        e.code()
                    ),
                );
            }
            match entry.signature() {
                Ok(bytes) if bytes.is_empty() => self.add(
                    Rule::SignatureMalformed,
                    entry.pointer(Some("signature")),
                    "\"signature\" is empty".to_string(),
                ),
                Ok(_) => {}
                Err(e) => self.add(
                    Rule::SignatureMalformed,
                    e.pointer().unwrap_or_default().to_string(),
                    e.message().to_string(),
                ),
            }
        }
    }
}

pub(super) fn join(ptr: &str, seg: &str) -> String {
    let mut s = String::with_capacity(ptr.len() + seg.len() + 1);
    s.push_str(ptr);
    s.push('/');
    s.push_str(&pointer_token(seg));
    s
}
