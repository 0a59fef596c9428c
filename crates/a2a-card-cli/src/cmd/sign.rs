//! `a2a-card sign`: append a signature to a card, every other byte left as it was.

use crate::io::{
    check_output, is_stdin, quoted, read_input, read_key_text, refuse_same_file, replace_file, same_file,
    write_stderr_line, write_stdout, COMMAND_LINE, STDOUT,
};
use crate::keyref::{self, ExternalKeyArgs};
use crate::options::TableFlags;
use crate::Failure;
use a2a_card::lint::{lint_card, LintOptions, Severity};
use a2a_card::request::{Input, Request, SignRequest};
use a2a_card::Algorithm;
use a2a_card::{sha256_hex, sign_card, ErrorCode, SignOptions};
use a2a_card_keys::KeyRef;
use clap::builder::PossibleValuesParser;
use std::ffi::OsString;
use std::path::PathBuf;

/// Examples shown at the end of `a2a-card sign --help`.
pub(crate) const AFTER_HELP: &str = "\
Examples:
  a2a-card sign card.json --key release.pem > card.signed.json
  a2a-card sign card.json --key release.pem --kid release-2026 --in-place
  A2A_CARD_SIGNING_KEY=\"$(cat release.pem)\" a2a-card sign card.json --out card.signed.json
  vault read -field=pem secret/a2a | a2a-card sign card.json --key - --replace --in-place
  a2a-card sign card.signed.json --key release.pem --append --out card.twice.json
  a2a-card sign card.json --key rsa.pem --alg PS256 --jku https://agent.example/jwks.json
  a2a-card sign card.json --key release.pem --also-profile prune-empty --in-place
  a2a-card sign card.json --key release.pem --out public/card.json --force
  a2a-card sign card.json --key release.pem --in-place --format json 2> signed.json
  a2a-card sign card.json --key env://RELEASE_KEY --in-place
  a2a-card sign card.json --key 'pkcs11:token=ci;object=card-2026?pin-source=file:/run/pin' \
      --pkcs11-module /usr/lib/softhsm/libsofthsm2.so --in-place
  a2a-card sign card.json --key awskms://alias/card-2026 --key-timeout 10 --in-place
  a2a-card sign card.json --key agent.pem --x5c agent-chain.pem > card.signed.json

The key (--key REF) is one of: a file (PEM PKCS#8, SEC1 or PKCS#1, or a private JWK); - for
stdin (the card must then be a file); env://VAR, the PEM or JWK text in the variable VAR; a
pkcs11: URI (RFC 7512: token, object or id, pin-source or pin-value, module-path) naming a
private key in a PKCS#11 token, whose module is module-path, else --pkcs11-module, else
$A2A_CARD_PKCS11_MODULE, and whose PIN is pin-value or the file pin-source names, else
$A2A_CARD_PKCS11_PIN; or NAME://KEY-ID, a key served by the sigstore KMS plugin
sigstore-kms-NAME on the PATH (the plugins cosign uses; each call has a deadline,
--key-timeout, 30 s by default). Without --key, the key is the PEM or JWK text of
$A2A_CARD_SIGNING_KEY. A signature made by a token or a plugin is verified with the key's
public key before the card is written. A PEM file records neither kid nor alg: the kid
defaults to the key's RFC 7638 thumbprint and the alg to the key's own (Ed25519 EdDSA, P-256
ES256, P-384 ES384, P-521 ES512, secp256k1 ES256K, RSA RS256; for a KMS RSA key, the padding
its plugin's defaultAlgorithm names); give --kid and --alg to choose others. A PIN is never
printed: URIs are shown with pin-value=***.

A card that already carries a signature with the kid being signed under is refused
(kid-already-signed, at that entry's pointer): give --replace to replace it (a new signature
of the same key), or --append to keep it and add the new one beside it.

--lint error (the default) refuses a card that `a2a-card lint` finds errors in (lint-failed,
exit 2); --lint warning refuses warnings too; --lint off signs without linting.

--out and --in-place write a temporary file next to the file written and rename it over it,
keeping its permissions. A symbolic link is written through (the file it leads to gets the
signed card, the link stays); a dangling link, a device, a FIFO, a socket or a directory is
refused, and so is a read-only file unless --force is given. The file written may not be the
key file, and --out may not be the card itself (use --in-place for that).

On stderr: the kid, alg, profile, the SHA-256 of the canonical bytes signed, and the members
of the card the signature does not cover (JSON Pointers); with --format json, one JSON line
instead (input, output, kid, alg, profile, canonical_sha256, unsigned, replaced, and each new
entry's pointer, profile and digest). The signed card goes where it goes with text.

Exit codes: 0 signed, 2 bad input, usage or lint errors, 3 the key cannot be read or used (a
token or plugin that fails, answers garbage or signs with another key: key-unavailable,
external-signer-failed, external-signature-invalid, timeout); nothing is written then.";

/// Arguments of `sign`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The card to sign; `-` or nothing reads stdin.
    #[arg(value_name = "CARD")]
    card: Option<PathBuf>,

    /// The private key: a PEM file (PKCS#8, SEC1 or PKCS#1) or a private JWK; `-` reads it from
    /// stdin; env://VAR reads it from a variable; a pkcs11: URI names a key in a PKCS#11 token;
    /// NAME://KEY-ID a key of the KMS plugin sigstore-kms-NAME. Without --key, the key is read
    /// from $A2A_CARD_SIGNING_KEY.
    #[arg(long, value_name = "REF")]
    key: Option<OsString>,

    #[command(flatten)]
    external: ExternalKeyArgs,

    /// Lint the card first: `error` (default) refuses a card with lint errors, `warning` one
    /// with errors or warnings, `off` does not lint.
    #[arg(long, value_name = "LEVEL", default_value = "error",
          value_parser = PossibleValuesParser::new(["error", "warning", "off"]))]
    lint: String,

    /// The algorithm (it must fit the key); by default the key's own.
    #[arg(long, value_name = "ALG", value_parser = super::alg_parser())]
    alg: Option<Algorithm>,

    /// A certificate chain (PEM, the leaf first, then intermediates) to put in the protected
    /// header as x5c. The leaf's key must be the signing key's (checked before signing).
    #[arg(long, value_name = "CHAIN.pem")]
    x5c: Option<PathBuf>,

    /// Write the signed card to FILE (through a temporary file and a rename) instead of stdout.
    /// FILE must be a regular file or not exist (a symbolic link is written through), and may
    /// be neither the key file nor CARD.
    #[arg(short = 'o', long, value_name = "FILE", conflicts_with = "in_place")]
    out: Option<PathBuf>,

    /// Replace CARD with the signed card, through a temporary file in the same directory and a
    /// rename: on any failure CARD is left as it was. A symbolic link is written through.
    #[arg(long)]
    in_place: bool,

    /// Replace the --out file or (with --in-place) CARD even when it is read-only.
    #[arg(long)]
    force: bool,

    /// What is said on stderr about what was signed: `text` (lines for people, the default) or
    /// `json` (one JSON line for programs). The signed card is written as with text.
    #[arg(long, value_name = "FORMAT", default_value = "text",
          value_parser = PossibleValuesParser::new(["text", "json"]))]
    format: String,

    /// The options of the core's table without a flag declared above (last: it sees them).
    #[command(flatten)]
    table: TableFlags<SignRequest>,
}

/// Runs `sign`.
pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let reference = args.key.as_deref().map(keyref::parse).transpose()?;
    let key_file = match &reference {
        Some(KeyRef::File(path)) => Some(path.as_path()),
        _ => None,
    };
    let card_from_stdin = is_stdin(args.card.as_deref());
    let key_from_stdin = matches!(reference, Some(KeyRef::Stdin));
    if card_from_stdin && key_from_stdin {
        return Err(Failure::usage(
            "the card and the key cannot both come from stdin; give the card as a file",
        ));
    }
    if args.in_place && card_from_stdin {
        return Err(Failure::usage("--in-place needs the card as a file, not stdin"));
    }
    if args.force && args.out.is_none() && !args.in_place {
        return Err(Failure::usage("--force applies only with --out or --in-place"));
    }
    if let Some(out) = &args.out {
        if let Some(card) = args.card.as_deref().filter(|c| !is_stdin(Some(c))) {
            if same_file(out, card) {
                return Err(Failure::usage(format!(
                    "--out {} is the card file itself; use --in-place to replace the card",
                    quoted(&out.display().to_string())
                )));
            }
        }
    }
    // The output is checked before any work, and again when it is written.
    let target = match (&args.out, args.in_place, &args.card) {
        (Some(out), _, _) => Some(out.as_path()),
        (None, true, Some(card)) => Some(card.as_path()),
        _ => None,
    };
    if let Some(path) = target {
        if let Some(key) = key_file {
            refuse_same_file(
                if args.in_place { "--in-place" } else { "--out" },
                path,
                "--key",
                key,
            )?;
        }
        check_output(path, args.force)?;
    }
    // The options and the key first: what is wrong with them fails before the card is read,
    // and the error names the command line, the key or the --x5c file, not the card.
    let opts = args.options()?;
    let (key, key_source) = keyref::signing_key(reference.as_ref(), &args.external, args.alg)?;
    opts.check(&key).map_err(|e| {
        let source = if e.code() == ErrorCode::KeyAlgorithmMismatch {
            key_source.clone()
        } else if matches!(
            e.code(),
            ErrorCode::CertificateKeyMismatch
                | ErrorCode::CertificateUntrusted
                | ErrorCode::CertificateMalformed
        ) {
            args.x5c
                .as_ref()
                .map_or_else(|| COMMAND_LINE.to_string(), |p| p.display().to_string())
        } else {
            COMMAND_LINE.to_string()
        };
        Failure::new(e, source)
    })?;
    let input = read_input(args.card.as_deref(), opts.canonicalize.limits.max_input_bytes)?;
    let level = match args.lint.as_str() {
        "error" => Some(Severity::Error),
        "warning" => Some(Severity::Warning),
        _ => None,
    };
    if let Some(level) = level {
        // A card the reader refuses is left to sign_card, which names the same error.
        let lint_opts = LintOptions {
            limits: opts.canonicalize.limits,
        };
        if let Ok(report) = lint_card(&input.bytes, &lint_opts) {
            report
                .refuse_signing(level)
                .map_err(|e| Failure::new(e, &input.source))?;
        }
    }
    let signed = sign_card(&input.bytes, &key, &opts).map_err(|e| {
        if keyref::is_key_failure(e.code()) {
            keyref::failure(e, &key_source)
        } else {
            Failure::new(e, &input.source)
        }
    })?;

    match target {
        Some(path) => replace_file(path, &signed.card, None, args.force)?,
        None => write_stdout(&signed.card)?,
    }
    if args.format == "json" {
        // The core's report of what was signed, and where the card came from and went.
        let mut report = signed.to_json();
        if let Some(o) = report.as_object_mut() {
            let output = target.map_or_else(|| STDOUT.to_string(), |p| p.display().to_string());
            o.insert("input".into(), input.source.clone().into());
            o.insert("output".into(), output.into());
        }
        return write_stderr_line(&report.to_string());
    }

    write_stderr_line(&format!("kid: {}", quoted(&signed.kid)))?;
    write_stderr_line(&format!("alg: {}", signed.alg.as_str()))?;
    write_stderr_line(&format!("profile: {}", signed.canonical.profile.as_str()))?;
    write_stderr_line(&format!(
        "canonical sha256: {}",
        sha256_hex(&signed.canonical.bytes)
    ))?;
    for also in &signed.also {
        write_stderr_line(&format!(
            "also: profile {} canonical sha256 {}",
            also.canonical.profile.as_str(),
            sha256_hex(&also.canonical.bytes)
        ))?;
    }
    for p in &signed.also_same_bytes {
        write_stderr_line(&format!(
            "also: profile {} skipped: its bytes are the bytes already signed, so its signature would repeat one",
            p.as_str()
        ))?;
    }
    if opts.replace_same_kid {
        write_stderr_line(&format!("replaced: {}", signed.replaced))?;
    }
    let unsigned = &signed.canonical.unsigned;
    write_stderr_line(&format!(
        "unsigned: {}",
        serde_json::Value::from(unsigned.clone())
    ))?;
    if !unsigned.is_empty() {
        write_stderr_line(&format!(
            "warning: {} member(s) of the card are not covered by this signature; verifiers will report them as unsigned",
            unsigned.len()
        ))?;
    }
    for note in a2a_card::signature::near::notes(unsigned) {
        write_stderr_line(&format!("note: {note}"))?;
    }
    Ok(())
}

impl Args {
    /// The signing options of the flags: one request of the core's table
    /// (`a2a_card::request::SIGN`), the flags declared here set first, then the table's; an
    /// error about the --x5c file names the file.
    fn options(&self) -> Result<SignOptions, Failure> {
        let x5c = match &self.x5c {
            None => Vec::new(),
            Some(path) => {
                let (text, source) = read_key_text(path)?;
                vec![Input::new(text, source)]
            }
        };
        let mut request = SignRequest {
            alg: self.alg.map(|a| a.as_str().to_string()),
            x5c,
            ..SignRequest::default()
        };
        self.table.fill(&mut request)?;
        request.build().map_err(|e| match e.input() {
            Some((source, _)) => {
                let source = source.to_string();
                Failure::new(e, source)
            }
            None => Failure::new(e, COMMAND_LINE),
        })
    }
}
