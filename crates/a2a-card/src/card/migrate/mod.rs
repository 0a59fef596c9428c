//! Rewriting an A2A 0.3 Agent Card as an A2A 1.0 card, with a note for everything that moved,
//! changed shape, was filled in, or could not be carried over.
//!
//! The mappings, each checked against its source:
//!
//! | A2A 0.3 member | A2A 1.0 member | source |
//! |---|---|---|
//! | `url` + `preferredTransport` (default `JSONRPC`) | `supportedInterfaces[0]` `{url, protocolBinding}` | v1.0 4.4.1 (`supported_interfaces`: "the first entry is preferred"), 4.4.6; "What's new in v1.0", AgentCard |
//! | `additionalInterfaces[]` `{url, transport}` | `supportedInterfaces[1..]` `{url, protocolBinding}`, the repeat of the main entry listed once | as above |
//! | `protocolVersion` (default `0.3.0`) | every interface's `protocolVersion`, as Major.Minor (`0.3.0` -> `0.3`) | v1.0 4.4.6 (`protocol_version`: "Examples: \"0.3\", \"1.0\"") |
//! | `supportsAuthenticatedExtendedCard` | `capabilities.extendedAgentCard` | v1.0 4.4.3; "What's new in v1.0", Get Agent Card |
//! | `capabilities.stateTransitionHistory` | none: dropped | "What's new in v1.0", AgentCapabilities (#1396) |
//! | `security` `[{scheme: [scopes]}]` | `securityRequirements` `[{"schemes": {scheme: {"list": [scopes]}}}]` | v1.0 4.4.1, `SecurityRequirement` / `StringList` in a2a.proto |
//! | `skills[].security` | `skills[].securityRequirements` | v1.0 4.4.5 |
//! | `securitySchemes` `{type: "apiKey", in, name}` | `{"apiKeySecurityScheme": {location, name}}` | v1.0 4.5.1, 4.5.2 |
//! | `{type: "http", scheme, bearerFormat}` | `{"httpAuthSecurityScheme": {...}}` | v1.0 4.5.3 |
//! | `{type: "oauth2", flows, oauth2MetadataUrl}` | `{"oauth2SecurityScheme": {...}}`, one flow only (`OAuthFlows` is a `oneof` in 1.0) | v1.0 4.5.4, 4.5.7 |
//! | `{type: "openIdConnect", openIdConnectUrl}` | `{"openIdConnectSecurityScheme": {...}}` | v1.0 4.5.5 |
//! | `{type: "mutualTLS"}` | `{"mtlsSecurityScheme": {...}}` | v1.0 4.5.6 |
//! | `signatures` | none: dropped (the canonical bytes change, so re-sign the 1.0 card) | v1.0 8.4 |
//! | `name`, `description`, `version`, `provider`, `documentationUrl`, `iconUrl`, `defaultInputModes`, `defaultOutputModes`, `capabilities.{streaming, pushNotifications, extensions}`, `skills[].{id, name, description, tags, examples, inputModes, outputModes}` | the same | v1.0 4.4.1 to 4.4.5 |
//!
//! Members that are neither A2A 0.3 nor A2A 1.0 members are dropped with a note. Every note
//! names the JSON Pointer of the member in the input card. A card that is already 1.0 (it has
//! `supportedInterfaces` and none of the 0.3-only members) is returned byte for byte with one
//! note, not an error. No card is returned that could not be canonicalized and signed: an
//! ill-typed member is refused at its place in the input.
//!
//! ```
//! use a2a_card::migrate::{migrate_card, MigrateOptions, NoteKind};
//!
//! let v03 = br#"{"name":"Echo","description":"Echoes","version":"1.0.0",
//!   "url":"https://echo.example/a2a","preferredTransport":"JSONRPC","protocolVersion":"0.3.0",
//!   "capabilities":{"streaming":true,"stateTransitionHistory":false},
//!   "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
//!   "skills":[{"id":"echo","name":"Echo","description":"Echoes text","tags":["echo"]}]}"#;
//! let m = migrate_card(v03, &MigrateOptions::default()).unwrap();
//! let card = a2a_card::canonical::parse_json(&m.card, &Default::default()).unwrap();
//! let first = &card["supportedInterfaces"][0];
//! assert_eq!(first["protocolBinding"], "JSONRPC");
//! assert_eq!(first["protocolVersion"], "0.3");
//! // stateTransitionHistory has no 1.0 home: dropped, and said so.
//! assert!(m.notes.iter().any(|n| n.kind == NoteKind::Dropped
//!     && n.pointer == "/capabilities/stateTransitionHistory"));
//! assert!(m.lost_something());
//! ```

mod migrator;
mod notes;
mod pretty;

pub use notes::{MigrateOptions, Migration, MigrationNote, NoteKind};

use self::migrator::{Migrator, V03_ONLY};
use self::pretty::write_pretty;
use crate::canonical::value::Value;
use crate::canonical::{CanonicalizeOptions, Limits, UnknownMembers, MAX_DEPTH_LIMIT};
use crate::error::{Error, ErrorCode};

/// Rewrites an A2A 0.3 Agent Card as an A2A 1.0 card (see the [module](self) for the mappings).
///
/// Errors: the reader's (`invalid-json`, `duplicate-member`, ... with their pointer);
/// `type-mismatch` where a member the migration reads has the wrong JSON type; `malformed-card`
/// for a card that mixes `supportedInterfaces` with 0.3-only members. The card returned always
/// passes the checks canonicalization, signing and [`crate::model::AgentCard::from_json`] make:
/// a member the input gave the wrong type (`"description": 5`), which the migration would carry
/// over as it is, is refused (`type-mismatch`, or `malformed-card` for an empty oneof) at its
/// pointer in the input card, also for a card that is already 1.0.
///
/// ```
/// use a2a_card::migrate::{migrate_card, MigrateOptions};
/// let bad = br#"{"name":"A","description":5,"url":"https://a.example"}"#;
/// let err = migrate_card(bad, &MigrateOptions::default()).unwrap_err();
/// assert_eq!(err.code().as_str(), "type-mismatch");
/// assert_eq!(err.pointer(), Some("/description"));
/// ```
///
/// ```
/// use a2a_card::migrate::{migrate_card, MigrateOptions, NoteKind};
/// let v1 = br#"{"name":"A","description":"B","version":"1","supportedInterfaces":[]}"#;
/// let m = migrate_card(v1, &MigrateOptions::default()).unwrap();
/// assert!(m.already_v1);
/// assert_eq!(m.card, v1.to_vec());
/// assert_eq!(m.notes[0].kind, NoteKind::Unchanged);
/// ```
pub fn migrate_card(bytes: &[u8], opts: &MigrateOptions) -> Result<Migration, Error> {
    opts.check()?;
    let value = crate::canonical::value::parse_with(bytes, &opts.limits)?;
    let Value::Object(members) = &value else {
        return Err(Error::new(
            ErrorCode::TypeMismatch,
            format!("an Agent Card must be a JSON object, found {}", value.type_name()),
        )
        .at(""));
    };
    let has = |name: &str| members.iter().any(|(k, _)| k == name);
    let v1_name = ["supportedInterfaces", "supported_interfaces"]
        .into_iter()
        .find(|n| has(n));
    if let Some(v1_name) = v1_name {
        let mixed: Vec<String> = V03_ONLY
            .iter()
            .filter(|n| has(n))
            .map(|n| format!("/{n}"))
            .collect();
        if !mixed.is_empty() {
            return Err(Error::new(
                ErrorCode::MalformedCard,
                format!(
                    "the card has the A2A 1.0 member {v1_name} and also the A2A 0.3 member(s) {}; \
                     it is neither version, so merge the interfaces by hand",
                    mixed.join(", ")
                ),
            )
            .at(format!("/{v1_name}")));
        }
        // Returned unchanged only when it could be signed as it stands (its unknown members
        // left out, as sign leaves them by choice).
        check_signable(bytes, opts, UnknownMembers::Exclude, &[])?;
        return Ok(Migration {
            card: bytes.to_vec(),
            notes: vec![MigrationNote {
                pointer: String::new(),
                kind: NoteKind::Unchanged,
                target: Some(String::new()),
                message: format!(
                    "the card is already an A2A 1.0 card (it has {v1_name} and no A2A 0.3 member); returned unchanged"
                ),
            }],
            already_v1: true,
        });
    }
    let mut m = Migrator {
        notes: Vec::new(),
        opts,
    };
    let out = m.card(members)?;
    let mut card = Vec::new();
    write_pretty(&mut card, &Value::Object(out), 0);
    card.push(b'\n');
    // The migration drops every member A2A 1.0 does not define, so none is left to reject.
    check_signable(&card, opts, UnknownMembers::Reject, &m.notes)?;
    Ok(Migration {
        card,
        notes: m.notes,
        already_v1: false,
    })
}

/// Refuses to return a card that canonicalize, sign and the typed model would refuse: a member
/// the 0.3 card gave the wrong type (`"description": 5`) is carried over as it is, so the
/// refusal names it in the input card (through the note whose target holds it, when it moved).
/// The limits are the caller's, widened to the card's own size and to the deepest nesting
/// allowed, as the 1.0 shapes are longer and deeper than the 0.3 ones they come from.
fn check_signable(
    card: &[u8],
    opts: &MigrateOptions,
    unknown: UnknownMembers,
    notes: &[MigrationNote],
) -> Result<(), Error> {
    let copts = CanonicalizeOptions {
        unknown,
        limits: Limits {
            max_input_bytes: opts.limits.max_input_bytes.max(card.len()),
            max_depth: MAX_DEPTH_LIMIT,
        },
        ..CanonicalizeOptions::default()
    };
    crate::card::model::check_card_json(card, &copts).map_err(|e| {
        let out = e.pointer().unwrap_or("").to_string();
        let input = input_pointer(&out, notes);
        Error::new(
            e.code(),
            format!(
                "{}; migrate writes no card that could not be signed, so correct it in the input card",
                e.message()
            ),
        )
        .at(input)
    })
}

/// The input card's pointer for `out`, a pointer into the migrated card: through the note whose
/// target is the longest prefix of `out` when the member moved, else `out` itself (members
/// copied as they are keep their place).
fn input_pointer(out: &str, notes: &[MigrationNote]) -> String {
    notes
        .iter()
        .filter_map(|n| {
            let target = n.target.as_deref()?;
            let rest = out.strip_prefix(target)?;
            (rest.is_empty() || rest.starts_with('/')).then_some((target.len(), n, rest))
        })
        .filter(|(len, n, _)| *len > 0 && !n.pointer.is_empty())
        .max_by_key(|(len, _, _)| *len)
        .map_or_else(|| out.to_string(), |(_, n, rest)| format!("{}{rest}", n.pointer))
}
