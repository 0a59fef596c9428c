//! A verification whose signature checks are made by the caller, later: for hosts whose crypto
//! is asynchronous (WebCrypto's `crypto.subtle.verify` in browsers, workers, Deno, Bun and
//! Node), which the synchronous [`SignatureBackend`](crate::jose::crypto::SignatureBackend)
//! hook cannot call.
//!
//! It is the same verification as [`verify_card_with`](super::verify_card_with), split where the
//! primitive is: the card is read, the headers, policy and keys are decided, and the walk that
//! makes the report is the same code ([`super::plan`]); only the answers to the raw checks
//! arrive from outside. The report is the one the synchronous verifier gives when its backend
//! gives the same answers.

use crate::canonical::{
    canonicalize_tree, Canonical, CanonicalizeOptions, Doc, Limits, Profile, UnknownMembers,
};
use crate::error::{Error, ErrorCode};
use crate::jose::crypto::{self, BackendVerdict, CryptoFailure, SignatureCheck};
use crate::signature::options::VerifyOptions;
use crate::signature::plan::{self, Answer, Forms, Plan};
use crate::signature::report::Report;
use crate::signature::trust::TrustStore;
use crate::signature::verify::plan_card;

/// The id of one signature check of a [`DeferredVerification`], to answer it with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CheckId(usize);

/// A verification waiting for the answers to its signature checks.
///
/// [`DeferredVerification::new`] reads the card and decides everything that needs no
/// signature primitive. [`pending`](Self::pending) names the checks to make now (each one a
/// [`SignatureCheck`] that passed every check before the primitive: the key fits the
/// algorithm, the signature has its exact length); the caller makes them and gives each
/// answer to [`answer`](Self::answer) as a [`BackendVerdict`] (`Declined` has the library make
/// the check itself). When `pending` names no more checks, [`finish`](Self::finish) gives the
/// report. A check the walk needs only once an earlier one has failed (another candidate key,
/// another accepted profile) is named in a later round, so the checks made are exactly the
/// ones [`verify_card_with`](super::verify_card_with) makes, never more. `finish` makes any
/// check still unanswered itself.
///
/// ```
/// use a2a_card::jose::crypto::{verify, BackendVerdict};
/// use a2a_card::signature::DeferredVerification;
/// use a2a_card::{sign_card, verify_card, Algorithm, PrivateKey, SignOptions, TrustStore, VerifyOptions};
///
/// let key = PrivateKey::generate(Algorithm::ES256).unwrap();
/// let signed = sign_card(br#"{"name":"A","skills":[]}"#, &key, &SignOptions::default()).unwrap();
/// let mut trust = TrustStore::new();
/// trust.pin(key.public().clone(), "pinned");
/// let opts = VerifyOptions::default();
///
/// let mut v = DeferredVerification::new(signed.card.clone(), &trust, &opts).unwrap();
/// loop {
///     // Here the checks would be handed to an asynchronous API; this one answers at once.
///     let mut answers = Vec::new();
///     v.pending(|id, check| {
///         let ok = verify(check.alg, check.key, check.message, check.signature).is_ok();
///         answers.push((id, if ok { BackendVerdict::Valid } else { BackendVerdict::Invalid }));
///     })
///     .unwrap();
///     if answers.is_empty() {
///         break;
///     }
///     for (id, verdict) in answers {
///         v.answer(id, Ok(verdict)).unwrap();
///     }
/// }
/// let report = v.finish().unwrap();
/// assert!(report.ok);
/// assert_eq!(report, verify_card(&signed.card, &trust, &opts).unwrap());
/// ```
pub struct DeferredVerification {
    /// The card, read again (with the same limits) when a profile's form is needed after
    /// [`Self::new`].
    card: Vec<u8>,
    unknown: UnknownMembers,
    limits: Limits,
    plan: Plan<'static>,
    forms: Forms,
    /// Answers given, by check id: as given until a walk settles them (`Declined` by the
    /// library's own check), then settled.
    answers: Vec<(usize, Given)>,
    /// The report, once a walk found every answer it needed.
    report: Option<Report>,
}

/// An answer as the caller gave it, or as a walk settled it.
enum Given {
    Raw(Result<BackendVerdict, Error>),
    Settled(Answer),
}

impl std::fmt::Debug for DeferredVerification {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeferredVerification")
            .field("card_bytes", &self.card.len())
            .field("checks", &self.plan.checks)
            .field("answers", &self.answers.len())
            .field("done", &self.report.is_some())
            .finish()
    }
}

/// The canonical form of `card` under `profile`, read again (it read once already, with these
/// limits, in [`DeferredVerification::new`]).
/// `unknown`, or `retain` for a hint's form (see `plan::Canonicalizer`).
fn retained_or(unknown: UnknownMembers, retained: bool) -> UnknownMembers {
    if retained {
        UnknownMembers::Retain
    } else {
        unknown
    }
}

fn reparse(
    card: &[u8],
    unknown: UnknownMembers,
    limits: Limits,
    profile: Profile,
) -> Result<Canonical, Error> {
    let doc = Doc::parse(card, &limits)?;
    canonicalize_tree(
        doc.root(),
        &CanonicalizeOptions {
            profile,
            unknown,
            limits,
        },
    )
}

/// The answer of the oracle for a settled check.
fn answer_of(result: Result<(), CryptoFailure>) -> Answer {
    match result {
        Ok(()) => Answer::Valid,
        Err(CryptoFailure::Refused(e)) => Answer::Refused(e),
        Err(CryptoFailure::Backend(e)) => Answer::Failed(e),
    }
}

impl DeferredVerification {
    /// Reads the card and plans its verification against `trust` under `opts`: the same errors
    /// as [`verify_card`](super::verify_card) (a card that cannot be read at all), at the same
    /// point. The keys the plan may use are copied: the verification does not borrow `trust`.
    pub fn new(
        card: Vec<u8>,
        trust: &TrustStore,
        opts: &VerifyOptions,
    ) -> Result<DeferredVerification, Error> {
        let checked = opts.checked()?;
        let (plan, forms) = {
            let doc = Doc::parse(&card, &opts.limits)?;
            let (plan, forms) = plan_card(doc.root(), trust, &checked)?;
            (plan.into_owned(), forms)
        };
        Ok(DeferredVerification {
            card,
            unknown: opts.unknown,
            limits: opts.limits,
            plan,
            forms,
            answers: Vec::new(),
            report: None,
        })
    }

    /// The profile whose canonical bytes the report carries when no signature verifies under
    /// another: the first accepted profile that reads the card.
    pub fn fallback_profile(&self) -> Profile {
        self.plan.fallback()
    }

    /// The canonical form of the card under `profile` (computed once, and kept for the checks
    /// and the report): the bytes the signatures are checked over, and what they leave out.
    pub fn canonical(&mut self, profile: Profile) -> Result<&Canonical, Error> {
        let (card, unknown, limits) = (&self.card, self.unknown, self.limits);
        let mut canon = |profile, retained| reparse(card, retained_or(unknown, retained), limits, profile);
        self.forms.get(profile, &mut canon).as_ref().map_err(Clone::clone)
    }

    /// Calls `each` with every check to make now and returns how many there were; `0` means
    /// the report is ready ([`Self::finish`] makes no check). A check answered already is not
    /// named again.
    pub fn pending(&mut self, mut each: impl FnMut(CheckId, &SignatureCheck<'_>)) -> Result<usize, Error> {
        if self.report.is_some() {
            return Ok(0);
        }
        let mut count = 0;
        self.report = self.walk(&mut |id, check| {
            count += 1;
            each(CheckId(id), check);
            Answer::Unknown
        })?;
        Ok(count)
    }

    /// Records the answer to a check named by [`Self::pending`]: the check's verdict, as a
    /// [`SignatureBackend`](crate::jose::crypto::SignatureBackend) gives it. `Declined` has the
    /// library make the check itself; an `Err` is the failure of whatever made the check, and
    /// becomes that signature's verdict (at `/signatures/N/signature`). An id that is not one
    /// of this verification's checks is refused with `usage`; a second answer replaces the
    /// first.
    pub fn answer(&mut self, id: CheckId, verdict: Result<BackendVerdict, Error>) -> Result<(), Error> {
        if id.0 >= self.plan.checks {
            return Err(Error::new(
                ErrorCode::Usage,
                format!("check {} is not a check of this verification", id.0),
            ));
        }
        self.answers.retain(|(i, _)| *i != id.0);
        self.answers.push((id.0, Given::Raw(verdict)));
        self.report = None;
        Ok(())
    }

    /// The report: the one the last walk found ready, else a walk that makes every check still
    /// unanswered with the library's own code.
    pub fn finish(mut self) -> Result<Report, Error> {
        if let Some(report) = self.report.take() {
            return Ok(report);
        }
        self.walk(&mut |_, check| answer_of(crypto::settle(check, Ok(BackendVerdict::Declined))))?
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::Usage,
                    "internal: a signature check was left unanswered",
                )
            })
    }

    /// One walk of the plan with the answers given; `unanswered` answers the other checks.
    fn walk(
        &mut self,
        unanswered: &mut dyn FnMut(usize, &SignatureCheck<'_>) -> Answer,
    ) -> Result<Option<Report>, Error> {
        let (card, unknown, limits) = (&self.card, self.unknown, self.limits);
        let mut canon = |profile, retained| reparse(card, retained_or(unknown, retained), limits, profile);
        let answers = &mut self.answers;
        let mut oracle = |id: usize, check: &SignatureCheck<'_>| {
            let Some((_, given)) = answers.iter_mut().find(|(i, _)| *i == id) else {
                return unanswered(id, check);
            };
            if let Given::Raw(raw) = given {
                let raw = std::mem::replace(raw, Ok(BackendVerdict::Declined));
                *given = Given::Settled(answer_of(crypto::settle(check, raw)));
            }
            match given {
                Given::Settled(answer) => answer.clone(),
                Given::Raw(_) => Answer::Unknown,
            }
        };
        plan::conclude(&self.plan, &mut self.forms, &mut canon, &mut oracle)
    }
}
