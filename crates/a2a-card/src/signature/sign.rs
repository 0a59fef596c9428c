//! Signing a card: canonical bytes -> protected header -> JWS signature -> the card written back
//! with the new entry in `signatures` and every other byte of the input untouched.
//!
//! Each signature's protected header declares the bytes it covers (its profile and the choice
//! for unknown members, [`crate::signature::DECLARED_PARAMETER`], `signature/declared.rs`), so a
//! verifier checks it over those bytes and names a profile its policy does not accept.
//!
//! The key is any [`Signer`]: a [`PrivateKey`] in memory, or a key held by a token or a KMS.
//! Every signature goes through [`sign_with`], which verifies a signature made outside the
//! library with the signer's public key before the card is written.

use crate::canonical::value::{from_serde, Value};
use crate::canonical::Doc;
use crate::canonical::{canonicalize_tree, Canonical, CanonicalizeOptions, Profile};
use crate::error::{Error, ErrorCode};
use crate::jose::b64;
use crate::jose::header as jws;
use crate::jose::input_buffer::InputBuffer;
#[cfg(doc)]
use crate::jose::keys::PrivateKey;
use crate::jose::signer::{sign_with, Signer};
use crate::jose::Algorithm;
use crate::signature::entries::{read_signatures, SignatureEntry};

/// Options of [`sign_card`].
///
/// ```
/// let opts = a2a_card::SignOptions { kid: Some("release-2026".into()), ..Default::default() };
/// assert!(opts.alg.is_none()); // the key decides: Ed25519 -> EdDSA, P-256 -> ES256, ...
/// ```
#[derive(Debug, Clone)]
pub struct SignOptions {
    /// The algorithm; by default the key's own (Ed25519 -> EdDSA, P-256 -> ES256, P-384 -> ES384,
    /// P-521 -> ES512, secp256k1 -> ES256K, RSA -> RS256). It must fit the key.
    pub alg: Option<Algorithm>,
    /// The `kid`; by default the key's (from its JWK, or its RFC 7638 thumbprint).
    pub kid: Option<String>,
    /// A `jku` to name in the protected header (information for verifiers, never a trust root).
    pub jku: Option<String>,
    /// A certificate chain (DER, the leaf first, then intermediates; no root) to put in the
    /// protected header as `x5c`; empty means none. The leaf's public key must be the signing
    /// key's, which is checked before signing (`certificate-key-mismatch`).
    pub x5c: Vec<Vec<u8>>,
    /// Most certificates [`Self::x5c`] may hold (default 4, a verifier's default
    /// [`crate::signature::VerifyOptions::max_chain_len`]): a longer chain is refused, as a
    /// verifier with that limit refuses it.
    pub max_chain_len: usize,
    /// Further protected header parameters (not `alg`, `kid`, `typ`, `jku`, `crit`, `b64`, nor
    /// [`crate::signature::DECLARED_PARAMETER`], which the signer writes itself: see
    /// [`Self::declare`]).
    pub extra_protected: Vec<(String, serde_json::Value)>,
    /// Unprotected header parameters (the entry's `header` member); empty means none.
    pub unprotected: Vec<(String, serde_json::Value)>,
    /// Profile, unknown-member handling and limits for the canonical bytes.
    pub canonicalize: CanonicalizeOptions,
    /// Replace existing signatures whose protected `kid` equals ours instead of adding one more
    /// (the option `replace` of the front ends). Without it or [`Self::append_same_kid`], a card
    /// that already carries a signature of this kid is refused (`kid-already-signed`, at that
    /// entry's pointer): re-signing should not stack a second signature of one kid unasked.
    pub replace_same_kid: bool,
    /// Keep existing signatures whose protected `kid` equals ours and add the new one beside them
    /// (the option `append` of the front ends). Not with [`Self::replace_same_kid`] (`usage`).
    pub append_same_kid: bool,
    /// One more signature, same key and header (but for the bytes each declares,
    /// [`crate::signature::DECLARED_PARAMETER`]), for each of these profiles (a transition aid:
    /// SDK verifiers of today check the `prune-empty` one while spec-exact verifiers check the
    /// main one). The main profile is skipped if listed; repeats count once; a profile whose
    /// bytes equal bytes already signed is skipped too (see [`Signed::also_same_bytes`]).
    pub also_profiles: Vec<Profile>,
    /// Most signatures the signed card may carry (default 16, what verifiers accept by
    /// default): a card that would carry more is refused, since a verifier would refuse it
    /// whole, the good signatures with it.
    pub max_signatures: usize,
    /// Sign even when the signature would leave members of the card uncovered (the unknown and
    /// A2A 0.3 members [`Canonical::unsigned`] lists). Off by default: such a card is refused
    /// with `unsigned-members`, since its owner can fix it (`a2a-card migrate`) or say that the
    /// members are to be covered as they are (`UnknownMembers::Retain`) or left out (set this).
    pub allow_unsigned: bool,
    /// Write [`crate::signature::DECLARED_PARAMETER`] in each signature made over other bytes
    /// than the specification's (on by default): the profile and unknown-member choice of the
    /// bytes it covers, so that a verifier checks it over those bytes only and names a profile
    /// its policy does not accept as such (`profile-not-accepted`) rather than as a bad
    /// signature. A signature over the specification's bytes (`spec`, unknown members
    /// excluded) never carries it: its header is the one section 8.4.2 shows (`alg`, `kid`,
    /// `typ`, and `jku`, `x5c` and [`Self::extra_protected`] when given), byte for byte as every
    /// conformant signer's. Off, no signature carries it, and a verifier tries each profile it
    /// accepts, as for every other signer's signatures.
    pub declare: bool,
}

impl Default for SignOptions {
    fn default() -> Self {
        SignOptions {
            alg: None,
            kid: None,
            jku: None,
            x5c: Vec::new(),
            max_chain_len: crate::signature::DEFAULT_MAX_CHAIN_LEN,
            extra_protected: Vec::new(),
            unprotected: Vec::new(),
            canonicalize: CanonicalizeOptions::default(),
            replace_same_kid: false,
            append_same_kid: false,
            also_profiles: Vec::new(),
            max_signatures: crate::signature::DEFAULT_MAX_SIGNATURES,
            allow_unsigned: false,
            declare: true,
        }
    }
}

/// The result of signing.
#[derive(Debug, Clone)]
pub struct Signed {
    /// The card with the new signature entry, every other member as it was.
    pub card: Vec<u8>,
    /// The new entry's `protected` (base64url).
    pub protected: String,
    /// The new entry's `signature` (base64url).
    pub signature: String,
    /// The algorithm used.
    pub alg: Algorithm,
    /// The `kid` used.
    pub kid: String,
    /// What the signature covers.
    pub canonical: Canonical,
    /// How many existing signatures were replaced (with `replace_same_kid`).
    pub replaced: usize,
    /// The index in the card's `signatures` of the new entry (`/signatures/{index}`); the
    /// entries of [`Signed::also`] follow it.
    pub index: usize,
    /// The extra signatures made for [`SignOptions::also_profiles`], in order.
    pub also: Vec<AlsoSigned>,
    /// The profiles of [`SignOptions::also_profiles`] left out because their bytes are those of
    /// a signature already made (one more signature would only repeat it).
    pub also_same_bytes: Vec<Profile>,
}

/// One extra signature of [`SignOptions::also_profiles`].
#[derive(Debug, Clone)]
pub struct AlsoSigned {
    /// The entry's `protected` (base64url): the main one's header, but for the profile it
    /// declares ([`crate::signature::DECLARED_PARAMETER`]).
    pub protected: String,
    /// The entry's `signature` (base64url).
    pub signature: String,
    /// What it covers.
    pub canonical: Canonical,
}

/// What [`SignOptions::prepare`] makes of the options and the key: the header of the signature.
struct Prepared {
    alg: Algorithm,
    kid: String,
    /// The protected header of the main signature, base64url.
    protected: String,
    /// The protected header parameters after `alg`, `kid`, `typ` and `jku` but for the
    /// declaration of the bytes (each signature has its own).
    extra: Vec<(String, serde_json::Value)>,
    /// The unprotected header, when there is one.
    unprotected_value: Option<Value>,
}

impl SignOptions {
    /// Checks what these options ask of `key` before any card is read: the algorithm fits the
    /// key, the kid is not empty, the `jku` is an https URL, and the header is one a verifier
    /// accepts (names, sizes, nesting, no parameter in both headers). [`sign_card`] makes the
    /// same checks; a caller can make them first to tell the key's and the options' errors
    /// from the card's.
    ///
    /// ```
    /// use a2a_card::{Algorithm, PrivateKey, SignOptions};
    /// let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    /// let wrong = SignOptions { alg: Some(Algorithm::ES384), ..SignOptions::default() };
    /// assert_eq!(wrong.check(&key).unwrap_err().code().as_str(), "key-algorithm-mismatch");
    /// assert!(SignOptions::default().check(&key).is_ok());
    /// ```
    ///
    /// `key` is any [`Signer`]: a [`PrivateKey`], or a key in a token or a KMS (whose public key
    /// decides the same checks).
    pub fn check<S: Signer + ?Sized>(&self, key: &S) -> Result<(), Error> {
        self.prepare(key).map(|_| ())
    }

    fn prepare<S: Signer + ?Sized>(&self, key: &S) -> Result<Prepared, Error> {
        if self.replace_same_kid && self.append_same_kid {
            return Err(crate::error::option_error(
                ErrorCode::Usage,
                "{replace} and {append} cannot be given together: an existing signature of the \
                 kid is either replaced or kept beside the new one",
                &["replace", "append"],
            ));
        }
        if !self.declare && !self.also_profiles.is_empty() {
            return Err(crate::error::option_error(
                ErrorCode::Usage,
                "{also_profiles} cannot be given with {declare} off: a signature over another profile's bytes that \
                 does not say so reads as a bad signature to every verifier whose policy does \
                 not accept that profile",
                &["also_profiles", "declare"],
            ));
        }
        if let Some(jku) = &self.jku {
            check_jku(jku)?;
        }
        let alg = match self.alg {
            Some(a) => {
                key.public_key().check_algorithm(a)?;
                a
            }
            None => key.default_algorithm(),
        };
        let kid = match &self.kid {
            Some(k) => {
                crate::jose::keys::check_kid(k)?;
                k.clone()
            }
            None => key.public_key().kid().to_string(),
        };
        if self
            .extra_protected
            .iter()
            .any(|(k, _)| k == crate::signature::DECLARED_PARAMETER)
        {
            return Err(Error::new(
                ErrorCode::Usage,
                format!(
                    "header parameter {:?} is written by the signer itself: it declares the profile \
                     and unknown-member choice each signature covers",
                    crate::signature::DECLARED_PARAMETER
                ),
            ));
        }
        if self.extra_protected.iter().any(|(k, _)| k == "x5c") {
            return Err(Error::new(
                ErrorCode::Usage,
                "header parameter \"x5c\" is given through the signer's x5c option, where its leaf is checked against the key",
            ));
        }
        let mut extra = std::borrow::Cow::Borrowed(&self.extra_protected);
        if !self.x5c.is_empty() {
            crate::signature::check_max_chain_len(self.max_chain_len)?;
            // The verifier's rules of a chain's shape, through the verifier's own functions.
            crate::signature::chain::check_signing_chain(
                &self.x5c,
                self.max_chain_len,
                alg,
                key.public_key(),
            )
            .map_err(|e| {
                if e.code() == ErrorCode::CertificateUntrusted {
                    Error::new(
                        e.code(),
                        format!("a verifier would refuse this chain: {}", e.message()),
                    )
                } else {
                    e
                }
            })?;
            extra
                .to_mut()
                .push(("x5c".into(), crate::jose::x509::encode_x5c(&self.x5c)));
        }
        let extra = extra.into_owned();
        let protected = self.protected_for(alg, &kid, &extra, self.canonicalize.profile)?;
        if !self.unprotected.is_empty() {
            for (i, (k, _)) in self.unprotected.iter().enumerate() {
                if self.unprotected[..i].iter().any(|(p, _)| p == k) {
                    return Err(Error::new(
                        ErrorCode::Usage,
                        format!("unprotected header parameter {k:?} is given twice"),
                    ));
                }
                if matches!(k.as_str(), "alg" | "kid" | "typ" | "crit" | "b64")
                    || (k == "jku" && self.jku.is_some())
                    || self.extra_protected.iter().any(|(p, _)| p == k)
                {
                    return Err(Error::new(
                        ErrorCode::HeaderConflict,
                        format!("header parameter {k:?} cannot be in the unprotected header as well"),
                    ));
                }
            }
        }
        // Refuse what a verifier would refuse, before signing anything: the header as the
        // verifier's own reader decodes it (size, nesting, names, crit, b64, both headers).
        let unprotected_members: Vec<(String, Value)> = self
            .unprotected
            .iter()
            .map(|(k, v)| {
                Ok((
                    k.clone(),
                    from_serde(v).map_err(|e| e.at(format!("/{}", crate::pointer_token(k))))?,
                ))
            })
            .collect::<Result<_, Error>>()?;
        let unprotected_value =
            (!unprotected_members.is_empty()).then(|| Value::Object(unprotected_members.clone()));
        jws::decode_header_value(
            &protected,
            unprotected_value.as_ref(),
            jws::DEFAULT_MAX_HEADER_BYTES,
        )
        .and_then(|h| {
            jws::check_card_header(&h)?;
            // The certificate parameters as a verifier reads them: no x5u, no x5c outside the
            // protected header, and the header's jwk and x5t#S256 those of the chain's leaf.
            let chain = crate::signature::chain::header_certificates(&h).map_err(|(e, _)| e)?;
            match (chain, self.x5c.first()) {
                (Some(_), Some(leaf)) => {
                    crate::signature::chain::check_leaf_statements(&h, leaf, key.public_key())
                }
                _ => Ok(()),
            }
        })
        .map_err(|e| {
            Error::new(
                e.code(),
                format!("a verifier would refuse this signature: {}", e.message()),
            )
        })?;
        Ok(Prepared {
            alg,
            kid,
            protected,
            extra,
            unprotected_value,
        })
    }

    /// The protected header of a signature over `profile` (with this signer's choice for unknown
    /// members): `extra` and, unless [`Self::declare`] is off or the bytes are the
    /// specification's, the declaration of those bytes.
    fn protected_for(
        &self,
        alg: Algorithm,
        kid: &str,
        extra: &[(String, serde_json::Value)],
        profile: Profile,
    ) -> Result<String, Error> {
        let mut params = extra.to_vec();
        let declared = crate::signature::declared::Declared::of(profile, self.canonicalize.unknown);
        if self.declare && !declared.is_spec_form() {
            params.push(declared.parameter());
        }
        jws::encode_protected(alg, kid, self.jku.as_deref(), &params)
    }
}

/// Refuses a protected header of an extra signature that a verifier would refuse (its size: it
/// differs from the main one's, checked in [`SignOptions::prepare`], by the profile name only).
fn check_also_header(protected: &str, unprotected: Option<&Value>) -> Result<(), Error> {
    jws::decode_header_value(protected, unprotected, jws::DEFAULT_MAX_HEADER_BYTES)
        .map(|_| ())
        .map_err(|e| {
            Error::new(
                e.code(),
                format!("a verifier would refuse this signature: {}", e.message()),
            )
        })
}

/// Signs a card with `key`: a [`PrivateKey`], or any [`Signer`] (a PKCS#11 token, a KMS
/// plugin), whose every signature is verified with its public key before the card is written
/// (`external-signature-invalid` when one does not verify; nothing is returned then).
///
/// The thread keeps the buffer the JWS signing input was written in for its next signature or
/// verification (the largest it has used, up to 4 MiB): a large card's next call then takes no
/// memory back from the system.
///
/// ```
/// use a2a_card::{PrivateKey, Algorithm, sign_card, SignOptions};
/// let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
/// let card = br#"{"name":"A","description":"d","version":"1","skills":[]}"#;
/// let signed = sign_card(card, &key, &SignOptions::default()).unwrap();
/// let text = String::from_utf8(signed.card).unwrap();
/// assert!(text.starts_with(r#"{"name":"A","description":"d","version":"1","skills":[],"signatures":[{"protected":"#));
/// ```
pub fn sign_card<S: Signer + ?Sized>(card: &[u8], key: &S, opts: &SignOptions) -> Result<Signed, Error> {
    let doc = Doc::parse(card, &opts.canonicalize.limits)?;
    let root = doc.root();
    let canonical = canonicalize_tree(root, &opts.canonicalize)?;
    if !opts.allow_unsigned && !canonical.unsigned.is_empty() {
        // The members the profile leaves out whatever the unknown-member choice (the empty
        // values of the pruning profiles): retaining does not cover them, so the refusal says so.
        let retained = CanonicalizeOptions {
            unknown: crate::canonical::UnknownMembers::Retain,
            ..opts.canonicalize
        };
        let dropped = canonicalize_tree(root, &retained)
            .map(|c| c.unsigned)
            .unwrap_or_default();
        return Err(unsigned_members(
            &canonical.unsigned,
            opts.canonicalize.profile,
            &dropped,
        ));
    }
    let Prepared {
        alg,
        kid,
        protected,
        extra,
        unprotected_value,
    } = opts.prepare(key)?;
    let sign_over = |protected: &str, canonical: &Canonical| -> Result<String, Error> {
        let input = InputBuffer::signing_input(protected, &canonical.bytes);
        Ok(b64::encode(sign_with(key, alg, &input)?))
    };
    // The extra profiles whose bytes differ from the main ones (a signature over the same bytes
    // would only repeat the first).
    let mut also_forms: Vec<Canonical> = Vec::new();
    let mut also_same = Vec::new();
    for &p in &opts.also_profiles {
        if p == opts.canonicalize.profile
            || also_forms.iter().any(|c| c.profile == p)
            || also_same.contains(&p)
        {
            continue;
        }
        let c = canonicalize_tree(
            root,
            &CanonicalizeOptions {
                profile: p,
                ..opts.canonicalize
            },
        )?;
        if c.bytes == canonical.bytes || also_forms.iter().any(|f| f.bytes == c.bytes) {
            also_same.push(p);
        } else {
            also_forms.push(c);
        }
    }
    // The entries already there, read as a verifier reads them (their number is checked below,
    // once the new ones are counted); with `replace_same_kid`, those whose protected `kid` is ours
    // go; without it or `append_same_kid`, one of them refuses the card.
    let existing = read_signatures(&doc, usize::MAX)?;
    let same_kid =
        |e: &SignatureEntry<'_>| e.decoded_header().ok().and_then(|h| h.kid).as_deref() == Some(kid.as_str());
    if !opts.replace_same_kid && !opts.append_same_kid {
        if let Some((first, _)) = existing.entries().enumerate().find(|(_, e)| same_kid(e)) {
            let count = existing.entries().filter(|e| same_kid(e)).count();
            return Err(kid_already_signed(&kid, first, count));
        }
    }
    let kept: Vec<Value> = existing
        .entries()
        .filter(|e| !(opts.replace_same_kid && same_kid(e)))
        .map(|e| e.value().clone())
        .collect();
    let replaced = existing.len() - kept.len();
    let index = kept.len();
    let total = kept.len() + 1 + also_forms.len();
    if total > opts.max_signatures {
        return Err(Error::new(
            ErrorCode::TooManySignatures,
            format!(
                "the signed card would carry {total} signatures, more than the limit of {} that \
                 verifiers apply (they would refuse the whole card); remove old signatures first \
                 (replacing the signatures of this kid drops those)",
                opts.max_signatures
            ),
        )
        .at("/signatures"));
    }

    let signature = sign_over(&protected, &canonical)?;
    let mut also = Vec::new();
    for c in also_forms {
        let protected = opts.protected_for(alg, &kid, &extra, c.profile)?;
        check_also_header(&protected, unprotected_value.as_ref())?;
        also.push(AlsoSigned {
            signature: sign_over(&protected, &c)?,
            protected,
            canonical: c,
        });
    }

    let entry = |protected: &str, signature: &str| {
        let mut e = vec![
            ("protected".to_string(), Value::String(protected.to_string())),
            ("signature".to_string(), Value::String(signature.to_string())),
        ];
        if let Some(header) = &unprotected_value {
            e.push(("header".to_string(), header.clone()));
        }
        Value::Object(e)
    };
    let mut entries = vec![entry(&protected, &signature)];
    entries.extend(also.iter().map(|a| entry(&a.protected, &a.signature)));
    let out = write_back(card, &doc.layout()?, kept, entries);

    // The written card must canonicalize, under every profile signed, to exactly the bytes that
    // were signed.
    let written = Doc::parse(&out, &opts.canonicalize.limits)?;
    for c in std::iter::once(&canonical).chain(also.iter().map(|a| &a.canonical)) {
        let check = canonicalize_tree(
            written.root(),
            &CanonicalizeOptions {
                profile: c.profile,
                ..opts.canonicalize
            },
        )?;
        if check.bytes != c.bytes {
            return Err(Error::new(
                ErrorCode::MalformedCard,
                "internal check failed: the written card does not canonicalize to the signed bytes",
            ));
        }
    }
    Ok(Signed {
        card: out,
        protected,
        signature,
        alg,
        kid,
        canonical,
        replaced,
        index,
        also,
        also_same_bytes: also_same,
    })
}

impl Signed {
    /// What was signed, as JSON for programs: `kid`, `alg`, `replaced` (existing signatures of
    /// the kid replaced), `also_same_bytes` (profiles asked for and left out: their bytes are
    /// those of a signature made), and per new entry in `signatures`: its `pointer` in the card,
    /// its `profile`, `canonical_sha256` (SHA-256 of the canonical bytes it covers: RFC 8785
    /// JSON in UTF-8, as lowercase hex, as `verify` reports it), `canonical_bytes` (their
    /// length) and `unsigned` (JSON Pointers of the members it does not cover). The main
    /// entry's `profile`, `canonical_sha256` and `unsigned` are also at the top, and
    /// `canonical_encoding` says what the digest is of. The card itself is not in it.
    ///
    /// ```
    /// use a2a_card::{sign_card, Algorithm, PrivateKey, SignOptions};
    /// let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    /// let opts = SignOptions { kid: Some("k1".into()), ..SignOptions::default() };
    /// let card = br#"{"name":"A","skills":[]}"#;
    /// let signed = sign_card(card, &key, &opts).unwrap();
    /// let report = signed.to_json();
    /// assert_eq!(report["kid"], "k1");
    /// assert_eq!(report["alg"], "EdDSA");
    /// assert_eq!(report["profile"], "spec");
    /// assert_eq!(report["signatures"][0]["pointer"], "/signatures/0");
    /// let bytes = a2a_card::canonicalize(card, &Default::default()).unwrap().bytes;
    /// assert_eq!(report["canonical_sha256"], a2a_card::sha256_hex(&bytes));
    /// assert_eq!(report["replaced"], 0);
    /// ```
    pub fn to_json(&self) -> serde_json::Value {
        let entry = |i: usize, c: &Canonical| {
            serde_json::json!({
                "pointer": format!("/signatures/{}", self.index + i),
                "profile": c.profile.as_str(),
                "canonical_sha256": crate::sha256_hex(&c.bytes),
                "canonical_bytes": c.bytes.len(),
                "unsigned": c.unsigned,
            })
        };
        let signatures: Vec<serde_json::Value> = std::iter::once(&self.canonical)
            .chain(self.also.iter().map(|a| &a.canonical))
            .enumerate()
            .map(|(i, c)| entry(i, c))
            .collect();
        let mut out = serde_json::json!({
            "kid": self.kid,
            "alg": self.alg.as_str(),
            "profile": self.canonical.profile.as_str(),
            "canonical_sha256": crate::sha256_hex(&self.canonical.bytes),
            "canonical_encoding": "RFC 8785 JSON, UTF-8; canonical_sha256 is its SHA-256 as lowercase hex",
            "signatures": signatures,
            "unsigned": self.canonical.unsigned,
            "replaced": self.replaced,
            "also_same_bytes": self.also_same_bytes.iter().map(|p| p.as_str()).collect::<Vec<_>>(),
        });
        // Only when some unsigned member is one edit away from a defined one.
        let near = crate::signature::near::to_json(&self.canonical.unsigned);
        if near.as_array().is_some_and(|a| !a.is_empty()) {
            out["did_you_mean"] = near;
        }
        out
    }
}

/// The refusal of a card that already carries `count` signatures of `kid`, the first at
/// `/signatures/{first}`.
fn kid_already_signed(kid: &str, first: usize, count: usize) -> Error {
    let pointer = format!("/signatures/{first}");
    // The kid is the caller's text, written as JSON writes it (no control character shown raw).
    // Its `{` are doubled so that no kid reads as an option's place in the template.
    let kid = crate::error::template_literal(&serde_json::Value::String(kid.to_string()).to_string());
    let which = if count == 1 {
        format!("a signature with kid {kid} ({pointer})")
    } else {
        format!("{count} signatures with kid {kid} (the first at {pointer})")
    };
    let template = format!(
        "the card already carries {which}; signing again would stack another signature of that \
         kid: ask for {{replace}} to replace it, or {{append}} to keep it and add the new one \
         beside it"
    );
    crate::error::option_error(ErrorCode::KidAlreadySigned, &template, &["replace", "append"]).at(pointer)
}

/// Splices the new `signatures` array (the `kept` entries, then the new ones) into the input
/// bytes, whose top-level members lie as `layout` says.
fn write_back(
    card: &[u8],
    layout: &crate::canonical::ObjectLayout,
    kept: Vec<Value>,
    new_entries: Vec<Value>,
) -> Vec<u8> {
    let mut entries = kept;
    entries.extend(new_entries);

    // Follow the document's layout: members on their own lines, and the separator after names.
    let indent = member_indent(card, layout);
    let colon = match layout.members.first() {
        Some(m) => {
            let between = &card[m.start..m.value.start];
            let name_end = between.iter().rposition(|&b| b == b':').unwrap_or(0);
            String::from_utf8_lossy(&between[name_end..]).into_owned()
        }
        None => ":".to_string(),
    };
    let mut array = Vec::new();
    array.push(b'[');
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            array.push(b',');
        }
        if let Some(ind) = &indent {
            array.push(b'\n');
            array.extend_from_slice(ind.as_bytes());
            array.extend_from_slice(ind.as_bytes());
        }
        crate::canonical::jcs::write_compact(&mut array, e);
    }
    if let Some(ind) = &indent {
        array.push(b'\n');
        array.extend_from_slice(ind.as_bytes());
    }
    array.push(b']');

    let mut out = Vec::with_capacity(card.len() + array.len() + 32);
    match layout.members.iter().find(|m| m.name == "signatures") {
        Some(m) => {
            out.extend_from_slice(&card[..m.value.start]);
            out.extend_from_slice(&array);
            out.extend_from_slice(&card[m.value.end..]);
        }
        None => {
            let insert_at = layout.members.last().map_or(layout.open + 1, |m| m.value.end);
            out.extend_from_slice(&card[..insert_at]);
            if !layout.members.is_empty() {
                out.push(b',');
            }
            if let Some(ind) = &indent {
                out.push(b'\n');
                out.extend_from_slice(ind.as_bytes());
            }
            out.extend_from_slice(b"\"signatures\"");
            out.extend_from_slice(colon.as_bytes());
            out.extend_from_slice(&array);
            out.extend_from_slice(&card[insert_at..]);
        }
    }
    out
}

/// The indentation of top-level members when the document puts them on their own lines.
fn member_indent(card: &[u8], layout: &crate::canonical::ObjectLayout) -> Option<String> {
    let first = layout.members.first()?;
    let ws = &card[layout.open + 1..first.start];
    let nl = ws.iter().rposition(|&b| b == b'\n')?;
    Some(String::from_utf8_lossy(&ws[nl + 1..]).into_owned())
}

/// The refusal of a signature that would leave `unsigned` members uncovered, at the first one;
/// `dropped` are those that `profile` leaves out even when unknown members are retained.
fn unsigned_members(unsigned: &[String], profile: Profile, dropped: &[String]) -> Error {
    const SHOWN: usize = 8;
    let mut list: Vec<&str> = unsigned.iter().take(SHOWN).map(String::as_str).collect();
    let more = unsigned.len().saturating_sub(SHOWN);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    let legacy = unsigned.iter().find(|p| {
        p.rsplit('/')
            .next()
            .is_some_and(crate::canonical::table::is_legacy_name)
    });
    let mut migrate = match legacy {
        Some(p) => format!(" Some are A2A 0.3 members (such as {p}): migrate the card to v1.0 first."),
        None => String::new(),
    };
    for note in crate::signature::near::notes(unsigned).iter().take(SHOWN) {
        migrate.push_str(&format!(" {note}"));
    }
    let dropped_note = match dropped.len() {
        0 => String::new(),
        n => format!(
            "; the {} profile leaves {}{} out whatever the choice (it signs no empty value): to \
             sign, remove them from the card or exclude them",
            profile.as_str(),
            dropped.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", "),
            if n > SHOWN { ", ..." } else { "" },
        ),
    };
    list.dedup();
    crate::error::option_error(
        ErrorCode::UnsignedMembers,
        &format!(
            "{} member(s) of the card would not be covered by the signature: {}{more}.{migrate} Choose what \
             happens to them with the option {{unknown}}: retain them (the signature covers them as they are) \
             or exclude them (they stay unsigned){dropped_note}",
            unsigned.len(),
            // Member names are the card's text: no `{` of theirs reads as an option's place.
            crate::error::template_literal(&list.join(", ")),
            more = more,
            migrate = crate::error::template_literal(&migrate),
            dropped_note = crate::error::template_literal(&dropped_note),
        ),
        &["unknown"],
    )
    .at(unsigned[0].clone())
}

/// A `jku` a verifier can use: an absolute https URL with a host (verifiers fetch nothing else).
fn check_jku(jku: &str) -> Result<(), Error> {
    let host = jku
        .strip_prefix("https://")
        .map(|rest| rest.split(['/', '?', '#']).next().unwrap_or(""))
        .unwrap_or("");
    if host.is_empty() || host.contains('@') || jku.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(Error::new(
            ErrorCode::Usage,
            format!(
                "the jku {} is not an https URL with a host; verifiers fetch keys over https only",
                crate::signature::quoted(jku)
            ),
        ));
    }
    Ok(())
}
