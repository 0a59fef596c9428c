//! PEM text (RFC 7468): finding the blocks whatever became of the line breaks, naming labels
//! without ever showing key material, and reading the key inside.

use super::pkcs8::{parse_pkcs1_private, parse_pkcs8, parse_private_der, parse_sec1};
use super::private::PrivateKey;
use super::public::{rsa_kind, validate_public, PublicKey, PublicMaterial, Src};
use super::spki::{parse_rsa_public, parse_spki};
use crate::error::{Error, ErrorCode};

impl PublicKey {
    /// Reads a public key from PEM: `PUBLIC KEY` (SubjectPublicKeyInfo) or `RSA PUBLIC KEY`
    /// (PKCS#1). A private-key PEM is accepted too and yields its public half.
    ///
    /// ```
    /// let pem = "-----BEGIN PUBLIC KEY-----
    /// MCowBQYDK2VwAyEAfU0Of2FTpptiQrUiq77mhf2kQg+INLEIw72uNp71Sfo=
    /// -----END PUBLIC KEY-----";
    /// let key = a2a_card::jose::keys::PublicKey::from_pem(pem).unwrap();
    /// assert_eq!(key.key_type(), a2a_card::jose::keys::KeyType::Ed25519);
    /// ```
    pub fn from_pem(text: &str) -> Result<PublicKey, Error> {
        match pem_key(text)? {
            PemKey::Public(key) => Ok(key),
            PemKey::Private(key) => Ok(key.public),
        }
    }

    /// Reads a DER SubjectPublicKeyInfo.
    pub fn from_spki_der(der: &[u8]) -> Result<PublicKey, Error> {
        let (kind, material) = parse_spki(der)?;
        Ok(PublicKey::assemble(kind, material, None, None))
    }

    /// The `PUBLIC KEY` PEM (SubjectPublicKeyInfo).
    pub fn to_spki_pem(&self) -> String {
        pem_encode("PUBLIC KEY", &self.to_spki_der())
    }
}

impl PrivateKey {
    /// Reads a private key from PEM: PKCS#8 v1 or v2 (`PRIVATE KEY`), SEC1 (`EC PRIVATE KEY`)
    /// or PKCS#1 (`RSA PRIVATE KEY`). Encrypted PEM fails with `encrypted-key`.
    ///
    /// ```
    /// let pem = "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMAA=\n-----END ENCRYPTED PRIVATE KEY-----\n";
    /// let err = a2a_card::jose::keys::PrivateKey::from_pem(pem).unwrap_err();
    /// assert_eq!(err.code().as_str(), "encrypted-key");
    /// ```
    pub fn from_pem(text: &str) -> Result<PrivateKey, Error> {
        match pem_key(text)? {
            PemKey::Private(key) => Ok(key),
            PemKey::Public(_) => Err(Error::new(
                ErrorCode::InvalidKey,
                "this PEM holds a public key; signing needs a private key",
            )),
        }
    }

    /// Reads a DER private key: PKCS#8 (v1 or v2), SEC1 `ECPrivateKey` (with its curve
    /// parameters) or PKCS#1 `RSAPrivateKey`.
    pub fn from_der(der: &[u8]) -> Result<PrivateKey, Error> {
        parse_private_der(der, None)
    }

    /// The `PRIVATE KEY` PEM (PKCS#8 v1).
    ///
    /// ```
    /// use a2a_card::{Algorithm, PrivateKey};
    /// let key = PrivateKey::generate(Algorithm::ES384).unwrap();
    /// let again = PrivateKey::from_pem(&key.to_pkcs8_pem()).unwrap();
    /// assert_eq!(again.public().material(), key.public().material());
    /// ```
    pub fn to_pkcs8_pem(&self) -> String {
        pem_encode("PRIVATE KEY", &self.to_pkcs8_der())
    }
}

// ---------------------------------------------------------------------------------------------
// PEM and DER
// ---------------------------------------------------------------------------------------------

pub(super) enum PemKey {
    Public(PublicKey),
    Private(PrivateKey),
}

pub(crate) struct PemBlock {
    pub(crate) label: String,
    pub(super) encrypted: bool,
    pub(crate) body: String,
}

/// PEM labels other than keys that are common in files next to keys: shown by name when a PEM
/// holds no key.
pub(super) const OTHER_LABELS: &[&str] = &[
    "CERTIFICATE",
    "TRUSTED CERTIFICATE",
    "X509 CRL",
    "CERTIFICATE REQUEST",
    "NEW CERTIFICATE REQUEST",
    "EC PARAMETERS",
    "DH PARAMETERS",
    "PGP PUBLIC KEY BLOCK",
    "PGP PRIVATE KEY BLOCK",
    "SSH2 PUBLIC KEY",
];

/// A PEM label as a message may show it: quoted when it is a known label or a short upper-case
/// token, otherwise only described. A label read from text that lost its line breaks can hold
/// a whole key body (`PRIVATE KEY-----MIGH...`), and no message may ever contain key material.
pub(crate) fn shown_label(label: &str) -> String {
    let token = label.len() <= 24
        && !label.is_empty()
        && label
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b' ');
    if KEY_LABELS.contains(&label) || OTHER_LABELS.contains(&label) || token {
        format!("{label:?}")
    } else {
        "with an unrecognized label".to_string()
    }
}

/// Splits PEM text into its blocks. The text is scanned for the encapsulation boundaries
/// (RFC 7468) rather than read line by line, so that a key whose line breaks were lost or
/// turned into spaces or CRs (as CI secrets often are) still reads: base64 never contains
/// `-`, so `-----` always ends a boundary. A leading byte-order mark is skipped. RFC 1421
/// header lines (`Proc-Type`, `DEK-Info`) mark a legacy encrypted key.
pub(crate) fn pem_blocks(text: &str) -> Result<Vec<PemBlock>, Error> {
    const BEGIN: &str = "-----BEGIN ";
    const DASHES: &str = "-----";
    let mut blocks = Vec::new();
    let mut rest = text.strip_prefix('\u{feff}').unwrap_or(text);
    while let Some(at) = rest.find(BEGIN) {
        let after = &rest[at + BEGIN.len()..];
        let Some(close) = after.find(DASHES) else {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "a PEM \"-----BEGIN\" boundary is not closed by \"-----\"",
            ));
        };
        let label = &after[..close];
        if label.contains(['\r', '\n']) {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "a PEM \"-----BEGIN\" boundary is broken across lines",
            ));
        }
        let inner = &after[close + DASHES.len()..];
        let end = format!("-----END {label}-----");
        let Some(end_at) = inner.find(&end) else {
            let other_end = inner.contains("-----END ");
            return Err(Error::new(
                ErrorCode::InvalidKey,
                if other_end {
                    format!(
                        "PEM block {} ends with an END boundary of another label",
                        shown_label(label)
                    )
                } else {
                    format!("PEM block {} has no END boundary", shown_label(label))
                },
            ));
        };
        let raw = &inner[..end_at];
        let mut body = String::with_capacity(raw.len());
        let mut encrypted = false;
        for line in raw.split(['\n', '\r']) {
            if let Some((name, value)) = line.split_once(':') {
                // An RFC 1421 header line. Base64 has no ':', so with the line breaks lost a
                // header that ran into the body is still recognized.
                if name.to_ascii_lowercase().contains("proc-type")
                    && value.to_ascii_uppercase().contains("ENCRYPTED")
                {
                    encrypted = true;
                }
                continue;
            }
            body.extend(line.chars().filter(|c| !c.is_ascii_whitespace()));
        }
        blocks.push(PemBlock {
            label: label.to_string(),
            encrypted,
            body,
        });
        rest = &inner[end_at + end.len()..];
    }
    Ok(blocks)
}

pub(super) const KEY_LABELS: &[&str] = &[
    "PRIVATE KEY",
    "EC PRIVATE KEY",
    "RSA PRIVATE KEY",
    "PUBLIC KEY",
    "RSA PUBLIC KEY",
    "ENCRYPTED PRIVATE KEY",
    "OPENSSH PRIVATE KEY",
];

pub(super) fn pem_key(text: &str) -> Result<PemKey, Error> {
    use base64::Engine as _;
    let blocks = pem_blocks(text)?;
    let keys: Vec<&PemBlock> = blocks
        .iter()
        .filter(|b| KEY_LABELS.contains(&b.label.as_str()))
        .collect();
    let block = match keys.as_slice() {
        [one] => *one,
        [] if blocks.is_empty() => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "no PEM block found (expected -----BEGIN ... KEY-----)",
            ))
        }
        [] => {
            let labels: Vec<String> = blocks.iter().map(|b| shown_label(&b.label)).collect();
            return Err(Error::new(
                ErrorCode::InvalidKey,
                format!("no key in this PEM; it holds {}", labels.join(", ")),
            ));
        }
        many => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                format!("this PEM holds {} keys; give exactly one", many.len()),
            ))
        }
    };
    if block.encrypted || block.label == "ENCRYPTED PRIVATE KEY" {
        return Err(Error::new(
            ErrorCode::EncryptedKey,
            "the private key is encrypted; decrypt it first (for example `openssl pkey -in key.pem -out plain.pem`)",
        ));
    }
    if block.label == "OPENSSH PRIVATE KEY" {
        return Err(Error::new(
            ErrorCode::InvalidKey,
            "OpenSSH private key format is not supported; convert it with `ssh-keygen -p -m PKCS8 -f key`",
        ));
    }
    let der = base64::engine::general_purpose::STANDARD
        .decode(block.body.as_bytes())
        .map_err(|e| {
            Error::new(
                ErrorCode::InvalidKey,
                format!(
                    "the body of PEM block {} is not valid base64 ({})",
                    shown_label(&block.label),
                    base64_problem(&e)
                ),
            )
        })?;
    match block.label.as_str() {
        "PUBLIC KEY" => PublicKey::from_spki_der(&der).map(PemKey::Public),
        "RSA PUBLIC KEY" => {
            let (n, e) = parse_rsa_public(&der)?;
            let material = PublicMaterial::Rsa { n, e };
            let kind = rsa_kind(&material);
            validate_public(kind, &material, Src::Der)?;
            Ok(PemKey::Public(PublicKey::assemble(kind, material, None, None)))
        }
        "EC PRIVATE KEY" => parse_sec1(&der, None).map(PemKey::Private),
        "RSA PRIVATE KEY" => parse_pkcs1_private(&der).map(PemKey::Private),
        _ => parse_pkcs8(&der).map(PemKey::Private),
    }
}

/// What is wrong with a PEM body, without showing any of it.
pub(super) fn base64_problem(e: &base64::DecodeError) -> String {
    match e {
        base64::DecodeError::InvalidByte(at, _) => format!("a character that is not base64 at position {at}"),
        base64::DecodeError::InvalidLength(_) => "its length is not that of base64 text".to_string(),
        base64::DecodeError::InvalidLastSymbol(at, _) => {
            format!("a final character that is not canonical at position {at}")
        }
        base64::DecodeError::InvalidPadding => "wrong padding".to_string(),
    }
}

pub(super) fn pem_encode(label: &str, der: &[u8]) -> String {
    use base64::Engine as _;
    let b = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for chunk in b.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(chunk).unwrap_or_default());
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}
