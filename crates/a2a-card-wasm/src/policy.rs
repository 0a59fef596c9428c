//! Trust roots and policy read from verify options, and the caches that read them once.

use crate::errors::{js_error, OrThrow};
use crate::host::{host_available, HostCrypto};
use crate::input::{algorithm_named, card_bytes, json_text, Options, VERIFY_OPTIONS};
use crate::output::{report_to_js, Digest};
use crate::webcrypto::{self, web_crypto_available};
use a2a_card::jose::crypto::SignatureBackend;
use a2a_card::jose::keys::{parse_jwks, PublicKey};
use a2a_card::signature::{
    verify_card_with, DEFAULT_MAX_KEYS_PER_KID, DEFAULT_MAX_SIGNATURES, DEFAULT_MAX_SIGNATURE_CHECKS,
};
use a2a_card::{Error, Mode, Profile, TrustStore, VerifyOptions};
use js_sys::{Array, Promise};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Seconds since the Unix epoch from a JavaScript number of seconds.
pub(crate) fn seconds(n: f64) -> i64 {
    n.floor() as i64
}

/// The host's clock, in seconds since the Unix epoch (the core has no clock on wasm32).
pub(crate) fn host_now() -> i64 {
    seconds(js_sys::Date::now() / 1000.0)
}

/// Trust roots and policy read once from verify options.
pub(crate) struct Policy {
    trust: TrustStore,
    opts: VerifyOptions,
    /// A fixed `now` given by the caller; `None` reads the host clock at each verification.
    now: Option<i64>,
    /// `verify` checks signatures with the host's native crypto (asked for and available).
    pub(crate) host: bool,
    /// `verifyAsync` checks signatures with WebCrypto (asked for and available).
    pub(crate) web: bool,
}

impl Policy {
    pub(crate) fn read(options: &JsValue, what: &'static str) -> Result<Policy, JsValue> {
        Policy::from_options(&Options::read(options, what, VERIFY_OPTIONS)?)
    }

    pub(crate) fn from_options(o: &Options) -> Result<Policy, JsValue> {
        let trust = trust_store(o)?;
        let profile = o.string("profile")?;
        let profiles = o.strings("profiles")?;
        let names: Option<Vec<&str>> = profiles.as_ref().map(|p| p.iter().map(String::as_str).collect());
        let accepted: Vec<Profile> =
            a2a_card::canonical::profiles_option(profile.as_deref(), names.as_deref()).or_throw()?;
        let mode = match o.string("mode")? {
            None => Mode::default(),
            Some(name) => Mode::parse(&name).or_throw()?,
        };
        let algorithms = o
            .strings("algorithms")?
            .map(|names| {
                names
                    .iter()
                    .map(|n| algorithm_named(n))
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        let mut identities = Vec::new();
        for id in o.one_or_more("identity")? {
            identities.push(a2a_card::signature::Identity::parse(&id).map_err(|e| js_error(&e))?);
        }
        for p in o.one_or_more("identityPrefix")? {
            identities.push(a2a_card::signature::Identity::prefix(&p).map_err(|e| js_error(&e))?);
        }
        let required_eku = o.string("requireEku")?;
        if let Some(eku) = &required_eku {
            a2a_card::signature::chain::eku_oid(eku).map_err(|e| js_error(&e))?;
        }
        let opts = VerifyOptions {
            identities,
            required_eku,
            max_chain_len: match o.count("maxChain")? {
                None => a2a_card::signature::DEFAULT_MAX_CHAIN_LEN,
                Some(n) => {
                    a2a_card::signature::check_max_chain_len(n)
                        .map_err(|e| crate::errors::usage(format!("option \"maxChain\": {}", e.message())))?;
                    n
                }
            },
            profiles: accepted,
            unknown: o.unknown()?,
            mode,
            algorithms,
            max_signatures: o.count("maxSignatures")?.unwrap_or(DEFAULT_MAX_SIGNATURES),
            max_keys_per_kid: o.count("maxKeysPerKid")?.unwrap_or(DEFAULT_MAX_KEYS_PER_KID),
            max_signature_checks: o
                .count("maxSignatureChecks")?
                .unwrap_or(DEFAULT_MAX_SIGNATURE_CHECKS),
            limits: o.limits()?,
            origin: o.string("origin")?,
            ..VerifyOptions::default()
        };
        // The core's bounds and rules for every option of a verification (the CLI's too): read
        // now, so that a Verifier refuses them when it is made.
        opts.check().map_err(|e| o.refused(&e))?;
        let host = o.boolean("hostCrypto")?.unwrap_or(true);
        Ok(Policy {
            trust,
            opts,
            now: o.number("now")?.map(seconds),
            host: host && host_available(),
            web: host && web_crypto_available(),
        })
    }

    /// The verify options of one call: `now` and `origin` of the call, else of the policy.
    fn options_at(&self, now: Option<i64>, origin: Option<String>) -> VerifyOptions {
        let mut opts = self.opts.clone();
        opts.now = Some(now.or(self.now).unwrap_or_else(host_now));
        if origin.is_some() {
            opts.origin = origin;
        }
        opts
    }

    pub(crate) fn verify(
        &self,
        card: &JsValue,
        now: Option<i64>,
        origin: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let bytes = card_bytes(card, &self.opts.limits)?;
        let opts = self.options_at(now, origin);
        let backend: Option<&dyn SignatureBackend> = if self.host { Some(&HostCrypto) } else { None };
        let report = verify_card_with(&bytes, &self.trust, &opts, backend).or_throw()?;
        report_to_js(&report, &if self.host { Digest::Host } else { Digest::Module })
    }

    /// `verify` with the signatures checked by WebCrypto: a promise of the report. The card is
    /// read now (so that changing it after the call changes nothing); every error rejects the
    /// promise.
    pub(crate) fn verify_async(&self, card: &JsValue, now: Option<i64>, origin: Option<String>) -> Promise {
        let bytes = match card_bytes(card, &self.opts.limits) {
            Ok(b) => b,
            Err(e) => return Promise::reject(&e),
        };
        let opts = self.options_at(now, origin);
        webcrypto::verify(bytes, &self.trust, &opts, self.web, self.host)
    }
}

/// The trust store of the `keys`, `jwks` and `trust` options, each key tagged with its option.
pub(crate) fn trust_store(o: &Options) -> Result<TrustStore, JsValue> {
    let mut store = TrustStore::new();
    let mut given = false;
    if let Some(keys) = o.get("keys")? {
        given = true;
        // A list was copied into a fresh array when the options were read (js.rs).
        let list: Vec<JsValue> = if crate::js::is_array(&keys) {
            keys.unchecked_into::<Array>().iter().collect()
        } else {
            vec![keys]
        };
        for (i, key) in list.iter().enumerate() {
            let source = format!("keys[{i}]");
            let key = memo(&PARSED_KEYS, json_text(key, &source)?, PublicKey::parse)
                .map_err(|e| js_error(&e.context(&source)))?;
            store.pin(key, source);
        }
    }
    if let Some(jwks) = o.get("jwks")? {
        given = true;
        let keys = memo(&PARSED_JWKS, json_text(&jwks, "jwks")?, parse_jwks)
            .map_err(|e| js_error(&e.context("jwks")))?;
        for key in keys {
            store.pin(key, "jwks");
        }
    }
    if let Some(trust) = o.get("trust")? {
        given = true;
        let file = memo(&PARSED_TRUST, json_text(&trust, "trust")?, |t| {
            TrustStore::from_json(t, "trust")
        })
        .or_throw()?;
        store.extend(&file);
    }
    for (i, pem) in o.one_or_more("trustAnchors")?.iter().enumerate() {
        given = true;
        store
            .add_anchors_pem(pem, &format!("trustAnchors[{i}]"))
            .or_throw()?;
    }
    store
        .check_roots(
            given,
            false,
            "of the options \"jwks\", \"keys\", \"trust\" or \"trustAnchors\"",
            None,
        )
        .or_throw()?;
    Ok(store)
}

/// Parsed keys, JWK Sets and trust stores by their text, most recently used last: `verify()`
/// called again and again with the same options reads them once (reading a key checks its
/// point on the curve, which costs more than the rest of a verification). Failures are not kept.
pub(crate) type Parsed<T> = RefCell<Vec<(String, T)>>;
pub(crate) const PARSED_CACHE: usize = 8;

thread_local! {
    static PARSED_KEYS: Parsed<PublicKey> = const { RefCell::new(Vec::new()) };
    static PARSED_JWKS: Parsed<Vec<PublicKey>> = const { RefCell::new(Vec::new()) };
    static PARSED_TRUST: Parsed<TrustStore> = const { RefCell::new(Vec::new()) };
}

/// `parse(text)`, from the cache when this text was parsed before.
pub(crate) fn memo<T: Clone>(
    cache: &'static std::thread::LocalKey<Parsed<T>>,
    text: String,
    parse: impl FnOnce(&str) -> Result<T, Error>,
) -> Result<T, Error> {
    let hit = cache.with(|c| {
        let mut c = c.borrow_mut();
        let i = c.iter().position(|(t, _)| *t == text)?;
        let entry = c.remove(i);
        let value = entry.1.clone();
        c.push(entry);
        Some(value)
    });
    if let Some(value) = hit {
        return Ok(value);
    }
    let value = parse(&text)?;
    cache.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= PARSED_CACHE {
            c.remove(0);
        }
        c.push((text, value.clone()));
    });
    Ok(value)
}

/// Option names and values, in the order given.
pub(crate) type OptionValues = Vec<(String, JsValue)>;

thread_local! {
    /// The policy read by the last `verify()` call whose options were all primitive values,
    /// with those options: `verify(card, { jwks, profile })` called again and again with the
    /// same values reads its trust roots and policy once, as a `Verifier` does.
    static LAST_POLICY: RefCell<Option<(OptionValues, Rc<Policy>)>> = const { RefCell::new(None) };
}

/// The policy of verify options: the last one when every option has the same name and the same
/// primitive value (`===`) as then, else read now (and kept when all values are primitives; an
/// object or array value may have changed since, so it is read every time).
pub(crate) fn cached_policy(o: &Options) -> Result<Rc<Policy>, JsValue> {
    let Some(key) = o.primitive_members() else {
        return Ok(Rc::new(Policy::from_options(o)?));
    };
    let hit = LAST_POLICY.with(|last| match &*last.borrow() {
        Some((k, policy)) if same_members(k, key) => Some(Rc::clone(policy)),
        _ => None,
    });
    if let Some(policy) = hit {
        return Ok(policy);
    }
    let policy = Rc::new(Policy::from_options(o)?);
    LAST_POLICY.with(|last| *last.borrow_mut() = Some((key.to_vec(), Rc::clone(&policy))));
    Ok(policy)
}

/// The same option names in the same order, with values that are `===`.
pub(crate) fn same_members(a: &[(String, JsValue)], b: &[(String, JsValue)]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|((n, v), (m, w))| n == m && v == w)
}
