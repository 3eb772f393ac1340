"""A software WebAuthn authenticator for server tests: makes a P-256 passkey and signs
assertions as a browser's authenticator would ("none" attestation), so a test can register
and sign in over the real protocol, and forge what an attacker could (another key, another
origin). The browser tests use Chromium's own virtual authenticator instead."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import struct
from dataclasses import dataclass, field
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec


def b64(data: bytes) -> str:
    """Unpadded base64url."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    """From unpadded base64url."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class SoftKey:
    """One passkey: its credential id, its private key and its counter."""

    rp_id: str = "localhost"
    cred_id: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    count: int = 0

    def _cose(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return cbor2.dumps(
            {
                1: 2,
                3: -7,
                -1: 1,
                -2: numbers.x.to_bytes(32, "big"),
                -3: numbers.y.to_bytes(32, "big"),
            }
        )

    def _client_data(
        self, kind: str, challenge: str, origin: str, frame: dict[str, Any] | None = None
    ) -> bytes:
        data = {"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False}
        return json.dumps({**data, **(frame or {})}).encode()

    def register(self, options: dict[str, Any], origin: str) -> dict[str, Any]:
        """The ``credential`` of ``passkey_register`` for these creation options."""
        rp_hash = hashlib.sha256(self.rp_id.encode()).digest()
        attested = bytes(16) + struct.pack(">H", len(self.cred_id)) + self.cred_id + self._cose()
        auth = rp_hash + bytes([0x45]) + struct.pack(">I", self.count) + attested
        att = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth})
        client = self._client_data("webauthn.create", options["challenge"], origin)
        return {"id": b64(self.cred_id), "client_data": b64(client), "attestation_object": b64(att)}

    def sign(
        self,
        options: dict[str, Any],
        origin: str,
        signer: ec.EllipticCurvePrivateKey | None = None,
        frame: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The ``credential`` of ``passkey_sign_in`` for these request options (signed by
        ``signer`` instead of the passkey's own key: a forgery; with ``frame`` over the
        client data, as a browser says an assertion made in a frame: ``crossOrigin``,
        ``topOrigin``)."""
        self.count += 1
        rp_hash = hashlib.sha256(self.rp_id.encode()).digest()
        auth = rp_hash + bytes([0x05]) + struct.pack(">I", self.count)
        client = self._client_data("webauthn.get", options["challenge"], origin, frame)
        signed = auth + hashlib.sha256(client).digest()
        signature = (signer or self.key).sign(signed, ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64(self.cred_id),
            "client_data": b64(client),
            "authenticator_data": b64(auth),
            "signature": b64(signature),
        }
