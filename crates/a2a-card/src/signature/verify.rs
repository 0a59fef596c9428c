//! Verifying a card: one strict read, canonical bytes computed once per accepted profile, then
//! for each signature entry a strict header decode, the caller's policy, the key lookup among
//! trusted keys only, and the cryptographic check. The answer is a [`Report`], never a bare
//! boolean: what a caller should act on is the verified content, and the report says what was
//! left out of it.
//!
//! The entry points are here; the verification itself is `plan.rs` ("plan then conclude"),
//! concluded here with the backend's or `ring`'s answer to each check as it comes, and in
//! [`DeferredVerification`](super::DeferredVerification) with answers given from outside.

use crate::canonical::doc::{Shape, Tree};
use crate::canonical::{canonicalize_tree, Canonical, CanonicalizeOptions, Doc, Profile, UnknownMembers};
use crate::error::{Error, ErrorCode};
use crate::jose::crypto::{self, BackendVerdict, CryptoFailure, SignatureBackend, SignatureCheck};
use crate::signature::entries::{read_signatures_of, Signatures};
use crate::signature::options::{now_seconds, Checked, VerifyOptions};
use crate::signature::plan::{self, fallback_profile, Answer, Context, Forms, Plan};
use crate::signature::report::Report;
use crate::signature::trust::TrustStore;

/// Verifies a card given as bytes against trusted keys.
///
/// Returns `Err` only when the card itself cannot be read (not JSON, not an object, too many
/// signatures, `signatures` not an array); every per-signature problem is a verdict in the report.
///
/// The thread keeps the buffer the JWS signing input was written in for its next verification or
/// signature (the largest it has used, up to 4 MiB): a large card's next call then takes no
/// memory back from the system.
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
    let checked = opts.checked()?;
    let doc = Doc::parse(card, &opts.limits)?;
    verify_tree(doc.root(), trust, &checked, backend)
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
    verify_tree(doc.root(), trust, &opts.checked()?, None)
}

/// The checks every verification makes on the card before its signatures, once its options
/// passed [`VerifyOptions::check`]: the card is an object and its `signatures` member reads.
/// Returns the signature entries.
pub(crate) fn read_card<'t, N: Tree<'t>>(card: N, opts: &VerifyOptions) -> Result<Signatures, Error> {
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
    // The signature entries are small: they are read as values, the card itself is not.
    Ok(read_signatures_of(card, opts.max_signatures)?.with_max_header_bytes(opts.max_header_bytes))
}

/// The canonicalizer of a card read into a tree, under the options of a verification (with
/// unknown members retained instead when the second argument is `true`).
pub(crate) fn tree_canonicalizer<'t, N: Tree<'t>>(
    card: N,
    opts: &VerifyOptions,
) -> impl FnMut(Profile, bool) -> Result<Canonical, Error> + use<'t, N> {
    let (unknown, limits) = (opts.unknown, opts.limits);
    move |profile, retained| {
        canonicalize_tree(
            card,
            &CanonicalizeOptions {
                profile,
                unknown: if retained { UnknownMembers::Retain } else { unknown },
                limits,
            },
        )
    }
}

/// Steps 4 to 6 of every verification (`ARCHITECTURE.md`): the card's own checks, its form under
/// the first accepted profile that reads it, and the plan of its signatures.
pub(crate) fn plan_card<'t, 'k, N: Tree<'t>>(
    card: N,
    trust: &'k TrustStore,
    checked: &Checked<'_>,
) -> Result<(Plan<'k>, Forms), Error> {
    let opts = checked.opts;
    let signatures = read_card(card, opts)?;
    let mut canon = tree_canonicalizer(card, opts);
    let mut forms = Forms::default();
    let fallback = fallback_profile(&opts.profiles, &mut forms, &mut canon)?;
    let ctx = Context {
        trust,
        opts,
        now: now_seconds(opts),
        origin: checked.opts.origin.as_ref(),
    };
    Ok((
        plan::plan(&signatures, &ctx, fallback, || every_member(card)),
        forms,
    ))
}

/// The one verification behind [`verify_card_with`] and [`verify_doc`], over the card read into a
/// [`Doc`]: the plan, concluded with the backend's (or `ring`'s) answer to each check as it comes.
fn verify_tree<'t, N: Tree<'t>>(
    card: N,
    trust: &TrustStore,
    checked: &Checked<'_>,
    backend: Option<&dyn SignatureBackend>,
) -> Result<Report, Error> {
    let (plan, mut forms) = plan_card(card, trust, checked)?;
    let mut canon = tree_canonicalizer(card, checked.opts);
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
