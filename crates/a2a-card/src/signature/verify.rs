//! Verifying a card: one strict read, canonical bytes computed once per accepted profile, then
//! for each signature entry a strict header decode, the caller's policy, the key lookup among
//! trusted keys only, and the cryptographic check. The answer is a [`Report`], never a bare
//! boolean: what a caller should act on is the verified content, and the report says what was
//! left out of it.

use crate::canonical::doc::{Shape, Tree};
use crate::canonical::{canonicalize_tree, Canonical, CanonicalizeOptions, Profile, UnknownMembers};
use crate::canonical::{Doc, Limits};
use crate::error::{Error, ErrorCode};
use crate::jose::crypto::{self, BackendVerdict, CryptoFailure, SignatureBackend, SignatureCheck};
use crate::jose::header as jws;
use crate::jose::Algorithm;
use crate::signature::entries::{read_signatures_of, Signatures};
use crate::signature::plan::{self, fallback_profile, Answer, Context, Forms};
use crate::signature::report::{Mode, Report};
use crate::signature::trust::{normalize_origin, TrustStore, TrustedKey};

/// Default limit on signatures per card.
pub const DEFAULT_MAX_SIGNATURES: usize = 16;

/// Default limit on the trusted keys one `kid` may select: a signature whose `kid` names more is
/// refused with `too-many-keys` before any of them is tried.
pub const DEFAULT_MAX_KEYS_PER_KID: usize = 4;

/// Default limit on signature checks (one key over one profile's bytes) for one card: every
/// signature of a card at the signature limit checked under all three profiles with one key
/// each is 48, within it. Past the limit, the signatures left are refused with
/// `too-many-checks` unchecked.
pub const DEFAULT_MAX_SIGNATURE_CHECKS: usize = 64;

/// Options of [`verify_card`].
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// Profiles the caller accepts, tried in this order; the default is `spec` alone.
    pub profiles: Vec<Profile>,
    /// Unknown members under `spec` and `prune-empty` (default exclude: not covered, reported).
    pub unknown: UnknownMembers,
    /// The pass rule.
    pub mode: Mode,
    /// Algorithms allowed; `None` means every asymmetric algorithm this build supports. HS*
    /// are never accepted here: a shared secret is not a trust root for a public card.
    pub algorithms: Option<Vec<Algorithm>>,
    /// Most signatures a card may carry (default 16); more is refused before any work.
    pub max_signatures: usize,
    /// Most trusted keys one `kid` may select (default 4); a signature whose `kid` selects more
    /// is refused with `too-many-keys`, none of them tried.
    pub max_keys_per_kid: usize,
    /// Most signature checks (one key over one profile's bytes) for the whole card (default
    /// 64); the signatures left when they are spent are refused with `too-many-checks`. With
    /// [`Self::max_signatures`] and [`crate::Limits::max_input_bytes`] this bounds the work a
    /// card can cause: at most this many checks, each over at most 4/3 of the input size.
    pub max_signature_checks: usize,
    /// Largest protected or unprotected header, in bytes (default 4 KiB).
    pub max_header_bytes: usize,
    /// Reader limits for the card.
    pub limits: Limits,
    /// The time used for validity windows, in seconds since the Unix epoch. `None` reads the
    /// system clock (native builds); on wasm32 the caller must pass it when keys carry windows.
    pub now: Option<i64>,
    /// The origin the card was fetched from (`https://host[:port]`), for trust entries bound to
    /// origins. `None` (a local file) fails every origin-bound entry.
    pub origin: Option<String>,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            profiles: vec![Profile::Spec],
            unknown: UnknownMembers::Exclude,
            mode: Mode::Require,
            algorithms: None,
            max_signatures: DEFAULT_MAX_SIGNATURES,
            max_keys_per_kid: DEFAULT_MAX_KEYS_PER_KID,
            max_signature_checks: DEFAULT_MAX_SIGNATURE_CHECKS,
            max_header_bytes: jws::DEFAULT_MAX_HEADER_BYTES,
            limits: Limits::default(),
            now: None,
            origin: None,
        }
    }
}

pub(crate) fn now_seconds(opts: &VerifyOptions) -> Option<i64> {
    if let Some(n) = opts.now {
        return Some(n);
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .and_then(|d| i64::try_from(d.as_secs()).ok())
    }
    #[cfg(target_arch = "wasm32")]
    {
        None
    }
}

/// Verifies a card given as bytes against trusted keys.
///
/// Returns `Err` only when the card itself cannot be read (not JSON, not an object, too many
/// signatures, `signatures` not an array); every per-signature problem is a verdict in the report.
///
/// ```
/// use a2a_card::{Algorithm, PrivateKey, sign_card, verify_card, SignOptions, VerifyOptions};
/// use a2a_card::signature::trust::TrustStore;
/// let key = PrivateKey::generate(Algorithm::ES256).unwrap();
/// let card = br#"{"name":"A","description":"","version":"1","skills":[]}"#;
/// let signed = sign_card(card, &key, &SignOptions::default()).unwrap();
/// let mut trust = TrustStore::new();
/// trust.pin(key.public().clone(), "pinned");
/// let report = verify_card(&signed.card, &trust, &VerifyOptions::default()).unwrap();
/// assert!(report.ok);
/// assert_eq!(report.signatures[0].verdict.code, "valid");
/// ```
pub fn verify_card(card: &[u8], trust: &TrustStore, opts: &VerifyOptions) -> Result<Report, Error> {
    verify_card_with(card, trust, opts, None)
}

/// [`verify_card`] with the final signature primitive delegated to `backend` (see
/// [`SignatureBackend`]): every other check (header, policy, key type against algorithm,
/// signature length, trust) is the library's own, and a backend that declines leaves the check
/// to the built-in `ring` code. A backend's own failure becomes the verdict of that signature,
/// with the signature's JSON Pointer (`/signatures/{i}/signature`). The WebAssembly package
/// passes the host's native crypto here; `None` is exactly [`verify_card`].
///
/// ```
/// use a2a_card::Algorithm;
/// use a2a_card::jose::crypto::{BackendVerdict, SignatureBackend, SignatureCheck};
/// use a2a_card::jose::keys::PrivateKey;
/// use a2a_card::signature::verify_card_with;
/// use a2a_card::{sign_card, Error, ErrorCode, SignOptions, TrustStore, VerifyOptions};
///
/// struct Broken;
/// impl SignatureBackend for Broken {
///     fn verify(&self, _: &SignatureCheck<'_>) -> Result<BackendVerdict, Error> {
///         Err(Error::new(ErrorCode::InvalidKey, "the host refused the key"))
///     }
/// }
/// let key = PrivateKey::generate(Algorithm::ES256).unwrap();
/// let signed = sign_card(br#"{"name":"A","skills":[]}"#, &key, &SignOptions::default()).unwrap();
/// let mut trust = TrustStore::new();
/// trust.pin(key.public().clone(), "pinned");
/// let report = verify_card_with(&signed.card, &trust, &VerifyOptions::default(), Some(&Broken)).unwrap();
/// assert!(!report.ok);
/// assert_eq!(report.signatures[0].verdict.code, "invalid-key");
/// assert_eq!(report.signatures[0].verdict.pointer.as_deref(), Some("/signatures/0/signature"));
/// ```
pub fn verify_card_with(
    card: &[u8],
    trust: &TrustStore,
    opts: &VerifyOptions,
    backend: Option<&dyn SignatureBackend>,
) -> Result<Report, Error> {
    let doc = Doc::parse(card, &opts.limits)?;
    verify_tree(doc.root(), trust, opts, backend)
}

/// [`verify_card`] on a card already read into a [`Doc`] (by [`Doc::parse`] with the limits of
/// `opts`): for a caller that reads the card once to look at it and verify it.
///
/// ```
/// use a2a_card::signature::verify_doc;
/// use a2a_card::{Doc, TrustStore, VerifyOptions};
/// let opts = VerifyOptions::default();
/// let doc = Doc::parse(br#"{"name":"A"}"#, &opts.limits).unwrap();
/// assert!(!verify_doc(&doc, &TrustStore::new(), &opts).unwrap().ok);
/// ```
pub fn verify_doc(doc: &Doc<'_>, trust: &TrustStore, opts: &VerifyOptions) -> Result<Report, Error> {
    verify_tree(doc.root(), trust, opts, None)
}

/// The checks every verification makes on the card itself before its signatures: it is an
/// object, a profile is accepted, the `signatures` member reads, the origin has its form.
/// Returns the signature entries and the normalized origin.
pub(crate) fn read_card<'t, N: Tree<'t>>(
    card: N,
    opts: &VerifyOptions,
) -> Result<(Signatures, Option<String>), Error> {
    if !matches!(card.shape(), Shape::Object(_)) {
        return Err(Error::new(
            ErrorCode::TypeMismatch,
            format!(
                "an Agent Card must be a JSON object, found {}",
                card.shape().type_name()
            ),
        )
        .at(""));
    }
    if opts.profiles.is_empty() {
        return Err(Error::new(
            ErrorCode::Usage,
            "no profile is accepted; name at least one",
        ));
    }
    // The signature entries are small: they are read as values, the card itself is not.
    let signatures =
        read_signatures_of(card, opts.max_signatures)?.with_max_header_bytes(opts.max_header_bytes);
    let origin = match opts.origin.as_deref() {
        None => None,
        Some(o) => Some(normalize_origin(o).ok_or_else(|| {
            Error::new(
                ErrorCode::Usage,
                format!(
                    "the card's origin {o:?} cannot be used: {}",
                    crate::signature::trust::ORIGIN_FORM
                ),
            )
        })?),
    };
    Ok((signatures, origin))
}

/// The canonicalizer of a card read into a tree, under the options of a verification.
pub(crate) fn tree_canonicalizer<'t, N: Tree<'t>>(
    card: N,
    opts: &VerifyOptions,
) -> impl FnMut(Profile) -> Result<Canonical, Error> + use<'t, N> {
    let (unknown, limits) = (opts.unknown, opts.limits);
    move |profile| {
        canonicalize_tree(
            card,
            &CanonicalizeOptions {
                profile,
                unknown,
                limits,
            },
        )
    }
}

/// The one verification behind [`verify_card_with`] and [`verify_doc`], over the card read into a
/// [`Doc`]: the plan, concluded with the backend's (or `ring`'s) answer to each check as it comes.
fn verify_tree<'t, N: Tree<'t>>(
    card: N,
    trust: &TrustStore,
    opts: &VerifyOptions,
    backend: Option<&dyn SignatureBackend>,
) -> Result<Report, Error> {
    let (signatures, origin) = read_card(card, opts)?;
    let mut canon = tree_canonicalizer(card, opts);
    let mut forms = Forms::default();
    let fallback = fallback_profile(&opts.profiles, &mut forms, &mut canon)?;
    let ctx = Context {
        trust,
        opts,
        now: now_seconds(opts),
        origin: origin.as_deref(),
    };
    let plan = plan::plan(&signatures, &ctx, fallback, || every_member(card));
    let mut oracle = |_: usize, check: &SignatureCheck<'_>| {
        let answer = match backend {
            Some(b) => b.verify(check),
            None => Ok(BackendVerdict::Declined),
        };
        match crypto::settle(check, answer) {
            Ok(()) => Answer::Valid,
            Err(CryptoFailure::Refused(e)) => Answer::Refused(e),
            Err(CryptoFailure::Backend(e)) => Answer::Failed(e),
        }
    };
    match plan::conclude(&plan, &mut forms, &mut canon, &mut oracle)? {
        Some(report) => Ok(report),
        None => Err(Error::new(
            ErrorCode::Usage,
            "internal: a signature check was left unanswered",
        )),
    }
}

/// The JSON Pointer of every top-level member but `signatures`, in document order.
pub(crate) fn every_member<'t, N: Tree<'t>>(card: N) -> Vec<String> {
    let Shape::Object(len) = card.shape() else {
        return Vec::new();
    };
    (0..len)
        .filter_map(|i| card.member(i))
        .filter(|(name, _)| *name != "signatures")
        .map(|(name, _)| format!("/{}", crate::pointer_token(name)))
        .collect()
}

/// The policy of `tk` and of every other entry of the store that holds the same key (by RFC 7638
/// thumbprint, whatever its `kid`): a key listed more than once is bound by every listing, so
/// an entry that revokes it, ends its validity or binds it to origins cannot be bypassed by the
/// same key arriving through another entry (a second file, or a JWKS fetched from a `jku`).
pub(crate) fn bound_policy(
    trust: &TrustStore,
    tk: &TrustedKey,
    alg: Algorithm,
    now: Option<i64>,
    origin: Option<&str>,
) -> Result<(), Error> {
    policy(tk, alg, now, origin)?;
    for other in trust.same_key(tk) {
        if std::ptr::eq(other, tk) {
            continue;
        }
        policy(other, alg, now, origin).map_err(|e| {
            Error::new(
                e.code(),
                format!(
                    "{} (an entry of {} for the same key binds it, whatever its kid)",
                    e.message(),
                    other.source.label()
                ),
            )
        })?;
    }
    Ok(())
}

fn policy(tk: &TrustedKey, alg: Algorithm, now: Option<i64>, origin: Option<&str>) -> Result<(), Error> {
    if tk.revoked {
        return Err(Error::new(
            ErrorCode::KeyRevoked,
            format!("the trusted key {:?} is revoked", tk.kid()),
        ));
    }
    if tk.not_before.is_some() || tk.not_after.is_some() {
        let Some(now) = now else {
            return Err(Error::new(
                ErrorCode::KeyExpired,
                "the key has a validity window and no clock was given",
            ));
        };
        if tk.not_before.is_some_and(|nb| now < nb) {
            return Err(Error::new(
                ErrorCode::KeyExpired,
                format!("the trusted key {:?} is not valid yet", tk.kid()),
            ));
        }
        if tk.not_after.is_some_and(|na| now > na) {
            return Err(Error::new(
                ErrorCode::KeyExpired,
                format!("the trusted key {:?} has expired", tk.kid()),
            ));
        }
    }
    if let Some(allowed) = &tk.algorithms {
        if !allowed.contains(&alg) {
            return Err(Error::new(
                ErrorCode::AlgorithmNotAllowed,
                format!(
                    "the trusted key {:?} may not be used with {}",
                    tk.kid(),
                    alg.as_str()
                ),
            ));
        }
    }
    tk.key.check_algorithm(alg)?;
    if let Some(origins) = &tk.origins {
        match origin {
            Some(o) if origins.iter().any(|x| x == o) => {}
            Some(o) => {
                return Err(Error::new(
                    ErrorCode::UntrustedKey,
                    format!(
                        "the trusted key {:?} may sign only for {}, not for {o}",
                        tk.kid(),
                        origins.join(", ")
                    ),
                ))
            }
            None => {
                return Err(Error::new(
                    ErrorCode::UntrustedKey,
                    format!(
                        "the trusted key {:?} is bound to origins and the card has none",
                        tk.kid()
                    ),
                ))
            }
        }
    }
    Ok(())
}
