//! Verify options read by the core's table into its request (`input::request_from`), which
//! makes the trust roots and the policy (the core's `ReadyVerifier`); the cache of the last
//! policy read.

use crate::errors::{js_error, OrThrow};
use crate::host::{host_available, HostCrypto};
use crate::input::{card_bytes, names, request_from, seconds, Options};
use crate::output::{report_to_js, Digest};
use crate::webcrypto::{self, web_crypto_available};
use a2a_card::jose::crypto::SignatureBackend;
use a2a_card::request::{ReadyVerifier, VerifyRequest, VERIFY};
use a2a_card::signature::verify_card_with;
use a2a_card::VerifyOptions;
use js_sys::Promise;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The host's clock, in seconds since the Unix epoch (the core has no clock on wasm32).
pub(crate) fn host_now() -> i64 {
    seconds(js_sys::Date::now() / 1000.0)
}

/// Trust roots and policy read once from verify options (a `now` given there fixed, else the
/// host clock read at each verification).
pub(crate) struct Policy {
    ready: ReadyVerifier,
    /// `verify` checks signatures with the host's native crypto (asked for and available).
    pub(crate) host: bool,
    /// `verifyAsync` checks signatures with WebCrypto (asked for and available, and the host's
    /// native crypto not there: where it is, `verifyAsync` uses it as `verify` does).
    pub(crate) web: bool,
}

impl Policy {
    pub(crate) fn read(options: &JsValue, what: &'static str) -> Result<Policy, JsValue> {
        Policy::from_options(&read_verify_options(options, what)?)
    }

    /// The options read by the core's table (`a2a_card::request::VERIFY`): each option this
    /// package offers, in its camelCase spelling, read by its kind into the core's request,
    /// which makes the trust roots and the policy.
    pub(crate) fn from_options(o: &Options) -> Result<Policy, JsValue> {
        let ready = request_from::<VerifyRequest>(o, |e, _| js_error(e))?;
        let host = ready.host_crypto && host_available();
        Ok(Policy {
            web: ready.host_crypto && !host && web_crypto_available(),
            host,
            ready,
        })
    }

    /// The verify options of one call: `now` and `origin` of the call, else of the policy, and
    /// the host clock when neither gives a time.
    fn options_at(&self, now: Option<i64>, origin: Option<String>) -> Result<VerifyOptions, JsValue> {
        let now = now.or(self.ready.options.now).unwrap_or_else(host_now);
        let opts = self.ready.options_at(Some(now), origin.as_deref());
        Ok(opts.map_err(|e| js_error(&e))?.into_owned())
    }

    pub(crate) fn verify(
        &self,
        card: &JsValue,
        now: Option<i64>,
        origin: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let bytes = card_bytes(card, &self.ready.options.limits)?;
        let opts = self.options_at(now, origin)?;
        let backend: Option<&dyn SignatureBackend> = if self.host { Some(&HostCrypto) } else { None };
        let report = verify_card_with(&bytes, &self.ready.trust, &opts, backend).or_throw()?;
        report_to_js(&report, &if self.host { Digest::Host } else { Digest::Module })
    }

    /// `verify` with the signatures checked by WebCrypto: a promise of the report. The card is
    /// read now (so that changing it after the call changes nothing); every error rejects the
    /// promise. Where the host's native crypto is there (node:crypto), the checks are its, made
    /// at once as `verify` makes them: a WebCrypto check there is the same primitive behind a
    /// hop to a worker thread and back, which took longer than the check itself (see
    /// BENCHMARKS.md, "The npm package").
    pub(crate) fn verify_async(&self, card: &JsValue, now: Option<i64>, origin: Option<String>) -> Promise {
        if self.host {
            return match self.verify(card, now, origin) {
                Ok(report) => Promise::resolve(&report),
                Err(e) => Promise::reject(&e),
            };
        }
        let bytes = match card_bytes(card, &self.ready.options.limits) {
            Ok(b) => b,
            Err(e) => return Promise::reject(&e),
        };
        let opts = match self.options_at(now, origin) {
            Ok(o) => o,
            Err(e) => return Promise::reject(&e),
        };
        webcrypto::verify(bytes, &self.ready.trust, &opts, self.web)
    }
}

/// Option names and values, in the order given.
pub(crate) type OptionValues = Vec<(String, JsValue)>;

thread_local! {
    /// The names of the verify options, written on first use only: `verify(card, options)`
    /// reads its options on every call.
    static VERIFY_NAMES: String = names(VERIFY);
    /// The policy read by the last `verify()` call whose options were all primitive values,
    /// with those options: `verify(card, { jwks, profile })` called again and again with the
    /// same values reads its trust roots and policy once, as a `Verifier` does.
    static LAST_POLICY: RefCell<Option<(OptionValues, Rc<Policy>)>> = const { RefCell::new(None) };
}

/// The policy of the verify options of `what` (verify, verifyAsync): the last one when every
/// option has the same name and the same primitive value (`===`) as then, else read now (and
/// kept when all values are primitives; an object or array value may have changed since, so it
/// is read every time).
pub(crate) fn cached_policy(options: &JsValue, what: &'static str) -> Result<Rc<Policy>, JsValue> {
    let o = &read_verify_options(options, what)?;
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

/// The verify options given in `options`, checked against the names of `VERIFY`.
fn read_verify_options(options: &JsValue, what: &'static str) -> Result<Options, JsValue> {
    VERIFY_NAMES.with(|known| Options::read(options, what, known))
}

/// The same option names in the same order, with values that are `===`.
pub(crate) fn same_members(a: &[(String, JsValue)], b: &[(String, JsValue)]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|((n, v), (m, w))| n == m && v == w)
}
