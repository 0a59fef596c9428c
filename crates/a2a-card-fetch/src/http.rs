//! A small HTTP/1.1 client over rustls that connects only to addresses the guard has checked.
//!
//! Why not a general-purpose client: the guard must see every address a name resolves to and
//! the connection must go to an address it saw, on every hop, with no second resolution in
//! between. Here resolution, the check and `TcpStream::connect_timeout` on the checked
//! `SocketAddr` are three lines of one function, and every byte read or written is bounded by
//! the total deadline. Requests are `GET` with `Connection: close`; responses may be framed by
//! `Content-Length`, `chunked` or the end of the connection (with TLS `close_notify`).

use crate::guard;
use crate::target::{endpoint, Endpoint};
use a2a_card::{Error, ErrorCode};
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection, StreamOwned};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};
use url::Url;

/// Largest response head (status line and headers).
const MAX_HEAD_BYTES: u64 = 64 * 1024;
/// The most a body buffer is sized in advance from a `Content-Length`, whatever the limit: a
/// peer's number never decides an allocation.
const PREALLOCATE_MAX: usize = 64 * 1024;
/// Most header fields in one response head.
const MAX_HEADERS: usize = 128;
/// Most interim (1xx) responses skipped before the final one.
const MAX_INTERIM: usize = 8;

/// What the transport needs from the options.
pub(crate) struct Transport {
    pub tls: Arc<ClientConfig>,
    pub connect_timeout: Duration,
    pub allow_loopback: bool,
    pub user_agent: String,
}

/// A socket whose every read and write ends by the deadline.
struct DeadlineSocket {
    sock: TcpStream,
    deadline: Instant,
}

impl DeadlineSocket {
    fn remaining(&self) -> io::Result<Duration> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the total timeout has passed",
            ))
        } else {
            Ok(left)
        }
    }
}

fn timed_out(e: io::Error) -> io::Error {
    if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) {
        io::Error::new(io::ErrorKind::TimedOut, "the total timeout has passed")
    } else {
        e
    }
}

impl Read for DeadlineSocket {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.remaining()?;
        self.sock.set_read_timeout(Some(left))?;
        self.sock.read(buf).map_err(timed_out)
    }
}

impl Write for DeadlineSocket {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let left = self.remaining()?;
        self.sock.set_write_timeout(Some(left))?;
        self.sock.write(buf).map_err(timed_out)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.sock.flush()
    }
}

type Tls = StreamOwned<ClientConnection, DeadlineSocket>;

/// A response whose head has been read; the body is read on demand.
pub(crate) struct Exchange {
    reader: BufReader<Tls>,
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub peer: SocketAddr,
    url: Url,
}

fn err(code: ErrorCode, url: &Url, msg: impl Into<String>) -> Error {
    Error::new(code, msg).with_url(url.as_str())
}

/// Resolves a name within the deadline (the system resolver has no timeout of its own, so it
/// runs on a helper thread that is abandoned when time is up).
fn resolve(name: &str, port: u16, url: &Url, deadline: Instant) -> Result<Vec<SocketAddr>, Error> {
    let (tx, rx) = mpsc::channel();
    let host = name.to_string();
    let spawned = std::thread::Builder::new()
        .name("a2a-card-fetch-resolve".into())
        .spawn(move || {
            let r = (host.as_str(), port)
                .to_socket_addrs()
                .map(|it| it.collect::<Vec<_>>());
            let _ = tx.send(r);
        });
    if let Err(e) = spawned {
        return Err(err(
            ErrorCode::DnsFailed,
            url,
            format!("cannot start name resolution: {e}"),
        ));
    }
    let left = deadline.saturating_duration_since(Instant::now());
    match rx.recv_timeout(left) {
        Ok(Ok(addrs)) if !addrs.is_empty() => Ok(addrs),
        Ok(Ok(_)) => Err(err(
            ErrorCode::DnsFailed,
            url,
            format!("{name} resolves to no address"),
        )),
        Ok(Err(e)) => Err(err(
            ErrorCode::DnsFailed,
            url,
            format!("{name} does not resolve: {e}"),
        )),
        Err(_) => Err(err(
            ErrorCode::Timeout,
            url,
            format!("the total timeout passed while resolving {name}"),
        )),
    }
}

/// The addresses to connect to, every one of them checked by the guard. One refused address
/// refuses the host: a name that resolves to an internal address is not used at all.
pub(crate) fn checked_addresses(
    url: &Url,
    allow_loopback: bool,
    deadline: Instant,
) -> Result<(Vec<SocketAddr>, ServerName<'static>), Error> {
    let (host, port) = endpoint(url)?;
    let (addrs, server_name, name) = match host {
        Endpoint::Ip(ip) => (
            vec![SocketAddr::new(ip, port)],
            ServerName::IpAddress(ip.into()),
            None,
        ),
        Endpoint::Name(name) => {
            let server_name = ServerName::try_from(name.clone()).map_err(|e| {
                err(
                    ErrorCode::InvalidUrl,
                    url,
                    format!("{name:?} is not a valid TLS server name: {e}"),
                )
            })?;
            // Every IPv4 spelling (`127.1`, `0x7f.1`, `2130706433`) is an address host after URL
            // parsing, so what reaches here is a name; its answers are checked below.
            let addrs = resolve(&name, port, url, deadline)?;
            (addrs, server_name, Some(name))
        }
    };
    for a in &addrs {
        if let Err(refused) = guard::check(a.ip(), allow_loopback) {
            let via = match &name {
                Some(n) => format!("{n} resolves to {refused}"),
                None => refused.to_string(),
            };
            let hint = if refused.classification.class == guard::AddressClass::Loopback
                && refused.classification.embedded.is_none()
            {
                " (loopback is opened only with allow-loopback, for local testing)"
            } else {
                ""
            };
            return Err(err(
                ErrorCode::AddressRefused,
                url,
                format!("refused before connecting: {via}{hint}"),
            ));
        }
    }
    Ok((addrs, server_name))
}

fn tls_error(e: &io::Error, url: &Url) -> Error {
    if e.kind() == io::ErrorKind::TimedOut {
        return err(
            ErrorCode::Timeout,
            url,
            "the total timeout passed during the TLS handshake",
        );
    }
    let inner = e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>());
    match inner {
        Some(rustls::Error::InvalidCertificate(
            c @ (rustls::CertificateError::NotValidForName
            | rustls::CertificateError::NotValidForNameContext { .. }),
        )) => err(
            ErrorCode::CertificateNameMismatch,
            url,
            format!("the server's certificate is not valid for this host: {c:?}"),
        ),
        Some(rustls::Error::InvalidCertificate(c)) => err(
            ErrorCode::CertificateInvalid,
            url,
            format!("the server's certificate is not trusted: {c:?}"),
        ),
        Some(other) => err(
            ErrorCode::TlsHandshake,
            url,
            format!("the TLS handshake failed: {other}"),
        ),
        None => err(
            ErrorCode::TlsHandshake,
            url,
            format!("the TLS handshake failed: {e}"),
        ),
    }
}

impl Transport {
    /// Sends `GET url` with the given extra headers and reads the response head.
    pub(crate) fn get(
        &self,
        url: &Url,
        extra: &[(&str, String)],
        deadline: Instant,
    ) -> Result<Exchange, Error> {
        let (addrs, server_name) = checked_addresses(url, self.allow_loopback, deadline)?;
        let (sock, peer) = self.connect(&addrs, url, deadline)?;
        let conn = ClientConnection::new(self.tls.clone(), server_name)
            .map_err(|e| err(ErrorCode::TlsHandshake, url, format!("cannot start TLS: {e}")))?;
        let mut tls = StreamOwned::new(conn, DeadlineSocket { sock, deadline });
        while tls.conn.is_handshaking() {
            tls.conn
                .complete_io(&mut tls.sock)
                .map_err(|e| tls_error(&e, url))?;
        }
        let request = request_text(url, extra, &self.user_agent);
        tls.write_all(request.as_bytes())
            .and_then(|()| tls.flush())
            .map_err(|e| io_error(&e, url, "sending the request"))?;
        let mut reader = BufReader::new(tls);
        let mut interim = 0;
        loop {
            let (status, headers) = read_head(&mut reader, url)?;
            if (100..200).contains(&status) && status != 101 {
                interim += 1;
                if interim > MAX_INTERIM {
                    return Err(err(
                        ErrorCode::HttpProtocol,
                        url,
                        "too many interim (1xx) responses",
                    ));
                }
                continue;
            }
            return Ok(Exchange {
                reader,
                status,
                headers,
                peer,
                url: url.clone(),
            });
        }
    }

    fn connect(
        &self,
        addrs: &[SocketAddr],
        url: &Url,
        deadline: Instant,
    ) -> Result<(TcpStream, SocketAddr), Error> {
        let mut last: Option<Error> = None;
        for &addr in addrs {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(err(
                    ErrorCode::Timeout,
                    url,
                    "the total timeout passed before connecting",
                ));
            }
            let limit = left.min(self.connect_timeout);
            // A second line of defence for test runs: with A2A_CARD_FETCH_LOOPBACK_ONLY set (the
            // test suites and CI set it), nothing but plain loopback is ever dialled, even if the
            // guard above were broken.
            if std::env::var_os("A2A_CARD_FETCH_LOOPBACK_ONLY").is_some() && !addr.ip().is_loopback() {
                return Err(err(
                    ErrorCode::AddressRefused,
                    url,
                    format!("{addr} is not loopback and A2A_CARD_FETCH_LOOPBACK_ONLY is set"),
                ));
            }
            match TcpStream::connect_timeout(&addr, limit) {
                Ok(s) => return Ok((s, addr)),
                Err(e) if matches!(e.kind(), io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock) => {
                    let code = if limit < self.connect_timeout {
                        ErrorCode::Timeout
                    } else {
                        ErrorCode::ConnectTimeout
                    };
                    last = Some(err(
                        code,
                        url,
                        format!("connecting to {addr} took longer than {limit:?}"),
                    ));
                }
                Err(e) => {
                    last = Some(err(
                        ErrorCode::ConnectFailed,
                        url,
                        format!("cannot connect to {addr}: {e}"),
                    ))
                }
            }
        }
        Err(last.unwrap_or_else(|| err(ErrorCode::ConnectFailed, url, "no address to connect to")))
    }
}

fn io_error(e: &io::Error, url: &Url, doing: &str) -> Error {
    if e.kind() == io::ErrorKind::TimedOut {
        err(
            ErrorCode::Timeout,
            url,
            format!("the total timeout passed while {doing}"),
        )
    } else if e
        .get_ref()
        .and_then(|i| i.downcast_ref::<rustls::Error>())
        .is_some()
    {
        err(
            ErrorCode::TlsHandshake,
            url,
            format!("TLS failed while {doing}: {e}"),
        )
    } else {
        err(
            ErrorCode::HttpProtocol,
            url,
            format!("the connection failed while {doing}: {e}"),
        )
    }
}

fn request_text(url: &Url, extra: &[(&str, String)], user_agent: &str) -> String {
    let mut target = url.path().to_string();
    if let Some(q) = url.query() {
        target.push('?');
        target.push_str(q);
    }
    let host = match (url.host_str(), url.port()) {
        (Some(h), Some(p)) => format!("{h}:{p}"),
        (Some(h), None) => h.to_string(),
        (None, _) => String::new(),
    };
    let user_agent: String = user_agent.chars().filter(|c| !c.is_control()).collect();
    let mut out = format!(
        "GET {target} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: {user_agent}\r\n\
         Accept: application/json, application/*+json;q=0.9\r\nAccept-Encoding: identity\r\n\
         Connection: close\r\n"
    );
    for (name, value) in extra {
        // Values come from a cache we wrote; a line break would split the header.
        if !value.contains(['\r', '\n']) {
            out.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    out.push_str("\r\n");
    out
}

/// Reads one line ending in LF (CR LF or LF), at most `budget` bytes including it.
fn read_line(reader: &mut impl BufRead, budget: &mut u64, url: &Url) -> Result<Vec<u8>, Error> {
    let mut line = Vec::new();
    let n = reader
        .take(*budget)
        .read_until(b'\n', &mut line)
        .map_err(|e| io_error(&e, url, "reading the response head"))?;
    *budget = budget.saturating_sub(n as u64);
    if line.last() != Some(&b'\n') {
        return Err(if n == 0 {
            err(
                ErrorCode::HttpProtocol,
                url,
                "the server closed the connection without a response",
            )
        } else if *budget == 0 {
            err(
                ErrorCode::HttpProtocol,
                url,
                "the response head is larger than 64 KiB",
            )
        } else {
            err(ErrorCode::HttpProtocol, url, "the response head is cut short")
        });
    }
    line.pop();
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(line)
}

fn read_head(reader: &mut impl BufRead, url: &Url) -> Result<(u16, Vec<(String, String)>), Error> {
    let mut budget = MAX_HEAD_BYTES;
    let line = read_line(reader, &mut budget, url)?;
    let status = parse_status_line(&line).ok_or_else(|| {
        err(
            ErrorCode::HttpProtocol,
            url,
            "the response does not start with an HTTP/1.x status line",
        )
    })?;
    let mut headers = Vec::new();
    loop {
        let line = read_line(reader, &mut budget, url)?;
        if line.is_empty() {
            break;
        }
        if headers.len() >= MAX_HEADERS {
            return Err(err(
                ErrorCode::HttpProtocol,
                url,
                "the response has too many header fields",
            ));
        }
        let Some((name, value)) = parse_header(&line) else {
            return Err(err(
                ErrorCode::HttpProtocol,
                url,
                "a response header field is malformed",
            ));
        };
        headers.push((name, value));
    }
    Ok((status, headers))
}

fn parse_status_line(line: &[u8]) -> Option<u16> {
    let text = std::str::from_utf8(line).ok()?;
    let rest = text.strip_prefix("HTTP/1.")?;
    let mut parts = rest.splitn(3, ' ');
    let minor = parts.next()?;
    if minor.len() != 1 || !minor.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let code = parts.next()?;
    if code.len() != 3 || !code.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    code.parse().ok()
}

fn parse_header(line: &[u8]) -> Option<(String, String)> {
    let colon = line.iter().position(|&b| b == b':')?;
    let (name, value) = (&line[..colon], &line[colon + 1..]);
    let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    if name.is_empty() || !name.iter().all(|&b| token(b)) {
        return None;
    }
    if value.iter().any(|&b| b == 0 || b == b'\r' || b == b'\n') {
        return None;
    }
    let name = String::from_utf8(name.to_vec()).ok()?.to_ascii_lowercase();
    let value = String::from_utf8_lossy(value)
        .trim_matches([' ', '\t'])
        .to_string();
    Some((name, value))
}

impl Exchange {
    /// Every value of a header field (lower-case name), in order.
    pub(crate) fn all(&self, name: &str) -> impl Iterator<Item = &str> {
        let name = name.to_string();
        self.headers
            .iter()
            .filter(move |(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The header field, its values joined with `, ` when repeated.
    pub(crate) fn header(&self, name: &str) -> Option<String> {
        let values: Vec<&str> = self.all(name).collect();
        (!values.is_empty()).then(|| values.join(", "))
    }

    /// The single value of a field that must not repeat with different values.
    pub(crate) fn single(&self, name: &str) -> Result<Option<&str>, Error> {
        let mut found: Option<&str> = None;
        for v in self.all(name) {
            match found {
                Some(f) if f != v => {
                    return Err(Error::new(
                        ErrorCode::HttpProtocol,
                        format!("the response has conflicting {name} fields"),
                    )
                    .with_url(self.url.as_str()))
                }
                _ => found = Some(v),
            }
        }
        Ok(found)
    }

    fn fail(&self, code: ErrorCode, msg: impl Into<String>) -> Error {
        Error::new(code, msg).with_url(self.url.as_str())
    }

    /// Reads the body, refusing more than `max` bytes.
    pub(crate) fn read_body(mut self, max: usize) -> Result<Vec<u8>, Error> {
        if let Some(enc) = self.header("content-encoding") {
            if !enc.split(',').all(|e| e.trim().eq_ignore_ascii_case("identity")) {
                return Err(self.fail(
                    ErrorCode::HttpProtocol,
                    format!("the response uses content encoding {enc:?}; only identity was asked for"),
                ));
            }
        }
        let te = self.header("transfer-encoding");
        let cl = self.single("content-length")?.map(str::to_string);
        let body = match (te, cl) {
            (Some(_), Some(_)) => {
                return Err(self.fail(
                    ErrorCode::HttpProtocol,
                    "the response has both Transfer-Encoding and Content-Length",
                ))
            }
            (Some(te), None) => {
                if !te.trim().eq_ignore_ascii_case("chunked") {
                    return Err(self.fail(
                        ErrorCode::HttpProtocol,
                        format!("transfer coding {te:?} is not supported (only chunked)"),
                    ));
                }
                self.read_chunked(max)?
            }
            (None, Some(cl)) => {
                let n: u64 = (!cl.is_empty() && cl.bytes().all(|b| b.is_ascii_digit()))
                    .then(|| cl.parse().ok())
                    .flatten()
                    .ok_or_else(|| {
                        self.fail(
                            ErrorCode::HttpProtocol,
                            format!("Content-Length {cl:?} is not a number"),
                        )
                    })?;
                if n > max as u64 {
                    return Err(self.fail(
                        ErrorCode::BodyTooLarge,
                        format!("the body is {n} bytes, more than the limit of {max}"),
                    ));
                }
                // Never allocate from a number the peer sent: grow as bytes arrive.
                let mut body = Vec::with_capacity(usize::try_from(n).unwrap_or(0).min(PREALLOCATE_MAX));
                let got = (&mut self.reader)
                    .take(n)
                    .read_to_end(&mut body)
                    .map_err(|e| self.body_error(&e))?;
                if (got as u64) < n {
                    return Err(self.fail(
                        ErrorCode::HttpProtocol,
                        format!("the body ended after {got} of {n} bytes"),
                    ));
                }
                body
            }
            (None, None) => {
                let mut body = Vec::new();
                (&mut self.reader)
                    .take(max as u64 + 1)
                    .read_to_end(&mut body)
                    .map_err(|e| self.body_error(&e))?;
                if body.len() > max {
                    return Err(self.fail(
                        ErrorCode::BodyTooLarge,
                        format!("the body is larger than the limit of {max} bytes"),
                    ));
                }
                body
            }
        };
        Ok(body)
    }

    fn body_error(&self, e: &io::Error) -> Error {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            return self.fail(
                ErrorCode::HttpProtocol,
                "the connection closed without TLS close_notify: the body may be cut short",
            );
        }
        io_error(e, &self.url, "reading the body")
    }

    fn read_chunked(&mut self, max: usize) -> Result<Vec<u8>, Error> {
        let mut body = Vec::new();
        loop {
            let mut budget = 4096;
            let line = read_line(&mut self.reader, &mut budget, &self.url)?;
            let size_text = line.split(|&b| b == b';').next().unwrap_or(&[]);
            let size_text = std::str::from_utf8(size_text)
                .unwrap_or("")
                .trim_matches([' ', '\t']);
            if size_text.is_empty()
                || size_text.len() > 15
                || !size_text.bytes().all(|b| b.is_ascii_hexdigit())
            {
                return Err(self.fail(ErrorCode::HttpProtocol, "a chunk size is malformed"));
            }
            let size = u64::from_str_radix(size_text, 16)
                .map_err(|_| self.fail(ErrorCode::HttpProtocol, "a chunk size is malformed"))?;
            if size == 0 {
                // Trailer fields, up to the empty line.
                let mut budget = MAX_HEAD_BYTES;
                loop {
                    if read_line(&mut self.reader, &mut budget, &self.url)?.is_empty() {
                        return Ok(body);
                    }
                }
            }
            if body.len() as u64 + size > max as u64 {
                return Err(self.fail(
                    ErrorCode::BodyTooLarge,
                    format!("the body is larger than the limit of {max} bytes"),
                ));
            }
            let before = body.len();
            let got = (&mut self.reader)
                .take(size)
                .read_to_end(&mut body)
                .map_err(|e| self.body_error(&e))?;
            if (got as u64) < size || body.len() != before + got {
                return Err(self.fail(ErrorCode::HttpProtocol, "a chunk is cut short"));
            }
            let mut budget = 2;
            let after = read_line(&mut self.reader, &mut budget, &self.url);
            if !matches!(after, Ok(l) if l.is_empty()) {
                return Err(self.fail(ErrorCode::HttpProtocol, "a chunk is not followed by CRLF"));
            }
        }
    }
}
