//! The HTTP API: routing, the body limits, the deadline, and the mapping of the core's and
//! the fetcher's answers to HTTP statuses (the table in the crate documentation).

use crate::state::Service;
use a2a_card::{Error, ErrorCode, Report};
use bytes::Bytes;
use http::{header, HeaderValue, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::OwnedSemaphorePermit;

/// The body of every response.
pub type Body = Full<Bytes>;

/// The paths the service answers, with their methods.
///
/// ```
/// assert!(a2a_card_serve::ROUTES.contains(&("/v1/verify", "POST")));
/// ```
pub const ROUTES: &[(&str, &str)] = &[
    ("/v1/verify", "POST"),
    ("/v1/verify-remote", "POST"),
    ("/healthz", "GET"),
    ("/readyz", "GET"),
    ("/metrics", "GET"),
];

/// The response header that carries the verdict: `valid`, `invalid`, `error` (a card the core
/// refuses), `off`, or `refused` (a request refused before any verdict).
///
/// ```
/// assert_eq!(a2a_card_serve::VERDICT_HEADER, "a2a-card-verdict");
/// ```
pub const VERDICT_HEADER: &str = "a2a-card-verdict";

/// One request, answered.
pub(crate) async fn handle(svc: Arc<Service>, req: Request<Incoming>) -> Response<Body> {
    let start = Instant::now();
    let path = req.uri().path();
    let endpoint = match ROUTES.iter().find(|(p, _)| *p == path) {
        Some((p, m)) if req.method().as_str() == *m => p.trim_start_matches("/v1/").trim_start_matches('/'),
        Some((_, m)) => {
            let mut r = service_error(
                StatusCode::METHOD_NOT_ALLOWED,
                "method-not-allowed",
                format!("{path} answers {m} only, not {}", req.method()),
                "the request line",
            );
            if let Ok(v) = HeaderValue::from_str(m) {
                r.headers_mut().insert(header::ALLOW, v);
            }
            svc.metrics.response("other", 405);
            return r;
        }
        None => {
            svc.metrics.response("other", 404);
            return service_error(
                StatusCode::NOT_FOUND,
                "not-found",
                format!("no resource {path:?}; the paths are {}", paths()),
                "the request line",
            );
        }
    };
    if let Some(r) = head_too_large(&svc, &req) {
        svc.metrics.refused("head-too-large");
        svc.metrics.response(endpoint, 431);
        return r;
    }
    let response = match endpoint {
        "healthz" => json_response(StatusCode::OK, &json!({"status": "ok"})),
        "readyz" if svc.is_ready() => {
            let mode = svc.policy_mode();
            json_response(StatusCode::OK, &json!({"status": "ready", "mode": mode}))
        }
        "readyz" => json_response(
            StatusCode::SERVICE_UNAVAILABLE,
            &json!({"status": "shutting-down"}),
        ),
        "metrics" => {
            let mut r = Response::new(Full::new(Bytes::from(svc.metrics.render())));
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
            );
            r
        }
        _ => {
            let deadline = svc.limits.deadline;
            match tokio::time::timeout(deadline, verification(&svc, endpoint, req, start)).await {
                Ok(r) => r,
                Err(_) => {
                    svc.metrics.refused("deadline");
                    svc.metrics.verification(endpoint, "error", "timeout");
                    service_error(
                        StatusCode::GATEWAY_TIMEOUT,
                        "timeout",
                        format!("the request was not answered within {} ms", deadline.as_millis()),
                        "the service",
                    )
                }
            }
        }
    };
    svc.metrics.response(endpoint, response.status().as_u16());
    response
}

/// The refusal of a request head larger than `--max-header-bytes`, naming its largest field.
/// (hyper itself closes a head past twice the limit with a bare 431, before any handler.)
fn head_too_large(svc: &Service, req: &Request<Incoming>) -> Option<Response<Body>> {
    let max = svc.limits.max_header_bytes;
    // The request line: method, target, version, two spaces and CRLF.
    let target = req.uri().path_and_query().map_or(0, |p| p.as_str().len())
        + req.uri().authority().map_or(0, |a| a.as_str().len() + 7);
    let line = req.method().as_str().len() + target + 11;
    let fields: usize = req
        .headers()
        .iter()
        .map(|(n, v)| n.as_str().len() + v.len() + 4)
        .sum();
    let size = line + fields;
    if size <= max {
        return None;
    }
    let (name, len) = req
        .headers()
        .iter()
        .map(|(n, v)| (n.as_str(), n.as_str().len() + v.len() + 4))
        .max_by_key(|(_, l)| *l)
        .unwrap_or(("", 0));
    let mut r = service_error(
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        ErrorCode::HeaderTooLarge.as_str(),
        format!(
            "the request head is {size} bytes, more than {max}, the most this service reads; its largest field is {name} ({len} bytes)"
        ),
        &format!("the request header {name}"),
    );
    // A client that sends such heads is not kept.
    r.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    Some(r)
}

fn paths() -> String {
    ROUTES
        .iter()
        .map(|(p, m)| format!("{m} {p}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why a body was not received whole.
enum Unread {
    TooLarge,
    /// The bytes of the bodies being received would pass the service's budget.
    Budget,
    Read(hyper::Error),
}

/// The body, with its share of the bytes budget (held until the request ends), or the answer
/// refusing it.
async fn read_body(
    svc: &Service,
    req: Request<Incoming>,
) -> Result<(Bytes, Option<OwnedSemaphorePermit>), Response<Body>> {
    let max = svc.limits.max_body_bytes;
    let too_large = |svc: &Service| {
        svc.metrics.refused("too-large");
        service_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::InputTooLarge.as_str(),
            format!("the request body is larger than {max} bytes, the most this service reads"),
            "the request body",
        )
    };
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return Err(too_large(svc));
    }
    let within = svc.limits.body_timeout;
    let read = tokio::time::timeout(within, receive(svc, req.into_body(), max)).await;
    let closing = |mut r: Response<Body>| {
        r.headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        r
    };
    let Ok(read) = read else {
        // A client that trickles its body is cut here, before it holds a verification slot.
        svc.metrics.refused("body-timeout");
        return Err(closing(service_error(
            StatusCode::REQUEST_TIMEOUT,
            "timeout",
            format!(
                "the request body was not received within {} ms of its head",
                within.as_millis()
            ),
            "the request body",
        )));
    };
    match read {
        Ok(got) => Ok(got),
        Err(Unread::TooLarge) => Err(too_large(svc)),
        Err(Unread::Budget) => {
            svc.metrics.refused("body-budget");
            let mut r = closing(service_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "overloaded",
                format!(
                    "the request bodies being received hold {} bytes, the most this service keeps at once; retry",
                    svc.body_budget_bytes()
                ),
                "the service",
            ));
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            Err(r)
        }
        Err(Unread::Read(e)) => Err(service_error(
            StatusCode::BAD_REQUEST,
            ErrorCode::Io.as_str(),
            format!("the request body could not be read: {e}"),
            "the request body",
        )),
    }
}

/// Receives a body of at most `max` bytes, taking a permit of the service's bytes budget for
/// each byte as it comes (bodies being received are bounded in memory whatever the number of
/// connections).
async fn receive(
    svc: &Service,
    mut body: Incoming,
    max: usize,
) -> Result<(Bytes, Option<OwnedSemaphorePermit>), Unread> {
    let mut out = Vec::new();
    let mut held: Option<OwnedSemaphorePermit> = None;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(Unread::Read)?;
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        if out.len().saturating_add(data.len()) > max {
            return Err(Unread::TooLarge);
        }
        let n = u32::try_from(data.len()).map_err(|_| Unread::TooLarge)?;
        if n > 0 {
            let permit = svc
                .body_budget
                .clone()
                .try_acquire_many_owned(n)
                .map_err(|_| Unread::Budget)?;
            match held.as_mut() {
                Some(h) => h.merge(permit),
                None => held = Some(permit),
            }
        }
        out.extend_from_slice(&data);
    }
    Ok((Bytes::from(out), held))
}

/// `POST /v1/verify` and `POST /v1/verify-remote`: the body (within its own time limit), then a
/// verification slot, then the verification.
async fn verification(
    svc: &Arc<Service>,
    endpoint: &str,
    req: Request<Incoming>,
    start: Instant,
) -> Response<Body> {
    // The policy in force when the request started, for the whole request (a reload meanwhile
    // applies to the next one).
    let loaded = svc.current();
    // The body is read before a slot is taken: a slow client holds its connection (bounded by
    // the connection limit, cut after the body's time limit) and the bytes it has sent (within
    // the bytes budget), never one of the in-flight slots.
    let (body, _budget) = match read_body(svc, req).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let Ok(_slot) = svc.in_flight.clone().try_acquire_owned() else {
        svc.metrics.refused("in-flight");
        let mut r = service_error(
            StatusCode::SERVICE_UNAVAILABLE,
            "overloaded",
            format!(
                "{} requests are being verified, the most this service takes at once; retry",
                svc.limits.max_in_flight
            ),
            "the service",
        );
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        return r;
    };
    // Counted down (and its time recorded) when this future ends, answered or dropped by a
    // client that went away or by the deadline.
    let _counted = InFlight::start(svc, endpoint, start);
    let policy = &loaded.policy;
    let audit = policy.audit;
    let (status, verdict, code, body) = if endpoint == "verify" {
        match &policy.verifier {
            None => off_answer(),
            // A small card is verified in place: its verification is bounded (a few
            // milliseconds at worst, with the most signature checks the policy allows), and
            // handing it to another thread would cost more than most verifications take.
            Some(_) if body.len() <= INLINE_BYTES => verify_answer(&loaded, &body),
            // A larger one is CPU work for a blocking thread, so that it holds no async worker
            // (health probes and other connections go on) and the deadline answers on time
            // even while it runs.
            Some(_) => {
                let held = Arc::clone(&loaded);
                match tokio::task::spawn_blocking(move || verify_answer(&held, &body)).await {
                    Ok(answer) => answer,
                    Err(_) => (
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "error",
                        "internal".to_string(),
                        pretty(&json!({
                            "code": "internal",
                            "message": "the verification stopped without an answer",
                            "source": "the service",
                        })),
                    ),
                }
            }
        }
    } else {
        match remote(svc, &loaded, &body).await {
            Ok(answer) => answer,
            Err(r) => return r,
        }
    };
    svc.metrics.verification(endpoint, verdict, &code);
    // Audit: a verdict on the card (valid, invalid, or a card the core refuses) is answered
    // with 200; a request the service refuses keeps its status.
    let status = if audit && matches!(verdict, "invalid" | "error") {
        StatusCode::OK
    } else {
        status
    };
    let mut r = text_response(status, body);
    r.headers_mut()
        .insert(VERDICT_HEADER, HeaderValue::from_static(verdict_value(verdict)));
    r
}

/// Status, verdict, code (for the metrics) and the body: pretty JSON.
type Answer = (StatusCode, &'static str, String, Vec<u8>);

/// The largest body verified on the async worker that received it; larger ones go to a
/// blocking thread. A card of the A2A samples is 1 to 4 KiB.
const INLINE_BYTES: usize = 16 * 1024;

/// A verification counted in the in-flight gauge: up when made, down (with its latency) when
/// dropped, however the request ends.
struct InFlight<'a> {
    svc: &'a Service,
    endpoint: &'a str,
    start: Instant,
}

impl<'a> InFlight<'a> {
    fn start(svc: &'a Service, endpoint: &'a str, start: Instant) -> InFlight<'a> {
        svc.metrics.in_flight(1);
        InFlight { svc, endpoint, start }
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.svc.metrics.in_flight(-1);
        self.svc.metrics.latency(self.endpoint, self.start.elapsed());
    }
}

/// The answer of `/v1/verify` under `loaded`'s verifier (which the caller has checked is on).
fn verify_answer(loaded: &crate::state::Loaded, body: &[u8]) -> Answer {
    let Some(v) = &loaded.policy.verifier else {
        return off_answer();
    };
    match v.verify(body) {
        Ok(report) => report_answer(&report, report.to_json_pretty()),
        Err(e) => (
            StatusCode::BAD_REQUEST,
            "error",
            e.code().as_str().to_string(),
            pretty(&error_json(&e, "the request body")),
        ),
    }
}

fn verdict_value(v: &str) -> &'static str {
    match v {
        "valid" => "valid",
        "invalid" => "invalid",
        "off" => "off",
        "error" => "error",
        _ => "refused",
    }
}

fn off_answer() -> Answer {
    let body = json!({
        "ok": true,
        "mode": "off",
        "reason": "verification is off in this service's policy: nothing was checked",
    });
    (StatusCode::OK, "off", "off".into(), pretty(&body))
}

/// A report's answer: 200 when the card meets the policy's mode, else 422.
fn report_answer(report: &Report, body: Vec<u8>) -> Answer {
    if report.ok {
        return (StatusCode::OK, "valid", "valid".into(), body);
    }
    let code = report
        .signatures
        .iter()
        .find(|s| !s.verdict.is_valid())
        .map_or_else(|| "unsigned".to_string(), |s| s.verdict.code.to_string());
    (StatusCode::UNPROCESSABLE_ENTITY, "invalid", code, body)
}

/// `POST /v1/verify-remote`: `{"url": "https://..."}`, fetched and verified by the fetcher with
/// the policy's trust roots, within the origin's share of retrievals.
async fn remote(svc: &Service, loaded: &crate::state::Loaded, body: &[u8]) -> Result<Answer, Response<Body>> {
    let bad = |e: Error| {
        let code = e.code().as_str().to_string();
        (
            StatusCode::BAD_REQUEST,
            "refused",
            code,
            pretty(&error_json(&e, "the request body")),
        )
    };
    let doc = match a2a_card::canonical::parse_json(body, &a2a_card::Limits::default()) {
        Ok(v) => v,
        Err(e) => return Ok(bad(e)),
    };
    let url = match doc.as_object() {
        Some(o) if o.len() == 1 && o.get("url").is_some_and(Value::is_string) => o
            .get("url")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        Some(o) if o.keys().any(|k| k != "url") => {
            let k = o.keys().find(|k| *k != "url").cloned().unwrap_or_default();
            return Ok(bad(Error::new(
                ErrorCode::UnknownMember,
                format!("unknown member {k:?}; the body is {{\"url\": \"https://...\"}}"),
            )
            .at(format!("/{}", a2a_card::pointer_token(&k)))));
        }
        Some(o) if o.contains_key("url") => {
            return Ok(bad(Error::new(
                ErrorCode::TypeMismatch,
                "\"url\" must be a string",
            )
            .at("/url")))
        }
        Some(_) => {
            return Ok(bad(Error::new(
                ErrorCode::Usage,
                "the body has no member \"url\": it must be {\"url\": \"https://...\"}",
            )
            .at("")))
        }
        _ => {
            return Ok(bad(Error::new(
                ErrorCode::Usage,
                "the body must be a JSON object {\"url\": \"https://...\"}",
            )
            .at("")))
        }
    };
    let policy = &loaded.policy;
    let Some(verifier) = &policy.verifier else {
        return Ok(off_answer());
    };
    let (card_url, origin) = match origin_of(&url) {
        Ok(o) => o,
        Err(e) => return Ok(fetch_error_answer(svc, e, "")),
    };
    let slots = svc.origin_slots(&origin, policy.per_origin_fetches);
    let Ok(_slot) = slots.acquire_owned().await else {
        return Err(service_error(
            StatusCode::SERVICE_UNAVAILABLE,
            "overloaded",
            "no retrieval slot",
            "the service",
        ));
    };
    let result = loaded
        .fetcher
        .verify_remote(&url, &verifier.trust, &policy.remote)
        .await;
    match result {
        Ok(r) => {
            svc.metrics.fetch("ok");
            svc.metrics.cache(r.cache.as_str());
            let r = r.spelled(&crate::PolicySpelling);
            Ok(report_answer(&r.report, pretty(&r.to_json())))
        }
        Err(e) => Ok(fetch_error_answer(svc, e, &card_url)),
    }
}

/// The card's URL as the fetcher requests it, and its origin (the fetcher's one reading of both).
fn origin_of(url: &str) -> Result<(String, a2a_card_fetch::Origin), a2a_card_fetch::Error> {
    Ok((a2a_card_fetch::card_url(url)?, a2a_card_fetch::card_origin(url)?))
}

/// The answer to a retrieval that failed, or to a fetched card the core refused (`requested`:
/// the card's URL, to tell the caller's own address refused from a redirect's).
fn fetch_error_answer(svc: &Service, e: a2a_card_fetch::Error, requested: &str) -> Answer {
    use a2a_card_fetch::ErrorCode as F;
    let e = e.spelled(&crate::PolicySpelling);
    let code = e.code();
    svc.metrics.fetch(code.as_str());
    let status = match code {
        F::InvalidUrl | F::NotHttps if e.is_caller_input() => StatusCode::BAD_REQUEST,
        F::AddressRefused if e.is_caller_input() || e.url() == Some(requested) => StatusCode::FORBIDDEN,
        F::Timeout | F::ConnectTimeout => StatusCode::GATEWAY_TIMEOUT,
        F::Card(c) if c == ErrorCode::Usage || e.is_caller_input() => StatusCode::BAD_REQUEST,
        F::Card(_) => StatusCode::UNPROCESSABLE_ENTITY,
        _ => StatusCode::BAD_GATEWAY,
    };
    let mut body = json!({"code": code.as_str(), "message": e.message()});
    if let Some(p) = e.pointer() {
        body["pointer"] = p.into();
    }
    if let Some(o) = e.offset() {
        body["offset"] = o.into();
    }
    body["source"] = e.url().map_or("the request body's url", |u| u).into();
    if let Some(s) = e.status() {
        body["status"] = s.into();
    }
    // A fetched card the core refused is a verdict on the card; a failed retrieval is not.
    let verdict = if status == StatusCode::UNPROCESSABLE_ENTITY {
        "error"
    } else {
        "refused"
    };
    (status, verdict, code.as_str().to_string(), pretty(&body))
}

/// An error of the core as the service writes it: its code, message, JSON Pointer and byte
/// offset, and what it is about.
///
/// ```
/// let e = a2a_card::verify_card(b"{\"a\":1,\"a\":2}", &Default::default(), &Default::default()).unwrap_err();
/// let j = a2a_card_serve::error_json(&e, "the request body");
/// assert_eq!((j["code"].as_str(), j["pointer"].as_str()), (Some("duplicate-member"), Some("/a")));
/// ```
pub fn error_json(e: &Error, source: &str) -> Value {
    let mut body = json!({"code": e.code().as_str(), "message": e.message()});
    if let Some(p) = e.pointer() {
        body["pointer"] = p.into();
    }
    if let Some(o) = e.offset() {
        body["offset"] = o.into();
    }
    body["source"] = source.into();
    body
}

fn service_error(status: StatusCode, code: &str, message: impl Into<String>, source: &str) -> Response<Body> {
    json_response(
        status,
        &json!({"code": code, "message": message.into(), "source": source}),
    )
}

/// Pretty JSON, as `a2a-card verify --format json` prints it (the final newline added by
/// [`text_response`]).
fn pretty(value: &Value) -> Vec<u8> {
    serde_json::to_vec_pretty(value).unwrap_or_default()
}

fn json_response(status: StatusCode, value: &Value) -> Response<Body> {
    text_response(status, pretty(value))
}

/// A JSON answer: `text` with a final newline.
fn text_response(status: StatusCode, mut text: Vec<u8>) -> Response<Body> {
    text.push(b'\n');
    let mut r = Response::new(Full::new(Bytes::from(text)));
    *r.status_mut() = status;
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}
