//! The policy file: what the service trusts and how it decides, read whole or refused whole.
//!
//! The members of `verify` are the rows of the core's options table
//! ([`a2a_card::request::VERIFY`]) by their canonical names, each read by its row's kind into
//! one [`VerifyRequest`] (the way the npm and Python packages read theirs), then built by the
//! core. Every error names its place in the file as a JSON Pointer (`/verify/max_chain`).

use a2a_card::request::{
    option, Input, Kind, OptionValue, Quotes, ReadyVerifier, Spelling, VerifyRequest, VERIFY,
};
use a2a_card::{Error, ErrorCode, Limits};
use a2a_card_fetch::{FetchOptions, RemoteOptions, Roots};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The largest policy file, and the largest file it names (a key, a CA bundle, a CRL).
///
/// ```
/// assert_eq!(a2a_card_serve::MAX_POLICY_FILE_BYTES, 4 << 20);
/// ```
pub const MAX_POLICY_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The most retrievals at once for one origin behind `/v1/verify-remote`, by default.
///
/// ```
/// assert_eq!(a2a_card_serve::DEFAULT_PER_ORIGIN_FETCHES, 4);
/// ```
pub const DEFAULT_PER_ORIGIN_FETCHES: usize = 4;

/// The rows of [`VERIFY`] the service does not read: `host_crypto` is the npm package's
/// choice of crypto, and `now` would freeze the clock of a long-running service.
const NOT_HERE: &[&str] = &["host_crypto", "now"];

/// The members of `fetch`.
const FETCH_MEMBERS: &[&str] = &[
    "allow_loopback",
    "ca_file",
    "connect_timeout_ms",
    "total_timeout_ms",
    "max_body_bytes",
    "max_jwks_keys",
    "max_jku_fetches",
    "per_origin_fetches",
    "memory_cache",
];

/// A policy read from its file, ready to answer requests.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("a2a-card-serve-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("policy.json");
/// std::fs::write(&path, r#"{"verify": {"mode": "off"}, "audit": true}"#).unwrap();
/// let policy = a2a_card_serve::Policy::load(&path).unwrap();
/// assert!(policy.off() && policy.audit);
/// std::fs::write(&path, r#"{"verify": {"mode": "off", "max_chain": 9}}"#).unwrap();
/// let e = a2a_card_serve::Policy::load(&path).unwrap_err();
/// assert_eq!(e.pointer(), Some("/verify/max_chain"));
/// assert_eq!(e.message(), "/verify/max_chain must be 1 to 8, got 9");
/// ```
#[derive(Debug, Clone)]
pub struct Policy {
    /// The file it was read from.
    pub path: PathBuf,
    /// Trust roots and verify options (`None` under mode `off`: nothing is verified).
    pub verifier: Option<ReadyVerifier>,
    /// Report, never refuse: every verdict is answered with 200.
    pub audit: bool,
    /// The options of `/v1/verify-remote` (the verify options, the `jku` allowlist, its limits).
    pub remote: RemoteOptions,
    /// The options of the one fetcher (a new fetcher is made only when they change).
    pub fetch: FetchOptions,
    /// The most retrievals at once for one origin.
    pub per_origin_fetches: usize,
}

impl Policy {
    /// Under mode `off` nothing is verified.
    pub fn off(&self) -> bool {
        self.verifier.is_none()
    }

    /// The mode's name, as reports and metrics say it (`require`, `all`, `if-present`, `off`).
    pub fn mode(&self) -> &'static str {
        match &self.verifier {
            None => "off",
            Some(v) => v.options.mode.as_str(),
        }
    }

    /// Reads the policy file at `path`: the whole file or an error about one place of it (its
    /// JSON Pointer and the file's name), never part of it.
    pub fn load(path: &Path) -> Result<Policy, Error> {
        let source = path.display().to_string();
        load_at(path).map_err(|e| e.from_input(source, true))
    }
}

fn load_at(path: &Path) -> Result<Policy, Error> {
    let text = read_file(path)?;
    let doc = a2a_card::canonical::parse_json(&text, &Limits::default())?;
    let top = object(&doc, "")?;
    refuse_unknown(top, "", &["verify", "audit", "fetch"])?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let audit = match top.get("audit") {
        None => false,
        Some(v) => v.as_bool().ok_or_else(|| wrong("/audit", "true or false"))?,
    };
    let empty = Map::new();
    let verify = match top.get("verify") {
        None => &empty,
        Some(v) => object(v, "/verify")?,
    };
    let fetch = match top.get("fetch") {
        None => &empty,
        Some(v) => object(v, "/fetch")?,
    };
    let off = verify.get("mode").and_then(Value::as_str) == Some("off");
    let mut request = VerifyRequest {
        fetched: true,
        ..VerifyRequest::default()
    };
    for (name, value) in verify {
        if off && name == "mode" {
            continue;
        }
        read_option(&mut request, name, value, dir)?;
    }
    let verifier = if off {
        None
    } else {
        Some(request.build().map_err(located)?)
    };
    let options = match &verifier {
        Some(v) => v.options.clone(),
        None => request.options().map_err(located)?,
    };
    refuse_unknown(fetch, "/fetch", FETCH_MEMBERS)?;
    let mut fetch_options = FetchOptions {
        memory_cache: true,
        ..FetchOptions::default()
    };
    let mut remote = RemoteOptions {
        verify: options,
        jku_allow: request.allow_jku.clone(),
        ..RemoteOptions::default()
    };
    let mut per_origin_fetches = DEFAULT_PER_ORIGIN_FETCHES;
    for (name, value) in fetch {
        let at = format!("/fetch/{name}");
        let count = |min: u64, max: u64| -> Result<u64, Error> {
            value
                .as_u64()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| wrong(&at, &format!("a whole number from {min} to {max}")))
        };
        let flag = || value.as_bool().ok_or_else(|| wrong(&at, "true or false"));
        match name.as_str() {
            "allow_loopback" => fetch_options.allow_loopback = flag()?,
            "memory_cache" => fetch_options.memory_cache = flag()?,
            "ca_file" => {
                let file = value.as_str().ok_or_else(|| wrong(&at, "a file name"))?;
                let pem = read_file(&dir.join(file)).map_err(|e| e.at(&at))?;
                fetch_options.roots = Roots::CaPem(pem);
            }
            "connect_timeout_ms" => {
                fetch_options.connect_timeout = Duration::from_millis(count(1, 86_400_000)?)
            }
            "total_timeout_ms" => fetch_options.total_timeout = Duration::from_millis(count(1, 86_400_000)?),
            "max_body_bytes" => fetch_options.max_body_bytes = usize_of(count(1, 1 << 30)?),
            "max_jwks_keys" => remote.max_jwks_keys = usize_of(count(1, 1024)?),
            "max_jku_fetches" => remote.max_jku_fetches = usize_of(count(0, 64)?),
            "per_origin_fetches" => per_origin_fetches = usize_of(count(1, 1024)?),
            _ => {}
        }
    }
    Ok(Policy {
        path: path.to_path_buf(),
        verifier,
        audit,
        remote,
        fetch: fetch_options,
        per_origin_fetches,
    })
}

fn usize_of(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// One member of `verify`, read by its row's kind and set by its canonical name.
fn read_option(request: &mut VerifyRequest, name: &str, value: &Value, dir: &Path) -> Result<(), Error> {
    let at = format!("/verify/{}", a2a_card::pointer_token(name));
    let spec = option(VERIFY, name)
        .filter(|s| !NOT_HERE.contains(&s.name))
        .ok_or_else(|| {
            let names: Vec<&str> = VERIFY
                .iter()
                .map(|s| s.name)
                .filter(|n| !NOT_HERE.contains(n))
                .collect();
            Error::new(
                ErrorCode::Usage,
                format!("no verify option {name:?}; the options are {}", names.join(", ")),
            )
            .at(&at)
        })?;
    let texts = || -> Result<Vec<String>, Error> {
        match value {
            Value::String(s) => Ok(vec![s.clone()]),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| wrong(&format!("{at}/{i}"), "a string"))
                })
                .collect(),
            _ => Err(wrong(&at, "a string or a list of strings")),
        }
    };
    let text = || {
        value
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| wrong(&at, "a string"))
    };
    let value = match spec.kind {
        Kind::Count { min, max, .. } => {
            let n = value
                .as_u64()
                .ok_or_else(|| wrong(&at, &format!("a whole number from {min} to {max}")))?;
            OptionValue::Count(usize_of(n))
        }
        Kind::Choice(_) | Kind::Names(_) | Kind::Text => OptionValue::Text(text()?),
        Kind::Texts => OptionValue::Texts(texts()?),
        Kind::List => match value {
            Value::Array(_) => OptionValue::Texts(texts()?),
            _ => return Err(wrong(&at, "a list of strings")),
        },
        Kind::Flag(_) => OptionValue::Flag(value.as_bool().ok_or_else(|| wrong(&at, "true or false"))?),
        Kind::Time => OptionValue::Time(value.as_i64().ok_or_else(|| wrong(&at, "a whole number"))?),
        Kind::Keys { .. } | Kind::Pem => {
            let inputs = inputs(value, &at, dir)?;
            if spec.name == "crls" {
                for input in inputs {
                    let der = a2a_card::signature::chain::read_crl(input.text.as_bytes(), &input.source)
                        .map_err(|e| e.at(&at))?;
                    request.crls.push(der);
                }
                return Ok(());
            }
            OptionValue::Inputs(inputs)
        }
        Kind::Members | Kind::Seconds { .. } | Kind::Path => {
            return Err(wrong(&at, "not an option of a verification"))
        }
    };
    request.set(spec.name, value).map_err(|e| located(e).at(&at))
}

/// The inputs of a keys or PEM option: each a file name (relative to the policy file's
/// folder) or, for keys, a JSON object written in place (a JWK, a JWK Set, a trust store).
fn inputs(value: &Value, at: &str, dir: &Path) -> Result<Vec<Input>, Error> {
    let items: Vec<(String, &Value)> = match value {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("{at}/{i}"), v))
            .collect(),
        v => vec![(at.to_string(), v)],
    };
    items
        .into_iter()
        .map(|(at, v)| match v {
            Value::String(file) => {
                let bytes = read_file(&dir.join(file)).map_err(|e| e.at(&at))?;
                let text = String::from_utf8(bytes)
                    .map_err(|_| Error::new(ErrorCode::Usage, format!("{file} is not UTF-8 text")).at(&at))?;
                Ok(Input::new(text, file.clone()))
            }
            Value::Object(_) => Ok(Input::new(v.to_string(), at)),
            _ => Err(wrong(&at, "a file name or a JSON object")),
        })
        .collect()
}

/// A file of the policy (itself, a key, a CA bundle), within [`MAX_POLICY_FILE_BYTES`].
fn read_file(path: &Path) -> Result<Vec<u8>, Error> {
    use std::io::Read;
    let shown = path.display();
    let file = std::fs::File::open(path)
        .map_err(|e| Error::new(ErrorCode::Io, format!("cannot open {shown}: {e}")))?;
    let mut bytes = Vec::new();
    file.take(MAX_POLICY_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::new(ErrorCode::Io, format!("cannot read {shown}: {e}")))?;
    if bytes.len() as u64 > MAX_POLICY_FILE_BYTES {
        return Err(Error::new(
            ErrorCode::InputTooLarge,
            format!("{shown} is larger than {MAX_POLICY_FILE_BYTES} bytes"),
        ));
    }
    Ok(bytes)
}

fn object<'a>(v: &'a Value, at: &str) -> Result<&'a Map<String, Value>, Error> {
    v.as_object().ok_or_else(|| wrong(at, "an object"))
}

fn refuse_unknown(members: &Map<String, Value>, at: &str, known: &[&str]) -> Result<(), Error> {
    match members.keys().find(|k| !known.contains(&k.as_str())) {
        None => Ok(()),
        Some(k) => Err(Error::new(
            ErrorCode::UnknownMember,
            format!("unknown member {k:?}; the members here are {}", known.join(", ")),
        )
        .at(format!("{at}/{}", a2a_card::pointer_token(k)))),
    }
}

fn wrong(at: &str, what: &str) -> Error {
    let at_shown = if at.is_empty() { "the policy" } else { at };
    Error::new(ErrorCode::TypeMismatch, format!("{at_shown} must be {what}")).at(at)
}

/// The core's error about an option, its options spelled as places of the policy file and
/// placed at the first of them (an error inside a key file keeps its own place and names the file).
fn located(e: Error) -> Error {
    let first = e.options().first().copied();
    let inside_input = e.input().is_some() && e.pointer().is_some();
    let e = e.spelled(&PolicySpelling);
    match first {
        Some(o) if !inside_input => e.at(PolicySpelling.name(o)),
        _ => e,
    }
}

/// Options named as the members of the policy file that hold them: `/verify/max_chain`,
/// `/fetch/allow_loopback`.
///
/// ```
/// use a2a_card::request::Spelling;
/// assert_eq!(a2a_card_serve::PolicySpelling.name("max_chain"), "/verify/max_chain");
/// assert_eq!(a2a_card_serve::PolicySpelling.name("allow_loopback"), "/fetch/allow_loopback");
/// assert_eq!(a2a_card_serve::PolicySpelling.name("roots"), "/fetch/ca_file");
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct PolicySpelling;

impl Spelling for PolicySpelling {
    fn name(&self, option: &str) -> String {
        match option {
            "roots" => "/fetch/ca_file".into(),
            o if FETCH_MEMBERS.contains(&o) => format!("/fetch/{o}"),
            o => format!("/verify/{o}"),
        }
    }

    fn quotes(&self) -> Quotes {
        Quotes::Never
    }
}
