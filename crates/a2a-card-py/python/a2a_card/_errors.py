"""The exceptions of a2a_card: one base class, :class:`Error`, and one subclass per kind of
failure. Every error the package raises is one of them and carries the core library's stable
``code`` (kebab-case, the same codes as the Rust library, the CLI and the npm package), the JSON
Pointer of the member concerned (``pointer``, ``None`` when there is none; ``""`` is the whole
document) and the byte offset in the input (``offset``), where known; an error about a keyword
option names it (``option``, as Python spells it).

>>> import a2a_card
>>> try:
...     a2a_card.canonicalize('{"name":"A","name":"B"}')
... except a2a_card.CardError as e:
...     print(e.code, e.pointer, e.offset)
duplicate-member /name 12
>>> try:
...     a2a_card.verify('{"name":"A"}', keys=a2a_card.keygen("EdDSA"), max_chain=9)
... except a2a_card.UsageError as e:
...     print(e.option, "|", e.message)
max_chain | max_chain must be 1 to 8, got 9
"""

from __future__ import annotations

from typing import Optional

__all__ = [
    "Error",
    "UsageError",
    "CardError",
    "InvalidKeyError",
    "HeaderError",
    "SignatureError",
    "RetrievalError",
]


class Error(ValueError):
    """An a2a-card error: ``code``, ``pointer``, ``offset``, ``message`` and ``option``.

    ``str(error)`` is the message with its place (``... at /a/b (byte 12)``), as the Rust
    library prints it; ``message`` is the sentence alone.
    """

    code: str
    """The stable kebab-case code: ``duplicate-member``, ``invalid-key``, ``usage``, ..."""
    pointer: Optional[str]
    """The JSON Pointer of the offending member (``""`` for the whole document), or None."""
    offset: Optional[int]
    """The byte offset in the input, when known."""
    message: str
    """The sentence describing the problem, without code or place."""
    option: Optional[str]
    """The keyword option the error is about, as Python spells it (``max_chain``), or None."""

    def __init__(
        self,
        text: str,
        code: str = "usage",
        pointer: Optional[str] = None,
        offset: Optional[int] = None,
        message: Optional[str] = None,
        option: Optional[str] = None,
    ) -> None:
        super().__init__(text)
        self.code = code
        self.pointer = pointer
        self.offset = offset
        self.message = text if message is None else message
        self.option = option

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, pointer={self.pointer!r}, message={self.message!r})"

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (type(self), (str(self), self.code, self.pointer, self.offset, self.message, self.option))


class UsageError(Error, TypeError):
    """The arguments cannot be used: an unknown option value, a value of the wrong type, options
    that do not go together, no trust roots (code ``usage``). It is also a ``TypeError``."""


class CardError(Error):
    """The card cannot be read or canonicalized: not I-JSON, a duplicate member, a number out of
    range, too deep, too large, a wrongly typed field, a field under both names, two members of
    a oneof, an unknown member under ``unknown="reject"``, a malformed ``signatures`` member,
    too many signatures, members a signature would leave uncovered (``unsigned-members``, from
    ``sign`` without ``unknown``), a card lint finds errors in (``lint-failed``, from the CLI's
    ``sign --lint error``), a card that already carries a signature with the kid ``sign`` would
    use (``kid-already-signed``, without ``replace`` or ``append``)."""


class InvalidKeyError(Error):
    """A key, JWK Set or trust store cannot be used, or an algorithm does not fit: ``invalid-key``,
    ``encrypted-key``, ``weak-key``, ``jwk-inconsistent``, ``invalid-trust-store``,
    ``too-many-keys``, ``unknown-algorithm``, ``key-algorithm-mismatch``, a certificate or chain
    that cannot be read (``certificate-malformed``) or whose leaf is not the signing key
    (``certificate-key-mismatch``)."""


class HeaderError(Error):
    """A JWS header that breaks the rules (for example a ``crit`` or ``b64`` parameter given to
    ``sign``): ``malformed-header``, ``unsupported-crit``, ``unsupported-b64``,
    ``header-conflict``, ``header-too-large``, ``invalid-base64url``."""


class SignatureError(Error):
    """A signature or policy failure raised outside a report: ``signature-invalid``,
    ``untrusted-key``, ``profile-not-accepted``, ``algorithm-not-allowed``, ``key-expired``,
    ``key-revoked``, ``too-many-checks``, ``external-signature-invalid`` (an external key's signature that does
    not verify), and the x5c verdicts ``certificate-untrusted``, ``certificate-expired``,
    ``certificate-revoked``, ``certificate-identity-mismatch``. ``verify`` reports these as
    verdicts; it does not raise them."""


class RetrievalError(Error):
    """Reading failed (``io``). The Python package reads no file itself; the class exists so
    that every code has one. (The network codes of the Rust fetcher and the external-key codes
    of the Rust keys crate, ``key-unavailable``, ``external-signer-failed``, ``timeout``, are
    those crates'; this package fetches nothing and opens no token.)"""
