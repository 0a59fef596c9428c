//! `a2a-card keygen`: a new signing key, written as PKCS#8 PEM readable by its owner only, and
//! its public JWKS.

use crate::io::{check_output, quoted, refuse_same_file, stage, write_stderr_line};
use crate::Failure;
use a2a_card::jose::keys::{GenerateOptions, PrivateKey};
use a2a_card::Algorithm;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use std::path::PathBuf;

/// Examples shown at the end of `a2a-card keygen --help`.
pub(crate) const AFTER_HELP: &str = "\
Examples:
  a2a-card keygen --alg ES256 --out release.pem --jwks jwks.json
  a2a-card keygen --alg EdDSA --out release.pem --kid release-2026
  a2a-card keygen --alg PS256 --rsa-bits 3072 --out rsa.pem --jwks rsa.jwks.json
  a2a-card keygen --alg EdDSA --curve Ed448 --out ed448.pem
  a2a-card keygen --alg ES256 --key 'pkcs11:token=ci;object=card-2026?pin-source=file:/run/pin' \
      --pkcs11-module /usr/lib/softhsm/libsofthsm2.so > jwks.json

Keys by algorithm: EdDSA Ed25519 (or Ed448 with --curve), ES256 P-256, ES384 P-384, ES512
P-521, ES256K secp256k1, RS256..PS512 RSA (2048 bits unless --rsa-bits).

The private key is written as PKCS#8 PEM with file mode 0600. PEM records neither the kid nor
the algorithm: when you choose a --kid, or an algorithm other than the key's default (RSA
signs RS256 by default), pass the same --kid and --alg to `a2a-card sign`. The JWKS records
both. Existing files are never overwritten unless --force is given; --force also replaces a
read-only file. A symbolic link is written through to the file it leads to; a dangling link, a
device, a FIFO, a socket or a directory is refused. --out and --jwks must be different files
(compared as files: ./k.pem, k.pem and a link to k.pem are one file).

With --key pkcs11:URI instead of --out, the key pair is made inside the PKCS#11 token
(private key sensitive and never extractable, labelled with the URI's object=, its id= or a
random one): its JWKS goes to stdout (or --jwks), its kid, alg and URI to stderr. A key with
the same label or id on the token is never replaced. The module and the PIN are found as for
`sign --key` (module-path, --pkcs11-module, $A2A_CARD_PKCS11_MODULE; pin-source, pin-value,
$A2A_CARD_PKCS11_PIN).

Prints the kid and alg on stderr. Exit codes: 0 written, 2 bad usage or the file exists, 3 the
token cannot be reached or cannot make the key.";

/// Arguments of `keygen`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The algorithm the key is for.
    #[arg(long, value_name = "ALG", value_parser = super::alg_parser())]
    alg: Algorithm,

    /// Where to write the private key (PKCS#8 PEM, mode 0600).
    #[arg(
        short = 'o',
        long,
        value_name = "KEY.pem",
        required_unless_present = "key",
        conflicts_with = "key"
    )]
    out: Option<PathBuf>,

    /// Make the key in a PKCS#11 token instead: a pkcs11: URI with object=LABEL (and id=, the
    /// PIN, the module as for `sign --key`). The JWKS goes to stdout unless --jwks is given.
    #[arg(long, value_name = "pkcs11:URI")]
    key: Option<std::ffi::OsString>,

    #[command(flatten)]
    external: crate::keyref::ExternalKeyArgs,

    /// Also write the public key as a JWK Set (`{"keys":[JWK]}`) with its kid and alg.
    #[arg(long, value_name = "PUBLIC.json")]
    jwks: Option<PathBuf>,

    /// The kid; by default the key's RFC 7638 thumbprint.
    #[arg(long, value_name = "KID")]
    kid: Option<String>,

    /// RSA modulus length, for RS256..PS512.
    #[arg(long, value_name = "BITS",
          value_parser = PossibleValuesParser::new(["2048", "3072", "4096"])
              .try_map(|s| s.parse::<u32>()))]
    rsa_bits: Option<u32>,

    /// The curve for EdDSA: Ed25519 (default) or Ed448.
    #[arg(long, value_name = "CURVE",
          value_parser = PossibleValuesParser::new(["Ed25519", "Ed448"]))]
    curve: Option<String>,

    /// Replace existing output files, read-only ones too (through a temporary file and a rename).
    #[arg(long)]
    force: bool,
}

/// Runs `keygen`.
pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let opts = GenerateOptions {
        rsa_bits: args.rsa_bits,
        curve: args.curve.clone(),
        kid: args.kid.clone(),
    };
    // The choices are checked before the outputs and before any key is made.
    opts.check(args.alg)
        .map_err(|e| Failure::new(e, "<command line>"))?;
    if let Some(reference) = &args.key {
        let job = crate::keyref::TokenKeygen {
            alg: args.alg,
            rsa_bits: args.rsa_bits,
            curve: args.curve.as_deref(),
            kid: args.kid.as_deref(),
            jwks: args.jwks.as_deref(),
            force: args.force,
        };
        return crate::keyref::keygen_in_token(&crate::keyref::parse(reference)?, &args.external, &job);
    }
    let Some(out) = args.out.clone() else {
        return Err(Failure::usage(
            "give --out KEY.pem, or --key pkcs11:... to make the key in a token",
        ));
    };
    if let Some(jwks) = &args.jwks {
        refuse_same_file("--out", &out, "--jwks", jwks)?;
    }
    // Both outputs are checked before the key is made, so that neither is written when the
    // other would be refused.
    let mut outputs = Vec::with_capacity(2);
    for path in std::iter::once(&out).chain(args.jwks.as_ref()) {
        let output = check_output(path, args.force)?;
        if !args.force && output.exists() {
            return Err(crate::io::io_failure(
                format!("{} already exists; use --force to replace it", path.display()),
                path.display().to_string(),
            ));
        }
        outputs.push(output);
    }

    let key = PrivateKey::generate_with(args.alg, &opts).map_err(|e| Failure::new(e, "<keygen>"))?;

    // Both files or neither: each is written in full to a temporary file beside it (an I/O
    // error there, in either, removes both temporary files and leaves no key behind), and only
    // then are they renamed into place, the key first.
    let pem = key.to_pkcs8_pem();
    let mut staged = vec![stage(&outputs[0], pem.as_bytes(), Some(0o600))?];
    if let Some(output) = outputs.get(1) {
        let jwks = serde_json::json!({ "keys": [key.public().to_jwk()] });
        let mut text = serde_json::to_string_pretty(&jwks).unwrap_or_default();
        text.push('\n');
        staged.push(stage(output, text.as_bytes(), None)?);
    }
    let mut committed = Vec::new();
    for (file, output) in staged.into_iter().zip(&outputs) {
        if let Err(e) = file.commit_as(args.force) {
            // A rename that fails after the key's: a key this run created is removed again
            // (one it replaced under --force is gone, and the error says which file failed).
            if !args.force {
                for done in &committed {
                    let _ = std::fs::remove_file(done);
                }
            }
            return Err(e);
        }
        committed.push(output.file().to_path_buf());
    }

    write_stderr_line(&format!("kid: {}", quoted(key.kid())))?;
    write_stderr_line(&format!("alg: {}", args.alg.as_str()))?;
    write_stderr_line(&format!("key: {} ({})", out.display(), key.key_type()))?;
    let default_alg = key.key_type().default_algorithm();
    if args.kid.is_some() || args.alg != default_alg {
        let mut hint = String::from("note: the PEM records neither kid nor alg; sign with");
        if let Some(kid) = &args.kid {
            hint.push_str(&format!(" --kid {}", quoted(kid)));
        }
        if args.alg != default_alg {
            hint.push_str(&format!(" --alg {}", args.alg.as_str()));
        }
        write_stderr_line(&hint)?;
    }
    Ok(())
}
