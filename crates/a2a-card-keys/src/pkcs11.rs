//! Keys in a PKCS#11 token (an HSM, a smart card, SoftHSM), named by a `pkcs11:` URI and used
//! through the `cryptoki` crate: the module is loaded at run time, the token found by the URI's
//! token and slot attributes, the private key by `object` (CKA_LABEL) and `id` (CKA_ID).
//!
//! Mechanisms: ES256, ES384 and ES512 hash the signing input here (SHA-256/384/512) and sign
//! the digest with `CKM_ECDSA` (the combined `CKM_ECDSA_SHA256` is missing from common tokens
//! such as SoftHSM 2.6); the result is raw r||s, or DER from some modules, brought to JWS form.
//! EdDSA is `CKM_EDDSA` (pure Ed25519) over the whole input; RS256..RS512 are
//! `CKM_SHA*_RSA_PKCS`, PS256..PS512 `CKM_SHA*_RSA_PKCS_PSS` with MGF1 of the same hash and a
//! salt as long as the hash (RFC 7518 section 3.5).
//!
//! The public key is read from the token: `CKA_PUBLIC_KEY_INFO` of the private key when the
//! module has it, else the public key object with the same CKA_ID (and label), else, for RSA,
//! the private key's modulus and exponent. The core's signing path verifies every signature
//! with it, so a public object that belongs to another key is caught before a card is written.

use crate::pin::Pin;
use crate::pkcs11_uri::{ObjectType, Pkcs11Uri};
use a2a_card::jose::signer::ecdsa_to_jws;
use a2a_card::{Algorithm, Error, ErrorCode, PublicKey, Signer};
use base64::Engine as _;
use cryptoki::context::{CInitializeArgs, CInitializeFlags, Pkcs11};
use cryptoki::error::{Error as CkError, RvError};
use cryptoki::mechanism::eddsa::{EddsaParams, EddsaSignatureScheme};
use cryptoki::mechanism::rsa::{PkcsMgfType, PkcsPssParams};
use cryptoki::mechanism::{Mechanism, MechanismType};
use cryptoki::object::{Attribute, AttributeType, KeyType as CkKeyType, ObjectClass, ObjectHandle};
use cryptoki::session::{Session, UserType};
use cryptoki::slot::Slot;
use cryptoki::types::AuthPin;
use std::path::{Path, PathBuf};

/// How a token is reached besides its URI.
#[derive(Clone, Debug, Default)]
pub struct Pkcs11Options {
    /// The module when the URI has no `module-path` (the CLI's `--pkcs11-module`, else
    /// `A2A_CARD_PKCS11_MODULE`).
    pub module: Option<PathBuf>,
    /// The PIN when the URI has neither `pin-value` nor `pin-source` (the CLI's
    /// `A2A_CARD_PKCS11_PIN`).
    pub pin: Option<Pin>,
}

/// A private key in a token, with its session open (and logged in).
pub struct Pkcs11Key {
    session: Session,
    key: ObjectHandle,
    public: PublicKey,
    token: String,
}

impl std::fmt::Debug for Pkcs11Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pkcs11Key")
            .field("token", &self.token)
            .field("kid", &self.public.kid())
            .finish()
    }
}

fn unavailable(message: String) -> Error {
    Error::new(crate::error::ErrorCode::KeyUnavailable.into(), message)
}

fn usage(message: String) -> Error {
    Error::new(ErrorCode::Usage, message)
}

/// `PinIncorrect` as `CKR_PIN_INCORRECT`.
fn ckr(rv: RvError) -> String {
    let name = format!("{rv:?}");
    let mut out = String::from("CKR");
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

fn describe(e: &CkError) -> String {
    match e {
        CkError::Pkcs11(rv, function) => format!("{function} failed with {}", ckr(*rv)),
        other => other.to_string(),
    }
}

/// The module the URI names, or the default.
fn module_path(uri: &Pkcs11Uri, default: Option<&Path>) -> Result<PathBuf, Error> {
    let path = uri.module_path().or_else(|| default.map(Path::to_path_buf));
    match (path, uri.module_name()) {
        (Some(dir), Some(name)) if dir.is_dir() => {
            let candidates = [format!("{name}.so"), format!("lib{name}.so"), name.to_string()];
            candidates
                .iter()
                .map(|c| dir.join(c))
                .find(|p| p.is_file())
                .ok_or_else(|| {
                    unavailable(format!(
                        "no PKCS#11 module {name} ({}) in {}",
                        candidates.join(", "),
                        dir.display()
                    ))
                })
        }
        (Some(path), _) => Ok(path),
        (None, Some(name)) => Err(a2a_card::request::option_error(
            ErrorCode::Usage,
            &format!(
                "module-name={} needs module-path (the directory that holds it), or give the module's file \
                 as module-path, {{pkcs11_module}} or A2A_CARD_PKCS11_MODULE",
                a2a_card::request::template_literal(name)
            ),
            &["pkcs11_module"],
        )),
        (None, None) => Err(a2a_card::request::option_error(
            ErrorCode::Usage,
            "a pkcs11: key needs its PKCS#11 module: module-path=/path/to/module.so in the URI, \
             {pkcs11_module} PATH, or A2A_CARD_PKCS11_MODULE",
            &["pkcs11_module"],
        )),
    }
}

/// The module's one context in this process: loaded and initialized on first use, then kept
/// for the life of the process. A context of its own per key would call `C_Finalize` when that
/// key is dropped, which ends the module for every other key still open in another thread (a
/// crash in SoftHSM2); PKCS#11 has one library state per process, so the context is one too.
fn load(path: &Path) -> Result<Pkcs11, Error> {
    use std::sync::{Mutex, OnceLock};
    static MODULES: OnceLock<Mutex<Vec<(std::path::PathBuf, Pkcs11)>>> = OnceLock::new();
    let modules = MODULES.get_or_init(|| Mutex::new(Vec::new()));
    // A poisoned lock only means another thread panicked while holding it; the list is whole.
    let mut modules = modules.lock().unwrap_or_else(|e| e.into_inner());
    let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if let Some((_, ctx)) = modules.iter().find(|(p, _)| *p == key) {
        return Ok(ctx.clone());
    }
    let ctx = load_new(path)?;
    modules.push((key, ctx.clone()));
    Ok(ctx)
}

/// Loads and initializes the module.
fn load_new(path: &Path) -> Result<Pkcs11, Error> {
    if !path.exists() {
        return Err(unavailable(format!(
            "the PKCS#11 module {} does not exist",
            path.display()
        )));
    }
    if path.is_dir() {
        return Err(unavailable(format!(
            "the PKCS#11 module {} is a directory; give the module's file (with module-name, its directory)",
            path.display()
        )));
    }
    let ctx = Pkcs11::new(path).map_err(|e| {
        let why = match &e {
            CkError::LibraryLoading(inner) => format!("it cannot be loaded as a shared library ({inner})"),
            CkError::MissingSymbol(_) | CkError::NullFunctionPointer => {
                "it is not a PKCS#11 module (it has no C_GetFunctionList)".to_string()
            }
            other => describe(other),
        };
        unavailable(format!(
            "cannot use {} as a PKCS#11 module: {why}",
            path.display()
        ))
    })?;
    match ctx.initialize(CInitializeArgs::new(CInitializeFlags::OS_LOCKING_OK)) {
        Ok(()) | Err(CkError::Pkcs11(RvError::CryptokiAlreadyInitialized, _)) => Ok(ctx),
        Err(e) => Err(unavailable(format!(
            "the PKCS#11 module {} failed to start: {}",
            path.display(),
            describe(&e)
        ))),
    }
}

/// The one slot whose token (and slot, and library) match the URI.
fn find_slot(ctx: &Pkcs11, uri: &Pkcs11Uri, module: &Path) -> Result<(Slot, String, bool), Error> {
    let ck = |e: CkError| {
        unavailable(format!(
            "the PKCS#11 module {} failed: {}",
            module.display(),
            describe(&e)
        ))
    };
    let info = ctx.get_library_info().map_err(ck)?;
    for (attr, have) in [
        ("library-manufacturer", info.manufacturer_id().to_string()),
        ("library-description", info.library_description().to_string()),
        ("library-version", info.library_version().to_string()),
    ] {
        if let Some(want) = uri.attribute(attr) {
            if want != have && !(attr == "library-version" && format!("{want}.0") == have) {
                return Err(unavailable(format!(
                    "the PKCS#11 module {} has {attr} {have:?}, not {want:?}",
                    module.display()
                )));
            }
        }
    }
    let mut present = Vec::new();
    let mut matching = Vec::new();
    for slot in ctx.get_slots_with_token().map_err(ck)? {
        let Ok(token) = ctx.get_token_info(slot) else {
            continue;
        };
        if token.token_initialized() {
            present.push(format!("{:?}", token.label()));
        }
        let slot_info = ctx.get_slot_info(slot).ok();
        let checks: [(&str, Option<String>); 7] = [
            ("token", Some(token.label().to_string())),
            ("manufacturer", Some(token.manufacturer_id().to_string())),
            ("model", Some(token.model().to_string())),
            ("serial", Some(token.serial_number().to_string())),
            (
                "slot-description",
                slot_info.as_ref().map(|s| s.slot_description().to_string()),
            ),
            (
                "slot-manufacturer",
                slot_info.as_ref().map(|s| s.manufacturer_id().to_string()),
            ),
            ("slot-id", Some(slot.id().to_string())),
        ];
        let fits = checks.iter().all(|(attr, have)| {
            uri.attribute(attr)
                .is_none_or(|want| have.as_deref() == Some(want))
        });
        if fits && token.token_initialized() {
            matching.push((slot, token.label().to_string(), token.login_required()));
        }
    }
    let named = [
        "token",
        "serial",
        "slot-id",
        "model",
        "manufacturer",
        "slot-description",
    ]
    .iter()
    .filter_map(|a| uri.attribute(a).map(|v| format!("{a}={v:?}")))
    .collect::<Vec<_>>()
    .join(", ");
    match matching.len() {
        1 => Ok(matching.swap_remove(0)),
        0 => Err(unavailable(format!(
            "no token {} in the PKCS#11 module {} (tokens present: {})",
            if named.is_empty() { "at all".to_string() } else { format!("with {named}") },
            module.display(),
            if present.is_empty() { "none".to_string() } else { present.join(", ") }
        ))),
        n => Err(usage(format!(
            "{n} tokens of the PKCS#11 module {} match the URI ({}); name one with token=, serial= or slot-id=",
            module.display(),
            present.join(", ")
        ))),
    }
}

/// Opens a session on the URI's token, logged in with the PIN when there is one.
fn open_session(uri: &Pkcs11Uri, opts: &Pkcs11Options, read_write: bool) -> Result<(Session, String), Error> {
    // The PIN first: a pin-source that cannot hold one is refused before any module is loaded.
    let pin = match crate::pin::from_uri(uri)? {
        Some(pin) => Some(pin),
        None => match &opts.pin {
            Some(pin) => Some(Pin::checked(pin.expose().to_string(), "the PIN given")?),
            None => None,
        },
    };
    let module = module_path(uri, opts.module.as_deref())?;
    let ctx = load(&module)?;
    let (slot, label, login_required) = find_slot(&ctx, uri, &module)?;
    let session = if read_write {
        ctx.open_rw_session(slot)
    } else {
        ctx.open_ro_session(slot)
    }
    .map_err(|e| {
        unavailable(format!(
            "cannot open a session on the token {label:?}: {}",
            describe(&e)
        ))
    })?;
    match pin {
        Some(pin) => {
            let secret = AuthPin::new(pin.expose().into());
            match session.login(UserType::User, Some(&secret)) {
                Ok(()) | Err(CkError::Pkcs11(RvError::UserAlreadyLoggedIn, _)) => {}
                Err(CkError::Pkcs11(
                    rv @ (RvError::PinIncorrect | RvError::PinInvalid | RvError::PinLenRange),
                    _,
                )) => {
                    return Err(unavailable(format!(
                        "the token {label:?} refused the PIN ({}); it is not shown. Tokens lock after a few \
                         wrong PINs: check it before trying again",
                        ckr(rv)
                    )))
                }
                Err(CkError::Pkcs11(RvError::PinLocked, _)) => {
                    return Err(unavailable(format!(
                        "the token {label:?} is locked (CKR_PIN_LOCKED): its security officer must unlock it"
                    )))
                }
                Err(e) => {
                    return Err(unavailable(format!(
                        "cannot log in to the token {label:?}: {}",
                        describe(&e)
                    )))
                }
            }
        }
        None if login_required => {
            return Err(unavailable(format!(
            "the token {label:?} needs a PIN to use its keys: give pin-source=FILE (or pin-value=) in the \
                 URI, or set A2A_CARD_PKCS11_PIN"
        )))
        }
        None => {}
    }
    Ok((session, label))
}

fn attribute_list(session: &Session, h: ObjectHandle, types: &[AttributeType]) -> Vec<Attribute> {
    session.get_attributes(h, types).unwrap_or_default()
}

fn label_of(session: &Session, h: ObjectHandle) -> String {
    attribute_list(session, h, &[AttributeType::Label])
        .into_iter()
        .find_map(|a| match a {
            Attribute::Label(l) => Some(String::from_utf8_lossy(&l).into_owned()),
            _ => None,
        })
        .unwrap_or_default()
}

/// The objects of `class` that the URI's `object` and `id` select.
fn find(session: &Session, uri: &Pkcs11Uri, class: ObjectClass) -> Result<Vec<ObjectHandle>, Error> {
    let mut template = vec![Attribute::Class(class)];
    if let Some(label) = uri.object() {
        template.push(Attribute::Label(label.as_bytes().to_vec()));
    }
    if let Some(id) = uri.id() {
        template.push(Attribute::Id(id.to_vec()));
    }
    session
        .find_objects(&template)
        .map_err(|e| unavailable(format!("cannot search the token: {}", describe(&e))))
}

fn selector(uri: &Pkcs11Uri) -> String {
    let mut parts = Vec::new();
    if let Some(o) = uri.object() {
        parts.push(format!("object={o:?}"));
    }
    if let Some(id) = uri.id() {
        parts.push(format!(
            "id={}",
            id.iter().map(|b| format!("%{b:02X}")).collect::<String>()
        ));
    }
    parts.join(" ")
}

/// An EC point attribute (a DER OCTET STRING around `04 || X || Y`, or the bare point).
fn ec_point(raw: &[u8], field: usize) -> Option<(Vec<u8>, Vec<u8>)> {
    let point = if raw.len() == 2 * field + 1 {
        raw
    } else if raw.first() == Some(&0x04) {
        let body = &raw[2..];
        if raw.len() > 2 && usize::from(raw[1]) == body.len() {
            body
        } else if raw.len() > 3 && raw[1] == 0x81 && usize::from(raw[2]) == raw.len() - 3 {
            &raw[3..]
        } else {
            return None;
        }
    } else {
        return None;
    };
    if point.len() != 2 * field + 1 || point[0] != 0x04 {
        return None;
    }
    Some((point[1..=field].to_vec(), point[field + 1..].to_vec()))
}

/// An Edwards point attribute (a DER OCTET STRING around the 32 bytes, or the bare bytes).
fn ed_point(raw: &[u8]) -> Option<Vec<u8>> {
    match raw.len() {
        32 => Some(raw.to_vec()),
        34 if raw[0] == 0x04 && raw[1] == 32 => Some(raw[2..].to_vec()),
        _ => None,
    }
}

/// The curve of EC_PARAMS: the DER OID, or for Edwards keys also the PrintableString name.
fn curve_of(params: &[u8]) -> Option<(&'static str, usize)> {
    const P256: &[u8] = &[0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
    const P384: &[u8] = &[0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22];
    const P521: &[u8] = &[0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23];
    const ED25519: &[u8] = &[0x06, 0x03, 0x2b, 0x65, 0x70];
    const ED25519_NAME: &[u8] = b"\x13\x0cedwards25519";
    match params {
        P256 => Some(("P-256", 32)),
        P384 => Some(("P-384", 48)),
        P521 => Some(("P-521", 66)),
        ED25519 | ED25519_NAME => Some(("Ed25519", 32)),
        _ => None,
    }
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The public key from the attributes of a key object.
fn public_from(attrs: &[Attribute], what: &str) -> Result<Option<PublicKey>, Error> {
    let mut kind = None;
    let (mut params, mut point, mut n, mut e, mut spki) = (None, None, None, None, None);
    for a in attrs {
        match a {
            Attribute::KeyType(k) => kind = Some(*k),
            Attribute::EcParams(p) => params = Some(p.clone()),
            Attribute::EcPoint(p) => point = Some(p.clone()),
            Attribute::Modulus(m) => n = Some(m.clone()),
            Attribute::PublicExponent(x) => e = Some(x.clone()),
            Attribute::PublicKeyInfo(s) if !s.is_empty() => spki = Some(s.clone()),
            _ => {}
        }
    }
    let bad = |why: String| {
        Error::new(
            crate::error::ErrorCode::KeyUnavailable.into(),
            format!("{what}: {why}"),
        )
    };
    if let Some(spki) = spki {
        return PublicKey::from_spki_der(&spki)
            .map(Some)
            .map_err(|e| bad(e.message().to_string()));
    }
    let jwk = match kind {
        Some(k) if k == CkKeyType::RSA => match (n, e) {
            (Some(n), Some(e)) => serde_json::json!({"kty": "RSA", "n": b64(strip(&n)), "e": b64(strip(&e))}),
            _ => return Ok(None),
        },
        Some(k) if k == CkKeyType::EC || k == CkKeyType::EC_EDWARDS => {
            let Some(params) = params else { return Ok(None) };
            let Some((crv, field)) = curve_of(&params) else {
                return Err(bad(
                    "its curve is not one a card is signed with (P-256, P-384, P-521, Ed25519)".to_string(),
                ));
            };
            let Some(point) = point else { return Ok(None) };
            if crv == "Ed25519" {
                let x = ed_point(&point)
                    .ok_or_else(|| bad("its CKA_EC_POINT is not an Ed25519 point".to_string()))?;
                serde_json::json!({"kty": "OKP", "crv": crv, "x": b64(&x)})
            } else {
                let (x, y) = ec_point(&point, field)
                    .ok_or_else(|| bad(format!("its CKA_EC_POINT is not an uncompressed {crv} point")))?;
                serde_json::json!({"kty": "EC", "crv": crv, "x": b64(&x), "y": b64(&y)})
            }
        }
        Some(_) => return Err(bad("it is neither an EC, an Edwards nor an RSA key".to_string())),
        None => return Ok(None),
    };
    PublicKey::from_jwk(&jwk)
        .map(Some)
        .map_err(|e| bad(e.message().to_string()))
}

fn strip(v: &[u8]) -> &[u8] {
    let skip = v
        .iter()
        .take_while(|b| **b == 0)
        .count()
        .min(v.len().saturating_sub(1));
    &v[skip..]
}

const KEY_ATTRIBUTES: &[AttributeType] = &[
    AttributeType::KeyType,
    AttributeType::EcParams,
    AttributeType::EcPoint,
    AttributeType::Modulus,
    AttributeType::PublicExponent,
    AttributeType::PublicKeyInfo,
];

fn id_of(session: &Session, h: ObjectHandle) -> Option<Vec<u8>> {
    attribute_list(session, h, &[AttributeType::Id])
        .into_iter()
        .find_map(|a| match a {
            Attribute::Id(id) if !id.is_empty() => Some(id),
            _ => None,
        })
}

/// The public key that goes with the private key `h`.
fn public_of_private(session: &Session, h: ObjectHandle, token: &str) -> Result<PublicKey, Error> {
    let what = format!("the key on the token {token:?}");
    let attrs = attribute_list(session, h, KEY_ATTRIBUTES);
    if let Some(found) = public_from(&attrs, &what)? {
        return Ok(found);
    }
    let mut template = vec![Attribute::Class(ObjectClass::PUBLIC_KEY)];
    match id_of(session, h) {
        Some(id) => template.push(Attribute::Id(id)),
        None => template.push(Attribute::Label(label_of(session, h).into_bytes())),
    }
    let candidates = session.find_objects(&template).unwrap_or_default();
    let mut keys = Vec::new();
    for c in candidates {
        if let Some(k) = public_from(&attribute_list(session, c, KEY_ATTRIBUTES), &what)? {
            keys.push(k);
        }
    }
    keys.dedup_by(|a, b| a.thumbprint() == b.thumbprint());
    match keys.len() {
        1 => Ok(keys.swap_remove(0)),
        0 => Err(unavailable(format!(
            "{what} has no public key on the token (no public key object with its CKA_ID, and no \
             CKA_PUBLIC_KEY_INFO): import or keep its public key on the token"
        ))),
        n => Err(unavailable(format!(
            "{what} has {n} different public key objects with its CKA_ID; keep one"
        ))),
    }
}

impl Pkcs11Key {
    /// Opens the private key the URI names: loads the module, finds the one token that matches,
    /// logs in with the PIN, finds the one private key that `object` and `id` select, and reads
    /// its public key.
    ///
    /// Errors: `usage` (no module given, `type` not `private`, several tokens or keys match),
    /// `key-unavailable` (the module is missing or not a PKCS#11 module, no token or key
    /// matches, the PIN is refused or missing, no public key is found). No message shows a PIN.
    pub fn open(uri: &Pkcs11Uri, opts: &Pkcs11Options) -> Result<Pkcs11Key, Error> {
        if let Some(t) = uri.object_type() {
            if t != ObjectType::Private {
                return Err(usage(
                    "the pkcs11: URI names a type that does not sign: use type=private or leave type out"
                        .to_string(),
                ));
            }
        }
        if uri.object().is_none() && uri.id().is_none() {
            return Err(usage(
                "the pkcs11: URI names no key: give object=LABEL or id=%XX (or both)".to_string(),
            ));
        }
        let (session, token) = open_session(uri, opts, false)?;
        let found = find(&session, uri, ObjectClass::PRIVATE_KEY)?;
        let key = match found.as_slice() {
            [one] => *one,
            [] => {
                let all = session
                    .find_objects(&[Attribute::Class(ObjectClass::PRIVATE_KEY)])
                    .unwrap_or_default();
                let labels: Vec<String> = all
                    .iter()
                    .map(|h| format!("{:?}", label_of(&session, *h)))
                    .collect();
                return Err(unavailable(format!(
                    "no private key with {} on the token {token:?} (private keys there: {})",
                    selector(uri),
                    if labels.is_empty() {
                        "none".to_string()
                    } else {
                        labels.join(", ")
                    }
                )));
            }
            many => {
                return Err(usage(format!(
                    "{} private keys on the token {token:?} match {}; add id= or object= to name one",
                    many.len(),
                    selector(uri)
                )))
            }
        };
        let public = public_of_private(&session, key, &token)?;
        Ok(Pkcs11Key {
            session,
            key,
            public,
            token,
        })
    }

    /// The label of the token the key is on.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Generates a key pair for `alg` in the token, under the URI's `object` label and `id` (a
    /// random 8-byte id when the URI has none): the private key sensitive, never extractable,
    /// for signing only; the public key beside it. `rsa_bits` is the RSA modulus length
    /// (default 2048). Returns the URI of the new private key (with its `id`) and its public
    /// key. A key with the same label or id already on the token is refused (`usage`).
    pub fn generate(
        uri: &Pkcs11Uri,
        opts: &Pkcs11Options,
        alg: Algorithm,
        rsa_bits: Option<u32>,
    ) -> Result<(Pkcs11Uri, PublicKey), Error> {
        if uri.object().is_none() {
            return Err(usage(
                "a new pkcs11: key needs object=LABEL, the label of the new key".to_string(),
            ));
        }
        if uri.object_type().is_some_and(|t| t != ObjectType::Private) {
            return Err(usage(
                "a new pkcs11: key is a private key: use type=private or leave type out".to_string(),
            ));
        }
        let (session, token) = open_session(uri, opts, true)?;
        // A new key may share neither its label nor its id with a key already there (keys are
        // paired by id, and found by label).
        let mut clash = 0;
        for class in [ObjectClass::PRIVATE_KEY, ObjectClass::PUBLIC_KEY] {
            let mut templates = vec![vec![
                Attribute::Class(class),
                Attribute::Label(uri.object().unwrap_or_default().as_bytes().to_vec()),
            ]];
            if let Some(id) = uri.id() {
                templates.push(vec![Attribute::Class(class), Attribute::Id(id.to_vec())]);
            }
            for t in templates {
                clash += session
                    .find_objects(&t)
                    .map_err(|e| unavailable(format!("cannot search the token: {}", describe(&e))))?
                    .len();
            }
        }
        if clash > 0 {
            return Err(usage(format!(
                "the token {token:?} already holds a key with {}; choose another object= (keys are never replaced)",
                selector(uri)
            )));
        }
        let id = match uri.id() {
            Some(id) => id.to_vec(),
            None => {
                let mut id = vec![0u8; 8];
                ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut id)
                    .map_err(|_| unavailable("the random number generator failed".to_string()))?;
                id
            }
        };
        let label = uri.object().unwrap_or_default().as_bytes().to_vec();
        let mut public_template = vec![
            Attribute::Token(true),
            Attribute::Private(false),
            Attribute::Verify(true),
            Attribute::Label(label.clone()),
            Attribute::Id(id.clone()),
        ];
        let private_template = vec![
            Attribute::Token(true),
            Attribute::Private(true),
            Attribute::Sensitive(true),
            Attribute::Extractable(false),
            Attribute::Sign(true),
            Attribute::Decrypt(false),
            Attribute::Label(label),
            Attribute::Id(id.clone()),
        ];
        const P256: &[u8] = &[0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
        const P384: &[u8] = &[0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22];
        const P521: &[u8] = &[0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23];
        const ED25519: &[u8] = &[0x06, 0x03, 0x2b, 0x65, 0x70];
        let mechanism = match alg {
            Algorithm::ES256 | Algorithm::ES384 | Algorithm::ES512 => {
                let oid = match alg {
                    Algorithm::ES256 => P256,
                    Algorithm::ES384 => P384,
                    _ => P521,
                };
                public_template.push(Attribute::EcParams(oid.to_vec()));
                Mechanism::EccKeyPairGen
            }
            Algorithm::EdDSA => {
                public_template.push(Attribute::EcParams(ED25519.to_vec()));
                Mechanism::EccEdwardsKeyPairGen
            }
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512 => {
                let bits = rsa_bits.unwrap_or(2048);
                public_template.push(Attribute::ModulusBits(u64::from(bits).into()));
                public_template.push(Attribute::PublicExponent(vec![1, 0, 1]));
                Mechanism::RsaPkcsKeyPairGen
            }
            other => {
                return Err(usage(format!(
                    "a new pkcs11: key is EdDSA (Ed25519), ES256, ES384, ES512 or RS256..PS512, not {other}"
                )))
            }
        };
        let generated = session.generate_key_pair(&mechanism, &public_template, &private_template);
        let (public_handle, _private) = match generated {
            Ok(pair) => pair,
            // Edwards curves by name, for modules that take only the PKCS#11 2.40 form.
            Err(_) if alg == Algorithm::EdDSA => {
                let mut named = public_template.clone();
                named.retain(|a| !matches!(a, Attribute::EcParams(_)));
                named.push(Attribute::EcParams(b"\x13\x0cedwards25519".to_vec()));
                session
                    .generate_key_pair(&mechanism, &named, &private_template)
                    .map_err(|e| {
                        unavailable(format!(
                            "the token {token:?} cannot make an Ed25519 key: {}",
                            describe(&e)
                        ))
                    })?
            }
            Err(e) => {
                return Err(unavailable(format!(
                    "the token {token:?} cannot make a key for {alg}: {}",
                    describe(&e)
                )))
            }
        };
        let what = format!("the new key on the token {token:?}");
        let public = public_from(&attribute_list(&session, public_handle, KEY_ATTRIBUTES), &what)?
            .ok_or_else(|| unavailable(format!("{what} has no readable public key")))?;
        Ok((uri.clone().with_object(None, &id), public))
    }
}

fn mechanism_for(alg: Algorithm) -> Option<Mechanism<'static>> {
    let pss = |hash_alg: MechanismType, mgf: PkcsMgfType, s_len: u64| PkcsPssParams {
        hash_alg,
        mgf,
        s_len: s_len.into(),
    };
    Some(match alg {
        Algorithm::ES256 | Algorithm::ES384 | Algorithm::ES512 => Mechanism::Ecdsa,
        Algorithm::EdDSA => Mechanism::Eddsa(EddsaParams::new(EddsaSignatureScheme::Pure)),
        Algorithm::RS256 => Mechanism::Sha256RsaPkcs,
        Algorithm::RS384 => Mechanism::Sha384RsaPkcs,
        Algorithm::RS512 => Mechanism::Sha512RsaPkcs,
        Algorithm::PS256 => {
            Mechanism::Sha256RsaPkcsPss(pss(MechanismType::SHA256, PkcsMgfType::MGF1_SHA256, 32))
        }
        Algorithm::PS384 => {
            Mechanism::Sha384RsaPkcsPss(pss(MechanismType::SHA384, PkcsMgfType::MGF1_SHA384, 48))
        }
        Algorithm::PS512 => {
            Mechanism::Sha512RsaPkcsPss(pss(MechanismType::SHA512, PkcsMgfType::MGF1_SHA512, 64))
        }
        _ => return None,
    })
}

impl Signer for Pkcs11Key {
    fn public_key(&self) -> &PublicKey {
        &self.public
    }

    fn sign(&self, alg: Algorithm, signing_input: &[u8]) -> Result<Vec<u8>, Error> {
        // An algorithm the key does not fit is refused here, not sent to the token (which
        // answers with an error that does not say why, CKR_GENERAL_ERROR from SoftHSM).
        self.public.check_algorithm(alg)?;
        let mechanism = mechanism_for(alg).ok_or_else(|| {
            Error::new(
                ErrorCode::KeyAlgorithmMismatch,
                format!("a PKCS#11 key does not sign {alg} here"),
            )
        })?;
        let digest = match alg {
            Algorithm::ES256 => Some(&ring::digest::SHA256),
            Algorithm::ES384 => Some(&ring::digest::SHA384),
            Algorithm::ES512 => Some(&ring::digest::SHA512),
            _ => None,
        };
        let data = match digest {
            Some(h) => ring::digest::digest(h, signing_input).as_ref().to_vec(),
            None => signing_input.to_vec(),
        };
        let name = mechanism.mechanism_type().to_string();
        let signature = self.session.sign(&mechanism, self.key, &data).map_err(|e| {
            let why = match &e {
                CkError::Pkcs11(RvError::MechanismInvalid, _) => format!("the token does not offer {name}"),
                CkError::Pkcs11(RvError::KeyFunctionNotPermitted, _) => {
                    "the key may not sign (its CKA_SIGN is false)".to_string()
                }
                CkError::Pkcs11(RvError::KeyTypeInconsistent, _) => format!("{name} does not fit this key"),
                CkError::Pkcs11(RvError::UserNotLoggedIn, _) => {
                    "the token wants a login first: give a PIN".to_string()
                }
                other => describe(other),
            };
            Error::new(
                crate::error::ErrorCode::ExternalSignerFailed.into(),
                format!(
                    "the token {:?} did not sign with {alg} ({name}): {why}",
                    self.token
                ),
            )
        })?;
        ecdsa_to_jws(alg, &signature).map_err(|e| {
            Error::new(
                crate::error::ErrorCode::ExternalSignerFailed.into(),
                format!(
                    "the token {:?} signed with {alg}, but {}",
                    self.token,
                    e.message()
                ),
            )
        })
    }
}
