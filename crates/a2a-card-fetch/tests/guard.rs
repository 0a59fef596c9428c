//! The address classifier over a table: classification only, no traffic.
#![allow(clippy::unwrap_used, clippy::panic)]

use a2a_card_fetch::guard::{check, classify, AddressClass, Embedding};
use std::net::IpAddr;

use AddressClass::*;

const TABLE: &[(&str, AddressClass)] = &[
    // IPv4
    ("127.0.0.1", Loopback),
    ("127.255.255.254", Loopback),
    ("0.0.0.0", Unspecified),
    ("0.1.2.3", Unspecified),
    ("10.0.0.1", Private),
    ("172.16.0.1", Private),
    ("172.31.255.255", Private),
    ("192.168.1.1", Private),
    ("100.64.0.1", Shared),
    ("100.127.255.255", Shared),
    ("169.254.169.254", LinkLocal),
    ("224.0.0.1", Multicast),
    ("239.255.255.250", Multicast),
    ("240.0.0.1", Reserved),
    ("255.255.255.255", Reserved),
    ("192.0.0.8", Reserved),
    ("192.88.99.1", Reserved),
    ("192.0.2.1", Documentation),
    ("198.18.0.1", Documentation),
    ("198.51.100.7", Documentation),
    ("203.0.113.9", Documentation),
    ("93.184.216.34", Public),
    ("8.8.8.8", Public),
    ("172.15.255.255", Public),
    ("172.32.0.0", Public),
    ("100.63.255.255", Public),
    ("100.128.0.0", Public),
    ("169.253.255.255", Public),
    ("223.255.255.255", Public),
    // IPv6
    ("::", Unspecified),
    ("::1", Loopback),
    ("fc00::1", UniqueLocal),
    ("fd12:3456::1", UniqueLocal),
    ("fec0::1", UniqueLocal),
    ("fe80::1", LinkLocal),
    ("febf::1", LinkLocal),
    ("ff02::1", Multicast),
    ("2001:db8::1", Documentation),
    ("3fff::1", Documentation),
    ("2001::1", Reserved), // Teredo
    ("100::1", Reserved),  // discard-only
    ("64:ff9b:1::1", Reserved),
    ("4000::1", Reserved), // outside 2000::/3
    ("::2", Unspecified),  // IPv4-compatible form of 0.0.0.2, inside 0.0.0.0/8
    ("2606:4700::1", Public),
    ("2a00:1450:4001::1", Public),
    ("2001:4860:4860::8888", Public),
    // IPv4 inside IPv6: judged by the IPv4 address.
    ("::ffff:127.0.0.1", Loopback),
    ("::ffff:10.0.0.1", Private),
    ("::ffff:169.254.169.254", LinkLocal),
    ("::ffff:100.64.0.1", Shared),
    ("::ffff:0.0.0.0", Unspecified),
    ("::ffff:224.0.0.1", Multicast),
    ("::ffff:93.184.216.34", Public),
    ("::127.0.0.1", Loopback),
    ("::10.0.0.1", Private),
    ("::169.254.169.254", LinkLocal),
    ("::93.184.216.34", Reserved),     // IPv4-compatible is never allowed
    ("64:ff9b::a9fe:a9fe", LinkLocal), // NAT64 of 169.254.169.254
    ("64:ff9b::7f00:1", Loopback),
    ("64:ff9b::5db8:d822", Public),
    ("2002:0a00:0001::1", Private),  // 6to4 of 10.0.0.1
    ("2002:7f00:0001::1", Loopback), // 6to4 of 127.0.0.1
    ("2002:5db8:d822::1", Public),
];

#[test]
fn classification_table() {
    let mut wrong = Vec::new();
    for &(text, want) in TABLE {
        let ip: IpAddr = text.parse().unwrap();
        let got = classify(ip).class;
        if got != want {
            wrong.push(format!("{text}: got {got:?}, want {want:?}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn only_public_passes_and_loopback_only_when_opened_in_plain_form() {
    for &(text, _) in TABLE {
        let ip: IpAddr = text.parse().unwrap();
        let c = classify(ip);
        assert_eq!(
            check(ip, false).is_ok(),
            c.class == Public,
            "{text} without loopback"
        );
        let plain_loopback = c.class == Loopback && c.embedded.is_none();
        assert_eq!(
            check(ip, true).is_ok(),
            c.class == Public || plain_loopback,
            "{text} with loopback"
        );
    }
    // The forms the brief names explicitly.
    for refused in [
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
        "::127.0.0.1",
        "100.64.0.1",
        "169.254.169.254",
        "0.0.0.0",
        "224.0.0.1",
        "240.0.0.1",
        "255.255.255.255",
        "fc00::1",
        "fe80::1",
        "::",
        "::1",
        "127.0.0.1",
    ] {
        assert!(check(refused.parse().unwrap(), false).is_err(), "{refused}");
    }
    for allowed in ["93.184.216.34", "2606:4700::1"] {
        assert!(check(allowed.parse().unwrap(), false).is_ok(), "{allowed}");
    }
    // allow_loopback opens plain loopback only, never an embedded form.
    assert!(check("127.0.0.1".parse().unwrap(), true).is_ok());
    assert!(check("::1".parse().unwrap(), true).is_ok());
    for embedded in [
        "::ffff:127.0.0.1",
        "::127.0.0.1",
        "64:ff9b::7f00:1",
        "2002:7f00:1::1",
    ] {
        assert!(check(embedded.parse().unwrap(), true).is_err(), "{embedded}");
    }
}

#[test]
fn embedded_forms_are_named() {
    let c = classify("::ffff:10.0.0.1".parse().unwrap());
    assert_eq!(c.embedded, Some((Embedding::Mapped, "10.0.0.1".parse().unwrap())));
    let c = classify("::127.0.0.1".parse().unwrap());
    assert_eq!(
        c.embedded,
        Some((Embedding::Compatible, "127.0.0.1".parse().unwrap()))
    );
    let c = classify("64:ff9b::a9fe:a9fe".parse().unwrap());
    assert_eq!(
        c.embedded,
        Some((Embedding::Nat64, "169.254.169.254".parse().unwrap()))
    );
    let c = classify("2002:0a00:0001::1".parse().unwrap());
    assert_eq!(
        c.embedded,
        Some((Embedding::SixToFour, "10.0.0.1".parse().unwrap()))
    );
    let refused = check("::ffff:169.254.169.254".parse().unwrap(), true).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "::ffff:169.254.169.254 is a link-local address (IPv4-mapped form of 169.254.169.254)"
    );
}

/// The origin the fetcher derives from a URL (the host and port the `url` crate parsed, as a
/// browser would, made an [`Origin`] by `Origin::https`) and the origin a trust entry or
/// `--origin` is read to (`Origin::from_str`) agree on every spelling the core accepts, and both
/// write the browser's serialization; the spellings it cannot bring to the browser's form are
/// refused rather than left to match nothing.
#[test]
fn origins_are_normalized_alike_on_both_sides() {
    use a2a_card::signature::Origin;
    for given in [
        "https://agent.example",
        "https://Agent.EXAMPLE",
        "HTTPS://agent.example:443",
        "https://agent.example:8443/",
        "https://agent.example:08443",
        "https://127.0.0.1:8443",
        "https://[::1]",
        "https://[0:0:0:0:0:0:0:1]:443",
        "https://[2001:DB8:0:0:0:0:0:1]:9000",
        "https://xn--bcher-kva.example",
        "https://a.example.",
    ] {
        let core: Origin = given.parse().unwrap_or_else(|e| panic!("{given} refused: {e}"));
        let url = url::Url::parse(given).unwrap();
        let browser = url.origin().ascii_serialization();
        assert_eq!(core.as_str(), browser, "{given}");
        let fetched = Origin::https(url.host_str().unwrap(), url.port()).unwrap();
        assert_eq!(fetched, core, "{given}");
    }
    for refused in [
        "https://bücher.example",
        "https://127.1",
        "https://0x7f.0.0.1",
        "https://2130706433",
        "https://0177.0.0.1",
        "https://agent.example/path",
        "https://user@agent.example",
        "https://agent.example:99999",
        "https://agent.example:",
        "https://[::1",
        "http://agent.example",
        "agent.example",
        "https://",
    ] {
        let e = refused.parse::<Origin>().unwrap_err();
        assert_eq!(
            (e.code().as_str(), e.option()),
            ("usage", Some("origin")),
            "{refused}"
        );
    }
}

/// A host the URL parser takes but no origin can name (`a!b.example`) is refused as the caller's
/// own input, before anything is resolved or sent: the card's origin (and a `jku` prefix's) is
/// made once from the parsed URL, and a card without one could match no trust entry.
#[test]
fn a_url_whose_host_no_origin_can_name_is_refused_before_any_request() {
    use a2a_card_fetch::{fetch_card, FetchOptions, JkuPrefix};
    for url in [
        "https://a!b.example/",
        "https://a$b.example/card.json",
        "https://a~b.example",
    ] {
        let e = fetch_card(url, &FetchOptions::default()).unwrap_err();
        assert_eq!(e.code().as_str(), "invalid-url", "{url}: {e}");
        assert!(e.is_caller_input(), "{url}");
        assert!(e.message().contains("is not one an origin can name"), "{e}");
        let prefix = format!("{}/keys/", url.trim_end_matches('/'));
        let e = JkuPrefix::parse(&prefix).unwrap_err();
        assert_eq!(e.code().as_str(), "invalid-url", "{prefix}: {e}");
    }
}
