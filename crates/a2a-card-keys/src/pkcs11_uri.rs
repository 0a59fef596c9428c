//! `pkcs11:` URIs (RFC 7512): which module, token and object a key reference names, and how
//! its PIN is found.
//!
//! Written by hand because no maintained Rust crate parses RFC 7512. The reader follows the
//! RFC's grammar with its errata: path attributes after `pkcs11:` separated by `;`, query
//! attributes after `?` separated by `&`, each value percent-decoded once (a `+` is a plus,
//! never a space), no attribute twice, never both `pin-value` and `pin-source`. Names the RFC
//! does not define are refused rather than ignored, so that a misspelt `objet=` cannot match
//! every key on a token. [`Pkcs11Uri`]'s `Display` writes the URI back with every byte outside
//! the unreserved set percent-encoded and the `pin-value` replaced by `***`.
//!
//! ```
//! use a2a_card_keys::pkcs11_uri::Pkcs11Uri;
//! let uri = Pkcs11Uri::parse("pkcs11:token=CI%20token;object=card-2026;id=%01?pin-value=1234").unwrap();
//! assert_eq!(uri.token(), Some("CI token"));
//! assert_eq!(uri.object(), Some("card-2026"));
//! assert_eq!(uri.id(), Some(&[1u8][..]));
//! assert_eq!(uri.to_string(), "pkcs11:token=CI%20token;object=card-2026;id=%01?pin-value=***");
//! ```

use a2a_card::{Error, ErrorCode};
use std::fmt;
use std::path::PathBuf;

/// The path attributes of RFC 7512 section 2.3, in the order the URI is written back.
pub const PATH_ATTRIBUTES: &[&str] = &[
    "library-manufacturer",
    "library-description",
    "library-version",
    "slot-manufacturer",
    "slot-description",
    "slot-id",
    "manufacturer",
    "model",
    "serial",
    "token",
    "object",
    "type",
    "id",
];

/// The query attributes of RFC 7512 section 2.3.
pub const QUERY_ATTRIBUTES: &[&str] = &["pin-source", "pin-value", "module-name", "module-path"];

/// A parsed `pkcs11:` URI: its attributes with their percent-decoded values, in the order given.
#[derive(Clone, PartialEq, Eq)]
pub struct Pkcs11Uri {
    path: Vec<(String, Vec<u8>)>,
    query: Vec<(String, Vec<u8>)>,
}

/// The object type a URI names with `type=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectType {
    /// `type=private`: a private key (what signs).
    Private,
    /// `type=public`: a public key.
    Public,
    /// `type=cert`, `secret-key` or `data`: nothing a card is signed with.
    Other,
}

/// The error for any part of a URI after its `pin-value` began: none of it is shown, since it
/// may be a piece of the PIN.
const AFTER_PIN: &str = "the pkcs11: URI has a part after its pin-value (not shown) that is not a valid \
     attribute; a &, ;, =, %, # or space in a PIN is written percent-encoded (%26, %3B, %3D, %25, %23, %20)";

/// The error for a `pin-value` whose text is not valid URI text.
const PIN_VALUE_BYTES: &str =
    "the pin-value (not shown) holds a byte that must be percent-encoded, or a % not \
     followed by two hex digits; write a PIN's &, ;, %, # and spaces as %26, %3B, %25, %23, %20";

fn usage(message: String) -> Error {
    Error::new(ErrorCode::Usage, message)
}

/// Bytes a `pkcs11:` URI may hold literally in the path (RFC 7512 `pk11-pchar`, without `%`).
fn path_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~:[]@!$'()*+,=&".contains(&b)
}

/// Bytes a `pkcs11:` URI may hold literally in the query (`pk11-qchar`, without `%`).
fn query_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~:[]@!$'()*+,=/?|".contains(&b)
}

fn decode(value: &str, in_query: bool, name: &str) -> Result<Vec<u8>, Error> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            match hex {
                Some(v) => out.push(v),
                None => {
                    return Err(usage(format!(
                        "the pkcs11: URI attribute {name} has a % not followed by two hex digits"
                    )))
                }
            }
            i += 3;
            continue;
        }
        let allowed = if in_query { query_char(b) } else { path_char(b) };
        if !allowed {
            return Err(usage(format!(
                "the pkcs11: URI attribute {name} holds {:?}, which RFC 7512 says must be percent-encoded",
                char::from(b)
            )));
        }
        out.push(b);
        i += 1;
    }
    Ok(out)
}

fn encode(out: &mut String, value: &[u8], everything: bool) {
    for &b in value {
        if !everything && (b.is_ascii_alphanumeric() || b"-._~".contains(&b)) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

impl Pkcs11Uri {
    /// Reads a `pkcs11:` URI (the scheme in any case). Refused with `usage`: another scheme, an
    /// attribute RFC 7512 does not define, one given twice, an empty name, a value with a byte
    /// that must be percent-encoded or a broken `%XX`, `pin-value` and `pin-source` together, a
    /// `type` or `slot-id` the RFC does not allow. No message shows a PIN.
    ///
    /// ```
    /// use a2a_card_keys::pkcs11_uri::Pkcs11Uri;
    /// let err = Pkcs11Uri::parse("pkcs11:objet=k").unwrap_err();
    /// assert!(err.message().contains("objet"));
    /// let err = Pkcs11Uri::parse("pkcs11:object=k?pin-value=1&pin-source=file:/p").unwrap_err();
    /// assert!(!err.message().contains("=1"));
    /// ```
    pub fn parse(text: &str) -> Result<Pkcs11Uri, Error> {
        let rest = match text.get(..7) {
            Some(scheme) if scheme.eq_ignore_ascii_case("pkcs11:") => &text[7..],
            _ => return Err(usage("a PKCS#11 URI begins with pkcs11:".to_string())),
        };
        if rest.contains('#') {
            return Err(usage(
                "a pkcs11: URI has no fragment: a # in a value must be written %23".to_string(),
            ));
        }
        let (path, query) = match rest.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (rest, None),
        };
        let mut uri = Pkcs11Uri {
            path: Vec::new(),
            query: Vec::new(),
        };
        // Once a `pin-value` has begun, nothing after it is shown: a `&`, `;` or `=` in a PIN that
        // should have been percent-encoded makes its pieces look like parts of the URI.
        let mut pin_started = false;
        for (part, in_query) in [(path, false), (query.unwrap_or(""), true)] {
            if part.is_empty() {
                continue;
            }
            let separator = if in_query { '&' } else { ';' };
            for (i, attr) in part.split(separator).enumerate() {
                let is_pin = attr.starts_with("pin-value=") || attr == "pin-value";
                if let Err(e) = uri.push_attr(attr, in_query, i + 1) {
                    return Err(if pin_started {
                        usage(AFTER_PIN.to_string())
                    } else if is_pin && in_query {
                        usage(PIN_VALUE_BYTES.to_string())
                    } else {
                        e
                    });
                }
                pin_started |= is_pin;
            }
        }
        if uri.query_attr("pin-value").is_some() && uri.query_attr("pin-source").is_some() {
            return Err(usage(
                "the pkcs11: URI gives both pin-value and pin-source; give one (RFC 7512 section 2.3)"
                    .to_string(),
            ));
        }
        if let Some(t) = uri.path_attr("type") {
            if !matches!(t, b"private" | b"public" | b"cert" | b"secret-key" | b"data") {
                return Err(usage(
                    "the pkcs11: URI type is one of private, public, cert, secret-key, data".to_string(),
                ));
            }
        }
        if let Some(id) = uri.path_attr("slot-id") {
            if id.is_empty() || !id.iter().all(u8::is_ascii_digit) || uri.slot_id().is_none() {
                return Err(usage("the pkcs11: URI slot-id is a decimal number".to_string()));
            }
        }
        for name in [
            "token",
            "object",
            "manufacturer",
            "model",
            "serial",
            "module-path",
            "module-name",
        ] {
            let value = uri.path_attr(name).or_else(|| uri.query_attr(name));
            if value.is_some_and(|v| std::str::from_utf8(v).is_err()) {
                return Err(usage(format!(
                    "the pkcs11: URI attribute {name} is not UTF-8 once decoded"
                )));
            }
        }
        Ok(uri)
    }

    /// Reads one `NAME=VALUE` part of the path (`in_query` false) or the query into the URI.
    /// `index` counts from 1; a part that is not `NAME=VALUE` is named by it, not shown (it may
    /// be a PIN whose `pin-value=` was left out).
    fn push_attr(&mut self, attr: &str, in_query: bool, index: usize) -> Result<(), Error> {
        let (name, value) = attr.split_once('=').ok_or_else(|| {
            usage(format!(
                "part {index} of the pkcs11: URI's {} is not NAME=VALUE (it is not shown)",
                if in_query {
                    "query (after ?, separated by &)"
                } else {
                    "path (separated by ;)"
                }
            ))
        })?;
        let known = if in_query {
            QUERY_ATTRIBUTES
        } else {
            PATH_ATTRIBUTES
        };
        if !known.contains(&name) {
            let (other, where_) = if in_query {
                (PATH_ATTRIBUTES, "path (before ?, separated by ;)")
            } else {
                (QUERY_ATTRIBUTES, "query (after ?, separated by &)")
            };
            let hint = if other.contains(&name) {
                format!("; it belongs in the {where_}")
            } else {
                format!(" (known: {})", known.join(", "))
            };
            return Err(usage(format!(
                "the pkcs11: URI attribute {:?} is not one RFC 7512 defines here{hint}",
                shorten(name)
            )));
        }
        let list = if in_query { &mut self.query } else { &mut self.path };
        if list.iter().any(|(n, _)| n == name) {
            return Err(usage(format!("the pkcs11: URI gives {name} twice")));
        }
        let value = decode(value, in_query, name)?;
        list.push((name.to_string(), value));
        Ok(())
    }

    fn path_attr(&self, name: &str) -> Option<&[u8]> {
        self.path
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }

    fn query_attr(&self, name: &str) -> Option<&[u8]> {
        self.query
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }

    fn text(&self, name: &str) -> Option<&str> {
        self.path_attr(name)
            .or_else(|| self.query_attr(name))
            .and_then(|v| std::str::from_utf8(v).ok())
    }

    /// A path attribute's value as text, for the attributes matched against token, slot and
    /// library information (`token`, `manufacturer`, `model`, `serial`, `slot-description`,
    /// `slot-manufacturer`, `library-manufacturer`, `library-description`, `library-version`).
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.path_attr(name).and_then(|v| std::str::from_utf8(v).ok())
    }

    /// `token`: the token's label.
    pub fn token(&self) -> Option<&str> {
        self.text("token")
    }

    /// `object`: the key's label (CKA_LABEL).
    pub fn object(&self) -> Option<&str> {
        self.text("object")
    }

    /// `id`: the key's CKA_ID bytes.
    pub fn id(&self) -> Option<&[u8]> {
        self.path_attr("id")
    }

    /// `type`.
    pub fn object_type(&self) -> Option<ObjectType> {
        self.path_attr("type").map(|t| match t {
            b"private" => ObjectType::Private,
            b"public" => ObjectType::Public,
            _ => ObjectType::Other,
        })
    }

    /// `slot-id`.
    pub fn slot_id(&self) -> Option<u64> {
        self.text("slot-id").and_then(|s| s.parse().ok())
    }

    /// `module-path`: the module file (or, with `module-name`, the directory that holds it).
    pub fn module_path(&self) -> Option<PathBuf> {
        self.text("module-path").map(PathBuf::from)
    }

    /// `module-name`: the module's name without directory, `lib` prefix or suffix.
    pub fn module_name(&self) -> Option<&str> {
        self.text("module-name")
    }

    /// `pin-value`, when the URI carries the PIN itself.
    pub fn pin_value(&self) -> Option<&[u8]> {
        self.query_attr("pin-value")
    }

    /// `pin-source`: where the PIN is read from (`file:/path` or a path).
    pub fn pin_source(&self) -> Option<&str> {
        self.text("pin-source")
    }

    /// The same URI with `object` and `id` set (for a key just generated), other attributes
    /// kept.
    #[must_use]
    pub fn with_object(mut self, label: Option<&str>, id: &[u8]) -> Pkcs11Uri {
        self.path
            .retain(|(n, _)| n != "id" && n != "type" && (label.is_none() || n != "object"));
        if let Some(label) = label {
            self.path.push(("object".to_string(), label.as_bytes().to_vec()));
        }
        self.path.push(("type".to_string(), b"private".to_vec()));
        self.path.push(("id".to_string(), id.to_vec()));
        self
    }
}

fn shorten(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

/// The URI, percent-encoded, with `pin-value` shown as `***`.
impl fmt::Display for Pkcs11Uri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::from("pkcs11:");
        let mut path: Vec<&(String, Vec<u8>)> = self.path.iter().collect();
        path.sort_by_key(|(n, _)| PATH_ATTRIBUTES.iter().position(|p| p == n));
        for (i, (name, value)) in path.iter().enumerate() {
            if i > 0 {
                out.push(';');
            }
            out.push_str(name);
            out.push('=');
            encode(&mut out, value, name == "id");
        }
        for (i, (name, value)) in self.query.iter().enumerate() {
            out.push(if i == 0 { '?' } else { '&' });
            out.push_str(name);
            out.push('=');
            if name == "pin-value" {
                out.push_str("***");
            } else if name == "module-path" || name == "pin-source" {
                // Keep a path readable: its slashes and colons are allowed in the query.
                for &b in value {
                    if query_char(b) && b != b'&' {
                        out.push(char::from(b));
                    } else {
                        out.push_str(&format!("%{b:02X}"));
                    }
                }
            } else {
                encode(&mut out, value, false);
            }
        }
        f.write_str(&out)
    }
}

/// The `pin-value` is wiped from memory when the URI is dropped.
impl Drop for Pkcs11Uri {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        for (name, value) in &mut self.query {
            if name == "pin-value" {
                value.zeroize();
            }
        }
    }
}

/// Like `Display`: the PIN is never shown.
impl fmt::Debug for Pkcs11Uri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pkcs11Uri({self})")
    }
}
