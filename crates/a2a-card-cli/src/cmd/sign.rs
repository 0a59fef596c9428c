//! `a2a-card sign`: append a signature to a card, every other byte left as it was.

use crate::io::{
    check_output, is_stdin, quoted, read_input, read_key_text, refuse_same_file, replace_file, same_file,
    write_stderr_line, write_stdout, COMMAND_LINE,
};
use crate::Failure;
use a2a_card::jose::keys::PrivateKey;
use a2a_card::Algorithm;
use a2a_card::{sha256_hex, sign_card, ErrorCode, Profile, SignOptions};
use std::path::PathBuf;

/// The environment variable that may hold the signing key (PEM or JWK text).
pub(crate) const KEY_ENV: &str = "A2A_CARD_SIGNING_KEY";

/// Examples shown at the end of `a2a-card sign --help`.
pub(crate) const AFTER_HELP: &str = "\
Examples:
  a2a-card sign card.json --key release.pem > card.signed.json
  a2a-card sign card.json --key release.pem --kid release-2026 --in-place
  A2A_CARD_SIGNING_KEY=\"$(cat release.pem)\" a2a-card sign card.json --out card.signed.json
  vault read -field=pem secret/a2a | a2a-card sign card.json --key - --replace --in-place
  a2a-card sign card.json --key rsa.pem --alg PS256 --jku https://agent.example/jwks.json
  a2a-card sign card.json --key release.pem --also-profile prune-empty --in-place
  a2a-card sign card.json --key release.pem --out public/card.json --force

The key comes from --key FILE, from --key - (stdin; the card must then be a file), or from the
environment variable A2A_CARD_SIGNING_KEY (PEM or JWK text) when --key is absent. A PEM file
records neither kid nor alg: the kid defaults to the key's RFC 7638 thumbprint and the alg to
the key's own (Ed25519 EdDSA, P-256 ES256, P-384 ES384, P-521 ES512, secp256k1 ES256K, RSA
RS256); give --kid and --alg to choose others.

--out and --in-place write a temporary file next to the file written and rename it over it,
keeping its permissions. A symbolic link is written through (the file it leads to gets the
signed card, the link stays); a dangling link, a device, a FIFO, a socket or a directory is
refused, and so is a read-only file unless --force is given. The file written may not be the
key file, and --out may not be the card itself (use --in-place for that).

On stderr: the kid, alg, profile, the SHA-256 of the canonical bytes signed, and the members
of the card the signature does not cover (JSON Pointers).

Exit codes: 0 signed, 2 bad input or usage, 3 the key cannot be read.";

/// Arguments of `sign`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The card to sign; `-` or nothing reads stdin.
    #[arg(value_name = "CARD")]
    card: Option<PathBuf>,

    /// The private key: a PEM file (PKCS#8, SEC1 or PKCS#1) or a private JWK; `-` reads it from
    /// stdin. Without --key, the key is read from $A2A_CARD_SIGNING_KEY.
    #[arg(long, value_name = "FILE")]
    key: Option<PathBuf>,

    /// The algorithm (it must fit the key); by default the key's own.
    #[arg(long, value_name = "ALG", value_parser = super::alg_parser())]
    alg: Option<Algorithm>,

    /// The kid in the protected header; by default the key's (its JWK kid or RFC 7638
    /// thumbprint).
    #[arg(long, value_name = "KID")]
    kid: Option<String>,

    /// A jku to name in the protected header (information for verifiers, never a trust root).
    #[arg(long, value_name = "URL")]
    jku: Option<String>,

    /// An unprotected header parameter for the entry's `header` member, as NAME=JSON
    /// (e.g. --header 'x-note="release 7"'). Repeatable.
    #[arg(long = "header", value_name = "NAME=JSON")]
    headers: Vec<String>,

    /// A further protected header parameter, as NAME=JSON. Repeatable.
    #[arg(long = "protected-header", value_name = "NAME=JSON")]
    protected_headers: Vec<String>,

    /// Also add a signature over this profile's bytes, same key and header (repeatable): a
    /// transition aid, so that SDK verifiers of today (prune-empty, served-as-is) and
    /// spec-exact verifiers both find a signature they check.
    #[arg(long = "also-profile", value_name = "PROFILE", value_parser = super::profile_parser())]
    also_profiles: Vec<Profile>,

    /// Replace the existing signatures whose kid equals ours instead of adding one more.
    #[arg(long)]
    replace: bool,

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

    #[command(flatten)]
    canon: super::CanonArgs,
}

/// Runs `sign`.
pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let card_from_stdin = is_stdin(args.card.as_deref());
    let key_from_stdin = args.key.as_deref().is_some_and(|k| k.as_os_str() == "-");
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
        if let Some(key) = args.key.as_deref().filter(|k| !is_stdin(Some(k))) {
            refuse_same_file(
                if args.in_place { "--in-place" } else { "--out" },
                path,
                "--key",
                key,
            )?;
        }
        check_output(path, args.force)?;
    }
    let extra_protected = header_params(&args.protected_headers, "--protected-header")?;
    let unprotected = header_params(&args.headers, "--header")?;

    // The key and the options first: what is wrong with them fails before the card is read,
    // and the error names the key file or the command line, not the card.
    let (key, key_source) = read_key(args.key.as_deref())?;
    let opts = SignOptions {
        alg: args.alg,
        kid: args.kid,
        jku: args.jku,
        extra_protected,
        unprotected,
        canonicalize: args.canon.options(),
        replace_same_kid: args.replace,
        also_profiles: args.also_profiles,
        // Choosing --unknown is choosing what happens to the members it concerns.
        allow_unsigned: args.canon.unknown.is_some(),
        ..SignOptions::default()
    };
    opts.check(&key).map_err(|e| {
        let source = if e.code() == ErrorCode::KeyAlgorithmMismatch {
            key_source.clone()
        } else {
            COMMAND_LINE.to_string()
        };
        Failure::new(e, source)
    })?;
    let input = read_input(args.card.as_deref(), args.canon.limits.max_input_bytes)?;
    let signed = sign_card(&input.bytes, &key, &opts).map_err(|e| Failure::new(e, &input.source))?;

    match target {
        Some(path) => replace_file(path, &signed.card, None, args.force)?,
        None => write_stdout(&signed.card)?,
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
    if args.replace {
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
    Ok(())
}

/// Reads the private key from `--key FILE`, `--key -` or the environment.
fn read_key(path: Option<&std::path::Path>) -> Result<(PrivateKey, String), Failure> {
    let (text, source) = match path {
        Some(p) => read_key_text(p)?,
        None => match std::env::var(KEY_ENV) {
            Ok(text) if !text.trim().is_empty() => (text, format!("${KEY_ENV}")),
            Ok(_) | Err(std::env::VarError::NotPresent) => {
                return Err(Failure::usage(format!(
                    "no signing key: give --key FILE, --key - (stdin), or set {KEY_ENV}"
                )))
            }
            Err(std::env::VarError::NotUnicode(_)) => {
                return Err(Failure::new(
                    a2a_card::Error::new(
                        a2a_card::ErrorCode::InvalidKey,
                        format!("{KEY_ENV} is not UTF-8 text"),
                    ),
                    format!("${KEY_ENV}"),
                )
                .key_retrieval())
            }
        },
    };
    match PrivateKey::parse(&text) {
        Ok(key) => Ok((key, source)),
        Err(e) => Err(Failure::new(e, source).key_retrieval()),
    }
}

/// Parses `NAME=JSON` header parameters; the value is read with the library's strict reader.
fn header_params(items: &[String], flag: &str) -> Result<Vec<(String, serde_json::Value)>, Failure> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let Some((name, value)) = item.split_once('=').filter(|(n, _)| !n.is_empty()) else {
            return Err(Failure::usage(format!(
                "{flag} takes NAME=JSON (e.g. {flag} 'x-note=\"text\"'), got {}",
                quoted(item)
            )));
        };
        let value =
            a2a_card::canonical::parse_json(value.as_bytes(), &a2a_card::Limits::default()).map_err(|e| {
                let e = e.context(&format!(
                    "the value of {flag} {name} is JSON (a text is quoted: {flag} '{name}=\"{}\"')",
                    value.replace(['"', '\'', '\\'], "")
                ));
                Failure::new(e, format!("{flag} {name}"))
            })?;
        out.push((name.to_string(), value));
    }
    Ok(out)
}
