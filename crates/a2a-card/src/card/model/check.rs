//! What a typed card must satisfy: REQUIRED members present and section 5.7's non-empty
//! REQUIRED lists, named by JSON Pointer; the card's JSON, canonical bytes and signature.

use super::types::{
    AgentCapabilities, AgentCard, AgentCardSignature, AgentExtension, AgentInterface, AgentProvider,
    AgentSkill, ApiKeySecurityScheme, AuthorizationCodeOAuthFlow, ClientCredentialsOAuthFlow,
    DeviceCodeOAuthFlow, HttpAuthSecurityScheme, ImplicitOAuthFlow, MutualTlsSecurityScheme,
    OAuth2SecurityScheme, OAuthFlows, OpenIdConnectSecurityScheme, PasswordOAuthFlow, SecurityRequirement,
    SecurityScheme, StringList,
};
use crate::canonical::table::{self as table, Kind, MessageDesc, Presence};
use crate::canonical::{Canonical, CanonicalizeOptions};
use crate::error::{pointer_token, Error, ErrorCode};
use crate::jose::signer::Signer;
use crate::signature::{sign_card, SignOptions, Signed};
use serde::Serialize;

/// The checks [`AgentCard::from_json`] makes before it builds the typed card: the strict reader
/// and the canonical walk under `opts` (I-JSON, types, dual names, oneof conflicts, unknown
/// members as `opts` says), then no `SecurityScheme` or `OAuthFlows` without a member set.
/// A card that passes can be canonicalized and signed; `migrate` checks what it returns with it.
pub(crate) fn check_card_json(bytes: &[u8], opts: &CanonicalizeOptions) -> Result<(), Error> {
    let doc = crate::canonical::Doc::parse(bytes, &opts.limits)?;
    crate::canonical::canonicalize_doc(&doc, opts)?;
    let value = doc.to_value();
    if let Some((name, ptr)) = empty_oneof(&value, &table::AGENT_CARD, &mut String::new()) {
        return Err(Error::new(
            ErrorCode::MalformedCard,
            format!("{name} sets none of its members; exactly one member of the oneof must be set"),
        )
        .at(ptr));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Checking REQUIRED members, against the presence table
// ---------------------------------------------------------------------------------------------

/// The values `APIKeySecurityScheme.location` may take.
pub const API_KEY_LOCATIONS: [&str; 3] = ["query", "header", "cookie"];

pub(super) fn missing_error(desc: &MessageDesc, field: &str, ptr: &str) -> Error {
    Error::new(
        ErrorCode::MalformedCard,
        format!("{}.{field} is REQUIRED by A2A v1.0 but is not set", desc.name),
    )
    .at(ptr)
}

/// Walks a serialized message with its row of the presence table: the first REQUIRED member
/// that is absent, a REQUIRED list that is empty (A2A v1.0 section 5.7: "Arrays marked as
/// required MUST contain at least one element"), or an API key location outside its set.
pub(super) fn check_message(
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

pub(super) fn check_value(
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
pub(super) fn empty_oneof(
    v: &crate::canonical::value::Value,
    desc: &'static MessageDesc,
    ptr: &mut String,
) -> Option<(&'static str, String)> {
    use crate::canonical::value::Value as J;
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

pub(super) fn to_value<T: Serialize + ?Sized>(v: &T) -> Result<serde_json::Value, Error> {
    serde_json::to_value(v).map_err(|e| {
        Error::new(
            ErrorCode::MalformedCard,
            format!("cannot serialize the card: {e}"),
        )
    })
}

/// A message of the model with its row of the presence table.
pub trait Message: Serialize {
    /// The message's row of the presence table (`canonical/table.rs`).
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
        check_card_json(bytes, &CanonicalizeOptions::default())?;
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
        crate::canonical::canonicalize(&self.to_json()?, opts)
    }

    /// Signs the card: [`sign_card`] over its JSON, with a [`crate::PrivateKey`] or any other
    /// [`Signer`]. The result's `card` holds the signed JSON;
    /// read it back with [`AgentCard::from_json`].
    ///
    /// ```
    /// use a2a_card::model::{AgentCapabilities, AgentCard, AgentInterface, AgentSkill};
    /// use a2a_card::{Algorithm, PrivateKey, SignOptions};
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
    pub fn sign<S: Signer + ?Sized>(&self, key: &S, opts: &SignOptions) -> Result<Signed, Error> {
        sign_card(&self.to_json()?, key, opts)
    }
}
