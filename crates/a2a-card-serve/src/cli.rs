//! `a2a-card serve`: its arguments (the CLI flattens [`Args`] under its subcommand) and
//! [`run`], which starts the runtime, serves until SIGTERM and returns the exit code.

use crate::{serve, signals, Limits, Policy, Service};
use a2a_card::{Error, ErrorCode};
use clap::builder::TypedValueParser as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Examples shown at the end of `a2a-card serve --help`.
///
/// ```
/// assert!(a2a_card_serve::AFTER_HELP.contains("a2a-card serve --policy policy.json"));
/// ```
pub const AFTER_HELP: &str = "\
Examples:
  a2a-card serve --policy policy.json
  a2a-card serve --policy /etc/a2a-card/policy.json --listen 0.0.0.0:8080 --max-in-flight 512
  a2a-card serve --policy policy.json --check

API: POST /v1/verify (the card as the body), POST /v1/verify-remote ({\"url\": \"https://...\"}),
GET /healthz, /readyz, /metrics. Answers: 200 valid, 422 invalid, 400 a malformed card or
request, 413 too large, 503 overloaded, 504 past the deadline (docs/serve.md has them all).

Signals: SIGHUP reads the policy file again (a policy that does not load is refused whole: the
one in force stays, an error line is written); SIGTERM or SIGINT stops accepting, answers every
request already read, then exits 0.

Exit codes: 0 stopped by a signal (or --check: the policy loads), 2 the policy file is refused
or the address cannot be listened on.";

/// Arguments of `serve`, for a command line to flatten.
///
/// ```
/// use clap::Parser;
/// #[derive(Parser)]
/// struct Cli {
///     #[command(flatten)]
///     serve: a2a_card_serve::Args,
/// }
/// let cli = Cli::parse_from(["x", "--policy", "p.json", "--max-in-flight", "8"]);
/// assert_eq!(cli.serve.limits().max_in_flight, 8);
/// assert!(Cli::try_parse_from(["x", "--policy", "p.json", "--max-header-bytes", "10"]).is_err());
/// ```
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The policy file (JSON): trust roots, verify options, mode, audit, fetch options.
    #[arg(long, value_name = "FILE")]
    pub policy: PathBuf,

    /// The address to listen on (port 0: any free port; the address is written to stderr).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,

    /// Read the policy, print what it says, and exit: 0 when it loads, 2 when it is refused.
    #[arg(long)]
    pub check: bool,

    /// The largest request body, in bytes (a larger one: 413).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_body_bytes,
          value_parser = clap::value_parser!(u64).range(1..=1 << 30).map(usize_of))]
    pub max_body_bytes: usize,

    /// The largest request head (request line and header fields), in bytes (a larger one: 431).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_header_bytes,
          value_parser = clap::value_parser!(u64).range(1024..=1 << 20).map(usize_of))]
    pub max_header_bytes: usize,

    /// The most verifications at once (more: 503 with Retry-After).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_in_flight,
          value_parser = clap::value_parser!(u64).range(1..=65_536).map(usize_of))]
    pub max_in_flight: usize,

    /// The most client connections open at once (more wait to be accepted).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_connections,
          value_parser = clap::value_parser!(u64).range(1..=65_536).map(usize_of))]
    pub max_connections: usize,

    /// The longest a request may take, body, fetch and verification (then: 504).
    #[arg(long, value_name = "MS", default_value_t = ms(Limits::default().deadline),
          value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub deadline_ms: u64,

    /// The longest a client may take to send a request head, and the longest a keep-alive
    /// connection may stay idle, before it is closed.
    #[arg(long, value_name = "MS", default_value_t = ms(Limits::default().header_timeout),
          value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub header_timeout_ms: u64,

    /// The longest a client may take to send a request body after its head (then: 408 and the
    /// connection closed; the body is read before a verification slot is taken).
    #[arg(long, value_name = "MS", default_value_t = ms(Limits::default().body_timeout),
          value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub body_timeout_ms: u64,

    /// After SIGTERM, how long /readyz answers 503 while requests are still served.
    #[arg(long, value_name = "MS", default_value_t = ms(Limits::default().shutdown_delay),
          value_parser = clap::value_parser!(u64).range(0..=3_600_000))]
    pub shutdown_delay_ms: u64,

    /// After the listener closes, the longest wait for the requests being answered.
    #[arg(long, value_name = "MS", default_value_t = ms(Limits::default().drain_timeout),
          value_parser = clap::value_parser!(u64).range(0..=3_600_000))]
    pub drain_timeout_ms: u64,

    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
}

fn usize_of(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

impl Args {
    /// The limits the flags give (see [`Args`]'s example).
    pub fn limits(&self) -> Limits {
        Limits {
            max_body_bytes: self.max_body_bytes,
            max_header_bytes: self.max_header_bytes,
            max_in_flight: self.max_in_flight,
            max_connections: self.max_connections,
            deadline: Duration::from_millis(self.deadline_ms),
            header_timeout: Duration::from_millis(self.header_timeout_ms),
            body_timeout: Duration::from_millis(self.body_timeout_ms),
            shutdown_delay: Duration::from_millis(self.shutdown_delay_ms),
            drain_timeout: Duration::from_millis(self.drain_timeout_ms),
        }
    }
}

/// Runs `a2a-card serve`: the exit code, with any error written to stderr as the CLI's one
/// error line (`error[CODE]: MESSAGE at PLACE (SOURCE)`).
///
/// ```
/// use clap::Parser;
/// #[derive(Parser)]
/// struct Cli {
///     #[command(flatten)]
///     serve: a2a_card_serve::Args,
/// }
/// // --check: the policy is read and described, nothing is served; a missing file exits 2.
/// let cli = Cli::parse_from(["x", "--policy", "/nonexistent/policy.json", "--check"]);
/// assert_eq!(a2a_card_serve::run(cli.serve), 2);
/// ```
pub fn run(args: Args) -> u8 {
    match run_inner(args) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("{}", error_line(&e));
            2
        }
    }
}

fn run_inner(args: Args) -> Result<(), Error> {
    if args.check {
        let p = Policy::load(&args.policy)?;
        let (keys, anchors) = p
            .verifier
            .as_ref()
            .map_or((0, 0), |v| (v.trust.keys().len(), v.trust.anchors().len()));
        println!(
            "policy {}: mode {}, audit {}, {} trusted keys, {} anchors, {} jku prefixes",
            args.policy.display(),
            p.mode(),
            p.audit,
            keys,
            anchors,
            p.remote.jku_allow.len()
        );
        return Ok(());
    }
    let mut rt = tokio::runtime::Builder::new_multi_thread();
    // Verifications run on the blocking pool: as many threads as cores verify at once (more
    // only switch between each other), plus a few for the resolver's lookups.
    let threads = match args.threads {
        Some(n) => usize::from(n),
        None => std::thread::available_parallelism().map_or(2, usize::from),
    };
    rt.worker_threads(threads).max_blocking_threads(threads + 4);
    let rt = rt
        .enable_all()
        .build()
        .map_err(|e| Error::new(ErrorCode::Io, format!("cannot start the runtime: {e}")))?;
    rt.block_on(async {
        let service = Arc::new(Service::new(args.policy.clone(), args.limits())?);
        let stop = signals(service.clone())?;
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| Error::new(ErrorCode::Io, format!("cannot listen on {}: {e}", args.listen)))?;
        let addr = listener.local_addr().map_or(args.listen, |a| a);
        eprintln!(
            "listening on http://{addr} (policy {}, mode {})",
            args.policy.display(),
            service.policy_mode()
        );
        let drain = service.limits.drain_timeout;
        match serve(listener, service, stop).await {
            0 => eprintln!("stopped: every request read was answered"),
            cut => eprintln!(
                "stopped: {cut} connection(s) were still being answered after {} ms and were closed",
                drain.as_millis()
            ),
        }
        Ok(())
    })
}

/// A duration of the default limits in whole milliseconds, for the flags' defaults.
fn ms(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The CLI's one error line: `error[CODE]: MESSAGE at PLACE (SOURCE)`, on one line.
///
/// ```
/// let e = a2a_card::Error::new(a2a_card::ErrorCode::Usage, "bad").at("/verify/mode").from_input("policy.json", true);
/// assert_eq!(a2a_card_serve::error_line(&e), "error[usage]: bad at /verify/mode (policy.json)");
/// ```
pub fn error_line(e: &Error) -> String {
    let mut line = format!("error[{}]: {}", e.code().as_str(), e.message());
    if let Some(place) = e.place() {
        line.push_str(" at ");
        line.push_str(&place);
    }
    if let Some((source, _)) = e.input() {
        line.push_str(&format!(" ({source})"));
    }
    line.replace(['\n', '\r'], " ")
}
