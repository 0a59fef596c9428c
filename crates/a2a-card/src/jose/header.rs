//! JWS (RFC 7515) pieces for Agent Card signatures: the protected header, its strict decoding
//! and the rules it must meet, the signing input, and a low-level verification of one flattened
//! JWS with a detached payload.
//!
//! Two layers of rules apply to a header. [`decode_header`] applies the RFC 7515 rules every JWS
//! must meet here: strict base64url, a JSON object read by the strict reader (no duplicate
//! parameters), `alg` present and supported, no `crit` (this implementation understands no
//! extension), no `b64` (RFC 7797 unencoded payloads are not supported), no parameter in both the
//! protected and the unprotected header, and `alg`/`crit`/`b64` never unprotected.
//! [`check_card_header`] adds what A2A section 8.4.2 asks of a card signature: a non-empty `kid`,
//! and `typ` absent or `JOSE`.

use crate::canonical::jcs;
use crate::canonical::value::{from_serde, to_serde, Value};
use crate::canonical::Limits;
use crate::error::{Error, ErrorCode};
use crate::jose::b64;
use crate::jose::crypto as alg;
use crate::jose::keys::PublicKey;
use crate::jose::Algorithm;

/// Default limit on the decoded size of a protected header, and on the serialized size of an
/// unprotected one: 4 KiB.
pub const DEFAULT_MAX_HEADER_BYTES: usize = 4096;

/// A decoded, checked JWS header (protected and unprotected parts).
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// The algorithm named by `alg`.
    pub alg: Algorithm,
    /// `kid`, if present.
    pub kid: Option<String>,
    /// `typ`, if present.
    pub typ: Option<String>,
    /// `jku`, if present: information only, never a trust root.
    pub jku: Option<String>,
    /// The protected header parameters as decoded, in their order.
    pub(crate) protected: Vec<(String, Value)>,
    /// The unprotected header parameters (`header` member), in their order.
    pub(crate) unprotected: Vec<(String, Value)>,
    /// The protected header exactly as it appeared (base64url text).
    pub protected_b64: String,
}

impl Header {
    /// The names of the protected header parameters, in their order.
    pub fn protected_names(&self) -> Vec<&str> {
        self.protected.iter().map(|(k, _)| k.as_str()).collect()
    }

    /// The names of the unprotected header parameters (the `header` member), in their order.
    pub fn unprotected_names(&self) -> Vec<&str> {
        self.unprotected.iter().map(|(k, _)| k.as_str()).collect()
    }

    /// A protected header parameter's value.
    ///
    /// ```
    /// let h = a2a_card::jose::header::decode_header("eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0", None, 4096).unwrap();
    /// assert_eq!(h.protected_param("kid"), Some(serde_json::json!("k1")));
    /// assert_eq!(h.protected_names(), ["alg", "kid"]);
    /// ```
    pub fn protected_param(&self, name: &str) -> Option<serde_json::Value> {
        self.protected
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| to_serde(v))
    }

    /// The unprotected header as a JSON object, when there is one.
    pub fn unprotected_json(&self) -> Option<serde_json::Value> {
        (!self.unprotected.is_empty()).then(|| to_serde(&Value::Object(self.unprotected.clone())))
    }
}

fn bad(code: ErrorCode, msg: impl Into<String>) -> Error {
    Error::new(code, msg)
}

fn string_param(members: &[(String, Value)], name: &str) -> Result<Option<String>, Error> {
    match members.iter().find(|(k, _)| k == name) {
        None => Ok(None),
        Some((_, Value::String(s))) => Ok(Some(s.clone())),
        Some((_, other)) => Err(bad(
            ErrorCode::MalformedHeader,
            format!(
                "header parameter {name:?} must be a string, found {}",
                other.type_name()
            ),
        )),
    }
}

/// Decodes a protected header (base64url of a JSON object) and an optional unprotected header,
/// applying the RFC 7515 rules listed in the module documentation.
///
/// ```
/// use a2a_card::jose::header::decode_header;
/// // {"alg":"ES256","kid":"k1","typ":"JOSE"}
/// let h = decode_header("eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIiwidHlwIjoiSk9TRSJ9", None, 4096).unwrap();
/// assert_eq!(h.alg.as_str(), "ES256");
/// assert_eq!(h.kid.as_deref(), Some("k1"));
/// // {"alg":"none"} is never accepted.
/// assert_eq!(decode_header("eyJhbGciOiJub25lIn0", None, 4096).unwrap_err().code().as_str(), "unknown-algorithm");
/// ```
pub fn decode_header(
    protected_b64: &str,
    unprotected: Option<&serde_json::Value>,
    max_bytes: usize,
) -> Result<Header, Error> {
    let unprotected = unprotected.map(from_serde).transpose()?;
    decode_header_value(protected_b64, unprotected.as_ref(), max_bytes)
}

/// [`decode_header`] with the unprotected header as the reader's own value.
pub(crate) fn decode_header_value(
    protected_b64: &str,
    unprotected: Option<&Value>,
    max_bytes: usize,
) -> Result<Header, Error> {
    if protected_b64.len() > max_bytes.saturating_mul(4) / 3 + 4 {
        return Err(bad(
            ErrorCode::HeaderTooLarge,
            format!("the protected header is larger than the limit of {max_bytes} bytes"),
        ));
    }
    if protected_b64.is_empty() {
        return Err(bad(
            ErrorCode::MalformedHeader,
            "the protected header is empty; A2A requires alg and kid in it",
        ));
    }
    let raw = b64::decode_strict(protected_b64).map_err(|e| {
        Error::new(
            ErrorCode::InvalidBase64url,
            format!("the protected header is not strict base64url: {}", e.message()),
        )
    })?;
    if raw.len() > max_bytes {
        return Err(bad(
            ErrorCode::HeaderTooLarge,
            format!(
                "the protected header is {} bytes, more than the limit of {max_bytes}",
                raw.len()
            ),
        ));
    }
    let limits = Limits {
        max_input_bytes: max_bytes,
        max_depth: 16,
    };
    let value = crate::canonical::value::parse_with(&raw, &limits).map_err(|e| {
        let place = match e.pointer() {
            Some(p) if !p.is_empty() => format!(" (parameter {p})"),
            _ => String::new(),
        };
        let code = match e.code() {
            ErrorCode::DuplicateMember => ErrorCode::DuplicateMember,
            _ => ErrorCode::MalformedHeader,
        };
        Error::new(
            code,
            format!("the protected header is not valid I-JSON{place}: {}", e.message()),
        )
    })?;
    let Value::Object(protected) = value else {
        return Err(bad(
            ErrorCode::MalformedHeader,
            format!(
                "the protected header must be a JSON object, found {}",
                value.type_name()
            ),
        ));
    };
    let unprotected = match unprotected {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(m)) => {
            let mut size = Vec::new();
            jcs::write_value(&mut size, &Value::Object(m.clone()));
            if size.len() > max_bytes {
                return Err(bad(
                    ErrorCode::HeaderTooLarge,
                    format!(
                        "the unprotected header is {} bytes, more than the limit of {max_bytes}",
                        size.len()
                    ),
                ));
            }
            m.clone()
        }
        Some(other) => {
            return Err(bad(
                ErrorCode::MalformedHeader,
                format!(
                    "the unprotected header must be a JSON object, found {}",
                    other.type_name()
                ),
            ))
        }
    };
    for (name, _) in &unprotected {
        if protected.iter().any(|(k, _)| k == name) {
            return Err(bad(
                ErrorCode::HeaderConflict,
                format!("header parameter {name:?} is in both the protected and the unprotected header"),
            ));
        }
        if matches!(name.as_str(), "alg" | "crit" | "b64") {
            return Err(bad(
                ErrorCode::MalformedHeader,
                format!("header parameter {name:?} must be in the protected header, not the unprotected one"),
            ));
        }
    }
    if let Some((_, crit)) = protected.iter().find(|(k, _)| k == "crit") {
        let names = match crit {
            Value::Array(items) => items
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(", "),
            _ => String::new(),
        };
        return Err(bad(
            ErrorCode::UnsupportedCrit,
            format!("header parameter \"crit\" names extensions this verifier does not understand ({names}); refused"),
        ));
    }
    if protected.iter().any(|(k, _)| k == "b64") {
        return Err(bad(
            ErrorCode::UnsupportedB64,
            "header parameter \"b64\" (RFC 7797 unencoded payload) is not supported; refused",
        ));
    }
    let alg_name = match protected.iter().find(|(k, _)| k == "alg") {
        Some((_, Value::String(s))) if !s.is_empty() => s.clone(),
        Some((_, Value::String(_))) => {
            return Err(bad(
                ErrorCode::MalformedHeader,
                "header parameter \"alg\" is empty",
            ));
        }
        Some((_, other)) => {
            return Err(bad(
                ErrorCode::MalformedHeader,
                format!(
                    "header parameter \"alg\" must be a string, found {}",
                    other.type_name()
                ),
            ))
        }
        None => {
            return Err(bad(
                ErrorCode::MalformedHeader,
                "the protected header has no \"alg\" parameter",
            ))
        }
    };
    let alg = Algorithm::from_name(&alg_name)?;
    let kid = string_param(&protected, "kid")?;
    let typ = string_param(&protected, "typ")?;
    let jku = string_param(&protected, "jku")?;
    Ok(Header {
        alg,
        kid,
        typ,
        jku,
        protected,
        unprotected,
        protected_b64: protected_b64.to_string(),
    })
}

/// The A2A rules for a card signature's header (section 8.4.2): `kid` present and non-empty in
/// the protected header, `typ` absent or `JOSE`.
///
/// ```
/// use a2a_card::jose::header::{check_card_header, decode_header};
/// // {"alg":"ES256"}: no kid
/// let h = decode_header("eyJhbGciOiJFUzI1NiJ9", None, 4096).unwrap();
/// assert_eq!(check_card_header(&h).unwrap_err().code().as_str(), "malformed-header");
/// ```
pub fn check_card_header(h: &Header) -> Result<(), Error> {
    match h.kid.as_deref() {
        None => {
            return Err(bad(
                ErrorCode::MalformedHeader,
                "the protected header has no \"kid\" parameter; A2A requires one",
            ))
        }
        Some("") => {
            return Err(bad(
                ErrorCode::MalformedHeader,
                "header parameter \"kid\" is empty",
            ))
        }
        Some(_) => {}
    }
    match h.typ.as_deref() {
        None | Some("JOSE") => Ok(()),
        Some(other) => Err(bad(
            ErrorCode::MalformedHeader,
            format!("header parameter \"typ\" is {other:?}; a card signature has typ \"JOSE\" or none"),
        )),
    }
}

/// `BASE64URL(protected) || '.' || BASE64URL(payload)`, the bytes a JWS signature covers.
///
/// ```
/// assert_eq!(a2a_card::jose::header::signing_input("eyJhbGciOiJFUzI1NiJ9", b"{}"), b"eyJhbGciOiJFUzI1NiJ9.e30".to_vec());
/// ```
pub fn signing_input(protected_b64: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    write_signing_input(&mut out, protected_b64, payload);
    out
}

/// [`signing_input`] appended to `out` (reserved first), for a buffer that is reused.
pub(crate) fn write_signing_input(out: &mut Vec<u8>, protected_b64: &str, payload: &[u8]) {
    out.reserve(protected_b64.len() + 1 + payload.len().div_ceil(3) * 4);
    out.extend_from_slice(protected_b64.as_bytes());
    out.push(b'.');
    b64::encode_into(out, payload);
}

/// Makes a signing input that [`write_signing_input`] wrote start with `protected_b64 '.'`, the
/// payload kept as it is encoded: nothing to do when it already does, else the old header (up to
/// the first `.`, which base64url never holds) is replaced.
pub(crate) fn replace_protected(input: &mut Vec<u8>, protected_b64: &str) {
    let n = protected_b64.len();
    if input.get(n) == Some(&b'.') && input.starts_with(protected_b64.as_bytes()) {
        return;
    }
    let old = input
        .iter()
        .position(|&b| b == b'.')
        .map_or(input.len(), |dot| dot + 1);
    input.splice(..old, protected_b64.bytes().chain(std::iter::once(b'.')));
}

/// The protected header a card signature carries: `alg`, `kid`, `typ: "JOSE"`, then `jku` and
/// any extra parameters, serialized with RFC 8785 and encoded base64url.
///
/// ```
/// use a2a_card::Algorithm;
/// let p = a2a_card::jose::header::encode_protected(Algorithm::EdDSA, "key-1", None, &[]).unwrap();
/// assert_eq!(p, "eyJhbGciOiJFZERTQSIsImtpZCI6ImtleS0xIiwidHlwIjoiSk9TRSJ9");
/// ```
pub fn encode_protected(
    alg: Algorithm,
    kid: &str,
    jku: Option<&str>,
    extra: &[(String, serde_json::Value)],
) -> Result<String, Error> {
    let mut members = vec![
        ("alg".to_string(), Value::String(alg.as_str().to_string())),
        ("kid".to_string(), Value::String(kid.to_string())),
        ("typ".to_string(), Value::String("JOSE".to_string())),
    ];
    if let Some(jku) = jku {
        members.push(("jku".to_string(), Value::String(jku.to_string())));
    }
    for (k, v) in extra {
        if members.iter().any(|(m, _)| m == k) {
            return Err(bad(
                ErrorCode::Usage,
                format!("header parameter {k:?} is given twice"),
            ));
        }
        if matches!(k.as_str(), "crit" | "b64") {
            return Err(bad(
                ErrorCode::Usage,
                format!("header parameter {k:?} is not supported when signing"),
            ));
        }
        if matches!(k.as_str(), "x5u" | "x5t" | "x5t#S256") {
            return Err(bad(
                ErrorCode::Usage,
                format!("header parameter {k:?} is not written by this signer; a certificate chain goes in the signer's x5c option"),
            ));
        }
        members.push((
            k.clone(),
            from_serde(v).map_err(|e| e.context(&format!("header parameter {k:?}")))?,
        ));
    }
    let mut out = Vec::new();
    jcs::write_value(&mut out, &Value::Object(members));
    Ok(b64::encode(&out))
}

/// The key a low-level verification uses: a public key, or, only when the caller hands one over
/// explicitly, an HMAC shared secret.
#[derive(Debug, Clone, Copy)]
pub enum VerificationKey<'a> {
    /// An asymmetric public key.
    Public(&'a PublicKey),
    /// A shared secret for HS256/384/512.
    SharedSecret(&'a [u8]),
}

/// Verifies one flattened JWS (`{"protected","signature","header"?}`, payload detached) over
/// `payload`, with the RFC 7515 header rules of [`decode_header`] but not the A2A ones. Returns
/// the decoded header on success.
///
/// ```
/// use a2a_card::jose::header::{signing_input, verify_detached, VerificationKey};
/// use a2a_card::jose::crypto::sign_hmac;
/// use a2a_card::Algorithm;
/// let secret = [7u8; 32];
/// let protected = "eyJhbGciOiJIUzI1NiJ9"; // {"alg":"HS256"}
/// let sig = sign_hmac(Algorithm::HS256, &secret, &signing_input(protected, b"hi")).unwrap();
/// let sig: String = sig.iter().map(|b| format!("{b:02x}")).collect::<String>();
/// # let sig = { use base64::Engine as _; base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sign_hmac(Algorithm::HS256, &secret, &signing_input(protected, b"hi")).unwrap()) };
/// let jws = format!(r#"{{"protected":"{protected}","signature":"{sig}"}}"#);
/// assert!(verify_detached(&jws, b"hi", VerificationKey::SharedSecret(&secret)).is_ok());
/// assert!(verify_detached(&jws, b"ho", VerificationKey::SharedSecret(&secret)).is_err());
/// ```
pub fn verify_detached(jws: &str, payload: &[u8], key: VerificationKey<'_>) -> Result<Header, Error> {
    let jws = crate::canonical::value::parse(jws.as_bytes())?;
    let jws = &jws;
    let Value::Object(_) = jws else {
        return Err(bad(
            ErrorCode::MalformedHeader,
            "a flattened JWS must be a JSON object",
        ));
    };
    let protected = match jws.get("protected") {
        Some(Value::String(s)) => s.as_str(),
        _ => {
            return Err(bad(
                ErrorCode::MalformedHeader,
                "the JWS has no \"protected\" string",
            ))
        }
    };
    let signature = match jws.get("signature") {
        Some(Value::String(s)) => s.as_str(),
        _ => {
            return Err(bad(
                ErrorCode::MalformedHeader,
                "the JWS has no \"signature\" string",
            ))
        }
    };
    let header = decode_header_value(protected, jws.get("header"), DEFAULT_MAX_HEADER_BYTES)?;
    let sig = b64::decode_strict(signature).map_err(|e| {
        Error::new(
            ErrorCode::InvalidBase64url,
            format!("the signature is not strict base64url: {}", e.message()),
        )
    })?;
    let input = signing_input(protected, payload);
    match key {
        VerificationKey::Public(k) => alg::verify(header.alg, k, &input, &sig)?,
        VerificationKey::SharedSecret(s) => alg::verify_hmac(header.alg, s, &input, &sig)?,
    }
    Ok(header)
}

#[cfg(test)]
mod tests {
    use super::{replace_protected, signing_input, write_signing_input};

    /// A signing input whose protected header is replaced, by a shorter, a longer, the same or
    /// an empty one, is the signing input written with that header over the same payload.
    #[test]
    fn replacing_the_protected_header_keeps_the_payload() {
        let payload = br#"{"name":"A","skills":[]}"#;
        let mut input = Vec::new();
        write_signing_input(&mut input, "eyJhbGciOiJFUzI1NiJ9", payload);
        for protected in [
            "e30",
            "eyJhbGciOiJFZERTQSIsImtpZCI6ImsifQ",
            "eyJhbGciOiJFZERTQSIsImtpZCI6ImsifQ",
            "",
            "eyJhbGciOiJFUzI1NiJ9",
        ] {
            replace_protected(&mut input, protected);
            assert_eq!(input, signing_input(protected, payload), "{protected:?}");
        }
    }
}
