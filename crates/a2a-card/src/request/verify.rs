//! [`VerifyRequest`]: the options of a verification as every front end gives them, and the one
//! function that turns them into a [`ReadyVerifier`] (trust roots, anchors, CRLs and policy).

use super::option_error;
use super::table::VERIFY;
use crate::canonical::{accepted_profiles, Limits, Profile, UnknownMembers};
use crate::jose::Algorithm;
use crate::signature::chain::eku_oid;
use crate::signature::{
    check_algorithms, verify_card, Identity, Mode, Origin, Report, TrustStore, VerifyOptions,
};
use crate::{Error, ErrorCode};

/// One input of an option that takes keys, JWK Sets, trust stores or certificates: its text and
/// the name it goes by in reports and errors (a file name, `keys[0]`, `trustAnchors[1]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The text (PEM, a JWK, a JWK Set, a trust store).
    pub text: String,
    /// Where it came from, as the caller names it.
    pub source: String,
}

impl Input {
    /// An input with its name.
    pub fn new(text: impl Into<String>, source: impl Into<String>) -> Input {
        Input {
            text: text.into(),
            source: source.into(),
        }
    }
}

/// The options of a verification, one member per row of [`VERIFY`], as a front end read them;
/// `None` or empty means the table's default. [`VerifyRequest::build`] applies the defaults,
/// the bounds and the rules between options.
///
/// ```
/// use a2a_card::request::{Input, VerifyRequest};
/// use a2a_card::{Algorithm, PrivateKey, sign_card, SignOptions};
/// let key = PrivateKey::generate(Algorithm::ES256).unwrap();
/// let card = sign_card(br#"{"name":"A","skills":[]}"#, &key, &SignOptions::default()).unwrap().card;
/// let jwk = key.public().to_jwk().to_string();
/// let ready = VerifyRequest { keys: Some(vec![Input::new(jwk, "keys[0]")]), ..Default::default() }.build().unwrap();
/// assert!(ready.verify(&card).unwrap().ok);
/// let none = VerifyRequest::default().build().unwrap_err();
/// assert_eq!(none.message(), "no trust roots: give at least one of keys, jwks, trust or trust_anchors");
/// ```
#[derive(Debug, Clone, Default)]
pub struct VerifyRequest {
    /// Trusted public keys (`Some` of an empty list: given, holding none).
    pub keys: Option<Vec<Input>>,
    /// Trusted JWK Sets.
    pub jwks: Option<Vec<Input>>,
    /// Trust stores.
    pub trust: Option<Vec<Input>>,
    /// CA certificates (PEM) for `x5c` chains.
    pub trust_anchors: Option<Vec<Input>>,
    /// CRLs, DER (read with [`crate::signature::chain::read_crl`]).
    pub crls: Vec<Vec<u8>>,
    /// Identities the `x5c` leaf may name.
    pub identity: Vec<String>,
    /// URI SAN prefixes the `x5c` leaf may start with.
    pub identity_prefix: Vec<String>,
    /// An extended key usage every `x5c` leaf must list.
    pub require_eku: Option<String>,
    /// The most certificates of an `x5c` chain.
    pub max_chain: Option<usize>,
    /// The algorithms accepted, by name.
    pub algorithms: Option<Vec<String>>,
    /// The pass rule, by name.
    pub mode: Option<String>,
    /// One profile accepted, by name (or `auto`).
    pub profile: Option<String>,
    /// The profiles accepted, tried in order.
    pub profiles: Option<Vec<String>>,
    /// What to do with unknown members, by name.
    pub unknown: Option<String>,
    /// The time for validity windows.
    pub now: Option<i64>,
    /// The origin the card came from (text is read with [`Origin::from_str`](std::str::FromStr)
    /// when it is set: see [`VerifyRequest::set`]).
    pub origin: Option<Origin>,
    /// The most signatures a card may carry.
    pub max_signatures: Option<usize>,
    /// The most trusted keys one `kid` may select.
    pub max_keys_per_kid: Option<usize>,
    /// The most signature checks for a card.
    pub max_signature_checks: Option<usize>,
    /// The largest JWS header of a signature, in bytes.
    pub max_header_bytes: Option<usize>,
    /// The largest card, in bytes.
    pub max_input_bytes: Option<usize>,
    /// The deepest nesting of a card.
    pub max_depth: Option<usize>,
    /// Prefixes under which a fetched card's `jku` may be fetched: when there are any, keys
    /// may come from them, so no other trust root is needed.
    pub allow_jku: Vec<String>,
    /// The card is fetched, so that `allow_jku` prefixes could supply keys (the refusal of a
    /// request without trust roots names them then).
    pub fetched: bool,
    /// Whether a front end may hand the signature checks to its host's own crypto (the
    /// table's default when `None`).
    pub host_crypto: Option<bool>,
}

/// Trust roots and policy, ready to verify cards.
#[derive(Debug, Clone)]
pub struct ReadyVerifier {
    /// The keys and anchors trusted, each tagged with its source.
    pub trust: TrustStore,
    /// The policy.
    pub options: VerifyOptions,
    /// Whether a front end may hand the signature checks to its host's own crypto (through
    /// [`crate::jose::crypto::SignatureBackend`]); every other check is the core's either way.
    pub host_crypto: bool,
}

impl ReadyVerifier {
    /// Verifies one card with these trust roots and this policy.
    pub fn verify(&self, card: &[u8]) -> Result<Report, Error> {
        verify_card(card, &self.trust, &self.options)
    }

    /// The policy with one call's own time and origin, where it gives them (the origin's text
    /// read once, a refusal about the option `origin`); else the verifier's, borrowed.
    ///
    /// ```
    /// use a2a_card::request::{Input, VerifyRequest};
    /// use a2a_card::{Algorithm, PrivateKey};
    /// let jwk = PrivateKey::generate(Algorithm::ES256).unwrap().public().to_jwk().to_string();
    /// let ready = VerifyRequest { keys: Some(vec![Input::new(jwk, "k")]), ..Default::default() }.build().unwrap();
    /// let call = ready.options_at(Some(5), Some("https://A.example")).unwrap();
    /// assert_eq!((call.now, call.origin.as_ref().map(|o| o.as_str())), (Some(5), Some("https://a.example")));
    /// assert_eq!(ready.options_at(None, Some("a.example")).unwrap_err().option(), Some("origin"));
    /// ```
    pub fn options_at(
        &self,
        now: Option<i64>,
        origin: Option<&str>,
    ) -> Result<std::borrow::Cow<'_, VerifyOptions>, Error> {
        if now.is_none() && origin.is_none() {
            return Ok(std::borrow::Cow::Borrowed(&self.options));
        }
        let origin = origin.map(str::parse::<Origin>).transpose()?;
        let mut opts = self.options.clone();
        opts.now = now.or(opts.now);
        opts.origin = origin.or(opts.origin);
        Ok(std::borrow::Cow::Owned(opts))
    }
}

/// A value a front end read for an option, in the form the option's [`Kind`](super::Kind)
/// takes (a front end reads its own input shape by the kind, then hands the value over with
/// [`VerifyRequest::set`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionValue {
    /// A whole number (a count).
    Count(usize),
    /// Text (a name, an origin).
    Text(String),
    /// A list of texts.
    Texts(Vec<String>),
    /// Keys, JWK Sets, trust stores or certificates.
    Inputs(Vec<Input>),
    /// Seconds since the Unix epoch.
    Time(i64),
    /// Yes or no.
    Flag(bool),
    /// Header parameters: names and JSON values, in the order given.
    Members(Vec<(String, serde_json::Value)>),
    /// A length of time.
    Seconds(std::time::Duration),
    /// A file or directory.
    Path(std::path::PathBuf),
}

/// A count option of [`VERIFY`].
fn count(name: &'static str, given: Option<usize>) -> Result<usize, Error> {
    super::ops::count(VERIFY, name, given)
}

impl VerifyRequest {
    /// Sets the option of [`VERIFY`] with this canonical name, which front ends read by the
    /// table: an unknown name, or a value of another kind, is a `usage` error about it. An
    /// origin's text is read here, once, into an [`Origin`].
    ///
    /// ```
    /// use a2a_card::request::{OptionValue, VerifyRequest};
    /// let mut r = VerifyRequest::default();
    /// r.set("max_chain", OptionValue::Count(2)).unwrap();
    /// assert_eq!(r.max_chain, Some(2));
    /// r.set("origin", OptionValue::Text("https://A.example:443".into())).unwrap();
    /// assert_eq!(r.origin.as_ref().map(|o| o.as_str()), Some("https://a.example"));
    /// let e = r.set("origin", OptionValue::Text("https://a.example/path".into())).unwrap_err();
    /// assert_eq!(e.option(), Some("origin"));
    /// assert!(r.set("max_chain", OptionValue::Text("2".into())).is_err());
    /// ```
    pub fn set(&mut self, name: &str, value: OptionValue) -> Result<(), Error> {
        use OptionValue as V;
        match (name, value) {
            ("keys", V::Inputs(v)) => self.keys = Some(v),
            ("jwks", V::Inputs(v)) => self.jwks = Some(v),
            ("trust", V::Inputs(v)) => self.trust = Some(v),
            ("trust_anchors", V::Inputs(v)) => self.trust_anchors = Some(v),
            ("identity", V::Texts(v)) => self.identity = v,
            ("identity_prefix", V::Texts(v)) => self.identity_prefix = v,
            ("require_eku", V::Text(v)) => self.require_eku = Some(v),
            ("max_chain", V::Count(n)) => self.max_chain = Some(n),
            ("algorithms", V::Texts(v)) => self.algorithms = Some(v),
            ("mode", V::Text(v)) => self.mode = Some(v),
            ("profile", V::Text(v)) => self.profile = Some(v),
            ("profiles", V::Texts(v)) => self.profiles = Some(v),
            ("unknown", V::Text(v)) => self.unknown = Some(v),
            ("now", V::Time(t)) => self.now = Some(t),
            ("origin", V::Text(v)) => self.origin = Some(v.parse()?),
            ("max_signatures", V::Count(n)) => self.max_signatures = Some(n),
            ("max_keys_per_kid", V::Count(n)) => self.max_keys_per_kid = Some(n),
            ("max_signature_checks", V::Count(n)) => self.max_signature_checks = Some(n),
            ("max_header_bytes", V::Count(n)) => self.max_header_bytes = Some(n),
            ("max_input_bytes", V::Count(n)) => self.max_input_bytes = Some(n),
            ("max_depth", V::Count(n)) => self.max_depth = Some(n),
            ("allow_jku", V::Texts(v)) => self.allow_jku = v,
            ("host_crypto", V::Flag(b)) => self.host_crypto = Some(b),
            (name, _) => return Err(super::ops::refused_value(VERIFY, name, "a verification")),
        }
        Ok(())
    }

    /// The trust roots and the policy: [`VerifyRequest::trust_store`] and
    /// [`VerifyRequest::options`].
    pub fn build(&self) -> Result<ReadyVerifier, Error> {
        let trust = self.trust_store()?;
        let options = self.options()?;
        let host_crypto = match (self.host_crypto, super::option(VERIFY, "host_crypto")) {
            (Some(b), _) => b,
            (None, spec) => spec.is_some_and(|s| s.kind == super::Kind::Flag(true)),
        };
        Ok(ReadyVerifier {
            trust,
            options,
            host_crypto,
        })
    }

    /// The policy: every count within its bounds (defaults from [`VERIFY`]), the names read,
    /// the rules between options (`profile` or `profiles`; no HMAC algorithm), and
    /// [`VerifyOptions::check`].
    pub fn options(&self) -> Result<VerifyOptions, Error> {
        let mut identities = Vec::new();
        for id in &self.identity {
            identities.push(Identity::parse(id).map_err(|e| e.for_option("identity"))?);
        }
        for p in &self.identity_prefix {
            identities.push(Identity::prefix(p).map_err(|e| e.for_option("identity_prefix"))?);
        }
        if let Some(eku) = &self.require_eku {
            eku_oid(eku).map_err(|e| e.for_option("require_eku"))?;
        }
        let max_chain_len = count("max_chain", self.max_chain)?;
        let profiles = self.profiles()?;
        let mode = match &self.mode {
            None => Mode::default(),
            Some(name) => name.parse::<Mode>().map_err(|e| e.for_option("mode"))?,
        };
        let unknown = match &self.unknown {
            None => UnknownMembers::default(),
            Some(name) => name
                .parse::<UnknownMembers>()
                .map_err(|e| e.for_option("unknown"))?,
        };
        let algorithms = match &self.algorithms {
            None => None,
            Some(names) => {
                let algs = names
                    .iter()
                    .map(|n| Algorithm::from_name(n).map_err(|e| e.for_option("algorithms")))
                    .collect::<Result<Vec<_>, _>>()?;
                check_algorithms(&algs).map_err(|e| e.for_option("algorithms"))?;
                Some(algs)
            }
        };
        let max_signatures = count("max_signatures", self.max_signatures)?;
        let max_keys_per_kid = count("max_keys_per_kid", self.max_keys_per_kid)?;
        let max_signature_checks = count("max_signature_checks", self.max_signature_checks)?;
        let max_header_bytes = count("max_header_bytes", self.max_header_bytes)?;
        let limits = Limits {
            max_input_bytes: count("max_input_bytes", self.max_input_bytes)?,
            max_depth: count("max_depth", self.max_depth)?,
        };
        let opts = VerifyOptions {
            identities,
            required_eku: self.require_eku.clone(),
            crls: self.crls.clone(),
            max_chain_len,
            profiles,
            unknown,
            mode,
            algorithms,
            max_signatures,
            max_keys_per_kid,
            max_signature_checks,
            max_header_bytes,
            limits,
            now: self.now,
            origin: self.origin.clone(),
        };
        opts.check()?;
        Ok(opts)
    }

    /// The profiles of `profile` (one name) or `profiles` (names tried in order), each name as
    /// [`accepted_profiles`] reads it; neither means `spec` alone, both or an empty list is a
    /// `usage` error.
    fn profiles(&self) -> Result<Vec<Profile>, Error> {
        match (&self.profile, &self.profiles) {
            (Some(_), Some(_)) => Err(option_error(
                ErrorCode::Usage,
                "give \"{profile}\" or \"{profiles}\", not both",
                &["profile", "profiles"],
            )),
            (Some(name), None) => accepted_profiles(&[name]).map_err(|e| e.for_option("profile")),
            (None, Some(names)) if names.is_empty() => Err(option_error(
                ErrorCode::Usage,
                "\"{profiles}\" is empty; name at least one profile",
                &["profiles"],
            )),
            (None, Some(names)) => {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                accepted_profiles(&names).map_err(|e| e.for_option("profiles"))
            }
            (None, None) => Ok(vec![Profile::Spec]),
        }
    }

    /// The trust roots: every key, JWK Set, trust store and anchor given (parsed keys from the
    /// one cache, `request::parsed_key`), each tagged with its input's name. No input at all,
    /// or inputs that hold no signature key, is a `usage` error, unless `allow_jku` prefixes may
    /// supply the keys.
    pub fn trust_store(&self) -> Result<TrustStore, Error> {
        let given = self.keys.is_some()
            || self.jwks.is_some()
            || self.trust.is_some()
            || self.trust_anchors.is_some();
        let jku_roots = !self.allow_jku.is_empty();
        if !given && !jku_roots {
            let (template, names): (&str, &[&'static str]) = if self.fetched {
                (
                    "no trust roots: give at least one of {keys}, {jwks}, {trust} or {trust_anchors}, or an {allow_jku} prefix",
                    &["keys", "jwks", "trust", "trust_anchors", "allow_jku"],
                )
            } else {
                (
                    "no trust roots: give at least one of {keys}, {jwks}, {trust} or {trust_anchors}",
                    &["keys", "jwks", "trust", "trust_anchors"],
                )
            };
            return Err(option_error(ErrorCode::Usage, template, names));
        }
        let mut store = TrustStore::new();
        for input in self.keys.iter().flatten() {
            let key = super::parsed_key(&input.text)
                .map_err(|e| e.for_option("keys").from_input(&input.source, false))?;
            store.pin(key, input.source.clone());
        }
        for input in self.jwks.iter().flatten() {
            let keys = super::parsed_jwks(&input.text)
                .map_err(|e| e.for_option("jwks").from_input(&input.source, false))?;
            for key in keys {
                store.pin(key, input.source.clone());
            }
        }
        for input in self.trust.iter().flatten() {
            let file = super::parsed_trust(&input.text, &input.source)
                .map_err(|e| e.for_option("trust").from_input(&input.source, true))?;
            // Keys and certificate anchors alike, each entry with its rules.
            store.extend(&file);
        }
        for input in self.trust_anchors.iter().flatten() {
            store
                .add_anchors_pem(&input.text, &input.source)
                .map_err(|e| e.for_option("trust_anchors").from_input(&input.source, true))?;
        }
        if given && !jku_roots && store.is_empty() {
            return Err(Error::new(
                ErrorCode::Usage,
                "no trust roots: the keys, JWK Sets and trust stores given hold no signature key",
            ));
        }
        Ok(store)
    }
}

impl super::Request for VerifyRequest {
    const TABLE: &'static [super::OptionSpec] = VERIFY;
    type Built = ReadyVerifier;

    fn set(&mut self, name: &str, value: OptionValue) -> Result<(), Error> {
        VerifyRequest::set(self, name, value)
    }

    fn build(&self) -> Result<ReadyVerifier, Error> {
        VerifyRequest::build(self)
    }
}
