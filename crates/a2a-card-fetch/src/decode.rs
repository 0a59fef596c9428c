//! The content codings the fetcher decodes (`gzip`, `br`), decoded here rather than by
//! reqwest's layer, which stops at the end of the first gzip member or brotli stream and never
//! reads what follows: a body of one card's stream followed by garbage, or by a second member
//! holding another card, was read on the bytes of the first. Here a coded body must be exactly
//! one whole stream: anything after its end, and a stream cut short, is refused. The output is
//! counted as it is produced, so a body that expands past the limit (a decompression bomb) is
//! refused as soon as it passes it, with at most one decoder buffer (32 KiB) over.

use std::io::{self, Write};

/// A content coding of a response body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Coding {
    /// No coding (`identity`, or no `Content-Encoding`).
    Identity,
    /// `gzip` (RFC 1952), one member.
    Gzip,
    /// `br` (RFC 7932), one stream.
    Br,
}

impl Coding {
    /// The coding a `Content-Encoding` value names, when it is one this fetcher decodes: one
    /// coding (`identity` entries aside), case-insensitive. `None` for anything else (`deflate`,
    /// `zstd`, two codings stacked).
    pub(crate) fn of(header: Option<&str>) -> Option<Coding> {
        let mut codings = header
            .unwrap_or("")
            .split(',')
            .map(str::trim)
            .filter(|c| !c.is_empty() && !c.eq_ignore_ascii_case("identity"));
        let coding = match codings.next() {
            None => return Some(Coding::Identity),
            Some(c) if c.eq_ignore_ascii_case("gzip") => Coding::Gzip,
            Some(c) if c.eq_ignore_ascii_case("br") => Coding::Br,
            Some(_) => return None,
        };
        codings.next().is_none().then_some(coding)
    }

    /// The coding's name in `Content-Encoding`.
    fn name(self) -> &'static str {
        match self {
            Coding::Identity => "identity",
            Coding::Gzip => "gzip",
            Coding::Br => "br",
        }
    }
}

/// Why a body could not be decoded.
#[derive(Debug)]
pub(crate) enum DecodeError {
    /// The decoded body passed the limit.
    TooLarge,
    /// The coded bytes are not one whole stream of their coding; the sentence says how.
    Malformed(String),
}

/// Where the decoded bytes go: a buffer that refuses to grow past the limit.
struct Sink {
    out: Vec<u8>,
    max: usize,
    over: bool,
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.out.len().saturating_add(buf.len()) > self.max {
            self.over = true;
            return Err(io::Error::other("the decoded body passed the limit"));
        }
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

enum Inner {
    Identity(Sink),
    Gzip(Box<flate2::write::GzDecoder<Sink>>),
    Br(Box<brotli_decompressor::DecompressorWriter<Sink>>),
}

/// A body decoded as its chunks arrive.
pub(crate) struct BodyDecoder {
    coding: Coding,
    inner: Inner,
}

impl BodyDecoder {
    /// A decoder for `coding` that refuses more than `max` decoded bytes; `capacity` is reserved
    /// up front (the declared length of an identity body, bounded by the caller).
    pub(crate) fn new(coding: Coding, max: usize, capacity: usize) -> BodyDecoder {
        let sink = Sink {
            out: Vec::with_capacity(capacity),
            max,
            over: false,
        };
        let inner = match coding {
            Coding::Identity => Inner::Identity(sink),
            Coding::Gzip => Inner::Gzip(Box::new(flate2::write::GzDecoder::new(sink))),
            Coding::Br => Inner::Br(Box::new(brotli_decompressor::DecompressorWriter::new(sink, 4096))),
        };
        BodyDecoder { coding, inner }
    }

    /// Decodes the next chunk of the body.
    pub(crate) fn push(&mut self, mut chunk: &[u8]) -> Result<(), DecodeError> {
        let coding = self.coding;
        while !chunk.is_empty() {
            let (result, over) = match &mut self.inner {
                Inner::Identity(s) => (s.write(chunk), s.over),
                Inner::Gzip(d) => {
                    let r = d.write(chunk);
                    (r, d.get_ref().over)
                }
                Inner::Br(d) => {
                    let r = d.write(chunk);
                    (r, d.get_ref().over)
                }
            };
            match result {
                Ok(0) => return Err(trailing(coding, chunk.len())),
                Ok(n) => chunk = chunk.get(n..).unwrap_or_default(),
                Err(_) if over => return Err(DecodeError::TooLarge),
                Err(e) => return Err(malformed(coding, &e)),
            }
        }
        Ok(())
    }

    /// The decoded body, once the whole coded body was pushed: the stream must have ended
    /// (with its checksum, for gzip).
    pub(crate) fn finish(self) -> Result<Vec<u8>, DecodeError> {
        match self.inner {
            Inner::Identity(s) => Ok(s.out),
            Inner::Gzip(mut d) => {
                let end = d.try_finish();
                ended(
                    end,
                    d.get_mut(),
                    "the gzip stream is cut short or its checksum does not match",
                )
            }
            Inner::Br(mut d) => {
                let end = d.close();
                ended(end, d.get_mut(), "the br stream is cut short")
            }
        }
    }
}

/// The end of a coded stream, as its decoder reported it (`end`): the decoded bytes, or
/// `TooLarge` when the sink refused them, else `why` the stream did not end whole.
fn ended(end: io::Result<()>, sink: &mut Sink, why: &str) -> Result<Vec<u8>, DecodeError> {
    match end {
        Ok(()) => Ok(std::mem::take(&mut sink.out)),
        Err(_) if sink.over => Err(DecodeError::TooLarge),
        Err(_) => Err(DecodeError::Malformed(why.to_string())),
    }
}

fn trailing(coding: Coding, left: usize) -> DecodeError {
    let what = match coding {
        Coding::Gzip => "gzip member (trailing bytes, or a second member)",
        _ => "br stream (trailing bytes, or a second stream)",
    };
    DecodeError::Malformed(format!(
        "{left} byte(s) came after the end of the {what}; a coded body is exactly one stream"
    ))
}

fn malformed(coding: Coding, e: &io::Error) -> DecodeError {
    DecodeError::Malformed(format!("the {} stream is malformed ({e})", coding.name()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    fn decode(coding: Coding, body: &[u8], max: usize, step: usize) -> Result<Vec<u8>, DecodeError> {
        let mut d = BodyDecoder::new(coding, max, 0);
        for chunk in body.chunks(step.max(1)) {
            d.push(chunk)?;
        }
        d.finish()
    }

    #[test]
    fn codings_of_content_encoding() {
        assert_eq!(Coding::of(None), Some(Coding::Identity));
        assert_eq!(Coding::of(Some("identity")), Some(Coding::Identity));
        assert_eq!(Coding::of(Some("GZIP")), Some(Coding::Gzip));
        assert_eq!(Coding::of(Some("identity, br")), Some(Coding::Br));
        assert_eq!(Coding::of(Some("gzip, br")), None);
        assert_eq!(Coding::of(Some("gzip, gzip")), None);
        assert_eq!(Coding::of(Some("deflate")), None);
    }

    #[test]
    fn one_whole_gzip_member_only() {
        let card = br#"{"name":"A"}"#;
        for step in [1, 3, 4096] {
            assert_eq!(decode(Coding::Gzip, &gzip(card), 100, step).unwrap(), card);
            let mut two = gzip(card);
            two.extend(gzip(b"{}"));
            assert!(
                matches!(decode(Coding::Gzip, &two, 100, step), Err(DecodeError::Malformed(m)) if m.contains("after the end"))
            );
            let whole = gzip(card);
            let cut = &whole[..whole.len() - 1];
            assert!(matches!(
                decode(Coding::Gzip, cut, 100, step),
                Err(DecodeError::Malformed(_))
            ));
            assert!(matches!(
                decode(Coding::Gzip, &whole, 5, step),
                Err(DecodeError::TooLarge)
            ));
        }
        assert!(matches!(
            decode(Coding::Gzip, card, 100, 1),
            Err(DecodeError::Malformed(_))
        ));
    }
}
