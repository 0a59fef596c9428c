//! The profiles (which rules make a card's canonical bytes), what to do with unknown members,
//! and the options and result of canonicalizing.

use super::reader::Limits;
use crate::error::{Error, ErrorCode};

/// Which rules turn a card into the bytes a signature covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// The A2A v1.0 text and its 8.4.1 worked example: REQUIRED fields kept even at their
    /// default, `optional` and message fields kept when present, implicit-presence fields
    /// omitted at their default, `Struct` values by RFC 8785 only, `signatures` removed.
    Spec,
    /// What a2a-sdk (Python) 1.x and @a2a-js/sdk 1.x sign: a ProtoJSON round trip (proto names
    /// become JSON names, implicit defaults dropped, unknown members dropped), then every empty
    /// string, list and object and every `null` removed everywhere, recursively.
    PruneEmpty,
    /// What a2a-go signs: the served JSON without `signatures`, no presence rules.
    ServedAsIs,
    /// What a2a-sdk (Python) 0.3.24 to 0.3.26 sign (`create_agent_card_signer`): the card read
    /// into the 0.3 pydantic model (members it does not define dropped), dumped without
    /// `signatures`, without members that hold their model default (`protocolVersion` "0.3.0",
    /// `preferredTransport` "JSONRPC", a security scheme's `type`) and without nulls; then every
    /// empty string, list and object removed, recursively; then written as Python's
    /// `json.dumps(sort_keys=True)`: keys in code point order, non-ASCII escaped as `\uXXXX`,
    /// floats spelled as Python does (`1.0`, `1e-05`).
    A2aSdk03,
    /// What a2a-sdk 0.3.21 to 0.3.23 sign: as [`Profile::A2aSdk03`], but the empty-value pruning
    /// of those releases also removes `false` and zero, everywhere.
    A2aSdk0321,
}

impl Profile {
    /// Every profile, in the order `auto` tries them when verifying.
    pub const ALL: [Profile; 5] = [
        Profile::Spec,
        Profile::ServedAsIs,
        Profile::PruneEmpty,
        Profile::A2aSdk03,
        Profile::A2aSdk0321,
    ];

    /// The profile's name: `spec`, `prune-empty`, `served-as-is`, `a2a-sdk-0.3` or
    /// `a2a-sdk-0.3.21`.
    ///
    /// ```
    /// assert_eq!(a2a_card::Profile::PruneEmpty.as_str(), "prune-empty");
    /// assert_eq!(a2a_card::Profile::A2aSdk03.as_str(), "a2a-sdk-0.3");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Spec => "spec",
            Profile::PruneEmpty => "prune-empty",
            Profile::ServedAsIs => "served-as-is",
            Profile::A2aSdk03 => "a2a-sdk-0.3",
            Profile::A2aSdk0321 => "a2a-sdk-0.3.21",
        }
    }

    /// True for the profiles of the a2a-sdk 0.3 signer, whose bytes are an A2A 0.3 card as
    /// its model reads it.
    ///
    /// ```
    /// assert!(a2a_card::Profile::A2aSdk0321.is_a2a_sdk_03());
    /// assert!(!a2a_card::Profile::PruneEmpty.is_a2a_sdk_03());
    /// ```
    pub fn is_a2a_sdk_03(self) -> bool {
        matches!(self, Profile::A2aSdk03 | Profile::A2aSdk0321)
    }

    /// Who produces these bytes, for messages: `the A2A v1.0 text`, `what a2a-sdk and
    /// @a2a-js/sdk sign`, `what a2a-go signs`.
    ///
    /// ```
    /// assert_eq!(a2a_card::Profile::ServedAsIs.signed_by(), "what a2a-go signs");
    /// ```
    pub fn signed_by(self) -> &'static str {
        match self {
            Profile::Spec => "the A2A v1.0 text",
            Profile::PruneEmpty => "what a2a-sdk and @a2a-js/sdk sign",
            Profile::ServedAsIs => "what a2a-go signs",
            Profile::A2aSdk03 => "what a2a-sdk 0.3.24 to 0.3.26 sign",
            Profile::A2aSdk0321 => "what a2a-sdk 0.3.21 to 0.3.23 sign",
        }
    }

    /// The profile with this name.
    #[deprecated(note = "use `name.parse::<Profile>().ok()` (`FromStr`)")]
    pub fn from_name(name: &str) -> Option<Profile> {
        name.parse().ok()
    }

    /// The profile with this name, or a `usage` error listing the names.
    #[deprecated(note = "use `name.parse::<Profile>()` (`FromStr`)")]
    pub fn parse(name: &str) -> Result<Profile, Error> {
        name.parse()
    }
}

impl std::str::FromStr for Profile {
    type Err = Error;

    /// The profile with this name, or a `usage` error listing the names: how every front end
    /// reads a profile given as text.
    ///
    /// ```
    /// use a2a_card::Profile;
    /// assert_eq!("prune-empty".parse::<Profile>().unwrap(), Profile::PruneEmpty);
    /// let e = "jcs".parse::<Profile>().unwrap_err();
    /// assert_eq!(e.code().as_str(), "usage");
    /// assert_eq!(
    ///     e.message(),
    ///     r#"profile "jcs" is not one of "spec", "served-as-is", "prune-empty", "a2a-sdk-0.3", "a2a-sdk-0.3.21""#
    /// );
    /// ```
    fn from_str(name: &str) -> Result<Profile, Error> {
        Profile::ALL
            .into_iter()
            .find(|p| p.as_str() == name)
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::Usage,
                    format!(
                        "profile {name:?} is not one of {}",
                        quoted_names(Profile::ALL.map(Profile::as_str))
                    ),
                )
            })
    }
}

/// Option values as a message lists them: `"a", "b", "c"`.
pub(crate) fn quoted_names<const N: usize>(values: [&str; N]) -> String {
    values.map(|v| format!("{v:?}")).join(", ")
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Profile {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl PartialEq<&str> for Profile {
    /// A profile equals its name.
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// The profiles a verifier accepts, from their names: `spec`, `prune-empty`, `served-as-is`,
/// `a2a-sdk-0.3`, `a2a-sdk-0.3.21`, or `auto`, which stands for all of them in the order they are
/// tried (`spec`, `served-as-is`, `prune-empty`, `a2a-sdk-0.3`, `a2a-sdk-0.3.21`). Repeated names
/// count once; no name means `spec` alone.
///
/// ```
/// use a2a_card::{canonical::accepted_profiles, Profile};
/// assert_eq!(accepted_profiles(&[]).unwrap(), vec![Profile::Spec]);
/// assert_eq!(accepted_profiles(&["auto"]).unwrap(), Profile::ALL.to_vec());
/// assert_eq!(accepted_profiles(&["prune-empty", "spec"]).unwrap(), vec![Profile::PruneEmpty, Profile::Spec]);
/// assert_eq!(accepted_profiles(&["jcs"]).unwrap_err().code().as_str(), "usage");
/// ```
pub fn accepted_profiles(names: &[&str]) -> Result<Vec<Profile>, Error> {
    let mut out: Vec<Profile> = Vec::new();
    for name in names {
        let add: Vec<Profile> = if *name == "auto" {
            Profile::ALL.to_vec()
        } else {
            match name.parse::<Profile>().ok() {
                Some(p) => vec![p],
                None => {
                    return Err(Error::new(
                        ErrorCode::Usage,
                        format!(
                            "unknown profile {name:?} (known: {}, auto)",
                            Profile::ALL.map(Profile::as_str).join(", ")
                        ),
                    ))
                }
            }
        };
        for p in add {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    if out.is_empty() {
        out.push(Profile::Spec);
    }
    Ok(out)
}

/// What to do with members the A2A v1.0 schema does not define.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum UnknownMembers {
    /// Leave them out of the canonical bytes and report their JSON Pointers as unsigned. This is
    /// what a verifier that parses into protobuf reconstructs.
    #[default]
    Exclude,
    /// Keep them in the canonical bytes (RFC 8785 only inside them), so the signature covers them.
    Retain,
    /// Refuse the card with `unknown-member`.
    Reject,
}

impl UnknownMembers {
    /// Every option.
    ///
    /// ```
    /// let names = a2a_card::UnknownMembers::ALL.map(a2a_card::UnknownMembers::as_str);
    /// assert_eq!(names, ["exclude", "retain", "reject"]);
    /// ```
    pub const ALL: [UnknownMembers; 3] = [
        UnknownMembers::Exclude,
        UnknownMembers::Retain,
        UnknownMembers::Reject,
    ];

    /// The option's name: `exclude`, `retain` or `reject`.
    pub fn as_str(self) -> &'static str {
        match self {
            UnknownMembers::Exclude => "exclude",
            UnknownMembers::Retain => "retain",
            UnknownMembers::Reject => "reject",
        }
    }

    /// The option with this name.
    #[deprecated(note = "use `name.parse::<UnknownMembers>().ok()` (`FromStr`)")]
    pub fn from_name(name: &str) -> Option<UnknownMembers> {
        name.parse().ok()
    }

    /// The option with this name, or a `usage` error listing the names.
    #[deprecated(note = "use `name.parse::<UnknownMembers>()` (`FromStr`)")]
    pub fn parse(name: &str) -> Result<UnknownMembers, Error> {
        name.parse()
    }
}

impl std::str::FromStr for UnknownMembers {
    type Err = Error;

    /// The option with this name, or a `usage` error listing the names.
    ///
    /// ```
    /// use a2a_card::UnknownMembers;
    /// assert_eq!("retain".parse::<UnknownMembers>().unwrap(), UnknownMembers::Retain);
    /// let e = "keep".parse::<UnknownMembers>().unwrap_err();
    /// assert_eq!(e.message(), r#"unknown "keep" is not one of "exclude", "retain", "reject""#);
    /// ```
    fn from_str(name: &str) -> Result<UnknownMembers, Error> {
        UnknownMembers::ALL
            .into_iter()
            .find(|u| u.as_str() == name)
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::Usage,
                    format!(
                        "unknown {name:?} is not one of {}",
                        quoted_names(UnknownMembers::ALL.map(UnknownMembers::as_str))
                    ),
                )
            })
    }
}

impl std::fmt::Display for UnknownMembers {
    /// The option's name (`exclude`, `retain`, `reject`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Options of [`crate::canonicalize`].
///
/// ```
/// use a2a_card::{CanonicalizeOptions, Profile, UnknownMembers};
/// let opts = CanonicalizeOptions { unknown: UnknownMembers::Reject, ..Default::default() };
/// assert_eq!(opts.profile, Profile::Spec);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CanonicalizeOptions {
    /// The profile (default `spec`).
    pub profile: Profile,
    /// Unknown members (default `exclude`). `served-as-is` covers every member by definition, so
    /// `exclude` and `retain` do not change its bytes; the a2a-sdk 0.3 model drops the members it
    /// does not define, so under `a2a-sdk-0.3` and `a2a-sdk-0.3.21` `retain` leaves them out too
    /// (reported as unsigned); `reject` refuses a card with an unknown member under every
    /// profile (under the 0.3 profiles, unknown to the 0.3 model).
    pub unknown: UnknownMembers,
    /// Reader limits.
    pub limits: Limits,
}

impl Default for CanonicalizeOptions {
    fn default() -> Self {
        CanonicalizeOptions {
            profile: Profile::Spec,
            unknown: UnknownMembers::Exclude,
            limits: Limits::default(),
        }
    }
}

/// The canonical form of a card and what it leaves out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Canonical {
    /// The bytes a signature covers (UTF-8: RFC 8785, or Python's `json.dumps` under the a2a-sdk
    /// 0.3 profiles).
    pub bytes: Vec<u8>,
    /// JSON Pointers (into the input) of the members present in the card but not covered by these
    /// bytes, in document order: unknown members under `exclude` (under the a2a-sdk 0.3 profiles,
    /// the members the 0.3 model does not define, whatever the choice), and under `prune-empty`
    /// and the a2a-sdk 0.3 profiles every empty value they removed. `signatures` is never listed.
    pub unsigned: Vec<String>,
    /// The profile that produced the bytes.
    pub profile: Profile,
}
