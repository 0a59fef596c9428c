"""Type stubs of the extension module a2a_card._native (re-exported by a2a_card)."""

from __future__ import annotations

import datetime
from typing import Any, Dict, Iterable, List, Literal, Mapping, Optional, Sequence, TypedDict, Union

from typing_extensions import Unpack

__version__: str
PROFILES: List[str]
MODES: List[str]
ERROR_CODES: List[str]

Profile = Literal["spec", "prune-empty", "served-as-is", "a2a-sdk-0.3", "a2a-sdk-0.3.21"]
"""Which rules turn a card into the bytes a signature covers."""
AcceptedProfile = Literal["spec", "prune-empty", "served-as-is", "a2a-sdk-0.3", "a2a-sdk-0.3.21", "auto"]
Unknown = Literal["exclude", "retain", "reject"]
"""What to do with members the A2A v1.0 schema does not define."""
Mode = Literal["require", "all", "if-present"]
Algorithm = Literal[
    "EdDSA", "ES256", "ES384", "ES512", "ES256K", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512"
]

Card = Union[str, bytes, bytearray, memoryview, Mapping[str, Any]]
"""JSON text, its UTF-8 bytes, or a parsed value (written with json.dumps; a dict cannot hold a
duplicate member name, so pass the text or bytes received when the exact input matters)."""
Key = Union[str, bytes, Mapping[str, Any], "KeyPair"]
"""PEM text, JWK text or a JWK dict, or a KeyPair."""
KeySet = Union[str, bytes, Mapping[str, Any]]
Time = Union[int, float, datetime.datetime]

class CanonicalReport(TypedDict):
    canonical: str
    profile: Profile
    unsigned: List[str]
    sha256: str
    bytes: int

# BEGIN CanonicalizeOptions: written from a2a_card::request::CANONICALIZE by crates/a2a-card/tests/front_stubs.rs
class CanonicalizeOptions(TypedDict, total=False):
    """The keyword options of canonicalize, canonicalize_with_report and inspect (None: not given)."""

    profile: Optional[Literal["spec", "prune-empty", "served-as-is", "a2a-sdk-0.3", "a2a-sdk-0.3.21"]]
    """Which rules produce the bytes: the A2A v1.0 text, the Python and JS SDKs', the Go SDK's, or the a2a-sdk 0.3 signer's (0.3.24 to 0.3.26; a2a-sdk-0.3.21 for 0.3.21 to 0.3.23). Default "spec"."""

    unknown: Optional[Literal["exclude", "retain", "reject"]]
    """Members the schema does not define: exclude (not covered, reported as unsigned), retain (covered) or reject (the card refused). Default "exclude"."""

    max_input_bytes: Optional[int]
    """Refuse cards larger than this many bytes. 1 to 1073741824, default 8388608."""

    max_depth: Optional[int]
    """Refuse cards nested deeper than this. 1 to 512, default 128."""
# END CanonicalizeOptions

def canonicalize(card: Card, **options: Unpack[CanonicalizeOptions]) -> str: ...
def canonicalize_with_report(card: Card, **options: Unpack[CanonicalizeOptions]) -> CanonicalReport: ...
# BEGIN SignOptions: written from a2a_card::request::SIGN by crates/a2a-card/tests/front_stubs.rs
class SignOptions(TypedDict, total=False):
    """The keyword options of sign (None: not given)."""

    profile: Optional[Literal["spec", "prune-empty", "served-as-is", "a2a-sdk-0.3", "a2a-sdk-0.3.21"]]
    """Which rules produce the bytes: the A2A v1.0 text, the Python and JS SDKs', the Go SDK's, or the a2a-sdk 0.3 signer's (0.3.24 to 0.3.26; a2a-sdk-0.3.21 for 0.3.21 to 0.3.23). Default "spec"."""

    unknown: Optional[Literal["exclude", "retain", "reject"]]
    """Members the schema does not define: left unsigned, covered, or the card refused; not given, a card with such members is refused (unsigned-members)."""

    max_input_bytes: Optional[int]
    """Refuse cards larger than this many bytes. 1 to 1073741824, default 8388608."""

    max_depth: Optional[int]
    """Refuse cards nested deeper than this. 1 to 512, default 128."""

    alg: Optional[Algorithm]
    """The algorithm (it must fit the key); by default the key's own."""

    kid: Optional[str]
    """The kid in the protected header; by default the key's (its JWK kid, else its RFC 7638 thumbprint)."""

    jku: Optional[str]
    """A jku to name in the protected header (information for verifiers, never a trust root)."""

    header: Optional[Mapping[str, Any]]
    """Unprotected header parameters, for the entry's header member."""

    protected_header: Optional[Mapping[str, Any]]
    """Further protected header parameters (not alg, kid, typ, jku, crit, b64 or x5c)."""

    x5c: Optional[Union[str, Sequence[str]]]
    """A certificate chain (PEM, the leaf first, then intermediates) for the protected header's x5c; the leaf's key must be the signing key's."""

    max_chain: Optional[int]
    """The most certificates an x5c chain may hold. 1 to 8, default 4."""

    replace: Optional[bool]
    """Replace the signatures whose kid is the new one's; without replace or append, a card already signed under the kid is refused (kid-already-signed). Default false."""

    append: Optional[bool]
    """Keep the signatures whose kid is the new one's and add the new one beside them (not with replace). Default false."""

    also_profiles: Optional[Sequence[Profile]]
    """One more signature, same key and header but for the profile it declares, over each of these profiles' bytes: a transition aid, so that SDK verifiers of today and spec-exact verifiers both find one they check."""

    declare: Optional[bool]
    """Declare in the protected header (urn:a2a-card:canonical) of each signature over other bytes than the specification's (another profile, or unknown members retained) the profile and unknown-member choice of those bytes, so verifiers check it over them only; a signature over the specification's bytes never carries it. Off, no header carries it: each is what other signers write, byte for byte as theirs. Default true."""
# END SignOptions

def sign(card: Card, key: Key, **options: Unpack[SignOptions]) -> str: ...
# BEGIN VerifyOptions: written from a2a_card::request::VERIFY by crates/a2a-card/tests/front_stubs.rs
class VerifyOptions(TypedDict, total=False):
    """The keyword options of verify, verify_many and Verifier (None: not given)."""

    keys: Optional[Union[Key, Sequence[Key]]]
    """Trusted public keys (PEM or JWK; a private key yields its public half)."""

    jwks: Optional[KeySet]
    """Trusted JWK Sets; entries with "use":"enc" are skipped."""

    trust: Optional[KeySet]
    """Trust stores: keys with policy (algorithms, origins, validity window, revoked)."""

    trust_anchors: Optional[Union[str, Sequence[str]]]
    """CA certificates (PEM) trusted as roots for x5c chains."""

    identity: Optional[Union[str, Sequence[str]]]
    """A URI SAN (spiffe://TRUST-DOMAIN/PATH) or DNS name the x5c leaf must name (any one given); by default a fetched card's leaf must name its origin's host."""

    identity_prefix: Optional[Union[str, Sequence[str]]]
    """A URI SAN prefix ending with / (spiffe://TRUST-DOMAIN/) the x5c leaf's must start with."""

    require_eku: Optional[str]
    """An extended key usage every x5c leaf must list: codeSigning, serverAuth, clientAuth or a dotted OID."""

    max_chain: Optional[int]
    """The most certificates an x5c chain may hold. 1 to 8, default 4."""

    algorithms: Optional[Sequence[Algorithm]]
    """The algorithms accepted (none of them HMAC); by default every asymmetric one."""

    mode: Optional[Literal["require", "all", "if-present"]]
    """The pass rule: require (one valid signature from a trusted key), all (every signature valid) or if-present (an unsigned card passes, a bad signature fails). Default "require"."""

    profile: Optional[Literal["spec", "prune-empty", "served-as-is", "a2a-sdk-0.3", "a2a-sdk-0.3.21", "auto"]]
    """The profile accepted (auto: every profile). Default "spec"."""

    profiles: Optional[Sequence[AcceptedProfile]]
    """The profiles accepted, tried in order."""

    unknown: Optional[Literal["exclude", "retain", "reject"]]
    """Members the schema does not define: exclude (not covered, reported as unsigned), retain (covered) or reject (the card refused). Default "exclude"."""

    now: Optional[Time]
    """The time for validity windows, in seconds since the Unix epoch; by default the clock."""

    origin: Optional[str]
    """The https origin (https://host[:port]) the card was fetched from, for trust entries bound to origins; without it they never match (a fetched card's origin is its URL's)."""

    max_signatures: Optional[int]
    """Refuse cards with more signatures than this. 1 to 256, default 16."""

    max_keys_per_kid: Optional[int]
    """Refuse a signature whose kid selects more trusted keys than this, trying none. 1 to 256, default 4."""

    max_signature_checks: Optional[int]
    """The most signature checks (one key over one profile's bytes) for the card; the signatures left when they are spent are refused unchecked. 1 to 4096, default 64."""

    max_header_bytes: Optional[int]
    """The largest JWS header of a signature, in bytes (raise it for long x5c chains). 1 to 1048576, default 4096."""

    max_input_bytes: Optional[int]
    """Refuse cards larger than this many bytes. 1 to 1073741824, default 8388608."""

    max_depth: Optional[int]
    """Refuse cards nested deeper than this. 1 to 512, default 128."""
# END VerifyOptions

def verify(card: Card, **options: Unpack[VerifyOptions]) -> Report: ...
def verify_many(
    cards: Iterable[Card],
    *,
    threads: Optional[int] = None,
    return_exceptions: bool = False,
    **options: Unpack[VerifyOptions],
) -> List[Any]:
    """A list of Report (and, with return_exceptions=True, a2a_card.Error for unreadable cards)."""

class Verifier:
    def __init__(self, **options: Unpack[VerifyOptions]) -> None: ...
    def verify(self, card: Card, *, now: Optional[Time] = None, origin: Optional[str] = None) -> Report: ...
    def verify_many(
        self,
        cards: Iterable[Card],
        *,
        threads: Optional[int] = None,
        return_exceptions: bool = False,
        now: Optional[Time] = None,
        origin: Optional[str] = None,
    ) -> List[Any]: ...
    @property
    def key_count(self) -> int: ...
    @property
    def anchor_count(self) -> int: ...

class Verdict:
    @property
    def code(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def pointer(self) -> Optional[str]: ...
    def is_valid(self) -> bool: ...

class KeyUsed:
    @property
    def kid(self) -> str: ...
    @property
    def thumbprint(self) -> str: ...
    @property
    def source(self) -> str: ...

class SignatureReport:
    @property
    def index(self) -> int: ...
    @property
    def kid(self) -> Optional[str]: ...
    @property
    def alg(self) -> Optional[str]: ...
    @property
    def jku(self) -> Optional[str]: ...
    @property
    def key(self) -> Optional[KeyUsed]: ...
    @property
    def certificate(self) -> Optional[Dict[str, Any]]: ...
    @property
    def profile(self) -> Optional[Profile]: ...
    @property
    def verdict(self) -> Verdict: ...

class Report:
    @property
    def ok(self) -> bool: ...
    @property
    def mode(self) -> Mode: ...
    @property
    def reason(self) -> str: ...
    @property
    def profile(self) -> Profile: ...
    @property
    def canonical(self) -> bytes: ...
    @property
    def canonical_sha256(self) -> str: ...
    @property
    def unsigned(self) -> List[str]: ...
    @property
    def did_you_mean(self) -> Optional[List[Dict[str, str]]]: ...
    @property
    def signatures(self) -> List[SignatureReport]: ...
    @property
    def verified_content(self) -> Optional[bytes]: ...
    def to_json(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def to_text(self, card: Optional[str] = None) -> str: ...

class KeyPair:
    @property
    def kid(self) -> str: ...
    @property
    def alg(self) -> Algorithm: ...
    @property
    def key_type(self) -> str: ...
    @property
    def private_pem(self) -> str: ...
    @property
    def private_jwk(self) -> Dict[str, Any]: ...
    @property
    def public_jwk(self) -> Dict[str, Any]: ...
    @property
    def jwks(self) -> Dict[str, Any]: ...

def inspect(card: Card, **options: Unpack[CanonicalizeOptions]) -> Dict[str, Any]: ...

# BEGIN LintOptions: written from a2a_card::request::LINT by crates/a2a-card/tests/front_stubs.rs
class LintOptions(TypedDict, total=False):
    """The keyword options of lint (None: not given)."""

    max_input_bytes: Optional[int]
    """Refuse cards larger than this many bytes. 1 to 1073741824, default 8388608."""

    max_depth: Optional[int]
    """Refuse cards nested deeper than this. 1 to 512, default 128."""
# END LintOptions

def lint(card: Card, **options: Unpack[LintOptions]) -> Dict[str, Any]: ...

# BEGIN MigrateOptions: written from a2a_card::request::MIGRATE by crates/a2a-card/tests/front_stubs.rs
class MigrateOptions(TypedDict, total=False):
    """The keyword options of migrate (None: not given)."""

    protocol_version: Optional[str]
    """The protocolVersion of every interface; by default the 0.3 card's own, as Major.Minor."""

    max_input_bytes: Optional[int]
    """Refuse cards larger than this many bytes. 1 to 1073741824, default 8388608."""

    max_depth: Optional[int]
    """Refuse cards nested deeper than this. 1 to 512, default 128."""
# END MigrateOptions

def migrate(card: Card, **options: Unpack[MigrateOptions]) -> Dict[str, Any]: ...
def schema(draft: Literal["2020-12", "07"] = "2020-12") -> Dict[str, Any]: ...
def keygen(
    alg: Algorithm = "ES256",
    *,
    kid: Optional[str] = None,
    rsa_bits: Optional[Literal[2048, 3072, 4096]] = None,
    curve: Optional[Literal["Ed25519", "Ed448"]] = None,
) -> KeyPair: ...
def jwks(*keys: Key) -> Dict[str, Any]: ...
def algorithms() -> List[Algorithm]: ...
def _error_class_for(code: str) -> type: ...
