//! Reading inputs (a file or stdin, bounded) and writing outputs.

use crate::Failure;
use a2a_card::{Error, ErrorCode};
use std::io::{Read, Write};
use std::path::Path;

/// The label of standard input in error lines.
pub(crate) const STDIN: &str = "<stdin>";
/// The label of standard output in error lines.
pub(crate) const STDOUT: &str = "<stdout>";
/// The label of standard error in error lines.
pub(crate) const STDERR: &str = "<stderr>";

/// An input read into memory, with the name used for it in error lines.
pub(crate) struct Input {
    /// The bytes.
    pub(crate) bytes: Vec<u8>,
    /// The path as given, or `<stdin>`.
    pub(crate) source: String,
}

/// Reads `path` (`None` or `-` means stdin), refusing more than `max_bytes` bytes without
/// reading past the limit.
pub(crate) fn read_input(path: Option<&Path>, max_bytes: usize) -> Result<Input, Failure> {
    let (reader, source): (Box<dyn Read>, String) = match path {
        None => (Box::new(std::io::stdin().lock()), STDIN.to_string()),
        Some(p) if p.as_os_str() == "-" => (Box::new(std::io::stdin().lock()), STDIN.to_string()),
        Some(p) => {
            let source = p.display().to_string();
            match std::fs::File::open(p) {
                Ok(f) => (Box::new(f), source),
                Err(e) => return Err(io_failure(format!("cannot open {source}: {e}"), source)),
            }
        }
    };
    let mut bytes = Vec::new();
    let cap = u64::try_from(max_bytes).unwrap_or(u64::MAX).saturating_add(1);
    if let Err(e) = reader.take(cap).read_to_end(&mut bytes) {
        return Err(io_failure(format!("cannot read {source}: {e}"), source));
    }
    if bytes.len() > max_bytes {
        let err = Error::new(
            ErrorCode::InputTooLarge,
            format!("the input is more than the limit of {max_bytes} bytes"),
        )
        .at("");
        return Err(Failure::new(err, source));
    }
    Ok(Input { bytes, source })
}

/// Writes `bytes` to stdout exactly, and flushes.
pub(crate) fn write_stdout(bytes: &[u8]) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| io_failure(format!("cannot write the output: {e}"), STDOUT))
}

/// Writes one line to stderr.
pub(crate) fn write_stderr_line(line: &str) -> Result<(), Failure> {
    let mut err = std::io::stderr().lock();
    writeln!(err, "{line}").map_err(|e| io_failure(format!("cannot write the report: {e}"), STDERR))
}

fn io_failure(message: String, source: impl Into<String>) -> Failure {
    Failure::new(Error::new(ErrorCode::Io, message), source)
}
