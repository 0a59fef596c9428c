//! A typed model of the A2A v1.0 `AgentCard` tree, a builder for each message, and the JSON
//! Schema of the card generated from the model.
//!
//! The model follows the presence table of [`crate::schema`] (written from `a2a.proto` v1.0), so
//! that serializing a value keeps the presence semantics the canonical form depends on:
//!
//! - REQUIRED fields, `optional` fields and message fields are `Option`s: `None` is left out,
//!   `Some` is written even at its default (`Some(false)`, `Some("")`, `Some(vec![])`).
//! - Implicit-presence scalars, lists and maps are plain values, left out at their default
//!   (`""`, `false`, `[]`, `{}`).
//! - `google.protobuf.Struct` values (extension `params`, signature `header`) are JSON objects.
//! - The oneofs `SecurityScheme` and `OAuthFlows` are enums, written as the one-member wrapper
//!   object ProtoJSON uses (`{"apiKeySecurityScheme": {...}}`).
//!
//! A card built in code therefore canonicalizes exactly like the same card read from JSON.
//! Reading accepts what the canonical reader accepts: proto names as aliases, `null` as absent,
//! members the schema does not know (which the model drops, as the default `exclude` does).
//!
//! Build, sign, verify and serialize a card:
//!
//! ```
//! use a2a_card::model::{AgentCapabilities, AgentCard, AgentInterface, AgentSkill};
//! use a2a_card::{alg::Algorithm, keys::PrivateKey, trust::TrustStore};
//! use a2a_card::{verify_card, SignOptions, VerifyOptions};
//!
//! let card = AgentCard::builder()
//!     .name("Recipe Agent")
//!     .description("Finds and adapts recipes")
//!     .version("1.0.0")
//!     .supported_interface(
//!         AgentInterface::builder()
//!             .url("https://recipes.example/a2a")
//!             .protocol_binding("JSONRPC")
//!             .protocol_version("1.0")
//!             .build()?,
//!     )
//!     .capabilities(AgentCapabilities::builder().streaming(false).build()?)
//!     .default_input_modes(["text/plain"])
//!     .default_output_modes(["text/plain"])
//!     .skill(
//!         AgentSkill::builder()
//!             .id("find")
//!             .name("Find a recipe")
//!             .description("Searches recipes by ingredient")
//!             .tags(["cooking"])
//!             .build()?,
//!     )
//!     .build()?;
//!
//! let key = PrivateKey::generate(Algorithm::EdDSA)?;
//! let signed = card.sign(&key, &SignOptions::default())?;
//! let mut trust = TrustStore::new();
//! trust.pin(key.public().clone(), "pinned");
//! assert!(verify_card(&signed.card, &trust, &VerifyOptions::default())?.ok);
//!
//! // The signed card read back into the model; `streaming: false` was kept and signed.
//! let back = AgentCard::from_json(&signed.card)?;
//! assert_eq!(back.signatures.len(), 1);
//! assert_eq!(back.capabilities.as_ref().and_then(|c| c.streaming), Some(false));
//! let json = String::from_utf8(back.to_json()?).unwrap();
//! assert!(json.contains(r#""capabilities":{"streaming":false}"#));
//! # Ok::<(), a2a_card::Error>(())
//! ```

use crate::error::{pointer_token, Error, ErrorCode};
use crate::keys::PrivateKey;
use crate::presence::{canonicalize_value, Canonical, CanonicalizeOptions};
use crate::schema::{self as table, Kind, MessageDesc, Presence};
use crate::sign::{sign_card, SignOptions, Signed};
use schemars::JsonSchema;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A JSON object: the model of `google.protobuf.Struct`, canonicalized by RFC 8785 only.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// Reads `null` as the type's default: `null` means absent, and an absent implicit-presence
/// field is its default.
fn null_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

fn is_false(b: &bool) -> bool {
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

// ---------------------------------------------------------------------------------------------
// Checking REQUIRED members, against the presence table
// ---------------------------------------------------------------------------------------------

/// The values `APIKeySecurityScheme.location` may take.
pub const API_KEY_LOCATIONS: [&str; 3] = ["query", "header", "cookie"];

fn missing_error(desc: &MessageDesc, field: &str, ptr: &str) -> Error {
    Error::new(
        ErrorCode::MalformedCard,
        format!("{}.{field} is REQUIRED by A2A v1.0 but is not set", desc.name),
    )
    .at(ptr)
}

/// Walks a serialized message with its row of the presence table: the first REQUIRED member
/// that is absent, a REQUIRED list that is empty (A2A v1.0 section 5.7: "Arrays marked as
/// required MUST contain at least one element"), or an API key location outside its set.
fn check_message(
    value: &serde_json::Value,
    desc: &'static MessageDesc,
    ptr: &mut String,
) -> Result<(), Error> {
    let serde_json::Value::Object(members) = value else {
        return Ok(());
    };
    for field in desc.fields {
        let mark = ptr.len();
        ptr.push('/');
        ptr.push_str(&pointer_token(field.json));
        let result = match members.get(field.json) {
            None if field.presence == Presence::Required => Err(missing_error(desc, field.json, ptr)),
            None => Ok(()),
            Some(v) => check_value(v, desc, field.json, field.kind, field.presence, ptr),
        };
        ptr.truncate(mark);
        result?;
    }
    Ok(())
}

fn check_value(
    v: &serde_json::Value,
    desc: &'static MessageDesc,
    name: &str,
    kind: Kind,
    presence: Presence,
    ptr: &mut String,
) -> Result<(), Error> {
    if std::ptr::eq(desc, &table::API_KEY_SECURITY_SCHEME) && name == "location" {
        if let Some(s) = v.as_str() {
            if !API_KEY_LOCATIONS.contains(&s) {
                return Err(Error::new(
                    ErrorCode::MalformedCard,
                    format!("APIKeySecurityScheme.location is {s:?}; A2A v1.0 allows \"query\", \"header\" or \"cookie\""),
                )
                .at(ptr.as_str()));
            }
        }
    }
    match (kind, v) {
        (Kind::Message(inner), _) => check_message(v, inner, ptr),
        (Kind::RepeatedString | Kind::RepeatedMessage(_), serde_json::Value::Array(items)) => {
            if items.is_empty() && presence == Presence::Required {
                return Err(Error::new(
                    ErrorCode::MalformedCard,
                    format!(
                        "{}.{name} is a REQUIRED list and must hold at least one element (A2A v1.0 section 5.7)",
                        desc.name
                    ),
                )
                .at(ptr.as_str()));
            }
            if let Kind::RepeatedMessage(inner) = kind {
                for (i, item) in items.iter().enumerate() {
                    let mark = ptr.len();
                    ptr.push('/');
                    ptr.push_str(&i.to_string());
                    let r = check_message(item, inner, ptr);
                    ptr.truncate(mark);
                    r?;
                }
            }
            Ok(())
        }
        (Kind::MapMessage(inner), serde_json::Value::Object(entries)) => {
            for (k, item) in entries {
                let mark = ptr.len();
                ptr.push('/');
                ptr.push_str(&pointer_token(k));
                let r = check_message(item, inner, ptr);
                ptr.truncate(mark);
                r?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The first `SecurityScheme` or `OAuthFlows` object (walking a card the canonical reader
/// accepted) that sets none of its oneof's members, with its JSON Pointer: the model cannot hold
/// it, and serde would not say where it is.
fn empty_oneof(
    v: &crate::json::Value,
    desc: &'static MessageDesc,
    ptr: &mut String,
) -> Option<(&'static str, String)> {
    use crate::json::Value as J;
    let J::Object(members) = v else {
        return None;
    };
    let is_oneof = !desc.fields.is_empty() && desc.fields.iter().all(|f| f.oneof.is_some());
    if is_oneof
        && !members
            .iter()
            .any(|(k, v)| desc.field(k).is_some() && !matches!(v, J::Null))
    {
        return Some((desc.name, ptr.clone()));
    }
    for (name, child) in members {
        let Some((field, _)) = desc.field(name) else {
            continue;
        };
        let mark = ptr.len();
        ptr.push('/');
        ptr.push_str(&pointer_token(name));
        let found = match (field.kind, child) {
            (Kind::Message(inner), J::Object(_)) => empty_oneof(child, inner, ptr),
            (Kind::RepeatedMessage(inner), J::Array(items)) => {
                items.iter().enumerate().find_map(|(i, item)| {
                    let m = ptr.len();
                    ptr.push('/');
                    ptr.push_str(&i.to_string());
                    let r = empty_oneof(item, inner, ptr);
                    ptr.truncate(m);
                    r
                })
            }
            (Kind::MapMessage(inner), J::Object(entries)) => entries.iter().find_map(|(k, item)| {
                let m = ptr.len();
                ptr.push('/');
                ptr.push_str(&pointer_token(k));
                let r = empty_oneof(item, inner, ptr);
                ptr.truncate(m);
                r
            }),
            _ => None,
        };
        ptr.truncate(mark);
        if found.is_some() {
            return found;
        }
    }
    None
}

fn to_value<T: Serialize + ?Sized>(v: &T) -> Result<serde_json::Value, Error> {
    serde_json::to_value(v).map_err(|e| {
        Error::new(
            ErrorCode::MalformedCard,
            format!("cannot serialize the card: {e}"),
        )
    })
}

/// A message of the model with its row of the presence table.
pub trait Message: Serialize {
    /// The message's row of [`crate::schema`].
    const DESC: &'static MessageDesc;

    /// Checks what the JSON types cannot: every REQUIRED member is set, every REQUIRED list
    /// holds at least one element (section 5.7), and API key locations are `query`, `header` or
    /// `cookie`. Nested messages are checked too. The error (`malformed-card`) carries the JSON
    /// Pointer of the first problem, relative to this message.
    ///
    /// ```
    /// use a2a_card::model::{AgentSkill, Message};
    /// let skill = AgentSkill::builder().id("s").name("S").description("d").tags(Vec::<String>::new()).build_unchecked();
    /// let err = skill.check().unwrap_err();
    /// assert_eq!((err.code().as_str(), err.pointer()), ("malformed-card", Some("/tags")));
    /// ```
    fn check(&self) -> Result<(), Error> {
        check_message(&to_value(self)?, Self::DESC, &mut String::new())
    }
}

macro_rules! message_desc {
    ($($ty:ty => $desc:path),* $(,)?) => {
        $(impl Message for $ty { const DESC: &'static MessageDesc = &$desc; })*
    };
}

message_desc!(
    AgentCard => table::AGENT_CARD,
    AgentInterface => table::AGENT_INTERFACE,
    AgentProvider => table::AGENT_PROVIDER,
    AgentCapabilities => table::AGENT_CAPABILITIES,
    AgentExtension => table::AGENT_EXTENSION,
    AgentSkill => table::AGENT_SKILL,
    AgentCardSignature => table::AGENT_CARD_SIGNATURE,
    StringList => table::STRING_LIST,
    SecurityRequirement => table::SECURITY_REQUIREMENT,
    SecurityScheme => table::SECURITY_SCHEME,
    ApiKeySecurityScheme => table::API_KEY_SECURITY_SCHEME,
    HttpAuthSecurityScheme => table::HTTP_AUTH_SECURITY_SCHEME,
    OAuth2SecurityScheme => table::OAUTH2_SECURITY_SCHEME,
    OpenIdConnectSecurityScheme => table::OPEN_ID_CONNECT_SECURITY_SCHEME,
    MutualTlsSecurityScheme => table::MUTUAL_TLS_SECURITY_SCHEME,
    OAuthFlows => table::OAUTH_FLOWS,
    AuthorizationCodeOAuthFlow => table::AUTHORIZATION_CODE_OAUTH_FLOW,
    ClientCredentialsOAuthFlow => table::CLIENT_CREDENTIALS_OAUTH_FLOW,
    ImplicitOAuthFlow => table::IMPLICIT_OAUTH_FLOW,
    PasswordOAuthFlow => table::PASSWORD_OAUTH_FLOW,
    DeviceCodeOAuthFlow => table::DEVICE_CODE_OAUTH_FLOW,
);

// ---------------------------------------------------------------------------------------------
// Reading, writing, canonicalizing and signing a card
// ---------------------------------------------------------------------------------------------

impl AgentCard {
    /// Reads a card from JSON bytes. The bytes first go through the strict reader and the
    /// canonical walk (I-JSON, types, dual names, oneof conflicts), so errors carry the JSON
    /// Pointer of the member at fault. Members A2A v1.0 does not define are dropped, as the
    /// default `exclude` leaves them out of the signed bytes; `null` reads as absent; proto
    /// names (`default_input_modes`) are accepted. REQUIRED members are not checked here (see
    /// [`Message::check`]). A `SecurityScheme` or `OAuthFlows` with no member set is refused
    /// (`malformed-card`, with its pointer): the model holds exactly one. Numbers inside `Struct`
    /// values are read by serde_json (integers exactly, others as doubles), and serde_json's
    /// recursion limit (128) makes cards nested that deep unreadable here although the
    /// canonical reader takes them.
    ///
    /// ```
    /// let card = a2a_card::model::AgentCard::from_json(br#"{"name":"A","x-vendor":1}"#).unwrap();
    /// assert_eq!(card.name.as_deref(), Some("A"));
    /// let err = a2a_card::model::AgentCard::from_json(br#"{"skills":[{"tags":"t"}]}"#).unwrap_err();
    /// assert_eq!(err.pointer(), Some("/skills/0/tags"));
    /// ```
    pub fn from_json(bytes: &[u8]) -> Result<AgentCard, Error> {
        let value = crate::json::parse_with(bytes, &crate::json::Limits::default())?;
        canonicalize_value(&value, &CanonicalizeOptions::default())?;
        if let Some((name, ptr)) = empty_oneof(&value, &table::AGENT_CARD, &mut String::new()) {
            return Err(Error::new(
                ErrorCode::MalformedCard,
                format!("{name} sets none of its members; exactly one member of the oneof must be set"),
            )
            .at(ptr));
        }
        serde_json::from_slice(bytes).map_err(|e| {
            Error::new(
                ErrorCode::MalformedCard,
                format!("the card does not fit the A2A v1.0 model: {e}"),
            )
            .at("")
        })
    }

    /// The card as compact JSON (members in proto order, unset members left out).
    pub fn to_json(&self) -> Result<Vec<u8>, Error> {
        serde_json::to_vec(self).map_err(|e| {
            Error::new(
                ErrorCode::MalformedCard,
                format!("cannot serialize the card: {e}"),
            )
        })
    }

    /// The card as indented JSON.
    pub fn to_json_pretty(&self) -> Result<Vec<u8>, Error> {
        serde_json::to_vec_pretty(self).map_err(|e| {
            Error::new(
                ErrorCode::MalformedCard,
                format!("cannot serialize the card: {e}"),
            )
        })
    }

    /// The canonical form of the card (what a signature covers).
    ///
    /// ```
    /// use a2a_card::model::{AgentCapabilities, AgentCard};
    /// let card = AgentCard::builder()
    ///     .name("Example Agent")
    ///     .description("")
    ///     .capabilities(AgentCapabilities::builder().streaming(false).push_notifications(false).build_unchecked())
    ///     .skills(Vec::new())
    ///     .build_unchecked();
    /// let c = card.canonicalize(&Default::default()).unwrap();
    /// // The worked example of A2A v1.0 section 8.4.1.
    /// assert_eq!(c.bytes, br#"{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}"#);
    /// ```
    pub fn canonicalize(&self, opts: &CanonicalizeOptions) -> Result<Canonical, Error> {
        crate::presence::canonicalize(&self.to_json()?, opts)
    }

    /// Signs the card: [`sign_card`] over its JSON. The result's `card` holds the signed JSON;
    /// read it back with [`AgentCard::from_json`].
    ///
    /// ```
    /// use a2a_card::model::{AgentCapabilities, AgentCard, AgentInterface, AgentSkill};
    /// use a2a_card::{alg::Algorithm, keys::PrivateKey, SignOptions};
    ///
    /// let card = AgentCard::builder()
    ///     .name("Recipe Agent")
    ///     .description("Finds recipes")
    ///     .version("1.0.0")
    ///     .supported_interface(
    ///         AgentInterface::builder()
    ///             .url("https://recipes.example/a2a")
    ///             .protocol_binding("JSONRPC")
    ///             .protocol_version("1.0")
    ///             .build()?,
    ///     )
    ///     .capabilities(AgentCapabilities::builder().streaming(true).build()?)
    ///     .default_input_mode("text/plain")
    ///     .default_output_mode("text/plain")
    ///     .skill(AgentSkill::builder().id("find").name("Find").description("By ingredient").tag("cooking").build()?)
    ///     .build()?; // checks every REQUIRED member; the error names it by JSON Pointer
    ///
    /// let key = PrivateKey::generate(Algorithm::ES256)?;
    /// let signed = card.sign(&key, &SignOptions::default())?;
    /// std::fs::write(std::env::temp_dir().join("agent-card.json"), &signed.card).unwrap();
    /// # Ok::<(), a2a_card::Error>(())
    /// ```
    pub fn sign(&self, key: &PrivateKey, opts: &SignOptions) -> Result<Signed, Error> {
        sign_card(&self.to_json()?, key, opts)
    }
}

// ---------------------------------------------------------------------------------------------
// Builders
// ---------------------------------------------------------------------------------------------

macro_rules! builder {
    (@set $ty:ident string $field:ident) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $field(mut self, value: impl Into<String>) -> Self {
            self.inner.$field = value.into();
            self
        }
    };
    (@set $ty:ident opt_string $field:ident) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`] (kept even when empty).")]
        pub fn $field(mut self, value: impl Into<String>) -> Self {
            self.inner.$field = Some(value.into());
            self
        }
    };
    (@set $ty:ident bool $field:ident) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $field(mut self, value: bool) -> Self {
            self.inner.$field = value;
            self
        }
    };
    (@set $ty:ident opt_bool $field:ident) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`] (kept even when false).")]
        pub fn $field(mut self, value: bool) -> Self {
            self.inner.$field = Some(value);
            self
        }
    };
    (@set $ty:ident strings $field:ident $push:ident) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`] to these strings.")]
        pub fn $field<S: Into<String>>(mut self, values: impl IntoIterator<Item = S>) -> Self {
            self.inner.$field = values.into_iter().map(Into::into).collect();
            self
        }
        #[doc = concat!("Appends one string to [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $push(mut self, value: impl Into<String>) -> Self {
            self.inner.$field.push(value.into());
            self
        }
    };
    (@set $ty:ident opt_strings $field:ident $push:ident) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`] to these strings (kept even when empty).")]
        pub fn $field<S: Into<String>>(mut self, values: impl IntoIterator<Item = S>) -> Self {
            self.inner.$field = Some(values.into_iter().map(Into::into).collect());
            self
        }
        #[doc = concat!("Appends one string to [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $push(mut self, value: impl Into<String>) -> Self {
            self.inner.$field.get_or_insert_with(Vec::new).push(value.into());
            self
        }
    };
    (@set $ty:ident list $field:ident $push:ident $inner:ty) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $field(mut self, values: impl IntoIterator<Item = $inner>) -> Self {
            self.inner.$field = values.into_iter().collect();
            self
        }
        #[doc = concat!("Appends one element to [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $push(mut self, value: $inner) -> Self {
            self.inner.$field.push(value);
            self
        }
    };
    (@set $ty:ident opt_list $field:ident $push:ident $inner:ty) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`] (kept even when empty).")]
        pub fn $field(mut self, values: impl IntoIterator<Item = $inner>) -> Self {
            self.inner.$field = Some(values.into_iter().collect());
            self
        }
        #[doc = concat!("Appends one element to [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $push(mut self, value: $inner) -> Self {
            self.inner.$field.get_or_insert_with(Vec::new).push(value);
            self
        }
    };
    (@set $ty:ident message $field:ident $inner:ty) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $field(mut self, value: $inner) -> Self {
            self.inner.$field = Some(value);
            self
        }
    };
    (@set $ty:ident str_map $field:ident $insert:ident) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`] to these pairs.")]
        pub fn $field<K: Into<String>, V: Into<String>>(mut self, pairs: impl IntoIterator<Item = (K, V)>) -> Self {
            self.inner.$field = pairs.into_iter().map(|(k, v)| (k.into(), v.into())).collect();
            self
        }
        #[doc = concat!("Adds one entry to [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $insert(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
            self.inner.$field.insert(key.into(), value.into());
            self
        }
    };
    (@set $ty:ident opt_str_map $field:ident $insert:ident) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`] to these pairs (kept even when empty).")]
        pub fn $field<K: Into<String>, V: Into<String>>(mut self, pairs: impl IntoIterator<Item = (K, V)>) -> Self {
            self.inner.$field = Some(pairs.into_iter().map(|(k, v)| (k.into(), v.into())).collect());
            self
        }
        #[doc = concat!("Adds one entry to [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $insert(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
            self.inner.$field.get_or_insert_with(BTreeMap::new).insert(key.into(), value.into());
            self
        }
    };
    (@set $ty:ident map $field:ident $insert:ident $inner:ty) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`] to these entries.")]
        pub fn $field<K: Into<String>>(mut self, entries: impl IntoIterator<Item = (K, $inner)>) -> Self {
            self.inner.$field = entries.into_iter().map(|(k, v)| (k.into(), v)).collect();
            self
        }
        #[doc = concat!("Adds one entry to [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $insert(mut self, key: impl Into<String>, value: $inner) -> Self {
            self.inner.$field.insert(key.into(), value);
            self
        }
    };
    (@set $ty:ident object $field:ident $insert:ident) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`] to this JSON object (kept even when empty).")]
        pub fn $field(mut self, value: JsonObject) -> Self {
            self.inner.$field = Some(value);
            self
        }
        #[doc = concat!("Adds one member to [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $insert(mut self, key: impl Into<String>, value: serde_json::Value) -> Self {
            self.inner.$field.get_or_insert_with(JsonObject::new).insert(key.into(), value);
            self
        }
    };
    ($builder:ident => $ty:ident { $($kind:ident $field:ident $($extra:ident)? $(: $inner:ty)?;)* }) => {
        #[doc = concat!("Builds a [`", stringify!($ty), "`] one member at a time; unset members stay absent.")]
        #[derive(Debug, Clone, Default)]
        pub struct $builder {
            inner: $ty,
        }

        impl $ty {
            #[doc = concat!("A builder for [`", stringify!($ty), "`], every member unset.")]
            pub fn builder() -> $builder {
                $builder::default()
            }
        }

        impl $builder {
            $( builder!(@set $ty $kind $field $($extra)? $($inner)?); )*

            #[doc = concat!("The [`", stringify!($ty), "`], after [`Message::check`]: every REQUIRED member \
                set, REQUIRED lists not empty. The error names the first problem by its JSON Pointer \
                (relative to this message) with code `malformed-card`.")]
            pub fn build(self) -> Result<$ty, Error> {
                self.inner.check()?;
                Ok(self.inner)
            }

            #[doc = concat!("The [`", stringify!($ty), "`] as set, REQUIRED members or not (for partial \
                messages, such as test vectors).")]
            pub fn build_unchecked(self) -> $ty {
                self.inner
            }
        }
    };
}

builder!(AgentCardBuilder => AgentCard {
    opt_string name;
    opt_string description;
    opt_list supported_interfaces supported_interface: AgentInterface;
    message provider: AgentProvider;
    opt_string version;
    opt_string documentation_url;
    message capabilities: AgentCapabilities;
    map security_schemes security_scheme: SecurityScheme;
    list security_requirements security_requirement: SecurityRequirement;
    opt_strings default_input_modes default_input_mode;
    opt_strings default_output_modes default_output_mode;
    opt_list skills skill: AgentSkill;
    list signatures signature: AgentCardSignature;
    opt_string icon_url;
});

builder!(AgentInterfaceBuilder => AgentInterface {
    opt_string url;
    opt_string protocol_binding;
    string tenant;
    opt_string protocol_version;
});

builder!(AgentProviderBuilder => AgentProvider {
    opt_string url;
    opt_string organization;
});

builder!(AgentCapabilitiesBuilder => AgentCapabilities {
    opt_bool streaming;
    opt_bool push_notifications;
    list extensions extension: AgentExtension;
    opt_bool extended_agent_card;
});

builder!(AgentExtensionBuilder => AgentExtension {
    string uri;
    string description;
    bool required;
    object params param;
});

builder!(AgentSkillBuilder => AgentSkill {
    opt_string id;
    opt_string name;
    opt_string description;
    opt_strings tags tag;
    strings examples example;
    strings input_modes input_mode;
    strings output_modes output_mode;
    list security_requirements security_requirement: SecurityRequirement;
});

builder!(AgentCardSignatureBuilder => AgentCardSignature {
    opt_string protected;
    opt_string signature;
    object header header_param;
});

builder!(StringListBuilder => StringList {
    strings list item;
});

builder!(SecurityRequirementBuilder => SecurityRequirement {
    map schemes scheme: StringList;
});

builder!(ApiKeySecuritySchemeBuilder => ApiKeySecurityScheme {
    string description;
    opt_string location;
    opt_string name;
});

builder!(HttpAuthSecuritySchemeBuilder => HttpAuthSecurityScheme {
    string description;
    opt_string scheme;
    string bearer_format;
});

builder!(OAuth2SecuritySchemeBuilder => OAuth2SecurityScheme {
    string description;
    message flows: OAuthFlows;
    string oauth2_metadata_url;
});

builder!(OpenIdConnectSecuritySchemeBuilder => OpenIdConnectSecurityScheme {
    string description;
    opt_string open_id_connect_url;
});

builder!(MutualTlsSecuritySchemeBuilder => MutualTlsSecurityScheme {
    string description;
});

builder!(AuthorizationCodeOAuthFlowBuilder => AuthorizationCodeOAuthFlow {
    opt_string authorization_url;
    opt_string token_url;
    string refresh_url;
    opt_str_map scopes scope;
    bool pkce_required;
});

builder!(ClientCredentialsOAuthFlowBuilder => ClientCredentialsOAuthFlow {
    opt_string token_url;
    string refresh_url;
    opt_str_map scopes scope;
});

builder!(ImplicitOAuthFlowBuilder => ImplicitOAuthFlow {
    string authorization_url;
    string refresh_url;
    str_map scopes scope;
});

builder!(PasswordOAuthFlowBuilder => PasswordOAuthFlow {
    string token_url;
    string refresh_url;
    str_map scopes scope;
});

builder!(DeviceCodeOAuthFlowBuilder => DeviceCodeOAuthFlow {
    opt_string device_authorization_url;
    opt_string token_url;
    string refresh_url;
    opt_str_map scopes scope;
});

// ---------------------------------------------------------------------------------------------
// JSON Schema
// ---------------------------------------------------------------------------------------------

/// The JSON Schema draft to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SchemaDraft {
    /// JSON Schema 2020-12 (definitions under `$defs`).
    #[default]
    Draft2020_12,
    /// JSON Schema draft 7 (definitions under `definitions`).
    Draft07,
}

impl SchemaDraft {
    /// The draft's short name: `2020-12` or `07`.
    pub fn as_str(self) -> &'static str {
        match self {
            SchemaDraft::Draft2020_12 => "2020-12",
            SchemaDraft::Draft07 => "07",
        }
    }

    /// The draft with this short name (`2020-12`, `07`; `7` and `draft-07` are accepted too).
    ///
    /// ```
    /// use a2a_card::model::SchemaDraft;
    /// assert_eq!(SchemaDraft::from_name("07"), Some(SchemaDraft::Draft07));
    /// assert_eq!(SchemaDraft::from_name("2019-09"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<SchemaDraft> {
        match name {
            "2020-12" | "draft-2020-12" => Some(SchemaDraft::Draft2020_12),
            "07" | "7" | "draft-07" => Some(SchemaDraft::Draft07),
            _ => None,
        }
    }
}

/// The root `description` of the generated schema: what it checks and what it deliberately
/// does not.
pub const SCHEMA_DESCRIPTION: &str = "An A2A v1.0 Agent Card in its JSON (ProtoJSON) form, \
generated from the typed model of a2a-card, which follows the presence table of \
specification/a2a.proto v1.0. REQUIRED members are required, and REQUIRED lists must hold at \
least one element (section 5.7; note that the worked example of section 8.4.1 signs a card with \
an empty skills list, which this schema rejects). SecurityScheme and OAuthFlows are oneofs: \
exactly one of their known members. null is accepted wherever a member may be absent, since \
null means absent. additionalProperties is left open on purpose: members A2A v1.0 does not \
define are legal in a served card (the section 8.5 sample itself carries two), but they are not \
covered by a spec-profile signature by default; a2a-card canonicalize and inspect list them as \
unsigned.";

/// The `$id` of the schema for a draft.
pub fn schema_id(draft: SchemaDraft) -> String {
    format!("urn:a2a-card:schema:agent-card:v1.0:draft-{}", draft.as_str())
}

/// Removes `additionalProperties: false` (schemars puts it on oneof wrappers), so that unknown
/// members are left open everywhere, for one rule across the card; joins wrapped description
/// lines.
fn open_objects(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            if m.get("additionalProperties") == Some(&serde_json::Value::Bool(false)) {
                m.remove("additionalProperties");
            }
            // Doc comments wrap lines; descriptions read as one paragraph.
            if let Some(serde_json::Value::String(d)) = m.get_mut("description") {
                *d = d.replace('\n', " ");
            }
            for (_, child) in m.iter_mut() {
                open_objects(child);
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(open_objects),
        _ => {}
    }
}

/// The JSON Schema of an A2A v1.0 Agent Card, generated from [`AgentCard`] and its messages
/// (one definition per proto message, named as in `a2a.proto`).
///
/// ```
/// use a2a_card::model::{json_schema, SchemaDraft};
/// let schema = json_schema(SchemaDraft::Draft2020_12);
/// assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
/// assert_eq!(schema["required"][0], "name");
/// assert!(schema["$defs"]["AgentSkill"]["properties"]["tags"]["minItems"] == 1);
/// ```
pub fn json_schema(draft: SchemaDraft) -> serde_json::Value {
    let settings = match draft {
        SchemaDraft::Draft2020_12 => schemars::generate::SchemaSettings::draft2020_12(),
        SchemaDraft::Draft07 => schemars::generate::SchemaSettings::draft07(),
    };
    let schema = settings.into_generator().into_root_schema_for::<AgentCard>();
    let mut value = schema.to_value();
    open_objects(&mut value);
    if let serde_json::Value::Object(m) = &mut value {
        let mut root = serde_json::Map::new();
        // `$schema`, `$id`, `title`, `description` first, for people reading it.
        if let Some(s) = m.remove("$schema") {
            root.insert("$schema".into(), s);
        }
        root.insert("$id".into(), schema_id(draft).into());
        root.insert("title".into(), "A2A v1.0 Agent Card".into());
        m.remove("title");
        m.remove("description");
        root.insert("description".into(), SCHEMA_DESCRIPTION.into());
        for (k, v) in std::mem::take(m) {
            root.insert(k, v);
        }
        *m = root;
    }
    value
}
