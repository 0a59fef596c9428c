//! The Rust peer of `scripts/interop-sdks.sh` and `scripts/bench-peers.sh`: Agent Cards signed
//! and verified by `a2a-protocol-types` 0.15 (feature `signing`), as the A2A Rust SDK
//! (a2a-rust) does, with nothing of a2a-card in between.
//!
//! ```text
//! a2a-rust-peer versions
//! a2a-rust-peer sign CARD KEY.pem JWKS ALG OUT
//! a2a-rust-peer verify CARD JWKS [--typed]
//! a2a-rust-peer bench IN_DIR ROUND_SECONDS ROUNDS
//! a2a-rust-peer canonicalize CARD [--typed]
//! ```
//!
//! `sign` reads CARD into the crate's `AgentCard` (serde; members it does not model are
//! dropped), signs it with `sign_card_es256` or `sign_card_ed25519` (ALG `ES256` or `EdDSA`,
//! the PKCS #8 key of KEY.pem, the `kid` of the first key of JWKS), appends the signature to the
//! card's `signatures` and writes the card as the crate serializes it (what an a2a-rust server
//! serves) to OUT.
//!
//! `verify` checks CARD as received with `verify_card_json_with_jwks` (the JSON object, every
//! member it holds, presence rules then RFC 8785), or with `--typed` as the crate reads it into
//! an `AgentCard` (`verify_card_with_jwks`), against the keys of JWKS. It prints one JSON object,
//! the shape `scripts/interop/report.py sdk` reads: `accepted` (some entry verifies), `entries`
//! (per entry of `signatures`, whether it verifies alone) and `error` (the crate's message when
//! none does). A refusal is a result (exit 0); exit 1 is a failure to run, 2 a usage error.
//!
//! `bench` times, in this process, signing and verifying the cards of IN_DIR/cards with the keys
//! of IN_DIR/keys (what `scripts/bench-peers/gen.py` writes), exactly as
//! `scripts/bench-peers/py_bench.py` times the Python SDK: sign = read the card text into an
//! `AgentCard`, sign, append the signature and write the card as JSON text; verify = read the
//! signed text into a JSON value and `verify_card_json_with_jwks` (the key set read once). Each
//! operation runs ROUNDS rounds of N iterations, N chosen so that a round lasts about
//! ROUND_SECONDS, after three warm-up calls; one JSON line per measurement with the median
//! seconds per operation (`impl` is `rust`).
//!
//! `canonicalize` writes to stdout the bytes the crate signs and verifies for CARD: as received
//! (`canonicalize_card_json`) or, with `--typed`, as read into an `AgentCard`
//! (`canonicalize_card`); what `scripts/interop-sdks.sh` compares with `a2a-card canonicalize`.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use a2a_protocol_types::agent_card::AgentCard;
use a2a_protocol_types::signing::{
    Jwks, canonicalize_card, canonicalize_card_json, sign_card_ed25519, sign_card_es256,
    verify_card_json_with_jwks, verify_card_with_jwks,
};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

/// The version of `a2a-protocol-types` that Cargo.toml pins (`=0.15.0`).
const PEER_VERSION: &str = "0.15.0";
const ALGS: [&str; 2] = ["ES256", "EdDSA"];
const USAGE: &str = "usage:
  a2a-rust-peer versions
  a2a-rust-peer sign CARD KEY.pem JWKS ALG OUT
  a2a-rust-peer verify CARD JWKS [--typed]
  a2a-rust-peer bench IN_DIR ROUND_SECONDS ROUNDS
  a2a-rust-peer canonicalize CARD [--typed]";

type Result<T> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = match args.as_slice() {
        ["versions"] => {
            println!("{}", json!({ "a2a-protocol-types": PEER_VERSION }));
            Ok(())
        }
        ["sign", card, key, jwks, alg, out] => sign(card, key, jwks, alg, out),
        ["verify", card, jwks] => verify(card, jwks, false),
        ["verify", card, jwks, "--typed"] => verify(card, jwks, true),
        ["bench", dir, round_s, rounds] => bench(dir, round_s, rounds),
        ["canonicalize", card] => canonical(card, false),
        ["canonicalize", card, "--typed"] => canonical(card, true),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("a2a-rust-peer: {e}");
            ExitCode::from(1)
        }
    }
}

fn read(path: &str) -> Result<String> {
    fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}

/// The DER bytes of the one PEM block of `path` (a PKCS #8 private key).
fn pem_der(path: &str) -> Result<Vec<u8>> {
    let text = read(path)?;
    let body: String = text
        .lines()
        .skip_while(|l| !l.starts_with("-----BEGIN "))
        .skip(1)
        .take_while(|l| !l.starts_with("-----END "))
        .collect();
    if body.is_empty() {
        return Err(format!("{path}: no PEM block"));
    }
    STANDARD
        .decode(body.trim())
        .map_err(|e| format!("{path}: the PEM block is not base64: {e}"))
}

fn read_jwks(path: &str) -> Result<Jwks> {
    serde_json::from_str(&read(path)?).map_err(|e| format!("{path}: not a JWK Set the crate reads: {e}"))
}

/// The `kid` of the first key of the JWK Set at `path`.
fn first_kid(path: &str) -> Result<String> {
    let set: Value = serde_json::from_str(&read(path)?).map_err(|e| format!("{path}: not JSON: {e}"))?;
    set.pointer("/keys/0/kid")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| format!("{path}: its first key has no kid"))
}

/// A signer of typed cards: the algorithm's `sign_card_*` function with its key and `kid`.
struct Signer {
    alg: String,
    der: Vec<u8>,
    kid: String,
}

impl Signer {
    fn new(key: &str, jwks: &str, alg: &str) -> Result<Self> {
        if !ALGS.contains(&alg) {
            return Err(format!("algorithm {alg:?}: the crate signs ES256 and EdDSA only"));
        }
        Ok(Self {
            alg: alg.to_owned(),
            der: pem_der(key)?,
            kid: first_kid(jwks)?,
        })
    }

    /// Reads `text` into an `AgentCard`, signs it, appends the signature and writes the card as
    /// the crate serializes it.
    fn sign_text(&self, text: &str) -> Result<String> {
        let mut card: AgentCard =
            serde_json::from_str(text).map_err(|e| format!("not an AgentCard the crate reads: {e}"))?;
        let signature = if self.alg == "ES256" {
            sign_card_es256(&card, &self.der, &self.kid)
        } else {
            sign_card_ed25519(&card, &self.der, &self.kid)
        }
        .map_err(|e| format!("{} signing failed: {e}", self.alg))?;
        card.signatures.get_or_insert_with(Vec::new).push(signature);
        serde_json::to_string(&card).map_err(|e| format!("the signed card does not serialize: {e}"))
    }
}

fn sign(card: &str, key: &str, jwks: &str, alg: &str, out: &str) -> Result<()> {
    let signed = Signer::new(key, jwks, alg)?
        .sign_text(&read(card)?)
        .map_err(|e| format!("{card}: {e}"))?;
    fs::write(out, signed + "\n").map_err(|e| format!("cannot write {out}: {e}"))
}

/// Verifies `card` (a JSON object) as received, or as read into an `AgentCard` when `typed`.
fn verify_value(card: &Value, jwks: &Jwks, typed: bool) -> Result<()> {
    let r = if typed {
        let card: AgentCard = serde_json::from_value(card.clone())
            .map_err(|e| format!("not an AgentCard the crate reads: {e}"))?;
        verify_card_with_jwks(&card, jwks)
    } else {
        verify_card_json_with_jwks(card, jwks)
    };
    r.map_err(|e| e.to_string())
}

fn verify(card: &str, jwks_path: &str, typed: bool) -> Result<()> {
    let value: Value = serde_json::from_str(&read(card)?).map_err(|e| format!("{card}: not JSON: {e}"))?;
    let jwks = read_jwks(jwks_path)?;
    let whole = verify_value(&value, &jwks, typed);
    // Each entry alone: the card with that one signature.
    let count = value
        .get("signatures")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let entries: Vec<bool> = (0..count)
        .map(|i| {
            let mut one = value.clone();
            let sig = one["signatures"][i].take();
            one["signatures"] = json!([sig]);
            verify_value(&one, &jwks, typed).is_ok()
        })
        .collect();
    let result = json!({
        "accepted": whole.is_ok(),
        "entries": entries,
        "reading": if typed { "typed AgentCard (verify_card_with_jwks)" } else { "as received (verify_card_json_with_jwks)" },
        "error": whole.err(),
    });
    println!("{result}");
    Ok(())
}

fn canonical(card: &str, typed: bool) -> Result<()> {
    let text = read(card)?;
    let bytes = if typed {
        let card: AgentCard = serde_json::from_str(&text)
            .map_err(|e| format!("{card}: not an AgentCard the crate reads: {e}"))?;
        canonicalize_card(&card)
    } else {
        let value: Value = serde_json::from_str(&text).map_err(|e| format!("{card}: not JSON: {e}"))?;
        canonicalize_card_json(&value)
    }
    .map_err(|e| format!("{card}: the crate does not canonicalize it: {e}"))?;
    std::io::stdout()
        .write_all(&bytes)
        .map_err(|e| format!("cannot write the bytes: {e}"))
}

/// Median seconds per call of `f` over `rounds` rounds of N calls (N: a round of about
/// `round_s`), after three warm-up calls; and N. As `py_bench.py` and `js_bench.mjs` time.
fn timed(mut f: impl FnMut() -> Result<()>, round_s: f64, rounds: usize) -> Result<(f64, usize)> {
    for _ in 0..3 {
        f()?;
    }
    let t = Instant::now();
    f()?;
    let once = t.elapsed().as_secs_f64().max(1e-7);
    // A float count of calls, at least 1, truncated as Python's int() does.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let n = ((round_s / once) as usize).max(1);
    let mut per = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let t = Instant::now();
        for _ in 0..n {
            f()?;
        }
        #[allow(clippy::cast_precision_loss)]
        per.push(t.elapsed().as_secs_f64() / n as f64);
    }
    per.sort_by(f64::total_cmp);
    // statistics.median: the middle value, or the mean of the two middle ones.
    let m = per.len() / 2;
    let median = if per.len() % 2 == 1 {
        per[m]
    } else {
        (per[m - 1] + per[m]) / 2.0
    };
    Ok((median, n))
}

/// The card names (file stems) of `dir`, smallest file first.
fn cards(dir: &Path) -> Result<Vec<String>> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))? {
        let entry = entry.map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".json") {
            let size = entry.metadata().map_err(|e| format!("{name}: {e}"))?.len();
            files.push((size, stem.to_owned()));
        }
    }
    files.sort();
    Ok(files.into_iter().map(|(_, stem)| stem).collect())
}

fn bench(dir: &str, round_s: &str, rounds: &str) -> Result<()> {
    let round_s: f64 = round_s
        .parse()
        .map_err(|_| format!("ROUND_SECONDS {round_s:?} is not a number"))?;
    let rounds: usize = rounds
        .parse()
        .map_err(|_| format!("ROUNDS {rounds:?} is not a count"))?;
    if !round_s.is_finite() || round_s <= 0.0 || rounds == 0 {
        return Err("ROUND_SECONDS must be a finite number above zero and ROUNDS at least 1".into());
    }
    let dir = Path::new(dir);
    let names = cards(&dir.join("cards"))?;
    for alg in ALGS {
        let keys = dir.join("keys");
        let jwks_path = keys.join(format!("{alg}.jwks.json"));
        let jwks_path = jwks_path.to_string_lossy();
        let pem = keys.join(format!("{alg}.pem"));
        let signer = Signer::new(&pem.to_string_lossy(), &jwks_path, alg)?;
        let jwks = read_jwks(&jwks_path)?;
        for name in &names {
            let text = read(&dir.join("cards").join(format!("{name}.json")).to_string_lossy())?;
            let sign = || {
                signer
                    .sign_text(&text)
                    .map(drop)
                    .map_err(|e| format!("{name}: {e}"))
            };
            let signed = signer.sign_text(&text).map_err(|e| format!("{name}: {e}"))?;
            let verify = || {
                let value: Value = serde_json::from_str(&signed).map_err(|e| format!("{name}: {e}"))?;
                verify_card_json_with_jwks(&value, &jwks)
                    .map_err(|e| format!("{name} {alg}: the crate refuses its own signature: {e}"))
            };
            verify()?;
            for (op, (seconds, n)) in [
                ("sign", timed(sign, round_s, rounds)?),
                ("verify", timed(verify, round_s, rounds)?),
            ] {
                println!(
                    "{}",
                    json!({ "impl": "rust", "card": name, "alg": alg, "op": op, "seconds": seconds, "n": n, "rounds": rounds })
                );
            }
        }
    }
    Ok(())
}
