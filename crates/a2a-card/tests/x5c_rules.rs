//! The rules of `x5c` chains that hold on both sides: signing refuses the chain shapes and the
//! header certificate parameters a verifier refuses (through the verifier's own functions),
//! SPIFFE IDs are read as the SPIFFE ID specification defines them in leaves, options and
//! trust-store anchors, and a URI prefix names whole path segments, for every scheme.

#![allow(clippy::unwrap_used, clippy::panic)]

mod support;

use a2a_card::signature::Identity;
use a2a_card::{sign_card, verify_card, Algorithm, PrivateKey, SignOptions, TrustStore, VerifyOptions};
use a2a_card_testkit::pki::Spec;
use support::x5c::*;

#[test]
fn signing_refuses_the_chain_shapes_verification_refuses() {
    let p = pki();
    // root -> 4 intermediates -> leaf: five certificates, one past the default limit.
    let certs = long_chain(&p.root, "Long", 4);
    let key = key_of(&certs[0]);
    let opts = SignOptions {
        x5c: certs.iter().map(|c| c.der.clone()).collect(),
        ..SignOptions::default()
    };
    let e = sign_card(CARD, &key, &opts).unwrap_err();
    assert_eq!(e.code().as_str(), "certificate-untrusted", "{e}");
    assert!(
        e.message().contains("5 certificates, more than the limit of 4"),
        "{e}"
    );
    assert!(opts.check(&key).is_err(), "checked before signing");
    // The verifier refuses the same chain, by the same rule, when it is written by hand.
    let card = hand_signed(&certs.iter().collect::<Vec<_>>(), &key, Algorithm::ES256);
    refused(
        &card,
        &anchors(&[&p.root]),
        &at_origin(),
        "certificate-untrusted",
        "more than the limit of 4",
    );
    // A signer whose verifiers accept five says so, and its card verifies with that limit.
    let five = SignOptions {
        max_chain_len: 5,
        ..opts.clone()
    };
    let card = sign_card(CARD, &key, &five).unwrap().card;
    let wide = VerifyOptions {
        max_chain_len: 5,
        ..at_origin()
    };
    assert!(verify_card(&card, &anchors(&[&p.root]), &wide).unwrap().ok);
    let zero = SignOptions {
        max_chain_len: 0,
        ..opts.clone()
    };
    assert_eq!(sign_card(CARD, &key, &zero).unwrap_err().code().as_str(), "usage");
    // A leaf without digitalSignature, a leaf that is a CA: refused before signing, as verifying refuses them.
    for (spec, words) in [
        (
            Spec::leaf("agent").dns("agent.example").no_digital_signature(),
            "digitalSignature",
        ),
        (Spec::ca("agent", None).dns("agent.example"), "CA certificate"),
    ] {
        let leaf = p.int.issue(&spec);
        let opts = SignOptions {
            x5c: vec![leaf.der.clone(), p.int.der.clone()],
            ..SignOptions::default()
        };
        let e = sign_card(CARD, &key_of(&leaf), &opts).unwrap_err();
        assert_eq!(e.code().as_str(), "certificate-untrusted", "{e}");
        assert!(
            e.message().starts_with("a verifier would refuse this chain: "),
            "{e}"
        );
        assert!(e.message().contains(words), "{e}");
    }
}

#[test]
fn a_chain_past_the_validators_depth_is_refused_by_signing_as_by_verifying() {
    let p = pki();
    // root -> 7 intermediates -> leaf: within a chain limit of 8, past the 6 intermediates a
    // path is built through.
    let certs = long_chain(&p.root, "Deep", 7);
    let key = key_of(&certs[0]);
    let opts = SignOptions {
        x5c: certs.iter().map(|c| c.der.clone()).collect(),
        max_chain_len: 8,
        ..SignOptions::default()
    };
    let e = sign_card(CARD, &key, &opts).unwrap_err();
    assert_eq!(e.code().as_str(), "certificate-untrusted", "{e}");
    assert!(e.message().contains("7 intermediate certificates"), "{e}");
    // (Eight certificates do not fit the default header limit of 4 KiB: a verifier that takes
    // them raises both limits.)
    let wide = VerifyOptions {
        max_chain_len: 8,
        max_header_bytes: 16 * 1024,
        ..at_origin()
    };
    let card = hand_signed(&certs.iter().collect::<Vec<_>>(), &key, Algorithm::ES256);
    refused(
        &card,
        &anchors(&[&p.root]),
        &wide,
        "certificate-untrusted",
        "7 intermediate certificates",
    );
}

#[test]
fn spiffe_ids_follow_the_spiffe_specification_in_leaves_options_and_anchors() {
    let p = pki();
    let prefix = VerifyOptions {
        identities: vec![Identity::prefix("spiffe://td/ns/").unwrap()],
        ..VerifyOptions::default()
    };
    let trust = anchors(&[&p.root]);
    let card = dns_card(&p, Spec::leaf("svid").uri("spiffe://td/ns/a"));
    let r = verify_card(&card, &trust, &prefix).unwrap();
    assert!(r.ok, "{:?}", r.signatures[0].verdict);
    // The report names the SAN that matched, and the rule.
    assert_eq!(
        r.signatures[0].certificate.as_ref().unwrap().identity,
        "URI SAN spiffe://td/ns/a (under spiffe://td/ns/)"
    );
    for san in [
        "spiffe://td/ns/../admin",
        "spiffe://td/ns/%2e%2e/admin",
        "spiffe://td/ns/./admin",
        "spiffe://td/ns//admin",
        "spiffe://td/ns/admin/",
        "spiffe://td/ns/a?q",
        "spiffe://td/ns/a#f",
        "spiffe://td/ns/a%2Fb",
    ] {
        let card = dns_card(&p, Spec::leaf("svid").uri(san));
        refused(
            &card,
            &trust,
            &prefix,
            "certificate-identity-mismatch",
            "no SPIFFE ID",
        );
        // An exact rule spelled like the SAN is no SPIFFE ID either: refused as an option.
        assert_eq!(
            Identity::parse(san).unwrap_err().code().as_str(),
            "usage",
            "{san}"
        );
    }
    // A trust domain in upper case is not the same trust domain.
    let card = dns_card(&p, Spec::leaf("svid").uri("spiffe://TD/ns/a"));
    refused(
        &card,
        &trust,
        &prefix,
        "certificate-identity-mismatch",
        "lower-case",
    );
    for bad in [
        "spiffe://td/ns/../",
        "spiffe://TD/",
        "spiffe://td:443/",
        "spiffe://u@td/",
        "spiffe:///",
    ] {
        assert_eq!(
            Identity::prefix(bad).unwrap_err().code().as_str(),
            "usage",
            "{bad}"
        );
    }
    assert!(Identity::prefix("spiffe://td/").is_ok());
    assert!(
        Identity::parse("spiffe://td").is_err(),
        "a workload's ID has a path"
    );
    // The same rules in a trust store's anchor entries.
    let entry = |member: &str, id: &str| {
        let text = serde_json::json!({ "keys": [{ "certificate": p.root.pem, member: [id] }] }).to_string();
        TrustStore::from_json(&text, "trust.json")
    };
    let e = entry("identities", "spiffe://td/ns/%2e%2e/admin").unwrap_err();
    assert_eq!(
        (e.code().as_str(), e.pointer()),
        ("invalid-trust-store", Some("/keys/0/identities/0"))
    );
    let e = entry("identityPrefixes", "spiffe://td/../").unwrap_err();
    assert_eq!(
        (e.code().as_str(), e.pointer()),
        ("invalid-trust-store", Some("/keys/0/identityPrefixes/0"))
    );
    assert!(entry("identityPrefixes", "spiffe://td/ns/").is_ok());
}

#[test]
fn a_uri_prefix_names_whole_segments_for_every_scheme() {
    let p = pki();
    let trust = anchors(&[&p.root]);
    let prefix = VerifyOptions {
        identities: vec![Identity::prefix("https://id.example/ns/").unwrap()],
        ..VerifyOptions::default()
    };
    let card = dns_card(&p, Spec::leaf("agent").uri("https://id.example/ns/a"));
    assert!(verify_card(&card, &trust, &prefix).unwrap().ok);
    for san in [
        "https://id.example/ns/../admin",
        "https://id.example/ns/%2e%2e/admin",
        "https://id.example/ns//admin",
        "https://id.example/ns/a?x",
        "https://id.example/ns/",
    ] {
        let card = dns_card(&p, Spec::leaf("agent").uri(san));
        refused(&card, &trust, &prefix, "certificate-identity-mismatch", san);
    }
    for bad in [
        "https://id.example/ns/../",
        "https://id.example/%2e/",
        "https://id.example/?/",
    ] {
        assert_eq!(
            Identity::prefix(bad).unwrap_err().code().as_str(),
            "usage",
            "{bad}"
        );
    }
}

#[test]
fn signing_refuses_the_header_certificate_parameters_verification_refuses() {
    let p = pki();
    let leaf = p.int.issue(&Spec::leaf("agent").dns("agent.example"));
    let key = key_of(&leaf);
    let chain = vec![leaf.der.clone(), p.int.der.clone()];
    let other = PrivateKey::generate(Algorithm::ES256).unwrap();
    let x5c = a2a_card::jose::x509::encode_x5c(&chain);
    let cases: Vec<(SignOptions, &str)> = vec![
        (
            SignOptions {
                unprotected: vec![("x5u".into(), serde_json::json!("https://a.example/c.pem"))],
                ..SignOptions::default()
            },
            "certificate-untrusted",
        ),
        (
            SignOptions {
                unprotected: vec![("x5c".into(), x5c.clone())],
                ..SignOptions::default()
            },
            "certificate-untrusted",
        ),
        (
            SignOptions {
                x5c: chain.clone(),
                extra_protected: vec![("jwk".into(), other.public().to_jwk())],
                ..SignOptions::default()
            },
            "certificate-key-mismatch",
        ),
    ];
    for (opts, code) in cases {
        let e = sign_card(CARD, &key, &opts).unwrap_err();
        assert_eq!(e.code().as_str(), code, "{e}");
        assert!(
            e.message()
                .starts_with("a verifier would refuse this signature: "),
            "{e}"
        );
    }
    // An x5u or x5t#S256 among the protected parameters is not written at all (usage).
    for name in ["x5u", "x5t#S256"] {
        let opts = SignOptions {
            x5c: chain.clone(),
            extra_protected: vec![(name.into(), serde_json::json!("AAAA"))],
            ..SignOptions::default()
        };
        assert_eq!(sign_card(CARD, &key, &opts).unwrap_err().code().as_str(), "usage");
    }
    // A jwk that is the leaf's key: signed, and verified.
    let opts = SignOptions {
        x5c: chain,
        extra_protected: vec![("jwk".into(), key.public().to_jwk())],
        ..SignOptions::default()
    };
    let card = sign_card(CARD, &key, &opts).unwrap().card;
    assert!(verify_card(&card, &anchors(&[&p.root]), &at_origin()).unwrap().ok);
}

#[test]
fn the_report_names_the_dns_or_ip_san_that_matched() {
    let p = pki();
    let trust = anchors(&[&p.root]);
    let identity = |card: &[u8], opts: &VerifyOptions| {
        let r = verify_card(card, &trust, opts).unwrap();
        assert!(r.ok, "{:?}", r.signatures[0].verdict);
        r.signatures[0].certificate.as_ref().unwrap().identity.clone()
    };
    let exact = dns_card(&p, Spec::leaf("agent").dns("other.example").dns("agent.example"));
    assert_eq!(
        identity(&exact, &at_origin()),
        "DNS SAN agent.example (the card's origin)"
    );
    let wild = dns_card(&p, Spec::leaf("agent").dns("*.agents.example"));
    let at_a = VerifyOptions {
        origin: Some("https://a.agents.example".parse().unwrap()),
        ..VerifyOptions::default()
    };
    assert_eq!(
        identity(&wild, &at_a),
        "DNS SAN *.agents.example for a.agents.example (the card's origin)"
    );
    let by_rule = VerifyOptions {
        identities: vec![Identity::parse("B.Agents.Example").unwrap()],
        ..VerifyOptions::default()
    };
    assert_eq!(
        identity(&wild, &by_rule),
        "DNS SAN *.agents.example for b.agents.example"
    );
    let ip = dns_card(&p, Spec::leaf("agent").ip("10.0.0.7".parse().unwrap()));
    let at_ip = VerifyOptions {
        origin: Some("https://10.0.0.7".parse().unwrap()),
        ..VerifyOptions::default()
    };
    assert_eq!(identity(&ip, &at_ip), "IP SAN 10.0.0.7 (the card's origin)");
}
