//! The messages of the sigstore KMS plugin protocol, version 1, as sigstore's Go client
//! (`pkg/signature/kms/cliplugin`, `common/interface.go`) writes and reads them.
//!
//! The request is argument 2 of the plugin: one JSON object, `PluginArgs`: `initOptions`
//! (`ctxDeadline`, `protocolVersion` `"v1"`, `keyResourceID`, `hashFunc` as Go's `crypto.Hash`
//! number, `rpcOptions`), then the embedded `MethodArgs` flattened (`methodName` and the
//! method's own member). Members come in Go's field order, `[]byte` values are standard base64
//! with padding, times are RFC 3339 in UTC, and `<`, `>`, `&`, U+2028 and U+2029 are escaped as
//! Go's `json.Marshal` escapes them, so the bytes are those the Go client would send.
//!
//! The answer, `PluginResp`, is read as Go's `json.Unmarshal` reads it: member names in any
//! case, unknown members ignored, a non-empty `errorMessage` an error.

use a2a_card::{Algorithm, Error};
use base64::Engine as _;
use serde_json::{json, Map, Value};
use std::time::SystemTime;

/// `common.ProtocolVersion`.
pub const PROTOCOL_VERSION: &str = "v1";

/// A method of the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// `defaultAlgorithm`.
    DefaultAlgorithm,
    /// `supportedAlgorithms`.
    SupportedAlgorithms,
    /// `publicKey`.
    PublicKey,
    /// `signMessage`.
    SignMessage,
}

impl Method {
    /// The method's name, as sent in `methodName` (and the member of its arguments and answer).
    pub fn name(self) -> &'static str {
        match self {
            Method::DefaultAlgorithm => "defaultAlgorithm",
            Method::SupportedAlgorithms => "supportedAlgorithms",
            Method::PublicKey => "publicKey",
            Method::SignMessage => "signMessage",
        }
    }
}

/// Go's `crypto.Hash` number of the hash an algorithm signs with: SHA256 5, SHA384 6, SHA512 7;
/// 0 for pure Ed25519 (what sigstore's registry gives `ed25519`).
pub fn hash_func(alg: Algorithm) -> u8 {
    match alg {
        Algorithm::ES256 | Algorithm::ES256K | Algorithm::RS256 | Algorithm::PS256 | Algorithm::HS256 => 5,
        Algorithm::ES384 | Algorithm::RS384 | Algorithm::PS384 | Algorithm::HS384 => 6,
        Algorithm::ES512 | Algorithm::RS512 | Algorithm::PS512 | Algorithm::HS512 => 7,
        _ => 0,
    }
}

/// The digest of `message` under `alg`'s hash, for `messageOptions.digest` (none for EdDSA).
pub fn digest(alg: Algorithm, message: &[u8]) -> Option<Vec<u8>> {
    let h = match hash_func(alg) {
        5 => &ring::digest::SHA256,
        6 => &ring::digest::SHA384,
        7 => &ring::digest::SHA512,
        _ => return None,
    };
    Some(ring::digest::digest(h, message).as_ref().to_vec())
}

/// A time as Go's `time.Time` writes it in JSON for a UTC time (RFC 3339 with the fraction of a
/// second, its trailing zeros dropped): `2025-04-01T02:47:00.5Z`.
pub fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let mut out = a2a_card::signature::trust::format_rfc3339(i64::try_from(secs).unwrap_or(i64::MAX));
    out.pop(); // the 'Z', written after the fraction
    let nanos = d.subsec_nanos();
    if nanos > 0 {
        let frac = format!("{nanos:09}");
        out.push('.');
        out.push_str(frac.trim_end_matches('0'));
    }
    out.push('Z');
    out
}

/// Everything a request carries besides the method. `Debug` shows the key id as
/// [`crate::PluginRef::shown_key_id`] does (without a token in its query).
#[derive(Clone)]
pub struct Init<'a> {
    /// `initOptions.keyResourceID`: the text after `NAME://`.
    pub key_resource_id: &'a str,
    /// `initOptions.hashFunc`.
    pub hash_func: u8,
    /// The call's deadline, sent as `ctxDeadline` (in `initOptions` and in `rpcOptions`).
    pub deadline: SystemTime,
}

impl std::fmt::Debug for Init<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Init")
            .field(
                "key_resource_id",
                &crate::reference::shown_key_id(self.key_resource_id),
            )
            .field("hash_func", &self.hash_func)
            .field("deadline", &self.deadline)
            .finish()
    }
}

/// The request (`PluginArgs`) for `method`, as the JSON text of argument 2. For `signMessage`,
/// `digest` goes in `messageOptions.digest` (the message itself goes on stdin) and `hash` in
/// `messageOptions.hashFunc`.
pub fn request(init: &Init<'_>, method: Method, digest: Option<&[u8]>, hash: Option<u8>) -> String {
    let deadline = rfc3339(init.deadline);
    // encoding.PackRPCOptions: the key version and remote verification are always written.
    let rpc = || {
        json!({
            "ctxDeadline": deadline,
            "keyVersion": "",
            "remoteVerification": false,
        })
    };
    let mut args = Map::new();
    args.insert(
        "initOptions".into(),
        json!({
            "ctxDeadline": deadline,
            "protocolVersion": PROTOCOL_VERSION,
            "keyResourceID": init.key_resource_id,
            "hashFunc": init.hash_func,
            "rpcOptions": rpc(),
        }),
    );
    args.insert("methodName".into(), Value::from(method.name()));
    let own = match method {
        Method::DefaultAlgorithm | Method::SupportedAlgorithms => json!({}),
        Method::PublicKey => json!({ "publicKeyOptions": { "rpcOptions": rpc() } }),
        Method::SignMessage => {
            let mut message = Map::new();
            // encoding.PackMessageOptions: digest is always present (null when there is none).
            message.insert(
                "digest".into(),
                digest.map_or(Value::Null, |d| {
                    Value::from(base64::engine::general_purpose::STANDARD.encode(d))
                }),
            );
            if let Some(h) = hash {
                message.insert("hashFunc".into(), Value::from(h));
            }
            json!({ "signOptions": { "rpcOptions": rpc(), "messageOptions": Value::Object(message) } })
        }
    };
    args.insert(method.name().into(), own);
    go_escape(&Value::Object(args).to_string())
}

/// Go's `json.Marshal` escapes these in strings (HTML safety); outside strings our JSON has none.
fn go_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

fn failed(message: String) -> Error {
    Error::new(crate::error::ErrorCode::ExternalSignerFailed.into(), message)
}

/// A member of an object, its name matched as Go matches JSON names to struct fields (exact
/// first, then ignoring case).
fn member<'a>(object: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    object.get(name).or_else(|| {
        object
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    })
}

/// What the plugin answered for `method`: its method member (an object), after `errorMessage`
/// is checked. `what` names the plugin in messages.
pub fn response(stdout: &[u8], method: Method, what: &str) -> Result<Map<String, Value>, Error> {
    if stdout.iter().all(u8::is_ascii_whitespace) {
        return Err(failed(format!(
            "{what} answered {} with nothing on stdout (the protocol's answer is one JSON object)",
            method.name()
        )));
    }
    let value: Value = serde_json::from_slice(stdout).map_err(|e| {
        failed(format!(
            "{what} answered {} with {} bytes that are not the protocol's JSON ({e})",
            method.name(),
            stdout.len()
        ))
    })?;
    let Value::Object(resp) = value else {
        return Err(failed(format!(
            "{what} answered {} with JSON that is not an object",
            method.name()
        )));
    };
    match member(&resp, "errorMessage") {
        Some(Value::String(m)) if !m.is_empty() => {
            return Err(failed(format!(
                "{what} returned an error for {}: {}",
                method.name(),
                shorten(m)
            )))
        }
        None | Some(Value::Null) | Some(Value::String(_)) => {}
        Some(_) => {
            return Err(failed(format!(
                "{what} answered {} with an errorMessage that is not a string",
                method.name()
            )))
        }
    }
    match member(&resp, method.name()) {
        Some(Value::Object(o)) => Ok(o.clone()),
        _ => Err(failed(format!(
            "{what} answered {} without a {:?} object",
            method.name(),
            method.name()
        ))),
    }
}

/// A `[]byte` member of an answer: standard base64 (Go writes it with padding; without is read
/// too).
pub fn bytes_member(
    object: &Map<String, Value>,
    name: &str,
    what: &str,
    method: Method,
) -> Result<Vec<u8>, Error> {
    let Some(Value::String(text)) = member(object, name) else {
        return Err(failed(format!(
            "{what} answered {} without {name} (a base64 string)",
            method.name()
        )));
    };
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    engine.decode(text.trim()).map_err(|e| {
        failed(format!(
            "{what} answered {} with {name} that is not base64 ({e})",
            method.name()
        ))
    })
}

/// A string member of an answer.
pub fn string_member<'a>(object: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    member(object, name).and_then(Value::as_str)
}

/// A plugin's message, cut to one readable line.
fn shorten(m: &str) -> String {
    const MAX: usize = 300;
    let one_line: String = m.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if one_line.chars().count() > MAX {
        format!("{}…", one_line.chars().take(MAX).collect::<String>())
    } else {
        one_line
    }
}

/// The JWS algorithm an algorithm name of a plugin stands for, when it is one: a JWS name
/// (`ES256`, `PS256`, ...) or one of sigstore's registry names (`rsa-sign-pss-2048-sha256`,
/// `ecdsa-sha2-384-nistp384`, `ed25519`, ...).
///
/// ```
/// use a2a_card::Algorithm;
/// use a2a_card_keys::plugin::protocol::jws_algorithm;
/// assert_eq!(jws_algorithm("rsa-sign-pss-3072-sha256"), Some(Algorithm::PS256));
/// assert_eq!(jws_algorithm("RS384"), Some(Algorithm::RS384));
/// assert_eq!(jws_algorithm("rsa-2048"), None);
/// ```
pub fn jws_algorithm(name: &str) -> Option<Algorithm> {
    if let Ok(a) = Algorithm::from_name(name) {
        return Some(a);
    }
    let lower = name.to_ascii_lowercase();
    if let Ok(a) = Algorithm::from_name(&lower.to_ascii_uppercase()) {
        return Some(a);
    }
    let hash = ["sha256", "sha384", "sha512"]
        .iter()
        .position(|h| lower.ends_with(h));
    let pick = |three: [Algorithm; 3]| hash.map(|i| three[i]);
    if lower.starts_with("rsa-sign-pss-") {
        pick([Algorithm::PS256, Algorithm::PS384, Algorithm::PS512])
    } else if lower.starts_with("rsa-sign-pkcs1-") {
        pick([Algorithm::RS256, Algorithm::RS384, Algorithm::RS512])
    } else {
        match lower.as_str() {
            "ecdsa-sha2-256-nistp256" => Some(Algorithm::ES256),
            "ecdsa-sha2-384-nistp384" => Some(Algorithm::ES384),
            "ecdsa-sha2-512-nistp521" => Some(Algorithm::ES512),
            "ed25519" => Some(Algorithm::EdDSA),
            _ => None,
        }
    }
}
