//! X.509 certificates as JOSE carries them: the `x5c` header parameter (RFC 7515 4.1.6: an
//! array of standard, padded base64 of DER certificates, the leaf first), `CERTIFICATE` PEM
//! bundles, and a summary of one certificate (subject, issuer, serial, validity, names, key
//! usage) for reports, `inspect` and the checks path validation leaves to its caller.
//!
//! This module does not decide trust: the path to an anchor, validity, basic constraints, name
//! constraints and revocation are `rustls-webpki`'s, called by `signature/chain.rs`. The summary
//! here is read with the crate's small DER reader because webpki exposes neither a readable
//! subject nor the key-usage bits of an end-entity certificate (it ignores them when it builds
//! a path, and JWS needs `digitalSignature`).
//!
//! ```
//! use a2a_card::jose::x509::decode_x5c;
//! let e = decode_x5c(&serde_json::json!(["AA=="])).unwrap_err();
//! assert_eq!(e.code().as_str(), "certificate-malformed");
//! assert!(e.message().starts_with("header parameter \"x5c\" [0]"));
//! ```

use crate::canonical::value::{from_serde, Value};
use crate::error::{Error, ErrorCode};
use crate::jose::der::{
    dotted_oid, Reader, TAG_BIT_STRING, TAG_INTEGER, TAG_OCTET_STRING, TAG_OID, TAG_SEQUENCE,
};
use base64::Engine as _;

/// The most certificates an `x5c` may carry before anything is decoded (a verifier's own
/// chain limit is usually lower, see `VerifyOptions::max_chain_len`).
pub const MAX_X5C_CERTIFICATES: usize = 16;

/// The largest certificate accepted, in bytes of DER (64 KiB): a larger one is refused before
/// it is parsed.
pub const MAX_CERTIFICATE_BYTES: usize = 65_536;

fn malformed(msg: String) -> Error {
    Error::new(ErrorCode::CertificateMalformed, msg)
}

/// Decodes the value of an `x5c` header parameter into DER certificates, leaf first: an
/// array of 1 to [`MAX_X5C_CERTIFICATES`] strings, each standard base64 with padding (not
/// base64url, RFC 7515 4.1.6) of one DER certificate. Errors are `certificate-malformed` and
/// name the parameter and the index (`header parameter "x5c" [1] ...`).
///
/// ```
/// use a2a_card::jose::x509::decode_x5c;
/// assert_eq!(decode_x5c(&serde_json::json!([])).unwrap_err().code().as_str(), "certificate-malformed");
/// ```
pub fn decode_x5c(value: &serde_json::Value) -> Result<Vec<Vec<u8>>, Error> {
    decode_x5c_value(&from_serde(value)?)
}

/// [`decode_x5c`] on the reader's own value.
pub(crate) fn decode_x5c_value(value: &Value) -> Result<Vec<Vec<u8>>, Error> {
    Ok(decode_x5c_summaries(value)?
        .into_iter()
        .map(|(der, _)| der)
        .collect())
}

/// [`decode_x5c`] with each certificate's summary.
pub(crate) fn decode_x5c_summaries(value: &Value) -> Result<Vec<(Vec<u8>, CertSummary)>, Error> {
    let Value::Array(items) = value else {
        return Err(malformed(format!(
            "header parameter \"x5c\" must be an array of base64 certificates, found {}",
            value.type_name()
        )));
    };
    if items.is_empty() {
        return Err(malformed(
            "header parameter \"x5c\" is an empty array; it must hold the leaf certificate first".into(),
        ));
    }
    if items.len() > MAX_X5C_CERTIFICATES {
        return Err(malformed(format!(
            "header parameter \"x5c\" holds {} certificates, more than the limit of {MAX_X5C_CERTIFICATES}",
            items.len()
        )));
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Some(text) = item.as_str() else {
            return Err(malformed(format!(
                "header parameter \"x5c\" [{i}] must be a string, found {}",
                item.type_name()
            )));
        };
        if text.len() > MAX_CERTIFICATE_BYTES.div_ceil(3) * 4 {
            return Err(malformed(format!(
                "header parameter \"x5c\" [{i}] is larger than the limit of {MAX_CERTIFICATE_BYTES} bytes"
            )));
        }
        let der = base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(|e| {
                malformed(format!(
                    "header parameter \"x5c\" [{i}] is not standard base64 with padding (RFC 7515 4.1.6; not base64url): {e}"
                ))
            })?;
        let s = summary(&der).map_err(|e| {
            malformed(format!(
                "header parameter \"x5c\" [{i}] is not a DER X.509 certificate: {}",
                e.message()
            ))
        })?;
        out.push((der, s));
    }
    Ok(out)
}

/// The `x5c` value for DER certificates: standard base64 with padding, in the order given.
///
/// ```
/// assert_eq!(a2a_card::jose::x509::encode_x5c(&[vec![0xff]]), serde_json::json!(["/w=="]));
/// ```
pub fn encode_x5c(chain: &[Vec<u8>]) -> serde_json::Value {
    chain
        .iter()
        .map(|der| serde_json::Value::from(base64::engine::general_purpose::STANDARD.encode(der)))
        .collect()
}

/// The DER certificates of `CERTIFICATE` PEM text, in order; other blocks (a private key) are
/// refused, so a bundle never silently carries something else. `invalid-key` for PEM that does
/// not read, `certificate-malformed` for a block that is not a certificate.
///
/// ```
/// let e = a2a_card::jose::x509::certificates_from_pem("no pem here").unwrap_err();
/// assert_eq!(e.code().as_str(), "certificate-malformed");
/// ```
pub fn certificates_from_pem(text: &str) -> Result<Vec<Vec<u8>>, Error> {
    let blocks = crate::jose::keys::pem_blocks(text)?;
    if blocks.is_empty() {
        return Err(malformed("no \"CERTIFICATE\" PEM block found".into()));
    }
    let mut out = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        if b.label != "CERTIFICATE" {
            return Err(malformed(format!(
                "PEM block {} is {}, not a \"CERTIFICATE\"",
                i + 1,
                crate::jose::keys::shown_label(&b.label)
            )));
        }
        let der = base64::engine::general_purpose::STANDARD
            .decode(&b.body)
            .map_err(|e| malformed(format!("PEM certificate {} is not base64: {e}", i + 1)))?;
        summary(&der).map_err(|e| {
            malformed(format!(
                "PEM certificate {} is not DER X.509: {}",
                i + 1,
                e.message()
            ))
        })?;
        out.push(der);
    }
    Ok(out)
}

/// What a certificate says, as far as reports and the checks beside path validation need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertSummary {
    /// The subject distinguished name, `CN=agent, O=Example` (RFC 4514 order reversed to the
    /// order written in the certificate; values escaped for printing).
    pub subject: String,
    /// The issuer distinguished name, same form.
    pub issuer: String,
    /// The serial number, lower-case hex.
    pub serial: String,
    /// notBefore, `YYYY-MM-DDTHH:MM:SSZ`.
    pub not_before: String,
    /// notAfter, same form.
    pub not_after: String,
    /// DNS names of the subjectAltName.
    pub dns_names: Vec<String>,
    /// URIs of the subjectAltName (a SPIFFE ID is one).
    pub uris: Vec<String>,
    /// IP addresses of the subjectAltName, written as text.
    pub ips: Vec<String>,
    /// Whether the basicConstraints say CA.
    pub is_ca: bool,
    /// The keyUsage bits as named flags; `None` when the extension is absent (any usage).
    pub key_usage: Option<Vec<&'static str>>,
    /// The extendedKeyUsage OIDs, dotted; `None` when absent.
    pub extended_key_usage: Option<Vec<String>>,
    /// The DER SubjectPublicKeyInfo.
    pub spki: Vec<u8>,
}

impl CertSummary {
    /// True when the keyUsage extension is absent or has `digitalSignature`.
    pub fn may_sign(&self) -> bool {
        self.key_usage
            .as_ref()
            .is_none_or(|u| u.contains(&"digitalSignature"))
    }
}

const KEY_USAGE_NAMES: [&str; 9] = [
    "digitalSignature",
    "nonRepudiation",
    "keyEncipherment",
    "dataEncipherment",
    "keyAgreement",
    "keyCertSign",
    "cRLSign",
    "encipherOnly",
    "decipherOnly",
];

/// Reads the summary of one DER certificate (one SEQUENCE, nothing after it).
///
/// ```
/// assert!(a2a_card::jose::x509::summary(&[0x30, 0x00]).is_err());
/// ```
pub fn summary(der: &[u8]) -> Result<CertSummary, Error> {
    let mut outer = Reader::new(der);
    let cert = outer.read(TAG_SEQUENCE, "Certificate")?;
    outer.finish("the certificate")?;
    let mut c = Reader::new(cert);
    let tbs = c.read(TAG_SEQUENCE, "TBSCertificate")?;
    c.read(TAG_SEQUENCE, "signatureAlgorithm")?;
    c.read(TAG_BIT_STRING, "signatureValue")?;
    c.finish("the signature")?;
    let mut t = Reader::new(tbs);
    t.read_optional(0xa0)?;
    let serial = t.read(TAG_INTEGER, "serialNumber")?;
    t.read(TAG_SEQUENCE, "signature")?;
    let issuer = t.read(TAG_SEQUENCE, "issuer")?;
    let validity = t.read(TAG_SEQUENCE, "validity")?;
    let subject = t.read(TAG_SEQUENCE, "subject")?;
    let (spki_tag, spki_content) = t.read_any()?;
    if spki_tag != TAG_SEQUENCE {
        return Err(bad_cert("subjectPublicKeyInfo is not a SEQUENCE"));
    }
    let spki = crate::jose::der::tlv(TAG_SEQUENCE, spki_content);
    let mut out = CertSummary {
        subject: dn_text(subject)?,
        issuer: dn_text(issuer)?,
        serial: serial.iter().map(|b| format!("{b:02x}")).collect(),
        not_before: String::new(),
        not_after: String::new(),
        dns_names: Vec::new(),
        uris: Vec::new(),
        ips: Vec::new(),
        is_ca: false,
        key_usage: None,
        extended_key_usage: None,
        spki,
    };
    let mut v = Reader::new(validity);
    out.not_before = time_text(&mut v)?;
    out.not_after = time_text(&mut v)?;
    t.read_optional(0x81)?;
    t.read_optional(0x82)?;
    if let Some(exts) = t.read_optional(0xa3)? {
        let mut seq = Reader::new(Reader::new(exts).read(TAG_SEQUENCE, "extensions")?);
        while !seq.is_empty() {
            let mut ext = Reader::new(seq.read(TAG_SEQUENCE, "extension")?);
            let oid = ext.read(TAG_OID, "extnID")?;
            ext.read_optional(0x01)?;
            let value = ext.read(TAG_OCTET_STRING, "extnValue")?;
            extension(&mut out, oid, value)?;
        }
    }
    t.finish("the TBSCertificate")?;
    Ok(out)
}

fn bad_cert(what: &str) -> Error {
    Error::new(ErrorCode::CertificateMalformed, what.to_string())
}

fn extension(out: &mut CertSummary, oid: &[u8], value: &[u8]) -> Result<(), Error> {
    match oid {
        // 2.5.29.15 keyUsage
        [0x55, 0x1d, 0x0f] => {
            let bits = Reader::new(value).read(TAG_BIT_STRING, "keyUsage")?;
            let bytes = bits.get(1..).unwrap_or_default();
            let names = KEY_USAGE_NAMES
                .iter()
                .enumerate()
                .filter(|(i, _)| bytes.get(i / 8).is_some_and(|b| b & (0x80 >> (i % 8)) != 0))
                .map(|(_, n)| *n)
                .collect();
            out.key_usage = Some(names);
        }
        // 2.5.29.37 extKeyUsage
        [0x55, 0x1d, 0x25] => {
            let mut seq = Reader::new(Reader::new(value).read(TAG_SEQUENCE, "extKeyUsage")?);
            let mut oids = Vec::new();
            while !seq.is_empty() {
                oids.push(dotted_oid(seq.read(TAG_OID, "KeyPurposeId")?));
            }
            out.extended_key_usage = Some(oids);
        }
        // 2.5.29.19 basicConstraints
        [0x55, 0x1d, 0x13] => {
            let mut seq = Reader::new(Reader::new(value).read(TAG_SEQUENCE, "basicConstraints")?);
            out.is_ca = seq.read_optional(0x01)?.is_some_and(|b| b.first() == Some(&0xff));
        }
        // 2.5.29.17 subjectAltName
        [0x55, 0x1d, 0x11] => {
            let mut seq = Reader::new(Reader::new(value).read(TAG_SEQUENCE, "subjectAltName")?);
            while !seq.is_empty() {
                let (tag, name) = seq.read_any()?;
                let text = || String::from_utf8_lossy(name).into_owned();
                match tag {
                    0x82 => out.dns_names.push(text()),
                    0x86 => out.uris.push(text()),
                    0x87 => out.ips.push(ip_text(name)),
                    _ => {}
                }
            }
        }
        _ => {}
    }
    Ok(())
}

fn ip_text(b: &[u8]) -> String {
    match b.len() {
        4 => std::net::Ipv4Addr::new(b[0], b[1], b[2], b[3]).to_string(),
        16 => {
            let mut a = [0u8; 16];
            a.copy_from_slice(b);
            std::net::Ipv6Addr::from(a).to_string()
        }
        _ => format!("(an address of {} bytes)", b.len()),
    }
}

fn attribute_name(oid: &[u8]) -> Option<&'static str> {
    Some(match oid {
        [0x55, 0x04, 0x03] => "CN",
        [0x55, 0x04, 0x05] => "serialNumber",
        [0x55, 0x04, 0x06] => "C",
        [0x55, 0x04, 0x07] => "L",
        [0x55, 0x04, 0x08] => "ST",
        [0x55, 0x04, 0x0a] => "O",
        [0x55, 0x04, 0x0b] => "OU",
        _ => return None,
    })
}

/// A Name as text: each attribute `TYPE=value`, in the order written, joined by `, `.
fn dn_text(name: &[u8]) -> Result<String, Error> {
    let mut parts = Vec::new();
    let mut rdns = Reader::new(name);
    while !rdns.is_empty() {
        let mut set = Reader::new(rdns.read(0x31, "RelativeDistinguishedName")?);
        while !set.is_empty() {
            let mut atv = Reader::new(set.read(TAG_SEQUENCE, "AttributeTypeAndValue")?);
            let oid = atv.read(TAG_OID, "attribute type")?;
            let (_, value) = atv.read_any()?;
            let name = attribute_name(oid).map_or_else(|| dotted_oid(oid), str::to_string);
            let value: String = String::from_utf8_lossy(value)
                .chars()
                .map(|c| if c.is_control() { '?' } else { c })
                .collect();
            parts.push(format!("{name}={value}"));
        }
    }
    Ok(parts.join(", "))
}

fn time_text(r: &mut Reader<'_>) -> Result<String, Error> {
    let (tag, t) = r.read_any()?;
    let t = std::str::from_utf8(t).map_err(|_| bad_cert("a validity time is not ASCII"))?;
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let (year, rest) = match (tag, t.len()) {
        (0x17, 13) if t.ends_with('Z') && digits(&t[..12]) => {
            let yy: u32 = t[..2].parse().unwrap_or(0);
            (if yy < 50 { 2000 + yy } else { 1900 + yy }, &t[2..12])
        }
        (0x18, 15) if t.ends_with('Z') && digits(&t[..14]) => (t[..4].parse().unwrap_or(0), &t[4..14]),
        _ => {
            return Err(bad_cert(
                "a validity time is neither UTCTime nor GeneralizedTime in UTC",
            ))
        }
    };
    Ok(format!(
        "{year:04}-{}-{}T{}:{}:{}Z",
        &rest[0..2],
        &rest[2..4],
        &rest[4..6],
        &rest[6..8],
        &rest[8..10]
    ))
}
