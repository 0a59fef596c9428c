//! `a2a-card fetch`: retrieve a card over HTTPS (SSRF guard, limits, HTTP cache) and print it as
//! served. The fetch options are shared with `verify URL`.

use crate::io::{check_output, printable, refuse_same_file, replace_file, write_stderr_line, write_stdout};
use crate::options::TableFlags;
use crate::Failure;
use a2a_card_fetch::{fetch_card, FetchOptions, FetchRequest};
use std::path::PathBuf;

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

/// The options of every retrieval, shared by `fetch` and `verify URL`: flags made from the
/// fetcher's table (`a2a_card_fetch::FETCH`), whose request makes the library's options.
pub(crate) type FetchArgs = TableFlags<FetchRequest>;

/// The library's fetch options of the flags, with this program's user agent, the CA file
/// checked first (the fetcher reads it whole: `FetchOptions::check_ca_file`; exit code 3).
pub(crate) fn options(flags: &FetchArgs) -> Result<FetchOptions, Failure> {
    let options = flags.build(FetchRequest::default())?;
    if let Err(e) = options.check_ca_file() {
        let source = options.roots.ca_file().map(|p| p.display().to_string());
        let source = source.unwrap_or_default();
        return Err(Failure::fetch(e, source).key_retrieval());
    }
    let user_agent = concat!("a2a-card/", env!("CARGO_PKG_VERSION")).to_string();
    Ok(FetchOptions {
        user_agent,
        ..options
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
    let options = options(&args.fetch)?;
    if let Some(out) = &args.out {
        if let Some(ca) = options.roots.ca_file() {
            refuse_same_file("--out", out, "--ca-file", ca)?;
        }
        check_output(out, args.force)?;
    }
    let fetched = fetch_card(&args.url, &options).map_err(|e| failure(e, &args.url))?;
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
        use clap::Parser;
        let parsed = |args: &[&str]| match crate::Cli::try_parse_from(
            [&["a2a-card", "fetch", "https://a.example"], args].concat(),
        ) {
            Ok(crate::Cli {
                command: crate::Command::Fetch(a),
                ..
            }) => a.fetch,
            other => panic!("{args:?}: {other:?}"),
        };
        assert_eq!(parsed(&[]).first_given(), None);
        let args = parsed(&["--max-redirects", "0", "--ca-file", "ca.pem", "--timeout", "1.5"]);
        assert_eq!(args.first_given().as_deref(), Some("--ca-file"));
        let ca = options(&args).unwrap().roots;
        assert_eq!(ca.ca_file(), Some(std::path::Path::new("ca.pem")));
        let o = options(&parsed(&["--timeout", "1.5", "--no-proxy"])).unwrap();
        assert_eq!(o.total_timeout, std::time::Duration::from_millis(1500));
        assert_eq!(o.proxy, a2a_card_fetch::Proxy::None);
        assert!(o.user_agent.starts_with("a2a-card/"));
        assert_eq!(
            parsed(&["--no-proxy"]).first_given().as_deref(),
            Some("--no-proxy")
        );
    }
}
