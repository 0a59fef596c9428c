//! Key references on the command line (`sign --key`, `jwks KEY...`, `keygen --key`): a file,
//! `-`, `env://VAR`, a `pkcs11:` URI or `NAME://KEY-ID` (parsed by `a2a-card-keys`), with the
//! options that reach external keys (`--pkcs11-module`, `--key-timeout`) and their variables
//! (`A2A_CARD_PKCS11_MODULE`, `A2A_CARD_PKCS11_PIN`). Errors name the reference with its PIN
//! redacted; a key that cannot be had exits 3, a reference that cannot be read exits 2.

use crate::io::read_key_text;
use crate::Failure;
use a2a_card::{Algorithm, ErrorCode, PrivateKey, PublicKey, Signer};
use a2a_card_keys::{KeyOptions, KeyRef, Pin, SigningKey};
use std::ffi::OsStr;
use std::path::PathBuf;
use std::time::Duration;

/// The environment variable that may hold the signing key (PEM or JWK text) when there is no
/// `--key`.
pub(crate) const KEY_ENV: &str = "A2A_CARD_SIGNING_KEY";
/// The variable naming the PKCS#11 module when neither the URI nor `--pkcs11-module` does.
pub(crate) const MODULE_ENV: &str = "A2A_CARD_PKCS11_MODULE";
/// The variable holding the token PIN when the URI has neither `pin-value` nor `pin-source`.
pub(crate) const PIN_ENV: &str = "A2A_CARD_PKCS11_PIN";

/// The largest `--key-timeout`, in seconds (an hour).
const MAX_KEY_TIMEOUT_SECS: f64 = 3600.0;

/// The options that reach a key outside the process, flattened into `sign`, `jwks` and
/// `keygen`.
#[derive(Debug, clap::Args)]
pub(crate) struct ExternalKeyArgs {
    /// The PKCS#11 module (.so) for a pkcs11: key whose URI has no module-path (default:
    /// $A2A_CARD_PKCS11_MODULE).
    #[arg(long, value_name = "PATH")]
    pub(crate) pkcs11_module: Option<PathBuf>,

    /// The deadline of each call to a KMS plugin, in seconds (decimals allowed; 0.001 to 3600).
    /// Default: 30.
    #[arg(long, value_name = "SECS", value_parser = crate::options::secs_parser(0.001, MAX_KEY_TIMEOUT_SECS))]
    pub(crate) key_timeout: Option<Duration>,
}

impl ExternalKeyArgs {
    /// The library's options, with the variables read.
    pub(crate) fn options(&self, alg: Option<Algorithm>) -> Result<KeyOptions, Failure> {
        let pin = match std::env::var(PIN_ENV) {
            Ok(p) if !p.is_empty() => Some(
                Pin::checked(p, &format!("the variable {PIN_ENV}"))
                    .map_err(|e| Failure::new(e, format!("${PIN_ENV}")))?,
            ),
            Ok(_) | Err(std::env::VarError::NotPresent) => None,
            Err(std::env::VarError::NotUnicode(_)) => {
                return Err(Failure::usage(format!("{PIN_ENV} is not UTF-8 text")));
            }
        };
        Ok(KeyOptions {
            pkcs11_module: self.pkcs11_module.clone().or_else(|| {
                std::env::var_os(MODULE_ENV)
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from)
            }),
            pin,
            timeout: self.key_timeout.unwrap_or(a2a_card_keys::plugin::DEFAULT_TIMEOUT),
            alg,
        })
    }

    /// Refuses the options that apply to no reference given.
    fn check_used(&self, references: &[&KeyRef]) -> Result<(), Failure> {
        let pkcs11 = references.iter().any(|r| matches!(r, KeyRef::Pkcs11(_)));
        let plugin = references.iter().any(|r| matches!(r, KeyRef::Plugin(_)));
        if self.pkcs11_module.is_some() && !pkcs11 {
            return Err(Failure::usage("--pkcs11-module applies only to a pkcs11: key"));
        }
        if self.key_timeout.is_some() && !plugin {
            return Err(Failure::usage(
                "--key-timeout applies only to a KMS plugin key (NAME://KEY-ID)",
            ));
        }
        for r in references {
            if let (KeyRef::Pkcs11(uri), Some(flag)) = (r, &self.pkcs11_module) {
                if uri.module_path().is_some_and(|p| &p != flag) {
                    return Err(Failure::usage(
                        "the pkcs11: URI's module-path and --pkcs11-module name different modules; give one",
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Reads a `--key` / `KEY` argument as a reference. The variable of an `env://` reference is
/// withheld from every plugin from now on, before any key is opened (a `jwks` may name a plugin
/// key before the `env://` one).
pub(crate) fn parse(arg: &OsStr) -> Result<KeyRef, Failure> {
    let reference = KeyRef::parse_os(arg).map_err(|e| Failure::new(e, crate::io::COMMAND_LINE))?;
    if let KeyRef::Env(var) = &reference {
        a2a_card_keys::plugin::withhold_variable(var);
    }
    Ok(reference)
}

/// The failure for an error of the key `source`: usage errors exit 2, the rest 3. The options
/// a message of the keys library names (`{key_timeout}`, `{pkcs11_module}`, the core's
/// `option_error`) are spelled as flags by [`Failure::new`].
pub(crate) fn failure(e: a2a_card::Error, source: &str) -> Failure {
    let usage = e.code() == ErrorCode::Usage;
    let f = Failure::new(e, source);
    if usage {
        f
    } else {
        f.key_retrieval()
    }
}

/// True when a failure of signing came from the key rather than the card: an external key's
/// codes (`a2a_card_keys::ErrorCode`, a plugin's deadline `timeout` among them).
pub(crate) fn is_key_failure(code: ErrorCode) -> bool {
    code.is_external_key()
}

/// Opens the signing key: `reference` (`--key`), else the PEM or JWK text of
/// `A2A_CARD_SIGNING_KEY`. Returns the key and its name for error lines.
pub(crate) fn signing_key(
    reference: Option<&KeyRef>,
    external: &ExternalKeyArgs,
    alg: Option<Algorithm>,
) -> Result<(SigningKey, String), Failure> {
    external.check_used(&reference.into_iter().collect::<Vec<_>>())?;
    let Some(reference) = reference else {
        let var = KEY_ENV;
        return match std::env::var(var) {
            Ok(text) if !text.trim().is_empty() => {
                let source = format!("${var}");
                PrivateKey::parse(&text)
                    .map(|k| (SigningKey::Local(k), source.clone()))
                    .map_err(|e| Failure::new(e, source).key_retrieval())
            }
            Ok(_) | Err(std::env::VarError::NotPresent) => Err(Failure::usage(format!(
                "no signing key: give --key FILE, --key - (stdin), --key env://VAR, --key pkcs11:..., \
                 --key NAME://KEY-ID, or set {var}"
            ))),
            Err(std::env::VarError::NotUnicode(_)) => Err(Failure::new(
                a2a_card::Error::new(ErrorCode::InvalidKey, format!("{var} is not UTF-8 text")),
                format!("${var}"),
            )
            .key_retrieval()),
        };
    };
    let source = reference.to_string();
    match reference {
        KeyRef::File(path) => {
            let (text, source) = read_key_text(path)?;
            PrivateKey::parse(&text)
                .map(|k| (SigningKey::Local(k), source.clone()))
                .map_err(|e| Failure::new(e, source).key_retrieval())
        }
        KeyRef::Stdin => {
            let (text, source) = read_key_text(std::path::Path::new("-"))?;
            PrivateKey::parse(&text)
                .map(|k| (SigningKey::Local(k), source.clone()))
                .map_err(|e| Failure::new(e, source).key_retrieval())
        }
        other => {
            let key = a2a_card_keys::open(other, &external.options(alg)?).map_err(|e| failure(e, &source))?;
            Ok((key, source))
        }
    }
}

/// The public keys a `jwks` argument names: every key of a file (PEM, JWK, JWK Set), of a
/// variable, or the public key of an external key.
pub(crate) fn public_keys(
    reference: &KeyRef,
    external: &ExternalKeyArgs,
) -> Result<(Vec<PublicKey>, String), Failure> {
    let source = reference.to_string();
    let keys = match reference {
        KeyRef::File(path) => {
            let (text, source) = read_key_text(path)?;
            return a2a_card::jose::keys::public_keys_of(&text)
                .map(|k| (k, source.clone()))
                .map_err(|e| Failure::new(e, source).key_retrieval());
        }
        KeyRef::Stdin => {
            let (text, source) = read_key_text(std::path::Path::new("-"))?;
            return a2a_card::jose::keys::public_keys_of(&text)
                .map(|k| (k, source.clone()))
                .map_err(|e| Failure::new(e, source).key_retrieval());
        }
        KeyRef::Env(var) => {
            a2a_card_keys::env_text(var).and_then(|t| a2a_card::jose::keys::public_keys_of(&t))
        }
        other => a2a_card_keys::open(other, &external.options(None)?).map(|k| vec![k.public_key().clone()]),
    };
    keys.map(|k| (k, source.clone())).map_err(|e| failure(e, &source))
}

/// Checks the external-key options against every `jwks` argument.
pub(crate) fn check_options(references: &[KeyRef], external: &ExternalKeyArgs) -> Result<(), Failure> {
    external.check_used(&references.iter().collect::<Vec<_>>())
}

/// What `keygen --key REF` is asked for.
pub(crate) struct TokenKeygen<'a> {
    pub(crate) alg: Algorithm,
    pub(crate) rsa_bits: Option<u32>,
    pub(crate) curve: Option<&'a str>,
    pub(crate) kid: Option<&'a str>,
    pub(crate) jwks: Option<&'a std::path::Path>,
    pub(crate) force: bool,
}

/// `keygen --key pkcs11:...`: a key pair made in the token (the private key never leaves it);
/// its kid, alg and URI on stderr, its JWKS on stdout or in `--jwks`.
pub(crate) fn keygen_in_token(
    reference: &KeyRef,
    external: &ExternalKeyArgs,
    job: &TokenKeygen<'_>,
) -> Result<(), Failure> {
    use crate::io::{check_output, quoted, stage, write_stderr_line, write_stdout};
    external.check_used(&[reference])?;
    #[cfg(feature = "pkcs11")]
    {
        let KeyRef::Pkcs11(uri) = reference else {
            return Err(Failure::usage(
                "keygen --key makes a key in a PKCS#11 token (a pkcs11: URI); for a key file use --out",
            ));
        };
        if job.curve.is_some_and(|c| c != "Ed25519") {
            return Err(Failure::usage(
                "keygen --key pkcs11: makes Ed25519 keys for EdDSA, not Ed448",
            ));
        }
        let source = reference.to_string();
        // The JWKS file is checked before the token makes a key, and written through the
        // output checked here.
        let jwks = match job.jwks {
            Some(path) => {
                let output = check_output(path, job.force)?;
                if !job.force && output.exists() {
                    return Err(crate::io::io_failure(
                        format!("{} already exists; use --force to replace it", path.display()),
                        path.display().to_string(),
                    ));
                }
                Some(output)
            }
            None => None,
        };
        let opts = external.options(Some(job.alg))?;
        let (new_uri, public) = a2a_card_keys::pkcs11::Pkcs11Key::generate(
            uri,
            &a2a_card_keys::pkcs11::Pkcs11Options {
                module: opts.pkcs11_module,
                pin: opts.pin,
            },
            job.alg,
            job.rsa_bits,
        )
        .map_err(|e| failure(e, &source))?;
        let mut public = public
            .with_alg(Some(job.alg))
            .map_err(|e| Failure::new(e, &source))?;
        if let Some(kid) = job.kid {
            public = public.with_kid(kid.to_string());
        }
        let mut text = serde_json::to_string_pretty(&serde_json::json!({ "keys": [public.to_jwk()] }))
            .unwrap_or_default();
        text.push('\n');
        match &jwks {
            Some(output) => stage(output, text.as_bytes(), None)?.commit_as(job.force)?,
            None => write_stdout(text.as_bytes())?,
        }
        write_stderr_line(&format!("kid: {}", quoted(public.kid())))?;
        write_stderr_line(&format!("alg: {}", job.alg.as_str()))?;
        write_stderr_line(&format!(
            "key: {new_uri} ({}, made in the token, not extractable)",
            public.key_type()
        ))?;
        let default_alg = public.key_type().default_algorithm();
        if job.kid.is_some() || job.alg != default_alg {
            let mut hint = String::from("note: the token records neither kid nor alg; sign with");
            if let Some(kid) = job.kid {
                hint.push_str(&format!(" --kid {}", quoted(kid)));
            }
            if job.alg != default_alg {
                hint.push_str(&format!(" --alg {}", job.alg.as_str()));
            }
            write_stderr_line(&hint)?;
        }
        Ok(())
    }
    #[cfg(not(feature = "pkcs11"))]
    {
        let _ = job;
        let _ = (check_output, quoted, stage, write_stderr_line, write_stdout);
        Err(failure(
            a2a_card::Error::new(
                a2a_card_keys::ErrorCode::KeyUnavailable.into(),
                "this build has no PKCS#11 support (feature pkcs11)",
            ),
            &reference.to_string(),
        ))
    }
}
