//! The buffer a JWS signing input is written into, reused from one signature to the next on
//! the same thread.
//!
//! Why: a large card's signing input is the largest allocation of a verification (a third
//! larger than its canonical bytes). With glibc's allocator, freeing it and the card's other
//! buffers at the end of each verification leaves a free block at the top of the heap past the
//! trim threshold, which is handed back to the system; the next verification takes the pages
//! back one page fault at a time. On a 355 KB card that was 149 page faults per verification,
//! about a fifth of the time outside the signature check (BENCHMARKS.md, "Page faults"). Each
//! thread keeps one spare buffer instead: the largest signing-input buffer it has used, up to
//! [`KEEP_MAX`] bytes of capacity (a larger one is freed as before). No lock, nothing shared.
//!
//! ```text
//! let input = InputBuffer::signing_input(protected, canonical);
//! check(&input);
//! drop(input); // the thread's spare again
//! ```

use super::header::write_signing_input;
use std::cell::Cell;
use std::ops::{Deref, DerefMut};

/// The largest capacity a thread keeps: 4 MiB, a signing input of about 3 MB of canonical bytes.
pub(crate) const KEEP_MAX: usize = 4 << 20;

thread_local! {
    static SPARE: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// An empty byte buffer, the thread's spare when it has one; given back when dropped.
#[derive(Debug)]
pub(crate) struct InputBuffer(Vec<u8>);

impl InputBuffer {
    /// The thread's spare buffer, emptied (a new one when it has none).
    fn take() -> InputBuffer {
        let mut buf = SPARE.try_with(Cell::take).unwrap_or_default();
        buf.clear();
        InputBuffer(buf)
    }

    /// The JWS signing input `protected_b64 '.' BASE64URL(payload)`, written into the thread's
    /// spare buffer.
    pub(crate) fn signing_input(protected_b64: &str, payload: &[u8]) -> InputBuffer {
        let mut input = InputBuffer::take();
        write_signing_input(&mut input, protected_b64, payload);
        input
    }
}

impl Deref for InputBuffer {
    type Target = Vec<u8>;
    fn deref(&self) -> &Vec<u8> {
        &self.0
    }
}

impl DerefMut for InputBuffer {
    fn deref_mut(&mut self) -> &mut Vec<u8> {
        &mut self.0
    }
}

impl Drop for InputBuffer {
    /// Keeps the larger of this buffer and the thread's spare, when it is at most [`KEEP_MAX`].
    fn drop(&mut self) {
        let buf = std::mem::take(&mut self.0);
        if buf.capacity() == 0 || buf.capacity() > KEEP_MAX {
            return;
        }
        // During the thread's teardown the spare may be gone: the buffer is then just freed.
        let _ = SPARE.try_with(|spare| {
            let kept = spare.take();
            spare.set(if kept.capacity() >= buf.capacity() {
                kept
            } else {
                buf
            });
        });
    }
}

#[cfg(test)]
mod tests {
    use super::{InputBuffer, KEEP_MAX};

    fn spare_capacity() -> usize {
        let probe = InputBuffer::take();
        let cap = probe.capacity();
        drop(probe);
        cap
    }

    /// A buffer given back is the next one taken, emptied; the larger of two is kept; one past
    /// the cap is freed; each thread has its own.
    #[test]
    fn the_spare_is_reused_up_to_the_cap() {
        let mut a = InputBuffer::take();
        a.extend_from_slice(&[7; 1000]);
        let cap = a.capacity();
        drop(a);
        let b = InputBuffer::take();
        assert!(b.is_empty());
        assert_eq!(b.capacity(), cap);
        // Two at once: the second is new; the larger stays.
        let mut c = InputBuffer::take();
        c.reserve(4000);
        let big = c.capacity();
        drop(b);
        drop(c);
        assert_eq!(spare_capacity(), big);
        // Past the cap: freed, the spare kept as it was.
        drop(InputBuffer(Vec::with_capacity(KEEP_MAX + 1)));
        assert_eq!(spare_capacity(), big);
        let other = std::thread::spawn(spare_capacity).join().unwrap_or(usize::MAX);
        assert_eq!(other, 0);
    }

    /// Signing and verifying a card each leave their signing-input buffer as the thread's spare.
    #[test]
    fn signing_and_verifying_give_their_buffer_back() {
        use crate::{sign_card, verify_card, Algorithm, PrivateKey, SignOptions, TrustStore, VerifyOptions};
        let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
        let card = br#"{"name":"A","description":"d","version":"1","skills":[]}"#;
        assert_eq!(spare_capacity(), 0);
        let signed = sign_card(card, &key, &SignOptions::default()).unwrap();
        let input_len = signed.protected.len() + 1 + signed.canonical.bytes.len().div_ceil(3) * 4;
        assert!(spare_capacity() >= input_len);
        // With the spare held elsewhere, verifying writes into a new buffer and gives it back.
        let held = InputBuffer::take();
        let mut trust = TrustStore::new();
        trust.pin(key.public().clone(), "pinned");
        assert!(
            verify_card(&signed.card, &trust, &VerifyOptions::default())
                .unwrap()
                .ok
        );
        assert!(spare_capacity() >= input_len);
        drop(held);
    }
}
