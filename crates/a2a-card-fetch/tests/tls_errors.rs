//! The server certificate's failures in words with what to do, each against a real loopback
//! HTTPS server presenting such a certificate: a CA certificate used as the server's own (the
//! usual one-line self-signed recipe), an unknown issuer, another host's name, expired, not yet
//! valid. No message is a debug string, and none names a command-line flag.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use a2a_card_fetch::{fetch_card, ErrorCode, FetchOptions, Roots};
use common::{Ca, Fixture, Resp, Server};

const CARD: &[u8] = br#"{"name":"Recipe Agent","description":"Cooks","version":"1.0.0","skills":[]}"#;

/// The error of fetching `https://localhost:PORT/` from a server presenting `leaf`.
fn refusal(leaf: &a2a_card_testkit::https::Leaf, opts: &FetchOptions) -> a2a_card_fetch::Error {
    let server = Server::start(leaf, |_| Resp::json(CARD));
    let e = fetch_card(&server.url("localhost", "/"), opts).unwrap_err();
    assert_eq!(
        server.requests().len(),
        0,
        "no request over an untrusted connection"
    );
    e
}

/// Words, not a debug string, and no flag.
#[track_caller]
fn in_words(e: &a2a_card_fetch::Error) {
    let m = e.message();
    for debug in [
        "Other(",
        "OtherError",
        "Context {",
        "CaUsedAsEndEntity",
        "UnknownIssuer",
        "NotValidFor",
    ] {
        assert!(!m.contains(debug), "a debug string: {m}");
    }
    assert!(!m.contains("--"), "a flag in a library message: {m}");
}

#[test]
fn a_ca_certificate_served_as_the_servers_own_says_to_serve_a_leaf_of_that_ca() {
    let fx = Fixture::new();
    let (ca_pem, itself) = Ca::self_signed_server(&["localhost", "127.0.0.1"]);
    let opts = FetchOptions {
        roots: Roots::CaPem(ca_pem.into_bytes()),
        ..fx.options()
    };
    let e = refusal(&itself, &opts);
    assert_eq!(e.code(), ErrorCode::CertificateInvalid);
    in_words(&e);
    assert!(
        e.message().starts_with(
            "the server presents a CA certificate as its own certificate (a self-signed CA used as \
             the server's certificate"
        ),
        "{e}"
    );
    assert!(
        e.message()
            .contains("have that CA issue a server certificate (a leaf, not a CA, naming the host)"),
        "{e}"
    );
    assert!(
        e.message()
            .ends_with("give the CA's certificate as a TLS root (roots)"),
        "{e}"
    );
    assert_eq!(e.options(), ["roots"]);
}

#[test]
fn an_unknown_issuer_says_the_chain_does_not_reach_a_root() {
    let fx = Fixture::new();
    let stranger = Ca::new("another CA");
    let opts = FetchOptions {
        roots: Roots::CaPem(stranger.pem.into_bytes()),
        ..fx.options()
    };
    let e = refusal(&fx.leaf, &opts);
    assert_eq!(e.code(), ErrorCode::CertificateInvalid);
    in_words(&e);
    assert_eq!(
        e.message(),
        "the server's certificate chain does not lead to a trusted root (unknown issuer): the server \
         may leave out an intermediate certificate, or its CA is not one of the roots; for a private \
         or test CA, give its certificate as a TLS root (roots)"
    );
    assert_eq!(e.options(), ["roots"]);
}

#[test]
fn another_hosts_certificate_names_the_host_and_the_names_it_is_for() {
    let fx = Fixture::new();
    let other = fx.ca.leaf(&["other.example", "api.other.example", "192.0.2.7"]);
    let e = refusal(&other, &fx.options());
    assert_eq!(e.code(), ErrorCode::CertificateNameMismatch);
    in_words(&e);
    assert_eq!(
        e.message(),
        "the server's certificate is not valid for localhost: it is for other.example, \
         api.other.example, 192.0.2.7; ask for a host it names, or have the server present a certificate \
         that names localhost"
    );
}

#[test]
fn expired_and_not_yet_valid_certificates_say_when() {
    let fx = Fixture::new();
    let expired = fx.ca.leaf_valid(&["localhost"], (2020, 1, 1), (2021, 1, 1));
    let e = refusal(&expired, &fx.options());
    assert_eq!(e.code(), ErrorCode::CertificateInvalid);
    in_words(&e);
    assert!(
        e.message()
            .starts_with("the server's certificate expired at 2021-01-01T00:00:00Z (it is now 20"),
        "{e}"
    );
    assert!(
        e.message()
            .ends_with("): the server must renew it (or this machine's clock is wrong)"),
        "{e}"
    );

    let early = fx.ca.leaf_valid(&["localhost"], (2090, 1, 1), (2091, 1, 1));
    let e = refusal(&early, &fx.options());
    assert_eq!(e.code(), ErrorCode::CertificateInvalid);
    in_words(&e);
    assert!(
        e.message()
            .starts_with("the server's certificate is not valid before 2090-01-01T00:00:00Z (it is now 20"),
        "{e}"
    );
    assert!(
        e.message()
            .ends_with("check this machine's clock, or have the server present a certificate valid now"),
        "{e}"
    );
}
