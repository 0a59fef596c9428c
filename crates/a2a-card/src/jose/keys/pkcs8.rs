//! DER private-key containers: PKCS#8 v1 and v2, SEC1 `ECPrivateKey` and PKCS#1
//! `RSAPrivateKey`.

use super::kind::KeyType;
use super::private::left_pad;
use super::private::{build_private, PrivateKey, Secret};
use super::public::rsa_kind;
use super::public::{PublicMaterial, Src};
use super::spki::{ec_point, read_algorithm};
use crate::error::{Error, ErrorCode};
use crate::jose::der::dotted_oid;
use crate::jose::der::{self, Reader};

/// Any DER private key: PKCS#8, PKCS#1 or SEC1, told apart by the element after the version
/// (`curve` names the curve of a SEC1 key that lacks parameters).
pub(super) fn parse_private_der(der_bytes: &[u8], curve: Option<KeyType>) -> Result<PrivateKey, Error> {
    let mut outer = Reader::new(der_bytes);
    let body = outer.read(der::TAG_SEQUENCE, "private key")?;
    let mut r = Reader::new(body);
    r.read(der::TAG_INTEGER, "version")?;
    match r.peek_tag() {
        Some(der::TAG_SEQUENCE) => parse_pkcs8(der_bytes),
        Some(der::TAG_INTEGER) => parse_pkcs1_private(der_bytes),
        Some(der::TAG_OCTET_STRING) => parse_sec1(der_bytes, curve),
        _ => Err(Error::new(
            ErrorCode::InvalidKey,
            "unrecognized DER private key (expected PKCS#8, PKCS#1 or SEC1)",
        )),
    }
}

pub(super) fn parse_pkcs8(der_bytes: &[u8]) -> Result<PrivateKey, Error> {
    let mut outer = Reader::new(der_bytes);
    let body = outer.read(der::TAG_SEQUENCE, "PrivateKeyInfo")?;
    outer.finish("PrivateKeyInfo")?;
    let mut r = Reader::new(body);
    let version = r.read_small_uint("version")?;
    if version > 1 {
        return Err(Error::new(
            ErrorCode::InvalidKey,
            format!("unsupported PKCS#8 version {version}"),
        ));
    }
    let kind = read_algorithm(&mut r)?;
    let private = r.read(der::TAG_OCTET_STRING, "privateKey")?;
    let _attributes = r.read_optional(der::TAG_CTX0)?;
    let v2_public = match r.read_optional(der::TAG_CTX1_PRIM)? {
        Some(bits) if version == 1 => Some(der::bit_string_bytes(bits, "publicKey")?.to_vec()),
        Some(_) => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "a PKCS#8 v1 key cannot carry a public key",
            ))
        }
        None => None,
    };
    r.finish("PrivateKeyInfo")?;
    match kind {
        KeyType::Rsa { .. } => parse_pkcs1_private(private),
        KeyType::Ed25519 | KeyType::Ed448 => {
            let mut inner = Reader::new(private);
            let d = inner.read(der::TAG_OCTET_STRING, "CurvePrivateKey")?.to_vec();
            inner.finish("CurvePrivateKey")?;
            if d.len() != kind.field_len() {
                return Err(Error::new(
                    ErrorCode::InvalidKey,
                    format!(
                        "a {kind} private key is {} bytes, this one is {}",
                        kind.field_len(),
                        d.len()
                    ),
                ));
            }
            let public = v2_public.map(|x| PublicMaterial::Okp { x });
            build_private(kind, public, Secret::Okp { d }, None, None, Src::Der)
        }
        _ => {
            let key = parse_sec1(private, Some(kind))?;
            if let Some(point) = v2_public {
                if ec_point(kind, &point)? != key.public.material {
                    return Err(Error::new(
                        ErrorCode::InvalidKey,
                        "the PKCS#8 public key does not match the private key",
                    ));
                }
            }
            Ok(key)
        }
    }
}

pub(super) fn parse_sec1(der_bytes: &[u8], curve: Option<KeyType>) -> Result<PrivateKey, Error> {
    let mut outer = Reader::new(der_bytes);
    let body = outer.read(der::TAG_SEQUENCE, "ECPrivateKey")?;
    outer.finish("ECPrivateKey")?;
    let mut r = Reader::new(body);
    if r.read_small_uint("version")? != 1 {
        return Err(Error::new(
            ErrorCode::InvalidKey,
            "ECPrivateKey version must be 1",
        ));
    }
    let d = r.read(der::TAG_OCTET_STRING, "privateKey")?;
    let params = r.read_optional(der::TAG_CTX0)?;
    let public = r.read_optional(der::TAG_CTX1)?;
    r.finish("ECPrivateKey")?;
    let named = match params {
        Some(p) => {
            let mut pr = Reader::new(p);
            if pr.peek_tag() != Some(der::TAG_OID) {
                return Err(Error::new(
                    ErrorCode::InvalidKey,
                    "EC keys with explicit curve parameters are not supported; use a named curve",
                ));
            }
            let o = pr.read(der::TAG_OID, "named curve")?;
            pr.finish("ECParameters")?;
            Some(KeyType::from_ec_oid(o).ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidKey,
                    format!("unsupported elliptic curve OID {}", dotted_oid(o)),
                )
            })?)
        }
        None => None,
    };
    let kind = match (named, curve) {
        (Some(a), Some(b)) if a != b => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "the ECPrivateKey curve differs from the algorithm's curve",
            ))
        }
        (Some(a), _) => a,
        (None, Some(b)) => b,
        (None, None) => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "the ECPrivateKey does not name its curve",
            ))
        }
    };
    let len = kind.field_len();
    if d.len() > len {
        return Err(Error::new(
            ErrorCode::InvalidKey,
            format!("a {kind} private scalar is {len} bytes, this one is {}", d.len()),
        ));
    }
    let d = left_pad(d, len);
    let public = match public {
        Some(p) => {
            let mut pr = Reader::new(p);
            let bits = pr.read_bit_string(der::TAG_BIT_STRING, "publicKey")?;
            pr.finish("publicKey")?;
            Some(ec_point(kind, bits)?)
        }
        None => None,
    };
    build_private(kind, public, Secret::Ec { d }, None, None, Src::Der)
}

pub(super) fn parse_pkcs1_private(der_bytes: &[u8]) -> Result<PrivateKey, Error> {
    let mut outer = Reader::new(der_bytes);
    let body = outer.read(der::TAG_SEQUENCE, "RSAPrivateKey")?;
    outer.finish("RSAPrivateKey")?;
    let mut r = Reader::new(body);
    match r.read_small_uint("version")? {
        0 => {}
        1 => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "multi-prime RSA keys are not supported",
            ))
        }
        v => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                format!("unsupported RSAPrivateKey version {v}"),
            ))
        }
    }
    let mut next = |what: &str| r.read_uint(what).map(<[u8]>::to_vec);
    let n = next("modulus")?;
    let e = next("publicExponent")?;
    let d = next("privateExponent")?;
    let p = next("prime1")?;
    let q = next("prime2")?;
    let dp = next("exponent1")?;
    let dq = next("exponent2")?;
    let qi = next("coefficient")?;
    r.finish("RSAPrivateKey")?;
    let material = PublicMaterial::Rsa { n, e };
    let kind = rsa_kind(&material);
    build_private(
        kind,
        Some(material),
        Secret::Rsa { d, p, q, dp, dq, qi },
        None,
        None,
        Src::Der,
    )
}
