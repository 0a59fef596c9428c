//! The service's counters, written in the Prometheus text exposition format (version 0.0.4) by
//! [`Metrics::render`]. Counters with labels are kept in short lists behind one mutex each; the
//! hot path (one verification) takes three of them once each and allocates nothing.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// The upper bounds of the latency histogram's buckets, in seconds.
///
/// ```
/// assert!(a2a_card_serve::LATENCY_BUCKETS.windows(2).all(|w| w[0] < w[1]));
/// ```
pub const LATENCY_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// Counters by label values: few label sets each (endpoints, verdicts, codes), so a list
/// searched in order, which finds a known set without allocating.
#[derive(Debug, Default)]
struct Family(Mutex<Vec<(Vec<String>, u64)>>);

impl Family {
    fn add(&self, labels: &[&str]) {
        let Ok(mut list) = self.0.lock() else { return };
        match list.iter_mut().find(|(k, _)| same(k, labels)) {
            Some((_, n)) => *n += 1,
            None => list.push((labels.iter().map(|s| s.to_string()).collect(), 1)),
        }
    }

    fn get(&self, labels: &[&str]) -> u64 {
        let Ok(list) = self.0.lock() else { return 0 };
        list.iter().find(|(k, _)| same(k, labels)).map_or(0, |(_, n)| *n)
    }

    fn write(&self, out: &mut String, name: &str, help: &str, names: &[&str]) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter");
        let Ok(list) = self.0.lock() else { return };
        let mut sorted: Vec<&(Vec<String>, u64)> = list.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        for (values, n) in sorted {
            let labels: Vec<String> = names
                .iter()
                .zip(values)
                .map(|(k, v)| format!("{k}=\"{}\"", escape(v)))
                .collect();
            let _ = writeln!(out, "{name}{{{}}} {n}", labels.join(","));
        }
    }
}

fn same(key: &[String], labels: &[&str]) -> bool {
    key.len() == labels.len() && key.iter().zip(labels).all(|(k, l)| k == l)
}

/// One endpoint's histogram: the count of each bucket, the sum of the durations, the count.
type Buckets = (Vec<u64>, f64, u64);

/// A histogram of durations per endpoint.
#[derive(Debug, Default)]
struct Histogram(Mutex<Vec<(String, Buckets)>>);

impl Histogram {
    fn observe(&self, endpoint: &str, d: Duration) {
        let s = d.as_secs_f64();
        let Ok(mut list) = self.0.lock() else { return };
        let at = match list.iter().position(|(e, _)| e == endpoint) {
            Some(at) => at,
            None => {
                list.push((endpoint.to_string(), (vec![0; LATENCY_BUCKETS.len()], 0.0, 0)));
                list.len() - 1
            }
        };
        let entry = &mut list[at].1;
        if let Some(i) = LATENCY_BUCKETS.iter().position(|b| s <= *b) {
            entry.0[i] += 1;
        }
        entry.1 += s;
        entry.2 += 1;
    }

    fn write(&self, out: &mut String, name: &str, help: &str) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} histogram");
        let Ok(list) = self.0.lock() else { return };
        let mut sorted: Vec<&(String, Buckets)> = list.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        for (endpoint, (buckets, sum, count)) in sorted {
            let mut cumulative = 0;
            for (bound, n) in LATENCY_BUCKETS.iter().zip(buckets) {
                cumulative += n;
                let _ = writeln!(
                    out,
                    "{name}_bucket{{endpoint=\"{endpoint}\",le=\"{bound}\"}} {cumulative}"
                );
            }
            let _ = writeln!(
                out,
                "{name}_bucket{{endpoint=\"{endpoint}\",le=\"+Inf\"}} {count}"
            );
            let _ = writeln!(out, "{name}_sum{{endpoint=\"{endpoint}\"}} {sum}");
            let _ = writeln!(out, "{name}_count{{endpoint=\"{endpoint}\"}} {count}");
        }
    }
}

/// Every metric of the service.
///
/// ```
/// let m = a2a_card_serve::Metrics::default();
/// m.verification("verify", "valid", "valid");
/// assert_eq!(m.verifications("verify", "valid", "valid"), 1);
/// assert!(m.render().contains("a2a_card_serve_verifications_total{endpoint=\"verify\",verdict=\"valid\",code=\"valid\"} 1"));
/// ```
#[derive(Debug, Default)]
pub struct Metrics {
    verifications: Family,
    responses: Family,
    refused: Family,
    fetches: Family,
    cache: Family,
    reloads: Family,
    latency: Histogram,
    in_flight: AtomicI64,
    connections: AtomicI64,
    policy_generation: AtomicU64,
}

impl Metrics {
    /// One verification answered: its endpoint (`verify`, `verify-remote`), verdict (`valid`,
    /// `invalid`, `error`, `off`) and code (the first failing signature's verdict code, the
    /// error's code, or the verdict).
    pub fn verification(&self, endpoint: &str, verdict: &str, code: &str) {
        self.verifications.add(&[endpoint, verdict, code]);
    }

    /// How many verifications with these labels were counted.
    pub fn verifications(&self, endpoint: &str, verdict: &str, code: &str) -> u64 {
        self.verifications.get(&[endpoint, verdict, code])
    }

    /// One response, by endpoint and status.
    pub fn response(&self, endpoint: &str, status: u16) {
        match http::StatusCode::from_u16(status) {
            Ok(s) => self.responses.add(&[endpoint, s.as_str()]),
            Err(_) => self.responses.add(&[endpoint, &status.to_string()]),
        }
    }

    /// One request refused before it was handled (`in-flight`, `too-large`, `deadline`, ...).
    pub fn refused(&self, reason: &str) {
        self.refused.add(&[reason]);
    }

    /// One card retrieval behind `/v1/verify-remote`: `ok` or the fetcher's error code.
    pub fn fetch(&self, outcome: &str) {
        self.fetches.add(&[outcome]);
    }

    /// What the fetcher's cache did for one card (`hit`, `miss`, `revalidated`, ...).
    pub fn cache(&self, outcome: &str) {
        self.cache.add(&[outcome]);
    }

    /// One policy reload: `ok` or `error`.
    pub fn reload(&self, result: &str) {
        self.reloads.add(&[result]);
        if result == "ok" {
            self.policy_generation.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// How many reloads with this result were counted.
    pub fn reloads(&self, result: &str) -> u64 {
        self.reloads.get(&[result])
    }

    /// The time one request of `endpoint` took.
    pub fn latency(&self, endpoint: &str, d: Duration) {
        self.latency.observe(endpoint, d);
    }

    /// A request entered (`+1`) or left (`-1`) the service.
    pub fn in_flight(&self, delta: i64) {
        self.in_flight.fetch_add(delta, Ordering::Relaxed);
    }

    /// A connection opened (`+1`) or closed (`-1`).
    pub fn connections(&self, delta: i64) {
        self.connections.fetch_add(delta, Ordering::Relaxed);
    }

    /// Every metric, in the Prometheus text format.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(4096);
        self.verifications.write(
            &mut out,
            "a2a_card_serve_verifications_total",
            "Verifications answered, by endpoint, verdict and code.",
            &["endpoint", "verdict", "code"],
        );
        self.responses.write(
            &mut out,
            "a2a_card_serve_responses_total",
            "HTTP responses, by endpoint and status.",
            &["endpoint", "status"],
        );
        self.refused.write(
            &mut out,
            "a2a_card_serve_refused_total",
            "Requests refused by a limit of the service, by reason.",
            &["reason"],
        );
        self.fetches.write(
            &mut out,
            "a2a_card_serve_fetches_total",
            "Remote card retrievals, by outcome (ok or the fetcher's error code).",
            &["outcome"],
        );
        self.cache.write(
            &mut out,
            "a2a_card_serve_fetch_cache_total",
            "What the fetcher's cache did for each remote card.",
            &["outcome"],
        );
        self.reloads.write(
            &mut out,
            "a2a_card_serve_policy_reloads_total",
            "Policy reloads (SIGHUP), by result.",
            &["result"],
        );
        self.latency.write(
            &mut out,
            "a2a_card_serve_request_duration_seconds",
            "Time from a request's head to its answer, by endpoint.",
        );
        let gauges = [
            (
                "a2a_card_serve_in_flight_requests",
                "Requests being handled.",
                self.in_flight.load(Ordering::Relaxed),
            ),
            (
                "a2a_card_serve_open_connections",
                "Client connections open.",
                self.connections.load(Ordering::Relaxed),
            ),
        ];
        for (name, help, v) in gauges {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {v}");
        }
        let name = "a2a_card_serve_policy_generation";
        let _ = writeln!(
            out,
            "# HELP {name} Policies loaded since start (1 at start).\n# TYPE {name} gauge\n{name} {}",
            self.policy_generation.load(Ordering::Relaxed)
        );
        out
    }
}

/// A label value as the text format writes it.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}
