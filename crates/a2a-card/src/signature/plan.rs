//! Verification in two steps, "plan then conclude", so that the signature checks can be made
//! by someone else, later (the WebAssembly package's WebCrypto, which is asynchronous), while
//! every rule stays here.
//!
//! [`plan`] does everything that needs no signature primitive: the strict read of each
//! signature entry and its header, the card's header rules, the algorithm rules, the key
//! lookup among trusted keys and the policy of every candidate key. [`conclude`] then walks
//! the plan in the one order verification has (entry by entry, candidate by candidate, profile
//! by profile), spends the check budget, builds each signing input, makes the checks before
//! the primitive ([`crypto::precheck`]) and asks an oracle for the primitive's answer, and
//! from the answers makes the [`Report`]. The synchronous verifier's oracle answers at once
//! (the backend, else `ring`); a deferred one ([`super::DeferredVerification`]) may answer
//! "not yet", and the walk then names the checks to make before the next walk.
//!
//! Which checks a walk asks for, when some answers are not known: in each entry, its first
//! unanswered check, provided that check is within the budget even if every unanswered check
//! before it failed and every entry before it spent all its remaining checks. Such a check is
//! one the synchronous verifier makes too (answers known to fail are the same, and a success
//! only spends less), so a deferred verification makes exactly the checks the synchronous one
//! makes, never more, and reaches the same report.

use crate::canonical::{Canonical, Profile};
use crate::error::{Error, ErrorCode};
use crate::jose::crypto::{self, SignatureCheck};
use crate::jose::header::replace_protected;
use crate::jose::input_buffer::InputBuffer;
use crate::jose::keys::PublicKey;
use crate::jose::Algorithm;
use crate::signature::declared::Declared;
use crate::signature::entries::{SignatureEntry, Signatures};
use crate::signature::options::VerifyOptions;
use crate::signature::policy::{bound_policy, key_policy};
use crate::signature::report::{KeyUsed, Mode, Report, SignatureReport, Verdict};
use crate::signature::trust::{TrustStore, TrustedKey};
use std::borrow::Cow;

/// Makes the canonical form of the card under a profile (the card is the caller's: a borrowed
/// document, or bytes read again), with the verification's choice for unknown members, or (the
/// second argument `true`) with them retained, for the hint of a signature made that way.
pub(crate) type Canonicalizer<'c> = dyn FnMut(Profile, bool) -> Result<Canonical, Error> + 'c;

/// One canonical form: a profile, and whether unknown members are retained whatever the
/// verification's choice (only hints check such a form).
type Form = (Profile, bool);

/// Lazily computed canonical forms, one per profile, each computed at most once.
#[derive(Default)]
pub(crate) struct Forms {
    done: Vec<(Form, Result<Canonical, Error>)>,
    /// The signing input built over each form, so the canonical bytes are encoded once however
    /// many signatures use them. The buffers are the thread's to reuse ([`InputBuffer`]) once
    /// the forms are dropped.
    payloads: Vec<(Form, InputBuffer)>,
}

impl Forms {
    /// The form of `p`, computed with `canon` the first time.
    pub(crate) fn get(&mut self, p: Profile, canon: &mut Canonicalizer<'_>) -> &Result<Canonical, Error> {
        self.get_form((p, false), canon)
    }

    fn get_form(&mut self, f: Form, canon: &mut Canonicalizer<'_>) -> &Result<Canonical, Error> {
        if let Some(i) = self.done.iter().position(|(q, _)| *q == f) {
            return &self.done[i].1;
        }
        self.done.push((f, canon(f.0, f.1)));
        &self.done[self.done.len() - 1].1
    }

    /// The signing input of one signature over form `p`: `protected '.' BASE64URL(bytes)`.
    /// One input is kept per form and its BASE64URL payload is encoded once: a signature with
    /// another protected header only has the part before the payload replaced.
    fn signing_input(
        &mut self,
        p: Form,
        protected: &str,
        canon: &mut Canonicalizer<'_>,
    ) -> Result<&[u8], Error> {
        if let Some(i) = self.payloads.iter().position(|(q, _)| *q == p) {
            let input = &mut self.payloads[i].1;
            replace_protected(input, protected);
            return Ok(input.as_slice());
        }
        let bytes = match self.get_form(p, canon) {
            Ok(c) => &c.bytes,
            Err(e) => return Err(e.clone()),
        };
        let input = InputBuffer::signing_input(protected, bytes);
        self.payloads.push((p, input));
        Ok(self.payloads[self.payloads.len() - 1].1.as_slice())
    }

    /// Form `f`, moved out (computed first when it is not yet).
    fn take(&mut self, f: Form, canon: &mut Canonicalizer<'_>) -> Result<Canonical, Error> {
        if let Err(e) = self.get_form(f, canon) {
            return Err(e.clone());
        }
        match self.done.iter().position(|(q, _)| *q == f) {
            Some(i) => self.done.swap_remove(i).1,
            None => Err(Error::new(ErrorCode::Usage, "internal: canonical form missing")),
        }
    }
}

/// The first accepted profile that can canonicalize the card: the card is bad input only when
/// none can (a dual name refused by `spec` may still be read by `served-as-is` when the caller
/// accepts it).
pub(crate) fn fallback_profile(
    profiles: &[Profile],
    forms: &mut Forms,
    canon: &mut Canonicalizer<'_>,
) -> Result<Profile, Error> {
    let mut first_error = None;
    for &p in profiles {
        match forms.get(p, canon) {
            Ok(_) => return Ok(p),
            Err(e) => {
                if first_error.is_none() {
                    first_error = Some(e.clone());
                }
            }
        }
    }
    Err(first_error.unwrap_or_else(|| Error::new(ErrorCode::Usage, "no profile is accepted")))
}

/// Everything about a card's signatures that needs no signature primitive.
pub(crate) struct Plan<'k> {
    entries: Vec<EntryPlan<'k>>,
    /// The profile reported when no signature verifies.
    fallback: Profile,
    /// For a card without signatures: every top-level member (nothing is covered).
    every_member: Vec<String>,
    profiles: Vec<Profile>,
    /// Whether unknown members are excluded, so that a failed signature's hint checks the
    /// accepted profiles with them retained too.
    retain_hint: bool,
    mode: Mode,
    max_signature_checks: usize,
    /// How many check ids the plan gave out (see [`Candidate::first_id`]).
    pub(crate) checks: usize,
}

/// One signature entry: its report so far and what remains to check.
struct EntryPlan<'k> {
    /// Index, kid, alg and jku as far as the header decoded.
    report: SignatureReport,
    /// Refused before any key was tried, or the candidates to try.
    steps: Result<Steps<'k>, Error>,
}

struct Steps<'k> {
    /// The bytes the signature declares it covers (its protected header's
    /// [`crate::signature::DECLARED_PARAMETER`]): then it is checked over that form only, when
    /// the policy accepts it (or accepts a profile with the same bytes for this card), and is
    /// `profile-not-accepted` otherwise; without the declaration, over each accepted profile.
    declared: Option<Declared>,
    alg: Algorithm,
    protected: String,
    signature: Vec<u8>,
    /// In the store's order: refused by policy, or to be checked.
    candidates: Vec<Result<Candidate<'k>, Error>>,
}

struct Candidate<'k> {
    used: KeyUsed,
    key: Cow<'k, PublicKey>,
    /// The id of its check under the first profile of [`Profile::ALL`]; the others follow, in
    /// that order (accepted or not: a profile not accepted is checked for a verdict's hint),
    /// then the same profiles with unknown members retained (for a hint too).
    first_id: usize,
}

/// How many check ids a candidate key has: one per form.
const CHECKS_PER_KEY: usize = 2 * Profile::ALL.len();

impl Candidate<'_> {
    fn id(&self, (p, retained): Form) -> usize {
        let retained = if retained { Profile::ALL.len() } else { 0 };
        self.first_id + retained + Profile::ALL.iter().position(|q| *q == p).unwrap_or(0)
    }
}

impl Plan<'_> {
    /// The profile reported when no signature verifies.
    pub(crate) fn fallback(&self) -> Profile {
        self.fallback
    }

    /// The plan with its keys copied, free of the trust store it was made from.
    pub(crate) fn into_owned(self) -> Plan<'static> {
        Plan {
            entries: self
                .entries
                .into_iter()
                .map(|e| EntryPlan {
                    report: e.report,
                    steps: e.steps.map(|s| Steps {
                        declared: s.declared,
                        alg: s.alg,
                        protected: s.protected,
                        signature: s.signature,
                        candidates: s
                            .candidates
                            .into_iter()
                            .map(|c| {
                                c.map(|c| Candidate {
                                    used: c.used,
                                    key: Cow::Owned(c.key.into_owned()),
                                    first_id: c.first_id,
                                })
                            })
                            .collect(),
                    }),
                })
                .collect(),
            fallback: self.fallback,
            every_member: self.every_member,
            profiles: self.profiles,
            retain_hint: self.retain_hint,
            mode: self.mode,
            max_signature_checks: self.max_signature_checks,
            checks: self.checks,
        }
    }
}

/// What the verifier is checked against: the trust store (whose keys the plan borrows) and the
/// policy inputs.
pub(crate) struct Context<'a, 'k> {
    pub(crate) trust: &'k TrustStore,
    pub(crate) opts: &'a VerifyOptions,
    pub(crate) now: Option<i64>,
    pub(crate) origin: Option<&'a crate::signature::Origin>,
}

/// Plans the verification of the signature entries `signatures`; `fallback` is the first
/// accepted profile that reads the card, `every_member` the card's top-level members (reported
/// as unsigned when there is no signature).
pub(crate) fn plan<'k>(
    signatures: &Signatures,
    ctx: &Context<'_, 'k>,
    fallback: Profile,
    every_member: impl FnOnce() -> Vec<String>,
) -> Plan<'k> {
    let mut checks = 0;
    let entries: Vec<EntryPlan<'k>> = signatures
        .entries()
        .map(|entry| plan_entry(&entry, ctx, &mut checks))
        .collect();
    Plan {
        every_member: if entries.is_empty() {
            every_member()
        } else {
            Vec::new()
        },
        entries,
        fallback,
        profiles: ctx.opts.profiles.clone(),
        retain_hint: ctx.opts.unknown == crate::canonical::UnknownMembers::Exclude,
        mode: ctx.opts.mode,
        max_signature_checks: ctx.opts.max_signature_checks,
        checks,
    }
}

fn plan_entry<'k>(entry: &SignatureEntry<'_>, ctx: &Context<'_, 'k>, checks: &mut usize) -> EntryPlan<'k> {
    let mut report = SignatureReport {
        index: entry.index(),
        kid: None,
        alg: None,
        jku: None,
        key: None,
        certificate: None,
        profile: None,
        verdict: Verdict::valid(),
    };
    let steps = entry_steps(entry, ctx, checks, &mut report);
    EntryPlan { report, steps }
}

fn entry_steps<'k>(
    entry: &SignatureEntry<'_>,
    ctx: &Context<'_, 'k>,
    checks: &mut usize,
    report: &mut SignatureReport,
) -> Result<Steps<'k>, Error> {
    let (trust, opts) = (ctx.trust, ctx.opts);
    let header = entry.decoded_header()?;
    report.kid = header.kid.clone();
    report.alg = Some(header.alg.as_str().to_string());
    report.jku = header.jku.clone();
    entry.check_card_header(&header)?;
    let declared =
        crate::signature::declared::read(&header).map_err(|(e, member)| e.at(entry.pointer(Some(member))))?;
    let protected = entry.protected().unwrap_or_default().to_string();
    let signature = entry.signature()?;
    let alg = header.alg;
    if alg.is_hmac() {
        return Err(Error::new(
            ErrorCode::AlgorithmNotAllowed,
            format!(
                "{} needs a shared secret, which is never a trust root for a published card",
                alg.as_str()
            ),
        ));
    }
    if let Some(allowed) = &opts.algorithms {
        if !allowed.contains(&alg) {
            return Err(Error::new(
                ErrorCode::AlgorithmNotAllowed,
                format!("{} is not among the allowed algorithms", alg.as_str()),
            ));
        }
    }
    if !alg.available() {
        return Err(Error::new(
            ErrorCode::AlgorithmNotAllowed,
            format!("{} is not available in this build", alg.as_str()),
        ));
    }
    let kid = header.kid.as_deref().unwrap_or("");
    // A certificate chain that builds to an anchor gives the key; a key the verifier pinned
    // under the kid stands by itself when the chain does not (the chain is never a root).
    match x5c_steps(entry, &header, ctx, report) {
        None => {}
        Some(Ok((key, used))) => {
            // The leaf's key is bound by every entry holding it, as if it came from a store.
            let candidate = match key_policy(trust, &key, alg, ctx.now, ctx.origin) {
                Ok(()) => Ok(candidate_of(key, used, checks)),
                Err(e) => {
                    report.certificate = None;
                    Err(e)
                }
            };
            return Ok(Steps {
                declared,
                alg,
                protected,
                signature,
                candidates: vec![candidate],
            });
        }
        Some(Err(e)) if trust.by_kid(kid).next().is_none() => return Err(e),
        Some(Err(_)) => {}
    }
    let found: Vec<&'k TrustedKey> = trust
        .by_kid(kid)
        .take(opts.max_keys_per_kid.saturating_add(1))
        .collect();
    if found.len() > opts.max_keys_per_kid {
        return Err(Error::new(
            ErrorCode::TooManyKeys,
            format!(
                "more than {} trusted keys have kid {kid:?} (the limit); none was tried: give each key its own kid",
                opts.max_keys_per_kid
            ),
        ));
    }
    if found.is_empty() {
        let quoted = crate::signature::quoted;
        let hint = match thumbprint_of(trust, kid) {
            Some((other, source)) => format!(
                "; kid {} is the thumbprint (RFC 7638) of trusted key {} ({source}): sign with kid {}, \
                 or give that key the kid {} where it is trusted",
                quoted(kid),
                quoted(&other),
                quoted(&other),
                quoted(kid)
            ),
            // Costs the kids it shows, not the size of the store (its kid index).
            None => format!("; the trusted kids are {}", trust.kid_list(8)),
        };
        return Err(Error::new(
            ErrorCode::UntrustedKey,
            format!(
                "no trusted key has kid {} (kid selects among trusted keys only){hint}",
                quoted(kid),
            ),
        ));
    }
    let candidates = found
        .into_iter()
        .map(|tk| {
            bound_policy(trust, tk, alg, ctx.now, ctx.origin)?;
            let first_id = *checks;
            *checks += CHECKS_PER_KEY;
            Ok(Candidate {
                used: KeyUsed {
                    kid: tk.kid().to_string(),
                    thumbprint: tk.key.thumbprint(),
                    source: tk.source.clone(),
                },
                key: Cow::Borrowed(&tk.key),
                first_id,
            })
        })
        .collect();
    Ok(Steps {
        declared,
        alg,
        protected,
        signature,
        candidates,
    })
}

/// The verdict on a signature that declares `d`, a profile the policy (which accepts
/// `accepted`) does not accept: what it was made for, and that this policy does not take it.
/// Not `signature-invalid`: nothing says the signature is bad.
fn not_accepted(d: Declared, accepted: &[Profile]) -> Error {
    let names: Vec<&str> = accepted.iter().map(|p| p.as_str()).collect();
    crate::error::option_error(
        ErrorCode::ProfileNotAccepted,
        &format!(
            "made over {}, as its protected header declares; not accepted by this policy, which \
             accepts {}: add {} to the accepted {{profile}} (or accept every one, auto) to check it",
            d.bytes_named(),
            names.join(", "),
            d.profile.as_str()
        ),
        &["profile"],
    )
}

/// The trusted key whose RFC 7638 thumbprint is `kid`, for the hint of an unknown kid (which
/// selects nothing: a kid names a key only by its trusted kid). Only a kid shaped like a
/// thumbprint (43 base64url characters, SHA-256) makes it look through the store.
fn thumbprint_of(trust: &TrustStore, kid: &str) -> Option<(String, String)> {
    let shaped = kid.len() == 43
        && kid
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !shaped {
        return None;
    }
    trust
        .with_thumbprint(kid)
        .next()
        .map(|tk| (tk.kid().to_string(), tk.source.label()))
}

fn candidate_of<'k>(key: PublicKey, used: KeyUsed, checks: &mut usize) -> Candidate<'k> {
    let first_id = *checks;
    *checks += CHECKS_PER_KEY;
    Candidate {
        used,
        key: Cow::Owned(key),
        first_id,
    }
}

/// The certificate parameters of a header: `None` when it has neither `x5c` nor `x5u` (the
/// signature's key is looked up by `kid` only); else the leaf's key of an `x5c` chain that builds to
/// one of the verifier's anchors (`signature/chain.rs`), or why not. An `x5u` is never fetched;
/// an `x5c` outside the protected header is not covered by the signature: both are refused.
fn x5c_steps(
    entry: &SignatureEntry<'_>,
    header: &crate::jose::header::Header,
    ctx: &Context<'_, '_>,
    report: &mut SignatureReport,
) -> Option<Result<(PublicKey, KeyUsed), Error>> {
    use crate::signature::chain::{self, HeaderPart};
    let at = |e: Error| e.at(entry.pointer(Some("protected")));
    let value = match chain::header_certificates(header) {
        Ok(v) => v?,
        Err((e, HeaderPart::Protected)) => return Some(Err(at(e))),
        Err((e, HeaderPart::Unprotected)) => return Some(Err(e.at(entry.pointer(Some("header"))))),
    };
    let result = (|| {
        let certs = crate::jose::x509::decode_x5c_summaries(value)?;
        let cctx = chain::ChainContext {
            trust: ctx.trust,
            opts: ctx.opts,
            now: ctx.now,
            origin: ctx.origin,
        };
        chain::check_chain(&certs, header, &cctx)
    })();
    Some(match result {
        Ok(checked) => {
            let used = KeyUsed {
                kid: header.kid.clone().unwrap_or_default(),
                thumbprint: checked.key.thumbprint(),
                source: crate::signature::report::KeySource::Certificate {
                    anchor_source: checked.used.anchor_source.clone(),
                },
            };
            report.certificate = Some(checked.used);
            Ok((checked.key, used))
        }
        Err(e) => Err(at(e)),
    })
}

/// An oracle's answer for one signature check that passed [`crypto::precheck`].
#[derive(Clone)]
pub(crate) enum Answer {
    /// The signature verifies.
    Valid,
    /// It does not (the library's verdict).
    Refused(Error),
    /// The backend that checked it failed.
    Failed(Error),
    /// Not known yet: the check is to be made before the next walk.
    Unknown,
}

/// Walks the plan with the oracle's answers. `Ok(None)` when some answer the walk needs is
/// [`Answer::Unknown`] (the oracle was asked for every check to make next, see the module);
/// else the report.
pub(crate) fn conclude(
    plan: &Plan<'_>,
    forms: &mut Forms,
    canon: &mut Canonicalizer<'_>,
    oracle: &mut dyn FnMut(usize, &SignatureCheck<'_>) -> Answer,
) -> Result<Option<Report>, Error> {
    let mut budget = plan.max_signature_checks;
    let mut pending = false;
    let mut reports = Vec::with_capacity(plan.entries.len());
    // The form of the first valid signature: the content the report is about.
    let mut chosen_form: Option<Form> = None;
    for entry in &plan.entries {
        let (report, form) = match conclude_entry(plan, entry, forms, canon, oracle, &mut budget) {
            Some(r) => r,
            None => {
                pending = true;
                continue;
            }
        };
        if chosen_form.is_none() {
            chosen_form = form;
        }
        reports.push(report);
    }
    if pending {
        return Ok(None);
    }
    let valid = reports.iter().filter(|r| r.verdict.is_valid()).count();
    let total = reports.len();
    let (ok, mut reason) = verdict_of_card(plan.mode, valid, total);
    if !ok && plan.mode == Mode::All && valid < total {
        // Which signature failed, and why (the first one): mode all needs each.
        if let Some(r) = reports.iter().find(|r| !r.verdict.is_valid()) {
            reason.push_str(&format!(
                " (signature {}: {}: {})",
                r.index, r.verdict.code, r.verdict.message
            ));
        }
    }
    let chosen_form = chosen_form.unwrap_or((plan.fallback, false));
    let chosen = chosen_form.0;
    let canonical = forms.take(chosen_form, canon)?;
    if valid > 0 && chosen.is_a2a_sdk_03() {
        reason.push_str(&crate::canonical::sdk03::covered_note(&canonical.bytes));
    }
    // With no signature, nothing is covered: every member of the card is unsigned.
    let unsigned = if total == 0 {
        plan.every_member.clone()
    } else {
        canonical.unsigned
    };
    Ok(Some(Report {
        ok,
        mode: plan.mode,
        reason,
        profile: chosen,
        canonical: canonical.bytes,
        unsigned,
        signatures: reports,
    }))
}

/// Whether the card passes under `mode` with `valid` of `total` signatures valid, and why.
fn verdict_of_card(mode: Mode, valid: usize, total: usize) -> (bool, String) {
    match mode {
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
    }
}

fn at_entry(e: Error, index: usize, member: &str) -> Error {
    if e.pointer().is_some() {
        return e;
    }
    e.at(format!("/signatures/{index}/{member}"))
}

/// The report of one entry with the form it verified over (none when it did not), or `None`
/// when an answer it needs is unknown (then `budget` is spent as if every check it has left
/// were made and failed).
fn conclude_entry(
    plan: &Plan<'_>,
    entry: &EntryPlan<'_>,
    forms: &mut Forms,
    canon: &mut Canonicalizer<'_>,
    oracle: &mut dyn FnMut(usize, &SignatureCheck<'_>) -> Answer,
    budget: &mut usize,
) -> Option<(SignatureReport, Option<Form>)> {
    let mut report = entry.report.clone();
    let fail = |mut r: SignatureReport, e: Error| {
        r.verdict = Verdict::from_error(&e);
        Some((r, None))
    };
    let steps = match &entry.steps {
        Ok(s) => s,
        Err(e) => return fail(report, e.clone()),
    };
    let index = report.index;
    // The forms to check: the one the signature declares (unknown members retained when it
    // says so and the verification would exclude them; a verification that retains them, or
    // rejects a card with any, reads them as it always does), else each accepted profile.
    let to_check: Vec<Form> = match steps.declared {
        Some(d) => match accepted_form(plan, forms, canon, (d.profile, d.retain && plan.retain_hint)) {
            Some(f) => vec![f],
            None => {
                return fail(
                    report,
                    not_accepted(d, &plan.profiles).at(format!("/signatures/{index}/protected")),
                )
            }
        },
        None => plan.profiles.iter().map(|&p| (p, false)).collect(),
    };
    // Policy per candidate; the first candidate that passes policy is checked cryptographically.
    let mut last_err: Option<Error> = None;
    for (c, candidate) in steps.candidates.iter().enumerate() {
        let candidate = match candidate {
            Ok(k) => k,
            Err(e) => {
                last_err = Some(e.clone());
                continue;
            }
        };
        report.key = Some(candidate.used.clone());
        let mut crypto_err = None;
        // A profile that cannot read the card (the a2a-sdk 0.3 model and a v1.0 card without
        // `url`) says less than a check that was made: its error is the verdict only when no
        // check was.
        let mut form_err = None;
        for (i, &form) in to_check.iter().enumerate() {
            if *budget == 0 {
                return fail(
                    report,
                    Error::new(
                        ErrorCode::TooManyChecks,
                        format!(
                            "the card needs more than {} signature checks (the limit); this signature was not checked",
                            plan.max_signature_checks
                        ),
                    ),
                );
            }
            *budget -= 1;
            let input = match forms.signing_input(form, &steps.protected, canon) {
                Ok(input) => input,
                Err(e) => {
                    form_err.get_or_insert(e);
                    continue;
                }
            };
            let answer = match ask(steps, candidate, form, input, oracle) {
                Ok(answer) => answer,
                Err(e) => {
                    crypto_err = Some(e);
                    continue;
                }
            };
            match answer {
                Answer::Valid => {
                    report.profile = Some(form.0);
                    report.verdict = Verdict::valid();
                    return Some((report, Some(form)));
                }
                Answer::Refused(e) => crypto_err = Some(e),
                Answer::Failed(e) => return fail(report, at_entry(e, index, "signature")),
                Answer::Unknown => {
                    // The worst case for the entries after this one: every check this entry
                    // has left is made, and fails, and so do the hint's checks.
                    let left_here = to_check.len() - i - 1;
                    let left_after = steps.candidates[c + 1..].iter().filter(|k| k.is_ok()).count();
                    let tried = steps.candidates.iter().filter(|k| k.is_ok()).count();
                    // A declared signature gets no hint: its bytes are named.
                    let hints = if steps.declared.is_some() {
                        0
                    } else {
                        tried * hint_profiles(plan)
                    };
                    *budget = budget.saturating_sub(left_here + left_after * to_check.len() + hints);
                    return None;
                }
            }
        }
        last_err = crypto_err.or(form_err);
    }
    let e =
        last_err.unwrap_or_else(|| Error::new(ErrorCode::SignatureInvalid, "the signature does not verify"));
    let e = if let (Some(d), ErrorCode::SignatureInvalid) = (steps.declared, e.code()) {
        // Over the one form it declares, and no hint: its bytes are named.
        let retained = if d.retain && plan.retain_hint {
            ", with the members A2A v1.0 does not define retained, as its protected header declares"
        } else {
            ""
        };
        Error::new(
            ErrorCode::SignatureInvalid,
            format!(
                "{} (checked over the canonical bytes of: {}{retained})",
                e.message(),
                d.profile.as_str()
            ),
        )
        .at(e
            .pointer()
            .map_or_else(|| format!("/signatures/{index}/signature"), str::to_string))
    } else if e.code() == ErrorCode::SignatureInvalid {
        // The profiles whose bytes were checked: those that could read the card.
        let names: Vec<&str> = plan
            .profiles
            .iter()
            .filter(|&&p| forms.get(p, canon).is_ok())
            .map(|p| p.as_str())
            .collect();
        let hint = match other_form(plan, steps, forms, canon, oracle, budget)? {
            Some((p, true)) => {
                let also: Vec<String> = same_bytes(plan, forms, canon, (p, true))
                    .into_iter()
                    .map(|q| format!(" (these are the {q} bytes too, {}: accepting that profile accepts it too)", q.signed_by()))
                    .collect();
                format!(
                    "; it verifies over the {p} bytes with the members A2A v1.0 does not define \
                     retained: set {{unknown}} to retain to accept it{}",
                    also.concat()
                )
            }
            Some((p, false)) => format!(
                "; it verifies over the {p} bytes ({}): accept that profile (or every profile, auto) to accept it",
                p.signed_by()
            ),
            None => String::new(),
        };
        // The option is named through the error's template, as each front end spells it.
        crate::error::option_error(
            ErrorCode::SignatureInvalid,
            &format!(
                "{} (checked over the canonical bytes of: {}){hint}",
                crate::error::template_literal(e.message()),
                names.join(", ")
            ),
            if hint.contains("{unknown}") {
                &["unknown"]
            } else {
                &[]
            },
        )
    } else {
        e
    };
    fail(report, e)
}

/// The form to check a signature that declares form `f` over: `f` when the policy accepts its
/// profile, else an accepted profile's form whose bytes are `f`'s for this card (a signer skips a
/// profile whose bytes it already signed, so one signature may stand for several profiles), else
/// none: the policy does not accept those bytes.
fn accepted_form(plan: &Plan<'_>, forms: &mut Forms, canon: &mut Canonicalizer<'_>, f: Form) -> Option<Form> {
    if plan.profiles.contains(&f.0) {
        return Some(f);
    }
    let bytes = forms.get_form(f, canon).as_ref().ok()?.bytes.clone();
    plan.profiles
        .iter()
        .map(|&p| (p, f.1))
        .find(|&g| forms.get_form(g, canon).as_ref().is_ok_and(|c| c.bytes == bytes))
}

/// The oracle's answer for one check of `candidate` over `input` (the signing input under
/// `profile`), or the refusal of the checks before the primitive (which the oracle never sees).
fn ask(
    steps: &Steps<'_>,
    candidate: &Candidate<'_>,
    profile: Form,
    input: &[u8],
    oracle: &mut dyn FnMut(usize, &SignatureCheck<'_>) -> Answer,
) -> Result<Answer, Error> {
    crypto::precheck(steps.alg, &candidate.key, &steps.signature)?;
    let check = SignatureCheck {
        alg: steps.alg,
        key: &candidate.key,
        message: input,
        signature: &steps.signature,
    };
    Ok(oracle(candidate.id(profile), &check))
}

/// The forms a hint may check, in order: the accepted profiles with unknown members retained
/// (when the verification excludes them), then the profiles not accepted.
fn hint_forms(plan: &Plan<'_>) -> Vec<Form> {
    let retained = plan
        .profiles
        .iter()
        .filter(|_| plan.retain_hint)
        .map(|&p| (p, true));
    let others = Profile::ALL
        .into_iter()
        .filter(|p| !plan.profiles.contains(p))
        .map(|p| (p, false));
    retained.chain(others).collect()
}

/// The profiles not accepted whose bytes are those of form `f` (already made).
fn same_bytes(plan: &Plan<'_>, forms: &mut Forms, canon: &mut Canonicalizer<'_>, f: Form) -> Vec<Profile> {
    let Ok(bytes) = forms.get_form(f, canon).as_ref().map(|c| c.bytes.clone()) else {
        return Vec::new();
    };
    Profile::ALL
        .into_iter()
        .filter(|p| !plan.profiles.contains(p))
        .filter(|&p| forms.get(p, canon).as_ref().is_ok_and(|c| c.bytes == bytes))
        .collect()
}

/// How many forms a hint may check at most.
fn hint_profiles(plan: &Plan<'_>) -> usize {
    hint_forms(plan).len()
}

/// A form the caller did not accept ([`hint_forms`]) over which the signature verifies with one
/// of the trusted keys tried (those that passed policy), for the hint of a `signature-invalid`
/// verdict (which it does not change). A form whose bytes are those of an accepted one, or of a
/// form before it, is skipped (its answer would be the same). Each check counts against the
/// card's signature-check budget; none is made past it. `Some(None)`: no such form; `None`: an
/// answer is not known yet (then `budget` is spent as if the hint's other checks were made).
fn other_form(
    plan: &Plan<'_>,
    steps: &Steps<'_>,
    forms: &mut Forms,
    canon: &mut Canonicalizer<'_>,
    oracle: &mut dyn FnMut(usize, &SignatureCheck<'_>) -> Answer,
    budget: &mut usize,
) -> Option<Option<Form>> {
    let mut digest = |forms: &mut Forms, f| match forms.get_form(f, canon) {
        Ok(c) => Some(crate::signature::sha256_hex(&c.bytes)),
        Err(_) => None,
    };
    let mut seen: Vec<String> = plan
        .profiles
        .iter()
        .filter_map(|&p| digest(forms, (p, false)))
        .collect();
    let mut others: Vec<Form> = Vec::new();
    for f in hint_forms(plan) {
        if let Some(d) = digest(forms, f) {
            if !seen.contains(&d) {
                seen.push(d);
                others.push(f);
            }
        }
    }
    let tried: Vec<&Candidate<'_>> = steps.candidates.iter().filter_map(|k| k.as_ref().ok()).collect();
    for (n, &p) in others.iter().enumerate() {
        for (j, candidate) in tried.iter().enumerate() {
            if *budget == 0 {
                return Some(None);
            }
            *budget -= 1;
            let Ok(input) = forms.signing_input(p, &steps.protected, canon) else {
                break;
            };
            match ask(steps, candidate, p, input, oracle) {
                Ok(Answer::Valid) => return Some(Some(p)),
                Ok(Answer::Refused(_) | Answer::Failed(_)) | Err(_) => {}
                Ok(Answer::Unknown) => {
                    let left = (tried.len() - j - 1) + (others.len() - n - 1) * tried.len();
                    *budget = budget.saturating_sub(left);
                    return None;
                }
            }
        }
    }
    Some(None)
}
