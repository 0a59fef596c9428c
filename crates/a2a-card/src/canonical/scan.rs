//! Finding the end of a run of plain string content a block of bytes at a time, shared by the
//! reader (string bodies) and the RFC 8785 writer (strings it must escape).

/// Bytes that end a run of plain string content: the quote, the backslash and the controls.
static STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// The offset of the first byte at or after `pos` that is a quote, a backslash or a control
/// character (or `bytes.len()`). Eight bytes are tested at a time as one word ([`word_stops`]),
/// whose lowest flag is the stop byte: no loop inside the word. (Sixteen bytes by vector
/// compares and then two word tests to place the stop took more instructions on the short
/// strings of a card.) Fewer than eight bytes left are tested one by one.
#[inline]
pub(crate) fn scan_plain(bytes: &[u8], mut pos: usize) -> usize {
    while let Some(chunk) = bytes.get(pos..pos + 8) {
        let stops = word_stops(chunk);
        if stops != 0 {
            return pos + (stops.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    while let Some(&b) = bytes.get(pos) {
        if STRING_STOP[usize::from(b)] {
            break;
        }
        pos += 1;
    }
    pos
}

/// For eight bytes (little-endian): a word whose byte `i` has its high bit set when byte `i` is
/// a quote, a backslash or a control character. A byte after the first such byte may also be
/// flagged, never one before it, so the lowest flag is exact; zero means none.
#[inline(always)]
fn word_stops(chunk: &[u8]) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Byte by byte rather than `copy_from_slice`, which opt-level "z" leaves a call.
    let w = match *chunk {
        [a, b, c, d, e, f, g, h, ..] => u64::from_le_bytes([a, b, c, d, e, f, g, h]),
        _ => 0,
    };
    let below = w.wrapping_sub(ONES * 0x20);
    let quote = (w ^ (ONES * u64::from(b'"'))).wrapping_sub(ONES);
    let quote_neg = !(w ^ (ONES * u64::from(b'"')));
    let bslash = (w ^ (ONES * u64::from(b'\\'))).wrapping_sub(ONES);
    let bslash_neg = !(w ^ (ONES * u64::from(b'\\')));
    ((below & !w) | (quote & quote_neg) | (bslash & bslash_neg)) & HIGH
}
