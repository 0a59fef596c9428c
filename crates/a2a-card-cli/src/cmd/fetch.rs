//! `a2a-card fetch`: retrieve a card over HTTPS (SSRF guard, limits, HTTP cache) and print it as
//! served. The fetch options are shared with `verify URL`.

use crate::io::{check_output, printable, refuse_same_file, replace_file, write_stderr_line, write_stdout};
use crate::Failure;
use a2a_card_fetch::{fetch_card, FetchOptions, Proxy, Roots};
use clap::builder::TypedValueParser;
use std::path::PathBuf;
use std::time::Duration;

/// Examples shown at the end of `a2a-card fetch --help`.
pub(crate) const AFTER_HELP: &str = "\
Examples:
  a2a-card fetch https://agent.example.com
  a2a-card fetch https://agent.example.com/cards/support.json --out card.json
  a2a-card fetch https://agent.internal --ca-file private-ca.pem --no-cache
  a2a-card fetch https://localhost:8443 --allow-loopback --ca-file test-ca.pem

An origin (https://host[:port], no path) means its /.well-known/agent-card.json; any other URL
is fetched as given. Only https is fetched, through rustls with the Mozilla roots, or with only
the CA certificates of --ca-file. Every address a name resolves to, on every redirect, is
checked before connecting: loopback, private (RFC 1918), shared (100.64.0.0/10), link-local
(169.254.0.0/16, cloud metadata), multicast and reserved addresses, their IPv6 counterparts
and IPv6 forms that embed them are refused (error[address-refused]), and the connection goes
to the address that was checked. The response must be 200 with a JSON content type
(application/json or application/*+json).

HTTP/2 is used where the server offers it, and gzip or brotli bodies are decoded (the
--max-body-bytes limit counts decoded bytes).

Proxies: HTTPS_PROXY (or ALL_PROXY) names the proxy, hosts matched by NO_PROXY go direct;
--proxy URL names it instead (NO_PROXY still applies), --no-proxy goes direct whatever the
environment says. Through a proxy the proxy resolves names and connects, so the guard checks
what it still can before anything is sent: an IP-literal target, a name that resolves here to
a refused address, every redirect target; it cannot see what the proxy resolves a name to.
A proxy that cannot be reached or refuses the tunnel is error[connect-failed]; its password
is never printed.

Responses are cached per RFC 9111 (ETag / If-None-Match, Last-Modified / If-Modified-Since,
Cache-Control max-age, no-cache, no-store) in the user's cache directory ($XDG_CACHE_HOME/
a2a-card or ~/.cache/a2a-card on Unix, ~/Library/Caches/a2a-card on macOS,
%LOCALAPPDATA%\\a2a-card\\cache on Windows), or in --cache-dir; --no-cache turns it off.

--out is written through a temporary file and a rename; a symbolic link is written through, a
dangling link, a device, a FIFO, a socket or a directory is refused, and so is a read-only file
unless --force is given.

The card goes to stdout (or --out) byte for byte as served; nothing is verified (use
a2a-card verify URL for that). On stderr: the origin, the final URL, each redirect, the
content type, the cache outcome, the size and SHA-256 of the card.

Exit codes: 0 fetched, 2 bad input or usage (a URL that is not https), 3 the retrieval failed
(error[CODE] names why: address-refused, dns-failed, connect-failed, connect-timeout, timeout,
tls-handshake, certificate-invalid, certificate-name-mismatch, http-status, http-protocol,
too-many-redirects, redirect-invalid, not-json, body-too-large, ca-file).";

/// The options of every retrieval, shared by `fetch` and `verify URL`. The numeric options are
/// `Option`s so that `verify` can tell whether one was given with a card file, where it would
/// mean nothing.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Fetching (a URL)")]
pub(crate) struct FetchArgs {
    /// Trust only the CA certificates in this PEM file for the server's certificate (a private
    /// CA), instead of the Mozilla roots. A regular file of at most 4 MiB (or a FIFO).
    #[arg(long, value_name = "PATH")]
    ca_file: Option<PathBuf>,

    /// Longest wait for one connection to be set up (name resolution, TCP, a proxy's tunnel,
    /// the TLS handshake), in seconds (decimals allowed; 0.001 to 600).
    /// Default: 10.
    #[arg(long, value_name = "SECS", value_parser = secs_parser(MAX_CONNECT_TIMEOUT_SECS))]
    connect_timeout: Option<Duration>,

    /// Longest time for one whole retrieval (resolution, redirects, TLS, body), in seconds
    /// (decimals allowed; 0.001 to 3600). Default: 30.
    #[arg(long, value_name = "SECS", value_parser = secs_parser(MAX_TIMEOUT_SECS))]
    timeout: Option<Duration>,

    /// Refuse a response body larger than this many bytes (1 to 67108864, 64 MiB).
    /// Default: 1048576 (1 MiB).
    #[arg(long, value_name = "N", value_parser = super::count_parser(1, MAX_BODY_BYTES, "bytes"))]
    max_body_bytes: Option<usize>,

    /// Follow at most this many redirects (0 to 20). Default: 3.
    #[arg(long, value_name = "N", value_parser = super::count_parser(0, MAX_REDIRECTS, "redirects"))]
    max_redirects: Option<usize>,

    /// Allow loopback addresses (127.0.0.0/8, ::1). For local testing only: it lets a card,
    /// a redirect or a jku reach services on this machine.
    #[arg(long)]
    allow_loopback: bool,

    /// Neither read nor write the HTTP cache.
    #[arg(long, conflicts_with = "cache_dir")]
    no_cache: bool,

    /// The HTTP cache directory. Default: a2a-card in the user's cache directory
    /// ($XDG_CACHE_HOME/a2a-card or ~/.cache/a2a-card on Linux).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,

    /// Go through this HTTP proxy (http://HOST:PORT or https://HOST:PORT, with USER:PASSWORD@
    /// for Basic authentication) instead of the one HTTPS_PROXY or ALL_PROXY names; hosts
    /// matched by NO_PROXY still go direct.
    #[arg(long, value_name = "URL", conflicts_with = "no_proxy")]
    proxy: Option<String>,

    /// Connect directly, whatever HTTPS_PROXY, ALL_PROXY and NO_PROXY say.
    #[arg(long)]
    no_proxy: bool,
}

/// The largest `--timeout`, in seconds (an hour).
pub(crate) const MAX_TIMEOUT_SECS: f64 = 3600.0;
/// The largest `--connect-timeout`, in seconds (ten minutes).
pub(crate) const MAX_CONNECT_TIMEOUT_SECS: f64 = 600.0;
/// The smallest timeout, in seconds: a millisecond (a zero timeout is an error for sockets).
pub(crate) const MIN_TIMEOUT_SECS: f64 = 0.001;
/// The largest `--max-body-bytes` (64 MiB).
pub(crate) const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;
/// The largest `--max-redirects`.
pub(crate) const MAX_REDIRECTS: usize = 20;

/// The largest `--ca-file`, in bytes (the fetcher reads it whole; a bundle of every public
/// root is about 200 KiB).
pub(crate) const MAX_CA_FILE_BYTES: u64 = 4 * 1024 * 1024;

impl FetchArgs {
    /// The `--ca-file`, an input that no output may replace.
    pub(crate) fn ca_file(&self) -> Option<&std::path::Path> {
        self.ca_file.as_deref()
    }

    /// Checks the `--ca-file` before anything is fetched, since the fetcher reads it whole: a
    /// device, a socket or a directory is refused (a device such as /dev/zero would be read
    /// forever), and so is a file larger than [`MAX_CA_FILE_BYTES`]. A FIFO is allowed (a CA
    /// file given as `<(command)`). Refusals are `ca-file` errors, exit code 3.
    pub(crate) fn check_files(&self) -> Result<(), Failure> {
        let Some(path) = &self.ca_file else {
            return Ok(());
        };
        let source = path.display().to_string();
        let refuse = |message: String| {
            Failure::fetch(
                a2a_card_fetch::Error::new(a2a_card_fetch::ErrorCode::CaFile, message),
                &source,
            )
            .key_retrieval()
        };
        let meta = match std::fs::metadata(path) {
            Ok(meta) => meta,
            // A missing or unreadable file: the fetcher's own error says so.
            Err(_) => return Ok(()),
        };
        #[cfg(unix)]
        let fifo = std::os::unix::fs::FileTypeExt::is_fifo(&meta.file_type());
        #[cfg(not(unix))]
        let fifo = false;
        if !meta.is_file() && !fifo {
            return Err(refuse(format!(
                "{source} is {}, not a regular file; refusing to read it as CA certificates",
                crate::io::kind_of(meta.file_type())
            )));
        }
        if meta.len() > MAX_CA_FILE_BYTES {
            return Err(refuse(format!(
                "{source} is {} bytes, more than the limit of {MAX_CA_FILE_BYTES} bytes for a CA file",
                meta.len()
            )));
        }
        Ok(())
    }

    /// The library's fetch options: the defaults, changed where a flag was given.
    pub(crate) fn options(&self) -> FetchOptions {
        let defaults = FetchOptions::default();
        FetchOptions {
            connect_timeout: self.connect_timeout.unwrap_or(defaults.connect_timeout),
            total_timeout: self.timeout.unwrap_or(defaults.total_timeout),
            max_body_bytes: self.max_body_bytes.unwrap_or(defaults.max_body_bytes),
            max_redirects: self.max_redirects.unwrap_or(defaults.max_redirects),
            allow_loopback: self.allow_loopback,
            roots: self.ca_file.clone().map(Roots::CaFile).unwrap_or_default(),
            cache_dir: if self.no_cache {
                None
            } else {
                self.cache_dir.clone().or_else(a2a_card_fetch::default_cache_dir)
            },
            user_agent: concat!("a2a-card/", env!("CARGO_PKG_VERSION")).to_string(),
            proxy: self.proxy(),
            ..defaults
        }
    }

    /// The proxy: `--no-proxy` none, `--proxy URL` that one (with the environment's
    /// `NO_PROXY`), else the environment's.
    fn proxy(&self) -> Proxy {
        if self.no_proxy {
            return Proxy::None;
        }
        match &self.proxy {
            Some(url) => Proxy::named(url.clone()),
            None => Proxy::FromEnv,
        }
    }

    /// The first fetch flag given, if any (for refusing them when there is nothing to fetch).
    pub(crate) fn first_given(&self) -> Option<&'static str> {
        [
            (self.ca_file.is_some(), "--ca-file"),
            (self.connect_timeout.is_some(), "--connect-timeout"),
            (self.timeout.is_some(), "--timeout"),
            (self.max_body_bytes.is_some(), "--max-body-bytes"),
            (self.max_redirects.is_some(), "--max-redirects"),
            (self.allow_loopback, "--allow-loopback"),
            (self.no_cache, "--no-cache"),
            (self.cache_dir.is_some(), "--cache-dir"),
            (self.proxy.is_some(), "--proxy"),
            (self.no_proxy, "--no-proxy"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }
}

/// A number of seconds (decimals allowed) from [`MIN_TIMEOUT_SECS`] to `max`, as a `Duration`.
/// NaN, infinities, negative numbers and anything past `max` are refused here, so that no
/// timeout given can overflow a `Duration` or an `Instant` later.
pub(crate) fn secs_parser(max: f64) -> impl TypedValueParser<Value = Duration> {
    clap::builder::NonEmptyStringValueParser::new().try_map(move |s| {
        let range = format!("give a number of seconds from {MIN_TIMEOUT_SECS} to {max}");
        let secs: f64 = s
            .trim()
            .parse()
            .map_err(|_| format!("{s:?} is not a number of seconds; {range}"))?;
        if !(MIN_TIMEOUT_SECS..=max).contains(&secs) {
            return Err(format!("{s:?} is out of range; {range}"));
        }
        Duration::try_from_secs_f64(secs).map_err(|e| format!("{s:?}: {e}; {range}"))
    })
}

/// True when a command-line argument names a URL (`https://` or `http://`, any case) rather
/// than a file. A plain `http` URL is then refused by the fetcher with `not-https`.
pub(crate) fn is_url(arg: &str) -> bool {
    let lower = arg.get(..8).unwrap_or(arg).to_ascii_lowercase();
    lower.starts_with("https://") || lower.starts_with("http://")
}

/// The failure for a fetch error: exit code 2 when the caller's own input was refused (an
/// unusable URL or `--allow-jku` prefix) or the retrieved card cannot be read, 3 when the
/// retrieval failed. The error line is `error[CODE]: MESSAGE (URL)`, CODE the fetch code.
pub(crate) fn failure(e: a2a_card_fetch::Error, url: &str) -> Failure {
    let source = printable(e.url().unwrap_or(url));
    let caller = e.is_caller_input() || !e.code().is_retrieval();
    let failure = Failure::fetch(e, source);
    // The caller's own URL refused, or a retrieved document refused: bad input (2); a failed
    // retrieval: 3.
    if caller {
        failure.bad_input()
    } else {
        failure.key_retrieval()
    }
}

/// Arguments of `fetch`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// An https origin (its /.well-known/agent-card.json is fetched) or the card's full URL.
    #[arg(value_name = "URL")]
    url: String,

    /// Write the card to FILE (through a temporary file and a rename) instead of stdout. FILE
    /// must be a regular file or not exist (a symbolic link is written through), and may not
    /// be the --ca-file.
    #[arg(short = 'o', long, value_name = "FILE")]
    out: Option<PathBuf>,

    /// Replace the --out file even when it is read-only.
    #[arg(long, requires = "out")]
    force: bool,

    #[command(flatten)]
    fetch: FetchArgs,
}

/// Runs `fetch`.
pub(crate) fn run(args: Args) -> Result<(), Failure> {
    args.fetch.check_files()?;
    if let Some(out) = &args.out {
        if let Some(ca) = args.fetch.ca_file() {
            refuse_same_file("--out", out, "--ca-file", ca)?;
        }
        check_output(out, args.force)?;
    }
    let fetched = fetch_card(&args.url, &args.fetch.options()).map_err(|e| failure(e, &args.url))?;
    match &args.out {
        Some(path) => replace_file(path, &fetched.bytes, None, args.force)?,
        None => write_stdout(&fetched.bytes)?,
    }
    for line in fetched.to_lines() {
        write_stderr_line(&line)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_files_are_told_apart() {
        for url in [
            "https://a.example",
            "HTTPS://a.example/x",
            "http://a.example",
            "Http://x",
        ] {
            assert!(is_url(url), "{url}");
        }
        for file in [
            "card.json",
            "-",
            "https",
            "https:/x",
            "./https://x",
            "ftp://x",
            "",
            "é",
        ] {
            assert!(!is_url(file), "{file}");
        }
    }

    #[test]
    fn options_follow_the_flags() {
        let none = FetchArgs::default();
        assert_eq!(none.first_given(), None);
        let o = FetchArgs {
            no_cache: true,
            ..FetchArgs::default()
        }
        .options();
        assert!(o.cache_dir.is_none());
        assert_eq!(o.max_redirects, a2a_card_fetch::DEFAULT_MAX_REDIRECTS);
        assert_eq!(o.total_timeout, a2a_card_fetch::DEFAULT_TOTAL_TIMEOUT);
        let args = FetchArgs {
            timeout: Some(Duration::from_millis(1500)),
            max_redirects: Some(0),
            cache_dir: Some(PathBuf::from("c")),
            ca_file: Some(PathBuf::from("ca.pem")),
            ..FetchArgs::default()
        };
        assert_eq!(args.first_given(), Some("--ca-file"));
        let o = args.options();
        assert_eq!(o.total_timeout, Duration::from_millis(1500));
        assert_eq!(o.max_redirects, 0);
        assert_eq!(o.cache_dir, Some(PathBuf::from("c")));
        assert_eq!(o.roots, Roots::CaFile(PathBuf::from("ca.pem")));
        assert!(!o.allow_loopback);
        assert_eq!(o.proxy, Proxy::FromEnv);
        let direct = FetchArgs {
            no_proxy: true,
            ..FetchArgs::default()
        };
        assert_eq!(direct.first_given(), Some("--no-proxy"));
        assert_eq!(direct.options().proxy, Proxy::None);
        let given = FetchArgs {
            proxy: Some("http://127.0.0.1:3128".into()),
            ..FetchArgs::default()
        };
        assert!(matches!(given.options().proxy, Proxy::Url { url, .. } if url == "http://127.0.0.1:3128"));
    }
}
