"""a2a-card: canonicalize, sign and verify A2A Agent Cards exactly as A2A v1.0 section 8.4 says.

The same library as the Rust crate (a compiled extension, ``a2a_card._native``), so the same
canonical bytes, the same verdicts, the same error codes and the same report. ``a2a_card.sdk``
plugs it into a2a-sdk: a signer for the card an a2a-sdk server serves, and a signature verifier
hook for an a2a-sdk client.

>>> import a2a_card
>>> kp = a2a_card.keygen("ES256", kid="release-2026")
>>> card = '{"name":"A","description":"","skills":[],"x-note":"hi"}'
>>> signed = a2a_card.sign(card, kp, unknown="exclude")  # x-note: not a v1.0 member, left out
>>> report = a2a_card.verify(signed, jwks=kp.jwks)
>>> report.ok, report.unsigned
(True, ['/x-note'])
>>> report.verified_content
b'{"description":"","name":"A","skills":[]}'
"""

from ._errors import (
    CardError,
    Error,
    HeaderError,
    InvalidKeyError,
    RetrievalError,
    SignatureError,
    UsageError,
)
from ._native import (
    ERROR_CODES,
    MODES,
    PROFILES,
    KeyPair,
    KeyUsed,
    Report,
    SignatureReport,
    Verdict,
    Verifier,
    __version__,
    algorithms,
    canonicalize,
    canonicalize_with_report,
    inspect,
    jwks,
    keygen,
    lint,
    migrate,
    schema,
    sign,
    verify,
    verify_many,
)

__all__ = [
    "canonicalize",
    "canonicalize_with_report",
    "sign",
    "verify",
    "verify_many",
    "Verifier",
    "Report",
    "SignatureReport",
    "KeyUsed",
    "Verdict",
    "inspect",
    "lint",
    "migrate",
    "schema",
    "keygen",
    "KeyPair",
    "jwks",
    "algorithms",
    "PROFILES",
    "MODES",
    "ERROR_CODES",
    "Error",
    "UsageError",
    "CardError",
    "InvalidKeyError",
    "HeaderError",
    "SignatureError",
    "RetrievalError",
    "__version__",
]
