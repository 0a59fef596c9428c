//! Keys behind a sigstore KMS plugin (`NAME://KEY-ID`): the executable `sigstore-kms-NAME` on
//! the PATH, spoken to in the sigstore CLI plugin protocol, version 1, exactly as sigstore's Go
//! client speaks it (repository sigstore/sigstore, `pkg/signature/kms/cliplugin`), so that any
//! plugin written for cosign signs cards unchanged.
//!
//! Each method is one run of the plugin (`runner.rs`): argument 1 is `v1`, argument 2 the JSON
//! request (`protocol.rs`), stdin the message to sign (empty otherwise), stdout one JSON answer,
//! the exit status ignored, stderr passed through. A deadline bounds every run (default
//! 30 s) and its stdout is read up to [`MAX_OUTPUT`] bytes.
//!
//! Opening a key asks `publicKey` (a PEM public key, base64 in `publicKeyPEM`); for an RSA key
//! with no algorithm chosen, `defaultAlgorithm` says whether the KMS signs PKCS#1 v1.5 or PSS
//! (the protocol cannot ask for one). `signMessage` gets the signing input on stdin, its digest
//! in `messageOptions.digest` (for every algorithm but EdDSA, which signs the message itself)
//! and the hash in `hashFunc`; an ECDSA signature comes back in ASN.1 DER, as KMSs and Go sign,
//! and is turned into the JWS form (raw r||s). The signature is then checked with the public key
//! by the core's signing path before it is used.

// The wire format, internal to the plugin key; reachable for the crate's own tests, out of the
// documented API.
#[doc(hidden)]
pub mod protocol;
mod runner;

pub use runner::{withheld_variables, withhold_variable, SCRUBBED_ENV};

use crate::reference::PluginRef;
use a2a_card::jose::signer::ecdsa_to_jws;
use a2a_card::{Algorithm, Error, KeyType, PublicKey, Signer};
use protocol::{Init, Method};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The most bytes a plugin may write as one answer (a PEM public key or a signature is far
/// smaller).
pub const MAX_OUTPUT: usize = 1024 * 1024;

/// The default deadline of one plugin call.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// A key served by a KMS plugin.
#[derive(Debug)]
pub struct PluginKey {
    plugin: Plugin,
    public: PublicKey,
    default_alg: Algorithm,
}

/// The plugin and the key id it is asked about. Its `Debug` leaves the key id out (it may hold
/// a token).
struct Plugin {
    executable: PathBuf,
    key_id: String,
    what: String,
    timeout: Duration,
}

fn executable_file(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Finds `name` in the absolute directories of `$PATH` (an executable regular file); when there
/// is none, the error holds the relative entries of `$PATH` that hold one. Relative entries
/// (`.`, `..`, `bin`, and the empty entry, which means `.`) are not searched, as sigstore's
/// client refuses a plugin found through one (Go's `exec.LookPath` and `ErrDot`): which program
/// runs would depend on the directory a2a-card is started in.
fn find_on_path(name: &str) -> Result<PathBuf, Vec<PathBuf>> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut relative = Vec::new();
    for dir in std::env::split_paths(&path) {
        if dir.is_absolute() {
            let candidate = dir.join(name);
            if executable_file(&candidate) {
                return Ok(candidate);
            }
        } else {
            let shown = if dir.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                dir.clone()
            };
            if executable_file(&dir.join(name)) && !relative.contains(&shown) {
                relative.push(shown);
            }
        }
    }
    Err(relative)
}

/// cosign's built-in KMS schemes, which a2a-card reaches only through a plugin.
const COSIGN_BUILT_IN: &[&str] = &["awskms", "gcpkms", "azurekms", "hashivault"];

impl PluginKey {
    /// Opens the key: finds the plugin on the PATH and asks it for the public key (and, for an
    /// RSA key when `alg` is `None`, for its default algorithm). `alg` is the algorithm the
    /// caller will sign with, if it knows it (its hash goes in `initOptions.hashFunc`, as the
    /// hash a sigstore client is loaded with; SHA-256 otherwise, cosign's default).
    ///
    /// The plugin is looked for in the absolute directories of the PATH only; relative entries
    /// (`.`, `bin`, an empty entry) are skipped, and the error says so when one holds it.
    ///
    /// Errors: `key-unavailable` (no such plugin on the PATH, it cannot be run),
    /// `external-signer-failed` (its answer is an error, not the protocol's JSON, too large, or
    /// no PEM public key), `timeout` (no answer within `timeout`).
    pub fn open(
        reference: &PluginRef,
        alg: Option<Algorithm>,
        timeout: Duration,
    ) -> Result<PluginKey, Error> {
        let name = reference.executable();
        let executable = find_on_path(&name).map_err(|relative| {
            if !relative.is_empty() {
                let dirs: Vec<String> = relative
                    .iter()
                    .map(|d| format!("{:?}", d.display().to_string()))
                    .collect();
                return Error::new(
                    crate::error::ErrorCode::KeyUnavailable.into(),
                    format!(
                        "{name} is only in the relative PATH entry {}, which is not searched (which \
                         program ran would depend on the current directory, and sigstore's client \
                         refuses it too): put its directory on the PATH as an absolute path, for the \
                         key {reference}",
                        dirs.join(", ")
                    ),
                );
            }
            let built_in = if COSIGN_BUILT_IN.contains(&reference.name.as_str()) {
                format!(
                    " ({}:// is built into cosign; a2a-card reaches a KMS only through a plugin: install one \
                     named {name})",
                    reference.name
                )
            } else {
                String::new()
            };
            Error::new(
                crate::error::ErrorCode::KeyUnavailable.into(),
                format!("no executable {name} on the PATH for the key {reference}{built_in}"),
            )
        })?;
        Self::open_at(&executable, &reference.key_id, alg, timeout)
    }

    /// [`PluginKey::open`] with the plugin's path given.
    pub fn open_at(
        executable: &Path,
        key_id: &str,
        alg: Option<Algorithm>,
        timeout: Duration,
    ) -> Result<PluginKey, Error> {
        let what = format!(
            "the KMS plugin {}",
            executable.file_name().map_or_else(
                || executable.display().to_string(),
                |n| n.to_string_lossy().into_owned()
            )
        );
        let plugin = Plugin {
            executable: executable.to_path_buf(),
            key_id: key_id.to_string(),
            what,
            timeout,
        };
        let hash = alg.map_or(5, protocol::hash_func);
        let answer = plugin.call(Method::PublicKey, hash, &[], None, None)?;
        let pem = protocol::bytes_member(&answer, "publicKeyPEM", &plugin.what, Method::PublicKey)?;
        let pem = String::from_utf8(pem).map_err(|_| {
            Error::new(
                crate::error::ErrorCode::ExternalSignerFailed.into(),
                format!(
                    "{} answered publicKey with a publicKeyPEM that is not text",
                    plugin.what
                ),
            )
        })?;
        let public = PublicKey::from_pem(&pem).map_err(|e| {
            Error::new(
                crate::error::ErrorCode::ExternalSignerFailed.into(),
                format!(
                    "{} answered publicKey with no usable PEM public key: {}",
                    plugin.what,
                    e.message()
                ),
            )
        })?;
        let mut default_alg = public.default_algorithm();
        if alg.is_none() && matches!(public.key_type(), KeyType::Rsa { .. }) {
            // A KMS signs one RSA padding; its default algorithm says which. A plugin that does not
            // answer it leaves RS256.
            if let Ok(answer) = plugin.call(Method::DefaultAlgorithm, hash, &[], None, None) {
                if let Some(a) =
                    protocol::string_member(&answer, "defaultAlgorithm").and_then(protocol::jws_algorithm)
                {
                    if public.check_algorithm(a).is_ok() {
                        default_alg = a;
                    }
                }
            }
        }
        Ok(PluginKey {
            plugin,
            public,
            default_alg,
        })
    }

    /// The algorithm names the plugin lists (`supportedAlgorithms`), as it spells them.
    pub fn supported_algorithms(&self) -> Result<Vec<String>, Error> {
        let answer = self.plugin.call(
            Method::SupportedAlgorithms,
            protocol::hash_func(self.default_alg),
            &[],
            None,
            None,
        )?;
        Ok(answer
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("supportedAlgorithms"))
            .and_then(|(_, v)| v.as_array())
            .map(|list| {
                list.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default())
    }
}

impl std::fmt::Debug for Plugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plugin")
            .field("executable", &self.executable)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Plugin {
    fn call(
        &self,
        method: Method,
        hash_func: u8,
        stdin: &[u8],
        digest: Option<&[u8]>,
        message_hash: Option<u8>,
    ) -> Result<serde_json::Map<String, serde_json::Value>, Error> {
        let init = Init {
            key_resource_id: &self.key_id,
            hash_func,
            deadline: SystemTime::now() + self.timeout,
        };
        let args = protocol::request(&init, method, digest, message_hash);
        let stdout = runner::run(&runner::Call {
            executable: &self.executable,
            args_json: &args,
            stdin,
            timeout: self.timeout,
            max_output: MAX_OUTPUT,
            what: &self.what,
            method: method.name(),
        })?;
        protocol::response(&stdout, method, &self.what)
    }
}

impl Signer for PluginKey {
    fn public_key(&self) -> &PublicKey {
        &self.public
    }

    fn default_algorithm(&self) -> Algorithm {
        self.default_alg
    }

    fn sign(&self, alg: Algorithm, signing_input: &[u8]) -> Result<Vec<u8>, Error> {
        // An algorithm the key does not fit is refused before the plugin is run.
        self.public_key().check_algorithm(alg)?;
        let hash = protocol::hash_func(alg);
        let digest = protocol::digest(alg, signing_input);
        let answer = self.plugin.call(
            Method::SignMessage,
            hash,
            signing_input,
            digest.as_deref(),
            digest.as_ref().map(|_| hash),
        )?;
        let what = &self.plugin.what;
        let signature = protocol::bytes_member(&answer, "signature", what, Method::SignMessage)?;
        ecdsa_to_jws(alg, &signature).map_err(|e| {
            Error::new(
                crate::error::ErrorCode::ExternalSignerFailed.into(),
                format!("{what} signed with {alg}, but {}", e.message()),
            )
        })
    }
}
