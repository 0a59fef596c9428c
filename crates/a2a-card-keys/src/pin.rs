//! The PIN of a token: from the URI's `pin-value`, from the file its `pin-source` names, or
//! from the caller (the CLI's `A2A_CARD_PKCS11_PIN`). It is wiped from memory when dropped and
//! never shown: `Debug` prints `Pin(***)`.
//!
//! A token locks after a few wrong PINs, so text that cannot be a PIN is refused before it
//! reaches the token: empty, longer than [`MAX_PIN_BYTES`], a PEM block, or holding a control
//! character (a NUL, a second line; one trailing line end of a file is dropped, as `echo` writes
//! it). A `pin-source` must be a regular file: it is opened without blocking (a FIFO or a
//! terminal never hangs the process) and refused when it is anything else. No message shows any
//! of the text.

use a2a_card::{Error, ErrorCode};
use std::borrow::Cow;
use std::fmt;
use zeroize::Zeroizing;

/// The longest PIN accepted, in bytes.
pub const MAX_PIN_BYTES: usize = 256;

/// A PIN. Never displayed.
#[derive(Clone)]
pub struct Pin(Zeroizing<String>);

impl Pin {
    /// A PIN from its text, as it is (see [`Pin::checked`] for one read from a file or a
    /// variable).
    ///
    /// ```
    /// let pin = a2a_card_keys::Pin::new("1234".to_string());
    /// assert_eq!(format!("{pin:?}"), "Pin(***)");
    /// ```
    pub fn new(text: String) -> Pin {
        Pin(Zeroizing::new(text))
    }

    /// A PIN from text that `source` (how the message names where it came from) holds, refused
    /// with `usage` when it cannot be a PIN: empty, longer than [`MAX_PIN_BYTES`], a PEM block,
    /// or with a control character (a NUL, a line end). The message never shows the text.
    ///
    /// ```
    /// use a2a_card_keys::Pin;
    /// assert!(Pin::checked("4711".to_string(), "the variable PIN").is_ok());
    /// let err = Pin::checked("-----BEGIN PRIVATE KEY-----\nMC4C".to_string(), "the variable PIN").unwrap_err();
    /// assert_eq!(err.code().as_str(), "usage");
    /// assert!(err.message().contains("PEM") && !err.message().contains("MC4C"));
    /// ```
    pub fn checked(text: String, source: &str) -> Result<Pin, Error> {
        // Wrapped first, so that a refused text is wiped too, and never copied.
        let pin = Pin::new(text);
        match problem(pin.expose()) {
            Some(why) => Err(not_a_pin(source, &why)),
            None => Ok(pin),
        }
    }

    /// The PIN's text, to hand to the token.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Pin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Pin(***)")
    }
}

/// Why `text` cannot be a PIN, if it cannot.
fn problem(text: &str) -> Option<Cow<'static, str>> {
    let why = if text.is_empty() {
        "is empty"
    } else if text.len() > MAX_PIN_BYTES {
        return Some(too_long().into());
    } else if text.contains("-----BEGIN") || text.contains("-----END") {
        "holds a PEM block"
    } else if text.contains('\0') {
        "holds a NUL byte"
    } else if text.contains(['\n', '\r']) {
        "holds more than one line"
    } else if text.chars().any(char::is_control) {
        "holds a control character"
    } else {
        return None;
    };
    Some(why.into())
}

/// The reason for a text longer than [`MAX_PIN_BYTES`].
fn too_long() -> String {
    format!("is longer than {MAX_PIN_BYTES} bytes")
}

/// `usage`: the text of `source` cannot be a PIN, for the reason `why`.
fn not_a_pin(source: &str, why: &str) -> Error {
    Error::new(
        ErrorCode::Usage,
        format!(
            "{source} {why}, so it cannot be a PIN; it was not sent to the token (tokens lock after a few \
             wrong PINs) and is not shown"
        ),
    )
}

#[cfg(feature = "pkcs11")]
fn unavailable(message: String) -> Error {
    Error::new(crate::error::ErrorCode::KeyUnavailable.into(), message)
}

/// Opens `path` for reading without blocking and without following it into a FIFO's or a
/// device's open, and refuses anything but a regular file.
#[cfg(feature = "pkcs11")]
fn open_regular(path: &str) -> Result<std::fs::File, Error> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| {
        unavailable(format!(
            "cannot open the pin-source file {path}: {}",
            std::io::Error::from(e)
        ))
    })?;
    let file = std::fs::File::from(fd);
    let meta = file
        .metadata()
        .map_err(|e| unavailable(format!("cannot read the pin-source file {path}: {e}")))?;
    if !meta.is_file() {
        let kind = {
            use std::os::unix::fs::FileTypeExt;
            let t = meta.file_type();
            if t.is_fifo() {
                "a FIFO"
            } else if t.is_dir() {
                "a directory"
            } else if t.is_socket() {
                "a socket"
            } else if t.is_char_device() || t.is_block_device() {
                "a device"
            } else {
                "not a regular file"
            }
        };
        return Err(Error::new(
            ErrorCode::Usage,
            format!("the pin-source {path} is {kind}; it must name a regular file holding the PIN"),
        ));
    }
    Ok(file)
}

/// The PIN a URI gives: `pin-value` as it is, or the contents of the file `pin-source` names
/// (`file:/path`, `file:///path` or a plain path; one trailing line end dropped, as `echo`
/// writes it). `None` when the URI gives neither.
#[cfg(feature = "pkcs11")]
pub(crate) fn from_uri(uri: &crate::pkcs11_uri::Pkcs11Uri) -> Result<Option<Pin>, Error> {
    use std::io::Read;
    if let Some(value) = uri.pin_value() {
        let text = std::str::from_utf8(value).map_err(|_| {
            Error::new(
                ErrorCode::Usage,
                "the pkcs11: URI pin-value (not shown) is not UTF-8 once decoded",
            )
        })?;
        return Pin::checked(text.to_string(), "the pkcs11: URI pin-value").map(Some);
    }
    let Some(source) = uri.pin_source() else {
        return Ok(None);
    };
    let path = source
        .strip_prefix("file://")
        .or_else(|| source.strip_prefix("file:"))
        .unwrap_or(source);
    if path.is_empty() || source.starts_with('|') {
        return Err(Error::new(
            ErrorCode::Usage,
            "pin-source names a file: pin-source=file:/run/secrets/pin or a path (commands are not run)",
        ));
    }
    let file = open_regular(path)?;
    // The PIN, a line end, and one byte more to see that there is more.
    let bound = MAX_PIN_BYTES + 3;
    let mut bytes = Zeroizing::new(Vec::new());
    file.take(bound as u64)
        .read_to_end(&mut bytes)
        .map_err(|e| unavailable(format!("cannot read the pin-source file {path}: {e}")))?;
    let what = format!("the pin-source file {path}");
    if bytes.len() >= bound {
        return Err(not_a_pin(&what, &too_long()));
    }
    let text = std::str::from_utf8(&bytes).map_err(|_| not_a_pin(&what, "is not UTF-8 text"))?;
    // One line end dropped, as `echo` writes it; the text is copied once, into the PIN.
    let text = match text.strip_suffix('\n') {
        Some(line) => line.strip_suffix('\r').unwrap_or(line),
        None => text,
    };
    Pin::checked(text.to_string(), &what).map(Some)
}
