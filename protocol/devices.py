"""The messages of a player's devices: passkeys, transfer codes, signing out everywhere and
deleting a player, both directions (``protocol/README.md``, "Your player on every device").

What each reveals, to whom: a player's passkeys (their names and dates) and transfer code
go to that player's own socket only; a sign-in answers ``welcome`` with the player it
proves, never another's data. The binary parts of WebAuthn travel as base64url text, in the
fields the browser's ``PublicKeyCredential`` gives (renamed to snake case).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from .fields import Message, MsEpoch, Name, PlayerId

#: Binary WebAuthn data as unpadded base64url (a frame holds 4096 bytes in all).
B64url = Annotated[str, Field(min_length=1, max_length=2048, pattern=r"^[A-Za-z0-9_-]+$")]
#: A passkey's credential id as base64url (what ``passkeys`` lists as ``id``).
CredentialId = Annotated[str, Field(min_length=16, max_length=1024, pattern=r"^[A-Za-z0-9_-]+$")]
#: A transfer code as typed: 8 letters and digits, dashes and spaces allowed between.
TransferCodeText = Annotated[str, Field(min_length=8, max_length=12, pattern=r"^[A-Za-z0-9 -]+$")]
#: Where the page runs (``location.origin``), for the transfer code's link in its QR code.
PageOrigin = Annotated[str, Field(max_length=200, pattern=r"^https?://[A-Za-z0-9.:\[\]-]+$")]
Transport = Literal["usb", "nfc", "ble", "internal", "hybrid", "smart-card", "cable"]


# -- client to server -----------------------------------------------------------------------


class PasskeyOptions(Message):
    """Ask for the WebAuthn options of a new passkey (``register``, once identified) or of
    a sign-in (``sign_in``, before or after ``hello``). Answered by ``passkey_challenge``;
    its challenge holds for this socket only, for 2 minutes, for one use."""

    type: Literal["passkey_options"]
    purpose: Literal["register", "sign_in"]


class PasskeyAttestation(Message):
    """What ``navigator.credentials.create()`` gave (``PublicKeyCredential``), base64url."""

    id: CredentialId
    client_data: B64url
    attestation_object: B64url
    transports: list[Transport] = Field(default_factory=list, max_length=8)


class PasskeyAssertion(Message):
    """What ``navigator.credentials.get()`` gave (``PublicKeyCredential``), base64url."""

    id: CredentialId
    client_data: B64url
    authenticator_data: B64url
    signature: B64url
    user_handle: B64url | None = None


class PasskeyRegister(Message):
    """Add the passkey just made to your player, with a name you choose. Answered by
    ``passkeys``."""

    type: Literal["passkey_register"]
    credential: PasskeyAttestation
    name: Name = "Passkey"


class PasskeySignIn(Message):
    """Sign in with a passkey: this socket becomes the passkey's player (``welcome`` with a
    new token of theirs). The player this socket was before keeps their results: two
    identities are never merged."""

    type: Literal["passkey_sign_in"]
    credential: PasskeyAssertion


class ListPasskeys(Message):
    """Your passkeys (``passkeys``)."""

    type: Literal["list_passkeys"]


class PasskeyRename(Message):
    """Name one of your passkeys (``passkeys``)."""

    type: Literal["passkey_rename"]
    id: CredentialId
    name: Name


class PasskeyRemove(Message):
    """Remove one of your passkeys: it signs nobody in any more (``passkeys``)."""

    type: Literal["passkey_remove"]
    id: CredentialId


class TransferNew(Message):
    """Make a transfer code for another device (``transfer_code``): it replaces any code you
    had; ``origin`` is the page's, for the link its QR code holds."""

    type: Literal["transfer_new"]
    origin: PageOrigin | None = None


class TransferClaim(Message):
    """Sign this device in with another device's transfer code (``welcome``, as
    ``passkey_sign_in``). A code works once, for 10 minutes."""

    type: Literal["transfer_claim"]
    code: TransferCodeText


class SignOutEverywhere(Message):
    """End every session of your player: every token they had stops working, and this
    socket gets a new one (``welcome``)."""

    type: Literal["sign_out_everywhere"]


class DeletePlayer(Message):
    """Delete your player for good (``player_deleted``); ``player_id`` repeats your id, so
    that no stray message deletes anyone. Not in a room."""

    type: Literal["delete_player"]
    player_id: PlayerId


DEVICE_COMMANDS: tuple[type[Message], ...] = (
    PasskeyOptions,
    PasskeyRegister,
    PasskeySignIn,
    ListPasskeys,
    PasskeyRename,
    PasskeyRemove,
    TransferNew,
    TransferClaim,
    SignOutEverywhere,
    DeletePlayer,
)


# -- server to client -----------------------------------------------------------------------


class PasskeyChallenge(Message):
    """The options to pass to ``navigator.credentials.create()`` (``register``) or
    ``.get()`` (``sign_in``), as JSON with base64url binaries (``options_to_json``)."""

    type: Literal["passkey_challenge"]
    purpose: Literal["register", "sign_in"]
    rp_id: str = Field(max_length=253)
    options: dict[str, Any]


class PasskeyInfo(Message):
    """One of your passkeys: never its key, only what tells it apart."""

    id: CredentialId
    name: Name
    created: MsEpoch
    used: MsEpoch | None = None


class Passkeys(Message):
    """Your passkeys, the newest first (at most 10)."""

    type: Literal["passkeys"]
    passkeys: list[PasskeyInfo] = Field(max_length=10)


class TransferCode(Message):
    """Your transfer code: ``code`` to type on the other device, ``link`` to open there,
    ``qr_svg`` the link as a QR code (an SVG document), valid until ``expires_at``."""

    type: Literal["transfer_code"]
    code: str = Field(pattern=r"^[A-Z0-9]{4}-[A-Z0-9]{4}$")
    link: str | None = Field(default=None, max_length=256)
    qr_svg: str = Field(max_length=60_000)
    expires_at: MsEpoch


class PlayerDeleted(Message):
    """Your player is deleted: forget its token; a ``hello`` without it makes a new one."""

    type: Literal["player_deleted"]


DEVICE_EVENTS: tuple[type[Message], ...] = (
    PasskeyChallenge,
    Passkeys,
    TransferCode,
    PlayerDeleted,
)
