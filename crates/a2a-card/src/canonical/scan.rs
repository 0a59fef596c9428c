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
/// character (or `bytes.len()`). On x86_64 (SSE2, which every such processor has) and on wasm32
/// built with SIMD128 (as the npm package is), sixteen bytes are tested at a time and the stop is
/// placed by the compare's bit mask (`vector::stops`); that took 6k fewer instructions per
/// verification of the 8.5 sample than the word scan alone. Then, and on other targets
/// throughout, eight bytes are tested at a time as one word ([`word_stops`]), whose lowest flag
/// is the stop byte; fewer than eight left are tested one by one. (A 16-byte mask built from
/// plain integer code, without the vector compare, took more instructions than the word scan.)
#[inline]
pub(crate) fn scan_plain(bytes: &[u8], mut pos: usize) -> usize {
    #[cfg(any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ))]
    {
        while let Some(chunk) = bytes.get(pos..pos + 16) {
            let stops = vector::stops(chunk);
            if stops != 0 {
                return pos + stops.trailing_zeros() as usize;
            }
            pos += 16;
        }
    }
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

/// Sixteen bytes at a time with `wide`'s 16-byte vectors: safe code over SSE2 and SIMD128.
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
mod vector {
    use wide::u8x16;

    /// Bit `i` of the result is set when byte `i` of the chunk (its first sixteen bytes) is a
    /// quote, a backslash or a control character; zero for a shorter chunk.
    #[inline(always)]
    pub(super) fn stops(chunk: &[u8]) -> u32 {
        // Byte by byte rather than `try_into`, which opt-level "z" leaves a call.
        let v = match *chunk {
            [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, ..] => {
                u8x16::new([a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p])
            }
            _ => return 0,
        };
        let quote = v.cmp_eq(u8x16::splat(b'"'));
        let bslash = v.cmp_eq(u8x16::splat(b'\\'));
        // A byte at most 0x1F is its own minimum with 0x1F.
        let control = v.min(u8x16::splat(0x1F)).cmp_eq(v);
        // One bit per byte: 0 to 0xFFFF.
        (quote | bslash | control).move_mask().unsigned_abs()
    }
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
