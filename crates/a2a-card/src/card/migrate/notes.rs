//! The options of a migration and what it reports: the migrated card and a note per change.

use crate::canonical::Limits;
use crate::error::Error;
use serde::Serialize;

/// Options of [`super::migrate_card`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MigrateOptions {
    /// Reader limits for the input card.
    pub limits: Limits,
    /// The `protocolVersion` to give every interface. `None` (the default) carries the 0.3
    /// card's own `protocolVersion` over, as Major.Minor: the endpoints still speak what they
    /// spoke. Set it (for example to `1.0`) when the endpoints have been upgraded too.
    pub protocol_version: Option<String>,
}

impl MigrateOptions {
    /// Refuses options no migration can use (an empty `protocol_version`) with `usage`;
    /// [`super::migrate_card`] checks them first.
    ///
    /// ```
    /// use a2a_card::migrate::MigrateOptions;
    /// let empty = MigrateOptions { protocol_version: Some(String::new()), ..Default::default() };
    /// assert_eq!(empty.check().unwrap_err().message(), "the protocolVersion must not be empty");
    /// assert!(MigrateOptions::default().check().is_ok());
    /// ```
    pub fn check(&self) -> Result<(), Error> {
        if self.protocol_version.as_deref() == Some("") {
            return Err(Error::new(
                crate::error::ErrorCode::Usage,
                "the protocolVersion must not be empty",
            ));
        }
        Ok(())
    }
}

/// What happened to one member of the input card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoteKind {
    /// Carried over under another name or place, value unchanged.
    Moved,
    /// Carried over with its shape changed (a wrapper, a renamed inner member, a version spelled
    /// Major.Minor, a repeated interface listed once, a `null` left out).
    Rewritten,
    /// Absent from the 0.3 card and filled in with the 0.3 default.
    Defaulted,
    /// Not carried over: it has no A2A 1.0 home. Information is lost.
    Dropped,
    /// Needed by the 1.0 card but not in the 0.3 card, and it has no default: add it by hand.
    Missing,
    /// Carried over as it is, with something to know about it (or the whole card was already 1.0).
    Unchanged,
}

impl NoteKind {
    /// The kind's name: `moved`, `rewritten`, `defaulted`, `dropped`, `missing` or `unchanged`.
    ///
    /// ```
    /// assert_eq!(a2a_card::migrate::NoteKind::Dropped.as_str(), "dropped");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            NoteKind::Moved => "moved",
            NoteKind::Rewritten => "rewritten",
            NoteKind::Defaulted => "defaulted",
            NoteKind::Dropped => "dropped",
            NoteKind::Missing => "missing",
            NoteKind::Unchanged => "unchanged",
        }
    }

    /// True for `dropped` and `missing`: the 1.0 card lacks something the 0.3 card had or needs.
    pub fn is_loss(self) -> bool {
        matches!(self, NoteKind::Dropped | NoteKind::Missing)
    }
}

/// One note: the member of the input card it concerns, what happened to it, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MigrationNote {
    /// The JSON Pointer (RFC 6901) of the member in the input card (`""` for the whole card).
    pub pointer: String,
    /// What happened to it.
    pub kind: NoteKind,
    /// The JSON Pointer of the member in the 1.0 card, where it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// A sentence for people: what changed, where that rule comes from, what to do.
    pub message: String,
}

/// The result of [`super::migrate_card`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migration {
    /// The A2A 1.0 card: pretty JSON (two-space indent, trailing newline) with the members in the
    /// input's order where there is one; for a card that was already 1.0, the input bytes.
    pub card: Vec<u8>,
    /// What happened, one note per member concerned, in the order the migration met them.
    pub notes: Vec<MigrationNote>,
    /// True when the input was already an A2A 1.0 card and `card` is the input unchanged.
    pub already_v1: bool,
}

impl Migration {
    /// True when some note says information was dropped or a needed member is missing.
    pub fn lost_something(&self) -> bool {
        self.notes.iter().any(|n| n.kind.is_loss())
    }

    /// The migration as one line of JSON: `{"card": ..., "notes": [...], "alreadyV1": ...,
    /// "lost": ...}` (`card` left out when `with_card` is false). The card is written from the
    /// library's own reading of it, member order and number spellings kept.
    ///
    /// ```
    /// use a2a_card::migrate::{migrate_card, MigrateOptions};
    /// let m = migrate_card(br#"{"name":"A","description":"d","version":"1","skills":[]}"#, &MigrateOptions::default()).unwrap();
    /// let json = m.to_json(true).unwrap();
    /// assert!(json.starts_with(r#"{"card":{"name":"A""#));
    /// let back: serde_json::Value = serde_json::from_str(&json).unwrap();
    /// assert_eq!(back["alreadyV1"], m.already_v1);
    /// assert_eq!(back["lost"], m.lost_something());
    /// ```
    pub fn to_json(&self, with_card: bool) -> Result<String, Error> {
        let mut out = String::from("{");
        if with_card {
            let card = crate::canonical::value::parse(&self.card)?;
            let mut bytes = Vec::new();
            crate::canonical::jcs::write_compact(&mut bytes, &card);
            out.push_str("\"card\":");
            out.push_str(&String::from_utf8_lossy(&bytes));
            out.push(',');
        }
        let notes = serde_json::to_string(&self.notes).unwrap_or_else(|_| "[]".to_string());
        out.push_str(&format!(
            "\"notes\":{notes},\"alreadyV1\":{},\"lost\":{}}}",
            self.already_v1,
            self.lost_something()
        ));
        Ok(out)
    }

    /// The migration as the packages return it: `{"card", "notes", "alreadyV1", "lost"}`, the
    /// 1.0 card as its text (the bytes [`Migration::card`], ready to sign).
    ///
    /// ```
    /// use a2a_card::migrate::{migrate_card, MigrateOptions};
    /// let m = migrate_card(br#"{"name":"A","description":"d","version":"1","skills":[]}"#, &MigrateOptions::default()).unwrap();
    /// let r = m.report();
    /// assert_eq!(r["card"].as_str().map(str::as_bytes), Some(&m.card[..]));
    /// assert_eq!((r["alreadyV1"].as_bool(), r["lost"].as_bool()), (Some(m.already_v1), Some(m.lost_something())));
    /// ```
    pub fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "card": String::from_utf8_lossy(&self.card),
            "notes": self.notes,
            "alreadyV1": self.already_v1,
            "lost": self.lost_something(),
        })
    }
}
