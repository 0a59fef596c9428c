//! Reading inputs (a file or stdin, bounded) and writing outputs (stdout, a new file, or a file
//! replaced through a temporary file and a rename).

use crate::Failure;
use a2a_card::{Error, ErrorCode};
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The label of standard input in error lines.
pub(crate) const STDIN: &str = "<stdin>";
/// The label of standard output in error lines.
pub(crate) const STDOUT: &str = "<stdout>";
/// The label of standard error in error lines.
pub(crate) const STDERR: &str = "<stderr>";

/// The largest key, JWKS or trust-store file read, in bytes.
pub(crate) const MAX_KEY_FILE_BYTES: usize = 1024 * 1024;

/// An input read into memory, with the name used for it in error lines.
pub(crate) struct Input {
    /// The bytes.
    pub(crate) bytes: Vec<u8>,
    /// The path as given, or `<stdin>`.
    pub(crate) source: String,
}

/// True when `path` means standard input (`None` or `-`).
pub(crate) fn is_stdin(path: Option<&Path>) -> bool {
    match path {
        None => true,
        Some(p) => p.as_os_str() == "-",
    }
}

/// Reads `path` (`None` or `-` means stdin), refusing more than `max_bytes` bytes without
/// reading past the limit.
pub(crate) fn read_input(path: Option<&Path>, max_bytes: usize) -> Result<Input, Failure> {
    let (reader, source): (Box<dyn Read>, String) = match path {
        Some(p) if !is_stdin(Some(p)) => {
            let source = p.display().to_string();
            match File::open(p) {
                Ok(f) => (Box::new(f), source),
                Err(e) => return Err(io_failure(format!("cannot open {source}: {e}"), source)),
            }
        }
        _ => (Box::new(std::io::stdin().lock()), STDIN.to_string()),
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

/// Reads a key, JWKS or trust-store file (`-` means stdin) as text. Every failure counts as a
/// failed key retrieval (exit code 3).
pub(crate) fn read_key_text(path: &Path) -> Result<(String, String), Failure> {
    let input = read_input(Some(path), MAX_KEY_FILE_BYTES).map_err(Failure::key_retrieval)?;
    match String::from_utf8(input.bytes) {
        Ok(text) => Ok((text, input.source)),
        Err(_) => Err(Failure::new(
            Error::new(
                ErrorCode::InvalidKey,
                "a key file must be text (PEM or JSON); this one is not UTF-8",
            ),
            input.source,
        )
        .key_retrieval()),
    }
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

/// Creates `path`, which must not exist yet, and writes `bytes` to it. On unix the file is
/// created with `mode` (before any byte is written). A file this call created is removed again
/// when writing fails.
pub(crate) fn create_new_file(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<(), Failure> {
    let source = path.display().to_string();
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    set_mode(&mut options, mode);
    let mut file = match options.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(io_failure(
                format!("{source} already exists; use --force to replace it"),
                source,
            ))
        }
        Err(e) => return Err(io_failure(format!("cannot create {source}: {e}"), source)),
    };
    if let Err(e) = file.write_all(bytes).and_then(|()| file.sync_all()) {
        drop(file);
        let _ = std::fs::remove_file(path);
        return Err(io_failure(format!("cannot write {source}: {e}"), source));
    }
    Ok(())
}

/// Replaces (or creates) `path` with `bytes` through a temporary file in the same directory and
/// a rename, so that `path` holds either its old content or the whole new content, never a part.
/// On unix the temporary file is created with `mode`, or, when `mode` is `None` and `path`
/// exists, gets the permissions of the file it replaces. The temporary file never outlives a
/// failure.
pub(crate) fn replace_file(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<(), Failure> {
    let source = path.display().to_string();
    let Some(name) = path.file_name() else {
        return Err(io_failure(format!("{source} does not name a file"), source));
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // When it replaces a file, the temporary file is readable by its owner only until it gets
    // the permissions of the file it replaces.
    let temp_mode = mode.or_else(|| path.exists().then_some(0o600));
    let mut temp = None;
    for attempt in 0..100u32 {
        let mut temp_name = std::ffi::OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".a2a-card-{}-{attempt}.tmp", std::process::id()));
        let candidate = dir.join(temp_name);
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        set_mode(&mut options, temp_mode);
        match options.open(&candidate) {
            Ok(f) => {
                temp = Some((candidate, f));
                break;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(io_failure(
                    format!("cannot create a temporary file in {}: {e}", dir.display()),
                    source,
                ))
            }
        }
    }
    let Some((temp_path, mut file)) = temp else {
        return Err(io_failure(
            format!("cannot create a temporary file in {}", dir.display()),
            source,
        ));
    };
    let result = (|| -> std::io::Result<()> {
        file.write_all(bytes)?;
        if mode.is_none() {
            if let Ok(meta) = std::fs::metadata(path) {
                file.set_permissions(meta.permissions())?;
            }
        }
        file.sync_all()?;
        drop(file);
        std::fs::rename(&temp_path, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&temp_path);
        return Err(io_failure(format!("cannot write {source}: {e}"), source));
    }
    Ok(())
}

#[cfg(unix)]
fn set_mode(options: &mut OpenOptions, mode: Option<u32>) {
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(mode) = mode {
        options.mode(mode);
    }
}

#[cfg(not(unix))]
fn set_mode(_options: &mut OpenOptions, _mode: Option<u32>) {}

/// `s` with control characters escaped, so that text taken from a card or a key file cannot
/// break a line of output or drive the terminal.
pub(crate) fn printable(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// `s` as a JSON string literal (quoted, escaped): for names taken from cards and keys.
pub(crate) fn quoted(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

pub(crate) fn io_failure(message: String, source: impl Into<String>) -> Failure {
    Failure::new(Error::new(ErrorCode::Io, message), source)
}
