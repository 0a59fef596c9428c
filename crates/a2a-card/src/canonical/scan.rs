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
/// character (or `bytes.len()`). Sixteen bytes are tested at a time with no branch inside the
/// block, which the compiler turns into vector compares; in the block that holds a stop byte,
/// [`word_stops`] finds it without a loop. Fewer than sixteen bytes left are tested one by one.
#[inline]
pub(crate) fn scan_plain(bytes: &[u8], mut pos: usize) -> usize {
    const BLOCK: usize = 16;
    while let Some(chunk) = bytes.get(pos..pos + BLOCK) {
        let (lo, hi) = chunk.split_at(8);
        // wasm32 has no vector compares without simd128 (and the npm package's opt-level "z"
        // does not unroll the byte loop): two word tests there.
        #[cfg(target_arch = "wasm32")]
        let hit = word_stops(lo) | word_stops(hi) != 0;
        #[cfg(not(target_arch = "wasm32"))]
        let hit = {
            let mut hit = false;
            for &b in chunk {
                hit |= (b < 0x20) | (b == b'"') | (b == b'\\');
            }
            hit
        };
        if hit {
            let lo = word_stops(lo);
            return if lo != 0 {
                pos + (lo.trailing_zeros() / 8) as usize
            } else {
                pos + 8 + (word_stops(hi).trailing_zeros() / 8) as usize
            };
        }
        pos += BLOCK;
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
