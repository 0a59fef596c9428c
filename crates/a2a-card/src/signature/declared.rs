//! The protected header parameter in which a signature says which bytes it covers: the
//! canonical profile and the choice for unknown members it was made with.
//!
//! A card may carry signatures over different canonical forms of itself (the specification's,
//! and the `prune-empty` one today's SDK verifiers check: see `SignOptions::also_profiles`).
//! Without a statement in the signature, a verifier can only try each profile it accepts, and a
//! signature made over a profile it does not accept looks like a bad one (`signature-invalid`),
//! though it is exactly what its signer meant. So [`crate::sign_card`] writes, in the protected
//! header (covered by the signature, so no one can change it), the parameter
//! [`DECLARED_PARAMETER`] with a JSON object value `{"profile": NAME, "unknown": CHOICE}`
//! (`CHOICE` is `exclude` or `retain`). A verifier then checks the signature over that profile's
//! bytes only, refuses one whose profile its policy does not accept with
//! `profile-not-accepted`, and reads a signature without the parameter (every other signer's) as
//! before, over each accepted profile.
//!
//! A signature over the specification's own bytes (`spec`, unknown members excluded) carries no
//! declaration: those are the bytes a verifier tries first anyway, and its header stays the one
//! section 8.4.2 of A2A v1.0 shows, byte for byte as every conformant signer's (the A2A TCK's
//! signing vectors check exactly that header). Only the signatures that need saying so (another
//! profile, unknown members retained) declare their bytes.
//!
//! Why this name: no JWS header parameter registered with IANA says what a detached payload's
//! canonical form is (`b64` says whether the payload is base64url-encoded, `cty` and `typ` name
//! media types), and a private name (RFC 7515 section 4.3) may collide with another signer's. RFC
//! 7515 section 4.2 lets a public name be collision-resistant instead of registered; a URN in the
//! project's own name space, `urn:a2a-card:canonical`, is one. The parameter is not listed in
//! `crit`: RFC 7515 requires a verifier to refuse a `crit` parameter it does not understand, and
//! the deployed SDK verifiers (a2a-sdk, @a2a-js/sdk) understand none, so listing it would make
//! them refuse the very signature made for them. A verifier that does not know the parameter
//! ignores it, as RFC 7515 section 4 lets it, and checks the signature as before.

use crate::canonical::{Profile, UnknownMembers};
use crate::error::{Error, ErrorCode};
use crate::jose::header::Header;

/// The name of the protected header parameter in which a signature made by this library
/// declares the canonical bytes it covers: a JSON object `{"profile": NAME, "unknown": CHOICE}`.
/// See the module `signature::declared` for why this name and why it is never in `crit`.
///
/// ```
/// use a2a_card::{sign_card, Algorithm, PrivateKey, Profile, SignOptions};
/// use a2a_card::signature::DECLARED_PARAMETER;
/// let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
/// let card = br#"{"name":"A","description":"","skills":[]}"#;
/// let opts = SignOptions { also_profiles: vec![Profile::PruneEmpty], ..SignOptions::default() };
/// let signed = sign_card(card, &key, &opts).unwrap();
/// let header = |protected: &str| a2a_card::jose::header::decode_header(protected, None, 4096).unwrap();
/// // The specification's bytes: the header of section 8.4.2, nothing declared.
/// assert_eq!(header(&signed.protected).protected_param(DECLARED_PARAMETER), None);
/// // The transition signature over the prune-empty bytes says so.
/// let also = header(&signed.also[0].protected);
/// assert_eq!(
///     also.protected_param(DECLARED_PARAMETER),
///     Some(serde_json::json!({"profile": "prune-empty", "unknown": "exclude"}))
/// );
/// assert_eq!(also.protected_param("crit"), None);
/// ```
pub const DECLARED_PARAMETER: &str = "urn:a2a-card:canonical";

/// What a signature declares it was made over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Declared {
    pub(crate) profile: Profile,
    /// Unknown members retained (covered as they are); else excluded.
    pub(crate) retain: bool,
}

impl Declared {
    /// What a signature over `profile` with `unknown` declares. A card that `Reject` lets through
    /// has no unknown member, so its bytes are the `exclude` ones.
    pub(crate) fn of(profile: Profile, unknown: UnknownMembers) -> Declared {
        Declared {
            profile,
            retain: unknown == UnknownMembers::Retain,
        }
    }

    /// Whether these are the specification's bytes (`spec`, unknown members excluded): what a
    /// signature without the parameter is taken to cover first, so the signer leaves the
    /// parameter out for them and its header is the one section 8.4.2 shows, byte for byte as
    /// every other conformant signer's.
    pub(crate) fn is_spec_form(self) -> bool {
        self.profile == Profile::Spec && !self.retain
    }

    /// The parameter's name and value, for the protected header.
    pub(crate) fn parameter(self) -> (String, serde_json::Value) {
        (
            DECLARED_PARAMETER.to_string(),
            serde_json::json!({"profile": self.profile.as_str(), "unknown": self.choice()}),
        )
    }

    /// `exclude` or `retain`.
    pub(crate) fn choice(self) -> &'static str {
        if self.retain {
            "retain"
        } else {
            "exclude"
        }
    }

    /// How a report names the bytes: `the prune-empty bytes (what a2a-sdk and @a2a-js/sdk sign)`,
    /// with `, unknown members retained` when they are.
    pub(crate) fn bytes_named(self) -> String {
        let retained = if self.retain {
            ", the members A2A v1.0 does not define retained"
        } else {
            ""
        };
        format!(
            "the {} bytes ({}{retained})",
            self.profile.as_str(),
            self.profile.signed_by()
        )
    }
}

/// The declaration of a decoded header: `Ok(None)` without the parameter; an error
/// (`malformed-header`, naming the parameter) when its value is not an object with exactly a
/// known `profile` and an `unknown` of `exclude` or `retain`, or when it is in the unprotected
/// header. The error comes with the entry's member it is in (`protected` or `header`), for the
/// caller to place it.
pub(crate) fn read(header: &Header) -> Result<Option<Declared>, (Error, &'static str)> {
    if header.unprotected.iter().any(|(k, _)| k == DECLARED_PARAMETER) {
        return Err((
            malformed(
                "is in the unprotected header, where the signature does not cover it; it belongs in the protected header",
            ),
            "header",
        ));
    }
    read_protected(header).map_err(|e| (e, "protected"))
}

fn read_protected(header: &Header) -> Result<Option<Declared>, Error> {
    let Some(value) = header.protected_param(DECLARED_PARAMETER) else {
        return Ok(None);
    };
    let Some(members) = value.as_object() else {
        return Err(malformed(&format!(
            "is {}, not an object {{\"profile\": NAME, \"unknown\": \"exclude\" or \"retain\"}}",
            kind(&value)
        )));
    };
    if let Some(other) = members.keys().find(|k| *k != "profile" && *k != "unknown") {
        return Err(malformed(&format!(
            "has the member {}; it has only \"profile\" and \"unknown\"",
            crate::signature::quoted(other)
        )));
    }
    let profile = match members.get("profile") {
        Some(serde_json::Value::String(name)) => name.parse::<Profile>().map_err(|_| {
            let names: Vec<&str> = Profile::ALL.iter().map(|p| p.as_str()).collect();
            malformed(&format!(
                "names the profile {}, which is none of {}",
                crate::signature::quoted(name),
                names.join(", ")
            ))
        })?,
        Some(v) => {
            return Err(malformed(&format!(
                "has a \"profile\" that is {}, not a profile name",
                kind(v)
            )))
        }
        None => return Err(malformed("has no \"profile\" member")),
    };
    let retain = match members.get("unknown") {
        Some(serde_json::Value::String(c)) if c == "exclude" => false,
        Some(serde_json::Value::String(c)) if c == "retain" => true,
        Some(serde_json::Value::String(c)) => {
            return Err(malformed(&format!(
                "has \"unknown\" {}; the choices are \"exclude\" and \"retain\"",
                crate::signature::quoted(c)
            )))
        }
        Some(v) => {
            return Err(malformed(&format!(
                "has an \"unknown\" that is {}, not a string",
                kind(v)
            )))
        }
        None => return Err(malformed("has no \"unknown\" member")),
    };
    Ok(Some(Declared { profile, retain }))
}

fn kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

fn malformed(what: &str) -> Error {
    Error::new(
        ErrorCode::MalformedHeader,
        format!(
            "header parameter \"{DECLARED_PARAMETER}\" (the bytes the signature declares it covers) {what}"
        ),
    )
}
