//! What the clients of `scripts/bench-fetch.sh` share (`bench_client`, built against this tree
//! and the previous one, and `bench_pooled`): the command line, the options, the cache folder
//! and the JSON line of figures. It uses only the API the hand-written client of earlier
//! versions had too, so the script copies it with `bench_client.rs` into the other tree.

use a2a_card_fetch::{CacheOutcome, FetchOptions, Roots};
use std::path::PathBuf;

/// One run: `NAME URL CA.pem JWKS.json full|revalidate|memory N` read from the command line.
pub struct Run {
    /// The card's URL.
    pub url: String,
    /// The keys the card is signed with.
    pub trust: a2a_card::TrustStore,
    /// The fetch options: the CA, loopback opened, the cache folder in `revalidate` mode.
    pub opts: FetchOptions,
    /// What the cache must report on every timed call.
    pub want: CacheOutcome,
    /// `full` (cache off: every call fetches the whole card), `revalidate` (the cache folder
    /// holds the card: every call is a conditional request answered `304`) or `memory` (the
    /// same with the card in the memory layer of a kept fetcher and no folder).
    pub mode: String,
    /// Timed calls (after a warm-up of a tenth of them, at least 5).
    pub n: usize,
    cache: PathBuf,
}

impl Run {
    /// Reads the command line of the client `name`.
    pub fn from_args(name: &str) -> Run {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let [url, ca, jwks, mode, n] = &args[..] else {
            panic!("usage: {name} URL CA.pem JWKS.json full|revalidate|memory N");
        };
        let trust =
            a2a_card::TrustStore::from_json(&std::fs::read_to_string(jwks).unwrap(), "jwks.json").unwrap();
        let cache = std::env::temp_dir().join(format!("a2a-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&cache);
        let (cache_dir, want) = match mode.as_str() {
            "full" => (None, CacheOutcome::Off),
            "revalidate" => (Some(cache.clone()), CacheOutcome::Revalidated),
            // The memory layer alone (`bench_pooled` turns it on; this tree only).
            "memory" => (None, CacheOutcome::Revalidated),
            other => panic!("unknown mode {other:?}"),
        };
        let opts = FetchOptions {
            roots: Roots::CaPem(std::fs::read(ca).unwrap()),
            allow_loopback: true,
            cache_dir,
            ..FetchOptions::default()
        };
        Run {
            url: url.clone(),
            trust,
            opts,
            want,
            mode: mode.clone(),
            n: n.parse().unwrap(),
            cache,
        }
    }

    /// Calls made before timing.
    pub fn warm_up(&self) -> usize {
        (self.n / 10).max(5)
    }

    /// Prints the median, p10 and p90 of `times` (microseconds) as one JSON line, and removes
    /// the cache folder.
    pub fn finish(self, mut times: Vec<f64>) {
        times.sort_by(f64::total_cmp);
        let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
        println!(
            "{{\"mode\":\"{}\",\"n\":{},\"median_us\":{:.1},\"p10_us\":{:.1},\"p90_us\":{:.1}}}",
            self.mode,
            self.n,
            at(0.5),
            at(0.1),
            at(0.9)
        );
        let _ = std::fs::remove_dir_all(&self.cache);
    }
}
