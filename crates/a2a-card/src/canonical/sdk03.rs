//! The a2a-sdk 0.3 model: the pydantic classes of `src/a2a/types.py` reachable from `AgentCard`
//! in a2a-sdk 0.3.26 (tag `v0.3.26`, commit ead75f95; identical in 0.3.21 to 0.3.25), written by
//! hand, for the `a2a-sdk-0.3` profiles. Their signer (`create_agent_card_signer`,
//! `a2a/utils/signing.py`) signs `canonicalize_agent_card` (`a2a/utils/helpers.py`):
//! `model_dump(exclude={'signatures'}, exclude_defaults=True, exclude_none=True, by_alias=True)`,
//! `_clean_empty`, then `json.dumps(separators=(',', ':'), sort_keys=True)`.
//!
//! Each row gives the alias the dump writes (`to_camel_custom` of the field name; `in_` is
//! `in`), the field name the model also reads (`validate_by_name=True`), and the presence:
//! `Required` for a field without a default (the model refuses a card without it), `Optional`
//! for a default of `None` (`exclude_none` drops a `null`), `Default(value)` for a field with
//! another default (`exclude_defaults` drops it when it holds that value). The model's config
//! (`A2ABaseModel`, `src/a2a/_base.py`) leaves `extra` at pydantic's `ignore`: members it does not
//! define are dropped when the card is read, whatever the caller's unknown-member choice.
//!
//! The defaults other than `None`, with their lines in `types.py` of v0.3.26:
//! `AgentCard.protocol_version = '0.3.0'` (line 1788), `AgentCard.preferred_transport =
//! 'JSONRPC'` (`Field(default='JSONRPC')`, line 1778), and the `type` of each security scheme:
//! `APIKeySecurityScheme.type = 'apiKey'` (45), `HTTPAuthSecurityScheme.type = 'http'` (467),
//! `OAuth2SecurityScheme.type = 'oauth2'` (1518), `OpenIdConnectSecurityScheme.type =
//! 'openIdConnect'` (770), `MutualTLSSecurityScheme.type = 'mutualTLS'` (751). A scheme is one
//! of a union of those five (`SecurityScheme`, line 1524) told apart by `type`, so its `type`
//! always holds its default and never reaches the signed bytes.

use super::table::{FieldDesc, Kind, MessageDesc, Presence};

const fn f(json: &'static str, name: &'static str, kind: Kind, presence: Presence) -> FieldDesc {
    FieldDesc {
        json,
        proto: name,
        kind,
        presence,
        oneof: None,
    }
}

use Kind::{
    Bool, MapByType, MapString, Message, RepeatedMapStringList, RepeatedMessage, RepeatedString, String,
    Struct,
};
use Presence::{Default, Optional, Required};

/// `AgentCard` (types.py line 1723). `signatures` is listed so that it is known; the signer
/// excludes it.
pub static AGENT_CARD_03: MessageDesc = MessageDesc {
    name: "AgentCard",
    fields: &[
        f(
            "additionalInterfaces",
            "additional_interfaces",
            RepeatedMessage(&AGENT_INTERFACE_03),
            Optional,
        ),
        f(
            "capabilities",
            "capabilities",
            Message(&AGENT_CAPABILITIES_03),
            Required,
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
        f("description", "description", String, Required),
        f("documentationUrl", "documentation_url", String, Optional),
        f("iconUrl", "icon_url", String, Optional),
        f("name", "name", String, Required),
        f(
            "preferredTransport",
            "preferred_transport",
            String,
            Default("JSONRPC"),
        ),
        f("protocolVersion", "protocol_version", String, Default("0.3.0")),
        f("provider", "provider", Message(&AGENT_PROVIDER_03), Optional),
        f("security", "security", RepeatedMapStringList, Optional),
        f(
            "securitySchemes",
            "security_schemes",
            MapByType(SECURITY_SCHEMES_03),
            Optional,
        ),
        f("signatures", "signatures", Struct, Optional),
        f("skills", "skills", RepeatedMessage(&AGENT_SKILL_03), Required),
        f(
            "supportsAuthenticatedExtendedCard",
            "supports_authenticated_extended_card",
            Bool,
            Optional,
        ),
        f("url", "url", String, Required),
        f("version", "version", String, Required),
    ],
};

/// `AgentInterface` (line 96).
pub static AGENT_INTERFACE_03: MessageDesc = MessageDesc {
    name: "AgentInterface",
    fields: &[
        f("transport", "transport", String, Required),
        f("url", "url", String, Required),
    ],
};

/// `AgentCapabilities` (line 1089).
pub static AGENT_CAPABILITIES_03: MessageDesc = MessageDesc {
    name: "AgentCapabilities",
    fields: &[
        f(
            "extensions",
            "extensions",
            RepeatedMessage(&AGENT_EXTENSION_03),
            Optional,
        ),
        f("pushNotifications", "push_notifications", Bool, Optional),
        f(
            "stateTransitionHistory",
            "state_transition_history",
            Bool,
            Optional,
        ),
        f("streaming", "streaming", Bool, Optional),
    ],
};

/// `AgentProvider` (line 119).
pub static AGENT_PROVIDER_03: MessageDesc = MessageDesc {
    name: "AgentProvider",
    fields: &[
        f("organization", "organization", String, Required),
        f("url", "url", String, Required),
    ],
};

/// `AgentExtension` (line 72). `params` is `dict[str, Any]`: any JSON object.
pub static AGENT_EXTENSION_03: MessageDesc = MessageDesc {
    name: "AgentExtension",
    fields: &[
        f("description", "description", String, Optional),
        f("params", "params", Struct, Optional),
        f("required", "required", Bool, Optional),
        f("uri", "uri", String, Required),
    ],
};

/// `AgentSkill` (line 134).
pub static AGENT_SKILL_03: MessageDesc = MessageDesc {
    name: "AgentSkill",
    fields: &[
        f("description", "description", String, Required),
        f("examples", "examples", RepeatedString, Optional),
        f("id", "id", String, Required),
        f("inputModes", "input_modes", RepeatedString, Optional),
        f("name", "name", String, Required),
        f("outputModes", "output_modes", RepeatedString, Optional),
        f("security", "security", RepeatedMapStringList, Optional),
        f("tags", "tags", RepeatedString, Required),
    ],
};

/// The five members of the `SecurityScheme` union (line 1524), in its order.
pub static SECURITY_SCHEMES_03: &[&MessageDesc] = &[
    &API_KEY_SECURITY_SCHEME_03,
    &HTTP_AUTH_SECURITY_SCHEME_03,
    &OAUTH2_SECURITY_SCHEME_03,
    &OPEN_ID_CONNECT_SECURITY_SCHEME_03,
    &MUTUAL_TLS_SECURITY_SCHEME_03,
];

/// `APIKeySecurityScheme` (line 28). `in` is the enum `In` (cookie, header, query).
pub static API_KEY_SECURITY_SCHEME_03: MessageDesc = MessageDesc {
    name: "APIKeySecurityScheme",
    fields: &[
        f("description", "description", String, Optional),
        f("in", "in_", String, Required),
        f("name", "name", String, Required),
        f("type", "type", String, Default("apiKey")),
    ],
};

/// `HTTPAuthSecurityScheme` (line 447).
pub static HTTP_AUTH_SECURITY_SCHEME_03: MessageDesc = MessageDesc {
    name: "HTTPAuthSecurityScheme",
    fields: &[
        f("bearerFormat", "bearer_format", String, Optional),
        f("description", "description", String, Optional),
        f("scheme", "scheme", String, Required),
        f("type", "type", String, Default("http")),
    ],
};

/// `OAuth2SecurityScheme` (line 1500).
pub static OAUTH2_SECURITY_SCHEME_03: MessageDesc = MessageDesc {
    name: "OAuth2SecurityScheme",
    fields: &[
        f("description", "description", String, Optional),
        f("flows", "flows", Message(&OAUTH_FLOWS_03), Required),
        f("oauth2MetadataUrl", "oauth2_metadata_url", String, Optional),
        f("type", "type", String, Default("oauth2")),
    ],
};

/// `OpenIdConnectSecurityScheme` (line 757).
pub static OPEN_ID_CONNECT_SECURITY_SCHEME_03: MessageDesc = MessageDesc {
    name: "OpenIdConnectSecurityScheme",
    fields: &[
        f("description", "description", String, Optional),
        f("openIdConnectUrl", "open_id_connect_url", String, Required),
        f("type", "type", String, Default("openIdConnect")),
    ],
};

/// `MutualTLSSecurityScheme` (line 742).
pub static MUTUAL_TLS_SECURITY_SCHEME_03: MessageDesc = MessageDesc {
    name: "MutualTLSSecurityScheme",
    fields: &[
        f("description", "description", String, Optional),
        f("type", "type", String, Default("mutualTLS")),
    ],
};

/// `OAuthFlows` (line 1297): four optional flows (no oneof in the 0.3 model).
pub static OAUTH_FLOWS_03: MessageDesc = MessageDesc {
    name: "OAuthFlows",
    fields: &[
        f(
            "authorizationCode",
            "authorization_code",
            Message(&AUTHORIZATION_CODE_OAUTH_FLOW_03),
            Optional,
        ),
        f(
            "clientCredentials",
            "client_credentials",
            Message(&CLIENT_CREDENTIALS_OAUTH_FLOW_03),
            Optional,
        ),
        f("implicit", "implicit", Message(&IMPLICIT_OAUTH_FLOW_03), Optional),
        f("password", "password", Message(&PASSWORD_OAUTH_FLOW_03), Optional),
    ],
};

/// `AuthorizationCodeOAuthFlow` (line 204).
pub static AUTHORIZATION_CODE_OAUTH_FLOW_03: MessageDesc = MessageDesc {
    name: "AuthorizationCodeOAuthFlow",
    fields: &[
        f("authorizationUrl", "authorization_url", String, Required),
        f("refreshUrl", "refresh_url", String, Optional),
        f("scopes", "scopes", MapString, Required),
        f("tokenUrl", "token_url", String, Required),
    ],
};

/// `ClientCredentialsOAuthFlow` (line 231).
pub static CLIENT_CREDENTIALS_OAUTH_FLOW_03: MessageDesc = MessageDesc {
    name: "ClientCredentialsOAuthFlow",
    fields: &[
        f("refreshUrl", "refresh_url", String, Optional),
        f("scopes", "scopes", MapString, Required),
        f("tokenUrl", "token_url", String, Required),
    ],
};

/// `ImplicitOAuthFlow` (line 473).
pub static IMPLICIT_OAUTH_FLOW_03: MessageDesc = MessageDesc {
    name: "ImplicitOAuthFlow",
    fields: &[
        f("authorizationUrl", "authorization_url", String, Required),
        f("refreshUrl", "refresh_url", String, Optional),
        f("scopes", "scopes", MapString, Required),
    ],
};

/// `PasswordOAuthFlow` (line 787).
pub static PASSWORD_OAUTH_FLOW_03: MessageDesc = MessageDesc {
    name: "PasswordOAuthFlow",
    fields: &[
        f("refreshUrl", "refresh_url", String, Optional),
        f("scopes", "scopes", MapString, Required),
        f("tokenUrl", "token_url", String, Required),
    ],
};

/// Every message of the 0.3 model, for exhaustive tests.
pub static ALL_MESSAGES_03: &[&MessageDesc] = &[
    &AGENT_CARD_03,
    &AGENT_INTERFACE_03,
    &AGENT_CAPABILITIES_03,
    &AGENT_PROVIDER_03,
    &AGENT_EXTENSION_03,
    &AGENT_SKILL_03,
    &API_KEY_SECURITY_SCHEME_03,
    &HTTP_AUTH_SECURITY_SCHEME_03,
    &OAUTH2_SECURITY_SCHEME_03,
    &OPEN_ID_CONNECT_SECURITY_SCHEME_03,
    &MUTUAL_TLS_SECURITY_SCHEME_03,
    &OAUTH_FLOWS_03,
    &AUTHORIZATION_CODE_OAUTH_FLOW_03,
    &CLIENT_CREDENTIALS_OAUTH_FLOW_03,
    &IMPLICIT_OAUTH_FLOW_03,
    &PASSWORD_OAUTH_FLOW_03,
];

/// The `type` default of a union member: the value that selects it.
pub(crate) fn type_of(desc: &MessageDesc) -> &'static str {
    match desc.field("type") {
        Some((
            FieldDesc {
                presence: Default(t), ..
            },
            _,
        )) => t,
        _ => "",
    }
}

/// The members of the 0.3 model the signed bytes of these profiles may hold that have no meaning
/// in A2A v1.0 (nothing replaces them, `LEGACY` of `table.rs`), as JSON Pointers into those bytes.
pub(crate) const WITHOUT_V1_MEANING: &[&str] = &["/capabilities/stateTransitionHistory"];

/// What a verification report adds to its reason when the signature verified covers bytes of an
/// a2a-sdk 0.3 profile (`bytes`): that they are an A2A 0.3 card, and which of their members have
/// no A2A v1.0 meaning.
pub(crate) fn covered_note(bytes: &[u8]) -> std::string::String {
    let value = super::parse_json(bytes, &super::Limits::default()).unwrap_or_default();
    let without: Vec<&str> = WITHOUT_V1_MEANING
        .iter()
        .copied()
        .filter(|p| value.pointer(p).is_some())
        .collect();
    let mut note = "; the signed bytes are an A2A 0.3 card as the a2a-sdk 0.3 model reads it".to_string();
    if !without.is_empty() {
        note.push_str(&format!(
            " (covered, with no A2A v1.0 meaning: {})",
            without.join(", ")
        ));
    }
    note
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checked against the line numbers named above: the signature header is excluded by the
    /// signer, so `signatures` needs no rows of its own.
    #[test]
    fn every_union_member_has_its_type_default() {
        let types: Vec<&str> = SECURITY_SCHEMES_03.iter().map(|d| type_of(d)).collect();
        assert_eq!(types, ["apiKey", "http", "oauth2", "openIdConnect", "mutualTLS"]);
    }

    #[test]
    fn aliases_need_no_escape_and_are_sorted() {
        for desc in ALL_MESSAGES_03 {
            for f in desc.fields {
                assert!(
                    f.json.bytes().all(|b| b.is_ascii_alphanumeric()),
                    "{}.{}",
                    desc.name,
                    f.json
                );
            }
            assert!(
                desc.fields.windows(2).all(|w| w[0].json < w[1].json),
                "{}",
                desc.name
            );
        }
    }
}
