//! The caller's policy for one trust entry: revocation, the validity window, the algorithms and
//! origins it allows ([`EntryRules`], for trusted keys and trust anchors alike), and for a key
//! its type against the algorithm, applied with every other entry of the store that holds the
//! same key.

use crate::error::{Error, ErrorCode};
use crate::jose::keys::PublicKey;
use crate::jose::Algorithm;
use crate::signature::trust::{Origin, TrustStore, TrustedKey};

/// The policy of `tk` and of every other entry of the store that holds the same key (by RFC 7638
/// thumbprint, whatever its `kid`): a key listed more than once is bound by every listing, so
/// an entry that revokes it, ends its validity or binds it to origins cannot be bypassed by the
/// same key arriving through another entry (a second file, or a JWKS fetched from a `jku`).
pub(crate) fn bound_policy(
    trust: &TrustStore,
    tk: &TrustedKey,
    alg: Algorithm,
    now: Option<i64>,
    origin: Option<&Origin>,
) -> Result<(), Error> {
    policy(tk, alg, now, origin)?;
    entries_policy(trust, &tk.key, Some(tk), alg, now, origin)
}

/// The policy of every entry of the store that holds `key` (by RFC 7638 thumbprint), for a key
/// that came from outside the store's keys: the leaf of an `x5c` chain that built to an anchor.
/// An anchor adds a way for a key to arrive, never a right the key's own entries withhold.
pub(crate) fn key_policy(
    trust: &TrustStore,
    key: &PublicKey,
    alg: Algorithm,
    now: Option<i64>,
    origin: Option<&Origin>,
) -> Result<(), Error> {
    entries_policy(trust, key, None, alg, now, origin)
}

/// The policy of each entry holding `key` but `except`, each refusal naming the entry.
fn entries_policy(
    trust: &TrustStore,
    key: &PublicKey,
    except: Option<&TrustedKey>,
    alg: Algorithm,
    now: Option<i64>,
    origin: Option<&Origin>,
) -> Result<(), Error> {
    for other in trust.with_thumbprint(key.thumbprint_str()) {
        if except.is_some_and(|tk| std::ptr::eq(other, tk)) {
            continue;
        }
        policy(other, alg, now, origin).map_err(|e| {
            Error::new(
                e.code(),
                format!(
                    "{} (an entry of {} for the same key binds it, whatever its kid or the way it came)",
                    e.message(),
                    other.source.label()
                ),
            )
        })?;
    }
    Ok(())
}

fn policy(tk: &TrustedKey, alg: Algorithm, now: Option<i64>, origin: Option<&Origin>) -> Result<(), Error> {
    let rules = EntryRules {
        name: &|| format!("the trusted key {:?}", tk.kid()),
        algorithms: tk.algorithms.as_deref(),
        origins: tk.origins.as_deref(),
        not_before: tk.not_before,
        not_after: tk.not_after,
        revoked: tk.revoked,
    };
    rules.check(&KEY_CODES, alg, now, origin, || tk.key.check_algorithm(alg))
}

/// The rules one trust entry carries, a trusted key's or a trust anchor's: revoked, a validity
/// window, the algorithms and the origins it allows. `name` says which entry in messages
/// (`the trusted key "k1"`, `the trust anchor "CN=Root"`), made only for a refusal: the rules
/// are applied to every candidate key of every signature, and most pass.
pub(crate) struct EntryRules<'a> {
    pub name: &'a dyn Fn() -> String,
    pub algorithms: Option<&'a [Algorithm]>,
    pub origins: Option<&'a [Origin]>,
    pub not_before: Option<i64>,
    pub not_after: Option<i64>,
    pub revoked: bool,
}

/// What a refusal by an entry's rules is called, for one kind of entry.
pub(crate) struct EntryCodes {
    pub revoked: ErrorCode,
    pub expired: ErrorCode,
    /// For a card from an origin the entry does not allow.
    pub origin: ErrorCode,
    /// What the entry does for an origin (`sign`, `certify signers`).
    pub grants: &'static str,
}

/// A trusted key's refusals.
const KEY_CODES: EntryCodes = EntryCodes {
    revoked: ErrorCode::KeyRevoked,
    expired: ErrorCode::KeyExpired,
    origin: ErrorCode::UntrustedKey,
    grants: "sign",
};

impl EntryRules<'_> {
    /// Applies the rules in order (revoked, window, algorithms, then `fits`: whether the key
    /// fits `alg`, then origins). A window without a clock (`now` is `None`) refuses.
    pub fn check(
        &self,
        codes: &EntryCodes,
        alg: Algorithm,
        now: Option<i64>,
        origin: Option<&Origin>,
        fits: impl FnOnce() -> Result<(), Error>,
    ) -> Result<(), Error> {
        let name = self.name;
        if self.revoked {
            return Err(Error::new(codes.revoked, format!("{} is revoked", name())));
        }
        if self.not_before.is_some() || self.not_after.is_some() {
            let Some(now) = now else {
                return Err(Error::new(
                    codes.expired,
                    format!("{} has a validity window and no clock was given", name()),
                ));
            };
            if self.not_before.is_some_and(|nb| now < nb) {
                return Err(Error::new(codes.expired, format!("{} is not valid yet", name())));
            }
            if self.not_after.is_some_and(|na| now > na) {
                return Err(Error::new(codes.expired, format!("{} has expired", name())));
            }
        }
        if let Some(allowed) = self.algorithms {
            if !allowed.contains(&alg) {
                return Err(Error::new(
                    ErrorCode::AlgorithmNotAllowed,
                    format!("{} may not be used with {}", name(), alg.as_str()),
                ));
            }
        }
        fits()?;
        if let Some(origins) = self.origins {
            match origin {
                Some(o) if origins.iter().any(|x| x == o) => {}
                Some(o) => {
                    return Err(Error::new(
                        codes.origin,
                        format!(
                            "{} may {} only for {}, not for {o}",
                            name(),
                            codes.grants,
                            origins.iter().map(Origin::as_str).collect::<Vec<_>>().join(", ")
                        ),
                    ))
                }
                None => {
                    return Err(Error::new(
                        codes.origin,
                        format!("{} is bound to origins and the card has none", name()),
                    ))
                }
            }
        }
        Ok(())
    }
}
