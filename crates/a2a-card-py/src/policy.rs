//! Trust roots and verify options read once from keyword arguments, the cache of parsed keys,
//! and verification with the GIL released.

use crate::errors::{usage, OrRaise};
use crate::input::{
    self, card_bytes, json_text, opt_count, opt_one_or_more, opt_string, opt_strings, opt_time,
};
use crate::report::Report;
use a2a_card::canonical::profiles_option;
use a2a_card::jose::keys::{parse_jwks, PublicKey};
use a2a_card::signature::{
    chain::eku_oid, check_max_chain_len, Identity, DEFAULT_MAX_CHAIN_LEN, DEFAULT_MAX_KEYS_PER_KID,
    DEFAULT_MAX_SIGNATURES, DEFAULT_MAX_SIGNATURE_CHECKS,
};
use a2a_card::{verify_card, Error, Mode, TrustStore, VerifyOptions};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::sync::Mutex;

/// The keyword options of `verify`, `verify_many` and `Verifier` (the npm package's options,
/// in snake_case), as given.
pub(crate) struct VerifyArgs<'a, 'py> {
    pub(crate) jwks: Option<&'a Bound<'py, PyAny>>,
    pub(crate) keys: Option<&'a Bound<'py, PyAny>>,
    pub(crate) trust: Option<&'a Bound<'py, PyAny>>,
    pub(crate) trust_anchors: Option<&'a Bound<'py, PyAny>>,
    pub(crate) identity: Option<&'a Bound<'py, PyAny>>,
    pub(crate) identity_prefix: Option<&'a Bound<'py, PyAny>>,
    pub(crate) require_eku: Option<&'a Bound<'py, PyAny>>,
    pub(crate) max_chain: Option<&'a Bound<'py, PyAny>>,
    pub(crate) algorithms: Option<&'a Bound<'py, PyAny>>,
    pub(crate) mode: Option<&'a Bound<'py, PyAny>>,
    pub(crate) profile: Option<&'a Bound<'py, PyAny>>,
    pub(crate) profiles: Option<&'a Bound<'py, PyAny>>,
    pub(crate) unknown: Option<&'a Bound<'py, PyAny>>,
    pub(crate) now: Option<&'a Bound<'py, PyAny>>,
    pub(crate) origin: Option<&'a Bound<'py, PyAny>>,
    pub(crate) max_signatures: Option<&'a Bound<'py, PyAny>>,
    pub(crate) max_keys_per_kid: Option<&'a Bound<'py, PyAny>>,
    pub(crate) max_signature_checks: Option<&'a Bound<'py, PyAny>>,
    pub(crate) max_input_bytes: Option<&'a Bound<'py, PyAny>>,
    pub(crate) max_depth: Option<&'a Bound<'py, PyAny>>,
}

/// Trust roots and policy, read once.
pub(crate) struct Policy {
    pub(crate) trust: TrustStore,
    pub(crate) opts: VerifyOptions,
}

impl Policy {
    pub(crate) fn read(py: Python<'_>, a: &VerifyArgs<'_, '_>) -> PyResult<Policy> {
        let trust = trust_store(py, a)?;
        let profile = opt_string(a.profile, "profile")?;
        let profiles = opt_strings(a.profiles, "profiles")?;
        let names: Option<Vec<&str>> = profiles.as_ref().map(|p| p.iter().map(String::as_str).collect());
        let accepted = profiles_option(profile.as_deref(), names.as_deref()).or_raise(py)?;
        let mode = match opt_string(a.mode, "mode")? {
            None => Mode::default(),
            Some(name) => Mode::parse(&name).or_raise(py)?,
        };
        let algorithms = opt_strings(a.algorithms, "algorithms")?
            .map(|names| {
                names
                    .iter()
                    .map(|n| input::algorithm(py, n))
                    .collect::<PyResult<Vec<_>>>()
            })
            .transpose()?;
        let mut identities = Vec::new();
        for id in opt_one_or_more(a.identity, "identity")? {
            identities.push(
                Identity::parse(&id)
                    .map_err(|e| e.context("identity"))
                    .or_raise(py)?,
            );
        }
        for prefix in opt_one_or_more(a.identity_prefix, "identity_prefix")? {
            identities.push(
                Identity::prefix(&prefix)
                    .map_err(|e| e.context("identity_prefix"))
                    .or_raise(py)?,
            );
        }
        let required_eku = opt_string(a.require_eku, "require_eku")?;
        if let Some(eku) = &required_eku {
            eku_oid(eku).map_err(|e| e.context("require_eku")).or_raise(py)?;
        }
        let opts = VerifyOptions {
            identities,
            required_eku,
            max_chain_len: match opt_count(a.max_chain, "max_chain")? {
                None => DEFAULT_MAX_CHAIN_LEN,
                Some(n) => {
                    check_max_chain_len(n)
                        .map_err(|e| usage(py, format!("option \"max_chain\": {}", e.message())))?;
                    n
                }
            },
            profiles: accepted,
            unknown: input::unknown(py, a.unknown)?,
            mode,
            algorithms,
            max_signatures: opt_count(a.max_signatures, "max_signatures")?.unwrap_or(DEFAULT_MAX_SIGNATURES),
            max_keys_per_kid: opt_count(a.max_keys_per_kid, "max_keys_per_kid")?
                .unwrap_or(DEFAULT_MAX_KEYS_PER_KID),
            max_signature_checks: opt_count(a.max_signature_checks, "max_signature_checks")?
                .unwrap_or(DEFAULT_MAX_SIGNATURE_CHECKS),
            limits: input::limits(a.max_input_bytes, a.max_depth)?,
            now: opt_time(a.now, "now")?,
            origin: opt_string(a.origin, "origin")?,
            ..VerifyOptions::default()
        };
        // The core's one reading of the options, as the CLI and the npm package apply it: every
        // limit within its bounds, no HMAC in `algorithms`, the origin's form.
        opts.check().or_raise(py)?;
        Ok(Policy { trust, opts })
    }

    /// The options with this call's `now` and `origin`, when given.
    pub(crate) fn options_for(
        &self,
        now: Option<i64>,
        origin: Option<String>,
    ) -> std::borrow::Cow<'_, VerifyOptions> {
        if now.is_none() && origin.is_none() {
            return std::borrow::Cow::Borrowed(&self.opts);
        }
        let mut opts = self.opts.clone();
        if now.is_some() {
            opts.now = now;
        }
        if origin.is_some() {
            opts.origin = origin;
        }
        std::borrow::Cow::Owned(opts)
    }

    /// Verifies one card (any form `card_bytes` reads), the GIL released while the core works.
    pub(crate) fn verify(
        &self,
        card: &Bound<'_, PyAny>,
        now: Option<i64>,
        origin: Option<String>,
    ) -> PyResult<Report> {
        let py = card.py();
        let bytes = card_bytes(card)?;
        let opts = self.options_for(now, origin);
        let slice = bytes.as_slice();
        let trust = &self.trust;
        let result = py.detach(|| verify_card(slice, trust, &opts));
        Ok(Report::new(result.or_raise(py)?))
    }
}

/// The trust store of the `keys`, `jwks`, `trust` and `trust_anchors` options, each key or
/// anchor tagged with the option it came from (`keys[0]`, `jwks`, `trust`,
/// `trust_anchors[0]`), as the npm package tags them.
fn trust_store(py: Python<'_>, a: &VerifyArgs<'_, '_>) -> PyResult<TrustStore> {
    let mut store = TrustStore::new();
    let mut given = false;
    if let Some(keys) = a.keys.filter(|k| !k.is_none()) {
        given = true;
        let list: Vec<Bound<'_, PyAny>> =
            if keys.is_instance_of::<PyList>() || keys.is_instance_of::<PyTuple>() {
                keys.try_iter()?.collect::<PyResult<_>>()?
            } else {
                vec![keys.clone()]
            };
        for (i, key) in list.iter().enumerate() {
            let source = format!("keys[{i}]");
            let text = json_text(key, &source, true)?;
            let key = parsed(Kind::Key, text, |t| PublicKey::parse(t).map(Parsed::Key))
                .map_err(|e| e.context(&source))
                .or_raise(py)?;
            if let Parsed::Key(key) = key {
                store.pin(key, source);
            }
        }
    }
    if let Some(jwks) = a.jwks.filter(|k| !k.is_none()) {
        given = true;
        let text = json_text(jwks, "jwks", true)?;
        let keys = parsed(Kind::Jwks, text, |t| parse_jwks(t).map(Parsed::Jwks))
            .map_err(|e| e.context("jwks"))
            .or_raise(py)?;
        if let Parsed::Jwks(keys) = keys {
            for key in keys {
                store.pin(key, "jwks");
            }
        }
    }
    if let Some(trust) = a.trust.filter(|k| !k.is_none()) {
        given = true;
        let text = json_text(trust, "trust", true)?;
        let file = parsed(Kind::Trust, text, |t| {
            TrustStore::from_json(t, "trust").map(Parsed::Trust)
        })
        .or_raise(py)?;
        if let Parsed::Trust(file) = file {
            // Keys and certificate anchors alike, each entry with its rules.
            store.extend(&file);
        }
    }
    for (i, pem) in opt_one_or_more(a.trust_anchors, "trust_anchors")?
        .iter()
        .enumerate()
    {
        given = true;
        store
            .add_anchors_pem(pem, &format!("trust_anchors[{i}]"))
            .or_raise(py)?;
    }
    store
        .check_roots(
            given,
            false,
            "of the options jwks=, keys=, trust= or trust_anchors=",
            None,
        )
        .or_raise(py)?;
    Ok(store)
}

/// What a cache entry was read as.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Key,
    Jwks,
    Trust,
}

/// A parsed key, JWK Set or trust store.
#[derive(Clone)]
enum Parsed {
    Key(PublicKey),
    Jwks(Vec<PublicKey>),
    Trust(TrustStore),
}

/// The most parsed key texts kept.
const PARSED_CACHE: usize = 16;

/// Parsed keys, JWK Sets and trust stores by their text, most recently used last:
/// `verify(card, jwks=text)` called again and again reads the keys once (reading a key checks
/// its point on the curve, which costs more than the rest of a small card's verification).
/// Failures are not kept.
static PARSED: Mutex<Vec<(Kind, String, Parsed)>> = Mutex::new(Vec::new());

fn parsed(
    kind: Kind,
    text: String,
    parse: impl FnOnce(&str) -> Result<Parsed, Error>,
) -> Result<Parsed, Error> {
    {
        let mut cache = PARSED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = cache.iter().position(|(k, t, _)| *k == kind && *t == text) {
            let entry = cache.remove(i);
            let value = entry.2.clone();
            cache.push(entry);
            return Ok(value);
        }
    }
    let value = parse(&text)?;
    let mut cache = PARSED.lock().unwrap_or_else(|p| p.into_inner());
    if cache.len() >= PARSED_CACHE {
        cache.remove(0);
    }
    cache.push((kind, text, value.clone()));
    Ok(value)
}

/// A `usage` error for a `threads` value.
pub(crate) fn threads_option(py: Python<'_>, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<usize>> {
    match opt_count(value, "threads")? {
        Some(0) => Err(usage(py, "option \"threads\" must be at least 1")),
        Some(n) if n > 1024 => Err(usage(py, "option \"threads\" must be at most 1024")),
        n => Ok(n),
    }
}
