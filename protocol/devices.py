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

from .fields import Message, MsEpoch, Name, PlayerId, RoomId

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
    """Add the passkey just made to your player, with a name you choose; without one it is
    named after the device that made it (browser and system, from its User-Agent: "Chrome
    on Android"). Answered by ``passkeys``."""

    type: Literal["passkey_register"]
    credential: PasskeyAttestation
    name: Name | None = None


class PasskeySignIn(Message):
    """Sign in with a passkey: this socket becomes the passkey's player (``welcome`` with a
    new token of theirs). The player this socket was before keeps their results: two
    identities are never merged. Whatever the socket was doing, it leaves first (as
    ``leave`` would; ``game_left`` says what became of its game). Allowed before ``hello``
    (with ``passkey_options`` of ``sign_in``)."""

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
    ``passkey_sign_in``, leaving what it was doing first). A code works once, for 10
    minutes. A code that fails is ``transfer_unknown`` whether no code starts like it or
    its second half is wrong; ``transfer_used``, ``transfer_expired`` and ``transfer_dead``
    answer only the whole right code."""

    type: Literal["transfer_claim"]
    code: TransferCodeText


class SignOutEverywhere(Message):
    """End every session of your player: every token they had stops working, and this
    socket gets a new one (``welcome``). Every other open socket of theirs, on any
    instance, hears ``signed_out`` at once and may start nothing more."""

    type: Literal["sign_out_everywhere"]


class DeletePlayer(Message):
    """Delete your player for good (``player_deleted``); ``player_id`` repeats your id, so
    that no stray message deletes anyone. The socket leaves its game first (``game_left``);
    the player's other sockets hear ``signed_out``."""

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


class SignedOut(Message):
    """This device was signed out: its player signed out everywhere on another device (or
    was deleted there). The socket left its game as a closed tab would; from now on it may
    only sign in (``transfer_claim``, ``passkey_options``, ``passkey_sign_in``), say
    ``hello`` without a token as a new player, or leave (``leave``, ``unqueue``,
    ``arena_leave``); anything else is refused with ``signed_out``."""

    type: Literal["signed_out"]


class GameLeft(Message):
    """Signing in as another player (or deleting yours) took this socket out of its game as
    ``leave`` would: ``mode`` is the game's, ``given_up`` whether leaving gave it up (a
    running race, the day's daily, a game alone that was begun)."""

    type: Literal["game_left"]
    room_id: RoomId
    mode: Literal["solo", "daily", "race"]
    given_up: bool


DEVICE_EVENTS: tuple[type[Message], ...] = (
    PasskeyChallenge,
    Passkeys,
    TransferCode,
    PlayerDeleted,
    SignedOut,
    GameLeft,
)
