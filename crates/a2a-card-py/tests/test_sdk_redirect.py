"""The origin of a card fetched through a2a_card.sdk.CardVerifier is the origin that was
requested, kept across redirects: real loopback HTTPS servers (uvicorn, a certificate made here
for 127.0.0.1 and 127.0.0.2), the card's URL on the first answering with a redirect to the
second, a2a-sdk's A2ACardResolver following it with the verifier's httpx client. A key the trust
store binds to the second origin only does not sign for a card requested from the first (the
CLI refuses the same URL with untrusted-key); a key bound to the first does."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import json
import ssl
from typing import Any, Tuple

import pytest
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

import a2a_card
from a2a.client import A2ACardResolver
from a2a_card.sdk import CardInvalidError, CardSigner, CardVerifier
from test_sdk import CARD_PATH, free_port, make_card, serve


def tls_files(tmp: Any) -> Tuple[str, str, str]:
    """A CA and a server certificate for 127.0.0.1 and 127.0.0.2: (ca.pem, cert.pem, key.pem)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "a2a-card test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.IPAddress(ipaddress.ip_address("127.0.0.2"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    paths = (str(tmp / "ca.pem"), str(tmp / "cert.pem"), str(tmp / "key.pem"))
    with open(paths[0], "wb") as f:
        f.write(ca.public_bytes(serialization.Encoding.PEM))
    with open(paths[1], "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(paths[2], "wb") as f:
        f.write(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
    return paths


def test_a_redirect_to_another_origin_keeps_the_requested_origin(tmp_path: Any) -> None:
    kp = a2a_card.keygen("ES256", kid="release-2026")
    ca, cert, key = tls_files(tmp_path)
    first, second = free_port(), free_port()
    requested, target = f"https://127.0.0.1:{first}", f"https://127.0.0.2:{second}"
    signed = json.dumps(CardSigner(kp).sign(make_card(target))).encode()

    async def redirect(request: Any) -> Response:
        # Two hops: the card's path to /hop (same origin), /hop to the other origin.
        if request.url.path == CARD_PATH:
            return RedirectResponse(requested + "/hop", status_code=301)
        return RedirectResponse(target + "/acard", status_code=302)

    async def card(request: Any) -> Response:
        del request
        return Response(signed, media_type="application/json")

    def bound_to(origin: str) -> dict:
        return {"keys": [{"jwk": kp.public_jwk, "origins": [origin]}]}

    tls = ssl.create_default_context(cafile=ca)

    async def main() -> None:
        routes = [Route(CARD_PATH, redirect), Route("/hop", redirect)]
        async with serve(routes, first, "127.0.0.1", cert, key):
            async with serve([Route("/acard", card)], second, "127.0.0.2", cert, key):
                # A key bound to the redirect target's origin only: refused.
                verifier = CardVerifier(trust=bound_to(target))
                async with verifier.httpx_client(verify=tls, follow_redirects=True) as http:
                    with pytest.raises(CardInvalidError) as e:
                        await A2ACardResolver(http, requested).get_agent_card(signature_verifier=verifier)
                    assert [s.verdict.code for s in e.value.report.signatures] == ["untrusted-key"]
                    assert e.value.report.verified_content is None
                    # One hop as well.
                    with pytest.raises(CardInvalidError):
                        await A2ACardResolver(http, requested, agent_card_path="/hop").get_agent_card(
                            signature_verifier=verifier
                        )
                # A key bound to the origin that was requested: accepted, the redirect changes
                # nothing.
                verifier = CardVerifier(trust=bound_to(requested))
                async with verifier.httpx_client(verify=tls, follow_redirects=True) as http:
                    got = await A2ACardResolver(http, requested).get_agent_card(signature_verifier=verifier)
                    assert got.name == "Recipe Agent" and verifier.last_report.ok
                    # Asked for at the second origin itself, the card is that origin's.
                    with pytest.raises(CardInvalidError):
                        await A2ACardResolver(http, target, agent_card_path="/acard").get_agent_card(
                            signature_verifier=verifier
                        )
                # Without a redirect, the target's own key signs for the target.
                verifier = CardVerifier(trust=bound_to(target))
                async with verifier.httpx_client(verify=tls) as http:
                    await A2ACardResolver(http, target, agent_card_path="/acard").get_agent_card(
                        signature_verifier=verifier
                    )
                    assert verifier.last_report.ok

    asyncio.run(main())
