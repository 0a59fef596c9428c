//! The caller's policy for one trusted key: revocation, the validity window, the algorithms and
//! origins a trust entry allows, and the key type against the algorithm; applied with every
//! other entry of the store that holds the same key.

use crate::error::{Error, ErrorCode};
use crate::jose::Algorithm;
use crate::signature::trust::{TrustStore, TrustedKey};

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
