//! DER SubjectPublicKeyInfo (and PKCS#1 `RSAPublicKey`) reading: which key type an algorithm
//! identifier names, and the public material.

use super::kind::KeyType;
use super::public::PublicMaterial;
use super::public::{rsa_kind, validate_public, Src};
use crate::error::{Error, ErrorCode};
use crate::jose::der::{self, dotted_oid, oid, Reader};

pub(super) fn unsupported_oid(o: &[u8]) -> Error {
    let name = if o == oid::X25519 || o == oid::X448 {
        " (a key-agreement key, it cannot sign)".to_string()
    } else if o == oid::RSA_PSS {
        " (RSASSA-PSS-restricted RSA key; use a plain rsaEncryption key)".to_string()
    } else {
        String::new()
    };
    Error::new(
        ErrorCode::InvalidKey,
        format!("unsupported key algorithm OID {}{name}", dotted_oid(o)),
    )
}

/// Reads an AlgorithmIdentifier; returns the key type (RSA bits 0 until known).
pub(super) fn read_algorithm(r: &mut Reader<'_>) -> Result<KeyType, Error> {
    let alg_id = r.read(der::TAG_SEQUENCE, "AlgorithmIdentifier")?;
    let mut a = Reader::new(alg_id);
    let o = a.read(der::TAG_OID, "algorithm OID")?;
    let kind = if o == oid::RSA {
        if !a.is_empty() {
            a.read(der::TAG_NULL, "NULL parameters")?;
        }
        KeyType::Rsa { bits: 0 }
    } else if o == oid::EC_PUBLIC_KEY {
        if a.peek_tag() != Some(der::TAG_OID) {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "EC keys with explicit curve parameters are not supported; use a named curve",
            ));
        }
        let curve = a.read(der::TAG_OID, "named curve")?;
        KeyType::from_ec_oid(curve).ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidKey,
                format!("unsupported elliptic curve OID {}", dotted_oid(curve)),
            )
        })?
    } else if o == oid::ED25519 {
        KeyType::Ed25519
    } else if o == oid::ED448 {
        KeyType::Ed448
    } else {
        return Err(unsupported_oid(o));
    };
    a.finish("AlgorithmIdentifier")?;
    Ok(kind)
}

pub(super) fn parse_spki(der_bytes: &[u8]) -> Result<(KeyType, PublicMaterial), Error> {
    let mut outer = Reader::new(der_bytes);
    let body = outer.read(der::TAG_SEQUENCE, "SubjectPublicKeyInfo")?;
    outer.finish("SubjectPublicKeyInfo")?;
    let mut r = Reader::new(body);
    let kind = read_algorithm(&mut r)?;
    let key = r.read_bit_string(der::TAG_BIT_STRING, "subjectPublicKey")?;
    r.finish("SubjectPublicKeyInfo")?;
    let (kind, material) = match kind {
        KeyType::Rsa { .. } => {
            let (n, e) = parse_rsa_public(key)?;
            let m = PublicMaterial::Rsa { n, e };
            (rsa_kind(&m), m)
        }
        KeyType::Ed25519 | KeyType::Ed448 => (kind, PublicMaterial::Okp { x: key.to_vec() }),
        _ => (kind, ec_point(kind, key)?),
    };
    validate_public(kind, &material, Src::Der)?;
    Ok((kind, material))
}

pub(super) fn ec_point(kind: KeyType, point: &[u8]) -> Result<PublicMaterial, Error> {
    let len = kind.field_len();
    match point.split_first() {
        Some((4, rest)) if rest.len() == 2 * len => Ok(PublicMaterial::Ec {
            x: rest.get(..len).unwrap_or_default().to_vec(),
            y: rest.get(len..).unwrap_or_default().to_vec(),
        }),
        Some((2 | 3, _)) => Err(Error::new(
            ErrorCode::InvalidKey,
            "compressed EC points are not supported; use the uncompressed form",
        )),
        _ => Err(Error::new(
            ErrorCode::InvalidKey,
            format!("a {kind} public point is 0x04 followed by {} bytes", 2 * len),
        )),
    }
}

pub(super) fn parse_rsa_public(der_bytes: &[u8]) -> Result<(Vec<u8>, Vec<u8>), Error> {
    let mut outer = Reader::new(der_bytes);
    let body = outer.read(der::TAG_SEQUENCE, "RSAPublicKey")?;
    outer.finish("RSAPublicKey")?;
    let mut r = Reader::new(body);
    let n = r.read_uint("modulus")?.to_vec();
    let e = r.read_uint("publicExponent")?.to_vec();
    r.finish("RSAPublicKey")?;
    Ok((n, e))
}

/// Refuses a certificate's SubjectPublicKeyInfo whose key the key rules call weak (`weak-key`:
/// RSA under 2048 bits, a small-order Ed25519 or Ed448 point), and nothing else: a key of a
/// kind this crate does not read is left to the certificate path validation, which decides
/// whether it can sign. For trust anchors and intermediate certificates, whose keys sign
/// certificates rather than cards.
pub(crate) fn refuse_weak_spki(der_bytes: &[u8]) -> Result<(), Error> {
    match parse_spki(der_bytes) {
        Err(e) if e.code() == ErrorCode::WeakKey => Err(e),
        _ => Ok(()),
    }
}
