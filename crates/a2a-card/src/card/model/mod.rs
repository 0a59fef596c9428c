//! A typed model of the A2A v1.0 `AgentCard` tree, a builder for each message, and the JSON
//! Schema of the card generated from the model.
//!
//! The model follows the presence table (`canonical/table.rs`, written from `a2a.proto` v1.0), so
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
//! use a2a_card::{Algorithm, PrivateKey, TrustStore};
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

mod builder;
mod check;
mod schema;
mod types;

pub use builder::*;
pub(crate) use check::check_card_json;
pub use check::{Message, API_KEY_LOCATIONS};
pub use schema::{json_schema, schema_id, SchemaDraft, SCHEMA_DESCRIPTION};
pub use types::*;
