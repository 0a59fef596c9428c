//! `a2a-card jwks`: the public JWK Set of key files, for publishing.

use crate::io::{read_key_text, write_stdout};
use crate::Failure;
use a2a_card::jose::keys::{parse_jwks, PublicKey};
use std::path::PathBuf;

/// Examples shown at the end of `a2a-card jwks --help`.
pub(crate) const AFTER_HELP: &str = "\
Examples:
  a2a-card jwks release.pem > .well-known/jwks.json
  a2a-card jwks release-2026.pem release-2027.pub.pem old-jwks.json > jwks.json

Each KEY is a PEM file (private or public), a JWK (private members are dropped) or a JWK Set.
Only public members are printed: kty, crv, x, y or n, e, then kid (the JWK's, else the RFC 7638
thumbprint) and alg when the key declares one.

Exit codes: 0 printed, 2 usage, 3 a key file cannot be read.";

/// Arguments of `jwks`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Key files (PEM, JWK or JWKS; `-` reads one from stdin).
    #[arg(value_name = "KEY", required = true)]
    keys: Vec<PathBuf>,
}

/// Runs `jwks`.
pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let mut jwks = Vec::new();
    for path in &args.keys {
        let (text, source) = read_key_text(path)?;
        // JSON is a JWK or a JWK Set; anything else is PEM.
        let keys = if text.trim_start().starts_with('{') {
            parse_jwks(&text)
        } else {
            PublicKey::parse(&text).map(|k| vec![k])
        }
        .map_err(|e| Failure::new(e, &source).key_retrieval())?;
        jwks.extend(keys.iter().map(PublicKey::to_jwk));
    }
    let mut text = serde_json::to_string_pretty(&serde_json::json!({ "keys": jwks })).unwrap_or_default();
    text.push('\n');
    write_stdout(text.as_bytes())
}
