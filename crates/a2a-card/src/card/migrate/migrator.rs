//! The rewrite itself, member by member, with a note for every change and every loss.

use super::notes::{MigrateOptions, MigrationNote, NoteKind};
use crate::canonical::value::Value;
use crate::error::{pointer_token, Error, ErrorCode};

/// Members only an A2A 0.3 card has at its top level.
pub(super) const V03_ONLY: &[&str] = &[
    "url",
    "preferredTransport",
    "additionalInterfaces",
    "protocolVersion",
    "supportsAuthenticatedExtendedCard",
    "security",
];

/// The 0.3 members that become `supportedInterfaces`.
pub(super) const INTERFACE_MEMBERS: &[&str] = &[
    "url",
    "preferredTransport",
    "additionalInterfaces",
    "protocolVersion",
];

/// The 0.3 default of `preferredTransport` (0.3 `AgentCard.preferredTransport`).
pub(super) const DEFAULT_TRANSPORT: &str = "JSONRPC";
/// The 0.3 default of `protocolVersion` (0.3 `AgentCard.protocolVersion`).
pub(super) const DEFAULT_PROTOCOL_VERSION: &str = "0.3.0";

/// `base` + `/` + the escaped `token`.
pub(super) fn child(base: &str, token: &str) -> String {
    format!("{base}/{}", pointer_token(token))
}

pub(super) fn type_error(pointer: &str, want: &str, found: &Value) -> Error {
    Error::new(
        ErrorCode::TypeMismatch,
        format!("expected {want} here, found {}", found.type_name()),
    )
    .at(pointer)
}

pub(super) fn as_object<'v>(v: &'v Value, pointer: &str) -> Result<&'v [(String, Value)], Error> {
    match v {
        Value::Object(m) => Ok(m),
        other => Err(type_error(pointer, "an object", other)),
    }
}

pub(super) fn as_array<'v>(v: &'v Value, pointer: &str) -> Result<&'v [Value], Error> {
    match v {
        Value::Array(items) => Ok(items),
        other => Err(type_error(pointer, "an array", other)),
    }
}

pub(super) fn as_string<'v>(v: &'v Value, pointer: &str) -> Result<&'v str, Error> {
    match v {
        Value::String(s) => Ok(s),
        other => Err(type_error(pointer, "a string", other)),
    }
}

/// `X.Y.Z` (all digits) as `X.Y`; anything else as it is.
pub(super) fn major_minor(version: &str) -> String {
    let parts: Vec<&str> = version.split('.').collect();
    let numeric = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    if parts.len() == 3 && parts.iter().all(|p| numeric(p)) {
        format!("{}.{}", parts[0], parts[1])
    } else {
        version.to_string()
    }
}

/// What to do with one member of a 0.3 object.
pub(super) enum Rule {
    /// Keep it under the same name.
    Copy,
    /// Keep it under a new name (the 1.0 name).
    Rename(&'static str),
    /// Drop it, for this reason.
    Drop(&'static str),
}

pub(super) struct Migrator<'o> {
    pub(super) notes: Vec<MigrationNote>,
    pub(super) opts: &'o MigrateOptions,
}

impl Migrator<'_> {
    pub(super) fn note(
        &mut self,
        pointer: &str,
        kind: NoteKind,
        target: Option<String>,
        message: impl Into<String>,
    ) {
        self.notes.push(MigrationNote {
            pointer: pointer.to_string(),
            kind,
            target,
            message: message.into(),
        });
    }

    /// Maps the members of a 0.3 object with `rules` (by 0.3 name); members without a rule are
    /// dropped as unknown to `what`. `null` members are left out (null means absent).
    pub(super) fn simple(
        &mut self,
        members: &[(String, Value)],
        base: &str,
        target_base: &str,
        what: &str,
        rules: &[(&str, Rule)],
    ) -> Vec<(String, Value)> {
        let mut out = Vec::new();
        for (name, v) in members {
            let p = child(base, name);
            if matches!(v, Value::Null) {
                self.null(&p);
                continue;
            }
            match rules.iter().find(|(n, _)| n == name).map(|(_, r)| r) {
                Some(Rule::Copy) => out.push((name.clone(), v.clone())),
                Some(Rule::Rename(new)) => {
                    self.note(
                        &p,
                        NoteKind::Moved,
                        Some(child(target_base, new)),
                        format!("{name} is called {new} in A2A 1.0"),
                    );
                    out.push(((*new).to_string(), v.clone()));
                }
                Some(Rule::Drop(reason)) => self.note(&p, NoteKind::Dropped, None, *reason),
                None => self.unknown(&p, what),
            }
        }
        out
    }

    pub(super) fn null(&mut self, pointer: &str) {
        self.note(
            pointer,
            NoteKind::Rewritten,
            None,
            "null means absent; left out of the 1.0 card",
        );
    }

    pub(super) fn unknown(&mut self, pointer: &str, what: &str) {
        self.note(
            pointer,
            NoteKind::Dropped,
            None,
            format!("not a member of {what} in A2A 0.3 or 1.0; it has no 1.0 home"),
        );
    }

    pub(super) fn card(&mut self, members: &[(String, Value)]) -> Result<Vec<(String, Value)>, Error> {
        let get = |name: &str| {
            members
                .iter()
                .find(|(k, v)| k == name && !matches!(v, Value::Null))
                .map(|(_, v)| v)
        };
        let has_capabilities = get("capabilities").is_some();
        let extended = match get("supportsAuthenticatedExtendedCard") {
            Some(v @ Value::Bool(_)) => Some(v.clone()),
            Some(other) => {
                return Err(type_error(
                    "/supportsAuthenticatedExtendedCard",
                    "a boolean",
                    other,
                ))
            }
            None => None,
        };
        // supportedInterfaces goes where url was, or else where the first other interface
        // member was.
        let anchor = if members.iter().any(|(k, _)| k == "url") {
            Some("url")
        } else {
            members
                .iter()
                .map(|(k, _)| k.as_str())
                .find(|k| INTERFACE_MEMBERS.contains(k))
        };
        let mut out: Vec<(String, Value)> = Vec::new();
        for (name, v) in members {
            let p = child("", name);
            match name.as_str() {
                n if INTERFACE_MEMBERS.contains(&n) => {
                    if anchor == Some(n) {
                        let interfaces = self.interfaces(members)?;
                        if !interfaces.is_empty() {
                            out.push(("supportedInterfaces".into(), Value::Array(interfaces)));
                        }
                    }
                }
                _ if matches!(v, Value::Null) => self.null(&p),
                "provider" => {
                    let members = as_object(v, &p)?;
                    let provider = self.simple(
                        members,
                        &p,
                        &p,
                        "AgentProvider",
                        &[("organization", Rule::Copy), ("url", Rule::Copy)],
                    );
                    out.push((name.clone(), Value::Object(provider)));
                }
                "name" | "description" | "version" | "documentationUrl" | "iconUrl"
                | "defaultInputModes" | "defaultOutputModes" => out.push((name.clone(), v.clone())),
                "capabilities" => {
                    let caps = self.capabilities(v, extended.clone())?;
                    out.push((name.clone(), Value::Object(caps)));
                }
                "supportsAuthenticatedExtendedCard" => {
                    self.note(
                        &p,
                        NoteKind::Moved,
                        Some("/capabilities/extendedAgentCard".into()),
                        "supportsAuthenticatedExtendedCard is capabilities.extendedAgentCard in A2A 1.0 (4.4.3)",
                    );
                    if !has_capabilities {
                        if let Some(e) = &extended {
                            out.push((
                                "capabilities".into(),
                                Value::Object(vec![("extendedAgentCard".into(), e.clone())]),
                            ));
                        }
                    }
                }
                "securitySchemes" => {
                    let schemes = self.security_schemes(v)?;
                    out.push((name.clone(), Value::Object(schemes)));
                }
                "security" => {
                    let reqs = self.requirements(v, &p, "/securityRequirements")?;
                    out.push(("securityRequirements".into(), Value::Array(reqs)));
                }
                "skills" => {
                    let items = as_array(v, &p)?;
                    let mut skills = Vec::with_capacity(items.len());
                    for (i, s) in items.iter().enumerate() {
                        skills.push(self.skill(s, &child(&p, &i.to_string()), i)?);
                    }
                    out.push((name.clone(), Value::Array(skills)));
                }
                "signatures" => self.note(
                    &p,
                    NoteKind::Dropped,
                    None,
                    "signatures cover the 0.3 card's bytes and cannot carry over (A2A 1.0 8.4 signs the canonical 1.0 card); sign the migrated card again",
                ),
                _ => self.unknown(&p, "AgentCard"),
            }
        }
        if anchor.is_none() {
            // Neither url nor any other interface member: say what is missing.
            self.interfaces(members)?;
        }
        Ok(out)
    }

    /// The 1.0 `supportedInterfaces` from the 0.3 `url`, `preferredTransport`,
    /// `additionalInterfaces` and `protocolVersion` (A2A 1.0 4.4.1, 4.4.6).
    pub(super) fn interfaces(&mut self, members: &[(String, Value)]) -> Result<Vec<Value>, Error> {
        let get = |name: &str| {
            members
                .iter()
                .find(|(k, v)| k == name && !matches!(v, Value::Null))
                .map(|(_, v)| v)
        };
        for name in [
            "url",
            "preferredTransport",
            "additionalInterfaces",
            "protocolVersion",
        ] {
            if matches!(members.iter().find(|(k, _)| k == name), Some((_, Value::Null))) {
                self.null(&child("", name));
            }
        }
        // The protocol version every interface gets.
        let version = match &self.opts.protocol_version {
            Some(v) => {
                self.note(
                    "/protocolVersion",
                    NoteKind::Rewritten,
                    Some("/supportedInterfaces/*/protocolVersion".into()),
                    format!("every interface gets protocolVersion {v:?}, as asked"),
                );
                v.clone()
            }
            None => match get("protocolVersion") {
                Some(v) => {
                    let given = as_string(v, "/protocolVersion")?;
                    let mm = major_minor(given);
                    let how = if mm == given {
                        String::new()
                    } else {
                        format!(", written {mm:?} (Major.Minor, as A2A 1.0 4.4.6 spells it)")
                    };
                    self.note(
                        "/protocolVersion",
                        NoteKind::Moved,
                        Some("/supportedInterfaces/*/protocolVersion".into()),
                        format!(
                            "protocolVersion {given:?} moves into each interface{how}: the endpoints still speak A2A {mm}; \
                             set the protocol version 1.0 once they speak 1.0"
                        ),
                    );
                    mm
                }
                None => {
                    let mm = major_minor(DEFAULT_PROTOCOL_VERSION);
                    self.note(
                        "/protocolVersion",
                        NoteKind::Defaulted,
                        Some("/supportedInterfaces/*/protocolVersion".into()),
                        format!(
                            "the card has no protocolVersion; the A2A 0.3 default {DEFAULT_PROTOCOL_VERSION:?} \
                             goes into each interface as {mm:?}"
                        ),
                    );
                    mm
                }
            },
        };
        let mut seen: Vec<(String, String)> = Vec::new();
        let mut out = Vec::new();
        let interface = |url: &str, binding: &str| {
            Value::Object(vec![
                ("url".into(), Value::String(url.to_string())),
                ("protocolBinding".into(), Value::String(binding.to_string())),
                ("protocolVersion".into(), Value::String(version.clone())),
            ])
        };
        match get("url") {
            Some(u) => {
                let url = as_string(u, "/url")?;
                let transport = match get("preferredTransport") {
                    Some(t) => {
                        let t = as_string(t, "/preferredTransport")?;
                        self.note(
                            "/preferredTransport",
                            NoteKind::Moved,
                            Some("/supportedInterfaces/0/protocolBinding".into()),
                            "preferredTransport is the first interface's protocolBinding in A2A 1.0",
                        );
                        t.to_string()
                    }
                    None => {
                        self.note(
                            "/preferredTransport",
                            NoteKind::Defaulted,
                            Some("/supportedInterfaces/0/protocolBinding".into()),
                            format!(
                                "the card has no preferredTransport; the A2A 0.3 default {DEFAULT_TRANSPORT:?} \
                                 becomes the first interface's protocolBinding"
                            ),
                        );
                        DEFAULT_TRANSPORT.to_string()
                    }
                };
                self.note(
                    "/url",
                    NoteKind::Moved,
                    Some("/supportedInterfaces/0/url".into()),
                    "url is the first (preferred) entry of supportedInterfaces in A2A 1.0 (4.4.1)",
                );
                out.push(interface(url, &transport));
                seen.push((url.to_string(), transport));
            }
            None => {
                self.note(
                    "/url",
                    NoteKind::Missing,
                    None,
                    "the card has no url, so the 1.0 card has no preferred interface; add the first supportedInterfaces entry by hand",
                );
                if get("preferredTransport").is_some() {
                    self.note(
                        "/preferredTransport",
                        NoteKind::Dropped,
                        None,
                        "preferredTransport names the transport of url, and the card has no url",
                    );
                }
            }
        }
        if let Some(extra) = get("additionalInterfaces") {
            let items = as_array(extra, "/additionalInterfaces")?;
            for (i, item) in items.iter().enumerate() {
                let p = child("/additionalInterfaces", &i.to_string());
                let obj = as_object(item, &p)?;
                let mut url = None;
                let mut transport = None;
                for (name, v) in obj {
                    let q = child(&p, name);
                    match name.as_str() {
                        _ if matches!(v, Value::Null) => self.null(&q),
                        "url" => url = Some(as_string(v, &q)?),
                        "transport" => transport = Some(as_string(v, &q)?),
                        _ => self.unknown(&q, "AgentInterface"),
                    }
                }
                let (Some(url), Some(transport)) = (url, transport) else {
                    self.note(
                        &p,
                        NoteKind::Dropped,
                        None,
                        "an A2A 0.3 interface needs both url and transport; this one cannot become a 1.0 interface",
                    );
                    continue;
                };
                if let Some(at) = seen.iter().position(|(u, t)| u == url && t == transport) {
                    self.note(
                        &p,
                        NoteKind::Rewritten,
                        Some(format!("/supportedInterfaces/{at}")),
                        format!(
                            "the same url and transport as supportedInterfaces[{at}]; A2A 1.0 lists each interface once"
                        ),
                    );
                    continue;
                }
                let target = format!("/supportedInterfaces/{}", out.len());
                self.note(
                    &p,
                    NoteKind::Moved,
                    Some(target),
                    "an additional interface is a further supportedInterfaces entry in A2A 1.0, transport as protocolBinding",
                );
                out.push(interface(url, transport));
                seen.push((url.to_string(), transport.to_string()));
            }
        }
        Ok(out)
    }

    /// 0.3 `AgentCapabilities` to 1.0 (A2A 1.0 4.4.3), with `extendedAgentCard` from the 0.3
    /// top-level `supportsAuthenticatedExtendedCard` appended.
    pub(super) fn capabilities(
        &mut self,
        v: &Value,
        extended: Option<Value>,
    ) -> Result<Vec<(String, Value)>, Error> {
        let members = as_object(v, "/capabilities")?;
        let mut out = self.simple(
            members,
            "/capabilities",
            "/capabilities",
            "AgentCapabilities",
            &[
                ("streaming", Rule::Copy),
                ("pushNotifications", Rule::Copy),
                ("extensions", Rule::Copy),
                ("extendedAgentCard", Rule::Copy),
                (
                    "stateTransitionHistory",
                    Rule::Drop(
                        "A2A 1.0 removed the stateTransitionHistory capability (no API served it; \"What's new in v1.0\", AgentCapabilities, #1396)",
                    ),
                ),
            ],
        );
        // Extensions have the same members in 0.3 and 1.0 (uri, description, required, params).
        for (name, value) in out.iter_mut() {
            if name == "extensions" {
                let base = "/capabilities/extensions";
                let items = as_array(value, base)?;
                let mut mapped = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let p = child(base, &i.to_string());
                    let members = as_object(item, &p)?;
                    let ext = self.simple(
                        members,
                        &p,
                        &p,
                        "AgentExtension",
                        &[
                            ("uri", Rule::Copy),
                            ("description", Rule::Copy),
                            ("required", Rule::Copy),
                            ("params", Rule::Copy),
                        ],
                    );
                    mapped.push(Value::Object(ext));
                }
                *value = Value::Array(mapped);
            }
        }
        if let Some(e) = extended {
            match out.iter().find(|(k, _)| k == "extendedAgentCard") {
                Some((_, existing)) if *existing != e => return Err(Error::new(
                    ErrorCode::MalformedCard,
                    "supportsAuthenticatedExtendedCard and capabilities.extendedAgentCard disagree; keep one",
                )
                .at("/supportsAuthenticatedExtendedCard")),
                Some(_) => {}
                None => out.push(("extendedAgentCard".into(), e)),
            }
        }
        Ok(out)
    }

    /// 0.3 `security` (a list of `{scheme: [scopes]}`, OpenAPI style) to 1.0
    /// `securityRequirements` (`SecurityRequirement { map<string, StringList> schemes }`).
    /// An empty scope list is written `{}`, as ProtoJSON writes an empty `StringList`.
    pub(super) fn requirements(&mut self, v: &Value, base: &str, target: &str) -> Result<Vec<Value>, Error> {
        let items = as_array(v, base)?;
        self.note(
            base,
            NoteKind::Rewritten,
            Some(target.to_string()),
            "security is securityRequirements in A2A 1.0: each {scheme: [scopes]} becomes {\"schemes\": {scheme: {\"list\": [scopes]}}}",
        );
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let p = child(base, &i.to_string());
            let schemes = as_object(item, &p)?;
            let mut map = Vec::with_capacity(schemes.len());
            for (scheme, scopes) in schemes {
                let q = child(&p, scheme);
                let list = as_array(scopes, &q)?;
                for (j, s) in list.iter().enumerate() {
                    as_string(s, &child(&q, &j.to_string()))?;
                }
                let value = if list.is_empty() {
                    Value::Object(Vec::new())
                } else {
                    Value::Object(vec![("list".into(), Value::Array(list.to_vec()))])
                };
                map.push((scheme.clone(), value));
            }
            out.push(Value::Object(vec![("schemes".into(), Value::Object(map))]));
        }
        Ok(out)
    }

    pub(super) fn skill(&mut self, v: &Value, base: &str, index: usize) -> Result<Value, Error> {
        let members = as_object(v, base)?;
        let target = format!("/skills/{index}");
        let mut out = Vec::with_capacity(members.len());
        for (name, value) in members {
            let p = child(base, name);
            match name.as_str() {
                _ if matches!(value, Value::Null) => self.null(&p),
                "id" | "name" | "description" | "tags" | "examples" | "inputModes" | "outputModes" => {
                    out.push((name.clone(), value.clone()))
                }
                "security" => {
                    let reqs = self.requirements(value, &p, &child(&target, "securityRequirements"))?;
                    out.push(("securityRequirements".into(), Value::Array(reqs)));
                }
                _ => self.unknown(&p, "AgentSkill"),
            }
        }
        Ok(Value::Object(out))
    }

    /// 0.3 `securitySchemes` (OpenAPI-style objects discriminated by `type`) to the 1.0
    /// `SecurityScheme` oneof wrappers (A2A 1.0 4.5.1 to 4.5.6).
    pub(super) fn security_schemes(&mut self, v: &Value) -> Result<Vec<(String, Value)>, Error> {
        let schemes = as_object(v, "/securitySchemes")?;
        let mut out = Vec::with_capacity(schemes.len());
        for (name, scheme) in schemes {
            let p = child("/securitySchemes", name);
            let target = child("/securitySchemes", name);
            let members = as_object(scheme, &p)?;
            let Some(kind) = members.iter().find(|(k, _)| k == "type").map(|(_, v)| v) else {
                self.note(
                    &p,
                    NoteKind::Dropped,
                    None,
                    "an A2A 0.3 security scheme needs a type (apiKey, http, oauth2, openIdConnect, mutualTLS); without one it has no 1.0 form. Requirements naming it are kept: define the scheme by hand",
                );
                continue;
            };
            let kind = as_string(kind, &child(&p, "type"))?;
            let (wrapper, section) = match kind {
                "apiKey" => ("apiKeySecurityScheme", "4.5.2"),
                "http" => ("httpAuthSecurityScheme", "4.5.3"),
                "oauth2" => ("oauth2SecurityScheme", "4.5.4"),
                "openIdConnect" => ("openIdConnectSecurityScheme", "4.5.5"),
                "mutualTLS" => ("mtlsSecurityScheme", "4.5.6"),
                other => {
                    self.note(
                        &p,
                        NoteKind::Dropped,
                        None,
                        format!(
                            "the security scheme type {other:?} is not one A2A 0.3 or 1.0 defines; it has no 1.0 form. \
                             Requirements naming it are kept: define the scheme by hand"
                        ),
                    );
                    continue;
                }
            };
            let inner_target = child(&target, wrapper);
            let rest: Vec<(String, Value)> = members.iter().filter(|(k, _)| k != "type").cloned().collect();
            let what = format!("a {kind} security scheme");
            let inner = match kind {
                "apiKey" => self.simple(
                    &rest,
                    &p,
                    &inner_target,
                    &what,
                    &[
                        ("description", Rule::Copy),
                        ("in", Rule::Rename("location")),
                        ("name", Rule::Copy),
                    ],
                ),
                "http" => self.simple(
                    &rest,
                    &p,
                    &inner_target,
                    &what,
                    &[
                        ("description", Rule::Copy),
                        ("scheme", Rule::Copy),
                        ("bearerFormat", Rule::Copy),
                    ],
                ),
                "oauth2" => {
                    let mut inner = Vec::new();
                    for (k, val) in &rest {
                        let q = child(&p, k);
                        match k.as_str() {
                            _ if matches!(val, Value::Null) => self.null(&q),
                            "description" | "oauth2MetadataUrl" => inner.push((k.clone(), val.clone())),
                            "flows" => {
                                let flows = self.flows(val, &q)?;
                                inner.push((k.clone(), Value::Object(flows)));
                            }
                            _ => self.unknown(&q, &what),
                        }
                    }
                    inner
                }
                "openIdConnect" => self.simple(
                    &rest,
                    &p,
                    &inner_target,
                    &what,
                    &[("description", Rule::Copy), ("openIdConnectUrl", Rule::Copy)],
                ),
                _ => self.simple(&rest, &p, &inner_target, &what, &[("description", Rule::Copy)]),
            };
            self.note(
                &p,
                NoteKind::Rewritten,
                Some(inner_target.clone()),
                format!(
                    "the A2A 0.3 scheme {{\"type\": {kind:?}, ...}} is {{{wrapper:?}: {{...}}}} in A2A 1.0 ({section}); the type member is gone"
                ),
            );
            out.push((
                name.clone(),
                Value::Object(vec![(wrapper.to_string(), Value::Object(inner))]),
            ));
        }
        Ok(out)
    }

    /// 0.3 `OAuthFlows` (any number of flows) to the 1.0 `OAuthFlows` oneof (exactly one flow,
    /// A2A 1.0 4.5.7): the first flow that 1.0 does not deprecate is kept, else the first flow;
    /// the others are dropped with a note.
    pub(super) fn flows(&mut self, v: &Value, base: &str) -> Result<Vec<(String, Value)>, Error> {
        const FLOWS: &[&str] = &[
            "authorizationCode",
            "clientCredentials",
            "implicit",
            "password",
            "deviceCode",
        ];
        const DEPRECATED: &[&str] = &["implicit", "password"];
        let members = as_object(v, base)?;
        let mut present = Vec::new();
        for (name, flow) in members {
            let p = child(base, name);
            if matches!(flow, Value::Null) {
                self.null(&p);
            } else if FLOWS.contains(&name.as_str()) {
                as_object(flow, &p)?;
                present.push((name, flow));
            } else {
                self.unknown(&p, "OAuthFlows");
            }
        }
        let keep = present
            .iter()
            .position(|(n, _)| !DEPRECATED.contains(&n.as_str()))
            .or(if present.is_empty() { None } else { Some(0) });
        let mut out = Vec::new();
        for (i, (name, flow)) in present.iter().enumerate() {
            let p = child(base, name);
            if Some(i) == keep {
                if DEPRECATED.contains(&name.as_str()) {
                    self.note(
                        &p,
                        NoteKind::Unchanged,
                        None,
                        format!(
                            "the {name} flow is deprecated in A2A 1.0 (4.5.7); move to authorizationCode with PKCE or deviceCode"
                        ),
                    );
                }
                let fields: &[&str] = match name.as_str() {
                    "authorizationCode" => &[
                        "authorizationUrl",
                        "tokenUrl",
                        "refreshUrl",
                        "scopes",
                        "pkceRequired",
                    ],
                    "clientCredentials" | "password" => &["tokenUrl", "refreshUrl", "scopes"],
                    "implicit" => &["authorizationUrl", "refreshUrl", "scopes"],
                    _ => &["deviceAuthorizationUrl", "tokenUrl", "refreshUrl", "scopes"],
                };
                let rules: Vec<(&str, Rule)> = fields.iter().map(|f| (*f, Rule::Copy)).collect();
                let members = as_object(flow, &p)?;
                let what = format!("an OAuth {name} flow");
                let mapped = self.simple(members, &p, &p, &what, &rules);
                out.push(((*name).clone(), Value::Object(mapped)));
            } else {
                let kept = keep.and_then(|k| present.get(k)).map_or("", |(n, _)| n.as_str());
                self.note(
                    &p,
                    NoteKind::Dropped,
                    None,
                    format!(
                        "A2A 1.0 OAuthFlows holds exactly one flow (a oneof, 4.5.7); {kept} was kept and this {name} flow has no place. \
                         Declare it as a second oauth2 scheme by hand if clients need it"
                    ),
                );
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::pretty::write_pretty;
    use super::*;

    #[test]
    fn major_minor_spelling() {
        assert_eq!(major_minor("0.3.0"), "0.3");
        assert_eq!(major_minor("1.0"), "1.0");
        assert_eq!(major_minor("0.3.x"), "0.3.x");
        assert_eq!(major_minor(""), "");
    }

    #[test]
    fn pretty_writer_reads_back() {
        let v = crate::canonical::value::parse(br#"{"a":[1,{"b":[]},{}],"c":"\u0001"}"#).unwrap();
        let mut out = Vec::new();
        write_pretty(&mut out, &v, 0);
        assert_eq!(crate::canonical::value::parse(&out).unwrap(), v);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\n  \"a\": [\n    1,\n    {\n      \"b\": []\n    },\n    {}\n  ],\n  \"c\": \"\\u0001\"\n}"
        );
    }
}
