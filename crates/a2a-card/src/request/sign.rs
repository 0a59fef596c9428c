//! [`SIGN`] and [`SignRequest`]: the options of signing as every front end gives them, read by
//! the same loops as the other requests, and the one function that turns them into
//! [`SignOptions`] (every default, bound and rule between options applied here).

use super::ops::{count, limits, named, refused_value, Request};
use super::table::{Kind, OptionSpec, ALL, MAX_CHAIN, MAX_DEPTH, MAX_INPUT_BYTES, PROFILE};
use super::{Input, OptionValue};
use crate::canonical::{CanonicalizeOptions, Profile, UnknownMembers};
use crate::jose::Algorithm;
use crate::signature::SignOptions;
use crate::Error;

/// The options of signing: the rows of [`super::CANONICALIZE`] (the bytes signed) and the
/// signature's own. The key is not an option: each front end takes it as an argument of its
/// own.
///
/// ```
/// use a2a_card::request::{option, Kind, SIGN};
/// assert_eq!(option(SIGN, "max_chain").unwrap().bounds(), Some((1, 8)));
/// assert_eq!(option(SIGN, "replace").unwrap().kind, Kind::Flag(false));
/// ```
pub const SIGN: &[OptionSpec] = &[
    PROFILE,
    OptionSpec {
        name: "unknown",
        kind: Kind::Names(&["exclude", "retain", "reject"]),
        fronts: ALL,
        doc: "Members the schema does not define: left unsigned, covered, or the card refused; not given, a card with such members is refused (unsigned-members).",
    },
    MAX_INPUT_BYTES,
    MAX_DEPTH,
    OptionSpec {
        name: "alg",
        kind: Kind::Text,
        fronts: ALL,
        doc: "The algorithm (it must fit the key); by default the key's own.",
    },
    OptionSpec {
        name: "kid",
        kind: Kind::Text,
        fronts: ALL,
        doc: "The kid in the protected header; by default the key's (its JWK kid, else its RFC 7638 thumbprint).",
    },
    OptionSpec {
        name: "jku",
        kind: Kind::Text,
        fronts: ALL,
        doc: "A jku to name in the protected header (information for verifiers, never a trust root).",
    },
    OptionSpec {
        name: "header",
        kind: Kind::Members,
        fronts: ALL,
        doc: "Unprotected header parameters, for the entry's header member.",
    },
    OptionSpec {
        name: "protected_header",
        kind: Kind::Members,
        fronts: ALL,
        doc: "Further protected header parameters (not alg, kid, typ, jku, crit, b64 or x5c).",
    },
    OptionSpec {
        name: "x5c",
        kind: Kind::Pem,
        fronts: ALL,
        doc: "A certificate chain (PEM, the leaf first, then intermediates) for the protected header's x5c; the leaf's key must be the signing key's.",
    },
    MAX_CHAIN,
    OptionSpec {
        name: "replace",
        kind: Kind::Flag(false),
        fronts: ALL,
        doc: "Replace the signatures whose kid is the new one's; without replace or append, a card already signed under the kid is refused (kid-already-signed).",
    },
    OptionSpec {
        name: "append",
        kind: Kind::Flag(false),
        fronts: ALL,
        doc: "Keep the signatures whose kid is the new one's and add the new one beside them (not with replace).",
    },
    OptionSpec {
        name: "also_profiles",
        kind: Kind::List,
        fronts: ALL,
        doc: "One more signature, same key and header but for the profile it declares, over each of these profiles' bytes: a transition aid, so that SDK verifiers of today and spec-exact verifiers both find one they check.",
    },
    OptionSpec {
        name: "declare",
        kind: Kind::Flag(true),
        fronts: ALL,
        doc: "Declare in the protected header (urn:a2a-card:canonical) of each signature over other bytes than the specification's (another profile, or unknown members retained) the profile and unknown-member choice of those bytes, so verifiers check it over them only; a signature over the specification's bytes never carries it. Off, no header carries it: each is what other signers write, byte for byte as theirs.",
    },
];

/// The options of signing, one member per row of [`SIGN`] (`None` or empty: the table's
/// default), filled by the front ends through [`Request::set`]; [`Request::build`] makes the
/// [`SignOptions`].
///
/// ```
/// use a2a_card::request::{Request, SignRequest};
/// let opts = SignRequest { kid: Some("release-2026".into()), ..Default::default() }.build().unwrap();
/// assert_eq!(opts.kid.as_deref(), Some("release-2026"));
/// let e = SignRequest { also_profiles: vec!["spex".into()], ..Default::default() }.build().unwrap_err();
/// assert_eq!(e.option(), Some("also_profiles"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignRequest {
    /// The profile, by name.
    pub profile: Option<String>,
    /// What to do with unknown members, by name; giving it allows them to be left unsigned.
    pub unknown: Option<String>,
    /// The largest card, in bytes.
    pub max_input_bytes: Option<usize>,
    /// The deepest nesting of a card.
    pub max_depth: Option<usize>,
    /// The algorithm, by name.
    pub alg: Option<String>,
    /// The `kid`.
    pub kid: Option<String>,
    /// The `jku`.
    pub jku: Option<String>,
    /// Unprotected header parameters.
    pub header: Vec<(String, serde_json::Value)>,
    /// Further protected header parameters.
    pub protected_header: Vec<(String, serde_json::Value)>,
    /// The certificate chain, PEM (each input's certificates in turn, the leaf first).
    pub x5c: Vec<Input>,
    /// The most certificates of the chain.
    pub max_chain: Option<usize>,
    /// Replace the signatures of the same kid.
    pub replace: bool,
    /// Keep the signatures of the same kid beside the new one.
    pub append: bool,
    /// Profiles to sign over too, by name.
    pub also_profiles: Vec<String>,
    /// Declare the bytes each signature covers; `None`: the table's default (on).
    pub declare: Option<bool>,
}

impl Request for SignRequest {
    const TABLE: &'static [OptionSpec] = SIGN;
    type Built = SignOptions;

    fn set(&mut self, name: &str, value: OptionValue) -> Result<(), Error> {
        use OptionValue as V;
        match (name, value) {
            ("profile", V::Text(v)) => self.profile = Some(v),
            ("unknown", V::Text(v)) => self.unknown = Some(v),
            ("max_input_bytes", V::Count(n)) => self.max_input_bytes = Some(n),
            ("max_depth", V::Count(n)) => self.max_depth = Some(n),
            ("alg", V::Text(v)) => self.alg = Some(v),
            ("kid", V::Text(v)) => self.kid = Some(v),
            ("jku", V::Text(v)) => self.jku = Some(v),
            ("header", V::Members(v)) => self.header = v,
            ("protected_header", V::Members(v)) => self.protected_header = v,
            ("x5c", V::Inputs(v)) => self.x5c = v,
            ("max_chain", V::Count(n)) => self.max_chain = Some(n),
            ("replace", V::Flag(b)) => self.replace = b,
            ("append", V::Flag(b)) => self.append = b,
            ("also_profiles", V::Texts(v)) => self.also_profiles = v,
            ("declare", V::Flag(b)) => self.declare = Some(b),
            (name, _) => return Err(refused_value(Self::TABLE, name, "a signing")),
        }
        Ok(())
    }

    /// The signing options: the names read, the counts within their bounds, the chain's PEM
    /// read (an error names its input). Giving `unknown` is choosing what becomes of the
    /// members it concerns, so a card whose signature would leave members uncovered is signed
    /// then; without it, such a card is refused (`unsigned-members`). The rules that need the
    /// key ([`SignOptions::check`]) apply when it is known.
    fn build(&self) -> Result<SignOptions, Error> {
        let alg = match &self.alg {
            None => None,
            Some(name) => Some(Algorithm::from_name(name).map_err(|e| e.for_option("alg"))?),
        };
        let also_profiles = self
            .also_profiles
            .iter()
            .map(|p| p.parse::<Profile>().map_err(|e| e.for_option("also_profiles")))
            .collect::<Result<Vec<_>, _>>()?;
        let mut x5c = Vec::new();
        for input in &self.x5c {
            let certificates = crate::jose::x509::certificates_from_pem(&input.text)
                .map_err(|e| e.for_option("x5c").from_input(&input.source, false))?;
            x5c.extend(certificates);
        }
        Ok(SignOptions {
            alg,
            kid: self.kid.clone(),
            jku: self.jku.clone(),
            x5c,
            max_chain_len: count(SIGN, "max_chain", self.max_chain)?,
            extra_protected: self.protected_header.clone(),
            unprotected: self.header.clone(),
            canonicalize: CanonicalizeOptions {
                profile: named(&self.profile, "profile", Profile::Spec)?,
                unknown: named(&self.unknown, "unknown", UnknownMembers::default())?,
                limits: limits(SIGN, self.max_input_bytes, self.max_depth)?,
            },
            replace_same_kid: self.replace,
            append_same_kid: self.append,
            also_profiles,
            allow_unsigned: self.unknown.is_some(),
            declare: self.declare.unwrap_or(true),
            ..SignOptions::default()
        })
    }
}
