//! The PIN of a token: from the URI's `pin-value`, from the file its `pin-source` names, or
//! from the caller (the CLI's `A2A_CARD_PKCS11_PIN`). It is wiped from memory when dropped and
//! never shown: `Debug` prints `Pin(***)`.

use a2a_card::{Error, ErrorCode};
use std::fmt;
use std::io::Read;
use zeroize::Zeroizing;

/// The largest PIN file read, in bytes.
const MAX_PIN_FILE_BYTES: u64 = 4096;

/// A PIN. Never displayed.
#[derive(Clone)]
pub struct Pin(Zeroizing<String>);

impl Pin {
    /// A PIN from its text.
    ///
    /// ```
    /// let pin = a2a_card_keys::Pin::new("1234".to_string());
    /// assert_eq!(format!("{pin:?}"), "Pin(***)");
    /// ```
    pub fn new(text: String) -> Pin {
        Pin(Zeroizing::new(text))
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

fn unavailable(message: String) -> Error {
    Error::new(ErrorCode::KeyUnavailable, message)
}

/// The PIN a URI gives: `pin-value` as it is, or the contents of the file `pin-source` names
/// (`file:/path`, `file:///path` or a plain path; one trailing line end dropped, as `echo`
/// writes it). `None` when the URI gives neither.
pub(crate) fn from_uri(uri: &crate::pkcs11_uri::Pkcs11Uri) -> Result<Option<Pin>, Error> {
    if let Some(value) = uri.pin_value() {
        let text = String::from_utf8(value.to_vec()).map_err(|_| {
            Error::new(
                ErrorCode::Usage,
                "the pkcs11: URI pin-value is not UTF-8 once decoded",
            )
        })?;
        return Ok(Some(Pin::new(text)));
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
    let file = std::fs::File::open(path)
        .map_err(|e| unavailable(format!("cannot open the pin-source file {path}: {e}")))?;
    let mut bytes = Zeroizing::new(Vec::new());
    file.take(MAX_PIN_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| unavailable(format!("cannot read the pin-source file {path}: {e}")))?;
    if bytes.len() as u64 > MAX_PIN_FILE_BYTES {
        return Err(unavailable(format!(
            "the pin-source file {path} is larger than {MAX_PIN_FILE_BYTES} bytes; it should hold the PIN only"
        )));
    }
    let mut text = Zeroizing::new(
        String::from_utf8(bytes.to_vec())
            .map_err(|_| unavailable(format!("the pin-source file {path} is not UTF-8 text")))?,
    );
    if text.ends_with('\n') {
        text.pop();
        if text.ends_with('\r') {
            text.pop();
        }
    }
    if text.is_empty() {
        return Err(unavailable(format!("the pin-source file {path} is empty")));
    }
    Ok(Some(Pin::new(text.to_string())))
}
