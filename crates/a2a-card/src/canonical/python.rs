//! The spelling of Python's `json.dumps` with its defaults (`ensure_ascii=True`, floats by
//! `float.__repr__`), which the a2a-sdk 0.3 signer's bytes use: strings with every character
//! outside printable ASCII escaped as `\uxxxx` (lower-case hex, a surrogate pair above U+FFFF),
//! integers as integers and floats as Python writes them (`1.0`, `1e-05`, `1e+16`).

/// Writes `s` as `json.dumps` does with `ensure_ascii=True`: `\"`, `\\`, `\n`, `\r`, `\t`, `\b`,
/// `\f`, and every other character outside U+0020..U+007E as `\uxxxx`.
///
/// ```text
/// write_ascii_string(&mut out, "é😀\u{7f}/");   // "\u00e9\ud83d\ude00\u007f/"
/// ```
pub(crate) fn write_ascii_string(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + 2);
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            ' '..='~' => out.push(c as u8),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.extend_from_slice(b"\\u");
                    for shift in [12, 8, 4, 0] {
                        out.push(HEX[usize::from((*unit >> shift) & 0xF)]);
                    }
                }
            }
        }
    }
    out.push(b'"');
}

/// Writes a number as Python's `json.dumps` writes what `json.loads` read from its JSON text:
/// an integer literal (no fraction, no exponent) stays an `int` and is written with all its
/// digits (`-0` is `0`); any other literal is a `float`, written by `float.__repr__`: the
/// shortest digits that read back, in positional form when the decimal exponent lies in
/// -4..16 (`0.0001`, `100.0`, `1e+16` past it, `1e-05` below it), `-0.0` keeping its sign.
pub(crate) fn write_python_number(out: &mut Vec<u8>, v: f64, integer: bool) {
    if !v.is_finite() {
        // The reader never produces these; Python would write `Infinity`/`NaN`.
        out.extend_from_slice(b"null");
        return;
    }
    if integer {
        if v == 0.0 {
            out.push(b'0');
        } else {
            // Every digit of the integral double, as Python's int of the same value prints.
            write_integral(out, v);
        }
        return;
    }
    if v.is_sign_negative() {
        out.push(b'-');
    }
    let v = v.abs();
    if v == 0.0 {
        out.extend_from_slice(b"0.0");
        return;
    }
    // ECMAScript's spelling (ryu-js) has the shortest round-trip digits, as Python's repr
    // does; only their placement differs. Read back as digits and a decimal exponent (the value
    // is d.ddd x 10^exp), without the formatting machinery of `core::fmt` for floats (about
    // 20 KB of the .wasm).
    let mut buf = ryu_js::Buffer::new();
    let (digits, exp) = shortest_digits(buf.format_finite(v));
    // Python's decpt: the value is 0.d1d2... x 10^decpt.
    let decpt = exp + 1;
    let n = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    if decpt <= -4 || decpt > 16 {
        out.push(digits[0]);
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        out.push(if exp < 0 { b'-' } else { b'+' });
        let e = exp.unsigned_abs();
        if e < 10 {
            out.push(b'0');
        }
        out.extend_from_slice(e.to_string().as_bytes());
    } else if decpt <= 0 {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', usize::try_from(-decpt).unwrap_or(0)));
        out.extend_from_slice(&digits);
    } else if decpt < n {
        let at = usize::try_from(decpt).unwrap_or(0);
        out.extend_from_slice(&digits[..at]);
        out.push(b'.');
        out.extend_from_slice(&digits[at..]);
    } else {
        out.extend_from_slice(&digits);
        out.extend(std::iter::repeat_n(b'0', usize::try_from(decpt - n).unwrap_or(0)));
        out.extend_from_slice(b".0");
    }
}

/// The significant digits (no leading or trailing zeros) and the decimal exponent of a positive
/// number as ryu-js spells it (`123.45`, `0.00012`, `1.5e+300`, `5e-324`, `100`): the value is
/// `d.ddd x 10^exp`.
fn shortest_digits(text: &str) -> (Vec<u8>, i32) {
    let (mantissa, exp) = text.split_once('e').unwrap_or((text, "0"));
    let exp: i32 = exp.trim_start_matches('+').parse().unwrap_or(0);
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
    let lead = all.iter().take_while(|&&d| d == b'0').count();
    let trail = all.iter().rev().take_while(|&&d| d == b'0').count();
    if lead == all.len() {
        return (vec![b'0'], 0);
    }
    let digits = all[lead..all.len() - trail].to_vec();
    // The first digit of `all` stands at 10^(len(int) - 1 + exp).
    let first = i32::try_from(int.len()).unwrap_or(i32::MAX) - 1 + exp;
    (digits, first - i32::try_from(lead).unwrap_or(0))
}

/// Writes an integral double with all its digits (`1e20` as `100000000000000000000`, `-7` as
/// `-7`): the double is m x 2^e exactly, expanded in base 10^9 limbs.
fn write_integral(out: &mut Vec<u8>, v: f64) {
    if v.is_sign_negative() {
        out.push(b'-');
    }
    let bits = v.abs().to_bits();
    let biased = i32::try_from(bits >> 52).unwrap_or(0);
    let fraction = bits & ((1 << 52) - 1);
    let (mut m, e) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    if e <= 0 {
        // Integral: the low -e bits are zero.
        m >>= e.unsigned_abs().min(63);
        out.extend_from_slice(m.to_string().as_bytes());
        return;
    }
    // Little-endian limbs of 10^9, doubled e times.
    const LIMB: u64 = 1_000_000_000;
    let mut limbs = vec![m % LIMB, (m / LIMB) % LIMB, m / (LIMB * LIMB)];
    for _ in 0..e {
        let mut carry = 0;
        for limb in &mut limbs {
            let x = *limb * 2 + carry;
            *limb = x % LIMB;
            carry = x / LIMB;
        }
        if carry > 0 {
            limbs.push(carry);
        }
    }
    while limbs.len() > 1 && limbs.last() == Some(&0) {
        limbs.pop();
    }
    let mut rest = limbs.iter().rev();
    if let Some(top) = rest.next() {
        out.extend_from_slice(top.to_string().as_bytes());
    }
    for limb in rest {
        let text = limb.to_string();
        out.extend(std::iter::repeat_n(b'0', 9 - text.len()));
        out.extend_from_slice(text.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(v: f64, integer: bool) -> String {
        let mut out = Vec::new();
        write_python_number(&mut out, v, integer);
        String::from_utf8(out).unwrap()
    }

    /// Each expectation is what CPython 3 prints for `json.dumps(json.loads(text))`.
    #[test]
    fn numbers_as_python_writes_them() {
        let cases: &[(f64, bool, &str)] = &[
            (0.0, true, "0"),
            (-0.0, true, "0"),
            (100.0, true, "100"),
            (-7.0, true, "-7"),
            (9_007_199_254_740_991.0, true, "9007199254740991"),
            (1e20, true, "100000000000000000000"),
            (1.0, false, "1.0"),
            (100.0, false, "100.0"),
            (0.1, false, "0.1"),
            (-0.0, false, "-0.0"),
            (0.0, false, "0.0"),
            (1e-5, false, "1e-05"),
            (0.0001, false, "0.0001"),
            (1e16, false, "1e+16"),
            (1e15, false, "1000000000000000.0"),
            (1.5e300, false, "1.5e+300"),
            (-2.5e-7, false, "-2.5e-07"),
            (123.456, false, "123.456"),
            (5e-324, false, "5e-324"),
            (1.7976931348623157e308, false, "1.7976931348623157e+308"),
            (1234567890123456.7, false, "1234567890123456.8"),
            (12345678901234567.0, false, "1.2345678901234568e+16"),
            (0.000123, false, "0.000123"),
            // Halfway between two 16-digit spellings: CPython writes the even one.
            (667_082_108_456_853.0 + 0.25, false, "667082108456853.2"),
        ];
        for &(v, integer, want) in cases {
            assert_eq!(num(v, integer), want, "{v} integer={integer}");
        }
    }

    /// The spelling without `core::fmt`'s float formatting is the one it replaced: `{:.0}` for
    /// integers, `{:e}`'s shortest digits placed as Python places them.
    #[test]
    fn numbers_match_core_float_formatting() {
        fn reference(v: f64, integer: bool) -> String {
            if integer {
                return if v == 0.0 { "0".into() } else { format!("{v:.0}") };
            }
            let sign = if v.is_sign_negative() { "-" } else { "" };
            let v = v.abs();
            if v == 0.0 {
                return format!("{sign}0.0");
            }
            let sci = format!("{v:e}");
            let (mantissa, exp) = sci.split_once('e').unwrap();
            let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
            let exp: i32 = exp.parse().unwrap();
            let (decpt, n) = (exp + 1, digits.len() as i32);
            let body = if decpt <= -4 || decpt > 16 {
                let tail = if n > 1 {
                    format!(".{}", &digits[1..])
                } else {
                    String::new()
                };
                format!(
                    "{}{tail}e{}{:02}",
                    &digits[..1],
                    if exp < 0 { '-' } else { '+' },
                    exp.abs()
                )
            } else if decpt <= 0 {
                format!("0.{}{digits}", "0".repeat((-decpt) as usize))
            } else if decpt < n {
                format!("{}.{}", &digits[..decpt as usize], &digits[decpt as usize..])
            } else {
                format!("{digits}{}.0", "0".repeat((decpt - n) as usize))
            };
            format!("{sign}{body}")
        }
        // A fixed linear congruential sequence of bit patterns, and the edges.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut values = vec![
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            1e21,
            1e22,
            2f64.powi(53),
            2f64.powi(1023),
        ];
        for _ in 0..50_000 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            values.push(f64::from_bits(x));
            // Short decimals and integers of every size, as cards carry.
            values.push((x % 1_000_000) as f64 / 10f64.powi((x >> 40) as i32 % 12));
            values.push(((x >> 11) as f64 * 2f64.powi((x % 1100) as i32 - 60)).trunc());
        }
        for v in values.into_iter().filter(|v| v.is_finite()) {
            for integer in [false, true] {
                if integer && v.fract() != 0.0 {
                    continue;
                }
                let (ours, theirs) = (num(v, integer), reference(v, integer));
                if ours != theirs {
                    // `{:e}` breaks a tie between two shortest spellings upward, Python (and
                    // ryu) to the even digit: both read back, are as long, and ours is even.
                    assert_eq!(ours.len(), theirs.len(), "{v:e}: {ours} vs {theirs}");
                    assert_eq!(ours.parse::<f64>().unwrap(), v, "{v:e}: {ours}");
                    assert_eq!(theirs.parse::<f64>().unwrap(), v, "{v:e}: {theirs}");
                    let mantissa = ours.split('e').next().unwrap_or(&ours);
                    let last = mantissa.trim_end_matches(".0").bytes().last();
                    assert!(
                        last.is_some_and(|d| (d - b'0') % 2 == 0),
                        "{v:e}: {ours} vs {theirs}"
                    );
                }
            }
        }
    }

    #[test]
    fn strings_as_ensure_ascii_writes_them() {
        let mut out = Vec::new();
        write_ascii_string(&mut out, "a\"\\\n\r\t\u{8}\u{c}\u{1}\u{1f}\u{7f}é\u{FB01}😀/<");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#""a\"\\\n\r\t\b\f\u0001\u001f\u007f\u00e9\ufb01\ud83d\ude00/<""#
        );
    }
}
