//! Verifying a remote agent's card: fetch it from its origin, follow allowed `jku`s, verify
//! against the caller's trust store with the fetched origin.
//!
//! The retrievals run on the caller's async task; the verification itself (canonicalization
//! and each signature check, CPU work that grows with the card and its signatures) runs on
//! tokio's blocking pool (`spawn_blocking`), so that a batch or a service verifying many cards
//! never holds an async worker while it computes: other retrievals, health probes and timers
//! go on meanwhile. The card is read once on the task, to learn which `jku`s to fetch, and
//! once more by the verification (reading is linear and bounded by the body limit; the
//! signature checks are the cost). A runtime whose blocking pool is full makes the
//! verification wait for a thread.

use crate::cache::CacheOutcome;
use crate::client::{route_lines, Fetched, Fetcher};
use crate::options::DEFAULT_MAX_JWKS_KEYS;
use crate::target::{parse_https, JkuPrefix};
use crate::Error;
use a2a_card::signature::entries::read_signatures;
use a2a_card::signature::trust::TrustedKey;
pub use a2a_card::signature::KeySource;
use a2a_card::signature::{printable, quoted, verify_card, Origin, TextForm, VerdictCode};
use a2a_card::{Doc, ErrorCode, Report, TrustStore, VerifyOptions};
use serde::Serialize;

/// Default limit on distinct `jku` URLs fetched for one card.
pub const DEFAULT_MAX_JKU_FETCHES: usize = 4;

/// Options of [`verify_remote`](crate::verify_remote) beyond the transport.
#[derive(Debug, Clone)]
pub struct RemoteOptions {
    /// The verification policy. Its `origin` is ignored: the origin of the requested URL is used.
    pub verify: VerifyOptions,
    /// URL prefixes under which a signature's `jku` may be fetched (see [`JkuPrefix`]). Keys
    /// from such a JWKS are trusted only for cards whose origin is the prefix's origin. Empty:
    /// every `jku` is reported and none is fetched.
    pub jku_allow: Vec<String>,
    /// Most distinct `jku` URLs fetched for one card (default 4); the rest are reported as
    /// skipped.
    pub max_jku_fetches: usize,
    /// Most keys a JWK Set fetched from a `jku` may hold (default 64); a larger set fails that
    /// `jku` with `too-many-keys`, none of its keys read.
    pub max_jwks_keys: usize,
}

impl Default for RemoteOptions {
    fn default() -> Self {
        RemoteOptions {
            verify: VerifyOptions::default(),
            jku_allow: Vec::new(),
            max_jku_fetches: DEFAULT_MAX_JKU_FETCHES,
            max_jwks_keys: DEFAULT_MAX_JWKS_KEYS,
        }
    }
}

/// What happened to one `jku` URL named by the card's signatures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum JkuStatus {
    /// Fetched; its keys were offered to the signatures, bound to `origin`.
    Fetched {
        /// The URL the JWKS came from, after redirects.
        final_url: String,
        /// The origin the keys may sign for (the allowlist prefix's).
        origin: Origin,
        /// The `kid` of every key of the set.
        kids: Vec<String>,
        /// What the cache did.
        cache: CacheOutcome,
    },
    /// No allowlist prefix matches (or there is no allowlist): not fetched.
    NotAllowed,
    /// A prefix matches, but the card's origin is not the prefix's origin, so its keys could not
    /// sign this card: not fetched.
    OtherOrigin {
        /// The origin of the matching prefix.
        prefix_origin: Origin,
    },
    /// More distinct `jku`s than the limit: not fetched.
    Skipped,
    /// Allowed, but the retrieval or the JWKS failed.
    Failed {
        /// The error code.
        code: String,
        /// The error message (the options it names as [`RemoteReport::spelled`] last spelled
        /// them; by their canonical names until then).
        message: String,
        /// The error itself, with the options it names as data ([`Error::options`]), so that a
        /// front end spells them ([`RemoteReport::spelled`]). Not serialized.
        #[serde(skip)]
        error: Box<Error>,
    },
}

/// One `jku` URL and the signatures that name it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JkuReport {
    /// The `jku` as the protected header names it.
    pub url: String,
    /// Indexes of the signatures that name it.
    pub signatures: Vec<usize>,
    /// What happened.
    #[serde(flatten)]
    pub status: JkuStatus,
}

/// The key used for one signature, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SignatureKey {
    /// The signature's index.
    pub index: usize,
    /// The key's `kid`.
    pub kid: String,
    /// Where the key came from: the core's [`KeySource`], as the verification report names
    /// it. In JSON it is `{"from": "trust-store", "source": NAME}` for a key the caller gave
    /// (a pinned key or a trust-store entry), `{"from": "certificate", "anchor_source": NAME}`
    /// for the leaf of an `x5c` chain, and `{"from": "jku", "url": URL}` for a key of a
    /// fetched `jku` (the URL the keys came from, after redirects under the prefix).
    ///
    /// ```
    /// use a2a_card_fetch::{KeySource, SignatureKey};
    /// let key = SignatureKey {
    ///     index: 0,
    ///     kid: "k1".into(),
    ///     source: KeySource::Jku {
    ///         url: "https://a.example/keys/jwks.json".into(),
    ///         origin: "https://a.example".parse().unwrap(),
    ///     },
    /// };
    /// assert_eq!(
    ///     serde_json::to_value(&key).unwrap()["source"],
    ///     serde_json::json!({"from": "jku", "url": "https://a.example/keys/jwks.json"})
    /// );
    /// ```
    #[serde(serialize_with = "key_source_json")]
    pub source: KeySource,
}

/// The JSON form of a key's source in a remote report (see [`SignatureKey::source`]).
fn key_source_json<S: serde::Serializer>(source: &KeySource, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let mut st = s.serialize_struct("KeySource", 2)?;
    match source {
        KeySource::Jku { url, .. } => {
            st.serialize_field("from", "jku")?;
            st.serialize_field("url", url)?;
        }
        KeySource::Certificate { anchor_source } => {
            st.serialize_field("from", "certificate")?;
            st.serialize_field("anchor_source", anchor_source)?;
        }
        other => {
            st.serialize_field("from", "trust-store")?;
            st.serialize_field("source", &other.label())?;
        }
    }
    st.end()
}

/// The outcome of [`verify_remote`](crate::verify_remote): the retrieval, the verification
/// report and where every key came from. It serializes (serde) with every field but the card
/// bytes; [`RemoteReport::to_json`] is the documented JSON form (the `verify URL --format
/// json` report).
#[derive(Debug, Clone, Serialize)]
pub struct RemoteReport {
    /// The URL first requested.
    pub requested_url: String,
    /// The origin the card was verified for (the requested URL's).
    pub origin: Origin,
    /// The URL the card came from, after redirects.
    pub final_url: String,
    /// The redirects followed.
    pub redirects: Vec<String>,
    /// The HTTP status of the card's last response (200, or 304 when the stored card was
    /// revalidated; `None` when it was served fresh from the cache).
    pub status: Option<u16>,
    /// The media type the card was served with.
    pub content_type: String,
    /// What the cache did for the card.
    pub cache: CacheOutcome,
    /// The address the card's last response was read from (the proxy's, through a proxy;
    /// `None` from the cache).
    pub peer: Option<std::net::SocketAddr>,
    /// The protocol of the card's last response (`HTTP/1.1` or `HTTP/2`; `None` from the cache).
    pub protocol: Option<String>,
    /// The proxy the card came through, without credentials (`None`: direct).
    pub proxy: Option<String>,
    /// The verification report (its `ok` is the verdict).
    pub report: Report,
    /// For every signature checked with a key, the key's origin.
    pub keys: Vec<SignatureKey>,
    /// Every `jku` the signatures name, and what was done with it.
    pub jku: Vec<JkuReport>,
    /// Problems that did not stop anything (a cache that could not be written).
    pub warnings: Vec<String>,
    /// The card as served.
    #[serde(skip)]
    pub card: Vec<u8>,
}

impl RemoteReport {
    /// The same report with the options its messages name (a `jku` whose retrieval failed for
    /// want of a fetcher option, such as `allow_loopback` or `roots`) spelled as a front end
    /// spells them ([`Error::spelled`]): the library's messages name an option only by its
    /// canonical name, and only through this.
    ///
    /// ```
    /// use a2a_card::request::Spelling;
    /// use a2a_card_fetch::{Error, ErrorCode, JkuReport, JkuStatus};
    /// let e = Error::about_options(ErrorCode::AddressRefused, "loopback needs {allow_loopback}", &["allow_loopback"]);
    /// let failed = JkuStatus::Failed { code: e.code().as_str().into(), message: e.message().into(), error: Box::new(e) };
    /// struct Flags;
    /// impl Spelling for Flags {
    ///     fn name(&self, option: &str) -> String {
    ///         format!("--{}", option.replace('_', "-"))
    ///     }
    /// }
    /// let report = a2a_card::verify_card(br#"{"name":"A"}"#, &a2a_card::TrustStore::new(),
    ///     &a2a_card::VerifyOptions { mode: a2a_card::Mode::IfPresent, ..Default::default() }).unwrap();
    /// let remote = a2a_card_fetch::RemoteReport {
    ///     requested_url: "https://agent.example/.well-known/agent-card.json".into(),
    ///     origin: "https://agent.example".parse().unwrap(),
    ///     final_url: "https://agent.example/.well-known/agent-card.json".into(),
    ///     redirects: vec![], status: Some(200), content_type: "application/json".into(),
    ///     cache: a2a_card_fetch::CacheOutcome::Off, peer: None, protocol: None, proxy: None, report,
    ///     keys: vec![],
    ///     jku: vec![JkuReport { url: "https://agent.example/jwks.json".into(), signatures: vec![0], status: failed }],
    ///     warnings: vec![], card: vec![],
    /// };
    /// assert!(remote.to_text().contains("loopback needs allow_loopback"));
    /// let spelled = remote.spelled(&Flags);
    /// assert!(spelled.to_text().contains("loopback needs --allow-loopback"));
    /// assert_eq!(spelled.to_json()["fetch"]["jku"][0]["message"], "loopback needs --allow-loopback");
    /// ```
    #[must_use]
    pub fn spelled(mut self, spelling: &dyn a2a_card::request::Spelling) -> Self {
        for j in &mut self.jku {
            if let JkuStatus::Failed { message, error, .. } = &mut j.status {
                if !error.options().is_empty() {
                    *message = (**error).clone().spelled(spelling).message().to_string();
                }
            }
        }
        self
    }

    /// True when the card failed and a signature that names a `jku` whose retrieval failed was
    /// left without a trusted key: the failure may be the network's, not the card's. The CLI
    /// exits with 3 (retrieval failed) rather than 1 in that case.
    pub fn key_retrieval_failed(&self) -> bool {
        !self.report.ok
            && self.jku.iter().any(|j| {
                matches!(j.status, JkuStatus::Failed { .. })
                    && j.signatures.iter().any(|&i| {
                        self.report
                            .signatures
                            .get(i)
                            .is_some_and(|s| s.verdict.code == VerdictCode::Refused(ErrorCode::UntrustedKey))
                    })
            })
    }
}

impl RemoteReport {
    /// The report as JSON, in the same shape as a card file's: the members of
    /// [`Report::to_json`] (`ok`, `mode`, `reason`, `profile`, `canonical_sha256`, `canonical`,
    /// `unsigned`, `signatures`) at the top level, and the retrieval's facts beside them under
    /// one member `fetch`: `requested_url`, `origin`, `final_url`, `redirects`, `status`,
    /// `content_type`, `cache`, `peer`, `protocol`, `proxy`, `keys` (each signature's `index`,
    /// `kid` and key `source`), `jku` (each URL named, its `signatures` and `status`) and
    /// `warnings`.
    ///
    /// ```
    /// use a2a_card::{Mode, TrustStore, VerifyOptions};
    /// let opts = VerifyOptions { mode: Mode::IfPresent, ..VerifyOptions::default() };
    /// let report = a2a_card::verify_card(br#"{"name":"A"}"#, &TrustStore::new(), &opts).unwrap();
    /// let file_form = report.to_json();
    /// let remote = a2a_card_fetch::RemoteReport {
    ///     requested_url: "https://agent.example/.well-known/agent-card.json".into(),
    ///     origin: "https://agent.example".parse().unwrap(),
    ///     final_url: "https://agent.example/.well-known/agent-card.json".into(),
    ///     redirects: vec![],
    ///     status: Some(200),
    ///     content_type: "application/json".into(),
    ///     cache: a2a_card_fetch::CacheOutcome::Off,
    ///     peer: None,
    ///     protocol: Some("HTTP/2".into()),
    ///     proxy: None,
    ///     report,
    ///     keys: vec![],
    ///     jku: vec![],
    ///     warnings: vec![],
    ///     card: br#"{"name":"A"}"#.to_vec(),
    /// };
    /// let json = remote.to_json();
    /// for (name, value) in file_form.as_object().unwrap() {
    ///     assert_eq!(&json[name], value);
    /// }
    /// assert_eq!(json.as_object().unwrap().len(), file_form.as_object().unwrap().len() + 1);
    /// assert_eq!(json["fetch"]["status"], 200);
    /// assert_eq!(json["fetch"]["cache"], "off");
    /// ```
    pub fn to_json(&self) -> serde_json::Value {
        let mut out = match self.report.to_json() {
            serde_json::Value::Object(members) => members,
            _ => serde_json::Map::new(),
        };
        // The retrieval's facts, serialized once: the report is the top level, not a member.
        let facts = Facts {
            requested_url: &self.requested_url,
            origin: &self.origin,
            final_url: &self.final_url,
            redirects: &self.redirects,
            status: self.status,
            content_type: &self.content_type,
            cache: self.cache,
            peer: self.peer,
            protocol: self.protocol.as_deref(),
            proxy: self.proxy.as_deref(),
            keys: &self.keys,
            jku: &self.jku,
            warnings: &self.warnings,
        };
        let fetch =
            serde_json::to_value(facts).unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }));
        out.insert("fetch".into(), fetch);
        serde_json::Value::Object(out)
    }

    /// The report for people ([`Report::to_text`]): where the card came from (`card:`,
    /// `origin:`, `final url:`, each redirect, `cache:`), the signatures with the source of every
    /// key (`trust store FILE` or `jku URL`), one line per `jku` saying what was done with it,
    /// and the warnings.
    pub fn to_text(&self) -> String {
        let mut card = vec![format!("card: {}", printable(&self.requested_url))];
        card.extend(route_lines(&self.origin, &self.final_url, &self.redirects));
        card.push(format!("cache: {}", self.cache.as_str()));
        let notes = self.jku.iter().map(JkuReport::line).collect();
        let mut out = self.report.to_text(&TextForm {
            card,
            notes,
            trust_store_prefix: true,
        });
        for w in &self.warnings {
            out.push_str(&format!("warning: {}\n", printable(w)));
        }
        out
    }
}

/// The members of a remote report's `fetch` object, borrowed from the report (the same names
/// and order as [`RemoteReport`]'s fields, without `report` and `card`).
#[derive(Serialize)]
struct Facts<'a> {
    requested_url: &'a str,
    origin: &'a Origin,
    final_url: &'a str,
    redirects: &'a [String],
    status: Option<u16>,
    content_type: &'a str,
    cache: CacheOutcome,
    peer: Option<std::net::SocketAddr>,
    protocol: Option<&'a str>,
    proxy: Option<&'a str>,
    keys: &'a [SignatureKey],
    jku: &'a [JkuReport],
    warnings: &'a [String],
}

impl JkuReport {
    /// The line of a text report about this `jku`.
    fn line(&self) -> String {
        let sigs: Vec<String> = self.signatures.iter().map(usize::to_string).collect();
        let what = match &self.status {
            JkuStatus::Fetched {
                final_url,
                origin,
                kids,
                cache,
            } => format!(
                "fetched from {}, cache {}; its keys {} are trusted for {origin} only",
                printable(final_url),
                cache.as_str(),
                serde_json::Value::from(kids.clone()),
            ),
            JkuStatus::NotAllowed => "not fetched: no allowed jku prefix matches it".into(),
            JkuStatus::OtherOrigin { prefix_origin } => format!(
                "not fetched: the allowed jku prefix it matches is for {prefix_origin}, not for the card's origin"
            ),
            JkuStatus::Skipped => {
                format!("not fetched: more distinct jku URLs than the limit of {DEFAULT_MAX_JKU_FETCHES}")
            }
            JkuStatus::Failed { code, message, .. } => {
                format!("fetch failed: error[{code}]: {}", printable(message))
            }
        };
        format!(
            "jku {} (signature {}): {what}",
            quoted(&self.url),
            sigs.join(", ")
        )
    }
}

/// The `jku` of every signature entry whose header a verifier would read, with the indexes of
/// the entries that name it, read by the library's one reader of signature entries. A card the
/// reader refuses (too many signatures, `signatures` not an array) names none: verification
/// refuses it before any key is needed.
fn named_jkus(card: &Doc<'_>, opts: &VerifyOptions) -> Vec<(String, Vec<usize>)> {
    let mut out: Vec<(String, Vec<usize>)> = Vec::new();
    let Ok(sigs) = read_signatures(card, opts.max_signatures) else {
        return out;
    };
    for entry in sigs.with_max_header_bytes(opts.max_header_bytes).entries() {
        let Some(jku) = entry.header().ok().and_then(|h| h.jku) else {
            continue;
        };
        match out.iter_mut().find(|(u, _)| *u == jku) {
            Some((_, idx)) => idx.push(entry.index()),
            None => out.push((jku, vec![entry.index()])),
        }
    }
    out
}

impl Fetcher {
    /// Fetches a card and verifies it against the caller's trust store.
    ///
    /// - The card comes from [`Fetcher::fetch_card`]: an origin means its well-known card URL.
    /// - The origin of the requested URL is the card's origin for trust entries bound to
    ///   origins (`opts.verify.origin` is replaced by it). A redirect does not change it: a card
    ///   served after a redirect is still the card of the origin that was asked.
    /// - Each `jku` named by a signature is fetched only when it falls under a prefix of
    ///   `opts.jku_allow` whose origin is the card's origin; its keys join the trust store bound
    ///   to that origin, with the source `jku:URL`. Every other `jku` is reported, never
    ///   fetched. A `jku` on the card's own origin reuses the card's connection.
    ///
    /// Errors: the card's retrieval (a code for which [`crate::ErrorCode::is_retrieval`]
    /// holds), a card that cannot be read (the reader's code), an unusable allowlist prefix
    /// ([`crate::Error::is_caller_input`]). A `jku` that cannot be fetched is not an error: it
    /// is reported, and its signatures stay without a key.
    ///
    /// ```no_run
    /// use a2a_card_fetch::{Fetcher, FetchOptions, RemoteOptions};
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let trust = a2a_card::TrustStore::from_json(&std::fs::read_to_string("trust.json")?, "trust.json")?;
    /// let fetcher = Fetcher::new(&FetchOptions::default())?;
    /// let remote = fetcher
    ///     .verify_remote("https://agent.example.com", &trust, &RemoteOptions::default())
    ///     .await?;
    /// println!("{}: {}", remote.origin, remote.report.reason);
    /// # Ok(()) }
    /// ```
    pub async fn verify_remote(
        &self,
        url_or_origin: &str,
        trust: &TrustStore,
        opts: &RemoteOptions,
    ) -> Result<RemoteReport, Error> {
        // The core's one reading of the verify options (bounds, algorithms, profiles), before
        // any request; the origin is the URL's, set below. The options are copied once, here.
        let mut vopts = VerifyOptions {
            origin: None,
            ..opts.verify.clone()
        };
        vopts.check()?;
        let prefixes = opts
            .jku_allow
            .iter()
            .map(|p| JkuPrefix::parse(p))
            .collect::<Result<Vec<_>, _>>()?;
        let fetcher = self;
        // Read once, with the verifier's limits: a card that is not I-JSON is refused here with
        // the reader's code and pointer, as `fetch_card` refuses it.
        let mut fetched: Fetched = fetcher.fetch_card_bytes(url_or_origin).await?;
        let card = Doc::parse(&fetched.bytes, &opts.verify.limits)
            .map_err(|e| Error::from(e).with_url(fetched.final_url.clone()))?;

        let mut store = trust.clone();
        let mut jku_reports = Vec::new();
        let mut warnings = fetched.warnings.clone();
        let mut fetches = 0usize;
        for (jku, signatures) in named_jkus(&card, &opts.verify) {
            // The jku is read as a URL once, here; that URL is the one matched and fetched.
            let parsed = parse_https(&jku, "the jku").ok();
            let allowed = parsed.and_then(|u| prefixes.iter().find(|p| p.matches_url(&u)).map(|p| (u, p)));
            let status = match allowed {
                None => JkuStatus::NotAllowed,
                Some((_, p)) if *p.origin() != fetched.origin => JkuStatus::OtherOrigin {
                    prefix_origin: p.origin().clone(),
                },
                Some(_) if fetches >= opts.max_jku_fetches => JkuStatus::Skipped,
                Some((url, p)) => {
                    fetches += 1;
                    match fetcher.fetch_jwks_at(url, p, opts.max_jwks_keys).await {
                        Ok(set) => {
                            warnings.extend(set.fetched.warnings.iter().cloned());
                            let mut kids = Vec::new();
                            let from = &set.fetched.final_url;
                            for key in set.keys {
                                kids.push(key.kid().to_string());
                                let source = KeySource::Jku {
                                    url: from.clone(),
                                    origin: p.origin().clone(),
                                };
                                let mut tk = TrustedKey::new(key, source);
                                tk.origins = Some(vec![p.origin().clone()]);
                                store.add(tk);
                            }
                            JkuStatus::Fetched {
                                final_url: set.fetched.final_url,
                                origin: p.origin().clone(),
                                kids,
                                cache: set.fetched.cache,
                            }
                        }
                        Err(e) => JkuStatus::Failed {
                            code: e.code().as_str().to_string(),
                            message: e.message().to_string(),
                            error: Box::new(e),
                        },
                    }
                }
            };
            jku_reports.push(JkuReport {
                url: jku,
                signatures,
                status,
            });
        }

        // The verification (the card read again, JCS, each signature) is CPU work: on tokio's
        // blocking pool, so that it holds no async worker while it runs (the module doc).
        drop(card);
        vopts.origin = Some(fetched.origin.clone());
        let bytes = std::mem::take(&mut fetched.bytes);
        let (report, bytes) = tokio::task::spawn_blocking(move || {
            let report = verify_card(&bytes, &store, &vopts);
            (report, bytes)
        })
        .await
        .map_err(|e| {
            Error::new(
                crate::ErrorCode::Card(ErrorCode::MalformedCard),
                format!("internal error: the verification stopped ({e}); this is a bug"),
            )
            .with_url(fetched.final_url.clone())
        })?;
        fetched.bytes = bytes;
        let report = report.map_err(|e| Error::from(e).with_url(fetched.final_url.clone()))?;

        // The report's own key sources: a key from a jku carries the URL it really came from
        // (after redirects, all under the prefix).
        let keys = report
            .signatures
            .iter()
            .filter_map(|s| {
                let k = s.key.as_ref()?;
                Some(SignatureKey {
                    index: s.index,
                    kid: k.kid.clone(),
                    source: k.source.clone(),
                })
            })
            .collect();

        Ok(RemoteReport {
            requested_url: fetched.requested_url,
            origin: fetched.origin,
            final_url: fetched.final_url,
            redirects: fetched.redirects,
            status: fetched.status,
            content_type: fetched.content_type,
            cache: fetched.cache,
            peer: fetched.peer,
            protocol: fetched.protocol,
            proxy: fetched.proxy,
            report,
            keys,
            jku: jku_reports,
            warnings,
            card: fetched.bytes,
        })
    }
}
