//! The JSON Schema of an Agent Card, generated from the typed model (drafts 2020-12 and 07).

use super::types::AgentCard;

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

impl std::str::FromStr for SchemaDraft {
    type Err = crate::Error;

    /// [`SchemaDraft::from_name`], a `usage` error naming the drafts otherwise.
    ///
    /// ```
    /// use a2a_card::model::SchemaDraft;
    /// assert_eq!("7".parse::<SchemaDraft>().unwrap(), SchemaDraft::Draft07);
    /// assert_eq!("6".parse::<SchemaDraft>().unwrap_err().message(), r#"draft "6" is not one of "2020-12", "07""#);
    /// ```
    fn from_str(name: &str) -> Result<SchemaDraft, crate::Error> {
        SchemaDraft::from_name(name).ok_or_else(|| {
            let message = format!("draft {name:?} is not one of \"2020-12\", \"07\"");
            crate::Error::new(crate::ErrorCode::Usage, message)
        })
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
pub(super) fn open_objects(v: &mut serde_json::Value) {
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
