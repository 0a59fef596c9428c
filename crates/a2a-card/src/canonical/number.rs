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
