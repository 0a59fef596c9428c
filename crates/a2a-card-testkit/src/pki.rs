//! Certificate chains for the `x5c` tests, made two independent ways: by rcgen ([`Cert`],
//! every field the refusal tests need: validity, CA flag, path length, key usage, EKU, names,
//! name constraints, CRLs) and by the `openssl` command line ([`openssl_chain`]), so that the
//! verifier is not only checked against certificates of one library stack.
//!
//! ```
//! use a2a_card_testkit::pki::{Cert, Spec};
//! let root = Cert::root("Test Root");
//! let leaf = root.issue(&Spec::leaf("agent").dns("agent.example"));
//! assert!(leaf.pem.starts_with("-----BEGIN CERTIFICATE-----"));
//! assert!(leaf.key_pem.contains("PRIVATE KEY"));
//! ```

use rcgen::{
    BasicConstraints, CertificateParams, CertificateRevocationListParams, DnType, ExtendedKeyUsagePurpose,
    GeneralSubtree, IsCa, KeyIdMethod, KeyPair, KeyUsagePurpose, NameConstraints, RevokedCertParams, SanType,
    SerialNumber,
};
use std::path::Path;

/// What a certificate should say.
#[derive(Clone, Debug)]
pub struct Spec {
    cn: String,
    ca: Option<Option<u8>>,
    explicit_no_ca: bool,
    dns: Vec<String>,
    uris: Vec<String>,
    ips: Vec<std::net::IpAddr>,
    eku: Vec<ExtendedKeyUsagePurpose>,
    key_usage: Option<Vec<KeyUsagePurpose>>,
    valid: ((i32, u8, u8), (i32, u8, u8)),
    serial: u64,
    permitted_dns: Option<String>,
    ed25519: bool,
}

impl Spec {
    /// An end-entity certificate named `cn`, valid 2020 to 2099, key usage digitalSignature.
    pub fn leaf(cn: &str) -> Spec {
        Spec {
            cn: cn.to_string(),
            ca: None,
            explicit_no_ca: true,
            dns: Vec::new(),
            uris: Vec::new(),
            ips: Vec::new(),
            eku: Vec::new(),
            key_usage: Some(vec![KeyUsagePurpose::DigitalSignature]),
            valid: ((2020, 1, 1), (2099, 1, 1)),
            serial: 1000,
            permitted_dns: None,
            ed25519: false,
        }
    }

    /// A CA certificate (`pathlen`: its pathLenConstraint), valid 2020 to 2099.
    pub fn ca(cn: &str, pathlen: Option<u8>) -> Spec {
        Spec {
            ca: Some(pathlen),
            explicit_no_ca: false,
            key_usage: Some(vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign]),
            serial: 10,
            ..Spec::leaf(cn)
        }
    }

    /// An issuing certificate without the CA flag (basicConstraints CA:FALSE).
    pub fn not_ca(mut self) -> Spec {
        self.ca = None;
        self.explicit_no_ca = true;
        self
    }

    /// Adds a DNS SAN.
    pub fn dns(mut self, name: &str) -> Spec {
        self.dns.push(name.to_string());
        self
    }

    /// Adds a URI SAN (a SPIFFE ID).
    pub fn uri(mut self, uri: &str) -> Spec {
        self.uris.push(uri.to_string());
        self
    }

    /// Adds an IP SAN.
    pub fn ip(mut self, ip: std::net::IpAddr) -> Spec {
        self.ips.push(ip);
        self
    }

    /// Sets the EKU to serverAuth (`"server"`), clientAuth (`"client"`) or codeSigning (`"code"`).
    pub fn eku(mut self, names: &[&str]) -> Spec {
        self.eku = names
            .iter()
            .map(|n| match *n {
                "server" => ExtendedKeyUsagePurpose::ServerAuth,
                "client" => ExtendedKeyUsagePurpose::ClientAuth,
                "code" => ExtendedKeyUsagePurpose::CodeSigning,
                other => panic!("unknown EKU {other}"),
            })
            .collect();
        self
    }

    /// Key usage keyEncipherment only (no digitalSignature).
    pub fn no_digital_signature(mut self) -> Spec {
        self.key_usage = Some(vec![KeyUsagePurpose::KeyEncipherment]);
        self
    }

    /// Validity from `from` to `to` (year, month, day).
    pub fn valid(mut self, from: (i32, u8, u8), to: (i32, u8, u8)) -> Spec {
        self.valid = (from, to);
        self
    }

    /// The serial number.
    pub fn serial(mut self, n: u64) -> Spec {
        self.serial = n;
        self
    }

    /// A name constraint: only DNS names under `domain` are permitted.
    pub fn permit_dns(mut self, domain: &str) -> Spec {
        self.permitted_dns = Some(domain.to_string());
        self
    }

    /// An Ed25519 key instead of P-256.
    pub fn ed25519(mut self) -> Spec {
        self.ed25519 = true;
        self
    }

    fn params(&self) -> CertificateParams {
        let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
        p.distinguished_name.push(DnType::CommonName, self.cn.as_str());
        p.distinguished_name
            .push(DnType::OrganizationName, "a2a-card tests");
        p.is_ca = match self.ca {
            Some(Some(n)) => IsCa::Ca(BasicConstraints::Constrained(n)),
            Some(None) => IsCa::Ca(BasicConstraints::Unconstrained),
            None if self.explicit_no_ca => IsCa::ExplicitNoCa,
            None => IsCa::NoCa,
        };
        let mut sans: Vec<SanType> = self
            .dns
            .iter()
            .map(|d| SanType::DnsName(d.as_str().try_into().unwrap()))
            .collect();
        sans.extend(
            self.uris
                .iter()
                .map(|u| SanType::URI(u.as_str().try_into().unwrap())),
        );
        sans.extend(self.ips.iter().map(|ip| SanType::IpAddress(*ip)));
        p.subject_alt_names = sans;
        p.extended_key_usages = self.eku.clone();
        p.key_usages = self.key_usage.clone().unwrap_or_default();
        let ((y1, m1, d1), (y2, m2, d2)) = self.valid;
        p.not_before = rcgen::date_time_ymd(y1, m1, d1);
        p.not_after = rcgen::date_time_ymd(y2, m2, d2);
        p.serial_number = Some(SerialNumber::from(self.serial));
        if let Some(domain) = &self.permitted_dns {
            p.name_constraints = Some(NameConstraints {
                permitted_subtrees: vec![GeneralSubtree::DnsName(domain.clone())],
                excluded_subtrees: vec![],
            });
        }
        p
    }

    fn key(&self) -> KeyPair {
        if self.ed25519 {
            KeyPair::generate_for(&rcgen::PKCS_ED25519).unwrap()
        } else {
            KeyPair::generate().unwrap()
        }
    }
}

/// A certificate made by rcgen, with its key.
pub struct Cert {
    /// DER.
    pub der: Vec<u8>,
    /// PEM.
    pub pem: String,
    /// Its private key, PKCS#8 PEM (P-256 unless the spec said Ed25519).
    pub key_pem: String,
    cert: rcgen::Certificate,
    key: KeyPair,
}

impl Cert {
    /// A self-signed root CA named `cn` (no path length limit).
    pub fn root(cn: &str) -> Cert {
        Cert::self_signed(&Spec::ca(cn, None))
    }

    /// A self-signed certificate of `spec`.
    pub fn self_signed(spec: &Spec) -> Cert {
        let key = spec.key();
        let cert = spec.params().self_signed(&key).unwrap();
        Cert::of(cert, key)
    }

    /// A certificate of `spec` issued by this one.
    pub fn issue(&self, spec: &Spec) -> Cert {
        let key = spec.key();
        let cert = spec.params().signed_by(&key, &self.cert, &self.key).unwrap();
        Cert::of(cert, key)
    }

    /// A certificate of `spec` for the key of `other` (its public key), issued by this one.
    pub fn issue_for_key_of(&self, spec: &Spec, other: &Cert) -> Cert {
        let key = KeyPair::from_pem(&other.key_pem).unwrap();
        let cert = spec.params().signed_by(&key, &self.cert, &self.key).unwrap();
        Cert::of(cert, key)
    }

    /// The DER of a certificate of `spec` for the raw Ed25519 public key `x` (32 bytes, any
    /// value: no private key is needed, none is made), issued by this one. For keys no one
    /// holds the private half of, such as a small-order point.
    ///
    /// ```
    /// use a2a_card_testkit::pki::{Cert, Spec};
    /// let root = Cert::root("Test Root");
    /// let der = root.issue_for_ed25519_bytes(&Spec::leaf("agent"), &[9u8; 32]);
    /// assert_eq!(der[0], 0x30);
    /// ```
    pub fn issue_for_ed25519_bytes(&self, spec: &Spec, x: &[u8]) -> Vec<u8> {
        struct Raw<'a>(&'a [u8]);
        impl rcgen::PublicKeyData for Raw<'_> {
            fn der_bytes(&self) -> &[u8] {
                self.0
            }
            fn algorithm(&self) -> &rcgen::SignatureAlgorithm {
                &rcgen::PKCS_ED25519
            }
        }
        let cert = spec.params().signed_by(&Raw(x), &self.cert, &self.key).unwrap();
        cert.der().to_vec()
    }

    /// A v2 CRL issued by this CA listing `serials`, valid 2020 to 2099.
    pub fn crl(&self, serials: &[u64]) -> Vec<u8> {
        let params = CertificateRevocationListParams {
            this_update: rcgen::date_time_ymd(2020, 1, 1),
            next_update: rcgen::date_time_ymd(2099, 1, 1),
            crl_number: SerialNumber::from(1u64),
            issuing_distribution_point: None,
            revoked_certs: serials
                .iter()
                .map(|s| RevokedCertParams {
                    serial_number: SerialNumber::from(*s),
                    revocation_time: rcgen::date_time_ymd(2021, 1, 1),
                    reason_code: Some(rcgen::RevocationReason::KeyCompromise),
                    invalidity_date: None,
                })
                .collect(),
            key_identifier_method: KeyIdMethod::Sha256,
        };
        params.signed_by(&self.cert, &self.key).unwrap().der().to_vec()
    }

    fn of(cert: rcgen::Certificate, key: KeyPair) -> Cert {
        Cert {
            der: cert.der().to_vec(),
            pem: cert.pem(),
            key_pem: key.serialize_pem(),
            cert,
            key,
        }
    }
}

/// PEM of several certificates, in order (a chain file: leaf first).
pub fn bundle(certs: &[&Cert]) -> String {
    certs.iter().map(|c| c.pem.as_str()).collect()
}

/// A chain made by the `openssl` command line in `dir`: root, intermediate (pathlen 0), leaf
/// with the SAN `san` (`DNS:...` or `URI:...`), all P-256. Call only when
/// [`crate::tools::have_openssl`] says there is one.
pub struct OpensslChain {
    /// The root, PEM.
    pub root_pem: String,
    /// The leaf then the intermediate, PEM (what `sign --x5c` takes).
    pub chain_pem: String,
    /// The leaf's private key, PEM.
    pub leaf_key_pem: String,
}

/// Makes an [`OpensslChain`] in `dir` (see there).
pub fn openssl_chain(dir: &Path, san: &str) -> OpensslChain {
    use crate::tools::openssl;
    let ext = dir.join("ext.cnf");
    std::fs::write(
        &ext,
        format!(
            "[req]\ndistinguished_name=dn\n[dn]\n\
             [root]\nbasicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n\
             subjectKeyIdentifier=hash\n\
             [int]\nbasicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n\
             subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n\
             [leaf]\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n\
             extendedKeyUsage=serverAuth,clientAuth\nsubjectAltName={san}\nauthorityKeyIdentifier=keyid\n"
        ),
    )
    .unwrap();
    let p = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let e = p("ext.cnf");
    for name in ["root", "int", "leaf"] {
        openssl(&[
            "ecparam",
            "-name",
            "prime256v1",
            "-genkey",
            "-noout",
            "-out",
            &p(&format!("{name}.sec1")),
        ]);
        openssl(&[
            "pkcs8",
            "-topk8",
            "-nocrypt",
            "-in",
            &p(&format!("{name}.sec1")),
            "-out",
            &p(&format!("{name}.key")),
        ]);
    }
    for (name, cn) in [
        ("root", "OpenSSL Root"),
        ("int", "OpenSSL Intermediate"),
        ("leaf", "openssl agent"),
    ] {
        openssl(&[
            "req",
            "-new",
            "-key",
            &p(&format!("{name}.key")),
            "-subj",
            &format!("/CN={cn}"),
            "-config",
            &e,
            "-out",
            &p(&format!("{name}.csr")),
        ]);
    }
    openssl(&[
        "x509",
        "-req",
        "-in",
        &p("root.csr"),
        "-signkey",
        &p("root.key"),
        "-days",
        "3650",
        "-extfile",
        &e,
        "-extensions",
        "root",
        "-out",
        &p("root.pem"),
    ]);
    for (name, issuer, section) in [("int", "root", "int"), ("leaf", "int", "leaf")] {
        openssl(&[
            "x509",
            "-req",
            "-in",
            &p(&format!("{name}.csr")),
            "-CA",
            &p(&format!("{issuer}.pem")),
            "-CAkey",
            &p(&format!("{issuer}.key")),
            "-set_serial",
            if name == "int" { "77" } else { "4242" },
            "-days",
            "3650",
            "-extfile",
            &e,
            "-extensions",
            section,
            "-out",
            &p(&format!("{name}.pem")),
        ]);
    }
    let read = |n: &str| std::fs::read_to_string(dir.join(n)).unwrap();
    OpensslChain {
        root_pem: read("root.pem"),
        chain_pem: read("leaf.pem") + &read("int.pem"),
        leaf_key_pem: read("leaf.key"),
    }
}
