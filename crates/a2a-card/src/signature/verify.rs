//! Verifying a card: one strict read, canonical bytes computed once per accepted profile, then
//! for each signature entry a strict header decode, the caller's policy, the key lookup among
//! trusted keys only, and the cryptographic check. The answer is a [`Report`], never a bare
//! boolean: what a caller should act on is the verified content, and the report says what was
//! left out of it.

use crate::canonical::doc::{Shape, Tree};
use crate::canonical::{canonicalize_tree, Canonical, CanonicalizeOptions, Profile, UnknownMembers};
use crate::canonical::{Doc, Limits};
use crate::error::{Error, ErrorCode};
use crate::jose::b64;
use crate::jose::crypto::{self as alg, CryptoFailure, SignatureBackend};
use crate::jose::header::{self as jws, Header};
use crate::jose::Algorithm;
use crate::signature::entries::{read_signatures_of, SignatureEntry};
use crate::signature::report::{KeyUsed, Mode, Report, SignatureReport, Verdict};
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

fn now_seconds(opts: &VerifyOptions) -> Option<i64> {
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

/// Lazily computed canonical forms, one per profile, each computed at most once.
struct Forms<N> {
    card: N,
    unknown: UnknownMembers,
    limits: Limits,
    done: Vec<(Profile, Result<Canonical, Error>)>,
    /// The first signing input built over each profile and where its BASE64URL payload starts,
    /// so the canonical bytes are encoded once however many signatures use them.
    payloads: Vec<(Profile, Vec<u8>, usize)>,
}

impl<'t, N: Tree<'t>> Forms<N> {
    fn get(&mut self, p: Profile) -> &Result<Canonical, Error> {
        if let Some(i) = self.done.iter().position(|(q, _)| *q == p) {
            return &self.done[i].1;
        }
        let opts = CanonicalizeOptions {
            profile: p,
            unknown: self.unknown,
            limits: self.limits,
        };
        self.done.push((p, canonicalize_tree(self.card, &opts)));
        &self.done[self.done.len() - 1].1
    }

    /// The signing input of one signature over profile `p`: `protected '.' BASE64URL(bytes)`.
    /// One input is kept per profile and its BASE64URL payload is encoded once: a signature with
    /// another protected header only has the part before the payload replaced.
    fn signing_input(&mut self, p: Profile, protected: &str) -> Result<&[u8], Error> {
        let i = match self.payloads.iter().position(|(q, _, _)| *q == p) {
            Some(i) => i,
            None => {
                let bytes = match self.get(p) {
                    Ok(c) => &c.bytes,
                    Err(e) => return Err(e.clone()),
                };
                let mut input = Vec::with_capacity(protected.len() + 1 + bytes.len().div_ceil(3) * 4);
                input.extend_from_slice(protected.as_bytes());
                input.push(b'.');
                let at = input.len();
                b64::encode_into(&mut input, bytes);
                self.payloads.push((p, input, at));
                self.payloads.len() - 1
            }
        };
        let Some((_, input, at)) = self.payloads.get_mut(i) else {
            return Err(Error::new(ErrorCode::Usage, "internal: signing input missing"));
        };
        let same = input
            .get(..*at)
            .is_some_and(|head| head.len() == protected.len() + 1 && head.starts_with(protected.as_bytes()));
        if !same {
            let mut head = Vec::with_capacity(protected.len() + 1);
            head.extend_from_slice(protected.as_bytes());
            head.push(b'.');
            let old = (*at).min(input.len());
            input.splice(..old, head);
            *at = protected.len() + 1;
        }
        Ok(input.as_slice())
    }

    fn take(&mut self, p: Profile) -> Option<Result<Canonical, Error>> {
        let i = self.done.iter().position(|(q, _)| *q == p)?;
        Some(self.done.swap_remove(i).1)
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

/// The one verification behind [`verify_card_with`] and [`verify_doc`], over the card read into a
/// [`Doc`].
fn verify_tree<'t, N: Tree<'t>>(
    card: N,
    trust: &TrustStore,
    opts: &VerifyOptions,
    backend: Option<&dyn SignatureBackend>,
) -> Result<Report, Error> {
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
    let mut forms = Forms {
        card,
        unknown: opts.unknown,
        limits: opts.limits,
        done: Vec::new(),
        payloads: Vec::new(),
    };
    // The card is bad input only when no accepted profile can canonicalize it (for example a
    // dual name refused by `spec` may still be read by `served-as-is` when the caller accepts it).
    let mut fallback = None;
    let mut first_error = None;
    for &p in &opts.profiles {
        match forms.get(p) {
            Ok(_) => {
                fallback = Some(p);
                break;
            }
            Err(e) => {
                if first_error.is_none() {
                    first_error = Some(e.clone());
                }
            }
        }
    }
    let Some(fallback) = fallback else {
        return Err(first_error.unwrap_or_else(|| Error::new(ErrorCode::Usage, "no profile is accepted")));
    };
    let now = now_seconds(opts);
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

    let mut reports = Vec::with_capacity(signatures.len());
    let mut ctx = Checks {
        trust,
        opts,
        now,
        origin: origin.as_deref(),
        backend,
        budget: opts.max_signature_checks,
    };
    for entry in signatures.entries() {
        reports.push(check_entry(&entry, &mut ctx, &mut forms));
    }

    let valid = reports.iter().filter(|r| r.verdict.is_valid()).count();
    let total = reports.len();
    let (ok, reason) = match opts.mode {
        Mode::Require if valid > 0 => (
            true,
            format!("{valid} of {total} signatures verify with a trusted key"),
        ),
        Mode::Require if total == 0 => (
            false,
            "the card is not signed; mode require needs a valid signature".to_string(),
        ),
        Mode::Require => (
            false,
            format!("none of the {total} signatures verifies with a trusted key"),
        ),
        Mode::All if total > 0 && valid == total => (true, format!("all {total} signatures verify")),
        Mode::All if total == 0 => (
            false,
            "the card is not signed; mode all needs at least one signature".to_string(),
        ),
        Mode::All => (
            false,
            format!(
                "{} of {total} signatures do not verify; mode all needs every one",
                total - valid
            ),
        ),
        Mode::IfPresent if total == 0 => (
            true,
            "the card is not signed, which mode if-present allows; no member of it is covered by a signature"
                .to_string(),
        ),
        Mode::IfPresent if valid == total => (true, format!("all {total} signatures verify")),
        Mode::IfPresent => (
            false,
            format!("{} of {total} signatures do not verify", total - valid),
        ),
    };

    let chosen = reports
        .iter()
        .find(|r| r.verdict.is_valid())
        .and_then(|r| r.profile)
        .unwrap_or(fallback);
    // Materialize the chosen form, then move it out rather than copy it.
    if let Err(e) = forms.get(chosen) {
        return Err(e.clone());
    }
    let canonical = match forms.take(chosen) {
        Some(Ok(c)) => c,
        Some(Err(e)) => return Err(e),
        None => return Err(Error::new(ErrorCode::Usage, "internal: canonical form missing")),
    };
    // With no signature, nothing is covered: every member of the card is unsigned.
    let unsigned = if total == 0 {
        every_member(card)
    } else {
        canonical.unsigned
    };
    Ok(Report {
        ok,
        mode: opts.mode,
        reason,
        profile: chosen,
        canonical: canonical.bytes,
        unsigned,
        signatures: reports,
    })
}

/// The JSON Pointer of every top-level member but `signatures`, in document order.
fn every_member<'t, N: Tree<'t>>(card: N) -> Vec<String> {
    let Shape::Object(len) = card.shape() else {
        return Vec::new();
    };
    (0..len)
        .filter_map(|i| card.member(i))
        .filter(|(name, _)| *name != "signatures")
        .map(|(name, _)| format!("/{}", crate::pointer_token(name)))
        .collect()
}

fn at_entry(e: Error, index: usize, member: &str) -> Error {
    if e.pointer().is_some() {
        return e;
    }
    e.at(format!("/signatures/{index}/{member}"))
}

/// What every signature of one card is checked against, and the checks left to spend.
struct Checks<'a> {
    trust: &'a TrustStore,
    opts: &'a VerifyOptions,
    now: Option<i64>,
    origin: Option<&'a str>,
    backend: Option<&'a dyn SignatureBackend>,
    /// Signature checks left for this card ([`VerifyOptions::max_signature_checks`]).
    budget: usize,
}

fn check_entry<'t>(
    entry: &SignatureEntry<'_>,
    ctx: &mut Checks<'_>,
    forms: &mut Forms<impl Tree<'t>>,
) -> SignatureReport {
    let (trust, opts, now, origin, backend) = (ctx.trust, ctx.opts, ctx.now, ctx.origin, ctx.backend);
    let index = entry.index();
    let mut report = SignatureReport {
        index,
        kid: None,
        alg: None,
        jku: None,
        key: None,
        profile: None,
        verdict: Verdict::valid(),
    };
    let fail = |mut r: SignatureReport, e: Error| {
        r.verdict = Verdict::from_error(&e);
        r
    };
    let header: Header = match entry.decoded_header() {
        Ok(h) => h,
        Err(e) => return fail(report, e),
    };
    report.kid = header.kid.clone();
    report.alg = Some(header.alg.as_str().to_string());
    report.jku = header.jku.clone();
    if let Err(e) = entry.check_card_header(&header) {
        return fail(report, e);
    }
    let protected = entry.protected().unwrap_or_default();
    let sig = match entry.signature() {
        Ok(s) => s,
        Err(e) => return fail(report, e),
    };
    let alg = header.alg;
    if alg.is_hmac() {
        return fail(
            report,
            Error::new(
                ErrorCode::AlgorithmNotAllowed,
                format!(
                    "{} needs a shared secret, which is never a trust root for a published card",
                    alg.as_str()
                ),
            ),
        );
    }
    if let Some(allowed) = &opts.algorithms {
        if !allowed.contains(&alg) {
            return fail(
                report,
                Error::new(
                    ErrorCode::AlgorithmNotAllowed,
                    format!("{} is not among the allowed algorithms", alg.as_str()),
                ),
            );
        }
    }
    if !alg.available() {
        return fail(
            report,
            Error::new(
                ErrorCode::AlgorithmNotAllowed,
                format!("{} is not available in this build", alg.as_str()),
            ),
        );
    }
    let kid = header.kid.as_deref().unwrap_or("");
    let candidates: Vec<&TrustedKey> = trust
        .by_kid(kid)
        .take(opts.max_keys_per_kid.saturating_add(1))
        .collect();
    if candidates.len() > opts.max_keys_per_kid {
        return fail(
            report,
            Error::new(
                ErrorCode::TooManyKeys,
                format!(
                    "more than {} trusted keys have kid {kid:?} (the limit); none was tried: give each key its own kid",
                    opts.max_keys_per_kid
                ),
            ),
        );
    }
    if candidates.is_empty() {
        return fail(
            report,
            Error::new(
                ErrorCode::UntrustedKey,
                format!(
                    "no trusted key has kid {} (kid selects among trusted keys only); the trusted kids are {}",
                    crate::signature::quoted(kid),
                    trust.kid_list(8)
                ),
            ),
        );
    }
    // Policy per candidate; the first candidate that passes policy is checked cryptographically.
    let mut last_err: Option<Error> = None;
    let mut tried: Vec<&TrustedKey> = Vec::new();
    for tk in candidates {
        if let Err(e) = bound_policy(trust, tk, alg, now, origin) {
            last_err = Some(e);
            continue;
        }
        tried.push(tk);
        report.key = Some(KeyUsed {
            kid: tk.kid().to_string(),
            thumbprint: tk.key.thumbprint(),
            source: tk.source.clone(),
        });
        let mut crypto_err = None;
        for &profile in &opts.profiles {
            if ctx.budget == 0 {
                return fail(
                    report,
                    Error::new(
                        ErrorCode::TooManyChecks,
                        format!(
                            "the card needs more than {} signature checks (the limit); this signature was not checked",
                            opts.max_signature_checks
                        ),
                    ),
                );
            }
            ctx.budget -= 1;
            let input = match forms.signing_input(profile, protected) {
                Ok(i) => i,
                Err(e) => {
                    crypto_err = Some(e);
                    continue;
                }
            };
            match alg::verify_checked(alg, &tk.key, input, &sig, backend) {
                Ok(()) => {
                    report.profile = Some(profile);
                    report.verdict = Verdict::valid();
                    return report;
                }
                Err(CryptoFailure::Refused(e)) => crypto_err = Some(e),
                Err(CryptoFailure::Backend(e)) => {
                    return fail(report, at_entry(e, index, "signature"));
                }
            }
        }
        last_err = crypto_err;
    }
    let e =
        last_err.unwrap_or_else(|| Error::new(ErrorCode::SignatureInvalid, "the signature does not verify"));
    let e = if e.code() == ErrorCode::SignatureInvalid {
        let names: Vec<&str> = opts.profiles.iter().map(|p| p.as_str()).collect();
        let hint = match other_profile(&tried, alg, &sig, protected, ctx, forms) {
            Some(p) => format!(
                "; it verifies over the {p} bytes ({}): accept that profile to accept it (--profile {p} or --profile auto)",
                p.signed_by()
            ),
            None => String::new(),
        };
        Error::new(
            ErrorCode::SignatureInvalid,
            format!(
                "{} (checked over the canonical bytes of: {}){hint}",
                e.message(),
                names.join(", ")
            ),
        )
    } else {
        e
    };
    fail(report, e)
}

/// A profile the caller did not accept under which the signature verifies with one of the
/// trusted keys `tried`, for the hint of a `signature-invalid` verdict (which it does not
/// change). A profile whose bytes are those of an accepted one is skipped (its answer would be
/// the same). Each check counts against the card's signature-check budget; none is made past
/// it.
fn other_profile<'t>(
    tried: &[&TrustedKey],
    alg: Algorithm,
    sig: &[u8],
    protected: &str,
    ctx: &mut Checks<'_>,
    forms: &mut Forms<impl Tree<'t>>,
) -> Option<Profile> {
    let digest = |forms: &mut Forms<_>, p| match forms.get(p) {
        Ok(c) => Some(crate::signature::sha256_hex(&c.bytes)),
        Err(_) => None,
    };
    let accepted: Vec<String> = ctx
        .opts
        .profiles
        .iter()
        .filter_map(|&p| digest(forms, p))
        .collect();
    for p in Profile::ALL
        .into_iter()
        .filter(|p| !ctx.opts.profiles.contains(p))
    {
        match digest(forms, p) {
            Some(d) if !accepted.contains(&d) => {}
            _ => continue,
        }
        for tk in tried {
            if ctx.budget == 0 {
                return None;
            }
            ctx.budget -= 1;
            let Ok(input) = forms.signing_input(p, protected) else {
                break;
            };
            if alg::verify_checked(alg, &tk.key, input, sig, ctx.backend).is_ok() {
                return Some(p);
            }
        }
    }
    None
}

/// The policy of `tk` and of every other entry of the store that holds the same key (by RFC 7638
/// thumbprint, whatever its `kid`): a key listed more than once is bound by every listing, so
/// an entry that revokes it, ends its validity or binds it to origins cannot be bypassed by the
/// same key arriving through another entry (a second file, or a JWKS fetched from a `jku`).
fn bound_policy(
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
