//! The card layer: the typed A2A v1.0 model and its JSON Schema, lint, the 0.3 -> 1.0
//! migration, and inspection of what a card carries. It builds on the canonical layer (the
//! presence table, the reader) and the signature layer (signature entries).

mod inspect;
pub mod lint;
pub mod migrate;
pub mod model;

pub use inspect::{inspect_card, Inspection};
