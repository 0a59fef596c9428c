//! JWK and JWK Set (RFC 7517) reading and writing, with the consistency rules: no foreign
//! members, exact lengths, points on their curve, private parts matching public parts.

use super::kind::KeyType;
use super::private::left_pad;
use super::private::{build_private, PrivateKey, Secret};
use super::public::bit_len;
use super::public::{validate_public, PublicKey, PublicMaterial, Src};
use crate::error::{Error, ErrorCode};
use crate::jose::algorithm::Algorithm;
use crate::jose::b64;
use serde_json::{Map, Value as Json};

impl PublicKey {
    /// Reads a public JWK (RFC 7517/7518/8037). Private members, when present, are checked for
    /// their length and then ignored. `use` other than `sig` is refused.
    ///
    /// ```
    /// use serde_json::json;
    /// use a2a_card::jose::keys::PublicKey;
    /// let jwk = json!({"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"});
    /// // RFC 8037 appendix A.3 gives this key's thumbprint.
    /// assert_eq!(PublicKey::from_jwk(&jwk).unwrap().kid(), "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k");
    /// let bad = json!({"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","y":"AA"});
    /// let err = PublicKey::from_jwk(&bad).unwrap_err();
    /// assert_eq!((err.code().as_str(), err.pointer()), ("jwk-inconsistent", Some("/y")));
    /// ```
    pub fn from_jwk(jwk: &Json) -> Result<PublicKey, Error> {
        public_jwk_with(jwk, "", Members::Any)
    }

    /// Reads a public JWK from JSON text with the strict reader (duplicate members refused).
    pub fn from_jwk_str(text: &str) -> Result<PublicKey, Error> {
        PublicKey::from_jwk(&strict_json(text)?)
    }

    /// The public JWK: `kty`, `crv`, `x`, `y` / `n`, `e`, then `kid` and `alg` when known.
    pub fn to_jwk(&self) -> Json {
        let mut m = Map::new();
        m.insert("kty".into(), Json::from(self.kind.kty()));
        match &self.material {
            PublicMaterial::Okp { x } => {
                m.insert("crv".into(), Json::from(self.kind.name()));
                m.insert("x".into(), Json::from(b64::encode(x)));
            }
            PublicMaterial::Ec { x, y } => {
                m.insert("crv".into(), Json::from(self.kind.name()));
                m.insert("x".into(), Json::from(b64::encode(x)));
                m.insert("y".into(), Json::from(b64::encode(y)));
            }
            PublicMaterial::Rsa { n, e } => {
                m.insert("n".into(), Json::from(b64::encode(n)));
                m.insert("e".into(), Json::from(b64::encode(e)));
            }
        }
        m.insert("kid".into(), Json::from(self.kid.clone()));
        if let Some(alg) = self.alg {
            m.insert("alg".into(), Json::from(alg.as_str()));
        }
        Json::Object(m)
    }
}

/// Reads a JWK Set (`{"keys":[...]}`, RFC 7517 section 5) or a single JWK, with the strict JSON
/// reader. Entries whose `use` is `enc` are skipped (they are not signature keys); any other
/// entry that cannot be loaded fails the whole set, with the JSON Pointer of the entry.
///
/// ```
/// let keys = a2a_card::jose::keys::parse_jwks(r#"{"keys":[
///   {"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"a"},
///   {"kty":"EC","crv":"P-256","kid":"b","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
///    "y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}"#).unwrap();
/// assert_eq!(keys.iter().map(|k| k.kid()).collect::<Vec<_>>(), ["a", "b"]);
/// let err = a2a_card::jose::keys::parse_jwks(r#"{"keys":[{"kty":"EC","crv":"Ed25519","x":"AA"}]}"#).unwrap_err();
/// assert_eq!(err.code().as_str(), "jwk-inconsistent");
/// assert_eq!(err.pointer(), Some("/keys/0/crv"));
/// ```
pub fn parse_jwks(text: &str) -> Result<Vec<PublicKey>, Error> {
    if text.trim_start().starts_with("-----BEGIN") {
        return Err(crate::error::option_error(
            ErrorCode::InvalidKey,
            "this is a PEM key, not a JWK Set (JSON with a \"keys\" list): give it as one key \
             ({keys}), or make a JWK Set of it",
            &["keys"],
        ));
    }
    jwks_from_value(&strict_json(text)?)
}

/// [`parse_jwks`] for a set from a party that is not trusted to bound its own size (a JWKS
/// fetched from a `jku`): more than `max_keys` entries is refused with `too-many-keys` before
/// any key is read.
///
/// ```
/// let set = r#"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
///   {"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}"#;
/// assert_eq!(a2a_card::jose::keys::parse_jwks_limited(set, 2).unwrap().len(), 2);
/// let err = a2a_card::jose::keys::parse_jwks_limited(set, 1).unwrap_err();
/// assert_eq!(err.code().as_str(), "too-many-keys");
/// ```
pub fn parse_jwks_limited(text: &str, max_keys: usize) -> Result<Vec<PublicKey>, Error> {
    let v = strict_json(text)?;
    if let Some(Json::Array(keys)) = v.get("keys") {
        if keys.len() > max_keys {
            return Err(Error::new(
                ErrorCode::TooManyKeys,
                format!(
                    "the JWK Set holds {} keys, more than the limit of {max_keys}",
                    keys.len()
                ),
            )
            .at("/keys"));
        }
    }
    jwks_read(&v, Members::Any)
}

/// [`parse_jwks`] on an already parsed JSON value: a set (or a single JWK) the verifier chose,
/// so each key carries only the [`REGISTERED_MEMBERS`] ([`check_members`]).
pub fn jwks_from_value(v: &Json) -> Result<Vec<PublicKey>, Error> {
    jwks_read(v, Members::Registered)
}

/// One JWK read with the members `members` allows; `prefix` is its JSON Pointer.
pub(super) fn public_jwk_with(jwk: &Json, prefix: &str, members: Members) -> Result<PublicKey, Error> {
    refuse_card(jwk, ErrorCode::InvalidKey)?;
    jwk_members(jwk, prefix, members)?;
    public_from_jwk_at(jwk, prefix)
}

/// [`check_members`] on one JWK at `prefix`, with the `invalid-key` code.
fn jwk_members(jwk: &Json, prefix: &str, members: Members) -> Result<(), Error> {
    match jwk {
        Json::Object(obj) => check_members(obj.keys().map(String::as_str), members, ErrorCode::InvalidKey)
            .map_err(|e| e.under(prefix)),
        _ => Ok(()),
    }
}

/// Whether a JWK is for something else than signatures, which a JWK Set skips: `"use": "enc"`,
/// or a `key_ops` list naming neither `verify` nor `sign` (RFC 7517 section 4.3).
fn not_for_signatures(jwk: &Json) -> bool {
    jwk.get("use").and_then(Json::as_str) == Some("enc")
        || key_ops(jwk).is_ok_and(|ops| ops.is_some_and(|ops| !signs(&ops)))
}

/// The `key_ops` values RFC 7517 section 4.3 registers.
const REGISTERED_KEY_OPS: [&str; 8] = [
    "sign",
    "verify",
    "encrypt",
    "decrypt",
    "wrapKey",
    "unwrapKey",
    "deriveKey",
    "deriveBits",
];

/// A JWK's `key_ops` list (RFC 7517 section 4.3): `Ok(None)` when it has none, `Err(())` when
/// it is not an array of strings (which the key reader refuses).
fn key_ops(jwk: &Json) -> Result<Option<Vec<&str>>, ()> {
    match jwk.get("key_ops") {
        None => Ok(None),
        Some(Json::Array(items)) => items
            .iter()
            .map(Json::as_str)
            .collect::<Option<Vec<_>>>()
            .map(Some)
            .ok_or(()),
        Some(_) => Err(()),
    }
}

/// Whether the operations `ops` include a signature's: `verify`, or `sign` for a private key.
fn signs(ops: &[&str]) -> bool {
    ops.iter().any(|o| matches!(*o, "verify" | "sign"))
}

fn jwks_read(v: &Json, members: Members) -> Result<Vec<PublicKey>, Error> {
    let Some(keys) = v.get("keys") else {
        return Ok(vec![public_jwk_with(v, "", members)?]);
    };
    let Json::Array(keys) = keys else {
        return Err(Error::new(ErrorCode::InvalidKey, "JWKS member \"keys\" must be an array").at("/keys"));
    };
    let mut out = Vec::with_capacity(keys.len());
    for (i, jwk) in keys.iter().enumerate() {
        if jwk.get("kty").is_none() && (jwk.get("jwk").is_some() || jwk.get("pem").is_some()) {
            return Err(crate::error::option_error(
                ErrorCode::InvalidKey,
                "this looks like a trust store (its entries hold \"jwk\" or \"pem\"), not a JWK Set: \
                 give it as a trust store ({trust})",
                &["trust"],
            )
            .at(format!("/keys/{i}")));
        }
        // Every key of the set says only what it means, the keys it skips too.
        let at = format!("/keys/{i}");
        jwk_members(jwk, &at, members)?;
        if not_for_signatures(jwk) {
            continue;
        }
        out.push(public_from_jwk_at(jwk, &at)?);
    }
    Ok(out)
}

impl PrivateKey {
    /// Reads a private JWK (it must hold `d`, and for RSA also `p`, `q`, `dp`, `dq`, `qi`).
    /// The private part must match the public part, else `jwk-inconsistent`.
    ///
    /// ```
    /// use serde_json::json;
    /// // RFC 8037 appendix A.1.
    /// let jwk = json!({"kty":"OKP","crv":"Ed25519",
    ///   "d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A",
    ///   "x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"});
    /// let key = a2a_card::jose::keys::PrivateKey::from_jwk(&jwk).unwrap();
    /// assert_eq!(key.kid(), "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k");
    /// let mut wrong = jwk.clone();
    /// wrong["x"] = json!("fU0Of2FTpptiQrUiq77mhf2kQg-INLEIw72uNp71Sfo");
    /// assert_eq!(a2a_card::jose::keys::PrivateKey::from_jwk(&wrong).unwrap_err().code().as_str(), "jwk-inconsistent");
    /// ```
    pub fn from_jwk(jwk: &Json) -> Result<PrivateKey, Error> {
        let parts = jwk_parts(jwk, "")?;
        let src = Src::Jwk("");
        let Some(secret) = parts.secret else {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "this JWK has no private member \"d\"; signing needs a private key",
            )
            .at("/d"));
        };
        build_private(
            parts.kind,
            Some(parts.material),
            secret,
            parts.kid,
            parts.alg,
            src,
        )
    }

    /// Reads a private JWK from JSON text with the strict reader.
    pub fn from_jwk_str(text: &str) -> Result<PrivateKey, Error> {
        PrivateKey::from_jwk(&strict_json(text)?)
    }

    /// The private JWK: the public members, the private ones (`d`, and for RSA `p`, `q`, `dp`,
    /// `dq`, `qi`), then `kid` and `alg`. Handle with care: it contains the secret.
    pub fn to_jwk_private(&self) -> Json {
        let mut jwk = self.public.to_jwk();
        if let Json::Object(m) = &mut jwk {
            let kid = m.remove("kid");
            let alg = m.remove("alg");
            let field = self.public.kind.field_len();
            match &self.secret {
                Secret::Okp { d } => {
                    m.insert("d".into(), Json::from(b64::encode(d)));
                }
                Secret::Ec { d } => {
                    m.insert("d".into(), Json::from(b64::encode(left_pad(d, field))));
                }
                Secret::Rsa { d, p, q, dp, dq, qi } => {
                    for (name, v) in [("d", d), ("p", p), ("q", q), ("dp", dp), ("dq", dq), ("qi", qi)] {
                        m.insert(name.into(), Json::from(b64::encode(v)));
                    }
                }
            }
            if let Some(kid) = kid {
                m.insert("kid".into(), kid);
            }
            if let Some(alg) = alg {
                m.insert("alg".into(), alg);
            }
        }
        jwk
    }
}

// ---------------------------------------------------------------------------------------------
// JWK
// ---------------------------------------------------------------------------------------------

pub(super) struct JwkParts {
    pub(super) kind: KeyType,
    pub(super) material: PublicMaterial,
    pub(super) secret: Option<Secret>,
    pub(super) kid: Option<String>,
    pub(super) alg: Option<Algorithm>,
}

/// One JWK's key at `prefix`, its member names already checked ([`jwk_members`]).
fn public_from_jwk_at(jwk: &Json, prefix: &str) -> Result<PublicKey, Error> {
    let parts = jwk_parts(jwk, prefix)?;
    Ok(PublicKey::assemble(
        parts.kind,
        parts.material,
        parts.kid,
        parts.alg,
    ))
}

/// The JWK members the JOSE registries define: RFC 7517 section 4, RFC 7518 section 6, RFC
/// 8037, and the IANA "JSON Web Key Parameters" registry (`ext` of Web Cryptography, `iat`). A
/// JWK read as a trust root carries only these (and none of the policy members of
/// [`policy_member`]).
///
/// ```
/// use a2a_card::jose::keys::REGISTERED_MEMBERS;
/// assert!(REGISTERED_MEMBERS.contains(&"x5t#S256"));
/// assert!(!REGISTERED_MEMBERS.contains(&"revoked"));
/// ```
pub const REGISTERED_MEMBERS: &[&str] = &[
    "kty", "use", "key_ops", "alg", "kid", "x5u", "x5c", "x5t", "x5t#S256", "crv", "x", "y", "d", "n", "e",
    "p", "q", "dp", "dq", "qi", "oth", "k", "ext", "iat",
];

/// For a member that says what a key may do (`revoked`, a validity time, origins, algorithms),
/// the trust-store entry member that says it and an example value; `None` for any other name.
/// Written on a JWK such a member would be ignored (a JWK is a key, not a policy), so every
/// reader of a JWK refuses it and shows where it belongs: beside the JWK in a trust-store
/// entry, `{"jwk": {...}, "revoked": true}`. `exp`, `nbf` and `revoked`, which some JWK Sets
/// carry for the same meaning, are refused the same way.
///
/// ```
/// use a2a_card::jose::keys::policy_member;
/// assert_eq!(policy_member("exp"), Some(("notAfter", "\"2027-01-01T00:00:00Z\"")));
/// assert_eq!(policy_member("revoked"), Some(("revoked", "true")));
/// assert_eq!(policy_member("kid"), None);
/// ```
pub fn policy_member(name: &str) -> Option<(&'static str, &'static str)> {
    Some(match name {
        "revoked" => ("revoked", "true"),
        "notBefore" | "nbf" => ("notBefore", "\"2026-01-01T00:00:00Z\""),
        "notAfter" | "exp" => ("notAfter", "\"2027-01-01T00:00:00Z\""),
        "origins" => ("origins", "[\"https://agent.example\"]"),
        "algorithms" => ("algorithms", "[\"ES256\"]"),
        _ => return None,
    })
}

/// Which JWK members a reader accepts besides the key's own.
///
/// ```
/// use a2a_card::jose::keys::{check_members, Members};
/// let names = ["kty", "crv", "x", "issuer"];
/// assert!(check_members(names.into_iter(), Members::Any, a2a_card::ErrorCode::InvalidKey).is_ok());
/// assert!(check_members(names.into_iter(), Members::Registered, a2a_card::ErrorCode::InvalidKey).is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Members {
    /// Only the [`REGISTERED_MEMBERS`]: a key the verifier chose as a trust root (a key or JWK
    /// Set file, a trust-store entry), where a member this library does not know could be a
    /// rule it would ignore.
    Registered,
    /// Any member but a policy member: a key someone else published (a JWK Set served at a
    /// `jku`, a header's `jwk`), whose other members are no rule of the verifier's.
    Any,
}

/// Checks the member names of one JWK: a policy member ([`policy_member`]) is refused
/// wherever it is, with the trust-store form that says it; with [`Members::Registered`] a
/// member outside [`REGISTERED_MEMBERS`] is refused too. The error has `code` and the JSON
/// Pointer of the member (relative to the JWK).
///
/// ```
/// use a2a_card::jose::keys::{check_members, Members};
/// use a2a_card::ErrorCode;
/// let e = check_members(["kty", "x", "revoked"].into_iter(), Members::Any, ErrorCode::InvalidKey).unwrap_err();
/// assert_eq!((e.code().as_str(), e.pointer()), ("invalid-key", Some("/revoked")));
/// assert!(e.message().contains(r#"{"jwk": {...}, "revoked": true}"#));
/// assert!(check_members(["kty", "issuer"].into_iter(), Members::Any, ErrorCode::InvalidKey).is_ok());
/// let e = check_members(["kty", "issuer"].into_iter(), Members::Registered, ErrorCode::InvalidKey).unwrap_err();
/// assert_eq!(e.pointer(), Some("/issuer"));
/// ```
pub fn check_members<'a>(
    names: impl Iterator<Item = &'a str>,
    members: Members,
    code: ErrorCode,
) -> Result<(), Error> {
    let at = |name: &str| format!("/{}", crate::pointer_token(name));
    for name in names {
        if let Some((member, example)) = policy_member(name) {
            return Err(Error::new(
                code,
                format!(
                    "JWK member {} is trust policy, which a JWK cannot carry (it would be ignored, and the key \
                     trusted without it): write the key as a trust-store entry with the policy beside the JWK, \
                     {{\"jwk\": {{...}}, \"{member}\": {example}}}",
                    Json::from(name)
                ),
            )
            .at(at(name)));
        }
        if members == Members::Registered && !REGISTERED_MEMBERS.contains(&name) {
            return Err(Error::new(
                code,
                format!(
                    "JWK member {} is not a JWK parameter of RFC 7517 or its registries, and a key read as \
                     a trust root carries no member whose meaning would be ignored (known: {}); policy \
                     goes beside the JWK in a trust-store entry, {{\"jwk\": {{...}}, \"revoked\": true}}",
                    Json::from(name),
                    REGISTERED_MEMBERS.join(", ")
                ),
            )
            .at(at(name)));
        }
    }
    Ok(())
}

pub(super) const OKP_FOREIGN: &[&str] = &["y", "n", "e", "p", "q", "dp", "dq", "qi", "oth", "k"];
pub(super) const EC_FOREIGN: &[&str] = &["n", "e", "p", "q", "dp", "dq", "qi", "oth", "k"];
pub(super) const RSA_FOREIGN: &[&str] = &["crv", "x", "y", "k"];

/// The JWK members that hold private key material (RFC 7518 section 6).
const PRIVATE_MEMBERS: &[&str] = &["d", "p", "q", "dp", "dq", "qi", "k", "oth"];

/// Whether an object with the member names `names` looks like an Agent Card rather than a key:
/// no `kty`, and at least two members an Agent Card has (A2A v1.0 or 0.3).
fn card_names<'a>(names: impl Iterator<Item = &'a str>) -> bool {
    let mut card_members = 0;
    for name in names {
        if name == "kty" {
            return false;
        }
        if crate::canonical::table::AGENT_CARD.field(name).is_some()
            || crate::canonical::table::is_legacy_name(name)
        {
            card_members += 1;
        }
    }
    card_members >= 2
}

/// The refusal of an Agent Card given where a key (a JWK, a JWK Set, a trust store) was
/// expected, with `code`, when the object with the member names `names` looks like one. It
/// says what the text looks like and never repeats any of it.
pub(crate) fn refuse_card_names<'a>(
    names: impl Iterator<Item = &'a str>,
    code: ErrorCode,
) -> Result<(), Error> {
    if card_names(names) {
        return Err(Error::new(
            code,
            "this looks like an Agent Card (members an Agent Card has, no \"kty\"), not a key: \
             was the card given in the key's place?",
        )
        .at(""));
    }
    Ok(())
}

/// [`refuse_card_names`] on a JSON value (anything but an object passes).
fn refuse_card(v: &Json, code: ErrorCode) -> Result<(), Error> {
    match v {
        Json::Object(obj) => refuse_card_names(obj.keys().map(String::as_str), code),
        _ => Ok(()),
    }
}

pub(super) fn jwk_parts(jwk: &Json, prefix: &str) -> Result<JwkParts, Error> {
    if prefix.is_empty() {
        refuse_card(jwk, ErrorCode::InvalidKey)?;
    }
    let src = Src::Jwk(prefix);
    let at = |m: &str| format!("{prefix}/{m}");
    let Json::Object(obj) = jwk else {
        return Err(Error::new(ErrorCode::InvalidKey, "a JWK must be a JSON object").at(prefix.to_string()));
    };
    let string = |name: &str| -> Result<Option<&str>, Error> {
        match obj.get(name) {
            None => Ok(None),
            Some(Json::String(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(Error::new(
                ErrorCode::InvalidKey,
                format!("JWK member \"{name}\" must be a string, not {}", json_type(other)),
            )
            .at(at(name))),
        }
    };
    let bytes = |name: &str| -> Result<Option<Vec<u8>>, Error> {
        match string(name)? {
            None => Ok(None),
            Some(s) => b64::decode_strict(s).map(Some).map_err(|e| {
                // The reason names the offending character: not for a private member, whose
                // text is key material.
                let why = if PRIVATE_MEMBERS.contains(&name) {
                    " (which character is not shown: it is private key material)".to_string()
                } else {
                    format!(": {}", e.message())
                };
                Error::new(
                    ErrorCode::InvalidKey,
                    format!("JWK member \"{name}\" is not strict base64url{why}"),
                )
                .at(at(name))
            }),
        }
    };
    let required = |name: &str| -> Result<Vec<u8>, Error> {
        bytes(name)?.ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidKey,
                format!("JWK member \"{name}\" is required"),
            )
            .at(at(name))
        })
    };

    let kty = string("kty")?
        .ok_or_else(|| Error::new(ErrorCode::InvalidKey, "JWK member \"kty\" is required").at(at("kty")))?;
    if let Some(u) = string("use")? {
        if u != "sig" {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                // Key text may be a private key damaged in transit: a value the formats do not
                // register is not repeated (it could be a piece of the key).
                if u == "enc" {
                    "JWK \"use\" is \"enc\"; a signature key has \"use\":\"sig\" or no \"use\""
                } else {
                    "JWK \"use\" is not \"sig\"; a signature key has \"use\":\"sig\" or no \"use\""
                },
            )
            .at(at("use")));
        }
    }
    match key_ops(jwk) {
        Err(()) => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "JWK member \"key_ops\" must be an array of strings",
            )
            .at(at("key_ops")))
        }
        Ok(Some(names)) if !signs(&names) => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                // Only the names RFC 7517 registers are repeated: key text may be a damaged
                // private key, and another name could be a piece of it.
                format!(
                    "JWK \"key_ops\" is {}{}; a signature key lists \"verify\" (or \"sign\", for a private key)",
                    Json::from(names.iter().filter(|n| REGISTERED_KEY_OPS.contains(n)).map(|n| Json::from(*n)).collect::<Vec<_>>()),
                    match names.iter().filter(|n| !REGISTERED_KEY_OPS.contains(n)).count() {
                        0 => String::new(),
                        1 => " and a name RFC 7517 does not register".to_string(),
                        n => format!(" and {n} names RFC 7517 does not register"),
                    }
                ),
            )
            .at(at("key_ops")));
        }
        Ok(_) => {}
    }
    let kid = string("kid")?.map(str::to_string);
    let alg = match string("alg")? {
        None => None,
        // A name that is no algorithm's, in any case, is not repeated (the algorithm's own
        // error does): key text may be a damaged private key. A registered name in the wrong
        // case keeps the error's "did you mean".
        Some(name) => Some(Algorithm::from_name(name).map_err(|e| {
            let e = if Algorithm::is_known_name(name) {
                e
            } else {
                let supported = Algorithm::names();
                Error::new(e.code(), format!("unknown JWK \"alg\"; supported: {supported}"))
            };
            e.at(at("alg"))
        })?),
    };
    let foreign: &[&str] = match kty {
        "OKP" => OKP_FOREIGN,
        "EC" => EC_FOREIGN,
        "RSA" => RSA_FOREIGN,
        "oct" => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "a JWK of kty \"oct\" is a shared secret, not a signature key pair; HMAC secrets are passed explicitly",
            )
            .at(at("kty")))
        }
        _ => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                // The value is not repeated: key text may be a damaged private key.
                "unsupported JWK kty; expected OKP, EC or RSA (the names are case-sensitive)",
            )
            .at(at("kty")))
        }
    };
    if let Some(m) = foreign.iter().find(|m| obj.contains_key(**m)) {
        return Err(src.inconsistent(m, format!("a JWK of kty {kty} has no member \"{m}\"")));
    }

    let (kind, material, secret) = match kty {
        "OKP" | "EC" => {
            let crv = string("crv")?.ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidKey,
                    format!("JWK member \"crv\" is required for kty {kty}"),
                )
                .at(at("crv"))
            })?;
            let kind =
                match KeyType::from_crv(crv) {
                    Some(k) if k.kty() == kty => k,
                    Some(k) => {
                        return Err(src
                            .inconsistent("crv", format!("crv {crv} belongs to kty {}, not {kty}", k.kty())))
                    }
                    None if matches!(crv, "X25519" | "X448") => {
                        return Err(src
                            .inconsistent("crv", format!("{crv} is a key-agreement curve; it cannot sign")))
                    }
                    None => {
                        return Err(
                            // `crv` is not repeated: key text may be a damaged private key.
                            Error::new(
                                ErrorCode::InvalidKey,
                                "unsupported crv; expected Ed25519, Ed448, P-256, P-384, P-521 or secp256k1 \
                             (X25519 and X448 are key-agreement curves)",
                            )
                            .at(at("crv")),
                        );
                    }
                };
            let len = kind.field_len();
            let x = required("x")?;
            let material = if kty == "OKP" {
                PublicMaterial::Okp { x }
            } else {
                PublicMaterial::Ec { x, y: required("y")? }
            };
            validate_public(kind, &material, src)?;
            let secret = match bytes("d")? {
                None => None,
                Some(d) => {
                    if d.len() != len {
                        return Err(src.inconsistent(
                            "d",
                            format!(
                                "a {kind} private key is exactly {len} bytes, this one is {}",
                                d.len()
                            ),
                        ));
                    }
                    Some(if kty == "OKP" {
                        Secret::Okp { d }
                    } else {
                        Secret::Ec { d }
                    })
                }
            };
            (kind, material, secret)
        }
        _ => {
            let n = required("n")?;
            let e = required("e")?;
            let kind = KeyType::Rsa { bits: bit_len(&n) };
            let material = PublicMaterial::Rsa { n, e };
            validate_public(kind, &material, src)?;
            let secret = match bytes("d")? {
                None => None,
                Some(d) => {
                    if obj.contains_key("oth") {
                        return Err(Error::new(
                            ErrorCode::InvalidKey,
                            "multi-prime RSA keys (\"oth\") are not supported",
                        )
                        .at(at("oth")));
                    }
                    let mut crt = Vec::with_capacity(5);
                    for name in ["p", "q", "dp", "dq", "qi"] {
                        crt.push(bytes(name)?.ok_or_else(|| {
                            Error::new(
                                ErrorCode::InvalidKey,
                                format!("RSA private JWK without \"{name}\": the CRT members p, q, dp, dq and qi are required"),
                            )
                            .at(at(name))
                        })?);
                    }
                    let mut it = crt.into_iter();
                    let mut next = || it.next().unwrap_or_default();
                    let (p, q, dp, dq, qi) = (next(), next(), next(), next(), next());
                    if let PublicMaterial::Rsa { n, .. } = &material {
                        if d.len() > n.len() {
                            return Err(
                                src.inconsistent("d", "the private exponent is longer than the modulus")
                            );
                        }
                    }
                    Some(Secret::Rsa { d, p, q, dp, dq, qi })
                }
            };
            (kind, material, secret)
        }
    };
    if let Some(a) = alg {
        if !kind.fits(a) {
            return Err(src.inconsistent(
                "alg",
                format!("{a} needs {}; this JWK is a {kind} key", a.needs()),
            ));
        }
    }
    Ok(JwkParts {
        kind,
        material,
        secret,
        kid,
        alg,
    })
}

pub(super) fn json_type(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// Reads key text (a JWK, a JWK Set) with the crate's strict reader (duplicates, lone
/// surrogates refused) and converts it to a `serde_json::Value`. Key text may be a private key:
/// the reader runs in its mode whose messages never quote the input ([`read_key_text`]).
pub(super) fn strict_json(text: &str) -> Result<Json, Error> {
    Ok(crate::canonical::value::to_serde(&read_key_text(text)?))
}

/// Reads key text (a JWK, a JWK Set, a trust store) with the strict reader in its mode for
/// secrets: no message quotes the text, and the JSON Pointer names only [`shown_key_name`]s.
/// Every reader of key text goes through here, so the same bad text gets the same code,
/// message, pointer and offset whatever reads it.
pub(crate) fn read_key_text(text: &str) -> Result<crate::canonical::value::Value, Error> {
    crate::canonical::value::parse_key_text(text.as_bytes(), shown_key_name)
}

/// The member names of key text that an error's JSON Pointer may show: those the formats
/// define (the [`REGISTERED_MEMBERS`] of a JWK, a JWK Set's `keys`, the members of a
/// trust-store entry and anchor, and the policy names [`policy_member`] knows). They are the
/// same for every key, so they give nothing away. Any other name is text of the key: in text
/// that is not JSON, a private member's value can read as a member name (`{..., "Xb3...",`
/// where `"d":` was lost), so the reader's pointer stops at the object that holds it.
fn shown_key_name(name: &str) -> bool {
    const KEY_TEXT_MEMBERS: &[&str] = &[
        "keys",
        "jwk",
        "pem",
        "certificate",
        "identities",
        "identityPrefixes",
    ];
    REGISTERED_MEMBERS.contains(&name) || KEY_TEXT_MEMBERS.contains(&name) || policy_member(name).is_some()
}
