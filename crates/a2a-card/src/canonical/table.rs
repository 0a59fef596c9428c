//! The presence table: one row per field of every message reachable from `AgentCard` in
//! `specification/a2a.proto` of A2A v1.0, written by hand from the proto.
//!
//! Each row gives the JSON name (lowerCamelCase, as ProtoJSON writes it), the proto name, the
//! kind of value and the presence class that decides whether a default value is kept.

/// How a field's presence is tracked, which decides what the `spec` profile keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// `(google.api.field_behavior) = REQUIRED`: kept when present, even at its default.
    Required,
    /// The proto3 `optional` keyword: kept when present, even at its default.
    Optional,
    /// A message-typed field (oneof members included): kept when present, even when empty.
    Message,
    /// Implicit presence (plain scalar, repeated, map): omitted at its default.
    Implicit,
    /// A member of the a2a-sdk 0.3 model (`canonical/sdk03.rs`) with this string default:
    /// omitted when it holds it (`exclude_defaults`), kept otherwise.
    Default(&'static str),
}

/// The kind of value a field holds.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// `string`
    String,
    /// `bool`
    Bool,
    /// A nested message.
    Message(&'static MessageDesc),
    /// `repeated string`
    RepeatedString,
    /// `repeated` of a message.
    RepeatedMessage(&'static MessageDesc),
    /// `map<string, string>`
    MapString,
    /// `map<string, Message>`
    MapMessage(&'static MessageDesc),
    /// `google.protobuf.Struct`: any JSON object, canonicalized by RFC 8785 only.
    Struct,
    /// A list of objects whose members are lists of strings (a2a-sdk 0.3's `security`:
    /// `list[dict[str, list[str]]]`).
    RepeatedMapStringList,
    /// A map of objects, each read as the message of `variants` whose `type` default equals
    /// its `type` member (a2a-sdk 0.3's `securitySchemes`, a pydantic union).
    MapByType(&'static [&'static MessageDesc]),
}

/// One field of a message.
#[derive(Debug, Clone, Copy)]
pub struct FieldDesc {
    /// The JSON name (`defaultInputModes`).
    pub json: &'static str,
    /// The proto name (`default_input_modes`); equal to `json` for one-word names.
    pub proto: &'static str,
    /// What the value is.
    pub kind: Kind,
    /// Its presence class.
    pub presence: Presence,
    /// The `oneof` it belongs to, if any.
    pub oneof: Option<&'static str>,
}

/// One message of the schema.
#[derive(Debug)]
pub struct MessageDesc {
    /// The proto message name.
    pub name: &'static str,
    /// Its fields, in proto order.
    pub fields: &'static [FieldDesc],
}

impl MessageDesc {
    /// The field with this JSON or proto name, and whether the proto name was used.
    ///
    /// ```
    /// let (f, by_proto) = a2a_card::canonical::table::AGENT_CARD.field("default_input_modes").unwrap();
    /// assert_eq!((f.json, by_proto), ("defaultInputModes", true));
    /// ```
    pub fn field(&self, name: &str) -> Option<(&'static FieldDesc, bool)> {
        // The lengths first: most names differ there, without a call to compare the bytes
        // (which opt-level "z", the npm package's, does not inline).
        for f in self.fields {
            if f.json.len() == name.len() && f.json == name {
                return Some((f, false));
            }
            if f.proto.len() == name.len() && f.proto == name {
                return Some((f, true));
            }
        }
        None
    }
}

const fn f(json: &'static str, proto: &'static str, kind: Kind, presence: Presence) -> FieldDesc {
    FieldDesc {
        json,
        proto,
        kind,
        presence,
        oneof: None,
    }
}

const fn one(json: &'static str, proto: &'static str, kind: Kind, oneof: &'static str) -> FieldDesc {
    FieldDesc {
        json,
        proto,
        kind,
        presence: Presence::Message,
        oneof: Some(oneof),
    }
}

use Kind::{Bool, MapMessage, MapString, Message, RepeatedMessage, RepeatedString, String, Struct};
use Presence::{Implicit, Optional, Required};

/// `AgentCard`, the root. `signatures` is listed so that it is known, but canonicalization
/// always excludes it.
pub static AGENT_CARD: MessageDesc = MessageDesc {
    name: "AgentCard",
    fields: &[
        f("name", "name", String, Required),
        f("description", "description", String, Required),
        f(
            "supportedInterfaces",
            "supported_interfaces",
            RepeatedMessage(&AGENT_INTERFACE),
            Required,
        ),
        f(
            "provider",
            "provider",
            Message(&AGENT_PROVIDER),
            Presence::Message,
        ),
        f("version", "version", String, Required),
        f("documentationUrl", "documentation_url", String, Optional),
        f(
            "capabilities",
            "capabilities",
            Message(&AGENT_CAPABILITIES),
            Required,
        ),
        f(
            "securitySchemes",
            "security_schemes",
            MapMessage(&SECURITY_SCHEME),
            Implicit,
        ),
        f(
            "securityRequirements",
            "security_requirements",
            RepeatedMessage(&SECURITY_REQUIREMENT),
            Implicit,
        ),
        f(
            "defaultInputModes",
            "default_input_modes",
            RepeatedString,
            Required,
        ),
        f(
            "defaultOutputModes",
            "default_output_modes",
            RepeatedString,
            Required,
        ),
        f("skills", "skills", RepeatedMessage(&AGENT_SKILL), Required),
        f(
            "signatures",
            "signatures",
            RepeatedMessage(&AGENT_CARD_SIGNATURE),
            Implicit,
        ),
        f("iconUrl", "icon_url", String, Optional),
    ],
};

/// `AgentInterface`.
pub static AGENT_INTERFACE: MessageDesc = MessageDesc {
    name: "AgentInterface",
    fields: &[
        f("url", "url", String, Required),
        f("protocolBinding", "protocol_binding", String, Required),
        f("tenant", "tenant", String, Implicit),
        f("protocolVersion", "protocol_version", String, Required),
    ],
};

/// `AgentProvider`.
pub static AGENT_PROVIDER: MessageDesc = MessageDesc {
    name: "AgentProvider",
    fields: &[
        f("url", "url", String, Required),
        f("organization", "organization", String, Required),
    ],
};

/// `AgentCapabilities`.
pub static AGENT_CAPABILITIES: MessageDesc = MessageDesc {
    name: "AgentCapabilities",
    fields: &[
        f("streaming", "streaming", Bool, Optional),
        f("pushNotifications", "push_notifications", Bool, Optional),
        f(
            "extensions",
            "extensions",
            RepeatedMessage(&AGENT_EXTENSION),
            Implicit,
        ),
        f("extendedAgentCard", "extended_agent_card", Bool, Optional),
    ],
};

/// `AgentExtension`.
pub static AGENT_EXTENSION: MessageDesc = MessageDesc {
    name: "AgentExtension",
    fields: &[
        f("uri", "uri", String, Implicit),
        f("description", "description", String, Implicit),
        f("required", "required", Bool, Implicit),
        f("params", "params", Struct, Presence::Message),
    ],
};

/// `AgentSkill`.
pub static AGENT_SKILL: MessageDesc = MessageDesc {
    name: "AgentSkill",
    fields: &[
        f("id", "id", String, Required),
        f("name", "name", String, Required),
        f("description", "description", String, Required),
        f("tags", "tags", RepeatedString, Required),
        f("examples", "examples", RepeatedString, Implicit),
        f("inputModes", "input_modes", RepeatedString, Implicit),
        f("outputModes", "output_modes", RepeatedString, Implicit),
        f(
            "securityRequirements",
            "security_requirements",
            RepeatedMessage(&SECURITY_REQUIREMENT),
            Implicit,
        ),
    ],
};

/// `AgentCardSignature`.
pub static AGENT_CARD_SIGNATURE: MessageDesc = MessageDesc {
    name: "AgentCardSignature",
    fields: &[
        f("protected", "protected", String, Required),
        f("signature", "signature", String, Required),
        f("header", "header", Struct, Presence::Message),
    ],
};

/// `StringList`.
pub static STRING_LIST: MessageDesc = MessageDesc {
    name: "StringList",
    fields: &[f("list", "list", RepeatedString, Implicit)],
};

/// `SecurityRequirement`.
pub static SECURITY_REQUIREMENT: MessageDesc = MessageDesc {
    name: "SecurityRequirement",
    fields: &[f("schemes", "schemes", MapMessage(&STRING_LIST), Implicit)],
};

/// `SecurityScheme`: a oneof of the five scheme messages.
pub static SECURITY_SCHEME: MessageDesc = MessageDesc {
    name: "SecurityScheme",
    fields: &[
        one(
            "apiKeySecurityScheme",
            "api_key_security_scheme",
            Message(&API_KEY_SECURITY_SCHEME),
            "scheme",
        ),
        one(
            "httpAuthSecurityScheme",
            "http_auth_security_scheme",
            Message(&HTTP_AUTH_SECURITY_SCHEME),
            "scheme",
        ),
        one(
            "oauth2SecurityScheme",
            "oauth2_security_scheme",
            Message(&OAUTH2_SECURITY_SCHEME),
            "scheme",
        ),
        one(
            "openIdConnectSecurityScheme",
            "open_id_connect_security_scheme",
            Message(&OPEN_ID_CONNECT_SECURITY_SCHEME),
            "scheme",
        ),
        one(
            "mtlsSecurityScheme",
            "mtls_security_scheme",
            Message(&MUTUAL_TLS_SECURITY_SCHEME),
            "scheme",
        ),
    ],
};

/// `APIKeySecurityScheme`.
pub static API_KEY_SECURITY_SCHEME: MessageDesc = MessageDesc {
    name: "APIKeySecurityScheme",
    fields: &[
        f("description", "description", String, Implicit),
        f("location", "location", String, Required),
        f("name", "name", String, Required),
    ],
};

/// `HTTPAuthSecurityScheme`.
pub static HTTP_AUTH_SECURITY_SCHEME: MessageDesc = MessageDesc {
    name: "HTTPAuthSecurityScheme",
    fields: &[
        f("description", "description", String, Implicit),
        f("scheme", "scheme", String, Required),
        f("bearerFormat", "bearer_format", String, Implicit),
    ],
};

/// `OAuth2SecurityScheme`.
pub static OAUTH2_SECURITY_SCHEME: MessageDesc = MessageDesc {
    name: "OAuth2SecurityScheme",
    fields: &[
        f("description", "description", String, Implicit),
        f("flows", "flows", Message(&OAUTH_FLOWS), Required),
        f("oauth2MetadataUrl", "oauth2_metadata_url", String, Implicit),
    ],
};

/// `OpenIdConnectSecurityScheme`.
pub static OPEN_ID_CONNECT_SECURITY_SCHEME: MessageDesc = MessageDesc {
    name: "OpenIdConnectSecurityScheme",
    fields: &[
        f("description", "description", String, Implicit),
        f("openIdConnectUrl", "open_id_connect_url", String, Required),
    ],
};

/// `MutualTlsSecurityScheme`.
pub static MUTUAL_TLS_SECURITY_SCHEME: MessageDesc = MessageDesc {
    name: "MutualTlsSecurityScheme",
    fields: &[f("description", "description", String, Implicit)],
};

/// `OAuthFlows`: a oneof of the five flows.
pub static OAUTH_FLOWS: MessageDesc = MessageDesc {
    name: "OAuthFlows",
    fields: &[
        one(
            "authorizationCode",
            "authorization_code",
            Message(&AUTHORIZATION_CODE_OAUTH_FLOW),
            "flow",
        ),
        one(
            "clientCredentials",
            "client_credentials",
            Message(&CLIENT_CREDENTIALS_OAUTH_FLOW),
            "flow",
        ),
        one("implicit", "implicit", Message(&IMPLICIT_OAUTH_FLOW), "flow"),
        one("password", "password", Message(&PASSWORD_OAUTH_FLOW), "flow"),
        one(
            "deviceCode",
            "device_code",
            Message(&DEVICE_CODE_OAUTH_FLOW),
            "flow",
        ),
    ],
};

/// `AuthorizationCodeOAuthFlow`.
pub static AUTHORIZATION_CODE_OAUTH_FLOW: MessageDesc = MessageDesc {
    name: "AuthorizationCodeOAuthFlow",
    fields: &[
        f("authorizationUrl", "authorization_url", String, Required),
        f("tokenUrl", "token_url", String, Required),
        f("refreshUrl", "refresh_url", String, Implicit),
        f("scopes", "scopes", MapString, Required),
        f("pkceRequired", "pkce_required", Bool, Implicit),
    ],
};

/// `ClientCredentialsOAuthFlow`.
pub static CLIENT_CREDENTIALS_OAUTH_FLOW: MessageDesc = MessageDesc {
    name: "ClientCredentialsOAuthFlow",
    fields: &[
        f("tokenUrl", "token_url", String, Required),
        f("refreshUrl", "refresh_url", String, Implicit),
        f("scopes", "scopes", MapString, Required),
    ],
};

/// `ImplicitOAuthFlow` (deprecated in A2A v1.0).
pub static IMPLICIT_OAUTH_FLOW: MessageDesc = MessageDesc {
    name: "ImplicitOAuthFlow",
    fields: &[
        f("authorizationUrl", "authorization_url", String, Implicit),
        f("refreshUrl", "refresh_url", String, Implicit),
        f("scopes", "scopes", MapString, Implicit),
    ],
};

/// `PasswordOAuthFlow` (deprecated in A2A v1.0).
pub static PASSWORD_OAUTH_FLOW: MessageDesc = MessageDesc {
    name: "PasswordOAuthFlow",
    fields: &[
        f("tokenUrl", "token_url", String, Implicit),
        f("refreshUrl", "refresh_url", String, Implicit),
        f("scopes", "scopes", MapString, Implicit),
    ],
};

/// `DeviceCodeOAuthFlow`.
pub static DEVICE_CODE_OAUTH_FLOW: MessageDesc = MessageDesc {
    name: "DeviceCodeOAuthFlow",
    fields: &[
        f(
            "deviceAuthorizationUrl",
            "device_authorization_url",
            String,
            Required,
        ),
        f("tokenUrl", "token_url", String, Required),
        f("refreshUrl", "refresh_url", String, Implicit),
        f("scopes", "scopes", MapString, Required),
    ],
};

/// Every message of the table, for documentation and exhaustive tests.
pub static ALL_MESSAGES: &[&MessageDesc] = &[
    &AGENT_CARD,
    &AGENT_INTERFACE,
    &AGENT_PROVIDER,
    &AGENT_CAPABILITIES,
    &AGENT_EXTENSION,
    &AGENT_SKILL,
    &AGENT_CARD_SIGNATURE,
    &STRING_LIST,
    &SECURITY_REQUIREMENT,
    &SECURITY_SCHEME,
    &API_KEY_SECURITY_SCHEME,
    &HTTP_AUTH_SECURITY_SCHEME,
    &OAUTH2_SECURITY_SCHEME,
    &OPEN_ID_CONNECT_SECURITY_SCHEME,
    &MUTUAL_TLS_SECURITY_SCHEME,
    &OAUTH_FLOWS,
    &AUTHORIZATION_CODE_OAUTH_FLOW,
    &CLIENT_CREDENTIALS_OAUTH_FLOW,
    &IMPLICIT_OAUTH_FLOW,
    &PASSWORD_OAUTH_FLOW,
    &DEVICE_CODE_OAUTH_FLOW,
];

/// Members of A2A 0.3 (and of pre-1.0 drafts) that A2A v1.0 replaced or removed:
/// (message, member, what replaces it in 1.0, or `None` when nothing does). `protocolVersions`
/// and `supportsExtendedAgentCard` come from pre-1.0 drafts (Appendix A.2.2), the others from 0.3.
pub(crate) const LEGACY: &[(&str, &str, Option<&str>)] = &[
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

/// True when `name` is the name of a member that A2A 0.3 (or a pre-1.0 draft) had and v1.0
/// does not, in any message (`url`, `preferredTransport`, `security`, ...).
pub(crate) fn is_legacy_name(name: &str) -> bool {
    LEGACY.iter().any(|(_, n, _)| *n == name)
}

#[cfg(test)]
mod tests {
    /// The canonical writer copies the JSON names of known fields without looking for characters
    /// to escape (`presence::Walker::write_member`): that holds only while every name is plain
    /// ASCII.
    #[test]
    fn json_names_need_no_escape() {
        for desc in super::ALL_MESSAGES {
            for f in desc.fields {
                assert!(
                    !f.json.is_empty() && f.json.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'),
                    "{}.{}",
                    desc.name,
                    f.json
                );
            }
        }
    }
}
