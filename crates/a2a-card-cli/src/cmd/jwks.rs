//! `a2a-card jwks`: the public JWK Set of key files, for publishing.

use crate::keyref::{self, ExternalKeyArgs};
use crate::Failure;
use a2a_card::Algorithm;
use std::ffi::OsString;

/// Examples shown at the end of `a2a-card jwks --help`.
pub(crate) const AFTER_HELP: &str = "\
Examples:
  a2a-card jwks release.pem -o .well-known/jwks.json
  a2a-card jwks release.pem --kid rel-2026 --alg ES256 > jwks.json
  a2a-card jwks release-2026.pem release-2027.pub.pem old-jwks.json > jwks.json
  a2a-card jwks 'pkcs11:token=ci;object=card-2026?pin-source=file:/run/pin' --kid card-2026
  a2a-card jwks awskms://alias/card-2026 jwks.json -o rotation-jwks.json

Each KEY is a PEM file (private or public), a JWK (private members are dropped) or a JWK Set;
env://VAR, the same text in a variable; or an external key, as `sign --key` takes it: a
pkcs11: URI (the public key is read from the token) or NAME://KEY-ID (the KMS plugin's
publicKey).
Only public members are printed: kty, crv, x, y or n, e, then kid and alg. The kid is --kid,
else the JWK's, else the RFC 7638 thumbprint: a PEM file holds no kid, so a card signed with
`sign --kid K` is verified only by a JWKS made with `jwks --kid K` (or `keygen --kid K --jwks`).
alg is --alg, else the JWK's; verifiers that honour it refuse the key for other algorithms.

Exit codes: 0 printed, 2 usage, 3 a key file cannot be read.";

/// Arguments of `jwks`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Key files (PEM, JWK or JWKS; `-` reads one from stdin), env://VAR, or external keys
    /// (pkcs11: URIs, NAME://KEY-ID).
    #[arg(value_name = "KEY", required = true)]
    keys: Vec<OsString>,

    #[command(flatten)]
    external: ExternalKeyArgs,

    /// The kid to publish the key under (one key only): the kid `sign --kid` put in the card.
    #[arg(long, value_name = "KID")]
    kid: Option<String>,

    /// The algorithm the key is for, published as its JWK alg (checked against the key).
    #[arg(long, value_name = "ALG", value_parser = super::alg_parser())]
    alg: Option<Algorithm>,

    #[command(flatten)]
    out: super::OutArgs,
}

/// Runs `jwks`.
pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let references = args
        .keys
        .iter()
        .map(|k| keyref::parse(k))
        .collect::<Result<Vec<_>, _>>()?;
    keyref::check_options(&references, &args.external)?;
    let mut jwks = Vec::new();
    for reference in &references {
        let (keys, source) = keyref::public_keys(reference, &args.external)?;
        for key in keys {
            jwks.push((key, source.clone()));
        }
    }
    if let Some(kid) = &args.kid {
        a2a_card::jose::keys::check_kid(kid)
            .map_err(|e| Failure::usage(format!("--kid: {}", e.message())))?;
        if jwks.len() != 1 {
            return Err(Failure::usage(format!(
                "--kid names one key, and the key files hold {}; give one key per run, or set each JWK's kid",
                jwks.len()
            )));
        }
    }
    let mut out = Vec::with_capacity(jwks.len());
    for (mut key, source) in jwks {
        if let Some(kid) = &args.kid {
            key = key.with_kid(kid.clone());
        }
        if let Some(alg) = args.alg {
            key = key.with_alg(Some(alg)).map_err(|e| Failure::new(e, &source))?;
        }
        out.push(key.to_jwk());
    }
    let mut text = serde_json::to_string_pretty(&serde_json::json!({ "keys": out })).unwrap_or_default();
    text.push('\n');
    args.out.write(text.as_bytes())
}
