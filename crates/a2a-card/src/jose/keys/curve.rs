//! Curve arithmetic for validating public points and private scalars only (not constant time:
//! it handles public data).

use super::kind::KeyType;
use std::cmp::Ordering;

/// Little-endian 64-bit limbs.
type Big = Vec<u64>;

pub(super) fn from_be(bytes: &[u8]) -> Big {
    let mut out = Vec::with_capacity(bytes.len() / 8 + 1);
    for chunk in bytes.rchunks(8) {
        out.push(chunk.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b)));
    }
    trim(out)
}

pub(super) fn from_hex(hex: &str) -> Big {
    let digits: Vec<u8> = hex
        .bytes()
        .filter_map(|c| (c as char).to_digit(16).map(|d| d as u8))
        .collect();
    let mut bytes = Vec::with_capacity(digits.len() / 2 + 1);
    let odd = digits.len() % 2;
    if odd == 1 {
        bytes.push(digits.first().copied().unwrap_or(0));
    }
    for pair in digits.get(odd..).unwrap_or_default().chunks(2) {
        let hi = pair.first().copied().unwrap_or(0);
        let lo = pair.get(1).copied().unwrap_or(0);
        bytes.push(hi << 4 | lo);
    }
    from_be(&bytes)
}

pub(super) fn trim(mut v: Big) -> Big {
    while v.last() == Some(&0) {
        v.pop();
    }
    v
}

pub(super) fn cmp(a: &Big, b: &Big) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.iter().rev().cmp(b.iter().rev()))
}

pub(super) fn add(a: &Big, b: &Big) -> Big {
    let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
    let mut carry = 0u128;
    for i in 0..a.len().max(b.len()) {
        let s =
            u128::from(a.get(i).copied().unwrap_or(0)) + u128::from(b.get(i).copied().unwrap_or(0)) + carry;
        out.push(s as u64);
        carry = s >> 64;
    }
    out.push(carry as u64);
    trim(out)
}

/// a - b for a >= b.
pub(super) fn sub(a: &Big, b: &Big) -> Big {
    let mut out = Vec::with_capacity(a.len());
    let mut borrow = 0i128;
    for (i, limb) in a.iter().enumerate() {
        let mut d = i128::from(*limb) - i128::from(b.get(i).copied().unwrap_or(0)) - borrow;
        borrow = 0;
        if d < 0 {
            d += 1i128 << 64;
            borrow = 1;
        }
        out.push(d as u64);
    }
    trim(out)
}

pub(super) fn mul(a: &Big, b: &Big) -> Big {
    let mut out = vec![0u64; a.len() + b.len() + 1];
    for (i, x) in a.iter().enumerate() {
        let mut carry = 0u128;
        for (j, y) in b.iter().enumerate() {
            if let Some(slot) = out.get_mut(i + j) {
                let t = u128::from(*x) * u128::from(*y) + u128::from(*slot) + carry;
                *slot = t as u64;
                carry = t >> 64;
            }
        }
        let mut k = i + b.len();
        while carry != 0 {
            if let Some(slot) = out.get_mut(k) {
                let t = u128::from(*slot) + carry;
                *slot = t as u64;
                carry = t >> 64;
                k += 1;
            } else {
                break;
            }
        }
    }
    trim(out)
}

/// a mod m, by shift-and-subtract in place (no allocation per bit: a public point is checked
/// on every key read, an `x5c` leaf's on every verification).
pub(super) fn reduce(a: &Big, m: &Big) -> Big {
    // r < m always, so 2r + 1 fits in one limb more than m. The top limbs of a, one fewer than
    // m has, are below m already: r starts from them.
    let mut r: Big = vec![0u64; m.len() + 1];
    let k = a.len().min(m.len().saturating_sub(1));
    let rest = a.len() - k;
    r[..k].copy_from_slice(&a[rest..]);
    for i in (0..rest * 64).rev() {
        let bit = a.get(i / 64).map_or(0, |l| (l >> (i % 64)) & 1);
        // r = 2r + bit
        let mut carry = bit;
        for limb in r.iter_mut() {
            let next = *limb >> 63;
            *limb = (*limb << 1) | carry;
            carry = next;
        }
        if !less_than(&r, m) {
            sub_in_place(&mut r, m);
        }
    }
    trim(r)
}

/// r < m, r possibly with leading zero limbs.
fn less_than(r: &[u64], m: &[u64]) -> bool {
    for i in (0..r.len().max(m.len())).rev() {
        let (x, y) = (r.get(i).copied().unwrap_or(0), m.get(i).copied().unwrap_or(0));
        if x != y {
            return x < y;
        }
    }
    false
}

/// r -= m, for r >= m.
fn sub_in_place(r: &mut [u64], m: &[u64]) {
    let mut borrow = false;
    for (i, limb) in r.iter_mut().enumerate() {
        let (d, b1) = limb.overflowing_sub(m.get(i).copied().unwrap_or(0));
        let (d, b2) = d.overflowing_sub(u64::from(borrow));
        *limb = d;
        borrow = b1 || b2;
    }
}

pub(super) struct Params {
    p: &'static str,
    a: &'static str,
    b: &'static str,
    n: &'static str,
}

// Domain parameters as printed by `openssl ecparam -name <curve> -param_enc explicit -text`.
pub(super) fn params(kind: KeyType) -> Option<Params> {
    match kind {
        KeyType::P256 => Some(Params {
            p: "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
            a: "ffffffff00000001000000000000000000000000fffffffffffffffffffffffc",
            b: "5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b",
            n: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
        }),
        KeyType::P384 => Some(Params {
            p: "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff",
            a: "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000fffffffc",
            b: "b3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aef",
            n: "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973",
        }),
        KeyType::P521 => Some(Params {
            p: "01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
            a: "01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc",
            b: "0051953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00",
            n: "01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409",
        }),
        KeyType::Secp256k1 => Some(Params {
            p: "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f",
            a: "00",
            b: "07",
            n: "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
        }),
        _ => None,
    }
}

/// True when (x, y) satisfies y^2 = x^3 + ax + b (mod p) with x, y < p.
pub(super) fn on_curve(kind: KeyType, x: &[u8], y: &[u8]) -> bool {
    let Some(c) = params(kind) else {
        return false;
    };
    let (p, a, b) = (from_hex(c.p), from_hex(c.a), from_hex(c.b));
    let (x, y) = (from_be(x), from_be(y));
    if cmp(&x, &p) != Ordering::Less || cmp(&y, &p) != Ordering::Less {
        return false;
    }
    let lhs = reduce(&mul(&y, &y), &p);
    // x^3 + ax + b = x (x^2 + a) + b: three reductions in all.
    let x2 = reduce(&mul(&x, &x), &p);
    let rhs = reduce(&add(&mul(&add(&x2, &a), &x), &b), &p);
    cmp(&lhs, &rhs) == Ordering::Equal
}

/// True when 1 <= d < n (the group order).
pub(super) fn scalar_in_range(kind: KeyType, d: &[u8]) -> bool {
    let Some(c) = params(kind) else {
        return false;
    };
    let d = from_be(d);
    !d.is_empty() && cmp(&d, &from_hex(c.n)) == Ordering::Less
}

/// The field prime of Ed25519, 2^255 - 19.
const ED25519_P: &str = "7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffed";
/// The y coordinate of two of the four points of order 8 on Ed25519 (the other two have
/// p - y): a root of d y^4 + 2 y^2 - 1, the condition for the double of (x, y) to have y = 0
/// (order 4). The unit tests check it against that equation, and the key tests prove every
/// blocked encoding is of small order with an actual forged signature.
const ED25519_Y8: &str = "05fc536d880238b13933c6d305acdfd5f098eff289f4c345b027b2c28f95e826";
/// The field prime of Ed448, 2^448 - 2^224 - 1.
const ED448_P: &str = "fffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffffffffffffffffffffffffffffffffffffffffffffffffffff";

/// True when `encoded`, an Ed25519 or Ed448 public key as RFC 8032 encodes it, names a point
/// of small order (the identity, or a point whose order divides the cofactor 8 or 4), in any
/// spelling: canonical, with y >= p, or with the sign bit set on a point whose x is 0.
///
/// Under such a key A, the verification equation [S]B = R + [k]A loses its dependence on the
/// message whenever [k]A is the identity (always for the identity, one message in 2, 4 or 8
/// otherwise, and every message under a cofactored check such as OpenSSL's Ed448), so a fixed
/// signature (R = identity, S = 0; or R = B, S = 1) verifies for any card an attacker can
/// retouch a few times. Only the y coordinate decides: the small-order points are exactly
/// those with y in {1, p - 1, 0} (and, on Ed25519, {Y8, p - Y8}), whatever the sign of x.
pub(super) fn okp_small_order(kind: KeyType, encoded: &[u8]) -> bool {
    let p = match kind {
        KeyType::Ed25519 => from_hex(ED25519_P),
        KeyType::Ed448 => from_hex(ED448_P),
        _ => return false,
    };
    // Little-endian, the sign of x in the top bit of the last byte.
    let mut be: Vec<u8> = encoded.iter().rev().copied().collect();
    if let Some(top) = be.first_mut() {
        *top &= 0x7f;
    }
    let y = reduce(&from_be(&be), &p);
    let one = from_hex("01");
    let mut small = vec![Vec::new(), one.clone(), sub(&p, &one)];
    if kind == KeyType::Ed25519 {
        let y8 = from_hex(ED25519_Y8);
        small.push(sub(&p, &y8));
        small.push(y8);
    }
    small.iter().any(|s| cmp(s, &y) == Ordering::Equal)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn reduce_matches_plain_shift_and_subtract() {
        fn plain(a: &Big, m: &Big) -> Big {
            let mut r: Big = Vec::new();
            for i in (0..a.len() * 64).rev() {
                r = add(&add(&r, &r), &vec![(a[i / 64] >> (i % 64)) & 1]);
                if cmp(&r, m) != Ordering::Less {
                    r = sub(&r, m);
                }
            }
            trim(r)
        }
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..300 {
            let a: Big = trim((0..(round % 9)).map(|_| next()).collect());
            let m: Big = trim((0..(1 + round % 5)).map(|_| next()).collect());
            if m.is_empty() {
                continue;
            }
            assert_eq!(reduce(&a, &m), plain(&a, &m), "{a:x?} mod {m:x?}");
        }
    }

    #[test]
    fn arithmetic() {
        let a = from_hex("ffffffffffffffffffffffffffffffff");
        let sq = mul(&a, &a);
        assert_eq!(
            sq,
            from_hex("fffffffffffffffffffffffffffffffe00000000000000000000000000000001")
        );
        assert_eq!(reduce(&sq, &a), Vec::<u64>::new());
        assert_eq!(reduce(&from_hex("64"), &from_hex("07")), from_hex("02"));
        assert_eq!(sub(&add(&a, &from_hex("01")), &from_hex("01")), a);
    }

    #[test]
    fn generators_are_on_their_curves() {
        // The base points, from `openssl ecparam -param_enc explicit -text`.
        let g = [
            (
                KeyType::P256,
                "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296",
                "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5",
            ),
            (
                KeyType::Secp256k1,
                "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798",
                "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8",
            ),
        ];
        for (kind, x, y) in g {
            let xb: Vec<u8> = (0..32)
                .map(|i| u8::from_str_radix(&x[2 * i..2 * i + 2], 16).unwrap())
                .collect();
            let mut yb: Vec<u8> = (0..32)
                .map(|i| u8::from_str_radix(&y[2 * i..2 * i + 2], 16).unwrap())
                .collect();
            assert!(on_curve(kind, &xb, &yb), "{kind}");
            yb[31] ^= 1;
            assert!(!on_curve(kind, &xb, &yb), "{kind}");
        }
    }

    /// The constants of the small-order check, derived again rather than trusted: d from its
    /// definition -121665/121666, Y8 from the order-8 condition d y^4 + 2 y^2 - 1 = 0, and the
    /// Ed448 points with x = 0 or y = 0 on x^2 + y^2 = 1 + d x^2 y^2 (d = -39081).
    #[test]
    fn small_order_constants_are_what_they_claim() {
        let p = from_hex(ED25519_P);
        assert_eq!(
            add(
                &sub(
                    &from_hex("8000000000000000000000000000000000000000000000000000000000000000"),
                    &from_hex("13")
                ),
                &Vec::new()
            ),
            p
        );
        let d = from_hex("52036cee2b6ffe738cc740797779e89800700a4d4141d8ab75eb4dca135978a3");
        // d * 121666 + 121665 = 0 (mod p)
        let check = reduce(&add(&mul(&d, &from_hex("01db42")), &from_hex("01db41")), &p);
        assert!(check.is_empty());
        for y in [from_hex(ED25519_Y8), sub(&p, &from_hex(ED25519_Y8))] {
            let y2 = reduce(&mul(&y, &y), &p);
            let dy4 = reduce(&mul(&d, &reduce(&mul(&y2, &y2), &p)), &p);
            // d y^4 + 2 y^2 - 1 = 0 (mod p), written d y^4 + 2 y^2 + (p - 1)
            let q = reduce(&add(&add(&dy4, &add(&y2, &y2)), &sub(&p, &from_hex("01"))), &p);
            assert!(q.is_empty(), "{y:x?}");
        }
        let p448 = from_hex(ED448_P);
        let two448 = from_hex(&format!("1{}", "0".repeat(112)));
        let two224 = from_hex(&format!("1{}", "0".repeat(56)));
        assert_eq!(add(&add(&p448, &two224), &from_hex("01")), two448);
    }

    #[test]
    fn small_order_spellings() {
        let le = |hex_be: &str, len: usize| -> Vec<u8> {
            let mut v = vec![0u8; len];
            let b: Vec<u8> = (0..hex_be.len() / 2)
                .map(|i| u8::from_str_radix(&hex_be[2 * i..2 * i + 2], 16).unwrap())
                .collect();
            for (i, byte) in b.iter().rev().enumerate() {
                v[i] = *byte;
            }
            v
        };
        let mut identity = vec![0u8; 32];
        identity[0] = 1;
        assert!(okp_small_order(KeyType::Ed25519, &identity));
        identity[31] |= 0x80;
        assert!(okp_small_order(KeyType::Ed25519, &identity));
        // p + 1, a non-canonical identity
        assert!(okp_small_order(
            KeyType::Ed25519,
            &le(
                "7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffee",
                32
            )
        ));
        // The RFC 8032 test 1 public key is an ordinary point.
        // (its encoding d75a98...511a read as a big-endian number backwards)
        let ordinary = le(
            "1a5107f7681a02af2523a6daf372e10e3a0764c9d3fe4bd5b70ab18201985ad7",
            32,
        );
        assert_eq!(ordinary[0], 0xd7);
        assert!(!okp_small_order(KeyType::Ed25519, &ordinary));
        let mut id448 = vec![0u8; 57];
        id448[0] = 1;
        assert!(okp_small_order(KeyType::Ed448, &id448));
        assert!(!okp_small_order(KeyType::Ed448, &[2u8; 57]));
        assert!(!okp_small_order(KeyType::P256, &identity));
    }
}
