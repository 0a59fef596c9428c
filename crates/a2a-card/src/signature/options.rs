//! The options of a verification ([`VerifyOptions`]) and their defaults, read by the plan and the
//! conclusion of every verification (`verify.rs`, `plan.rs`, `deferred.rs`).

use crate::canonical::{Limits, Profile, UnknownMembers};
use crate::jose::header as jws;
use crate::jose::Algorithm;
use crate::signature::report::Mode;

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

/// Options of [`verify_card`](super::verify_card).
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
