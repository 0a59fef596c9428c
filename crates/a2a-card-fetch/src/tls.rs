//! The server certificate's failures in words, each with what to do: what rustls (and the
//! webpki check under it) said about a certificate becomes the fetcher's error with a sentence a
//! person can act on, never a debug string. A message names no front end's flag: where a
//! fetcher option would help (the TLS roots), it is named as the option `{roots}` for each front
//! end to spell ([`Error::about_options`]).

use crate::error::{Error, ErrorCode};
use rustls::CertificateError as C;

/// What rustls said about the server's certificate, for `host`, as the fetcher's error (without
/// the URL, which the caller adds). `through` is the proxy clause (` (through the proxy P)`) or
/// empty.
pub(crate) fn certificate_error(c: &C, host: &str, through: &str) -> Error {
    let invalid = |message: String| Error::new(ErrorCode::CertificateInvalid, format!("{message}{through}"));
    // A message that names the option of the TLS roots as `{roots}`.
    let about_roots = |template: &str| {
        Error::about_options(
            ErrorCode::CertificateInvalid,
            &format!("{template}{}", a2a_card::request::template_literal(through)),
            &["roots"],
        )
    };
    match c {
        C::NotValidForName => Error::new(
            ErrorCode::CertificateNameMismatch,
            format!(
                "the server's certificate is not valid for {host}: it names other hosts; ask for a \
                 host it names, or have the server present a certificate that names {host}{through}"
            ),
        ),
        C::NotValidForNameContext { presented, .. } => {
            let names = if presented.is_empty() {
                "it names no host (no DNS or IP subject alternative name; a name only in the \
                 subject's common name is not used)"
                    .to_string()
            } else {
                let shown: Vec<String> = presented.iter().take(8).map(|n| shown_name(n)).collect();
                let more = presented.len().saturating_sub(shown.len());
                let more = if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                };
                format!("it is for {}{more}", shown.join(", "))
            };
            Error::new(
                ErrorCode::CertificateNameMismatch,
                format!(
                    "the server's certificate is not valid for {host}: {names}; ask for a host it \
                     names, or have the server present a certificate that names {host}{through}"
                ),
            )
        }
        C::UnknownIssuer => about_roots(
            "the server's certificate chain does not lead to a trusted root (unknown issuer): the \
             server may leave out an intermediate certificate, or its CA is not one of the roots; \
             for a private or test CA, give its certificate as a TLS root ({roots})",
        ),
        C::Expired => invalid(
            "the server's certificate has expired: the server must renew it (or this machine's \
             clock is wrong)"
                .into(),
        ),
        C::ExpiredContext { time, not_after } => invalid(format!(
            "the server's certificate expired at {} (it is now {}): the server must renew it (or \
             this machine's clock is wrong)",
            when(not_after.as_secs()),
            when(time.as_secs())
        )),
        C::NotValidYet => invalid(
            "the server's certificate is not valid yet: check this machine's clock, or have the \
             server present a certificate valid now"
                .into(),
        ),
        C::NotValidYetContext { time, not_before } => invalid(format!(
            "the server's certificate is not valid before {} (it is now {}): check this machine's \
             clock, or have the server present a certificate valid now",
            when(not_before.as_secs()),
            when(time.as_secs())
        )),
        C::Revoked => invalid(
            "the server's certificate has been revoked by its CA: the server must present a new \
             one"
            .into(),
        ),
        C::BadSignature => invalid(
            "a certificate of the server's chain is not signed by the key of its issuer: the chain \
             is broken or forged"
                .into(),
        ),
        C::BadEncoding => invalid("the server's certificate cannot be read (it is not valid DER)".into()),
        C::InvalidPurpose | C::InvalidPurposeContext { .. } => invalid(
            "the server's certificate may not be used for a TLS server (its extended key usage \
             lacks serverAuth): have the CA issue one for a server"
                .into(),
        ),
        C::UnhandledCriticalExtension => invalid(
            "the server's certificate has a critical extension this client does not understand".into(),
        ),
        C::Other(other) => match other.0.downcast_ref::<webpki::Error>() {
            Some(webpki::Error::CaUsedAsEndEntity) => about_roots(
                "the server presents a CA certificate as its own certificate (a self-signed CA \
                 used as the server's certificate, as the usual one-line self-signed recipe \
                 makes), which TLS refuses: have that CA issue a server certificate (a leaf, \
                 not a CA, naming the host) for the server to present, and give the CA's \
                 certificate as a TLS root ({roots})",
            ),
            Some(webpki::Error::EndEntityUsedAsCa) => invalid(
                "the server's chain has a certificate that is not a CA issuing another: the \
                 server presents a wrong chain"
                    .into(),
            ),
            Some(webpki::Error::PathLenConstraintViolated | webpki::Error::MaximumPathDepthExceeded) => {
                invalid("the server's chain is longer than its CA certificates allow".into())
            }
            Some(webpki::Error::NameConstraintViolation) => invalid(format!(
                "the server's certificate names a host its CA may not issue for (a name \
                 constraint of the CA): it cannot be trusted for {host}"
            )),
            Some(e) => invalid(format!("the server's certificate is not trusted: {}", words(e))),
            None => invalid(format!("the server's certificate is not trusted: {}", other.0)),
        },
        other => invalid(format!(
            "the server's certificate is not trusted: {}",
            words(other)
        )),
    }
}

/// A name the server's certificate presents, as webpki writes it (`DnsName("a.example")`,
/// `IpAddress(127.0.0.1)`), shown as the name alone; the server's text, so control characters
/// are replaced and a long name is cut.
fn shown_name(presented: &str) -> String {
    let inner = ["DnsName(", "IpAddress(", "UniformResourceIdentifier("]
        .iter()
        .find_map(|p| presented.strip_prefix(p).and_then(|r| r.strip_suffix(')')))
        .map(|r| r.strip_prefix('"').and_then(|r| r.strip_suffix('"')).unwrap_or(r))
        .unwrap_or(presented);
    let mut out: String = inner
        .chars()
        .take(100)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if inner.chars().count() > 100 {
        out.push_str("...");
    }
    out
}

/// A time as RFC 3339 UTC.
fn when(secs: u64) -> String {
    a2a_card::signature::trust::format_rfc3339(i64::try_from(secs).unwrap_or(i64::MAX))
}

/// The name of an error variant in words (`CaUsedAsEndEntity` -> `ca used as end entity`),
/// without the data it carries: the fallback for a failure not named above.
fn words(e: &dyn std::fmt::Debug) -> String {
    let debug = format!("{e:?}");
    let name = debug
        .split(|c: char| !c.is_ascii_alphanumeric())
        .next()
        .unwrap_or_default();
    let mut out = String::new();
    for (i, c) in name.char_indices() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push(' ');
        }
        out.push(c.to_ascii_lowercase());
    }
    if out.is_empty() {
        "the certificate check failed".into()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_failure_is_words_with_what_to_do() {
        let host = "localhost";
        let revoked = certificate_error(&C::Revoked, host, "");
        assert_eq!(revoked.code(), ErrorCode::CertificateInvalid);
        assert!(revoked.message().contains("revoked by its CA"), "{revoked}");
        let name = certificate_error(&C::NotValidForName, host, " (through the proxy p)");
        assert_eq!(name.code(), ErrorCode::CertificateNameMismatch);
        assert!(
            name.message().ends_with("names localhost (through the proxy p)"),
            "{name}"
        );
        let unknown = certificate_error(&C::UnknownIssuer, host, "");
        assert_eq!(unknown.options(), ["roots"]);
        assert!(
            unknown
                .message()
                .ends_with("give its certificate as a TLS root (roots)"),
            "{unknown}"
        );
        let other = certificate_error(&C::UnknownRevocationStatus, host, "");
        assert_eq!(
            other.message(),
            "the server's certificate is not trusted: unknown revocation status"
        );
        let pki = C::Other(rustls::OtherError(std::sync::Arc::new(
            webpki::Error::UnsupportedCertVersion,
        )));
        let pki = certificate_error(&pki, host, "");
        assert_eq!(
            pki.message(),
            "the server's certificate is not trusted: unsupported cert version"
        );
        assert_eq!(shown_name("DnsName(\"a.example\")"), "a.example");
        assert_eq!(shown_name("IpAddress(127.0.0.1)"), "127.0.0.1");
        assert_eq!(shown_name("DnsName(\"a\u{7}b\")"), "a?b");
        assert_eq!(shown_name("DirectoryName"), "DirectoryName");
        for e in [revoked, name, unknown, other, pki] {
            assert!(!e.message().contains("Error("), "{e}");
        }
    }
}
