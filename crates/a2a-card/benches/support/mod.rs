//! Deterministic A2A v1.0 Agent Cards of any size, for the benchmarks.
//!
//! The cards look like what an agent serves: three interfaces, a provider, capabilities with
//! extensions whose `params` are `google.protobuf.Struct` objects (nested numbers such as
//! `1e21`, `0.000001` and `-0`, strings, booleans, nulls), all five kinds of security scheme,
//! security requirements, and `n` skills whose names, descriptions, tags and examples mix ASCII
//! with accented Latin, Cyrillic, CJK, Hangul and emoji (astral code points and ZWJ sequences),
//! plus a few characters that need escapes. Members appear in proto order, as SDKs write them.
//! Some skills carry implicit-presence fields at their default (`[]`), which the `spec` profile
//! omits, and the card carries one unknown member and one `signatures` entry, both left out of
//! the canonical bytes. Everything is derived from a fixed seed, so every run sees the same bytes.

#![allow(dead_code)]

pub mod raw;
pub mod timing;

use a2a_card_testkit::rng::Rng;
use serde_json::{json, Map, Value};

const VERBS: &[&str] = &[
    "Plan",
    "Translate",
    "Summarize",
    "Cook",
    "Räkna",
    "Übersetze",
    "翻訳する",
    "요약",
    "Prévoir",
    "Найти",
    "🔎 Search",
    "Schedule",
];

const NOUNS: &[&str] = &[
    "menus",
    "itinéraires",
    "Rezepte",
    "天気予報",
    "会议纪要",
    "일정",
    "invoices",
    "crème brûlée",
    "данные",
    "🍣 sushi",
    "façades",
    "Øresund ferries",
];

const SENTENCES: &[&str] = &[
    "Builds a weekly menu from what is in the fridge, with allergens flagged.",
    "Crée un itinéraire à vélo entre deux villes, en évitant les routes à grande circulation.",
    "Fasst lange Dokumente zusammen und beantwortet Rückfragen zu Abschnitten.",
    "東京・大阪・札幌の天気予報を取得し、服装のアドバイスをします。",
    "把会议录音整理成带有行动项的中文纪要。",
    "한국어 문서를 영어로 번역하고 용어집을 유지합니다.",
    "Находит и сравнивает счета за последние 12 месяцев.",
    "Handles \"quoted\" input,\ttabs and\nnew lines; paths like C:\\agents\\cache.",
    "Celebrates milestones 🎉🚀 and writes release notes for the team 👩‍💻👨‍🍳.",
    "Räknar ut moms och växelkurser (SEK ⇄ EUR ⇄ ¥) med två decimaler.",
    "Ligature test: ﬁle ﬂow ﬀ, private use \u{E000}, and a flag 🇯🇵.",
];

const TAGS: &[&str] = &[
    "cooking",
    "料理",
    "🍳",
    "travel",
    "voyage",
    "Reise",
    "天気",
    "번역",
    "финансы",
    "naïve-bayes",
    "ﬁnance",
    "😀",
    "productivity",
    "会議",
];

const EXAMPLES: &[&str] = &[
    "Plan dinner for four in Kraków, vegetarian, under 40 zł.",
    "晩ご飯のレシピを三つ教えて。",
    "Wie wird das Wetter morgen in München?",
    "Résume ce PDF en cinq puces.",
    "Переведи это письмо на английский.",
    "Make a packing list for Reykjavík in March ❄️🧳",
];

const MODES: &[&str] = &[
    "text/plain",
    "application/json",
    "text/markdown",
    "image/png",
    "audio/ogg; codecs=opus",
];

/// The `params` Struct of one extension: nested numbers at the edges of ECMAScript formatting,
/// non-ASCII keys (one in U+E000..U+FFFF, one astral) and values.
fn extension_params(k: usize) -> Value {
    json!({
        "limits": {
            "maxTokens": 4096 + k,
            "temperature": 0.7,
            "huge": 1e21,
            "tiny": 0.000001,
            "negativeZero": -0.0,
            "third": 1.0 / 3.0,
            "maxSafe": 9_007_199_254_740_991_u64,
            "exp": -1.5e-7,
        },
        "locale": (["fr-FR", "ja-JP", "ko-KR"][k % 3]),
        "labels": ["é", "中文", "🎉", "ﬁ"],
        "ключ": "значение",
        "😀": {"nested": [1, 2.5, {"b": null, "c": true, "d": "ü\u{0007}"}]},
        "ﬁeld": false,
        "empty": {},
    })
}

fn skill(i: usize, rng: &mut Rng) -> Value {
    let mut s = Map::new();
    s.insert("id".into(), json!(format!("skill-{i:05}")));
    s.insert(
        "name".into(),
        json!(format!("{} {} #{i}", rng.pick(VERBS), rng.pick(NOUNS))),
    );
    s.insert("description".into(), json!(*rng.pick(SENTENCES)));
    let mut tags = vec![json!(format!("t{}", i % 97))];
    for _ in 0..1 + rng.below(3) {
        tags.push(json!(*rng.pick(TAGS)));
    }
    s.insert("tags".into(), Value::Array(tags));
    match i % 4 {
        // An implicit-presence field at its default: present in the served JSON, omitted by `spec`.
        0 => {
            s.insert("examples".into(), json!([]));
        }
        1 => {
            s.insert("examples".into(), json!([rng.pick(EXAMPLES)]));
        }
        _ => {}
    }
    if i % 3 == 0 {
        s.insert("inputModes".into(), json!([rng.pick(MODES), "text/plain"]));
        s.insert("outputModes".into(), json!([rng.pick(MODES)]));
    }
    if i % 5 == 0 {
        s.insert(
            "securityRequirements".into(),
            json!([{"schemes": {"oauth": {"list": ["recipes:read", "recipes:write"]}}}]),
        );
    }
    Value::Object(s)
}

/// The card with `skills` skills, as a `serde_json::Value` (members in insertion order).
pub fn card_value(skills: usize) -> Value {
    let mut rng = Rng::new(0x0A2A_CA4D ^ skills as u64);
    let extensions: Vec<Value> = (0..3)
        .map(|k| {
            json!({
                "uri": format!("https://extensions.example.com/a2a/ext-{k}/v1"),
                "description": (["Échelle de traduction", "翻訳の品質設定", "Tracing 🛰️"][k]),
                "required": k == 0,
                "params": extension_params(k),
            })
        })
        .collect();
    let skills: Vec<Value> = (0..skills).map(|i| skill(i, &mut rng)).collect();
    json!({
        "name": "Recettes & Reisen — 多言語エージェント 🌍",
        "description": "Agent multilingue : recettes, itinéraires, 天気予報, 번역, and invoices. Ünïcödé everywhere.",
        "supportedInterfaces": [
            {"url": "https://agent.example.com/a2a/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "https://agent.example.com/a2a/grpc", "protocolBinding": "GRPC", "tenant": "", "protocolVersion": "1.0"},
            {"url": "https://agent.example.com/a2a/rest", "protocolBinding": "HTTP+JSON", "tenant": "acme-eu", "protocolVersion": "1.0"}
        ],
        "provider": {"url": "https://example.com", "organization": "Exämple GmbH & 株式会社"},
        "version": "2.3.1",
        "documentationUrl": "https://docs.example.com/agents/recettes",
        "capabilities": {
            "streaming": true,
            "pushNotifications": false,
            "extensions": extensions,
            "extendedAgentCard": false
        },
        "securitySchemes": {
            "apiKey": {"apiKeySecurityScheme": {"description": "Clé d'API", "location": "header", "name": "X-API-Key"}},
            "bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "JWT"}},
            "oauth": {"oauth2SecurityScheme": {
                "description": "OAuth 2.0 — authorization code with PKCE",
                "flows": {"authorizationCode": {
                    "authorizationUrl": "https://auth.example.com/authorize",
                    "tokenUrl": "https://auth.example.com/token",
                    "refreshUrl": "",
                    "scopes": {"recipes:read": "Lire les recettes", "recipes:write": "レシピを書く", "profile": "👤"},
                    "pkceRequired": true
                }},
                "oauth2MetadataUrl": "https://auth.example.com/.well-known/oauth-authorization-server"
            }},
            "oidc": {"openIdConnectSecurityScheme": {"openIdConnectUrl": "https://auth.example.com/.well-known/openid-configuration"}},
            "mtls": {"mtlsSecurityScheme": {"description": ""}}
        },
        "securityRequirements": [
            {"schemes": {"oauth": {"list": ["recipes:read"]}}},
            {"schemes": {"bearer": {}}},
            {"schemes": {"mtls": {"list": []}, "apiKey": {}}}
        ],
        "defaultInputModes": ["text/plain", "application/json"],
        "defaultOutputModes": ["text/plain", "text/markdown", "application/json"],
        "skills": skills,
        "iconUrl": "https://example.com/icon.png",
        "x-vendor-build": {"commit": "0f1e2d3c", "built": "2025-01-01T00:00:00Z"},
        "signatures": [{
            "protected": "eyJhbGciOiJFZERTQSIsImtpZCI6ImtleS0xIiwidHlwIjoiSk9TRSJ9",
            "signature": "c2lnbmF0dXJlLWJ5dGVzLW5vdC1jaGVja2VkLWluLXRoaXMtYmVuY2htYXJr",
            "header": {"x-note": "ignored by canonicalization"}
        }]
    })
}

/// The card with `skills` skills, serialized by serde_json (compact).
pub fn card_bytes(skills: usize) -> Vec<u8> {
    serde_json::to_vec(&card_value(skills)).expect("a serde_json::Value always serializes")
}

/// The card an example's argument names: `sample` for the A2A v1.0 section 8.5 sample, a number
/// of skills for [`card_bytes`], else the path of a card file (such as the cards
/// `scripts/bench-peers/gen.py` writes).
pub fn card_arg(arg: &str) -> Vec<u8> {
    if arg == "sample" {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testvectors/cards/sample-8.5-unsigned.json"
        );
        std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"))
    } else if let Ok(skills) = arg.parse() {
        card_bytes(skills)
    } else {
        std::fs::read(arg).unwrap_or_else(|e| panic!("{arg}: {e}"))
    }
}
