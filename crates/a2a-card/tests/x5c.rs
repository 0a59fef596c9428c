//! Trust through certificates: `x5c` chains built to the verifier's own anchors, with DNS and
//! SPIFFE identities, and every refusal with its code and place. Chains are made at test time
//! by rcgen and by the `openssl` command line (`a2a_card_testkit::pki`).

#![allow(clippy::unwrap_used, clippy::panic)] // a test reports by panicking

mod support;

use a2a_card::jose::crypto;
use a2a_card::signature::Identity;
use a2a_card::{
    sign_card, verify_card, Algorithm, PrivateKey, Report, SignOptions, TrustStore, VerifyOptions,
};
use a2a_card_testkit::cards::{signed_entry, with_signatures};
use a2a_card_testkit::pki::{self, Cert, Spec};
use base64::Engine as _;
use support::x5c::*;

const SPIFFE: &str = "spiffe://example.org/ns/a/sa/agent";

fn verdict(r: &Report) -> (String, String, Option<String>) {
    let v = &r.signatures[0].verdict;
    (v.code.to_string(), v.message.clone(), v.pointer.clone())
}

#[test]
fn a_dns_chain_to_an_anchor_verifies_and_the_report_says_how() {
    let p = pki();
    let card = dns_card(&p, Spec::leaf("agent").dns("agent.example").serial(4242));
    let r = verify_card(&card, &anchors(&[&p.root]), &at_origin()).unwrap();
    assert!(r.ok, "{:?}", r.signatures[0].verdict);
    let c = r.signatures[0].certificate.as_ref().unwrap();
    assert_eq!(c.chain.len(), 2);
    assert!(c.chain[0].subject.starts_with("CN=agent"));
    assert_eq!(c.chain[0].serial, "1092");
    assert!(c.chain[1].subject.starts_with("CN=Test Intermediate"));
    assert!(c.anchor.starts_with("CN=Test Root"));
    assert_eq!(c.anchor_source, "bundle.pem");
    assert!(c.identity.contains("agent.example"), "{}", c.identity);
    assert_eq!(
        r.signatures[0].key.as_ref().unwrap().source.label(),
        "x5c:bundle.pem"
    );
    let json = r.to_json();
    assert_eq!(
        json["signatures"][0]["certificate"]["anchor_source"],
        "bundle.pem"
    );
    let text = r.to_text(&Default::default());
    assert!(text.contains("certificate chain: CN=agent"), "{text}");
    // The intermediate may be an anchor itself: the path is then one certificate long.
    assert!(verify_card(&card, &anchors(&[&p.int]), &at_origin()).unwrap().ok);
}

#[test]
fn a_spiffe_chain_verifies_with_the_identity_or_a_prefix_and_refuses_another() {
    let p = pki();
    let card = dns_card(&p, Spec::leaf("svid").uri(SPIFFE));
    let trust = anchors(&[&p.root]);
    for id in [
        Identity::parse(SPIFFE).unwrap(),
        Identity::prefix("spiffe://example.org/").unwrap(),
    ] {
        let opts = VerifyOptions {
            identities: vec![id],
            ..VerifyOptions::default()
        };
        let r = verify_card(&card, &trust, &opts).unwrap();
        assert!(r.ok, "{:?}", r.signatures[0].verdict);
    }
    for id in [
        Identity::parse("spiffe://example.org/ns/b/sa/agent").unwrap(),
        Identity::prefix("spiffe://other.org/").unwrap(),
    ] {
        let opts = VerifyOptions {
            identities: vec![id],
            ..VerifyOptions::default()
        };
        refused(&card, &trust, &opts, "certificate-identity-mismatch", SPIFFE);
    }
    // A prefix must end with '/': spiffe://example.org would match spiffe://example.org.evil.
    assert_eq!(
        Identity::prefix("spiffe://example.org")
            .unwrap_err()
            .code()
            .as_str(),
        "usage"
    );
    // A fetched card's origin does not stand in for a SPIFFE ID: no DNS SAN names it.
    refused(
        &card,
        &trust,
        &at_origin(),
        "certificate-identity-mismatch",
        "agent.example",
    );
}

#[test]
fn no_identity_rule_means_untrusted() {
    let p = pki();
    let card = dns_card(&p, Spec::leaf("agent").dns("agent.example"));
    refused(
        &card,
        &anchors(&[&p.root]),
        &VerifyOptions::default(),
        "certificate-untrusted",
        "no identity rule applies",
    );
}

#[test]
fn a_leaf_for_another_host_is_an_identity_mismatch() {
    let p = pki();
    let card = dns_card(&p, Spec::leaf("agent").dns("other.example"));
    refused(
        &card,
        &anchors(&[&p.root]),
        &at_origin(),
        "certificate-identity-mismatch",
        "DNS:other.example",
    );
    // An IP origin needs an IP SAN.
    let card = dns_card(&p, Spec::leaf("agent").ip("127.0.0.1".parse().unwrap()));
    let opts = VerifyOptions {
        origin: Some("https://127.0.0.1:8443".parse().unwrap()),
        ..VerifyOptions::default()
    };
    assert!(verify_card(&card, &anchors(&[&p.root]), &opts).unwrap().ok);
}

#[test]
fn validity_of_leaf_and_intermediate_is_checked_at_the_verification_time() {
    let p = pki();
    let trust = anchors(&[&p.root]);
    let leaf = |from, to| dns_card(&p, Spec::leaf("agent").dns("agent.example").valid(from, to));
    refused(
        &leaf((2020, 1, 1), (2021, 1, 1)),
        &trust,
        &at_origin(),
        "certificate-expired",
        "x5c [0]",
    );
    refused(
        &leaf((2090, 1, 1), (2095, 1, 1)),
        &trust,
        &at_origin(),
        "certificate-expired",
        "not valid yet",
    );
    for (from, to, words) in [
        ((2020, 1, 1), (2021, 1, 1), "expired"),
        ((2090, 1, 1), (2095, 1, 1), "not valid yet"),
    ] {
        let int = p
            .root
            .issue(&Spec::ca("Old Intermediate", Some(0)).valid(from, to));
        let l = int.issue(&Spec::leaf("agent").dns("agent.example"));
        let card = sign_with(&l, &[&l, &int]);
        refused(&card, &trust, &at_origin(), "certificate-expired", words);
    }
    // The verification time is the caller's: the expired leaf was valid in 2020.
    let opts = VerifyOptions {
        now: Some(1_590_000_000),
        ..at_origin()
    };
    assert!(
        verify_card(&leaf((2020, 1, 1), (2021, 1, 1)), &trust, &opts)
            .unwrap()
            .ok
    );
}

#[test]
fn an_unknown_root_or_a_self_signed_leaf_is_untrusted() {
    let p = pki();
    let card = dns_card(&p, Spec::leaf("agent").dns("agent.example"));
    let other = Cert::root("Other Root");
    refused(
        &card,
        &anchors(&[&other]),
        &at_origin(),
        "certificate-untrusted",
        "unknown issuer",
    );
    let selfie = Cert::self_signed(&Spec::leaf("agent").dns("agent.example"));
    let card = sign_with(&selfie, &[&selfie]);
    refused(
        &card,
        &anchors(&[&p.root]),
        &at_origin(),
        "certificate-untrusted",
        "unknown issuer",
    );
}

#[test]
fn basic_constraints_and_path_length_are_enforced() {
    let p = pki();
    let trust = anchors(&[&p.root]);
    let not_ca = p.root.issue(&Spec::ca("Not A CA", None).not_ca());
    let l = not_ca.issue(&Spec::leaf("agent").dns("agent.example"));
    refused(
        &sign_with(&l, &[&l, &not_ca]),
        &trust,
        &at_origin(),
        "certificate-untrusted",
        "not a CA",
    );
    // root -> int (pathlen 0) -> int2 -> leaf
    let int2 = p.int.issue(&Spec::ca("Second Intermediate", None));
    let l = int2.issue(&Spec::leaf("agent").dns("agent.example"));
    refused(
        &sign_with(&l, &[&l, &int2, &p.int]),
        &trust,
        &at_origin(),
        "certificate-untrusted",
        "pathLenConstraint",
    );
    // A leaf that is a CA signs nothing here (and sign_card refuses to make one: by hand).
    let ca_leaf = p.int.issue(&Spec::ca("agent", None).dns("agent.example"));
    refused(
        &hand_signed(&[&ca_leaf, &p.int], &key_of(&ca_leaf), Algorithm::ES256),
        &trust,
        &at_origin(),
        "certificate-untrusted",
        "CA",
    );
}

#[test]
fn name_constraints_are_enforced() {
    let root = Cert::root("Constrained Root");
    let int = root.issue(&Spec::ca("Example Only", Some(0)).permit_dns("example.org"));
    let ok = int.issue(&Spec::leaf("agent").dns("agent.example.org"));
    let opts = VerifyOptions {
        origin: Some("https://agent.example.org".parse().unwrap()),
        ..VerifyOptions::default()
    };
    assert!(
        verify_card(&sign_with(&ok, &[&ok, &int]), &anchors(&[&root]), &opts)
            .unwrap()
            .ok
    );
    let bad = int.issue(&Spec::leaf("agent").dns("agent.evil.com"));
    let opts = VerifyOptions {
        origin: Some("https://agent.evil.com".parse().unwrap()),
        ..VerifyOptions::default()
    };
    refused(
        &sign_with(&bad, &[&bad, &int]),
        &anchors(&[&root]),
        &opts,
        "certificate-untrusted",
        "name constraints",
    );
}

#[test]
fn a_required_eku_must_be_listed() {
    let p = pki();
    let trust = anchors(&[&p.root]);
    let required = VerifyOptions {
        required_eku: Some("codeSigning".into()),
        ..at_origin()
    };
    let server = dns_card(&p, Spec::leaf("agent").dns("agent.example").eku(&["server"]));
    refused(
        &server,
        &trust,
        &required,
        "certificate-untrusted",
        "1.3.6.1.5.5.7.3.3",
    );
    let none = dns_card(&p, Spec::leaf("agent").dns("agent.example"));
    refused(&none, &trust, &required, "certificate-untrusted", "absent");
    let code = dns_card(
        &p,
        Spec::leaf("agent").dns("agent.example").eku(&["code", "server"]),
    );
    assert!(verify_card(&code, &trust, &required).unwrap().ok);
    // Without the option, any EKU is accepted.
    assert!(verify_card(&server, &trust, &at_origin()).unwrap().ok);
}

#[test]
fn a_leaf_whose_key_usage_lacks_digital_signature_is_untrusted() {
    let p = pki();
    // sign_card refuses to make this card (the same rule): written by hand.
    let leaf = p
        .int
        .issue(&Spec::leaf("agent").dns("agent.example").no_digital_signature());
    let card = hand_signed(&[&leaf, &p.int], &key_of(&leaf), Algorithm::ES256);
    refused(
        &card,
        &anchors(&[&p.root]),
        &at_origin(),
        "certificate-untrusted",
        "digitalSignature",
    );
}

#[test]
fn a_crl_revokes_and_a_crl_that_does_not_list_the_leaf_does_not() {
    let p = pki();
    let card = dns_card(&p, Spec::leaf("agent").dns("agent.example").serial(4242));
    let trust = anchors(&[&p.root]);
    let revoked = VerifyOptions {
        crls: vec![a2a_card::signature::chain::read_crl(&p.int.crl(&[4242]), "int.crl").unwrap()],
        ..at_origin()
    };
    refused(&card, &trust, &revoked, "certificate-revoked", "revoked");
    let other = VerifyOptions {
        crls: vec![p.int.crl(&[7])],
        ..at_origin()
    };
    assert!(verify_card(&card, &trust, &other).unwrap().ok);
    assert_eq!(
        a2a_card::signature::chain::read_crl(
            b"-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n",
            "bad.crl"
        )
        .unwrap_err()
        .code()
        .as_str(),
        "certificate-malformed"
    );
}

#[test]
fn signing_refuses_a_chain_of_another_key_and_verifying_refuses_a_leaf_that_cannot_sign_so() {
    let p = pki();
    let leaf = p.int.issue(&Spec::leaf("agent").dns("agent.example"));
    let other = PrivateKey::generate(Algorithm::ES256).unwrap();
    let opts = SignOptions {
        x5c: vec![leaf.der.clone(), p.int.der.clone()],
        ..SignOptions::default()
    };
    let e = sign_card(CARD, &other, &opts).unwrap_err();
    assert_eq!(e.code().as_str(), "certificate-key-mismatch");
    assert!(opts.check(&other).is_err(), "checked before signing");
    // A card made by hand: an ES256 signature by another key under an Ed25519 leaf.
    let ed_leaf = p.int.issue(&Spec::leaf("agent").dns("agent.example").ed25519());
    let card = hand_signed(&[&ed_leaf, &p.int], &other, Algorithm::ES256);
    refused(
        &card,
        &anchors(&[&p.root]),
        &at_origin(),
        "certificate-key-mismatch",
        "Ed25519",
    );
    // The same algorithm, another key: the leaf's key is the one checked, and it fails.
    let card = hand_signed(&[&leaf, &p.int], &other, Algorithm::ES256);
    let r = verify_card(&card, &anchors(&[&p.root]), &at_origin()).unwrap();
    assert_eq!(verdict(&r).0, "signature-invalid");
    // x5c through the extra protected parameters would skip the check: refused.
    let sneaky = SignOptions {
        extra_protected: vec![(
            "x5c".into(),
            a2a_card::jose::x509::encode_x5c(std::slice::from_ref(&leaf.der)),
        )],
        ..SignOptions::default()
    };
    assert_eq!(
        sign_card(CARD, &other, &sneaky).unwrap_err().code().as_str(),
        "usage"
    );
}

#[test]
fn malformed_x5c_names_the_parameter_and_the_index() {
    let p = pki();
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let trust = anchors(&[&p.root]);
    let good = base64::engine::general_purpose::STANDARD.encode(&p.int.der);
    let url_safe = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&p.int.der);
    for (x5c, words) in [
        (serde_json::json!("AAAA"), "must be an array"),
        (serde_json::json!([]), "empty array"),
        (serde_json::json!([1]), "[0] must be a string"),
        (serde_json::json!(["!!!!"]), "[0] is not standard base64"),
        (
            serde_json::json!([good.clone(), url_safe]),
            "[1] is not standard base64",
        ),
        (
            serde_json::json!([good.clone(), "AAAA"]),
            "[1] is not a DER X.509 certificate",
        ),
        (
            serde_json::json!([
                good.clone(),
                good.clone(),
                good.clone(),
                good.clone(),
                good.clone()
            ]),
            "more than the limit of 4",
        ),
    ] {
        let card = hand_header(
            &serde_json::json!({"alg": "ES256", "kid": "k", "x5c": x5c}),
            &key,
            Algorithm::ES256,
        );
        let r = verify_card(&card, &trust, &at_origin()).unwrap();
        let (code, msg, ptr) = verdict(&r);
        assert!(code.starts_with("certificate-"), "{code}: {msg}");
        assert!(
            msg.contains("\"x5c\"") && msg.contains(words),
            "{msg:?} lacks {words:?}"
        );
        assert_eq!(ptr.as_deref(), Some("/signatures/0/protected"));
    }
}

#[test]
fn a_huge_certificate_is_refused_without_panic() {
    let p = pki();
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let huge = "A".repeat(200_000);
    let card = hand_header(
        &serde_json::json!({"alg": "ES256", "kid": "k", "x5c": [huge]}),
        &key,
        Algorithm::ES256,
    );
    let trust = anchors(&[&p.root]);
    let r = verify_card(&card, &trust, &at_origin()).unwrap();
    assert_eq!(verdict(&r).0, "header-too-large");
    let big = VerifyOptions {
        max_header_bytes: 1 << 20,
        limits: a2a_card::Limits {
            max_input_bytes: 1 << 22,
            ..Default::default()
        },
        ..at_origin()
    };
    let r = verify_card(&card, &trust, &big).unwrap();
    assert_eq!(verdict(&r).0, "certificate-malformed", "{}", verdict(&r).1);
    assert!(verdict(&r).1.contains("larger than the limit"));
}

#[test]
fn a_chain_longer_than_the_limit_is_refused_before_path_building() {
    let p = pki();
    let card = dns_card(&p, Spec::leaf("agent").dns("agent.example"));
    let opts = VerifyOptions {
        max_chain_len: 1,
        ..at_origin()
    };
    refused(
        &card,
        &anchors(&[&p.root]),
        &opts,
        "certificate-untrusted",
        "more than the limit of 1",
    );
}

#[test]
fn x5c_without_anchors_x5u_and_an_unprotected_x5c_are_never_trusted() {
    let p = pki();
    let leaf = p.int.issue(&Spec::leaf("agent").dns("agent.example"));
    let card = sign_with(&leaf, &[&leaf, &p.int]);
    refused(
        &card,
        &TrustStore::new(),
        &at_origin(),
        "certificate-untrusted",
        "no trust anchors",
    );
    // The root in the card itself changes nothing.
    let with_root = sign_with(&leaf, &[&leaf, &p.int, &p.root]);
    refused(
        &with_root,
        &TrustStore::new(),
        &at_origin(),
        "certificate-untrusted",
        "never a trust root",
    );
    // A key the verifier pinned under the kid stands by itself.
    let mut pinned = TrustStore::new();
    pinned.pin(key_of(&leaf).public().clone(), "pinned");
    assert!(verify_card(&card, &pinned, &at_origin()).unwrap().ok);
    // A kid never selects an anchor: the anchor is found by the chain, whatever the kid says.
    let key = key_of(&leaf);
    let x5u = hand_header(
        &serde_json::json!({"alg": "ES256", "kid": "k", "x5u": "https://agent.example/chain.pem"}),
        &key,
        Algorithm::ES256,
    );
    refused(
        &x5u,
        &anchors(&[&p.root]),
        &at_origin(),
        "certificate-untrusted",
        "\"x5u\" is never fetched",
    );
    let canonical = a2a_card::canonicalize(CARD, &Default::default()).unwrap().bytes;
    let x5c = vec![base64::engine::general_purpose::STANDARD.encode(&leaf.der)];
    let entry = signed_entry(
        &canonical,
        r#"{"alg":"ES256","kid":"k"}"#,
        Some(serde_json::json!({ "x5c": x5c })),
        |input| crypto::sign(Algorithm::ES256, &key, input).unwrap(),
    );
    let card = with_signatures(&serde_json::from_slice(CARD).unwrap(), vec![entry]);
    let r = verify_card(&card, &anchors(&[&p.root]), &at_origin()).unwrap();
    let (code, msg, ptr) = verdict(&r);
    assert_eq!(
        (code.as_str(), ptr.as_deref()),
        ("certificate-untrusted", Some("/signatures/0/header")),
        "{msg}"
    );
}

#[test]
fn trust_store_anchor_entries_carry_policy() {
    let p = pki();
    let card = dns_card(&p, Spec::leaf("svid").uri(SPIFFE).dns("agent.example"));
    let store = |extra: &str| {
        let text = format!(
            r#"{{"keys":[{{"certificate":{}{extra}}}]}}"#,
            serde_json::Value::from(p.root.pem.clone())
        );
        TrustStore::from_json(&text, "trust.json").unwrap()
    };
    assert!(verify_card(&card, &store(""), &at_origin()).unwrap().ok);
    let ids = store(&format!(r#","identities":["{SPIFFE}"]"#));
    let r = verify_card(&card, &ids, &VerifyOptions::default()).unwrap();
    assert!(r.ok, "{:?}", r.signatures[0].verdict);
    assert!(r.signatures[0]
        .certificate
        .as_ref()
        .unwrap()
        .identity
        .contains(SPIFFE));
    let wrong = store(r#","identityPrefixes":["spiffe://other.org/"]"#);
    refused(
        &card,
        &wrong,
        &at_origin(),
        "certificate-identity-mismatch",
        "anchor's identities",
    );
    refused(
        &card,
        &store(r#","revoked":true"#),
        &at_origin(),
        "certificate-revoked",
        "revoked",
    );
    refused(
        &card,
        &store(r#","notAfter":"2021-01-01T00:00:00Z""#),
        &at_origin(),
        "certificate-expired",
        "expired",
    );
    refused(
        &card,
        &store(r#","origins":["https://other.example"]"#),
        &at_origin(),
        "certificate-untrusted",
        "other.example",
    );
    assert!(
        verify_card(
            &card,
            &store(r#","origins":["https://agent.example"]"#),
            &at_origin()
        )
        .unwrap()
        .ok
    );
    refused(
        &card,
        &store(r#","algorithms":["EdDSA"]"#),
        &at_origin(),
        "algorithm-not-allowed",
        "ES256",
    );
    for (bad, at) in [
        (r#","kid":"k""#, "/keys/0/kid"),
        (
            r#","identityPrefixes":["spiffe://x"]"#,
            "/keys/0/identityPrefixes/0",
        ),
    ] {
        let text = format!(
            r#"{{"keys":[{{"certificate":{}{bad}}}]}}"#,
            serde_json::Value::from(p.root.pem.clone())
        );
        let e = TrustStore::from_json(&text, "trust.json").unwrap_err();
        assert_eq!(
            (e.code().as_str(), e.pointer()),
            ("invalid-trust-store", Some(at)),
            "{}",
            e.message()
        );
    }
    let e = TrustStore::from_json(r#"{"keys":[{"certificate":"nope"}]}"#, "trust.json").unwrap_err();
    assert_eq!(e.pointer(), Some("/keys/0/certificate"));
}

#[test]
fn a_chain_made_by_the_openssl_command_verifies() {
    if !a2a_card_testkit::tools::have_openssl() {
        return;
    }
    let dir = a2a_card_testkit::data::scratch("x5c-openssl");
    for (san, opts) in [
        ("DNS:agent.example", at_origin()),
        (
            "URI:spiffe://example.org/ns/a/sa/agent",
            VerifyOptions {
                identities: vec![Identity::parse(SPIFFE).unwrap()],
                ..VerifyOptions::default()
            },
        ),
    ] {
        let chain = pki::openssl_chain(&dir, san);
        let ders = a2a_card::jose::x509::certificates_from_pem(&chain.chain_pem).unwrap();
        let key = PrivateKey::from_pem(&chain.leaf_key_pem).unwrap();
        let signed = sign_card(
            CARD,
            &key,
            &SignOptions {
                x5c: ders,
                ..SignOptions::default()
            },
        )
        .unwrap();
        let mut trust = TrustStore::new();
        assert_eq!(
            trust
                .add_anchors_pem(&chain.root_pem, "openssl-root.pem")
                .unwrap(),
            1
        );
        let r = verify_card(&signed.card, &trust, &opts).unwrap();
        assert!(r.ok, "{san}: {:?}", r.signatures[0].verdict);
        assert_eq!(
            r.signatures[0].certificate.as_ref().unwrap().chain[0].serial,
            "1092"
        );
    }
}

#[test]
fn inspect_decodes_the_chain_without_trusting_it() {
    let p = pki();
    let card = dns_card(&p, Spec::leaf("agent").dns("agent.example").serial(4242));
    let i = a2a_card::inspect_card(&card, &Default::default()).unwrap();
    let x5c = &i.signatures[0].x5c;
    assert_eq!(x5c.len(), 2);
    assert_eq!(x5c[0].serial, "1092");
    assert_eq!(x5c[0].names, ["DNS:agent.example"]);
    assert!(x5c[1].ca);
    let text = i.to_text("card.json");
    assert!(text.contains("x5c [0]: subject \"CN=agent"), "{text}");
    assert!(text.contains("decoded only"), "{text}");
}

#[test]
fn the_x5c_vectors_get_their_verdicts() {
    let vectors = a2a_card_testkit::vectors::x5c_vectors();
    assert!(vectors.len() >= 12);
    let mut failures = Vec::new();
    for v in &vectors {
        let mut trust = TrustStore::new();
        for (pem, name) in &v.anchors {
            trust.add_anchors_pem(pem, name).unwrap();
        }
        let mut identities: Vec<Identity> =
            v.identities.iter().map(|i| Identity::parse(i).unwrap()).collect();
        identities.extend(v.identity_prefixes.iter().map(|p| Identity::prefix(p).unwrap()));
        let opts = VerifyOptions {
            now: Some(v.now),
            origin: v.origin.as_deref().map(|o| o.parse().unwrap()),
            identities,
            required_eku: v.required_eku.clone(),
            max_chain_len: v.max_chain.unwrap_or(a2a_card::signature::DEFAULT_MAX_CHAIN_LEN),
            ..VerifyOptions::default()
        };
        let r = verify_card(&v.card, &trust, &opts).unwrap();
        let (code, msg, ptr) = verdict(&r);
        if code != v.code || ptr != v.pointer || r.ok != (v.code == "valid") {
            failures.push(format!(
                "{}: expected {} at {:?}, got {code} at {ptr:?}: {msg}",
                v.id, v.code, v.pointer
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
