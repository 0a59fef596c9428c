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

/// The largest [`VerifyOptions::max_signatures`] an interface accepts (see
/// [`VerifyOptions::check`]).
pub const MAX_SIGNATURES_LIMIT: usize = 256;

/// The largest [`VerifyOptions::max_keys_per_kid`] an interface accepts.
pub const MAX_KEYS_PER_KID_LIMIT: usize = 256;

/// The largest [`VerifyOptions::max_signature_checks`] an interface accepts.
pub const MAX_SIGNATURE_CHECKS_LIMIT: usize = 4096;

/// The largest [`VerifyOptions::max_header_bytes`] an interface accepts (1 MiB: room for an
/// `x5c` chain of [`MAX_CHAIN_LEN_LIMIT`] certificates of
/// [`MAX_CERTIFICATE_BYTES`](crate::jose::x509::MAX_CERTIFICATE_BYTES) each).
pub const MAX_HEADER_BYTES_LIMIT: usize = 1024 * 1024;

/// Default limit on the certificates of an `x5c` chain (the leaf and up to three
/// intermediates); a longer chain is refused with `certificate-untrusted` before path building.
pub const DEFAULT_MAX_CHAIN_LEN: usize = 4;

/// The largest [`VerifyOptions::max_chain_len`] an interface accepts (the leaf and seven
/// intermediates); see [`check_max_chain_len`].
pub const MAX_CHAIN_LEN_LIMIT: usize = 8;

/// The rule for a chain limit a caller chooses: from 1 (the leaf alone) to
/// [`MAX_CHAIN_LEN_LIMIT`]; refused with `usage` (0 would make every chain untrusted without
/// saying so). Callers name the option it came from.
///
/// ```
/// use a2a_card::signature::check_max_chain_len;
/// assert!(check_max_chain_len(4).is_ok());
/// assert_eq!(check_max_chain_len(0).unwrap_err().message(),
///            "the chain limit must be from 1 to 8 certificates, not 0");
/// assert!(check_max_chain_len(9).is_err());
/// ```
pub fn check_max_chain_len(n: usize) -> Result<(), crate::Error> {
    if (1..=MAX_CHAIN_LEN_LIMIT).contains(&n) {
        return Ok(());
    }
    Err(crate::Error::new(
        crate::ErrorCode::Usage,
        format!("the chain limit must be from 1 to {MAX_CHAIN_LEN_LIMIT} certificates, not {n}"),
    ))
}

/// An identity the leaf certificate of an `x5c` chain must name (see `signature/chain.rs`).
///
/// ```
/// use a2a_card::signature::Identity;
/// assert_eq!(Identity::parse("spiffe://example.org/ns/a/sa/agent").unwrap(),
///            Identity::Uri("spiffe://example.org/ns/a/sa/agent".into()));
/// assert_eq!(Identity::parse("agent.example.com").unwrap(), Identity::Dns("agent.example.com".into()));
/// assert_eq!(Identity::prefix("spiffe://example.org").unwrap_err().code().as_str(), "usage");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    /// A URI SAN equal to this (a SPIFFE ID: the leaf must then carry exactly one URI SAN).
    Uri(String),
    /// A URI SAN that starts with this prefix, which ends with `/` (`spiffe://TRUST-DOMAIN/`).
    UriPrefix(String),
    /// A DNS name (or IP address) the leaf is valid for, wildcards as in TLS.
    Dns(String),
}

impl Identity {
    /// A URI (it holds `://`) or else a DNS name or IP address. A `spiffe://` URI must be a
    /// SPIFFE ID with a path, as a leaf certificate (an X509-SVID) carries one (see
    /// [`check_spiffe_id`]).
    pub fn parse(s: &str) -> Result<Identity, crate::Error> {
        if s.is_empty() || s.chars().any(char::is_control) {
            return Err(crate::Error::new(
                crate::ErrorCode::Usage,
                "an identity is a non-empty URI or DNS name",
            ));
        }
        if is_spiffe(s) {
            check_spiffe_id(s, true).map_err(|why| {
                crate::Error::new(
                    crate::ErrorCode::Usage,
                    format!("identity {}: {why}", crate::signature::quoted(s)),
                )
            })?;
        }
        Ok(if s.contains("://") {
            Identity::Uri(s.to_string())
        } else {
            Identity::Dns(s.to_ascii_lowercase())
        })
    }

    /// A URI prefix, which must end with `/` so that `spiffe://example.org` cannot match
    /// `spiffe://example.org.evil/...`. A `spiffe://` prefix is a SPIFFE ID (a trust domain,
    /// with or without a path) followed by `/`, so that it names whole path segments.
    pub fn prefix(s: &str) -> Result<Identity, crate::Error> {
        let usage = |why: &str| {
            crate::Error::new(
                crate::ErrorCode::Usage,
                format!("identity prefix {}: {why}", crate::signature::quoted(s)),
            )
        };
        if !s.contains("://") || !s.ends_with('/') || s.chars().any(char::is_control) {
            return Err(usage("a URI prefix ending with / (spiffe://TRUST-DOMAIN/)"));
        }
        if is_spiffe(s) {
            let id = s.strip_suffix('/').unwrap_or(s);
            check_spiffe_id(id, false).map_err(|why| usage(&why))?;
        } else if s.contains(['%', '?', '#', '\\']) || s.contains("/./") || s.contains("/../") {
            return Err(usage(
                "a URI prefix has no '.' or '..' segment, percent-encoding, backslash, query or fragment",
            ));
        }
        Ok(Identity::UriPrefix(s.to_string()))
    }
}

/// Whether a URI is meant as a SPIFFE ID (its scheme, in any case, is `spiffe`).
pub(crate) fn is_spiffe(uri: &str) -> bool {
    uri.get(..9).is_some_and(|p| p.eq_ignore_ascii_case("spiffe://"))
}

/// Checks a SPIFFE ID as the SPIFFE ID specification defines it: the scheme `spiffe` in lower
/// case; a trust domain of lower-case letters, digits, `.`, `-` and `_` (no port, no user
/// information, no percent-encoding), at most 255 bytes; a path of segments of letters, digits,
/// `.`, `-` and `_`, none empty, none `.` or `..`, with no trailing `/`; no query or fragment;
/// at most 2048 bytes in all. `path` says whether the ID must have a path (the SPIFFE ID of a
/// workload, as a leaf certificate carries it) or may be a trust domain alone. The error is a
/// sentence saying what is wrong.
///
/// ```
/// use a2a_card::signature::check_spiffe_id;
/// assert!(check_spiffe_id("spiffe://example.org/ns/a/sa/agent", true).is_ok());
/// assert!(check_spiffe_id("spiffe://example.org", false).is_ok());
/// for bad in ["spiffe://example.org/ns/../admin", "spiffe://example.org/ns/%2e%2e/admin",
///             "spiffe://Example.org/a", "spiffe://example.org//a", "spiffe://example.org/a/",
///             "spiffe://example.org/a?x", "spiffe://example.org:443/a", "SPIFFE://example.org/a",
///             "spiffe://example.org"] {
///     assert!(check_spiffe_id(bad, true).is_err(), "{bad}");
/// }
/// ```
pub fn check_spiffe_id(id: &str, path: bool) -> Result<(), String> {
    let Some(rest) = id.strip_prefix("spiffe://") else {
        return Err("a SPIFFE ID starts with spiffe:// (the scheme in lower case)".into());
    };
    if id.len() > 2048 {
        return Err("a SPIFFE ID is at most 2048 bytes".into());
    }
    let (domain, tail) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    if domain.is_empty() {
        return Err("a SPIFFE ID names a trust domain (spiffe://TRUST-DOMAIN/PATH)".into());
    }
    if domain.len() > 255 {
        return Err("a SPIFFE trust domain is at most 255 bytes".into());
    }
    if let Some(c) = domain
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '-' | '_')))
    {
        return Err(format!(
            "a SPIFFE trust domain holds lower-case letters, digits, '.', '-' and '_' only, not {}",
            crate::signature::quoted(&c.to_string())
        ));
    }
    if tail.is_empty() {
        return match path {
            true => Err("a workload's SPIFFE ID has a path (spiffe://TRUST-DOMAIN/PATH)".into()),
            false => Ok(()),
        };
    }
    for segment in tail[1..].split('/') {
        match segment {
            "" => return Err("a SPIFFE ID path has no empty segment (no '//' and no trailing '/')".into()),
            "." | ".." => return Err("a SPIFFE ID path has no '.' or '..' segment".into()),
            _ => {}
        }
        if let Some(c) = segment
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')))
        {
            return Err(format!(
                "a SPIFFE ID path holds letters, digits, '.', '-' and '_' only (no percent-encoding, \
                 query or fragment), not {}",
                crate::signature::quoted(&c.to_string())
            ));
        }
    }
    Ok(())
}

impl std::fmt::Display for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Identity::Uri(u) => write!(f, "URI SAN {u}"),
            Identity::UriPrefix(p) => write!(f, "URI SAN under {p}"),
            Identity::Dns(d) => write!(f, "DNS/IP SAN {d}"),
        }
    }
}

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
    /// The origin the card was fetched from, for trust entries bound to origins. `None` (a
    /// local file) fails every origin-bound entry.
    pub origin: Option<crate::signature::Origin>,
    /// Identities the leaf certificate of an `x5c` chain must name (one of them). Empty: the
    /// trust anchor's `identities`, else a DNS or IP SAN of the origin's host.
    pub identities: Vec<Identity>,
    /// An extended key usage every leaf of an `x5c` chain must list (`codeSigning`,
    /// `serverAuth`, `clientAuth` or a dotted OID); intermediates with an EKU must list it too.
    pub required_eku: Option<String>,
    /// CRLs (DER, read with [`crate::signature::chain::read_crl`]) applied to `x5c` chains:
    /// a certificate that a CRL of its issuer lists is refused; a certificate whose issuer has
    /// no CRL here is not checked.
    pub crls: Vec<Vec<u8>>,
    /// Most certificates an `x5c` chain may hold (default 4).
    pub max_chain_len: usize,
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
            identities: Vec::new(),
            required_eku: None,
            crls: Vec::new(),
            max_chain_len: DEFAULT_MAX_CHAIN_LEN,
        }
    }
}

impl VerifyOptions {
    /// The one reading of options a caller chose, applied by every verification before it
    /// reads a signature and by every front end when it builds its options: each limit within
    /// its bounds (`max_signatures` 1 to [`MAX_SIGNATURES_LIMIT`], `max_keys_per_kid` 1 to
    /// [`MAX_KEYS_PER_KID_LIMIT`], `max_signature_checks` 1 to [`MAX_SIGNATURE_CHECKS_LIMIT`],
    /// `max_chain_len` 1 to [`MAX_CHAIN_LEN_LIMIT`], `max_header_bytes` 1 to
    /// [`MAX_HEADER_BYTES_LIMIT`], and [`Limits::check`]), an `algorithms` allowlist that is not
    /// empty and names no HMAC algorithm (a shared secret is never a trust root for a published
    /// card), and at least one profile (the `origin` was read when it was made, an
    /// [`Origin`](crate::signature::Origin)). Refusals are `usage` errors naming the option as
    /// the library spells it.
    ///
    /// ```
    /// use a2a_card::{Algorithm, VerifyOptions};
    /// assert!(VerifyOptions::default().check().is_ok());
    /// let many = VerifyOptions { max_signatures: 1_000_000_000_000, ..Default::default() };
    /// assert_eq!(many.check().unwrap_err().message(),
    ///            "max_signatures must be 1 to 256, got 1000000000000");
    /// let none = VerifyOptions { max_keys_per_kid: 0, ..Default::default() };
    /// assert_eq!(none.check().unwrap_err().code().as_str(), "usage");
    /// let hmac = VerifyOptions { algorithms: Some(vec![Algorithm::ES256, Algorithm::HS384]), ..Default::default() };
    /// assert!(hmac.check().unwrap_err().message().starts_with("algorithms: HS384 needs a shared secret"));
    /// ```
    pub fn check(&self) -> Result<(), crate::Error> {
        self.checked().map(drop)
    }

    /// [`Self::check`], as the options that passed it. Every verification starts here, once,
    /// and reads its options through the result.
    pub(crate) fn checked(&self) -> Result<Checked<'_>, crate::Error> {
        use crate::error::check_count;
        check_count("max_signatures", self.max_signatures, 1, MAX_SIGNATURES_LIMIT)?;
        check_count(
            "max_keys_per_kid",
            self.max_keys_per_kid,
            1,
            MAX_KEYS_PER_KID_LIMIT,
        )?;
        check_count(
            "max_signature_checks",
            self.max_signature_checks,
            1,
            MAX_SIGNATURE_CHECKS_LIMIT,
        )?;
        check_count("max_chain_len", self.max_chain_len, 1, MAX_CHAIN_LEN_LIMIT)?;
        check_count(
            "max_header_bytes",
            self.max_header_bytes,
            1,
            MAX_HEADER_BYTES_LIMIT,
        )?;
        self.limits.check()?;
        if let Some(algs) = &self.algorithms {
            check_algorithms(algs)?;
        }
        if self.profiles.is_empty() {
            return Err(crate::Error::new(
                crate::ErrorCode::Usage,
                "no profile is accepted; name at least one",
            ));
        }
        Ok(Checked { opts: self })
    }
}

/// Options that passed [`VerifyOptions::check`]: a verification checks its options once and
/// passes this on.
pub(crate) struct Checked<'a> {
    pub(crate) opts: &'a VerifyOptions,
}

/// The rule for an algorithm allowlist of a verification: not empty (an empty list would
/// fail every signature without saying why) and no HMAC algorithm. Refused with `usage`.
///
/// ```
/// use a2a_card::Algorithm;
/// use a2a_card::signature::check_algorithms;
/// assert!(check_algorithms(&[Algorithm::EdDSA, Algorithm::ES256]).is_ok());
/// assert_eq!(check_algorithms(&[]).unwrap_err().code().as_str(), "usage");
/// assert!(check_algorithms(&[Algorithm::HS256]).is_err());
/// ```
pub fn check_algorithms(algs: &[Algorithm]) -> Result<(), crate::Error> {
    if algs.is_empty() {
        return Err(crate::Error::new(
            crate::ErrorCode::Usage,
            "algorithms must name at least one algorithm (leave it unset to allow every asymmetric one)",
        ));
    }
    if let Some(alg) = algs.iter().find(|a| a.is_hmac()) {
        return Err(crate::Error::new(
            crate::ErrorCode::Usage,
            format!(
                "algorithms: {} needs a shared secret, which is never a trust root for a published \
                 card; allow asymmetric algorithms only",
                alg.as_str()
            ),
        ));
    }
    Ok(())
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
