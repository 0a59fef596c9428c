//! Numbers: the I-JSON rules the reader applies to a number's spelling, and the RFC 8785
//! (ECMAScript) spelling the writer gives a double. Both sides live here so that "the canonical
//! text means the served value" is decided against the very spelling the writer produces.

/// Largest integer magnitude I-JSON allows (2^53 - 1).
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// The RFC 8785 text of a finite double.
pub(crate) fn jcs_spelling(v: f64) -> String {
    let mut out = Vec::new();
    write_number(&mut out, v);
    String::from_utf8(out).unwrap_or_default()
}

/// True when a JSON number's text denotes zero (every digit of its mantissa is 0).
pub(crate) fn decimal_is_zero(text: &str) -> bool {
    let mantissa = text.split(['e', 'E']).next().unwrap_or(text);
    mantissa.bytes().all(|b| matches!(b, b'0' | b'.' | b'-'))
}

/// True when two JSON number texts denote the same decimal value.
pub(crate) fn same_decimal(a: &str, b: &str) -> bool {
    normalized(a) == normalized(b)
}

/// A JSON number's decimal value as (negative, significant digits, power of ten of the last
/// digit), with leading and trailing zeros removed; zero is `(false, [], 0)`. The exponent
/// saturates, so any spelling reads without overflow.
fn normalized(text: &str) -> (bool, Vec<u8>, i64) {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text),
    };
    let (mantissa, exp) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, ""),
    };
    let (exp_negative, exp_digits) = match exp.as_bytes().first() {
        Some(b'-') => (true, &exp[1..]),
        Some(b'+') => (false, &exp[1..]),
        _ => (false, exp),
    };
    let magnitude = exp_digits.bytes().fold(0i64, |n, d| {
        n.saturating_mul(10)
            .saturating_add(i64::from(d.wrapping_sub(b'0')))
    });
    let exp = if exp_negative { -magnitude } else { magnitude };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
    let mut power = exp.saturating_sub(i64::try_from(frac.len()).unwrap_or(i64::MAX));
    while digits.last() == Some(&b'0') {
        digits.pop();
        power = power.saturating_add(1);
    }
    let lead = digits.iter().take_while(|&&d| d == b'0').count();
    digits.drain(..lead);
    if digits.is_empty() {
        return (false, digits, 0);
    }
    (negative, digits, power)
}

/// True when `text` is exactly what RFC 8785 writes for `v`. An integer literal beyond
/// +-(2^53-1) is accepted only then: nothing was rounded, and canonical output (which spells
/// integral doubles below 1e21 with all their digits) always reads back.
pub(crate) fn is_jcs_spelling(text: &str, v: f64) -> bool {
    jcs_spelling(v) == text
}

/// Writes a finite number the way ECMAScript's `Number.prototype.toString` does (RFC 8785
/// section 3.2.2.3). `-0` is written as `0`.
pub(crate) fn write_number(out: &mut Vec<u8>, n: f64) {
    if n == 0.0 {
        out.push(b'0');
        return;
    }
    if n.is_finite() {
        let mut buf = ryu_js::Buffer::new();
        out.extend_from_slice(buf.format_finite(n).as_bytes());
    } else {
        // The reader never produces these; write null as ECMAScript's JSON.stringify would
        // rather than panic.
        out.extend_from_slice(b"null");
    }
}

/// A finite double as Rust's `{}` writes it (the shortest digits that read back, never an
/// exponent: `0.001`, `60`, `0.0000001`): messages that quote a number of seconds or a count
/// use it, so that the module does not carry `core::fmt`'s float formatting beside ryu. The
/// digits are ryu's; where two spellings of that length are equally close (the value is
/// exactly halfway), ryu takes the even one and Rust the larger, so that case is rounded up.
pub(crate) fn plain_decimal(v: f64) -> String {
    let sign = if v.is_sign_negative() { "-" } else { "" };
    let v = v.abs();
    if v == 0.0 || !v.is_finite() {
        return format!("{sign}0");
    }
    let mut buf = ryu_js::Buffer::new();
    let text = buf.format_finite(v);
    let (mantissa, exp) = match text.find('e') {
        Some(e) => (
            &text[..e],
            text[e + 1..].trim_start_matches('+').parse().unwrap_or(0),
        ),
        None => (text, 0i64),
    };
    let int_len = mantissa.find('.').unwrap_or(mantissa.len()) as i64;
    let mut digits: Vec<u8> = mantissa.bytes().filter(|&c| c != b'.').collect();
    // Integers are written in full ("60", "1000"): their trailing zeros are not digits here.
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    // The point goes after `point` digits; the last digit's power of ten is point - len.
    let mut point = int_len + exp;
    if exactly_halfway_above(v, &digits, point - digits.len() as i64) {
        let mut i = digits.len();
        loop {
            if i == 0 {
                digits.insert(0, b'1');
                point += 1;
                break;
            }
            i -= 1;
            if digits[i] == b'9' {
                digits[i] = b'0';
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    let digits = String::from_utf8(digits).unwrap_or_default();
    let len = digits.len() as i64;
    let zeros = |n: i64| "0".repeat(usize::try_from(n).unwrap_or(0));
    if point <= 0 {
        format!("{sign}0.{}{digits}", zeros(-point))
    } else if point >= len {
        format!("{sign}{digits}{}", zeros(point - len))
    } else {
        let (a, b) = digits.split_at(usize::try_from(point).unwrap_or(0));
        format!("{sign}{a}.{b}")
    }
}

/// Whether the positive finite `v` is exactly `(digits + 1/2) * 10^power`.
fn exactly_halfway_above(v: f64, digits: &[u8], power: i64) -> bool {
    // M * 10^e with M = digits followed by 5 (odd), e = power - 1.
    let Some(m) = digits
        .iter()
        .chain(b"5")
        .try_fold(0u64, |n, d| n.checked_mul(10)?.checked_add(u64::from(d - b'0')))
    else {
        return false;
    };
    let e = power - 1;
    // v = odd * 2^p2.
    let bits = v.to_bits();
    let (frac, biased) = (bits & ((1 << 52) - 1), (bits >> 52) as i64);
    let (sig, q) = if biased == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), biased - 1075)
    };
    let t = i64::from(sig.trailing_zeros());
    let (odd, p2) = (sig >> t, q + t);
    // M * 2^e * 5^e == odd * 2^p2, with M and odd odd: the powers of two agree and the rest.
    if p2 != e || e.unsigned_abs() > 60 {
        return false;
    }
    let five = 5u64.checked_pow(e.unsigned_abs() as u32);
    match five {
        Some(f) if e >= 0 => m.checked_mul(f) == Some(odd),
        Some(f) => odd.checked_mul(f) == Some(m),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::plain_decimal;

    #[test]
    fn plain_decimal_is_rust_display() {
        let mut values = vec![
            0.0,
            -0.0,
            1.0,
            60.0,
            0.001,
            0.1,
            1e-7,
            1.5e-7,
            1e-9,
            123e-12,
            1e20,
            1e21,
            1.5e21,
            1e300,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            -2.5e-8,
            18446744073709551615.0,
            12_345_678_901.123_457,
            0.3,
            2.0 / 3.0,
            94_838_857_879.0 + 57.0 / 64.0,
            9.5,
            0.5,
            99.5,
        ];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = f64::from_bits(x);
            if v.is_finite() {
                values.push(v);
            }
            values.push((x % 1_000_000_007) as f64 / 10f64.powi((i % 30) as i32 - 5));
            values.push(
                std::time::Duration::new(x % 100_000_000_000, (x >> 34) as u32 % 1_000_000_000).as_secs_f64(),
            );
            values.push((x >> (i % 12)) as f64);
            // Dyadic values, where ties are: an odd number times a power of two.
            let odd = ((x >> 11) | 1) >> (i % 50);
            values.push(odd as f64 * 2f64.powi((i % 140) as i32 - 70));
            values.push(-(odd as f64) * 2f64.powi((i % 7) as i32 - 3));
        }
        for v in values {
            assert_eq!(plain_decimal(v), format!("{v}"), "{v:e}");
        }
    }
}
