//! Trust through certificates: a signature whose protected header carries `x5c` is checked
//! with the leaf certificate's key only when the chain builds to a trust anchor the verifier
//! chose (never to a certificate the card carries), the anchor's policy allows it, and the
//! leaf names an identity the verifier expects.
//!
//! Path validation is `rustls-webpki`'s (the validator rustls itself uses, already in the tree
//! through rustls, with `ring` as its only crypto; it builds on wasm32): the signatures up to
//! the anchor, validity of every certificate at the verification time, basic constraints, path
//! length, name constraints (DNS and IP; a URI name constraint fails closed), the EKU when the
//! verifier requires one, a path-building budget, and revocation by the CRLs the verifier gave.
//! What webpki leaves to its caller is here: the `digitalSignature` key usage of the leaf (webpki
//! ignores key usage of an end entity), the chain length limit before any parsing, the anchor's
//! own policy (`origins`, `identities`, `algorithms`, window, `revoked`) and the identity rules
//! (DNS or IP SAN of the card's origin by default; URI SANs such as SPIFFE IDs on request).
//!
//! ```
//! use a2a_card::signature::chain::read_crl;
//! assert_eq!(read_crl(b"not a CRL", "crl.pem").unwrap_err().code().as_str(), "certificate-malformed");
//! ```

use crate::error::{Error, ErrorCode};
use crate::jose::keys::PublicKey;
use crate::jose::x509::{self, CertSummary};
use crate::jose::Algorithm;
use crate::signature::options::{check_spiffe_id, is_spiffe, Identity, VerifyOptions};
use crate::signature::policy::{EntryCodes, EntryRules};
use crate::signature::report::{CertificateUsed, ChainCert};
use crate::signature::trust::{Origin, TrustAnchor, TrustStore};
use rustls_pki_types::{CertificateDer, ServerName, UnixTime};
use std::cell::RefCell;
use webpki::{EndEntityCert, KeyPurposeIdIter};

fn err(code: ErrorCode, msg: impl Into<String>) -> Error {
    Error::new(code, msg)
}

/// Reads a CRL file: PEM (`X509 CRL`) or DER, checked to decode as a v2 CRL. Returns its DER.
/// `source` names the file in errors.
pub fn read_crl(bytes: &[u8], source: &str) -> Result<Vec<u8>, Error> {
    let der = match std::str::from_utf8(bytes) {
        Ok(text) if text.contains("-----BEGIN") => {
            let blocks = crate::jose::keys::pem_blocks(text).map_err(|e| e.context(source))?;
            let block = blocks.iter().find(|b| b.label == "X509 CRL").ok_or_else(|| {
                err(
                    ErrorCode::CertificateMalformed,
                    format!("{source}: no \"X509 CRL\" PEM block"),
                )
            })?;
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD
                .decode(&block.body)
                .map_err(|e| {
                    err(
                        ErrorCode::CertificateMalformed,
                        format!("{source}: the CRL is not base64: {e}"),
                    )
                })?
        }
        _ => bytes.to_vec(),
    };
    webpki::OwnedCertRevocationList::from_der(&der).map_err(|e| {
        err(
            ErrorCode::CertificateMalformed,
            format!("{source}: not a DER X.509 v2 CRL ({e:?})"),
        )
    })?;
    Ok(der)
}

/// An EKU rule for webpki: with a required purpose, every certificate of the path that has an
/// EKU extension must list it (EKU chaining); the leaf's having one at all is checked after.
struct Eku<'a>(Option<&'a [usize]>);

impl webpki::ExtendedKeyUsageValidator for Eku<'_> {
    // The context variant needs a `'static` OID; the verdict's message says which is missing.
    #[allow(deprecated)]
    fn validate(&self, iter: KeyPurposeIdIter<'_, '_>) -> Result<(), webpki::Error> {
        let Some(required) = self.0 else {
            return Ok(());
        };
        let mut any = false;
        for id in iter {
            any = true;
            if id?.to_decoded_oid() == required {
                return Ok(());
            }
        }
        if any {
            Err(webpki::Error::RequiredEkuNotFound)
        } else {
            Ok(())
        }
    }
}

/// An EKU given by name (`codeSigning`, `serverAuth`, `clientAuth`) or dotted OID, as the
/// components of the OID.
///
/// ```
/// use a2a_card::signature::chain::eku_oid;
/// assert_eq!(eku_oid("codeSigning").unwrap(), [1, 3, 6, 1, 5, 5, 7, 3, 3]);
/// assert_eq!(eku_oid("1.2.3").unwrap(), [1, 2, 3]);
/// assert_eq!(eku_oid("nope").unwrap_err().code().as_str(), "usage");
/// ```
pub fn eku_oid(name: &str) -> Result<Vec<usize>, Error> {
    let dotted = match name {
        "serverAuth" => "1.3.6.1.5.5.7.3.1",
        "clientAuth" => "1.3.6.1.5.5.7.3.2",
        "codeSigning" => "1.3.6.1.5.5.7.3.3",
        other => other,
    };
    let parts: Option<Vec<usize>> = dotted.split('.').map(|p| p.parse().ok()).collect();
    match parts {
        Some(p) if p.len() >= 2 && p[0] <= 2 => Ok(p),
        _ => Err(err(
            ErrorCode::Usage,
            format!(
                "EKU {name:?}: give serverAuth, clientAuth, codeSigning or a dotted OID (1.3.6.1.5.5.7.3.3)"
            ),
        )),
    }
}

/// What a checked chain gives the signature check: the leaf's key and the report's account.
pub(crate) struct CheckedChain {
    pub(crate) key: PublicKey,
    pub(crate) used: CertificateUsed,
}

/// Where a chain is checked: the verifier's trust, options, time and the card's origin.
pub(crate) struct ChainContext<'a> {
    pub(crate) trust: &'a TrustStore,
    pub(crate) opts: &'a VerifyOptions,
    pub(crate) now: Option<i64>,
    pub(crate) origin: Option<&'a Origin>,
}

/// Where a header's certificate parameters are refused: the protected header, or the
/// unprotected `header` member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HeaderPart {
    Protected,
    Unprotected,
}

/// The certificate parameters of a header that a verifier refuses whatever its anchors: an
/// `x5u` (never fetched: a URL in the card is not a trust root) and an `x5c` outside the
/// protected header (the signature does not cover it). Returns the protected `x5c` value, if
/// any; a refusal says in which part of the header it is. Signing applies the same rule.
pub(crate) fn header_certificates(
    header: &crate::jose::header::Header,
) -> Result<Option<&crate::canonical::value::Value>, (Error, HeaderPart)> {
    let param = |name: &str| header.protected.iter().find(|(k, _)| k == name).map(|(_, v)| v);
    let unprotected = |name: &str| header.unprotected.iter().any(|(k, _)| k == name);
    if param("x5u").is_some() || unprotected("x5u") {
        return Err((
            err(
                ErrorCode::CertificateUntrusted,
                "header parameter \"x5u\" is never fetched (a URL in the card is not a trust root); carry the chain in x5c",
            ),
            HeaderPart::Protected,
        ));
    }
    if unprotected("x5c") {
        return Err((
            err(
                ErrorCode::CertificateUntrusted,
                "header parameter \"x5c\" is in the unprotected header, which the signature does not cover; put it in the protected header",
            ),
            HeaderPart::Unprotected,
        ));
    }
    Ok(param("x5c"))
}

/// The header's own statements about the key of an `x5c` chain, checked against its leaf:
/// `jwk` must be the leaf's key `key`, `x5t#S256` the SHA-256 thumbprint of the leaf's DER
/// (`certificate-key-mismatch`). Signing applies the same rule to the header it writes.
pub(crate) fn check_leaf_statements(
    header: &crate::jose::header::Header,
    leaf_der: &[u8],
    key: &PublicKey,
) -> Result<(), Error> {
    let param = |name: &str| header.protected.iter().find(|(k, _)| k == name).map(|(_, v)| v);
    if let Some(jwk) = param("jwk") {
        let jwk = crate::canonical::value::to_serde(jwk);
        let named = PublicKey::from_jwk(&jwk).map_err(|e| e.context("header parameter \"jwk\""))?;
        if named.thumbprint_str() != key.thumbprint_str() {
            return Err(err(
                ErrorCode::CertificateKeyMismatch,
                "header parameter \"jwk\" is not the leaf certificate's key",
            ));
        }
    }
    if let Some(v) = param("x5t#S256") {
        let t = v.as_str().ok_or_else(|| {
            err(
                ErrorCode::MalformedHeader,
                "header parameter \"x5t#S256\" must be a string",
            )
        })?;
        let digest = ring::digest::digest(&ring::digest::SHA256, leaf_der);
        if crate::jose::b64::encode(digest.as_ref()) != t {
            return Err(err(
                ErrorCode::CertificateKeyMismatch,
                "header parameter \"x5t#S256\" is not the SHA-256 thumbprint of x5c [0]",
            ));
        }
    }
    Ok(())
}

/// The rules of a chain's shape that need no trust anchor, which signing applies as
/// verification does (a signer is refused what a verifier would refuse): the chain holds at
/// most `limit` certificates (the leaf and intermediates; `certificate-untrusted`).
pub(crate) fn check_chain_len(n: usize, limit: usize) -> Result<(), Error> {
    if n > limit {
        return Err(err(
            ErrorCode::CertificateUntrusted,
            format!(
                "header parameter \"x5c\" holds {n} certificates, more than the limit of {limit} (leaf and intermediates)"
            ),
        ));
    }
    Ok(())
}

/// The most intermediate certificates a path may use: rustls-webpki's own limit (its
/// `MAX_SUB_CA_COUNT`), past which no chain builds whatever the chain limit allows.
pub(crate) const MAX_INTERMEDIATES: usize = 6;

/// The intermediates of a chain (every certificate after the leaf that is not self-issued: a
/// root carried at the end is never part of the path) are at most [`MAX_INTERMEDIATES`]
/// (`certificate-untrusted`), and no certificate after the leaf has a weak key (`weak-key`:
/// anyone could issue leaves under it); see [`check_chain_len`].
pub(crate) fn check_intermediates(chain: &[&CertSummary]) -> Result<(), Error> {
    let n = chain.iter().skip(1).filter(|c| c.subject != c.issuer).count();
    if n > MAX_INTERMEDIATES {
        return Err(err(
            ErrorCode::CertificateUntrusted,
            format!(
                "header parameter \"x5c\" holds {n} intermediate certificates; a path is built through at most {MAX_INTERMEDIATES}"
            ),
        ));
    }
    // Nor may an intermediate have a weak key: anyone could issue leaves under it.
    for (i, s) in chain.iter().enumerate().skip(1) {
        crate::jose::keys::refuse_weak_spki(&s.spki).map_err(|e| {
            err(
                ErrorCode::WeakKey,
                format!(
                    "the key of certificate {i} of the chain (an intermediate) is refused: {}",
                    e.message()
                ),
            )
        })?;
    }
    Ok(())
}

/// The leaf certificate's key, which must be one a JWS of `alg` can be checked with
/// (`certificate-key-mismatch`); see [`check_chain_len`].
pub(crate) fn leaf_key(leaf: &CertSummary, alg: Algorithm) -> Result<PublicKey, Error> {
    let key = PublicKey::from_spki_der(&leaf.spki).map_err(|e| {
        // A weak key keeps its own code: the certificate names a key no signature should be
        // trusted under (a small-order point: anyone can sign any card under it).
        let code = match e.code() {
            ErrorCode::WeakKey => ErrorCode::WeakKey,
            _ => ErrorCode::CertificateKeyMismatch,
        };
        err(
            code,
            format!(
                "the leaf certificate's key cannot be used for a JWS: {}",
                e.message()
            ),
        )
    })?;
    key.check_algorithm(alg).map_err(|_| {
        err(
            ErrorCode::CertificateKeyMismatch,
            format!(
                "the leaf certificate's key is {}, which cannot make an {} signature",
                key.key_type().name(),
                alg.as_str()
            ),
        )
    })?;
    Ok(key)
}

/// The leaf is a signer's certificate: an end entity (not a CA) whose key usage, when it has
/// one, allows `digitalSignature` (`certificate-untrusted`); see [`check_chain_len`].
pub(crate) fn check_leaf_use(leaf: &CertSummary) -> Result<(), Error> {
    if leaf.is_ca {
        return Err(err(
            ErrorCode::CertificateUntrusted,
            "the leaf certificate is a CA certificate (basicConstraints CA:TRUE); a signer's certificate is an end entity",
        ));
    }
    if !leaf.may_sign() {
        return Err(err(
            ErrorCode::CertificateUntrusted,
            format!(
                "the leaf certificate's keyUsage ({}) lacks digitalSignature",
                leaf.key_usage.as_deref().unwrap_or_default().join(", ")
            ),
        ));
    }
    Ok(())
}

/// The rules a signer's `x5c` chain (DER, leaf first) must meet before anything is signed, the
/// verifier's own: at most `limit` certificates ([`check_chain_len`], before any is decoded),
/// each a certificate, the leaf's key one `alg` fits ([`leaf_key`]) and the signing key
/// `signer` itself (`certificate-key-mismatch`), the leaf an end entity that may sign
/// ([`check_leaf_use`]). Whether it builds to an anchor is the verifier's to say.
pub(crate) fn check_signing_chain(
    chain: &[Vec<u8>],
    limit: usize,
    alg: Algorithm,
    signer: &PublicKey,
) -> Result<(), Error> {
    check_chain_len(chain.len(), limit)?;
    let mut summaries = Vec::with_capacity(chain.len());
    for (i, der) in chain.iter().enumerate() {
        summaries.push(x509::summary(der).map_err(|e| {
            err(
                ErrorCode::CertificateMalformed,
                format!(
                    "certificate {i} of the x5c chain is not DER X.509: {}",
                    e.message()
                ),
            )
        })?);
    }
    check_intermediates(&summaries.iter().collect::<Vec<_>>())?;
    let Some(leaf) = summaries.first() else {
        return Err(err(ErrorCode::Usage, "the x5c chain is empty"));
    };
    let key = leaf_key(leaf, alg)?;
    if key.thumbprint_str() != signer.thumbprint_str() {
        return Err(err(
            ErrorCode::CertificateKeyMismatch,
            format!(
                "the leaf certificate of the x5c chain ({}) certifies another key than the signing key; give the chain of this key, leaf first",
                crate::signature::printable(&leaf.subject)
            ),
        ));
    }
    check_leaf_use(leaf)
}

/// Checks an `x5c` chain (DER, leaf first) for a signature whose header is `header`: see the
/// module. The header's own statements about the key (`jwk`, `x5t#S256`) are checked against
/// the leaf ([`check_leaf_statements`]).
pub(crate) fn check_chain(
    certs: &[(Vec<u8>, CertSummary)],
    header: &crate::jose::header::Header,
    ctx: &ChainContext<'_>,
) -> Result<CheckedChain, Error> {
    let untrusted = |msg: String| err(ErrorCode::CertificateUntrusted, msg);
    if ctx.trust.anchors().is_empty() {
        return Err(untrusted(
            "the header carries x5c but the verifier has no trust anchors (CA certificates given as \
             trust anchors, or certificate entries of a trust store); a chain in the card is never a trust root by itself"
                .into(),
        ));
    }
    check_chain_len(certs.len(), ctx.opts.max_chain_len)?;
    let Some(now) = ctx.now else {
        return Err(untrusted(
            "a certificate chain is checked at a time and no clock was given (VerifyOptions::now)".into(),
        ));
    };
    let summaries: Vec<&CertSummary> = certs.iter().map(|(_, s)| s).collect();
    check_intermediates(&summaries)?;
    let chain: Vec<&[u8]> = certs.iter().map(|(d, _)| d.as_slice()).collect();
    let leaf = &summaries[0];
    let alg = header.alg;
    let key = leaf_key(leaf, alg)?;
    check_leaf_statements(header, chain[0], &key)?;
    check_leaf_use(leaf)?;
    let required_eku = match &ctx.opts.required_eku {
        Some(name) => Some(eku_oid(name)?),
        None => None,
    };
    if let Some(req) = &required_eku {
        let dotted = req.iter().map(usize::to_string).collect::<Vec<_>>().join(".");
        if !leaf
            .extended_key_usage
            .as_ref()
            .is_some_and(|l| l.contains(&dotted))
        {
            return Err(untrusted(format!(
                "the leaf certificate's extendedKeyUsage ({}) lacks the required {dotted}",
                leaf.extended_key_usage
                    .as_ref()
                    .map_or("absent".to_string(), |l| l.join(", "))
            )));
        }
    }

    let anchors_der: Vec<CertificateDer<'_>> = ctx
        .trust
        .anchors()
        .iter()
        .map(|a| CertificateDer::from(a.der.as_slice()))
        .collect();
    // The anchors webpki can use, and the index in the store of each.
    let (index, anchors): (Vec<usize>, Vec<rustls_pki_types::TrustAnchor<'_>>) = anchors_der
        .iter()
        .enumerate()
        .filter_map(|(i, d)| webpki::anchor_from_trusted_cert(d).ok().map(|a| (i, a)))
        .unzip();
    let leaf_der = CertificateDer::from(chain[0]);
    let ee = EndEntityCert::try_from(&leaf_der).map_err(|e| {
        err(
            ErrorCode::CertificateMalformed,
            format!("header parameter \"x5c\" [0] is not a certificate webpki reads ({e:?})"),
        )
    })?;
    let intermediates: Vec<CertificateDer<'_>> =
        chain[1..].iter().map(|d| CertificateDer::from(*d)).collect();
    let crls: Vec<webpki::CertRevocationList<'_>> = ctx
        .opts
        .crls
        .iter()
        .enumerate()
        .map(|(i, der)| {
            webpki::OwnedCertRevocationList::from_der(der)
                .map(webpki::CertRevocationList::from)
                .map_err(|e| {
                    err(
                        ErrorCode::CertificateMalformed,
                        format!("CRL {i} does not decode ({e:?})"),
                    )
                })
        })
        .collect::<Result<_, _>>()?;
    let crl_refs: Vec<&webpki::CertRevocationList<'_>> = crls.iter().collect();
    let revocation = webpki::RevocationOptionsBuilder::new(&crl_refs).ok().map(|b| {
        b.with_depth(webpki::RevocationCheckDepth::Chain)
            .with_status_policy(webpki::UnknownStatusPolicy::Allow)
            .with_expiration_policy(webpki::ExpirationPolicy::Enforce)
            .build()
    });
    let policy_refusal: RefCell<Option<Error>> = RefCell::new(None);
    let matched: RefCell<Option<(usize, String)>> = RefCell::new(None);
    let on_path = |path: &webpki::VerifiedPath<'_>| -> Result<(), webpki::Error> {
        let spki = path.anchor().subject_public_key_info.as_ref();
        let subject = path.anchor().subject.as_ref();
        let found = anchors
            .iter()
            .position(|t| t.subject_public_key_info.as_ref() == spki && t.subject.as_ref() == subject)
            .and_then(|p| index.get(p))
            .map(|&i| (i, &ctx.trust.anchors()[i]));
        let Some((i, anchor)) = found else {
            return Err(webpki::Error::UnknownIssuer);
        };
        let result = anchor_policy(anchor, alg, now, ctx.origin)
            .and_then(|()| identity(leaf, &ee, ctx.opts, anchor, ctx.origin));
        match result {
            Ok(rule) => {
                *matched.borrow_mut() = Some((i, rule));
                Ok(())
            }
            Err(e) => {
                let mut slot = policy_refusal.borrow_mut();
                if slot.is_none() {
                    *slot = Some(e);
                }
                Err(webpki::Error::UnknownIssuer)
            }
        }
    };
    let verified = ee.verify_for_usage(
        webpki::ALL_VERIFICATION_ALGS,
        &anchors,
        &intermediates,
        UnixTime::since_unix_epoch(std::time::Duration::from_secs(u64::try_from(now).unwrap_or(0))),
        Eku(required_eku.as_deref()),
        revocation,
        Some(&on_path),
    );
    let path = match verified {
        Ok(p) => p,
        Err(e) => {
            if let Some(refusal) = policy_refusal.into_inner() {
                return Err(refusal);
            }
            return Err(webpki_error(&e, &summaries, now));
        }
    };
    let Some((anchor_index, rule)) = matched.into_inner() else {
        return Err(untrusted(
            "internal: the path was not checked against its anchor".into(),
        ));
    };
    let anchor = &ctx.trust.anchors()[anchor_index];
    let mut used_chain = vec![ChainCert {
        subject: leaf.subject.clone(),
        serial: leaf.serial.clone(),
    }];
    for c in path.intermediate_certificates() {
        if let Ok(s) = x509::summary(c.der().as_ref()) {
            used_chain.push(ChainCert {
                subject: s.subject,
                serial: s.serial,
            });
        }
    }
    Ok(CheckedChain {
        key,
        used: CertificateUsed {
            chain: used_chain,
            anchor: anchor.subject.clone(),
            anchor_source: anchor.source.label(),
            identity: rule,
        },
    })
}

/// The policy of the anchor a path reached: revoked, window, algorithms, origins (the rules of
/// every trust entry, [`EntryRules`]).
fn anchor_policy(a: &TrustAnchor, alg: Algorithm, now: i64, origin: Option<&Origin>) -> Result<(), Error> {
    let rules = EntryRules {
        name: &|| format!("the trust anchor {}", crate::signature::quoted(&a.subject)),
        algorithms: a.algorithms.as_deref(),
        origins: a.origins.as_deref(),
        not_before: a.not_before,
        not_after: a.not_after,
        revoked: a.revoked,
    };
    rules.check(&ANCHOR_CODES, alg, Some(now), origin, || Ok(()))
}

/// A trust anchor's refusals.
const ANCHOR_CODES: EntryCodes = EntryCodes {
    revoked: ErrorCode::CertificateRevoked,
    expired: ErrorCode::CertificateExpired,
    origin: ErrorCode::CertificateUntrusted,
    grants: "certify signers",
};

fn names_of(leaf: &CertSummary) -> String {
    let mut names: Vec<String> = Vec::new();
    names.extend(leaf.dns_names.iter().map(|n| format!("DNS:{n}")));
    names.extend(leaf.ips.iter().map(|n| format!("IP:{n}")));
    names.extend(leaf.uris.iter().map(|n| format!("URI:{n}")));
    if names.is_empty() {
        return "no subjectAltName".into();
    }
    let more = names.len().saturating_sub(6);
    let mut shown: Vec<String> = names
        .into_iter()
        .take(6)
        .map(|n| crate::signature::printable(&n))
        .collect();
    if more > 0 {
        shown.push(format!("and {more} more"));
    }
    shown.join(", ")
}

/// Whether what follows a URI prefix names a place under it whatever reads the URI: path
/// segments, none empty, `.` or `..`, with no percent-encoding, backslash, query or fragment
/// (`https://id.example/ns/../admin` is not under `https://id.example/ns/`).
fn plain_path(rest: &str) -> bool {
    !rest.is_empty()
        && rest
            .split('/')
            .all(|seg| !matches!(seg, "" | "." | "..") && !seg.contains(['%', '?', '#', '\\']))
}

/// The SAN of `leaf` that `rule` matches, as the report names it; `None` when none does. A URI
/// SAN that claims to be a SPIFFE ID (`spiffe://`) and is not one by the SPIFFE ID
/// specification ([`check_spiffe_id`]: no `.` or `..` segment, no percent-encoding, a
/// lower-case trust domain, ...) matches no rule: `spiffe://td/ns/../admin` is not under
/// `spiffe://td/ns/`.
fn matches_rule(leaf: &CertSummary, ee: &EndEntityCert<'_>, rule: &Identity) -> Option<String> {
    let valid = |u: &str| !is_spiffe(u) || check_spiffe_id(u, true).is_ok();
    // A SPIFFE X509-SVID carries exactly one URI SAN: its SPIFFE ID.
    let uri = |want: &dyn Fn(&str) -> bool| -> Option<String> {
        let found = match leaf.uris.as_slice() {
            [one] => want(one).then_some(one),
            many if many.iter().any(|u| is_spiffe(u)) => None,
            many => many.iter().find(|u| want(u)),
        };
        found.filter(|u| valid(u)).map(|u| format!("URI SAN {u}"))
    };
    match rule {
        Identity::Uri(u) => uri(&|s| s == u),
        Identity::UriPrefix(p) => uri(&|s| s.strip_prefix(p.as_str()).is_some_and(plain_path))
            .map(|san| format!("{san} (under {p})")),
        Identity::Dns(d) => ServerName::try_from(d.as_str())
            .is_ok_and(|n| ee.verify_is_valid_for_subject_name(&n).is_ok())
            .then(|| dns_san(leaf, d)),
    }
}

/// The SAN of `leaf` that made it valid for `name` (rustls-webpki decided that; this says which,
/// for the report): `DNS SAN a.example`, `DNS SAN *.example for a.example`, `IP SAN 10.0.0.1`.
fn dns_san(leaf: &CertSummary, name: &str) -> String {
    let name = name.to_ascii_lowercase();
    let ip: Option<std::net::IpAddr> = name.trim_start_matches('[').trim_end_matches(']').parse().ok();
    if let Some(found) = leaf.ips.iter().find(|a| ip.is_some() && a.parse().ok() == ip) {
        return format!("IP SAN {found}");
    }
    let exact = leaf.dns_names.iter().find(|n| n.eq_ignore_ascii_case(&name));
    let wildcard = || {
        let tail = name.split_once('.').map(|(_, t)| t)?;
        leaf.dns_names.iter().find(|n| {
            n.strip_prefix("*.")
                .is_some_and(|rest| rest.eq_ignore_ascii_case(tail))
        })
    };
    match (exact, wildcard()) {
        (Some(n), _) => format!("DNS SAN {}", crate::signature::printable(n)),
        (None, Some(w)) => format!("DNS SAN {} for {name}", crate::signature::printable(w)),
        (None, None) => format!("DNS/IP SAN {name}"),
    }
}

/// The identity rules (see the module): the caller's, the anchor's, else the origin's host.
/// Returns how the identity was matched, for the report.
fn identity(
    leaf: &CertSummary,
    ee: &EndEntityCert<'_>,
    opts: &VerifyOptions,
    anchor: &TrustAnchor,
    origin: Option<&Origin>,
) -> Result<String, Error> {
    let sets: Vec<(&str, &[Identity])> = [
        ("the verifier's identity rules", opts.identities.as_slice()),
        (
            "the trust anchor's identities",
            anchor.identities.as_deref().unwrap_or_default(),
        ),
    ]
    .into_iter()
    .filter(|(_, s)| !s.is_empty())
    .collect();
    if sets.is_empty() {
        let Some(origin) = origin else {
            return Err(err(
                ErrorCode::CertificateUntrusted,
                "no identity rule applies to the leaf certificate: the card has no origin (verify it \
                 from its URL, or give its origin), and no identity, identity prefix or anchor \
                 identities were given",
            ));
        };
        let host = origin.host();
        let ok = ServerName::try_from(host).is_ok_and(|n| ee.verify_is_valid_for_subject_name(&n).is_ok());
        if !ok {
            return Err(err(
                ErrorCode::CertificateIdentityMismatch,
                format!(
                    "the leaf certificate is not valid for the card's origin host {host} (it names {})",
                    names_of(leaf)
                ),
            ));
        }
        return Ok(format!("{} (the card's origin)", dns_san(leaf, host)));
    }
    let mut matched = Vec::new();
    for (what, rules) in sets {
        match rules.iter().find_map(|r| matches_rule(leaf, ee, r)) {
            Some(san) => matched.push(san),
            None => {
                let wanted: Vec<String> = rules.iter().map(Identity::to_string).collect();
                let not_spiffe = leaf
                    .uris
                    .iter()
                    .find_map(|u| check_spiffe_id(u, true).err().filter(|_| is_spiffe(u)))
                    .map(|why| format!(" (its URI SAN is no SPIFFE ID: {why})"))
                    .unwrap_or_default();
                return Err(err(
                    ErrorCode::CertificateIdentityMismatch,
                    format!(
                        "the leaf certificate names {}, none of {what} ({}){not_spiffe}",
                        names_of(leaf),
                        crate::signature::printable(&wanted.join(", "))
                    ),
                ));
            }
        }
    }
    matched.dedup();
    Ok(matched.join(" and "))
}

/// A webpki refusal as the verdict's code and a sentence.
#[allow(deprecated)]
fn webpki_error(e: &webpki::Error, chain: &[&CertSummary], now: i64) -> Error {
    use webpki::Error as W;
    let at = crate::signature::trust::format_rfc3339(now);
    let which = |pred: &dyn Fn(&CertSummary) -> bool| {
        chain
            .iter()
            .enumerate()
            .find(|(_, c)| pred(c))
            .map(|(i, c)| format!("x5c [{i}] ({})", crate::signature::printable(&c.subject)))
            .unwrap_or_else(|| "a certificate of the chain".into())
    };
    let (code, msg) = match e {
        W::CertExpired { .. } => (
            ErrorCode::CertificateExpired,
            format!("{} expired before the verification time {at}", which(&|c| c.not_after < at)),
        ),
        W::CertNotValidYet { .. } => (
            ErrorCode::CertificateExpired,
            format!("{} is not valid yet at the verification time {at}", which(&|c| c.not_before > at)),
        ),
        W::CertRevoked => (ErrorCode::CertificateRevoked, "a certificate of the chain is revoked by a CRL given".into()),
        W::UnknownIssuer => (
            ErrorCode::CertificateUntrusted,
            "the chain does not build to any of the verifier's trust anchors (unknown issuer)".into(),
        ),
        W::EndEntityUsedAsCa => (
            ErrorCode::CertificateUntrusted,
            "an issuing certificate of the chain is not a CA (basicConstraints CA:TRUE missing)".into(),
        ),
        W::CaUsedAsEndEntity => (ErrorCode::CertificateUntrusted, "the leaf certificate is a CA certificate".into()),
        W::PathLenConstraintViolated => (
            ErrorCode::CertificateUntrusted,
            "the chain is longer than a CA's basicConstraints pathLenConstraint allows".into(),
        ),
        W::NameConstraintViolation => (
            ErrorCode::CertificateUntrusted,
            "the leaf names a subject outside a CA's name constraints (a URI name constraint is never accepted)".into(),
        ),
        W::RequiredEkuNotFound | W::RequiredEkuNotFoundContext(_) => (
            ErrorCode::CertificateUntrusted,
            "a certificate of the chain has an extendedKeyUsage without the required purpose".into(),
        ),
        W::MaximumPathDepthExceeded | W::MaximumSignatureChecksExceeded | W::MaximumPathBuildCallsExceeded => (
            ErrorCode::CertificateUntrusted,
            format!("building the path exceeded a limit of the validator ({e:?})"),
        ),
        W::InvalidSignatureForPublicKey => (
            ErrorCode::CertificateUntrusted,
            "a certificate's signature does not verify with its issuer's key".into(),
        ),
        W::UnsupportedCriticalExtension => (
            ErrorCode::CertificateUntrusted,
            "a certificate of the chain has a critical extension the validator does not understand".into(),
        ),
        W::CrlExpired { .. } => (ErrorCode::CertificateUntrusted, "a CRL given is past its nextUpdate".into()),
        W::BadDer | W::BadDerTime | W::TrailingData(_) | W::MalformedExtensions | W::ExtensionValueInvalid
        | W::InvalidCertValidity | W::InvalidSerialNumber | W::UnsupportedCertVersion => (
            ErrorCode::CertificateMalformed,
            format!("a certificate of header parameter \"x5c\" does not decode ({e:?})"),
        ),
        other => (ErrorCode::CertificateUntrusted, format!("the chain is refused by path validation ({other:?})")),
    };
    err(code, msg)
}
