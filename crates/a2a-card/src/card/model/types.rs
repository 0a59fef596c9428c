//! One Rust type per A2A v1.0 proto message reachable from `AgentCard`, with serde (the
//! ProtoJSON form, presence kept) and schemars.

use schemars::JsonSchema;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A JSON object: the model of `google.protobuf.Struct`, canonicalized by RFC 8785 only.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// Reads `null` as the type's default: `null` means absent, and an absent implicit-presence
/// field is its default.
pub(super) fn null_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

pub(super) fn is_false(b: &bool) -> bool {
    !*b
}

// ---------------------------------------------------------------------------------------------
// The messages
// ---------------------------------------------------------------------------------------------

/// A self-describing manifest of an agent: who it is, where and how to reach it, what it can do
/// and how clients authenticate (A2A v1.0 `AgentCard`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "AgentCard", rename_all = "camelCase")]
pub struct AgentCard {
    /// REQUIRED. A human-readable name of the agent, e.g. "Recipe Agent".
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub name: Option<String>,
    /// REQUIRED. What the agent does, for people and for other agents choosing it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub description: Option<String>,
    /// REQUIRED (at least one). The endpoints of the agent, each with its protocol binding and
    /// protocol version; the first is the preferred one.
    #[serde(skip_serializing_if = "Option::is_none", alias = "supported_interfaces")]
    #[schemars(with = "Vec<AgentInterface>", length(min = 1))]
    pub supported_interfaces: Option<Vec<AgentInterface>>,
    /// The organization that provides the agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<AgentProvider>,
    /// REQUIRED. The version of the agent itself (not of the protocol), e.g. "1.0.0".
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub version: Option<String>,
    /// A URL of documentation about the agent (`optional`: kept when set, even to "").
    #[serde(skip_serializing_if = "Option::is_none", alias = "documentation_url")]
    pub documentation_url: Option<String>,
    /// REQUIRED. The optional protocol features the agent supports.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "AgentCapabilities")]
    pub capabilities: Option<AgentCapabilities>,
    /// The security schemes a client may use, by name; security requirements refer to these
    /// names.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "null_default",
        alias = "security_schemes"
    )]
    #[schemars(with = "Option<BTreeMap<String, SecurityScheme>>")]
    pub security_schemes: BTreeMap<String, SecurityScheme>,
    /// The security requirements for contacting the agent: any one of them must be met.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default",
        alias = "security_requirements"
    )]
    #[schemars(with = "Option<Vec<SecurityRequirement>>")]
    pub security_requirements: Vec<SecurityRequirement>,
    /// REQUIRED (at least one). Media types the agent accepts as input, for all skills unless a
    /// skill says otherwise.
    #[serde(skip_serializing_if = "Option::is_none", alias = "default_input_modes")]
    #[schemars(with = "Vec<String>", length(min = 1))]
    pub default_input_modes: Option<Vec<String>>,
    /// REQUIRED (at least one). Media types the agent produces as output, for all skills unless
    /// a skill says otherwise.
    #[serde(skip_serializing_if = "Option::is_none", alias = "default_output_modes")]
    #[schemars(with = "Vec<String>", length(min = 1))]
    pub default_output_modes: Option<Vec<String>>,
    /// REQUIRED (at least one). The abilities of the agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<AgentSkill>", length(min = 1))]
    pub skills: Option<Vec<AgentSkill>>,
    /// JWS signatures over the card's canonical form (never part of what they sign).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    #[schemars(with = "Option<Vec<AgentCardSignature>>")]
    pub signatures: Vec<AgentCardSignature>,
    /// A URL of an icon for the agent (`optional`: kept when set, even to "").
    #[serde(skip_serializing_if = "Option::is_none", alias = "icon_url")]
    pub icon_url: Option<String>,
}

/// One way to reach the agent: a URL, the protocol binding spoken there and the A2A version
/// (A2A v1.0 `AgentInterface`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "AgentInterface", rename_all = "camelCase")]
pub struct AgentInterface {
    /// REQUIRED. The absolute URL of the interface (HTTPS in production).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub url: Option<String>,
    /// REQUIRED. The protocol binding at this URL: an open set whose core values are `JSONRPC`,
    /// `GRPC` and `HTTP+JSON`.
    #[serde(skip_serializing_if = "Option::is_none", alias = "protocol_binding")]
    #[schemars(with = "String")]
    pub protocol_binding: Option<String>,
    /// The tenant to name in requests to this interface.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    #[schemars(with = "Option<String>")]
    pub tenant: String,
    /// REQUIRED. The A2A protocol version this interface speaks, e.g. "1.0".
    #[serde(skip_serializing_if = "Option::is_none", alias = "protocol_version")]
    #[schemars(with = "String")]
    pub protocol_version: Option<String>,
}

/// The organization behind the agent (A2A v1.0 `AgentProvider`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "AgentProvider", rename_all = "camelCase")]
pub struct AgentProvider {
    /// REQUIRED. A URL of the provider's website or documentation.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub url: Option<String>,
    /// REQUIRED. The provider's organization name.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub organization: Option<String>,
}

/// Optional protocol features the agent supports (A2A v1.0 `AgentCapabilities`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "AgentCapabilities", rename_all = "camelCase")]
pub struct AgentCapabilities {
    /// Whether the agent streams responses (`optional`: `false` is kept when set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub streaming: Option<bool>,
    /// Whether the agent sends push notifications about task updates (`optional`).
    #[serde(skip_serializing_if = "Option::is_none", alias = "push_notifications")]
    pub push_notifications: Option<bool>,
    /// The protocol extensions the agent supports.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    #[schemars(with = "Option<Vec<AgentExtension>>")]
    pub extensions: Vec<AgentExtension>,
    /// Whether an authenticated client can get an extended card (`optional`).
    #[serde(skip_serializing_if = "Option::is_none", alias = "extended_agent_card")]
    pub extended_agent_card: Option<bool>,
}

/// A protocol extension the agent supports (A2A v1.0 `AgentExtension`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "AgentExtension", rename_all = "camelCase")]
pub struct AgentExtension {
    /// The URI that identifies the extension.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    #[schemars(with = "Option<String>")]
    pub uri: String,
    /// How this agent uses the extension.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    #[schemars(with = "Option<String>")]
    pub description: String,
    /// Whether a client must understand the extension to talk to the agent.
    #[serde(default, skip_serializing_if = "is_false", deserialize_with = "null_default")]
    #[schemars(with = "Option<bool>")]
    pub required: bool,
    /// Extension-specific parameters (a `google.protobuf.Struct`: any JSON object, kept when
    /// set, even empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<JsonObject>,
}

/// A focused ability of the agent (A2A v1.0 `AgentSkill`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "AgentSkill", rename_all = "camelCase")]
pub struct AgentSkill {
    /// REQUIRED. The skill's identifier, unique within the card.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub id: Option<String>,
    /// REQUIRED. A human-readable name of the skill.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub name: Option<String>,
    /// REQUIRED. What the skill does, in detail.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub description: Option<String>,
    /// REQUIRED (at least one). Keywords that describe the skill.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<String>", length(min = 1))]
    pub tags: Option<Vec<String>>,
    /// Example prompts or scenarios the skill handles.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    #[schemars(with = "Option<Vec<String>>")]
    pub examples: Vec<String>,
    /// Input media types of this skill, replacing the card's defaults.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default",
        alias = "input_modes"
    )]
    #[schemars(with = "Option<Vec<String>>")]
    pub input_modes: Vec<String>,
    /// Output media types of this skill, replacing the card's defaults.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default",
        alias = "output_modes"
    )]
    #[schemars(with = "Option<Vec<String>>")]
    pub output_modes: Vec<String>,
    /// The security requirements of this skill: any one of them must be met.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default",
        alias = "security_requirements"
    )]
    #[schemars(with = "Option<Vec<SecurityRequirement>>")]
    pub security_requirements: Vec<SecurityRequirement>,
}

/// One JWS signature over the card (A2A v1.0 `AgentCardSignature`, the JSON serialization of
/// RFC 7515 without the payload).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "AgentCardSignature", rename_all = "camelCase")]
pub struct AgentCardSignature {
    /// REQUIRED. The protected header: base64url of its JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub protected: Option<String>,
    /// REQUIRED. The signature, base64url.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub signature: Option<String>,
    /// The unprotected header (a `google.protobuf.Struct`: any JSON object).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<JsonObject>,
}

/// A list of strings: the scopes one security scheme needs (A2A v1.0 `StringList`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "StringList", rename_all = "camelCase")]
pub struct StringList {
    /// The strings (scopes); may be empty.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    #[schemars(with = "Option<Vec<String>>")]
    pub list: Vec<String>,
}

/// One way of meeting the security needs: every named scheme with the listed scopes (A2A v1.0
/// `SecurityRequirement`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "SecurityRequirement", rename_all = "camelCase")]
pub struct SecurityRequirement {
    /// Scheme names (keys of the card's `securitySchemes`) and the scopes each needs.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "null_default"
    )]
    #[schemars(with = "Option<BTreeMap<String, StringList>>")]
    pub schemes: BTreeMap<String, StringList>,
}

/// How a client authenticates (A2A v1.0 `SecurityScheme`, a oneof): exactly one scheme, written
/// as a one-member object named after it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename = "SecurityScheme")]
pub enum SecurityScheme {
    /// An API key in a header, query parameter or cookie.
    #[serde(rename = "apiKeySecurityScheme")]
    ApiKey(ApiKeySecurityScheme),
    /// HTTP authentication (Basic, Bearer, ...).
    #[serde(rename = "httpAuthSecurityScheme")]
    HttpAuth(HttpAuthSecurityScheme),
    /// OAuth 2.0.
    #[serde(rename = "oauth2SecurityScheme")]
    OAuth2(OAuth2SecurityScheme),
    /// OpenID Connect.
    #[serde(rename = "openIdConnectSecurityScheme")]
    OpenIdConnect(OpenIdConnectSecurityScheme),
    /// Mutual TLS.
    #[serde(rename = "mtlsSecurityScheme")]
    MutualTls(MutualTlsSecurityScheme),
}

/// An API key (A2A v1.0 `APIKeySecurityScheme`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "APIKeySecurityScheme", rename_all = "camelCase")]
pub struct ApiKeySecurityScheme {
    /// A description of the scheme.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    #[schemars(with = "Option<String>")]
    pub description: String,
    /// REQUIRED. Where the key goes: `query`, `header` or `cookie`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", extend("enum" = ["query", "header", "cookie"]))]
    pub location: Option<String>,
    /// REQUIRED. The name of the header, query parameter or cookie.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub name: Option<String>,
}

/// HTTP authentication (A2A v1.0 `HTTPAuthSecurityScheme`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "HTTPAuthSecurityScheme", rename_all = "camelCase")]
pub struct HttpAuthSecurityScheme {
    /// A description of the scheme.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    #[schemars(with = "Option<String>")]
    pub description: String,
    /// REQUIRED. The HTTP authentication scheme of the Authorization header (IANA registry),
    /// e.g. "Bearer".
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub scheme: Option<String>,
    /// A hint at the bearer token's format, e.g. "JWT".
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default",
        alias = "bearer_format"
    )]
    #[schemars(with = "Option<String>")]
    pub bearer_format: String,
}

/// OAuth 2.0 (A2A v1.0 `OAuth2SecurityScheme`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "OAuth2SecurityScheme", rename_all = "camelCase")]
pub struct OAuth2SecurityScheme {
    /// A description of the scheme.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    #[schemars(with = "Option<String>")]
    pub description: String,
    /// REQUIRED. The OAuth 2.0 flow the agent supports.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "OAuthFlows")]
    pub flows: Option<OAuthFlows>,
    /// The URL of the authorization server's RFC 8414 metadata.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default",
        alias = "oauth2_metadata_url"
    )]
    #[schemars(with = "Option<String>")]
    pub oauth2_metadata_url: String,
}

/// OpenID Connect (A2A v1.0 `OpenIdConnectSecurityScheme`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "OpenIdConnectSecurityScheme", rename_all = "camelCase")]
pub struct OpenIdConnectSecurityScheme {
    /// A description of the scheme.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    #[schemars(with = "Option<String>")]
    pub description: String,
    /// REQUIRED. The OpenID Connect Discovery URL of the provider's metadata.
    #[serde(skip_serializing_if = "Option::is_none", alias = "open_id_connect_url")]
    #[schemars(with = "String")]
    pub open_id_connect_url: Option<String>,
}

/// Mutual TLS (A2A v1.0 `MutualTlsSecurityScheme`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "MutualTlsSecurityScheme", rename_all = "camelCase")]
pub struct MutualTlsSecurityScheme {
    /// A description of the scheme.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    #[schemars(with = "Option<String>")]
    pub description: String,
}

/// The OAuth 2.0 flow of an OAuth2 scheme (A2A v1.0 `OAuthFlows`, a oneof): exactly one flow,
/// written as a one-member object named after it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename = "OAuthFlows")]
pub enum OAuthFlows {
    /// The authorization code flow.
    #[serde(rename = "authorizationCode")]
    AuthorizationCode(AuthorizationCodeOAuthFlow),
    /// The client credentials flow.
    #[serde(rename = "clientCredentials")]
    ClientCredentials(ClientCredentialsOAuthFlow),
    /// The implicit flow (deprecated in A2A v1.0: use authorization code with PKCE).
    #[serde(rename = "implicit")]
    Implicit(ImplicitOAuthFlow),
    /// The resource owner password flow (deprecated in A2A v1.0).
    #[serde(rename = "password")]
    Password(PasswordOAuthFlow),
    /// The device code flow (RFC 8628).
    #[serde(rename = "deviceCode")]
    DeviceCode(DeviceCodeOAuthFlow),
}

/// The OAuth 2.0 authorization code flow (A2A v1.0 `AuthorizationCodeOAuthFlow`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "AuthorizationCodeOAuthFlow", rename_all = "camelCase")]
pub struct AuthorizationCodeOAuthFlow {
    /// REQUIRED. The authorization endpoint URL.
    #[serde(skip_serializing_if = "Option::is_none", alias = "authorization_url")]
    #[schemars(with = "String")]
    pub authorization_url: Option<String>,
    /// REQUIRED. The token endpoint URL.
    #[serde(skip_serializing_if = "Option::is_none", alias = "token_url")]
    #[schemars(with = "String")]
    pub token_url: Option<String>,
    /// The URL for refreshing tokens.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default",
        alias = "refresh_url"
    )]
    #[schemars(with = "Option<String>")]
    pub refresh_url: String,
    /// REQUIRED. The available scopes, each with a short description (may be empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "BTreeMap<String, String>")]
    pub scopes: Option<BTreeMap<String, String>>,
    /// Whether PKCE (RFC 7636) is required.
    #[serde(
        default,
        skip_serializing_if = "is_false",
        deserialize_with = "null_default",
        alias = "pkce_required"
    )]
    #[schemars(with = "Option<bool>")]
    pub pkce_required: bool,
}

/// The OAuth 2.0 client credentials flow (A2A v1.0 `ClientCredentialsOAuthFlow`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "ClientCredentialsOAuthFlow", rename_all = "camelCase")]
pub struct ClientCredentialsOAuthFlow {
    /// REQUIRED. The token endpoint URL.
    #[serde(skip_serializing_if = "Option::is_none", alias = "token_url")]
    #[schemars(with = "String")]
    pub token_url: Option<String>,
    /// The URL for refreshing tokens.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default",
        alias = "refresh_url"
    )]
    #[schemars(with = "Option<String>")]
    pub refresh_url: String,
    /// REQUIRED. The available scopes, each with a short description (may be empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "BTreeMap<String, String>")]
    pub scopes: Option<BTreeMap<String, String>>,
}

/// The OAuth 2.0 implicit flow (A2A v1.0 `ImplicitOAuthFlow`, deprecated).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "ImplicitOAuthFlow", rename_all = "camelCase")]
pub struct ImplicitOAuthFlow {
    /// The authorization endpoint URL.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default",
        alias = "authorization_url"
    )]
    #[schemars(with = "Option<String>")]
    pub authorization_url: String,
    /// The URL for refreshing tokens.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default",
        alias = "refresh_url"
    )]
    #[schemars(with = "Option<String>")]
    pub refresh_url: String,
    /// The available scopes, each with a short description.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "null_default"
    )]
    #[schemars(with = "Option<BTreeMap<String, String>>")]
    pub scopes: BTreeMap<String, String>,
}

/// The OAuth 2.0 resource owner password flow (A2A v1.0 `PasswordOAuthFlow`, deprecated).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "PasswordOAuthFlow", rename_all = "camelCase")]
pub struct PasswordOAuthFlow {
    /// The token endpoint URL.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default",
        alias = "token_url"
    )]
    #[schemars(with = "Option<String>")]
    pub token_url: String,
    /// The URL for refreshing tokens.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default",
        alias = "refresh_url"
    )]
    #[schemars(with = "Option<String>")]
    pub refresh_url: String,
    /// The available scopes, each with a short description.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "null_default"
    )]
    #[schemars(with = "Option<BTreeMap<String, String>>")]
    pub scopes: BTreeMap<String, String>,
}

/// The OAuth 2.0 device code flow, RFC 8628 (A2A v1.0 `DeviceCodeOAuthFlow`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "DeviceCodeOAuthFlow", rename_all = "camelCase")]
pub struct DeviceCodeOAuthFlow {
    /// REQUIRED. The device authorization endpoint URL.
    #[serde(skip_serializing_if = "Option::is_none", alias = "device_authorization_url")]
    #[schemars(with = "String")]
    pub device_authorization_url: Option<String>,
    /// REQUIRED. The token endpoint URL.
    #[serde(skip_serializing_if = "Option::is_none", alias = "token_url")]
    #[schemars(with = "String")]
    pub token_url: Option<String>,
    /// The URL for refreshing tokens.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default",
        alias = "refresh_url"
    )]
    #[schemars(with = "Option<String>")]
    pub refresh_url: String,
    /// REQUIRED. The available scopes, each with a short description (may be empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "BTreeMap<String, String>")]
    pub scopes: Option<BTreeMap<String, String>>,
}

// ---------------------------------------------------------------------------------------------
// The oneofs: read as ProtoJSON reads them
// ---------------------------------------------------------------------------------------------

/// Deserializes a oneof enum from its wrapper object: exactly one known member set (a `null`
/// member is absent), unknown members ignored, proto names accepted.
macro_rules! oneof_deserialize {
    ($ty:ident, $proto:literal, [$(($json:literal, $alias:literal, $variant:ident, $inner:ty)),* $(,)?]) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str(concat!("a ", $proto, " object with exactly one member set"))
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<$ty, A::Error> {
                        let mut found: Option<(String, $ty)> = None;
                        while let Some(key) = map.next_key::<String>()? {
                            // One-word names are their own proto names.
                            #[allow(unreachable_patterns)]
                            let value: Option<$ty> = match key.as_str() {
                                $(
                                    $json | $alias => map.next_value::<Option<$inner>>()?.map($ty::$variant),
                                )*
                                _ => {
                                    map.next_value::<IgnoredAny>()?;
                                    None
                                }
                            };
                            if let Some(v) = value {
                                if let Some((first, _)) = &found {
                                    return Err(de::Error::custom(format!(
                                        concat!($proto, " sets both {:?} and {:?}; exactly one member of the oneof may be set"),
                                        first, key
                                    )));
                                }
                                found = Some((key, v));
                            }
                        }
                        found.map(|(_, v)| v).ok_or_else(|| {
                            de::Error::custom(concat!($proto, " sets none of its members; exactly one must be set"))
                        })
                    }
                }
                d.deserialize_map(V)
            }
        }
    };
}

oneof_deserialize!(
    SecurityScheme,
    "SecurityScheme",
    [
        (
            "apiKeySecurityScheme",
            "api_key_security_scheme",
            ApiKey,
            ApiKeySecurityScheme
        ),
        (
            "httpAuthSecurityScheme",
            "http_auth_security_scheme",
            HttpAuth,
            HttpAuthSecurityScheme
        ),
        (
            "oauth2SecurityScheme",
            "oauth2_security_scheme",
            OAuth2,
            OAuth2SecurityScheme
        ),
        (
            "openIdConnectSecurityScheme",
            "open_id_connect_security_scheme",
            OpenIdConnect,
            OpenIdConnectSecurityScheme
        ),
        (
            "mtlsSecurityScheme",
            "mtls_security_scheme",
            MutualTls,
            MutualTlsSecurityScheme
        ),
    ]
);

oneof_deserialize!(
    OAuthFlows,
    "OAuthFlows",
    [
        (
            "authorizationCode",
            "authorization_code",
            AuthorizationCode,
            AuthorizationCodeOAuthFlow
        ),
        (
            "clientCredentials",
            "client_credentials",
            ClientCredentials,
            ClientCredentialsOAuthFlow
        ),
        ("implicit", "implicit", Implicit, ImplicitOAuthFlow),
        ("password", "password", Password, PasswordOAuthFlow),
        ("deviceCode", "device_code", DeviceCode, DeviceCodeOAuthFlow),
    ]
);
