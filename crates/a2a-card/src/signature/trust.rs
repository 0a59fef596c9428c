//! Trust roots chosen by the verifier: pinned keys, a JWKS, or a trust store whose entries carry
//! policy (allowed algorithms, origins, a validity window, a revoked flag).
//!
//! The trust store file is JSON: `{"keys": [ENTRY, ...]}` where each ENTRY is either a plain JWK
//! (so any JWKS is a trust store whose keys have no extra policy) or an object
//!
//! ```json
//! {
//!   "jwk": { "kty": "EC", "crv": "P-256", "x": "...", "y": "...", "kid": "release-2026" },
//!   "kid": "release-2026",
//!   "algorithms": ["ES256"],
//!   "origins": ["https://agent.example.com"],
//!   "notBefore": "2026-01-01T00:00:00Z",
//!   "notAfter": "2027-01-01T00:00:00Z",
//!   "revoked": false
//! }
//! ```
//!
//! where `jwk` may be replaced by `pem` (a public or private key in PEM; only its public half is
//! kept). Times are RFC 3339 strings or integer seconds since the Unix epoch. `kid` overrides the
//! JWK's own `kid`; without either the RFC 7638 thumbprint is the `kid`. Unknown entry members
//! are refused, so a misspelled policy never silently widens trust.
//!
//! An entry with `certificate` (PEM of one CA certificate) instead of `jwk` or `pem` is a trust
//! anchor for `x5c` chains (`signature/chain.rs`): it takes `origins`, `algorithms`,
//! `notBefore`, `notAfter` and `revoked` as a key does, and `identities` (URIs such as SPIFFE
//! IDs or DNS names the leaf must name) and `identityPrefixes` (URI prefixes ending with `/`).
//! It has no `kid`: a `kid` never selects an anchor.

use crate::canonical::value::Value;
use crate::error::{Error, ErrorCode};
use crate::jose::keys::{check_members, Members, PublicKey};
use crate::jose::Algorithm;
pub use crate::signature::origin::{Origin, ORIGIN_FORM};
use crate::signature::report::KeySource;

/// One trusted key and the policy that limits it.
#[derive(Debug, Clone)]
pub struct TrustedKey {
    /// The key. Its `kid` is the lookup hint signatures name.
    pub key: PublicKey,
    /// Algorithms this key may be used with; `None` means whatever fits the key.
    pub algorithms: Option<Vec<Algorithm>>,
    /// Origins whose cards this key may sign; `None` means any.
    pub origins: Option<Vec<Origin>>,
    /// Not valid before this time (seconds since the Unix epoch).
    pub not_before: Option<i64>,
    /// Not valid after this time (seconds since the Unix epoch).
    pub not_after: Option<i64>,
    /// Never used when true.
    pub revoked: bool,
    /// Where the key came from, for reports.
    pub source: KeySource,
}

impl TrustedKey {
    /// A key trusted without extra policy.
    pub fn new(key: PublicKey, source: impl Into<KeySource>) -> Self {
        TrustedKey {
            key,
            algorithms: None,
            origins: None,
            not_before: None,
            not_after: None,
            revoked: false,
            source: source.into(),
        }
    }

    /// The key's `kid`.
    pub fn kid(&self) -> &str {
        self.key.kid()
    }
}

/// A CA certificate the verifier chose as a root for `x5c` chains, and the policy that limits it.
#[derive(Debug, Clone)]
pub struct TrustAnchor {
    /// The certificate, DER.
    pub der: Vec<u8>,
    /// Its subject, for reports.
    pub subject: String,
    /// Identities the leaves it certifies must name (one of them); `None`: the verifier's rules.
    pub identities: Option<Vec<crate::signature::Identity>>,
    /// Algorithms its leaves may sign with; `None`: whatever fits the leaf's key.
    pub algorithms: Option<Vec<Algorithm>>,
    /// Origins whose cards its leaves may sign; `None` means any.
    pub origins: Option<Vec<Origin>>,
    /// Not used before this time (seconds since the Unix epoch).
    pub not_before: Option<i64>,
    /// Not used after this time.
    pub not_after: Option<i64>,
    /// Never used when true.
    pub revoked: bool,
    /// Where it came from, for reports.
    pub source: KeySource,
}

impl TrustAnchor {
    /// An anchor from a DER certificate, without extra policy; `certificate-malformed` when it
    /// does not decode or path validation cannot use it.
    /// A certificate whose key is weak (a small-order Ed25519 or Ed448 point, under which
    /// anyone can make a signature that verifies, so anyone could issue certificates under it;
    /// RSA under 2048 bits) is refused with `weak-key`.
    pub fn from_der(der: Vec<u8>, source: impl Into<KeySource>) -> Result<TrustAnchor, Error> {
        let summary = crate::jose::x509::summary(&der)?;
        crate::jose::keys::refuse_weak_spki(&summary.spki)
            .map_err(|e| e.context("the trust anchor's key"))?;
        webpki::anchor_from_trusted_cert(&rustls_pki_types::CertificateDer::from(der.as_slice())).map_err(
            |e| {
                Error::new(
                    ErrorCode::CertificateMalformed,
                    format!("the certificate cannot be a trust anchor ({e:?})"),
                )
            },
        )?;
        Ok(TrustAnchor {
            der,
            subject: summary.subject,
            identities: None,
            algorithms: None,
            origins: None,
            not_before: None,
            not_after: None,
            revoked: false,
            source: source.into(),
        })
    }
}

/// The set of keys a verifier trusts.
///
/// ```
/// let store = a2a_card::signature::trust::TrustStore::from_json(r#"{"keys":[{"kty":"OKP","crv":"Ed25519",
///   "x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"k1"}]}"#, "inline").unwrap();
/// assert_eq!(store.keys().len(), 1);
/// assert_eq!(store.keys()[0].kid(), "k1");
/// ```
#[derive(Debug, Clone, Default)]
pub struct TrustStore {
    keys: Vec<TrustedKey>,
    anchors: Vec<TrustAnchor>,
    /// The index in `keys` of the first key of each distinct kid, in order, kept as keys are
    /// added so that a message naming the kids costs what it shows, not the store's size.
    kid_firsts: Vec<usize>,
    kids_seen: std::collections::HashSet<String>,
}

#[cfg(test)]
thread_local! {
    /// Kids [`TrustStore::kid_list`] looked at, for the test that bounds its work.
    pub(crate) static KID_LIST_STEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl TrustStore {
    /// An empty store.
    pub fn new() -> Self {
        TrustStore::default()
    }

    /// Adds a key.
    pub fn add(&mut self, key: TrustedKey) {
        if !self.kids_seen.contains(key.kid()) {
            self.kids_seen.insert(key.kid().to_string());
            self.kid_firsts.push(self.keys.len());
        }
        self.keys.push(key);
    }

    /// Adds a key with no extra policy ("pinned").
    pub fn pin(&mut self, key: PublicKey, source: impl Into<KeySource>) {
        self.add(TrustedKey::new(key, source));
    }

    /// The keys.
    pub fn keys(&self) -> &[TrustedKey] {
        &self.keys
    }

    /// Adds a trust anchor for `x5c` chains.
    pub fn add_anchor(&mut self, anchor: TrustAnchor) {
        self.anchors.push(anchor);
    }

    /// Adds every certificate of a PEM bundle as a trust anchor without extra policy;
    /// `source` names the bundle in reports and errors. Returns how many were added.
    pub fn add_anchors_pem(&mut self, pem: &str, source: &str) -> Result<usize, Error> {
        let ders = crate::jose::x509::certificates_from_pem(pem).map_err(|e| e.context(source))?;
        let n = ders.len();
        for der in ders {
            let anchor = TrustAnchor::from_der(
                der,
                KeySource::TrustStore {
                    file: source.to_string(),
                },
            )
            .map_err(|e| e.context(source))?;
            self.anchors.push(anchor);
        }
        Ok(n)
    }

    /// The trust anchors for `x5c` chains.
    pub fn anchors(&self) -> &[TrustAnchor] {
        &self.anchors
    }

    /// Every key and anchor of `other` added to this store.
    pub fn extend(&mut self, other: &TrustStore) {
        for k in &other.keys {
            self.add(k.clone());
        }
        self.anchors.extend(other.anchors.iter().cloned());
    }

    /// True when no key is trusted.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty() && self.anchors.is_empty()
    }

    /// The trusted keys whose `kid` equals `kid`.
    pub fn by_kid<'a, 'k>(&'a self, kid: &'k str) -> impl Iterator<Item = &'a TrustedKey> + use<'a, 'k> {
        self.keys.iter().filter(move |k| k.kid() == kid)
    }

    /// The distinct kids of the store, in order, for messages: at most `max` of them, quoted
    /// and comma-separated, with the number left out (`"a", "b" and 3 more`); `(none)` for an
    /// empty store. Kids only: never key material.
    ///
    /// ```
    /// use a2a_card::{Algorithm, PrivateKey, TrustStore};
    /// let mut trust = TrustStore::new();
    /// for kid in ["a", "b", "a", "c"] {
    ///     trust.pin(PrivateKey::generate(Algorithm::ES256).unwrap().public().clone().with_kid(kid), "test");
    /// }
    /// assert_eq!(trust.kid_list(2), r#""a", "b" and 1 more"#);
    /// assert_eq!(TrustStore::new().kid_list(2), "(none)");
    /// ```
    pub fn kid_list(&self, max: usize) -> String {
        if self.kid_firsts.is_empty() {
            return "(none)".to_string();
        }
        let shown: Vec<String> = self
            .kid_firsts
            .iter()
            .take(max)
            .filter_map(|&i| self.keys.get(i))
            .map(|k| {
                #[cfg(test)]
                KID_LIST_STEPS.with(|c| c.set(c.get() + 1));
                crate::signature::quoted(k.kid())
            })
            .collect();
        match self.kid_firsts.len().saturating_sub(max) {
            0 => shown.join(", "),
            more => format!("{} and {more} more", shown.join(", ")),
        }
    }

    /// How many distinct kids the store's keys have.
    ///
    /// ```
    /// use a2a_card::{Algorithm, PrivateKey, TrustStore};
    /// let mut trust = TrustStore::new();
    /// let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    /// for kid in ["a", "b", "a"] {
    ///     trust.pin(key.public().clone().with_kid(kid), "test");
    /// }
    /// assert_eq!((trust.keys().len(), trust.kid_count()), (3, 2));
    /// ```
    pub fn kid_count(&self) -> usize {
        self.kid_firsts.len()
    }

    /// Every entry holding the same key as `key` (by RFC 7638 thumbprint, whatever its `kid`),
    /// `key` itself included: verification applies the policy of each of them.
    pub fn same_key<'a>(&'a self, key: &'a TrustedKey) -> impl Iterator<Item = &'a TrustedKey> + 'a {
        self.with_thumbprint(key.key.thumbprint_str())
    }

    /// Every entry whose key has the RFC 7638 thumbprint `thumbprint` (base64url), whatever its
    /// `kid` or source: the entries whose policy binds that key wherever it comes from (a trusted
    /// entry, a `jku`, the leaf of an `x5c` chain).
    ///
    /// ```
    /// use a2a_card::{Algorithm, PrivateKey, TrustStore};
    /// let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    /// let mut trust = TrustStore::new();
    /// trust.pin(key.public().clone().with_kid("a"), "one");
    /// trust.pin(key.public().clone().with_kid("b"), "two");
    /// assert_eq!(trust.with_thumbprint(key.public().thumbprint_str()).count(), 2);
    /// ```
    pub fn with_thumbprint<'a>(&'a self, thumbprint: &'a str) -> impl Iterator<Item = &'a TrustedKey> + 'a {
        self.keys
            .iter()
            .filter(move |k| k.key.thumbprint_str() == thumbprint)
    }

    /// Reads a trust store file (or a plain JWKS, or a single JWK). `source` names it in reports
    /// and errors.
    pub fn from_json(text: &str, source: &str) -> Result<TrustStore, Error> {
        // The text may hold private keys (a private PEM in a `pem` member): read as key text.
        let v = crate::jose::keys::read_key_text(text).map_err(|e| e.context(source))?;
        let entries: &[Value] = match &v {
            Value::Object(_) if v.get("kty").is_some() => std::slice::from_ref(&v),
            Value::Object(m) => match v.get("keys") {
                Some(Value::Array(items)) => {
                    if let Some((k, _)) = m.iter().find(|(k, _)| k != "keys") {
                        return Err(Error::new(
                            ErrorCode::InvalidTrustStore,
                            format!("{source}: unknown top-level member {k:?} (expected only \"keys\")"),
                        )
                        .at(format!("/{}", crate::pointer_token(k))));
                    }
                    items
                }
                _ => {
                    crate::jose::keys::refuse_card_names(
                        m.iter().map(|(k, _)| k.as_str()),
                        ErrorCode::InvalidTrustStore,
                    )
                    .map_err(|e| e.context(source))?;
                    return Err(Error::new(
                        ErrorCode::InvalidTrustStore,
                        format!("{source}: a trust store is an object with a \"keys\" array"),
                    )
                    .at(""));
                }
            },
            _ => {
                return Err(Error::new(
                    ErrorCode::InvalidTrustStore,
                    format!(
                        "{source}: a trust store is a JSON object, found {}",
                        v.type_name()
                    ),
                )
                .at(""))
            }
        };
        let mut store = TrustStore::new();
        for (i, entry) in entries.iter().enumerate() {
            let ptr = if v.get("kty").is_some() {
                String::new()
            } else {
                format!("/keys/{i}")
            };
            if entry.get("certificate").is_some() {
                store.add_anchor(anchor_from_json(entry, source).map_err(|e| e.under(&ptr))?);
                continue;
            }
            store.add(entry_from_json(entry, source).map_err(|e| e.under(&ptr))?);
        }
        Ok(store)
    }
}

fn entry_from_json(entry: &Value, source: &str) -> Result<TrustedKey, Error> {
    let Value::Object(members) = entry else {
        return Err(Error::new(
            ErrorCode::InvalidTrustStore,
            format!(
                "{source}: a trust store entry must be an object, found {}",
                entry.type_name()
            ),
        )
        .at(""));
    };
    // A JWK in a trust store is a trust root: only the registered JWK members, never policy
    // written on the JWK (it goes beside it, in the entry).
    let jwk_members = |jwk: &[(String, Value)], under: &str| {
        check_members(
            jwk.iter().map(|(k, _)| k.as_str()),
            Members::Registered,
            ErrorCode::InvalidTrustStore,
        )
        .map_err(|e| e.context(source).under(under))
    };
    if entry.get("kty").is_some() {
        jwk_members(members, "")?;
        let text = value_text(entry);
        let key = PublicKey::from_jwk_str(&text).map_err(|e| e.context(source))?;
        return Ok(TrustedKey::new(
            key,
            KeySource::TrustStore {
                file: source.to_string(),
            },
        ));
    }
    let err =
        |ptr: &str, msg: String| Error::new(ErrorCode::InvalidTrustStore, format!("{source}: {msg}")).at(ptr);
    let mut key = match (entry.get("jwk"), entry.get("pem")) {
        (Some(jwk @ Value::Object(inner)), None) => {
            jwk_members(inner, "/jwk")?;
            PublicKey::from_jwk_str(&value_text(jwk)).map_err(|e| e.context(source).under("/jwk"))?
        }
        (None, Some(Value::String(pem))) => {
            PublicKey::parse(pem).map_err(|e| e.context(source).at("/pem"))?
        }
        (Some(_), Some(_)) => return Err(err("", "an entry has either \"jwk\" or \"pem\", not both".into())),
        _ => {
            return Err(err(
                "",
                "an entry needs a \"jwk\" object or a \"pem\" string".into(),
            ))
        }
    };
    let mut tk = TrustedKey::new(
        key.clone(),
        KeySource::TrustStore {
            file: source.to_string(),
        },
    );
    for (name, value) in members {
        let ptr = format!("/{}", crate::pointer_token(name));
        match (name.as_str(), value) {
            ("jwk" | "pem", _) => {}
            ("kid", Value::String(kid)) if !kid.is_empty() => {
                key = key.with_kid(kid.clone());
                tk.key = key.clone();
            }
            ("algorithms", Value::Array(items)) => {
                let mut algs = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let Some(name) = item.as_str() else {
                        return Err(err(&format!("{ptr}/{i}"), "algorithm names are strings".into()));
                    };
                    let alg = Algorithm::from_name(name).map_err(|e| e.context(source).at(format!("{ptr}/{i}")))?;
                    tk.key.check_algorithm(alg).map_err(|e| e.context(source).at(format!("{ptr}/{i}")))?;
                    algs.push(alg);
                }
                tk.algorithms = Some(algs);
            }
            ("origins", Value::Array(items)) => {
                let mut origins = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let Some(o) = item.as_str().and_then(|s| s.parse::<Origin>().ok()) else {
                        return Err(err(
                            &format!("{ptr}/{i}"),
                            ORIGIN_FORM.into(),
                        ));
                    };
                    origins.push(o);
                }
                tk.origins = Some(origins);
            }
            ("notBefore", v) => tk.not_before = Some(time_value(v).ok_or_else(|| err(&ptr, time_msg(name)))?),
            ("notAfter", v) => tk.not_after = Some(time_value(v).ok_or_else(|| err(&ptr, time_msg(name)))?),
            ("revoked", Value::Bool(b)) => tk.revoked = *b,
            _ => {
                return Err(err(
                    &ptr,
                    format!(
                        "unknown or malformed entry member {name:?} (known: jwk, pem, kid, algorithms, origins, notBefore, notAfter, revoked)"
                    ),
                ))
            }
        }
    }
    Ok(tk)
}

fn anchor_from_json(entry: &Value, source: &str) -> Result<TrustAnchor, Error> {
    let err =
        |ptr: &str, msg: String| Error::new(ErrorCode::InvalidTrustStore, format!("{source}: {msg}")).at(ptr);
    let Value::Object(members) = entry else {
        return Err(err("", "a trust store entry must be an object".into()));
    };
    let Some(Value::String(pem)) = entry.get("certificate") else {
        return Err(err(
            "/certificate",
            "\"certificate\" is the PEM text of one CA certificate".into(),
        ));
    };
    let ders =
        crate::jose::x509::certificates_from_pem(pem).map_err(|e| e.context(source).at("/certificate"))?;
    let [der] = <[Vec<u8>; 1]>::try_from(ders).map_err(|d| {
        err(
            "/certificate",
            format!(
                "\"certificate\" holds {} certificates; give one per entry",
                d.len()
            ),
        )
    })?;
    let mut a = TrustAnchor::from_der(
        der,
        KeySource::TrustStore {
            file: source.to_string(),
        },
    )
    .map_err(|e| e.context(source).at("/certificate"))?;
    let strings = |ptr: &str, v: &Value| -> Result<Vec<String>, Error> {
        let Value::Array(items) = v else {
            return Err(err(ptr, "an array of strings".into()));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, x)| {
                x.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| err(&format!("{ptr}/{i}"), "a string".into()))
            })
            .collect()
    };
    for (name, value) in members {
        let ptr = format!("/{}", crate::pointer_token(name));
        match (name.as_str(), value) {
            ("certificate", _) => {}
            ("identities" | "identityPrefixes", v) => {
                let mut rules = a.identities.take().unwrap_or_default();
                for (i, s) in strings(&ptr, v)?.iter().enumerate() {
                    let rule = if name == "identities" {
                        crate::signature::Identity::parse(s)
                    } else {
                        crate::signature::Identity::prefix(s)
                    };
                    rules.push(rule.map_err(|e| err(&format!("{ptr}/{i}"), e.message().to_string()))?);
                }
                a.identities = Some(rules);
            }
            ("algorithms", v) => {
                let mut algs = Vec::new();
                for (i, s) in strings(&ptr, v)?.iter().enumerate() {
                    algs.push(Algorithm::from_name(s).map_err(|e| e.context(source).at(format!("{ptr}/{i}")))?);
                }
                a.algorithms = Some(algs);
            }
            ("origins", v) => {
                let mut origins = Vec::new();
                for (i, s) in strings(&ptr, v)?.iter().enumerate() {
                    origins.push(
                        s.parse::<Origin>()
                            .map_err(|_| err(&format!("{ptr}/{i}"), ORIGIN_FORM.into()))?,
                    );
                }
                a.origins = Some(origins);
            }
            ("notBefore", v) => a.not_before = Some(time_value(v).ok_or_else(|| err(&ptr, time_msg(name)))?),
            ("notAfter", v) => a.not_after = Some(time_value(v).ok_or_else(|| err(&ptr, time_msg(name)))?),
            ("revoked", Value::Bool(b)) => a.revoked = *b,
            _ => {
                return Err(err(
                    &ptr,
                    format!(
                        "unknown or malformed anchor member {name:?} (known: certificate, identities, identityPrefixes, algorithms, origins, notBefore, notAfter, revoked)"
                    ),
                ))
            }
        }
    }
    Ok(a)
}

fn time_msg(name: &str) -> String {
    format!(
        "{name:?} must be an RFC 3339 time (2026-01-01T00:00:00Z) or integer seconds since the Unix epoch"
    )
}

fn value_text(v: &Value) -> String {
    let mut out = Vec::new();
    crate::canonical::jcs::write_value(&mut out, v);
    String::from_utf8(out).unwrap_or_default()
}

fn time_value(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) if n.fract() == 0.0 => Some(*n as i64),
        Value::String(s) => parse_rfc3339(s),
        _ => None,
    }
}

/// Parses an RFC 3339 date-time (`2026-01-01T00:00:00Z`, fractions and offsets allowed) into
/// seconds since the Unix epoch.
///
/// ```
/// assert_eq!(a2a_card::signature::trust::parse_rfc3339("1970-01-02T00:00:00Z"), Some(86400));
/// assert_eq!(a2a_card::signature::trust::parse_rfc3339("2026-11-30T12:00:00+01:00"), Some(1796036400));
/// assert_eq!(a2a_card::signature::trust::parse_rfc3339("2026-13-01T00:00:00Z"), None);
/// ```
pub fn parse_rfc3339(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = s.get(r)?;
        if !t.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        t.parse().ok()
    };
    let (y, mo, d, h, mi, se) = (
        num(0..4)?,
        num(5..7)?,
        num(8..10)?,
        num(11..13)?,
        num(14..16)?,
        num(17..19)?,
    );
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    let offset = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if i + 6 == b.len() && b[i + 3] == b':' => {
            let oh = num(i + 1..i + 3)?;
            let om = num(i + 4..i + 6)?;
            if oh > 23 || om > 59 {
                return None;
            }
            let o = oh * 3600 + om * 60;
            if *sign == b'+' {
                o
            } else {
                -o
            }
        }
        _ => return None,
    };
    Some(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - offset)
}

/// Seconds since the Unix epoch as an RFC 3339 UTC time, `YYYY-MM-DDTHH:MM:SSZ` (the inverse of
/// [`parse_rfc3339`] for whole seconds in UTC).
///
/// ```
/// use a2a_card::signature::trust::{format_rfc3339, parse_rfc3339};
/// assert_eq!(format_rfc3339(0), "1970-01-01T00:00:00Z");
/// assert_eq!(format_rfc3339(951_782_400), "2000-02-29T00:00:00Z");
/// assert_eq!(parse_rfc3339(&format_rfc3339(1_796_036_400)), Some(1_796_036_400));
/// ```
pub fn format_rfc3339(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jose::keys::PrivateKey;

    /// A store of `n` trusted keys, each under its own kid.
    fn crowd(n: usize) -> TrustStore {
        let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
        let mut trust = TrustStore::new();
        for i in 0..n {
            trust.pin(key.public().clone().with_kid(format!("k{i}")), "crowd.json");
        }
        trust
    }

    fn steps() -> usize {
        KID_LIST_STEPS.with(std::cell::Cell::take)
    }

    #[test]
    fn the_kid_list_costs_the_kids_it_shows_not_the_size_of_the_store() {
        let trust = crowd(20_000);
        steps();
        let list = trust.kid_list(8);
        assert_eq!(
            list,
            r#""k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7" and 19992 more"#
        );
        assert!(steps() <= 8, "the list looked at more kids than it shows");
        assert_eq!(trust.kid_count(), 20_000);
        // Repeated kids count once, in the order they were first added, across extend.
        let mut twice = crowd(3);
        twice.extend(&crowd(5));
        assert_eq!(twice.kid_count(), 5);
        assert_eq!(twice.kid_list(9), r#""k0", "k1", "k2", "k3", "k4""#);
    }

    #[test]
    fn a_card_of_unknown_kids_costs_the_kids_shown_not_the_store() {
        let trust = crowd(20_000);
        let stranger = PrivateKey::generate(Algorithm::EdDSA).unwrap();
        let mut card = br#"{"name":"A","description":"d","version":"1","skills":[]}"#.to_vec();
        for i in 0..16 {
            let opts = crate::SignOptions {
                kid: Some(format!("unknown-{i}")),
                ..crate::SignOptions::default()
            };
            card = crate::sign_card(&card, &stranger, &opts).unwrap().card;
        }
        steps();
        let report = crate::verify_card(&card, &trust, &crate::VerifyOptions::default()).unwrap();
        // Each untrusted-key message lists at most 8 kids and looks at no more: the work is
        // bounded by the card's signatures (themselves bounded), never by the 20,000 keys.
        assert!(steps() <= 8 * 16, "a kid list looked at more kids than it shows");
        assert_eq!(report.signatures.len(), 16);
        for s in &report.signatures {
            assert_eq!(s.verdict.code.to_string(), "untrusted-key");
            assert!(
                s.verdict.message.ends_with("and 19992 more"),
                "{}",
                s.verdict.message
            );
        }
    }
}
