//! The table of options: one row per option of a request, by its canonical name, with its
//! kind, default, bounds and documentation, and which front ends offer it. Every front end
//! takes its defaults and bounds from here, and a test checks the CLI's flags, the Python
//! stubs and the npm declarations against it. How a front end spells an option (the CLI's
//! flag, npm's camelCase) is the front end's: the table holds the canonical name alone.

use crate::canonical::{DEFAULT_MAX_DEPTH, DEFAULT_MAX_INPUT_BYTES, MAX_DEPTH_LIMIT, MAX_INPUT_BYTES_LIMIT};
use crate::jose::header::DEFAULT_MAX_HEADER_BYTES;
use crate::signature::{
    DEFAULT_MAX_CHAIN_LEN, DEFAULT_MAX_KEYS_PER_KID, DEFAULT_MAX_SIGNATURES, DEFAULT_MAX_SIGNATURE_CHECKS,
    MAX_CHAIN_LEN_LIMIT, MAX_HEADER_BYTES_LIMIT, MAX_KEYS_PER_KID_LIMIT, MAX_SIGNATURES_LIMIT,
    MAX_SIGNATURE_CHECKS_LIMIT,
};
use std::time::Duration;

/// What values an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A whole number from `min` to `max`, `default` when not given.
    Count {
        /// The least value accepted.
        min: usize,
        /// The greatest value accepted.
        max: usize,
        /// The value when the option is not given.
        default: usize,
    },
    /// One of these names; the first is the default.
    Choice(&'static [&'static str]),
    /// One of these names, with no default: what leaving it out means is the option's own
    /// (its documentation says).
    Names(&'static [&'static str]),
    /// Text, no default.
    Text,
    /// A list of texts, or one text for a list of one.
    Texts,
    /// A list of texts (a list always).
    List,
    /// Keys, JWK Sets or trust stores: JSON or PEM text (a front end writes an object of its
    /// language as JSON), with the name it goes by; `list`: one or a list, named `name[i]`,
    /// else one, named `name` (the CLI takes any number of files of each).
    Keys {
        /// One or a list.
        list: bool,
    },
    /// PEM text (certificates, CRLs), one or a list, named `name[i]`.
    Pem,
    /// A time, in seconds since the Unix epoch; the clock by default.
    Time,
    /// Yes or no, with its default.
    Flag(bool),
    /// Header parameters: names and JSON values (an object of the front end's language; the
    /// CLI takes `NAME=JSON`, repeatable).
    Members,
    /// A length of time in seconds (a fraction allowed) from `min` to `max`, `default` when not
    /// given.
    Seconds {
        /// The shortest accepted.
        min: Duration,
        /// The longest accepted.
        max: Duration,
        /// The length when the option is not given.
        default: Duration,
    },
    /// A file or directory of the machine the front end runs on (a folder when the name ends
    /// with `_dir`), no default.
    Path,
}

/// Which front ends offer an option (each under its own spelling of the name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fronts {
    /// The CLI (under a flag of its choosing, which its own map gives).
    pub cli: bool,
    /// The npm package (under the camelCase spelling of the name).
    pub npm: bool,
    /// The Python package (under the name itself).
    pub python: bool,
}

/// One option of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionSpec {
    /// The canonical name, snake_case (the Python keyword; the npm package's is its camelCase
    /// spelling, see [`camel_case`]).
    pub name: &'static str,
    /// What values it takes, with its default and bounds.
    pub kind: Kind,
    /// Which front ends offer it.
    pub fronts: Fronts,
    /// One sentence for a person.
    pub doc: &'static str,
}

impl OptionSpec {
    /// The default of a count option.
    pub const fn count_default(&self) -> Option<usize> {
        match self.kind {
            Kind::Count { default, .. } => Some(default),
            _ => None,
        }
    }

    /// The bounds of a count option.
    pub const fn bounds(&self) -> Option<(usize, usize)> {
        match self.kind {
            Kind::Count { min, max, .. } => Some((min, max)),
            _ => None,
        }
    }
}

/// `unknown`: what becomes of the members the schema does not define (verify, canonicalize).
pub(super) const UNKNOWN: OptionSpec = OptionSpec {
    name: "unknown",
    kind: Kind::Choice(&["exclude", "retain", "reject"]),
    fronts: ALL,
    doc: "Members the schema does not define: exclude (not covered, reported as unsigned), retain (covered) or reject (the card refused).",
};

/// `profile`: the rules that produce the bytes (canonicalize, inspect, sign).
pub(super) const PROFILE: OptionSpec = OptionSpec {
    name: "profile",
    kind: Kind::Choice(&["spec", "prune-empty", "served-as-is", "a2a-sdk-0.3", "a2a-sdk-0.3.21"]),
    fronts: ALL,
    doc: "Which rules produce the bytes: the A2A v1.0 text, the Python and JS SDKs', the Go SDK's, or the a2a-sdk 0.3 signer's (0.3.24 to 0.3.26; a2a-sdk-0.3.21 for 0.3.21 to 0.3.23).",
};

/// `max_chain`: the most certificates of an `x5c` chain (verify, sign).
pub(super) const MAX_CHAIN: OptionSpec = OptionSpec {
    name: "max_chain",
    kind: count(1, MAX_CHAIN_LEN_LIMIT, DEFAULT_MAX_CHAIN_LEN),
    fronts: ALL,
    doc: "The most certificates an x5c chain may hold.",
};

/// `max_input_bytes`: the reader's size limit (every request that reads a card).
pub(super) const MAX_INPUT_BYTES: OptionSpec = OptionSpec {
    name: "max_input_bytes",
    kind: count(1, MAX_INPUT_BYTES_LIMIT, DEFAULT_MAX_INPUT_BYTES),
    fronts: ALL,
    doc: "Refuse cards larger than this many bytes.",
};

/// `max_depth`: the reader's nesting limit (every request that reads a card).
pub(super) const MAX_DEPTH: OptionSpec = OptionSpec {
    name: "max_depth",
    kind: count(1, MAX_DEPTH_LIMIT, DEFAULT_MAX_DEPTH),
    fronts: ALL,
    doc: "Refuse cards nested deeper than this.",
};

/// Every front end.
pub(super) const ALL: Fronts = Fronts {
    cli: true,
    npm: true,
    python: true,
};

/// The libraries' front ends, npm and Python; not the CLI.
const LIBRARIES: Fronts = Fronts {
    cli: false,
    npm: true,
    python: true,
};

/// The CLI alone.
const CLI_ONLY: Fronts = Fronts {
    cli: true,
    npm: false,
    python: false,
};

const fn count(min: usize, max: usize, default: usize) -> Kind {
    Kind::Count { min, max, default }
}

/// The options of a verification ([`super::VerifyRequest`]).
///
/// ```
/// use a2a_card::request::{option, VERIFY};
/// let chain = option(VERIFY, "max_chain").unwrap();
/// assert_eq!(chain.bounds(), Some((1, 8)));
/// assert!(chain.fronts.cli && chain.fronts.python && chain.fronts.npm);
/// ```
pub const VERIFY: &[OptionSpec] = &[
    OptionSpec {
        name: "keys",
        kind: Kind::Keys { list: true },
        fronts: ALL,
        doc: "Trusted public keys (PEM or JWK; a private key yields its public half).",
    },
    OptionSpec {
        name: "jwks",
        kind: Kind::Keys { list: false },
        fronts: ALL,
        doc: "Trusted JWK Sets; entries with \"use\":\"enc\" are skipped.",
    },
    OptionSpec {
        name: "trust",
        kind: Kind::Keys { list: false },
        fronts: ALL,
        doc: "Trust stores: keys with policy (algorithms, origins, validity window, revoked).",
    },
    OptionSpec {
        name: "trust_anchors",
        kind: Kind::Pem,
        fronts: ALL,
        doc: "CA certificates (PEM) trusted as roots for x5c chains.",
    },
    OptionSpec {
        name: "crls",
        kind: Kind::Pem,
        fronts: CLI_ONLY,
        doc: "CRLs (PEM or DER) applied to x5c chains.",
    },
    OptionSpec {
        name: "identity",
        kind: Kind::Texts,
        fronts: ALL,
        doc: "A URI SAN (spiffe://TRUST-DOMAIN/PATH) or DNS name the x5c leaf must name (any one given); by default a fetched card's leaf must name its origin's host.",
    },
    OptionSpec {
        name: "identity_prefix",
        kind: Kind::Texts,
        fronts: ALL,
        doc: "A URI SAN prefix ending with / (spiffe://TRUST-DOMAIN/) the x5c leaf's must start with.",
    },
    OptionSpec {
        name: "require_eku",
        kind: Kind::Text,
        fronts: ALL,
        doc: "An extended key usage every x5c leaf must list: codeSigning, serverAuth, clientAuth or a dotted OID.",
    },
    MAX_CHAIN,
    OptionSpec {
        name: "algorithms",
        kind: Kind::List,
        fronts: ALL,
        doc: "The algorithms accepted (none of them HMAC); by default every asymmetric one.",
    },
    OptionSpec {
        name: "mode",
        kind: Kind::Choice(&["require", "all", "if-present"]),
        fronts: ALL,
        doc: "The pass rule: require (one valid signature from a trusted key), all (every signature valid) or if-present (an unsigned card passes, a bad signature fails).",
    },
    OptionSpec {
        name: "profile",
        kind: Kind::Choice(&["spec", "prune-empty", "served-as-is", "a2a-sdk-0.3", "a2a-sdk-0.3.21", "auto"]),
        fronts: LIBRARIES,
        doc: "The profile accepted (auto: every profile).",
    },
    OptionSpec {
        name: "profiles",
        kind: Kind::List,
        fronts: ALL,
        doc: "The profiles accepted, tried in order.",
    },
    UNKNOWN,
    OptionSpec {
        name: "now",
        kind: Kind::Time,
        fronts: LIBRARIES,
        doc: "The time for validity windows, in seconds since the Unix epoch; by default the clock.",
    },
    OptionSpec {
        name: "origin",
        kind: Kind::Text,
        fronts: ALL,
        doc: "The https origin (https://host[:port]) the card was fetched from, for trust entries bound to origins; without it they never match (a fetched card's origin is its URL's).",
    },
    OptionSpec {
        name: "max_signatures",
        kind: count(1, MAX_SIGNATURES_LIMIT, DEFAULT_MAX_SIGNATURES),
        fronts: ALL,
        doc: "Refuse cards with more signatures than this.",
    },
    OptionSpec {
        name: "max_keys_per_kid",
        kind: count(1, MAX_KEYS_PER_KID_LIMIT, DEFAULT_MAX_KEYS_PER_KID),
        fronts: ALL,
        doc: "Refuse a signature whose kid selects more trusted keys than this, trying none.",
    },
    OptionSpec {
        name: "max_signature_checks",
        kind: count(1, MAX_SIGNATURE_CHECKS_LIMIT, DEFAULT_MAX_SIGNATURE_CHECKS),
        fronts: ALL,
        doc: "The most signature checks (one key over one profile's bytes) for the card; the signatures left when they are spent are refused unchecked.",
    },
    OptionSpec {
        name: "max_header_bytes",
        kind: count(1, MAX_HEADER_BYTES_LIMIT, DEFAULT_MAX_HEADER_BYTES),
        fronts: ALL,
        doc: "The largest JWS header of a signature, in bytes (raise it for long x5c chains).",
    },
    MAX_INPUT_BYTES,
    MAX_DEPTH,
    OptionSpec {
        name: "host_crypto",
        kind: Kind::Flag(true),
        fronts: Fronts {
            cli: false,
            npm: true,
            python: false,
        },
        doc: "Check signatures with the host's own crypto where it has it (its native crypto, else WebCrypto for a call that returns a promise); every other check is the library's either way.",
    },
    OptionSpec {
        name: "allow_jku",
        kind: Kind::Texts,
        fronts: CLI_ONLY,
        doc: "URL prefixes under which a fetched card's jku may be fetched.",
    },
];

/// The row of `table` with this canonical name.
pub fn option(table: &'static [OptionSpec], name: &str) -> Option<&'static OptionSpec> {
    table.iter().find(|o| o.name == name)
}

/// The camelCase spelling of a snake_case name (the npm package's).
///
/// ```
/// assert_eq!(a2a_card::request::camel_case("max_keys_per_kid"), "maxKeysPerKid");
/// ```
pub fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}
