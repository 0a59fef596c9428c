//! Strict base64url (RFC 4648 section 5, no padding), as JWS requires (RFC 7515 section 2).
//!
//! Decoding refuses padding (`=`), whitespace, characters of the standard alphabet (`+`, `/`),
//! impossible lengths (4n+1 characters) and non-canonical trailing bits, so that every byte
//! string has exactly one accepted spelling.
//!
//! ```text
//! use a2a_card::b64;
//! assert_eq!(b64::encode(b"hi?"), "aGk_");
//! assert_eq!(b64::decode_strict("aGk_").unwrap(), b"hi?");
//! assert_eq!(b64::decode_strict("aGk=").unwrap_err().code().as_str(), "invalid-base64url");
//! ```

use crate::error::{Error, ErrorCode};

/// The base64url alphabet.
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Not a base64url character, in [`VALUES`].
const INVALID: u8 = 0xFF;

/// The 6-bit value of every byte that is a base64url character, [`INVALID`] for the others.
static VALUES: [u8; 256] = {
    let mut t = [INVALID; 256];
    let mut i = 0;
    while i < 64 {
        t[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    t
};

/// Encodes bytes as base64url without padding.
///
/// ```text
/// assert_eq!(a2a_card::b64::encode([0xfb, 0xff]), "-_8");
/// assert_eq!(a2a_card::b64::encode(b""), "");
/// ```
pub fn encode(bytes: impl AsRef<[u8]>) -> String {
    base64_simd::URL_SAFE_NO_PAD.encode_to_string(bytes)
}

/// Appends the base64url form of `bytes` (no padding) to `out`, without an intermediate string.
/// A signing input is mostly this encoding of the canonical card, so it is `base64-simd`'s:
/// AVX2, SSSE3 or NEON natively (chosen when the program starts, a scalar path otherwise), and
/// WebAssembly SIMD in the npm package (built with `simd128`). On the 8.5 sample it takes about
/// a fifth of the instructions of the table encoder it replaces (BENCHMARKS.md).
///
/// ```text
/// let mut out = b"x.".to_vec();
/// a2a_card::b64::encode_into(&mut out, b"hi?");
/// assert_eq!(out, b"x.aGk_");
/// ```
#[inline]
pub fn encode_into(out: &mut Vec<u8>, bytes: &[u8]) {
    base64_simd::URL_SAFE_NO_PAD.encode_append(bytes, out);
}

/// Decodes strict base64url: the URL-safe alphabet only, no padding, no whitespace, and the
/// unused low bits of the last character must be zero. Errors carry code `invalid-base64url`
/// and the byte offset of the problem.
///
/// ```text
/// use a2a_card::b64::decode_strict;
/// assert_eq!(decode_strict("-_8").unwrap(), vec![0xfb, 0xff]);
/// // `+` and `/` belong to the standard alphabet, not base64url.
/// assert!(decode_strict("+/8").is_err());
/// // "-_9" decodes to the same bytes with non-zero unused bits: refused.
/// assert!(decode_strict("-_9").is_err());
/// // One character cannot encode a byte.
/// assert!(decode_strict("QUJDR").is_err());
/// ```
pub fn decode_strict(s: &str) -> Result<Vec<u8>, Error> {
    let input = s.as_bytes();
    if let Some(pos) = input.iter().position(|&c| VALUES[usize::from(c)] == INVALID) {
        let c = s.get(pos..).and_then(|t| t.chars().next()).unwrap_or('?');
        let why = match c {
            '=' => "padding '=' is not allowed in base64url".to_string(),
            '+' | '/' => format!("'{c}' belongs to standard base64, base64url uses '-' and '_'"),
            c if c.is_whitespace() => "whitespace is not allowed in base64url".to_string(),
            c => format!("character {c:?} is not in the base64url alphabet"),
        };
        return Err(Error::new(ErrorCode::InvalidBase64url, why).at_offset(pos));
    }
    if input.len() % 4 == 1 {
        return Err(Error::new(
            ErrorCode::InvalidBase64url,
            format!(
                "base64url text of {} characters is impossible (a length of 4n+1 encodes no whole byte)",
                input.len()
            ),
        )
        .at_offset(input.len().saturating_sub(1)));
    }
    // Whole groups of four by array patterns into a zeroed vector of the final length: no call
    // per group at opt-level "z" (the npm package).
    let v = |c: u8| u32::from(VALUES[usize::from(c)]);
    let rest = input.len() % 4;
    let mut out = vec![0u8; input.len() / 4 * 3 + rest.saturating_sub(1)];
    let (mut i, mut o) = (0, 0);
    while let (Some(&[a, b, c, d]), Some([x, y, z])) = (input.get(i..i + 4), out.get_mut(o..o + 3)) {
        let n = v(a) << 18 | v(b) << 12 | v(c) << 6 | v(d);
        (*x, *y, *z) = ((n >> 16) as u8, (n >> 8) as u8, n as u8);
        i += 4;
        o += 3;
    }
    // Two or three characters left: one or two bytes, and bits that must be zero.
    let (n, unused) = match *input.get(i..).unwrap_or_default() {
        [a, b] => (v(a) << 18 | v(b) << 12, 0x00_ffff),
        [a, b, c] => (v(a) << 18 | v(b) << 12 | v(c) << 6, 0x00_00ff),
        _ => (0, 0),
    };
    if n & unused != 0 {
        return Err(Error::new(
            ErrorCode::InvalidBase64url,
            "non-canonical base64url: the unused low bits of the last character are not zero",
        )
        .at_offset(input.len() - 1));
    }
    for (k, byte) in out.iter_mut().skip(o).enumerate() {
        *byte = (n >> (16 - 8 * k)) as u8;
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_length() {
        let data: Vec<u8> = (0u8..=255).collect();
        for len in 0..70 {
            let enc = encode(&data[..len]);
            assert!(!enc.contains('='));
            assert_eq!(decode_strict(&enc).unwrap(), &data[..len]);
        }
    }

    /// The encoder agrees with the `base64` crate at every length around its 12-byte
    /// blocks and its tails, on bytes covering every 6-bit value, appending after a prefix.
    #[test]
    fn encoding_matches_the_base64_crate() {
        use base64::Engine;
        let data: Vec<u8> = (0u32..600)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
            .collect();
        for len in 0..data.len() {
            let expected = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&data[..len]);
            let mut out = b"head.".to_vec();
            encode_into(&mut out, &data[..len]);
            assert_eq!(&out[..5], b"head.");
            assert_eq!(std::str::from_utf8(&out[5..]).unwrap(), expected, "length {len}");
            assert_eq!(encode(&data[..len]), expected);
        }
    }

    #[test]
    fn refuses_loose_forms() {
        for bad in [
            "AA==", "AA=", "A", "AB C", "AB\n", "AB+/", "QR", "QUF", "Zm9vYg=", "é",
        ] {
            let err = decode_strict(bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidBase64url, "{bad}");
        }
        // Canonical counterparts of the non-canonical tails above.
        assert_eq!(decode_strict("QQ").unwrap(), b"A");
        assert_eq!(decode_strict("QUE").unwrap(), b"AA");
    }
}
