//! The typed model (`a2a_card::model`): it agrees with the presence table, its builders can
//! express every field, and a card built in code canonicalizes to the same bytes as the card
//! read from JSON, for the project's canonicalization vectors.

#![allow(clippy::unwrap_used, clippy::panic)] // a test reports by panicking

use a2a_card::canonical::table::{Kind, MessageDesc, Presence, ALL_MESSAGES};
use a2a_card::model::*;
use a2a_card::{canonicalize, CanonicalizeOptions, Profile, UnknownMembers};
use a2a_card_testkit::data::testvectors_dir;
use a2a_card_testkit::vectors::{canonical_vectors_or_panic, Expected};
use schemars::JsonSchema;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

// ---------------------------------------------------------------------------------------------
// The model against the presence table
// ---------------------------------------------------------------------------------------------

/// The property names, required names and REQUIRED-list minimums of one definition (the root
/// for `AgentCard`); for a oneof, the union of its branches' single members.
fn definition<'a>(schema: &'a Value, name: &str) -> &'a Value {
    if name == "AgentCard" {
        return schema;
    }
    schema["$defs"]
        .get(name)
        .unwrap_or_else(|| panic!("the schema has no definition {name}"))
}

fn properties(def: &Value) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    if let Some(p) = def["properties"].as_object() {
        out.extend(p.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    if let Some(branches) = def["oneOf"].as_array() {
        for b in branches {
            let p = b["properties"].as_object().unwrap();
            assert_eq!(p.len(), 1, "a oneof branch must hold exactly one member: {b}");
            assert_eq!(b["required"].as_array().unwrap().len(), 1, "{b}");
            out.extend(p.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
    }
    out
}

#[test]
fn every_message_of_the_table_is_a_definition_with_the_same_members() {
    let schema = json_schema(SchemaDraft::Draft2020_12);
    let mut seen = BTreeSet::new();
    for desc in ALL_MESSAGES {
        seen.insert(desc.name);
        let def = definition(&schema, desc.name);
        let props = properties(def);
        let table: BTreeSet<&str> = desc.fields.iter().map(|f| f.json).collect();
        let model: BTreeSet<&str> = props.keys().map(String::as_str).collect();
        assert_eq!(model, table, "{}: schema properties vs presence table", desc.name);

        let required: BTreeSet<&str> = def["required"]
            .as_array()
            .map(|a| a.iter().map(|v| v.as_str().unwrap()).collect())
            .unwrap_or_default();
        let table_required: BTreeSet<&str> = desc
            .fields
            .iter()
            .filter(|f| f.presence == Presence::Required)
            .map(|f| f.json)
            .collect();
        if desc.fields.iter().all(|f| f.oneof.is_some()) {
            assert!(required.is_empty() && def["oneOf"].as_array().unwrap().len() == desc.fields.len());
        } else {
            assert_eq!(required, table_required, "{}: required members", desc.name);
        }

        for f in desc.fields {
            let p = &props[f.json];
            let repeated = matches!(f.kind, Kind::RepeatedString | Kind::RepeatedMessage(_));
            let want_min = repeated && f.presence == Presence::Required;
            assert_eq!(
                p.get("minItems") == Some(&Value::from(1)),
                want_min,
                "{}.{}: minItems 1 exactly on REQUIRED lists ({p})",
                desc.name,
                f.json
            );
            // A member that may be absent may be null (null means absent); a REQUIRED one not.
            let text = p.to_string();
            let allows_null = text.contains("\"null\"");
            if f.oneof.is_none() {
                assert_eq!(
                    allows_null,
                    f.presence != Presence::Required,
                    "{}.{}: null allowed exactly when the member may be absent ({p})",
                    desc.name,
                    f.json
                );
            }
            // Nested messages refer to their own definition.
            let inner: Option<&MessageDesc> = match f.kind {
                Kind::Message(m) | Kind::RepeatedMessage(m) | Kind::MapMessage(m) => Some(m),
                _ => None,
            };
            if let Some(m) = inner {
                assert!(
                    text.contains(&format!("\"#/$defs/{}\"", m.name)),
                    "{}.{} must refer to {} ({p})",
                    desc.name,
                    f.json,
                    m.name
                );
            }
        }
    }
    let defs: BTreeSet<&str> = schema["$defs"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let table: BTreeSet<&str> = seen.iter().copied().filter(|n| *n != "AgentCard").collect();
    assert_eq!(defs, table, "every definition is a message of the table and back");
}

#[test]
fn each_model_type_names_its_table_row() {
    fn name_of<T: JsonSchema + Message>() -> (String, &'static str) {
        (T::schema_name().into_owned(), T::DESC.name)
    }
    for (schema_name, table_name) in [
        name_of::<AgentCard>(),
        name_of::<AgentInterface>(),
        name_of::<AgentProvider>(),
        name_of::<AgentCapabilities>(),
        name_of::<AgentExtension>(),
        name_of::<AgentSkill>(),
        name_of::<AgentCardSignature>(),
        name_of::<StringList>(),
        name_of::<SecurityRequirement>(),
        name_of::<SecurityScheme>(),
        name_of::<ApiKeySecurityScheme>(),
        name_of::<HttpAuthSecurityScheme>(),
        name_of::<OAuth2SecurityScheme>(),
        name_of::<OpenIdConnectSecurityScheme>(),
        name_of::<MutualTlsSecurityScheme>(),
        name_of::<OAuthFlows>(),
        name_of::<AuthorizationCodeOAuthFlow>(),
        name_of::<ClientCredentialsOAuthFlow>(),
        name_of::<ImplicitOAuthFlow>(),
        name_of::<PasswordOAuthFlow>(),
        name_of::<DeviceCodeOAuthFlow>(),
    ] {
        assert_eq!(schema_name, table_name);
    }
    assert_eq!(ALL_MESSAGES.len(), 21);
}

// ---------------------------------------------------------------------------------------------
// Rebuilding a card through the builders only
// ---------------------------------------------------------------------------------------------

fn rebuild_card(c: &AgentCard) -> AgentCard {
    let mut b = AgentCard::builder();
    if let Some(v) = &c.name {
        b = b.name(v);
    }
    if let Some(v) = &c.description {
        b = b.description(v);
    }
    if let Some(items) = &c.supported_interfaces {
        b = b.supported_interfaces(Vec::new());
        for i in items {
            b = b.supported_interface(rebuild_interface(i));
        }
    }
    if let Some(p) = &c.provider {
        let mut pb = AgentProvider::builder();
        if let Some(v) = &p.url {
            pb = pb.url(v);
        }
        if let Some(v) = &p.organization {
            pb = pb.organization(v);
        }
        b = b.provider(pb.build_unchecked());
    }
    if let Some(v) = &c.version {
        b = b.version(v);
    }
    if let Some(v) = &c.documentation_url {
        b = b.documentation_url(v);
    }
    if let Some(caps) = &c.capabilities {
        b = b.capabilities(rebuild_capabilities(caps));
    }
    for (k, s) in &c.security_schemes {
        b = b.security_scheme(k.clone(), rebuild_scheme(s));
    }
    for r in &c.security_requirements {
        b = b.security_requirement(rebuild_requirement(r));
    }
    if let Some(items) = &c.default_input_modes {
        b = b.default_input_modes(Vec::<String>::new());
        for m in items {
            b = b.default_input_mode(m);
        }
    }
    if let Some(items) = &c.default_output_modes {
        // The other setter: the whole list at once.
        b = b.default_output_modes(items.iter().cloned());
    }
    if let Some(items) = &c.skills {
        b = b.skills(items.iter().map(rebuild_skill));
    }
    for s in &c.signatures {
        let mut sb = AgentCardSignature::builder();
        if let Some(v) = &s.protected {
            sb = sb.protected(v);
        }
        if let Some(v) = &s.signature {
            sb = sb.signature(v);
        }
        if let Some(h) = &s.header {
            sb = sb.header(JsonObject::new());
            for (k, v) in h {
                sb = sb.header_param(k.clone(), v.clone());
            }
        }
        b = b.signature(sb.build_unchecked());
    }
    if let Some(v) = &c.icon_url {
        b = b.icon_url(v);
    }
    b.build_unchecked()
}

fn rebuild_interface(i: &AgentInterface) -> AgentInterface {
    let mut b = AgentInterface::builder().tenant(&i.tenant);
    if let Some(v) = &i.url {
        b = b.url(v);
    }
    if let Some(v) = &i.protocol_binding {
        b = b.protocol_binding(v);
    }
    if let Some(v) = &i.protocol_version {
        b = b.protocol_version(v);
    }
    b.build_unchecked()
}

fn rebuild_capabilities(c: &AgentCapabilities) -> AgentCapabilities {
    let mut b = AgentCapabilities::builder();
    if let Some(v) = c.streaming {
        b = b.streaming(v);
    }
    if let Some(v) = c.push_notifications {
        b = b.push_notifications(v);
    }
    for e in &c.extensions {
        let mut eb = AgentExtension::builder()
            .uri(&e.uri)
            .description(&e.description)
            .required(e.required);
        if let Some(p) = &e.params {
            eb = eb.params(JsonObject::new());
            for (k, v) in p {
                eb = eb.param(k.clone(), v.clone());
            }
        }
        b = b.extension(eb.build_unchecked());
    }
    if let Some(v) = c.extended_agent_card {
        b = b.extended_agent_card(v);
    }
    b.build_unchecked()
}

fn rebuild_skill(s: &AgentSkill) -> AgentSkill {
    let mut b = AgentSkill::builder();
    if let Some(v) = &s.id {
        b = b.id(v);
    }
    if let Some(v) = &s.name {
        b = b.name(v);
    }
    if let Some(v) = &s.description {
        b = b.description(v);
    }
    if let Some(items) = &s.tags {
        b = b.tags(Vec::<String>::new());
        for t in items {
            b = b.tag(t);
        }
    }
    for v in &s.examples {
        b = b.example(v);
    }
    b = b.input_modes(s.input_modes.iter().cloned());
    for v in &s.output_modes {
        b = b.output_mode(v);
    }
    b = b.security_requirements(s.security_requirements.iter().map(rebuild_requirement));
    b.build_unchecked()
}

fn rebuild_requirement(r: &SecurityRequirement) -> SecurityRequirement {
    let mut b = SecurityRequirement::builder();
    for (k, l) in &r.schemes {
        let mut lb = StringList::builder();
        for s in &l.list {
            lb = lb.item(s);
        }
        b = b.scheme(k.clone(), lb.build_unchecked());
    }
    b.build_unchecked()
}

fn rebuild_scheme(s: &SecurityScheme) -> SecurityScheme {
    match s {
        SecurityScheme::ApiKey(a) => {
            let mut b = ApiKeySecurityScheme::builder().description(&a.description);
            if let Some(v) = &a.location {
                b = b.location(v);
            }
            if let Some(v) = &a.name {
                b = b.name(v);
            }
            SecurityScheme::ApiKey(b.build_unchecked())
        }
        SecurityScheme::HttpAuth(h) => {
            let mut b = HttpAuthSecurityScheme::builder()
                .description(&h.description)
                .bearer_format(&h.bearer_format);
            if let Some(v) = &h.scheme {
                b = b.scheme(v);
            }
            SecurityScheme::HttpAuth(b.build_unchecked())
        }
        SecurityScheme::OAuth2(o) => {
            let mut b = OAuth2SecurityScheme::builder()
                .description(&o.description)
                .oauth2_metadata_url(&o.oauth2_metadata_url);
            if let Some(f) = &o.flows {
                b = b.flows(rebuild_flows(f));
            }
            SecurityScheme::OAuth2(b.build_unchecked())
        }
        SecurityScheme::OpenIdConnect(o) => {
            let mut b = OpenIdConnectSecurityScheme::builder().description(&o.description);
            if let Some(v) = &o.open_id_connect_url {
                b = b.open_id_connect_url(v);
            }
            SecurityScheme::OpenIdConnect(b.build_unchecked())
        }
        SecurityScheme::MutualTls(m) => SecurityScheme::MutualTls(
            MutualTlsSecurityScheme::builder()
                .description(&m.description)
                .build_unchecked(),
        ),
    }
}

fn rebuild_flows(f: &OAuthFlows) -> OAuthFlows {
    match f {
        OAuthFlows::AuthorizationCode(a) => {
            let mut b = AuthorizationCodeOAuthFlow::builder()
                .refresh_url(&a.refresh_url)
                .pkce_required(a.pkce_required);
            if let Some(v) = &a.authorization_url {
                b = b.authorization_url(v);
            }
            if let Some(v) = &a.token_url {
                b = b.token_url(v);
            }
            if let Some(s) = &a.scopes {
                b = b.scopes(Vec::<(String, String)>::new());
                for (k, v) in s {
                    b = b.scope(k, v);
                }
            }
            OAuthFlows::AuthorizationCode(b.build_unchecked())
        }
        OAuthFlows::ClientCredentials(c) => {
            let mut b = ClientCredentialsOAuthFlow::builder().refresh_url(&c.refresh_url);
            if let Some(v) = &c.token_url {
                b = b.token_url(v);
            }
            if let Some(s) = &c.scopes {
                b = b.scopes(s.clone());
            }
            OAuthFlows::ClientCredentials(b.build_unchecked())
        }
        OAuthFlows::Implicit(i) => OAuthFlows::Implicit(
            ImplicitOAuthFlow::builder()
                .authorization_url(&i.authorization_url)
                .refresh_url(&i.refresh_url)
                .scopes(i.scopes.clone())
                .build_unchecked(),
        ),
        OAuthFlows::Password(p) => {
            let mut b = PasswordOAuthFlow::builder()
                .token_url(&p.token_url)
                .refresh_url(&p.refresh_url);
            for (k, v) in &p.scopes {
                b = b.scope(k, v);
            }
            OAuthFlows::Password(b.build_unchecked())
        }
        OAuthFlows::DeviceCode(d) => {
            let mut b = DeviceCodeOAuthFlow::builder().refresh_url(&d.refresh_url);
            if let Some(v) = &d.device_authorization_url {
                b = b.device_authorization_url(v);
            }
            if let Some(v) = &d.token_url {
                b = b.token_url(v);
            }
            if let Some(s) = &d.scopes {
                b = b.scopes(s.clone());
            }
            OAuthFlows::DeviceCode(b.build_unchecked())
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The canonicalization vectors
// ---------------------------------------------------------------------------------------------

/// A spec-profile vector that succeeds.
struct SpecVector {
    id: String,
    input: Vec<u8>,
    unknown: UnknownMembers,
    expected: Vec<u8>,
}

/// Every vector of `testvectors/canonical/` with profile `spec` and `expected_hex`, by id.
fn spec_success_vectors() -> Vec<SpecVector> {
    canonical_vectors_or_panic()
        .into_iter()
        .filter(|v| v.profile == "spec")
        .filter_map(|v| match v.expected {
            Expected::Bytes { bytes, .. } => Some(SpecVector {
                id: v.id,
                input: v.input,
                unknown: v
                    .unknown
                    .map_or(UnknownMembers::Exclude, |u| u.parse::<UnknownMembers>().unwrap()),
                expected: bytes,
            }),
            Expected::Error { .. } => None,
        })
        .collect()
}

#[test]
fn cards_rebuilt_with_the_builders_canonicalize_like_their_json() {
    let vectors = spec_success_vectors();
    assert!(vectors.len() >= 40, "only {} spec success vectors", vectors.len());
    let mut compared = Vec::new();
    let mut skipped: Vec<(String, String)> = Vec::new();
    let mut failures = Vec::new();
    for v in &vectors {
        // Decided before looking at any bytes the model writes:
        if v.unknown == UnknownMembers::Retain {
            skipped.push((
                v.id.clone(),
                "retains unknown members in the canonical bytes; the model drops them".into(),
            ));
            continue;
        }
        let card: AgentCard = match serde_json::from_slice(&v.input) {
            Ok(c) => c,
            Err(e) => {
                skipped.push((v.id.clone(), format!("does not fit the model: {e}")));
                continue;
            }
        };
        let rebuilt = rebuild_card(&card);
        if rebuilt != card {
            failures.push(format!("{}: the builders did not reproduce the card", v.id));
            continue;
        }
        let from_json = canonicalize(
            &v.input,
            &CanonicalizeOptions {
                unknown: v.unknown,
                ..Default::default()
            },
        )
        .unwrap();
        let opts = CanonicalizeOptions {
            profile: Profile::Spec,
            unknown: v.unknown,
            ..Default::default()
        };
        let built = match canonicalize(&serde_json::to_vec(&rebuilt).unwrap(), &opts) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{}: the built card does not canonicalize: {e}", v.id));
                continue;
            }
        };
        if built.bytes != v.expected || from_json.bytes != v.expected {
            failures.push(format!(
                "{}: built {} / json {} / expected {}",
                v.id,
                String::from_utf8_lossy(&built.bytes),
                String::from_utf8_lossy(&from_json.bytes),
                String::from_utf8_lossy(&v.expected)
            ));
            continue;
        }
        // The typed reader gives the same card.
        assert_eq!(AgentCard::from_json(&v.input).unwrap(), card, "{}", v.id);
        assert_eq!(rebuilt.canonicalize(&opts).unwrap().bytes, v.expected, "{}", v.id);
        compared.push(v.id.clone());
    }
    println!(
        "model vs vectors: {} spec success vectors, {} compared (built with the builders, canonical bytes equal to expected_hex), {} skipped",
        vectors.len(),
        compared.len(),
        skipped.len()
    );
    for (id, why) in &skipped {
        println!("  skipped {id}: {why}");
    }
    assert!(
        failures.is_empty(),
        "{} vectors differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        compared.len() * 100 >= vectors.len() * 80,
        "only {} of {} spec success vectors compared (fewer than 80%)",
        compared.len(),
        vectors.len()
    );
}

// ---------------------------------------------------------------------------------------------
// Presence semantics, build() and from_json()
// ---------------------------------------------------------------------------------------------

fn spec_bytes(json: &str) -> Vec<u8> {
    canonicalize(json.as_bytes(), &CanonicalizeOptions::default())
        .unwrap()
        .bytes
}

#[test]
fn presence_classes_survive_serialization() {
    // `optional` false and REQUIRED "" / [] are kept; implicit defaults are left out.
    let card = AgentCard::builder()
        .name("")
        .description("d")
        .capabilities(
            AgentCapabilities::builder()
                .streaming(false)
                .extension(
                    AgentExtension::builder()
                        .required(false)
                        .params(JsonObject::new())
                        .build_unchecked(),
                )
                .build_unchecked(),
        )
        .skills(Vec::new())
        .documentation_url("")
        .build_unchecked();
    let json = String::from_utf8(card.to_json().unwrap()).unwrap();
    assert_eq!(
        json,
        r#"{"name":"","description":"d","documentationUrl":"","capabilities":{"streaming":false,"extensions":[{"params":{}}]},"skills":[]}"#
    );
    assert_eq!(
        card.canonicalize(&CanonicalizeOptions::default()).unwrap().bytes,
        spec_bytes(
            r#"{"name":"","description":"d","documentationUrl":"","skills":[],
           "capabilities":{"streaming":false,"pushNotifications":null,"extensions":[{"uri":"","required":false,"params":{}}]}}"#
        )
    );
    // An implicit scalar at its default is not written, and nothing unset is invented.
    let iface = AgentInterface::builder().url("u").tenant("").build_unchecked();
    assert_eq!(serde_json::to_string(&iface).unwrap(), r#"{"url":"u"}"#);
    assert_eq!(serde_json::to_string(&AgentCard::default()).unwrap(), "{}");
}

#[test]
fn build_names_the_first_missing_or_empty_required_member() {
    let skill = || AgentSkill::builder().id("s").name("S").description("d").tag("t");
    let full = || {
        AgentCard::builder()
            .name("A")
            .description("d")
            .version("1")
            .supported_interface(
                AgentInterface::builder()
                    .url("https://a.example")
                    .protocol_binding("JSONRPC")
                    .protocol_version("1.0")
                    .build()
                    .unwrap(),
            )
            .capabilities(AgentCapabilities::default())
            .default_input_mode("text/plain")
            .default_output_mode("text/plain")
    };
    assert!(full().skill(skill().build().unwrap()).build().is_ok());

    let cases: Vec<(AgentCardBuilder, &str)> = vec![
        (AgentCard::builder(), "/name"),
        (
            full().skill(skill().build().unwrap()).skills(Vec::new()),
            "/skills",
        ),
        (full(), "/skills"),
        (
            full().skill(
                AgentSkill::builder()
                    .id("s")
                    .name("S")
                    .description("d")
                    .build_unchecked(),
            ),
            "/skills/0/tags",
        ),
        (
            full()
                .skill(skill().build().unwrap())
                .default_input_modes(Vec::<String>::new()),
            "/defaultInputModes",
        ),
        (
            full()
                .skill(skill().build().unwrap())
                .provider(AgentProvider::builder().url("u").build_unchecked()),
            "/provider/organization",
        ),
        (
            full().skill(skill().build().unwrap()).security_scheme(
                "a/b",
                SecurityScheme::ApiKey(
                    ApiKeySecurityScheme::builder()
                        .location("body")
                        .name("k")
                        .build_unchecked(),
                ),
            ),
            "/securitySchemes/a~1b/apiKeySecurityScheme/location",
        ),
        (
            full().skill(skill().build().unwrap()).security_scheme(
                "o",
                SecurityScheme::OAuth2(
                    OAuth2SecurityScheme::builder()
                        .flows(OAuthFlows::DeviceCode(
                            DeviceCodeOAuthFlow::builder()
                                .token_url("t")
                                .scope("r", "R")
                                .build_unchecked(),
                        ))
                        .build_unchecked(),
                ),
            ),
            "/securitySchemes/o/oauth2SecurityScheme/flows/deviceCode/deviceAuthorizationUrl",
        ),
        (
            full()
                .skill(skill().build().unwrap())
                .signature(AgentCardSignature::builder().signature("x").build_unchecked()),
            "/signatures/0/protected",
        ),
    ];
    for (builder, pointer) in cases {
        let err = builder.build().unwrap_err();
        assert_eq!(err.code().as_str(), "malformed-card", "{err}");
        assert_eq!(err.pointer(), Some(pointer), "{err}");
    }
    // A nested builder checks its own message, with pointers relative to it.
    let err = AgentSkill::builder().id("s").build().unwrap_err();
    assert_eq!(err.pointer(), Some("/name"));
    let err = ClientCredentialsOAuthFlow::builder()
        .token_url("t")
        .build()
        .unwrap_err();
    assert_eq!(err.pointer(), Some("/scopes"));
    // A REQUIRED map may be empty (only lists must hold an element).
    assert!(ClientCredentialsOAuthFlow::builder()
        .token_url("t")
        .scopes(Vec::<(String, String)>::new())
        .build()
        .is_ok());
}

#[test]
fn from_json_reads_like_the_canonical_reader() {
    // Proto names, null as absent, unknown members dropped.
    let card = AgentCard::from_json(
        br#"{"name":"A","default_input_modes":["text/plain"],"iconUrl":null,"x":{"y":1},
             "securitySchemes":{"k":{"api_key_security_scheme":null,"mtlsSecurityScheme":{},"x-note":1}}}"#,
    )
    .unwrap();
    assert_eq!(card.default_input_modes, Some(vec!["text/plain".to_string()]));
    assert_eq!(card.icon_url, None);
    assert_eq!(
        card.security_schemes["k"],
        SecurityScheme::MutualTls(MutualTlsSecurityScheme::default())
    );

    for (input, code, pointer) in [
        (&br#"{"name":"A","name":"B"}"#[..], "duplicate-member", "/name"),
        (
            br#"{"defaultInputModes":[],"default_input_modes":[]}"#,
            "dual-name",
            "/default_input_modes",
        ),
        (
            br#"{"capabilities":{"streaming":"yes"}}"#,
            "type-mismatch",
            "/capabilities/streaming",
        ),
        (
            br#"{"securitySchemes":{"k":{"mtlsSecurityScheme":{},"apiKeySecurityScheme":{}}}}"#,
            "oneof-conflict",
            "/securitySchemes/k/apiKeySecurityScheme",
        ),
        (
            br#"{"securitySchemes":{"k":{}}}"#,
            "malformed-card",
            "/securitySchemes/k",
        ),
        (
            br#"{"security_schemes":{"k":{"oauth2SecurityScheme":{"flows":{"implicit":null}}}}}"#,
            "malformed-card",
            "/security_schemes/k/oauth2SecurityScheme/flows",
        ),
        (br#"[]"#, "type-mismatch", ""),
        (br#"{"name":"A""#, "invalid-json", ""),
    ] {
        let err = AgentCard::from_json(input).unwrap_err();
        assert_eq!(err.code().as_str(), code, "{err}");
        if !pointer.is_empty() {
            assert_eq!(err.pointer(), Some(pointer), "{err}");
        }
    }
}

#[test]
fn the_sample_card_round_trips_through_the_model() {
    for name in ["sample-8.5.json", "sample-8.5-unsigned.json"] {
        let bytes = std::fs::read(testvectors_dir().join("cards").join(name)).unwrap();
        let card = AgentCard::from_json(&bytes).unwrap();
        card.check().unwrap();
        assert_eq!(rebuild_card(&card), card);
        let opts = CanonicalizeOptions::default();
        assert_eq!(
            card.canonicalize(&opts).unwrap().bytes,
            canonicalize(&bytes, &opts).unwrap().bytes,
            "{name}"
        );
    }
}

#[test]
fn from_json_refuses_what_the_canonical_reader_refuses() {
    // Every vector input, whatever its profile: where the spec-profile reader (default options)
    // fails, the typed reader fails with the same code and pointer; it never panics.
    let mut checked = 0;
    for v in canonical_vectors_or_panic() {
        let input = v.input;
        let typed = AgentCard::from_json(&input);
        if let Err(want) = canonicalize(&input, &CanonicalizeOptions::default()) {
            let got = typed.unwrap_err();
            assert_eq!(
                (got.code(), got.pointer()),
                (want.code(), want.pointer()),
                "{}",
                v.id
            );
            checked += 1;
        }
    }
    println!("from_json: {checked} vector inputs refused with the canonical reader's code and pointer");
    assert!(checked >= 30, "only {checked} refused inputs");
}
