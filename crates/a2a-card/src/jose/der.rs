//! A tiny DER reader and writer: just enough ASN.1 for PKCS#8, SEC1, PKCS#1 and
//! SubjectPublicKeyInfo. Every failure is an `invalid-key` error; nothing here panics.

use crate::error::{Error, ErrorCode};

pub(crate) const TAG_INTEGER: u8 = 0x02;
pub(crate) const TAG_BIT_STRING: u8 = 0x03;
pub(crate) const TAG_OCTET_STRING: u8 = 0x04;
pub(crate) const TAG_NULL: u8 = 0x05;
pub(crate) const TAG_OID: u8 = 0x06;
pub(crate) const TAG_SEQUENCE: u8 = 0x30;
/// `[0]` constructed (EC parameters in SEC1, attributes in PKCS#8).
pub(crate) const TAG_CTX0: u8 = 0xa0;
/// `[1]` constructed (public key in SEC1).
pub(crate) const TAG_CTX1: u8 = 0xa1;
/// `[1]` primitive, IMPLICIT BIT STRING (public key in PKCS#8 v2 / RFC 5958).
pub(crate) const TAG_CTX1_PRIM: u8 = 0x81;

/// Object identifier contents (without tag and length).
pub(crate) mod oid {
    /// 1.2.840.113549.1.1.1 rsaEncryption
    pub const RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
    /// 1.2.840.113549.1.1.10 id-RSASSA-PSS
    pub const RSA_PSS: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a];
    /// 1.2.840.10045.2.1 id-ecPublicKey
    pub const EC_PUBLIC_KEY: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
    /// 1.2.840.10045.3.1.7 prime256v1 (P-256)
    pub const P256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
    /// 1.3.132.0.34 secp384r1 (P-384)
    pub const P384: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x22];
    /// 1.3.132.0.35 secp521r1 (P-521)
    pub const P521: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x23];
    /// 1.3.132.0.10 secp256k1
    pub const SECP256K1: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x0a];
    /// 1.3.101.112 Ed25519
    pub const ED25519: &[u8] = &[0x2b, 0x65, 0x70];
    /// 1.3.101.113 Ed448
    pub const ED448: &[u8] = &[0x2b, 0x65, 0x71];
    /// 1.3.101.110 X25519
    pub const X25519: &[u8] = &[0x2b, 0x65, 0x6e];
    /// 1.3.101.111 X448
    pub const X448: &[u8] = &[0x2b, 0x65, 0x6f];
}

fn bad(what: &str) -> Error {
    Error::new(
        ErrorCode::InvalidKey,
        format!("malformed DER key encoding: {what}"),
    )
}

/// Reads a sequence of DER TLVs from a slice.
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Reader { data, pos: 0 }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    pub(crate) fn peek_tag(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    /// Reads one TLV (single-byte tags only, definite minimal lengths).
    pub(crate) fn read_any(&mut self) -> Result<(u8, &'a [u8]), Error> {
        let tag = *self
            .data
            .get(self.pos)
            .ok_or_else(|| bad("unexpected end of data"))?;
        if tag & 0x1f == 0x1f {
            return Err(bad("multi-byte tags are not used in key encodings"));
        }
        let first = *self.data.get(self.pos + 1).ok_or_else(|| bad("missing length"))?;
        let mut cursor = self.pos + 2;
        let len: usize = if first < 0x80 {
            usize::from(first)
        } else {
            let count = usize::from(first & 0x7f);
            if count == 0 {
                return Err(bad("indefinite length is not DER"));
            }
            if count > 4 {
                return Err(bad("length too large"));
            }
            let bytes = self
                .data
                .get(cursor..cursor + count)
                .ok_or_else(|| bad("truncated length"))?;
            if bytes.first() == Some(&0) {
                return Err(bad("non-minimal length"));
            }
            let mut len = 0usize;
            for b in bytes {
                len = (len << 8) | usize::from(*b);
            }
            if len < 0x80 {
                return Err(bad("non-minimal length"));
            }
            cursor += count;
            len
        };
        let end = cursor.checked_add(len).ok_or_else(|| bad("length overflow"))?;
        let content = self
            .data
            .get(cursor..end)
            .ok_or_else(|| bad("content runs past the end of the data"))?;
        self.pos = end;
        Ok((tag, content))
    }

    /// Reads one TLV that must carry `tag`.
    pub(crate) fn read(&mut self, tag: u8, what: &str) -> Result<&'a [u8], Error> {
        let (t, content) = self.read_any()?;
        if t != tag {
            return Err(bad(&format!(
                "expected {what} (tag 0x{tag:02x}), found tag 0x{t:02x}"
            )));
        }
        Ok(content)
    }

    /// Reads a TLV with `tag` when the next tag is `tag`.
    pub(crate) fn read_optional(&mut self, tag: u8) -> Result<Option<&'a [u8]>, Error> {
        if self.peek_tag() == Some(tag) {
            let (_, content) = self.read_any()?;
            Ok(Some(content))
        } else {
            Ok(None)
        }
    }

    /// Reads a non-negative INTEGER and returns its magnitude without leading zeros
    /// (an empty slice for zero).
    pub(crate) fn read_uint(&mut self, what: &str) -> Result<&'a [u8], Error> {
        let content = self.read(TAG_INTEGER, what)?;
        uint_magnitude(content, what)
    }

    /// Reads a small non-negative INTEGER (a version number).
    pub(crate) fn read_small_uint(&mut self, what: &str) -> Result<u64, Error> {
        let mag = self.read_uint(what)?;
        if mag.len() > 8 {
            return Err(bad(&format!("{what} is too large")));
        }
        Ok(mag.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b)))
    }

    /// Reads a BIT STRING with no unused bits and returns its bytes.
    pub(crate) fn read_bit_string(&mut self, tag: u8, what: &str) -> Result<&'a [u8], Error> {
        let content = self.read(tag, what)?;
        bit_string_bytes(content, what)
    }

    /// Fails when data is left over.
    pub(crate) fn finish(&self, what: &str) -> Result<(), Error> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(bad(&format!("trailing data after {what}")))
        }
    }
}

/// The bytes of a BIT STRING's contents, which must have no unused bits.
pub(crate) fn bit_string_bytes<'a>(content: &'a [u8], what: &str) -> Result<&'a [u8], Error> {
    match content.split_first() {
        Some((0, rest)) => Ok(rest),
        Some(_) => Err(bad(&format!("{what} has unused bits"))),
        None => Err(bad(&format!("{what} is empty"))),
    }
}

fn uint_magnitude<'a>(content: &'a [u8], what: &str) -> Result<&'a [u8], Error> {
    match content {
        [] => Err(bad(&format!("{what} is an empty INTEGER"))),
        [first, ..] if first & 0x80 != 0 => Err(bad(&format!("{what} is negative"))),
        [0] => Ok(&content[1..]),
        [0, second, ..] if second & 0x80 == 0 => Err(bad(&format!("{what} is not minimally encoded"))),
        [0, rest @ ..] => Ok(rest),
        _ => Ok(content),
    }
}

/// One TLV with the given tag and contents.
pub(crate) fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(content.len() + 6);
    out.push(tag);
    let len = content.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes.iter().take_while(|b| **b == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(content);
    out
}

/// A SEQUENCE of already encoded parts.
pub(crate) fn sequence(parts: &[&[u8]]) -> Vec<u8> {
    tlv(TAG_SEQUENCE, &parts.concat())
}

/// A non-negative INTEGER from its big-endian magnitude (leading zeros allowed).
pub(crate) fn uint(magnitude: &[u8]) -> Vec<u8> {
    let trimmed: &[u8] = {
        let skip = magnitude.iter().take_while(|b| **b == 0).count();
        &magnitude[skip..]
    };
    let mut content = Vec::with_capacity(trimmed.len() + 1);
    if trimmed.first().is_none_or(|b| b & 0x80 != 0) {
        content.push(0);
    }
    content.extend_from_slice(trimmed);
    tlv(TAG_INTEGER, &content)
}

/// A BIT STRING with no unused bits.
pub(crate) fn bit_string(tag: u8, bytes: &[u8]) -> Vec<u8> {
    let mut content = Vec::with_capacity(bytes.len() + 1);
    content.push(0);
    content.extend_from_slice(bytes);
    tlv(tag, &content)
}

/// An AlgorithmIdentifier: the OID and optional parameters (already encoded).
pub(crate) fn algorithm_identifier(oid: &[u8], params: Option<&[u8]>) -> Vec<u8> {
    let o = tlv(TAG_OID, oid);
    match params {
        Some(p) => sequence(&[&o, p]),
        None => sequence(&[&o]),
    }
}

/// An OID's dotted form (`1.2.840.10045.2.1`), for messages.
pub(crate) fn dotted_oid(o: &[u8]) -> String {
    let mut parts: Vec<u64> = Vec::new();
    let mut acc: u64 = 0;
    for b in o {
        acc = (acc << 7) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            if parts.is_empty() {
                let first = (acc / 40).min(2);
                parts.push(first);
                parts.push(acc - first * 40);
            } else {
                parts.push(acc);
            }
            acc = 0;
        }
    }
    parts.iter().map(u64::to_string).collect::<Vec<_>>().join(".")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_lengths_and_integers() {
        for len in [0usize, 1, 127, 128, 255, 256, 70000] {
            let data = vec![7u8; len];
            let enc = tlv(TAG_OCTET_STRING, &data);
            let mut r = Reader::new(&enc);
            assert_eq!(r.read(TAG_OCTET_STRING, "x").unwrap(), &data[..]);
            assert!(r.finish("x").is_ok());
        }
        for mag in [&[][..], &[1][..], &[0x80][..], &[0, 0, 0x7f][..]] {
            let enc = uint(mag);
            let got = Reader::new(&enc).read_uint("n").unwrap();
            let skip = mag.iter().take_while(|b| **b == 0).count();
            assert_eq!(got, &mag[skip..]);
        }
    }

    #[test]
    fn refuses_bad_encodings() {
        // Non-minimal long length, indefinite length, truncated content, negative integer.
        for bad in [
            &[0x04, 0x81, 0x05, 1, 2, 3, 4, 5][..],
            &[0x30, 0x80, 0, 0][..],
            &[0x04, 0x05, 1, 2][..],
            &[0x02, 0x01, 0x80][..],
            &[0x02, 0x02, 0x00, 0x01][..],
        ] {
            let mut r = Reader::new(bad);
            let res = r.read_any().and_then(|(t, c)| {
                if t == TAG_INTEGER {
                    uint_magnitude(c, "i").map(|_| ())
                } else {
                    Ok(())
                }
            });
            assert_eq!(res.unwrap_err().code(), ErrorCode::InvalidKey, "{bad:?}");
        }
    }
}
