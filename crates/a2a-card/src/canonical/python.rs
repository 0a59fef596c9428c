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
            // The reader keeps integer literals exact (below 1e21, spelled with every digit).
            out.extend_from_slice(format!("{v:.0}").as_bytes());
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
    // Rust's `{:e}` gives the shortest round-trip digits, as Python's repr does: `d.ddde[-]x`.
    let sci = format!("{v:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    // Python's decpt: the value is 0.d1d2... x 10^decpt.
    let decpt = exp + 1;
    let n = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    if decpt <= -4 || decpt > 16 {
        out.push(digits[0]);
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.extend_from_slice(format!("e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs()).as_bytes());
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
        ];
        for &(v, integer, want) in cases {
            assert_eq!(num(v, integer), want, "{v} integer={integer}");
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
