//! The functions around signing and verifying: `inspect`, `lint`, `migrate`, `schema`,
//! `keygen` (and its `KeyPair`), `jwks` and `algorithms`. Each is the core's function; the
//! results are the core's JSON forms (as the CLI's `--format json` prints them) as Python values.

use crate::errors::{usage, OrRaise};
use crate::input::read_options;
use crate::input::{card_bytes, json_text, keyword, COUNT};
use crate::keys::KeyPair;
use crate::report::to_py;
use a2a_card::jose::keys::{public_keys_of, GenerateOptions, PrivateKey};
use a2a_card::lint::lint_card;
use a2a_card::migrate::migrate_card;
use a2a_card::model::{json_schema, SchemaDraft};
use a2a_card::request::{CanonicalizeRequest, LintRequest, MigrateRequest};
use a2a_card::request::{Kind, OptionValue};
use a2a_card::{inspect_card, Algorithm};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// Looks inside a card without trusting anything: each signature entry's decoded protected
/// header (alg, kid, typ, jku), the length of its signature and what is wrong with it, the
/// SHA-256 and length of the canonical bytes, and the members those bytes leave out. The
/// dict is `a2a-card inspect --format json`'s.
///
/// >>> import a2a_card
/// >>> i = a2a_card.inspect('{"name":"A","x-vendor":1}')
/// >>> i["unsigned"], i["signatures"], i["canonical_bytes"]
/// (['/x-vendor'], [], 12)
#[pyfunction]
#[pyo3(signature = (card, **options))]
pub(crate) fn inspect<'py>(
    card: &Bound<'py, PyAny>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = card.py();
    let opts = read_options::<CanonicalizeRequest>(py, "inspect", options)?;
    let bytes = card_bytes(card)?;
    let inspection = inspect_card(bytes.as_slice(), &opts).or_raise(py)?;
    let value = serde_json::to_value(&inspection)
        .map_err(|e| usage(py, format!("cannot write the inspection: {e}")))?;
    to_py(py, &value)
}

/// Checks a card against A2A v1.0 before it is signed: `{"findings": [{"rule", "severity",
/// "pointer", "message"}, ...]}` in document order (`a2a-card lint --format json`). A card
/// that cannot be read raises `CardError`; findings are not errors.
///
/// >>> import a2a_card
/// >>> found = a2a_card.lint('{"name":"A","description":"d","version":"1","skills":[],"x":1}')
/// >>> [(f["rule"], f["pointer"]) for f in found["findings"]][:3]
/// [('required-missing', '/supportedInterfaces'), ('required-missing', '/capabilities'), ('required-missing', '/defaultInputModes')]
#[pyfunction]
#[pyo3(signature = (card, **options))]
pub(crate) fn lint<'py>(
    card: &Bound<'py, PyAny>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = card.py();
    let opts = read_options::<LintRequest>(py, "lint", options)?;
    let bytes = card_bytes(card)?;
    let report = lint_card(bytes.as_slice(), &opts).or_raise(py)?;
    let value =
        serde_json::to_value(&report).map_err(|e| usage(py, format!("cannot write the findings: {e}")))?;
    to_py(py, &value)
}

/// Rewrites an A2A 0.3 card as a 1.0 card: `{"card", "notes", "alreadyV1", "lost"}` as
/// `a2a-card migrate --format json` prints it, except that "card" is the 1.0 card's text
/// (the bytes `migrate` writes: pretty JSON, members in the 0.3 card's order), ready to sign.
/// `protocol_version` gives every interface that version instead of the 0.3 card's own.
///
/// >>> import a2a_card, json
/// >>> m = a2a_card.migrate({"name": "A", "description": "d", "version": "1",
/// ...     "url": "https://a.example/rpc", "protocolVersion": "0.3.0", "capabilities": {},
/// ...     "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
/// ...     "skills": [{"id": "s", "name": "S", "description": "d", "tags": ["t"]}]})
/// >>> json.loads(m["card"])["supportedInterfaces"]
/// [{'url': 'https://a.example/rpc', 'protocolBinding': 'JSONRPC', 'protocolVersion': '0.3'}]
/// >>> m["lost"], sorted({n["kind"] for n in m["notes"]})
/// (False, ['defaulted', 'moved'])
#[pyfunction]
#[pyo3(signature = (card, **options))]
pub(crate) fn migrate<'py>(
    card: &Bound<'py, PyAny>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = card.py();
    let opts = read_options::<MigrateRequest>(py, "migrate", options)?;
    let bytes = card_bytes(card)?;
    let m = migrate_card(bytes.as_slice(), &opts).or_raise(py)?;
    to_py(py, &m.report())
}

/// The JSON Schema of an A2A v1.0 Agent Card, generated from the library's typed model (the
/// schema `a2a-card schema` prints): `draft` "2020-12" (default) or "07".
///
/// >>> import a2a_card
/// >>> s = a2a_card.schema()
/// >>> s["$schema"], "name" in s["required"]
/// ('https://json-schema.org/draft/2020-12/schema', True)
#[pyfunction]
#[pyo3(signature = (draft="2020-12"))]
pub(crate) fn schema<'py>(py: Python<'py>, draft: &str) -> PyResult<Bound<'py, PyAny>> {
    let draft = draft.parse::<SchemaDraft>().or_raise(py)?;
    to_py(py, &json_schema(draft))
}

/// The algorithms this build signs and verifies with.
///
/// >>> import a2a_card
/// >>> a2a_card.algorithms()[:3]
/// ['EdDSA', 'ES256', 'ES384']
#[pyfunction]
pub(crate) fn algorithms() -> Vec<&'static str> {
    Algorithm::asymmetric_names()
}

/// A new key pair: `alg` "EdDSA" (Ed25519, or Ed448 with `curve="Ed448"`), "ES256", "ES384",
/// "ES512", "ES256K", "RS256" ... "PS512" (RSA of 2048 bits, or `rsa_bits` 3072 or 4096);
/// `kid` defaults to the RFC 7638 thumbprint. Pass the `KeyPair` itself to `sign` (its private
/// JWK records the kid and alg) and to `verify(keys=...)` (its public half), or store
/// `private_pem` and publish `jwks`.
///
/// >>> import a2a_card
/// >>> kp = a2a_card.keygen("ES256", kid="release-2026")
/// >>> kp
/// KeyPair(kid='release-2026', alg='ES256', key_type='P-256')
/// >>> kp.jwks["keys"][0]["kid"], "d" in kp.public_jwk, "d" in kp.private_jwk
/// ('release-2026', False, True)
#[pyfunction]
#[pyo3(signature = (alg="ES256", *, kid=None, rsa_bits=None, curve=None))]
pub(crate) fn keygen(
    py: Python<'_>,
    alg: &str,
    kid: Option<&Bound<'_, PyAny>>,
    rsa_bits: Option<&Bound<'_, PyAny>>,
    curve: Option<&Bound<'_, PyAny>>,
) -> PyResult<KeyPair> {
    let alg = Algorithm::from_name(alg).or_raise(py)?;
    let rsa_bits = keyword(rsa_bits, "rsa_bits", COUNT)?
        .and_then(OptionValue::count)
        .map(|n| u32::try_from(n).map_err(|_| usage(py, "option \"rsa_bits\" is too large")))
        .transpose()?;
    let opts = GenerateOptions {
        rsa_bits,
        curve: keyword(curve, "curve", Kind::Text)?.and_then(OptionValue::text),
        kid: keyword(kid, "kid", Kind::Text)?.and_then(OptionValue::text),
    };
    opts.check(alg).or_raise(py)?;
    let key = py.detach(|| PrivateKey::generate_with(alg, &opts)).or_raise(py)?;
    Ok(KeyPair::new(key, alg))
}

/// The public JWK Set of the given keys (PEM private or public keys, JWKs, JWK Sets, as text,
/// bytes or dicts, or `KeyPair`s): `{"keys": [...]}` with only public members, each with its
/// kid (the JWK's, else the RFC 7638 thumbprint) and its alg when the key declares one.
///
/// >>> import a2a_card
/// >>> kp = a2a_card.keygen("EdDSA", kid="k1")
/// >>> [k["kid"] for k in a2a_card.jwks(kp.private_pem, kp)["keys"]]
/// ['...', 'k1']
#[pyfunction]
#[pyo3(signature = (*keys))]
pub(crate) fn jwks<'py>(py: Python<'py>, keys: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyAny>> {
    if keys.is_empty() {
        return Err(usage(py, "jwks() needs at least one key"));
    }
    let mut out = Vec::new();
    for (i, key) in keys.iter().enumerate() {
        let what = format!("key {i}");
        let text = json_text(&key, &what, true)?;
        let found = public_keys_of(&text).map_err(|e| e.context(&what)).or_raise(py)?;
        out.extend(found.iter().map(|k| k.to_jwk()));
    }
    to_py(py, &serde_json::json!({ "keys": out }))
}
