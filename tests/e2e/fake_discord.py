"""A local stand-in for Discord: REST API, interaction webhooks and the gateway.

:class:`FakeDiscord` is an aiohttp server on 127.0.0.1 that a real discord.py
bot (redirected by :mod:`tests.e2e.launcher`) logs in to, syncs its commands with,
connects its gateway websocket to and answers interactions through. Tests
drive it as the users would: :meth:`FakeDiscord.slash`, :meth:`FakeDiscord.click`,
:meth:`FakeDiscord.autocomplete` dispatch ``INTERACTION_CREATE`` and return an
:class:`Interaction` record that collects everything the bot does with it.

Discord's rules are enforced and answered with Discord's error codes:

* the first response must arrive within 3 s of the dispatch (else 404, code 10062
  Unknown interaction), and only once (400, code 40060 already acknowledged);
* follow-ups and ``@original`` need an acknowledged interaction (404, 10015 Unknown
  Webhook) and a token younger than 15 minutes (401, 50027 Invalid Webhook Token);
* message limits (content, embeds, components, select options, choices,
  ``allowed_mentions``) give 400, code 50035 Invalid Form Body, with Discord's nested ``errors``;
  an attachment over 25 MiB gives 413, code 40005 Request entity too large;
* REST calls need ``Authorization: Bot <token>`` (401, code 0).

Every refusal is appended to :attr:`FakeDiscord.violations` (tests assert it
stays empty); every route the stand-in lacks answers 404 and lands in
:attr:`FakeDiscord.unhandled`. Whom each new message notifies (its mentions that
``allowed_mentions`` lets through, :func:`e2e.limits.pinged`) is kept in
:attr:`FakeDiscord.pings`. With :attr:`FakeDiscord.record_received` on (for some channels or all), every
text a member receives (a public message as it is posted or edited, for everyone
in its channel; an ephemeral one for its member alone) is kept in
:attr:`FakeDiscord.received`, with the instant it arrived.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import WSMsgType, web

from tests.e2e import limits, payloads
from tests.e2e.payloads import APPLICATION_COMMAND, AUTOCOMPLETE, MESSAGE_COMPONENT

log = logging.getLogger("fake_discord")

ACK_DEADLINE = 3.0
TOKEN_LIFETIME = 15 * 60
EPHEMERAL = 1 << 6
LOADING = 1 << 7
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# Interaction callback types
PONG, CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, AUTOCOMPLETE_RESULT, MODAL = (
    1,
    4,
    5,
    6,
    7,
    8,
    9,
)

# Gateway opcodes
(
    DISPATCH,
    HEARTBEAT,
    IDENTIFY,
    PRESENCE,
    VOICE,
    RESUME,
    RECONNECT,
    REQUEST_MEMBERS,
    INVALID_SESSION,
    HELLO,
    HEARTBEAT_ACK,
) = (
    0,
    1,
    2,
    3,
    4,
    6,
    7,
    8,
    9,
    10,
    11,
)


GUILD_MESSAGES = 1 << 9
INTENT_OF = {"MESSAGE_CREATE": GUILD_MESSAGES, "MESSAGE_UPDATE": GUILD_MESSAGES, "MESSAGE_DELETE": GUILD_MESSAGES}
"""Gateway events sent only to a bot that identified with the intent (all channels here are in a guild)."""


class DiscordError(Exception):
    """An error answer: HTTP status, Discord code and message (and form ``errors``)."""

    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, Any]:
        data: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            data["errors"] = self.errors
        return data


def to_json(data: Any) -> str:
    """JSON text (orjson: the stand-in shares the machine with the bot it measures)."""
    return orjson.dumps(data).decode()


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """A JSON answer whose Content-Type is exactly ``application/json`` (discord.py insists)."""
    all_headers = {"Content-Type": "application/json"}
    all_headers.update(headers or {})
    return web.Response(body=orjson.dumps(data), status=status, headers=all_headers)


_BOUNDARY = re.compile(r'boundary="?([^";]+)"?')
_DISPOSITION = re.compile(rb'\bname="([^"]*)"(?:; filename="([^"]*)")?')


def split_multipart(content_type: str, body: bytes) -> list[tuple[str, str | None, bytes]]:
    """The parts of a ``multipart/form-data`` body: (field name, file name, bytes).

    A plain split on the boundary: aiohttp's general reader parses every part's
    headers with the email package, which made the stand-in the load test's
    second-biggest CPU user on a machine the bot shares.
    """
    found = _BOUNDARY.search(content_type)
    if found is None:
        raise DiscordError(400, 50035, "Invalid Form Body", {"_errors": ["multipart body without a boundary"]})
    delimiter = b"--" + found[1].encode()
    parts = []
    for chunk in body.split(delimiter)[1:]:
        if chunk.startswith(b"--"):
            break  # the closing delimiter
        head, _, data = chunk.partition(b"\r\n\r\n")
        disposition = _DISPOSITION.search(head)
        if disposition is None:
            continue
        filename = disposition[2].decode() if disposition[2] is not None else None
        parts.append((disposition[1].decode(), filename, data.removesuffix(b"\r\n")))
    return parts


class Notifier:
    """Wakes waiters when something they watch changes."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def touch(self) -> None:
        self._event.set()
        self._event = asyncio.Event()

    async def until(
        self,
        predicate: Callable[[], Any],
        timeout: float,
        what: str,
        diagnostics: Callable[[], str],
        poll: float | None = None,
    ) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"timed out after {timeout:.1f} s waiting for {what}\n{diagnostics()}")
            event = self._event
            try:
                # a timeout scope, not wait_for: no task per wait (the load bench waits some 100,000 times)
                async with asyncio.timeout(remaining if poll is None else min(poll, remaining)):
                    await event.wait()
            except TimeoutError:
                pass


@dataclass
class Interaction:
    """One interaction, as the stand-in saw the bot handle it."""

    id: int
    token: str
    type: int
    user_id: int
    channel_id: int
    payload: dict[str, Any]
    message_id: int | None = None
    """The message a component was on."""
    dispatched_at: float = 0.0
    responded_at: float | None = None
    response_type: int | None = None
    response_data: dict[str, Any] | None = None
    late: bool = False
    original_id: int | None = None
    """The message @original refers to."""
    messages: list[int] = field(default_factory=list)
    """Messages created for this interaction (the response message and follow-ups), in order."""
    board_at: float | None = None
    """When a PNG first reached Discord for this interaction (posted or edited in)."""
    last_activity: float = 0.0
    calls: list[tuple[float, str]] = field(default_factory=list)

    @property
    def first_response_latency(self) -> float | None:
        return None if self.responded_at is None else self.responded_at - self.dispatched_at

    @property
    def board_latency(self) -> float | None:
        return None if self.board_at is None else self.board_at - self.dispatched_at


@dataclass(frozen=True, slots=True)
class Received:
    """A text that reached members: a message as it was posted or edited."""

    at: float
    """When (``time.monotonic()``)."""
    recipient: int | None
    """The member an ephemeral message is for; None: everyone who reads the channel."""
    channel_id: int
    message_id: int
    text: str
    """Its content, embeds' texts and components' labels, placeholders and options, one per line."""


def readable_text(message: dict[str, Any]) -> str:
    """Everything a member reads in ``message``: content, embeds, components' words."""
    texts = [message.get("content") or ""]
    for embed in message.get("embeds") or []:
        texts += [embed.get("title") or "", embed.get("description") or ""]
        texts.append((embed.get("footer") or {}).get("text") or "")
        texts += [f"{f.get('name', '')} {f.get('value', '')}" for f in embed.get("fields") or []]
    for row in message.get("components") or []:
        for item in row.get("components") or []:
            texts += [item.get("label") or "", item.get("placeholder") or ""]
            texts += [o.get("label") or "" for o in item.get("options") or []]
    return "\n".join(t for t in texts if t)


@dataclass
class Session:
    id: str
    seq: int = 0
    sent: list[tuple[int, str]] = field(default_factory=list)
    """Dispatches with their sequence numbers (replayed on RESUME)."""


@dataclass
class HoldRule:
    """REST calls whose answer is held back after their effect (a crash right after the post)."""

    method: str
    pattern: re.Pattern[str]
    released: asyncio.Event = field(default_factory=asyncio.Event)
    held: list[str] = field(default_factory=list)
    """``METHOD path`` of each call held so far."""

    def release(self) -> None:
        self.released.set()


@dataclass
class RateLimitRule:
    method: str
    pattern: re.Pattern[str]
    retry_after: float
    remaining: int = 1
    hits: list[float] = field(default_factory=list)
    retried: list[float] = field(default_factory=list)
    is_global: bool = False


class FakeDiscord:
    """The stand-in. ``await FakeDiscord().start()``, then add users/channels, then run the bot."""

    def __init__(self, *, token: str = "fake-bot-token.e2e", heartbeat_interval: int = 41250) -> None:
        self.snowflake = payloads.Snowflakes()
        self.token = token
        self.heartbeat_interval = heartbeat_interval
        self.application_id = self.snowflake()
        self.owner = payloads.user(self.snowflake(), "owner")
        self.bot_user = payloads.user(self.application_id, "backgammon", bot=True)
        self.guild_id = self.snowflake()
        self.channels: dict[int, dict[str, Any]] = {}
        self.users: dict[int, dict[str, Any]] = {}
        self.member_permissions: dict[int, str] = {}
        self.nicks: dict[int, str] = {}
        self.thread_members: dict[int, set[int]] = {}
        """Members of each private thread."""
        self.pings: dict[int, dict[str, Any]] = {}
        """Message id -> whom it notified when it appeared (``users``, ``roles``, ``everyone``) and its ``allowed_mentions``."""
        self.messages: dict[int, dict[str, Any]] = {}
        self.record_received: bool | set[int] = False
        """Keep :attr:`received`: for every channel (True), or for these channels' ids (off by
        default: it costs the stand-in a little per message)."""
        self.received: list[Received] = []
        """Every text members received, in order (with :attr:`record_received` on)."""
        self.channel_messages: dict[int, list[int]] = {}
        self._controlled: dict[int, set[int]] = {}
        """channel id -> its public messages carrying components (:meth:`with_components`)."""
        self.files: dict[int, bytes] = {}
        self.interactions: dict[int, Interaction] = {}
        self.by_token: dict[str, Interaction] = {}
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self.command_puts: list[tuple[int | None, list[dict[str, Any]]]] = []
        self.requests: list[tuple[float, str, str, int]] = []
        self.violations: list[tuple[str, str, dict[str, Any]]] = []
        self.unhandled: list[str] = []
        self.gateway_log: list[tuple[float, str, Any]] = []
        self.identifies: list[dict[str, Any]] = []
        self.resumes: list[dict[str, Any]] = []
        self.heartbeats = 0
        self.session: Session | None = None
        self.ws: web.WebSocketResponse | None = None
        self.rate_limits: list[RateLimitRule] = []
        self.holds: list[HoldRule] = []
        self.changed = Notifier()
        self.channel_changed: dict[int, Notifier] = {}
        """Per-channel notifiers, so that hundreds of concurrent games do not wake each other."""
        self.diagnostics: Callable[[], str] = lambda: ""
        self._runner: web.AppRunner | None = None
        self._ws_tasks: set[asyncio.Task[Any]] = set()
        self.port = 0
        self.add_channel("general")

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self, port: int = 0) -> FakeDiscord:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self.gateway)
        app.router.add_get("/attachments/{channel}/{attachment}/{filename}", self.cdn)
        app.router.add_route("*", "/api/v10/{tail:.*}", self.rest)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def stop(self) -> None:
        if self.ws is not None and not self.ws.closed:
            await self.ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    # -- the world ---------------------------------------------------------------------------

    def add_user(
        self, name: str, *, permissions: str = payloads.MEMBER_PERMISSIONS, nick: str | None = None
    ) -> dict[str, Any]:
        user = payloads.user(self.snowflake(), name)
        self.users[int(user["id"])] = user
        self.member_permissions[int(user["id"])] = permissions
        if nick is not None:
            self.nicks[int(user["id"])] = nick
        return user

    def add_private_thread(
        self, parent: dict[str, Any], name: str, owner: dict[str, Any], members: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """A private thread under ``parent`` made by ``owner``, with ``members`` and the bot added."""
        thread = payloads.thread_channel(
            self.snowflake(), self.guild_id, int(parent["id"]), name, int(owner["id"]), private=True
        )
        thread_id = int(thread["id"])
        self.channels[thread_id] = thread
        self.channel_messages[thread_id] = []
        self.thread_members[thread_id] = {int(owner["id"]), self.application_id, *(int(m["id"]) for m in members)}
        if self.session is not None:
            self._spawn(self.dispatch("THREAD_CREATE", {**thread, "newly_created": True}))
        return thread

    def add_channel(self, name: str) -> dict[str, Any]:
        channel = payloads.text_channel(self.snowflake(), self.guild_id, name, position=len(self.channels))
        self.channels[int(channel["id"])] = channel
        self.channel_messages[int(channel["id"])] = []
        if self.session is not None:
            self._spawn(self.dispatch("CHANNEL_CREATE", channel))
        return channel

    @property
    def general(self) -> dict[str, Any]:
        return next(iter(self.channels.values()))

    def member_of(self, user: dict[str, Any], *, with_user: bool = True) -> dict[str, Any]:
        return payloads.member(
            user,
            permissions=self.member_permissions.get(int(user["id"])),
            with_user=with_user,
            nick=self.nicks.get(int(user["id"])),
        )

    def guild_payload(self) -> dict[str, Any]:
        bot_member = payloads.member(self.bot_user)
        channels = [c for c in self.channels.values() if c["type"] != 11]
        return payloads.guild(self.guild_id, "Backgammon Club", int(self.owner["id"]), channels, bot_member)

    # -- waiting -----------------------------------------------------------------------------

    async def wait_for(
        self,
        predicate: Callable[[], Any],
        timeout: float = 10.0,
        what: str = "a condition",
        poll: float | None = None,
        channel: dict[str, Any] | int | None = None,
    ) -> Any:
        """Wait until ``predicate()`` is true; it is re-checked on every change (of ``channel`` only, if
        given) and every ``poll`` seconds if given. On timeout the error shows the stand-in's and the bot's state."""
        notifier = self.changed if channel is None else self._notifier(channel)
        return await notifier.until(predicate, timeout, what, self.describe, poll)

    def _notifier(self, channel: dict[str, Any] | int) -> Notifier:
        channel_id = int(channel["id"]) if isinstance(channel, dict) else int(channel)
        notifier = self.channel_changed.get(channel_id)
        if notifier is None:
            notifier = self.channel_changed[channel_id] = Notifier()
        return notifier

    async def wait_ready(self, timeout: float = 20.0) -> None:
        await self.wait_for(lambda: self.session is not None and self.ws is not None, timeout, "the bot to IDENTIFY")

    def describe(self) -> str:
        lines = ["--- fake discord ---"]
        lines += [f"violation: {v[0]} {v[1]} {json.dumps(v[2])[:300]}" for v in self.violations[-10:]]
        lines += [f"unhandled: {u}" for u in self.unhandled[-10:]]
        lines += [f"request: {r[1]} {r[2]} -> {r[3]}" for r in self.requests[-15:]]
        extra = self.diagnostics()
        if extra:
            lines.append("--- bot stderr (tail) ---")
            lines.append(extra)
        return "\n".join(lines)

    def _touch(self, inter: Interaction | None = None, channel_id: int | None = None) -> None:
        if inter is not None:
            inter.last_activity = time.monotonic()
            channel_id = inter.channel_id
        if channel_id is not None:
            self._notifier(channel_id).touch()
        self.changed.touch()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._ws_tasks.add(task)
        task.add_done_callback(self._ws_tasks.discard)

    # -- gateway -------------------------------------------------------------------------------

    async def gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True, max_msg_size=16 * 1024 * 1024)
        await ws.prepare(request)
        self.gateway_log.append((time.monotonic(), "connect", dict(request.query)))
        await ws.send_str(
            to_json({"op": HELLO, "d": {"heartbeat_interval": self.heartbeat_interval}, "s": None, "t": None})
        )
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                data = orjson.loads(msg.data)
                op, d = data.get("op"), data.get("d")
                self.gateway_log.append((time.monotonic(), f"op{op}", d if op != IDENTIFY else "identify"))
                if op == HEARTBEAT:
                    self.heartbeats += 1
                    await ws.send_str(to_json({"op": HEARTBEAT_ACK, "d": None, "s": None, "t": None}))
                elif op == IDENTIFY:
                    await self._identify(ws, d)
                elif op == RESUME:
                    await self._resume(ws, d)
                elif op == REQUEST_MEMBERS:
                    await self._send_dispatch(
                        "GUILD_MEMBERS_CHUNK",
                        {
                            "guild_id": str(self.guild_id),
                            "members": [],
                            "chunk_index": 0,
                            "chunk_count": 1,
                            "nonce": d.get("nonce"),
                        },
                    )
                self._touch()
        finally:
            self.gateway_log.append((time.monotonic(), "disconnect", ws.close_code))
            if self.ws is ws:
                self.ws = None
            self._touch()
        return ws

    async def _identify(self, ws: web.WebSocketResponse, d: dict[str, Any]) -> None:
        if d.get("token") not in (self.token, f"Bot {self.token}"):
            await ws.close(code=4004, message=b"Authentication failed.")
            return
        self.identifies.append({k: v for k, v in d.items() if k != "token"})
        self.session = Session(id=secrets.token_hex(16))
        self.ws = ws
        ready = {
            "v": 10,
            "user": self.bot_user,
            "guilds": [{"id": str(self.guild_id), "unavailable": True}],
            "session_id": self.session.id,
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "user_settings": {},
            "shard": [0, 1],
        }
        await self._send_dispatch("READY", ready)
        await self._send_dispatch("GUILD_CREATE", self.guild_payload())

    async def _resume(self, ws: web.WebSocketResponse, d: dict[str, Any]) -> None:
        self.resumes.append({k: v for k, v in d.items() if k != "token"})
        session = self.session
        if (
            session is None
            or d.get("session_id") != session.id
            or d.get("token") not in (self.token, f"Bot {self.token}")
        ):
            await ws.send_str(to_json({"op": INVALID_SESSION, "d": False, "s": None, "t": None}))
            return
        self.ws = ws
        last = d.get("seq") or 0
        for seq, text in session.sent:
            if seq > last:
                await ws.send_str(text)
        await self._send_dispatch("RESUMED", {})

    async def _send_dispatch(self, event: str, data: Any) -> float:
        """Number, remember and (if connected) send a dispatch; returns the send time."""
        session = self.session
        assert session is not None, "no gateway session"
        session.seq += 1
        text = to_json({"op": DISPATCH, "t": event, "s": session.seq, "d": data})
        session.sent.append((session.seq, text))
        if len(session.sent) > 5000:
            del session.sent[:1000]
        sent_at = time.monotonic()
        ws = self.ws
        if ws is not None and not ws.closed:
            try:
                await ws.send_str(text)
            except (ConnectionError, RuntimeError):
                pass  # the bot gets it on RESUME
        return sent_at

    async def dispatch(self, event: str, data: Any) -> float:
        if event in INTENT_OF and not self._intents & INTENT_OF[event]:
            return time.monotonic()  # like Discord: events of intents the bot did not ask for are not sent
        return await self._send_dispatch(event, data)

    @property
    def _intents(self) -> int:
        return int(self.identifies[-1].get("intents", 0)) if self.identifies else 0

    async def drop_gateway(self, code: int = 4000) -> None:
        """Close the bot's websocket with ``code`` (4000 and friends are resumable)."""
        ws = self.ws
        assert ws is not None, "the bot is not connected"
        self.ws = None
        await ws.close(code=code, message=b"stand-in closed the connection")
        self._touch()

    async def send_reconnect(self) -> None:
        """op 7 RECONNECT: Discord asks the bot to reconnect and resume."""
        assert self.ws is not None
        await self.ws.send_str(to_json({"op": RECONNECT, "d": None, "s": None, "t": None}))

    # -- driving the bot like users do ----------------------------------------------------------

    def commands(self) -> list[dict[str, Any]]:
        return self.guild_commands.get(self.guild_id) or self.global_commands

    def find_command(self, path: str) -> tuple[dict[str, Any], list[str], dict[str, Any]]:
        """(top-level command, sub-command names, the leaf whose options apply) for ``"bg move"``."""
        parts = path.split()
        top = next((c for c in self.commands() if c["name"] == parts[0] and c.get("type", 1) == 1), None)
        if top is None:
            raise AssertionError(f"/{parts[0]} is not synced; synced: {[c['name'] for c in self.commands()]}")
        leaf = top
        for part in parts[1:]:
            sub = next((o for o in leaf.get("options", []) if o["name"] == part and o["type"] in (1, 2)), None)
            if sub is None:
                raise AssertionError(
                    f"/{path}: no sub-command {part!r} in {[o['name'] for o in leaf.get('options', [])]}"
                )
            leaf = sub
        return top, parts[1:], leaf

    def _option_values(
        self, leaf: dict[str, Any], options: dict[str, Any], focused: str | None
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        known = {o["name"]: o for o in leaf.get("options", [])}
        resolved: dict[str, Any] = {}
        values = []
        for name, value in options.items():
            spec = known.get(name)
            if spec is None:
                raise AssertionError(f"no option {name!r}; options: {sorted(known)}")
            kind = spec["type"]
            entry: dict[str, Any] = {"name": name, "type": kind}
            if kind in (payloads.USER, payloads.MENTIONABLE):
                user = value if isinstance(value, dict) else self.users[int(value)]
                entry["value"] = user["id"]
                resolved.setdefault("users", {})[user["id"]] = user
                member = self.member_of(user, with_user=False)
                resolved.setdefault("members", {})[user["id"]] = member
            elif kind == payloads.CHANNEL:
                channel = value if isinstance(value, dict) else self.channels[int(value)]
                entry["value"] = channel["id"]
                resolved.setdefault("channels", {})[channel["id"]] = {
                    "id": channel["id"],
                    "type": channel["type"],
                    "name": channel["name"],
                    "permissions": payloads.ALL_PERMISSIONS,
                }
            else:
                entry["value"] = value
            if name == focused:
                entry["focused"] = True
            values.append(entry)
        if focused is None:
            missing = [o["name"] for o in leaf.get("options", []) if o.get("required") and o["name"] not in options]
            if missing:
                raise AssertionError(f"required options missing: {missing}")
        return values, resolved

    def _command_data(self, path: str, options: dict[str, Any], focused: str | None = None) -> dict[str, Any]:
        top, subs, leaf = self.find_command(path)
        values, resolved = self._option_values(leaf, options, focused)
        for sub in reversed(subs):
            kind = 1 if sub == subs[-1] else 2
            values = [{"name": sub, "type": kind, "options": values}]
        data: dict[str, Any] = {"id": top["id"], "name": top["name"], "type": 1, "options": values}
        if resolved:
            data["resolved"] = resolved
        if top.get("guild_id"):
            data["guild_id"] = top["guild_id"]
        return data

    async def _dispatch_interaction(
        self,
        kind: int,
        user: dict[str, Any],
        channel: dict[str, Any],
        data: dict[str, Any],
        message: dict[str, Any] | None = None,
    ) -> Interaction:
        inter_id = self.snowflake()
        token = f"aW50ZXJhY3Rpb246{inter_id}:{secrets.token_urlsafe(24)}"
        payload = payloads.interaction(
            interaction_id=inter_id,
            application_id=self.application_id,
            interaction_type=kind,
            token=token,
            guild_id=self.guild_id,
            channel=channel,
            member_obj=self.member_of(user),
            data=data,
            message_obj=message,
        )
        inter = Interaction(
            id=inter_id,
            token=token,
            type=kind,
            user_id=int(user["id"]),
            channel_id=int(channel["id"]),
            payload=payload,
            message_id=int(message["id"]) if message else None,
        )
        if message is not None:
            inter.original_id = int(message["id"])
        self.interactions[inter_id] = inter
        self.by_token[token] = inter
        inter.dispatched_at = time.monotonic()
        inter.last_activity = inter.dispatched_at
        inter.dispatched_at = await self._send_dispatch("INTERACTION_CREATE", payload)
        return inter

    async def slash(self, user: dict[str, Any], channel: dict[str, Any], path: str, **options: Any) -> Interaction:
        """A user runs ``/path`` (e.g. ``"bg challenge"``) with options, validated against the synced schema."""
        return await self._dispatch_interaction(APPLICATION_COMMAND, user, channel, self._command_data(path, options))

    async def autocomplete(
        self, user: dict[str, Any], channel: dict[str, Any], path: str, focused: str, **options: Any
    ) -> Interaction:
        data = self._command_data(path, options, focused=focused)
        return await self._dispatch_interaction(AUTOCOMPLETE, user, channel, data)

    def component(self, message_id: int, custom_id: str) -> dict[str, Any]:
        message = self.messages[message_id]
        for row in message.get("components", []):
            for item in row.get("components", []):
                if item.get("custom_id") == custom_id:
                    return item
        raise AssertionError(
            f"message {message_id} has no component {custom_id!r}; it has {self.custom_ids(message_id)}"
        )

    def custom_ids(self, message_id: int) -> list[str]:
        message = self.messages[message_id]
        return [
            i["custom_id"] for r in message.get("components", []) for i in r.get("components", []) if i.get("custom_id")
        ]

    async def click(
        self, user: dict[str, Any], message_id: int, custom_id: str, *, values: list[str] | None = None
    ) -> Interaction:
        """A user clicks a button (or picks ``values`` in a select) on a message: it must be there and enabled."""
        item = self.component(message_id, custom_id)
        if item.get("disabled"):
            raise AssertionError(f"component {custom_id!r} of message {message_id} is disabled")
        message = self.messages[message_id]
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": item["type"]}
        if item["type"] == 3:
            chosen = values or []
            allowed = {o["value"] for o in item.get("options", [])}
            if not chosen or set(chosen) - allowed:
                raise AssertionError(f"values {chosen} not among the select's options {sorted(allowed)}")
            data["values"] = chosen
        channel = self.channels[int(message["channel_id"])]
        return await self._dispatch_interaction(
            MESSAGE_COMPONENT, user, channel, data, message=orjson.loads(orjson.dumps(message))
        )

    # -- looking at what the bot did ------------------------------------------------------------

    def global_limit_peak(self, since: float = 0.0) -> tuple[int, int]:
        """Requests since ``since`` (monotonic) that Discord's global limit counts
        (:func:`limits.under_global_limit`): how many, and the most within one second."""
        times = [t for t, _, path, _ in self.requests if t >= since and limits.under_global_limit(path)]
        return len(times), limits.busiest_second(times)

    def channel_history(self, channel: dict[str, Any] | int, *, ephemeral: bool = False) -> list[dict[str, Any]]:
        channel_id = int(channel["id"]) if isinstance(channel, dict) else channel
        out = [self.messages[m] for m in self.channel_messages.get(channel_id, [])]
        return out if ephemeral else [m for m in out if not m["flags"] & EPHEMERAL]

    def with_components(self, channel: dict[str, Any] | int) -> list[dict[str, Any]]:
        """The channel's public messages that still carry components, oldest
        first: what the players look at after every action."""
        channel_id = int(channel["id"]) if isinstance(channel, dict) else channel
        return [self.messages[m] for m in sorted(self._controlled.get(channel_id, ()))]

    def _note_components(self, message: dict[str, Any]) -> None:
        """Keep :meth:`with_components`'s index of ``message`` as it now stands
        (looking through a whole channel's history for every player's every look
        made the stand-in's biggest cost, on the cores it shares with the bot)."""
        controlled = self._controlled.setdefault(int(message["channel_id"]), set())
        if message["components"] and not message["flags"] & EPHEMERAL and int(message["id"]) in self.messages:
            controlled.add(int(message["id"]))
        else:
            controlled.discard(int(message["id"]))

    def attachment_bytes(self, attachment: dict[str, Any]) -> bytes:
        return self.files[int(attachment["id"])]

    async def first_response(self, inter: Interaction, timeout: float = 10.0) -> Interaction:
        await self.wait_for(
            lambda: inter.response_type is not None or inter.late,
            timeout,
            f"a first response to interaction {inter.id}",
            channel=inter.channel_id,
        )
        if inter.response_type is None:
            raise AssertionError(
                f"interaction {inter.id} ({inter.payload.get('data', {}).get('name') or ''} type "
                f"{inter.type}) missed the 3-second deadline\n{self.describe()}"
            )
        return inter

    async def settle(self, inter: Interaction, idle: float = 0.3, timeout: float = 10.0) -> Interaction:
        """Wait for the first response, then until the stand-in saw no request for ``idle`` seconds."""
        await self.first_response(inter, timeout)
        deadline = time.monotonic() + timeout
        while True:
            last = max(inter.last_activity, self.requests[-1][0] if self.requests else 0.0)
            quiet = time.monotonic() - last
            if quiet >= idle:
                return inter
            if time.monotonic() > deadline:
                raise TimeoutError(f"interaction {inter.id} did not settle in {timeout} s\n{self.describe()}")
            await asyncio.sleep(idle - quiet + 0.01)

    async def wait_message(
        self,
        inter: Interaction,
        predicate: Callable[[dict[str, Any]], bool],
        timeout: float = 10.0,
        what: str = "a message",
    ) -> dict[str, Any]:
        """The first message created or edited for ``inter`` (response, follow-up or the clicked one) matching."""

        def find() -> dict[str, Any] | None:
            ids = list(inter.messages)
            if inter.original_id is not None and inter.original_id not in ids:
                ids.append(inter.original_id)
            for mid in ids:
                message = self.messages.get(mid)
                if message is not None and predicate(message):
                    return message
            return None

        return await self.wait_for(find, timeout, f"{what} for interaction {inter.id}", channel=inter.channel_id)

    async def wait_board(self, inter: Interaction, timeout: float = 10.0) -> dict[str, Any]:
        """The message carrying a PNG posted or edited in for ``inter``."""
        return await self.wait_message(
            inter, lambda m: inter.board_at is not None and has_png(self, m), timeout, "a board image"
        )

    async def wait_ephemeral(self, inter: Interaction, timeout: float = 10.0) -> dict[str, Any]:
        return await self.wait_message(
            inter, lambda m: bool(m["flags"] & EPHEMERAL) and not m["flags"] & LOADING, timeout, "an ephemeral answer"
        )

    def missed_deadlines(self, now: float | None = None) -> list[Interaction]:
        """Interactions answered late, or not answered and already past the deadline."""
        now = time.monotonic() if now is None else now
        return [
            i
            for i in self.interactions.values()
            if i.late or (i.responded_at is None and now - i.dispatched_at > ACK_DEADLINE)
        ]

    def hold(self, method: str, path_regex: str) -> HoldRule:
        """Hold back the answers of matching REST calls (made all the same) until ``rule.release()``."""
        rule = HoldRule(method.upper(), re.compile(path_regex))
        self.holds.append(rule)
        return rule

    def rate_limit_next(
        self, method: str, path_regex: str, retry_after: float = 0.3, *, is_global: bool = False
    ) -> RateLimitRule:
        """Answer the next matching REST call with 429 (Discord's headers and body)."""
        rule = RateLimitRule(method.upper(), re.compile(path_regex), retry_after, is_global=is_global)
        self.rate_limits.append(rule)
        return rule

    # -- REST ------------------------------------------------------------------------------------

    async def rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        method = request.method
        status = 500
        try:
            limited = self._rate_limited(method, path)
            if limited is not None:
                status = 429
                return limited
            response = await self._route(request, method, path)
            status = response.status
            for rule in list(self.holds):
                if rule.method in (method, "*") and rule.pattern.fullmatch(path) and not rule.released.is_set():
                    rule.held.append(f"{method} {path}")
                    self.changed.touch()
                    await rule.released.wait()  # the effect happened; the caller hears nothing until released
            return response
        except DiscordError as error:
            status = error.status
            if error.status != 404 or error.code:
                body = {}
                try:
                    body = await self._peek_body(request)
                except Exception:  # noqa: BLE001 - only for the record
                    pass
                self.violations.append(
                    (
                        f"{method} {path}",
                        f"{error.status} {error.code} {error.message}",
                        {"errors": error.errors, "body": body},
                    )
                )
            return json_response(error.body(), status=error.status)
        finally:
            self.requests.append((time.monotonic(), method, path, status))
            self._touch()

    async def _peek_body(self, request: web.Request) -> Any:
        if request.content_type == "application/json":
            return await request.json()
        return {}

    def _rate_limited(self, method: str, path: str) -> web.Response | None:
        now = time.monotonic()
        for rule in self.rate_limits:
            if rule.method != method or not rule.pattern.search(path):
                continue
            if rule.remaining > 0:
                rule.remaining -= 1
                rule.hits.append(now)
                headers = {
                    "Via": "1.1 google",
                    "Retry-After": str(max(1, round(rule.retry_after))),
                    "X-RateLimit-Limit": "5",
                    "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset": f"{time.time() + rule.retry_after:.3f}",
                    "X-RateLimit-Reset-After": f"{rule.retry_after:.3f}",
                    "X-RateLimit-Bucket": "e2e-" + secrets.token_hex(4),
                    "X-RateLimit-Scope": "global" if rule.is_global else "user",
                }
                if rule.is_global:
                    headers["X-RateLimit-Global"] = "true"
                return json_response(
                    {
                        "message": "You are being rate limited.",
                        "retry_after": rule.retry_after,
                        "global": rule.is_global,
                    },
                    status=429,
                    headers=headers,
                )
            if rule.hits and not rule.retried:
                rule.retried.append(now)
        return None

    def _check_auth(self, request: web.Request) -> None:
        if request.headers.get("Authorization") != f"Bot {self.token}":
            raise DiscordError(401, 0, "401: Unauthorized")

    async def _read_body(self, request: web.Request) -> tuple[Any, list[tuple[str, str, bytes]]]:
        """JSON body, or multipart ``payload_json`` + ``files[n]``: (payload, [(field, filename, bytes)])."""
        content_type = request.headers.get("Content-Type", "")
        if content_type.startswith("multipart/"):
            parts = split_multipart(content_type, await request.read())
            payload = next((data for name, _, data in parts if name == "payload_json"), b"{}")
            files = [
                (name, filename or "", data)
                for name, filename, data in parts
                if name.startswith("files[") or name.startswith("file")
            ]
            return orjson.loads(payload), files
        if request.can_read_body:
            text = await request.text()
            return (orjson.loads(text) if text else {}), []
        return {}, []

    async def _route(self, request: web.Request, method: str, path: str) -> web.StreamResponse:
        m = re.fullmatch
        if method == "POST" and (g := m(r"/interactions/(\d+)/([^/]+)/callback", path)):
            return await self.interaction_callback(request, int(g[1]), g[2])
        if g := m(r"/webhooks/(\d+)/([^/]+)(?:/messages/(@original|\d+))?", path):
            return await self.webhook(request, method, int(g[1]), g[2], g[3])
        self._check_auth(request)
        if method == "GET" and path == "/users/@me":
            return json_response(self.bot_user)
        if method == "GET" and path == "/oauth2/applications/@me":
            return json_response(self.application())
        if method == "GET" and path in ("/gateway", "/gateway/bot"):
            return json_response(
                {
                    "url": self.gateway_url,
                    "shards": 1,
                    "session_start_limit": {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1},
                }
            )
        if g := m(r"/applications/(\d+)(?:/guilds/(\d+))?/commands", path):
            return await self.commands_route(request, method, int(g[1]), int(g[2]) if g[2] else None)
        if method == "POST" and (g := m(r"/channels/(\d+)/messages/(\d+)/threads", path)):
            return await self.create_thread(request, int(g[1]), int(g[2]))
        if g := m(r"/channels/(\d+)/messages(?:/(\d+))?", path):
            return await self.channel_messages_route(request, method, int(g[1]), int(g[2]) if g[2] else None)
        if g := m(r"/channels/(\d+)", path):
            channel = self.channels.get(int(g[1]))
            if channel is None:
                raise DiscordError(404, 10003, "Unknown Channel")
            if method == "GET":
                return json_response(channel)
            if method == "DELETE":
                del self.channels[int(g[1])]
                return json_response(channel)
        self.unhandled.append(f"{method} {path}")
        raise DiscordError(404, 0, "404: Not Found")

    def application(self) -> dict[str, Any]:
        return {
            "id": str(self.application_id),
            "name": "backgammon",
            "description": "",
            "icon": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": self.owner,
            "verify_key": "0" * 64,
            "flags": 0,
            "team": None,
            "summary": "",
            "bot": self.bot_user,
        }

    async def commands_route(
        self, request: web.Request, method: str, app_id: int, guild_id: int | None
    ) -> web.Response:
        if app_id != self.application_id:
            raise DiscordError(403, 50001, "Missing Access")
        if guild_id is not None and guild_id != self.guild_id:
            raise DiscordError(403, 50001, "Missing Access")
        if method == "GET":
            return json_response(self.guild_commands.get(guild_id, []) if guild_id else self.global_commands)
        if method != "PUT":
            self.unhandled.append(f"{method} commands")
            raise DiscordError(404, 0, "404: Not Found")
        payload, _ = await self._read_body(request)
        body: list[dict[str, Any]] = payload  # a PUT of commands is a JSON array
        errors = limits.command_errors(body)
        if errors:
            raise DiscordError(400, 50035, "Invalid Form Body", errors)
        synced = []
        for command in body:
            entry = dict(command)
            entry.setdefault("type", 1)
            entry.setdefault("description", "")  # as Discord answers: empty for message and user commands
            entry.update(
                id=str(self.snowflake()), application_id=str(self.application_id), version=str(self.snowflake())
            )
            entry.setdefault("default_member_permissions", None)
            entry.setdefault("nsfw", False)
            if guild_id is not None:
                entry["guild_id"] = str(guild_id)
            synced.append(entry)
        self.command_puts.append((guild_id, body))
        if guild_id is None:
            self.global_commands = synced
        else:
            self.guild_commands[guild_id] = synced
        return json_response(synced)

    # -- messages --------------------------------------------------------------------------------

    def _mentions(self, content: str) -> list[dict[str, Any]]:
        ids = {int(x) for x in re.findall(r"<@!?(\d+)>", content or "")}
        return [self.users[i] for i in ids if i in self.users]

    def _store_files(
        self, channel_id: int, body: dict[str, Any], files: list[tuple[str, str, bytes]], existing: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """The message's attachments after this request (Discord's keep/upload rules)."""
        uploads: dict[str, tuple[str, bytes]] = {}
        for name, filename, data in files:
            index = name[len("files[") : -1] if name.startswith("files[") else name[len("file") :] or "0"
            uploads[index] = (filename, data)
            if len(data) > limits.ATTACHMENT_SIZE_MAX:
                raise DiscordError(413, 40005, "Request entity too large")
        declared = body.get("attachments")
        result: list[dict[str, Any]] = []
        if declared is None:
            result = list(existing)
            declared = [{"id": k} for k in uploads]
        by_id = {a["id"]: a for a in existing}
        for entry in declared:
            key = str(entry.get("id"))
            if key in uploads:
                filename, data = uploads.pop(key)
                attachment_id = self.snowflake()
                self.files[attachment_id] = data
                filename = entry.get("filename") or filename
                result.append(
                    {
                        "id": str(attachment_id),
                        "filename": filename,
                        "size": len(data),
                        "url": f"http://127.0.0.1:{self.port}/attachments/{channel_id}/{attachment_id}/{filename}",
                        "proxy_url": f"http://127.0.0.1:{self.port}/attachments/{channel_id}/{attachment_id}/{filename}",
                        "content_type": "image/png" if data.startswith(PNG_MAGIC) else "application/octet-stream",
                        "description": entry.get("description"),
                        "ephemeral": False,
                    }
                )
            elif key in by_id:
                result.append(by_id[key])
            else:
                raise DiscordError(
                    400,
                    50035,
                    "Invalid Form Body",
                    {
                        "attachments": {
                            "_errors": [{"code": "ATTACHMENT_NOT_FOUND", "message": f"Unknown attachment {key}"}]
                        }
                    },
                )
        return result

    def _validate(self, body: dict[str, Any], files: list[Any], *, create: bool) -> None:
        errors = limits.message_errors(body, files=len(files))
        if errors:
            raise DiscordError(400, 50035, "Invalid Form Body", errors)
        if create and not (
            body.get("content")
            or body.get("embeds")
            or files
            or body.get("components")
            or body.get("sticker_ids")
            or body.get("poll")
        ):
            raise DiscordError(400, 50006, "Cannot send an empty message")

    def _create_message(
        self,
        channel_id: int,
        body: dict[str, Any],
        files: list[tuple[str, str, bytes]],
        *,
        flags: int = 0,
        inter: Interaction | None = None,
        message_type: int = 0,
        author: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        self._validate(body, files, create=True)
        message_id = self.snowflake()
        attachments = self._store_files(channel_id, body, files, [])
        metadata = None
        if inter is not None:
            metadata = {
                "id": str(inter.id),
                "type": inter.type,
                "user": self.users.get(inter.user_id),
                "authorizing_integration_owners": {"0": str(self.guild_id)},
            }
        flags |= int(body.get("flags") or 0) & (EPHEMERAL | (1 << 2) | (1 << 12))
        message = payloads.message(
            message_id,
            channel_id,
            self.guild_id,
            author or self.bot_user,
            content=body.get("content") or "",
            embeds=body.get("embeds") or [],
            components=body.get("components") or [],
            attachments=attachments,
            flags=flags,
            message_type=message_type,
            webhook_id=self.application_id if inter is not None else None,
            application_id=self.application_id if inter is not None else None,
            interaction_metadata=metadata,
            mentions=self._mentions(body.get("content") or ""),
        )
        self.messages[message_id] = message
        self.channel_messages.setdefault(channel_id, []).append(message_id)
        self._note_components(message)
        self._note_pings(message, body)
        self._note_received(message)
        if inter is not None:
            inter.messages.append(message_id)
            self._note_board(inter, attachments)
        return message

    def _note_pings(self, message: dict[str, Any], body: dict[str, Any]) -> None:
        """Whom ``message`` notifies as it appears (edits notify nobody; an ephemeral message nobody else)."""
        self.pings[int(message["id"])] = {
            **limits.pinged(message["content"], body.get("allowed_mentions")),
            "allowed_mentions": body.get("allowed_mentions"),
            "ephemeral": bool(message["flags"] & EPHEMERAL),
            "content": message["content"],
        }

    def _edit_message(
        self,
        message: dict[str, Any],
        body: dict[str, Any],
        files: list[tuple[str, str, bytes]],
        inter: Interaction | None = None,
    ) -> dict[str, Any]:
        self._validate(body, files, create=False)
        if "attachments" in body or files:
            message["attachments"] = self._store_files(int(message["channel_id"]), body, files, message["attachments"])
            if inter is not None:
                self._note_board(inter, message["attachments"] if files else [])
        for key in ("content", "embeds", "components"):
            if key in body:
                message[key] = body[key] if body[key] is not None else ([] if key != "content" else "")
        if "content" in body:
            message["mentions"] = self._mentions(message["content"])
        if "flags" in body and body["flags"] is not None:
            message["flags"] = (message["flags"] & ~(1 << 2)) | (int(body["flags"]) & (1 << 2))
        message["flags"] &= ~LOADING
        message["edited_timestamp"] = payloads.iso_now()
        self._note_components(message)
        self._note_received(message)
        return message

    def _note_received(self, message: dict[str, Any]) -> None:
        record = self.record_received
        if (
            not record
            or message["flags"] & LOADING
            or (record is not True and int(message["channel_id"]) not in record)
        ):
            return
        recipient = None
        if message["flags"] & EPHEMERAL:
            recipient = int(((message.get("interaction_metadata") or {}).get("user") or {}).get("id") or 0)
        self.received.append(
            Received(
                time.monotonic(), recipient, int(message["channel_id"]), int(message["id"]), readable_text(message)
            )
        )

    def _privately_thinking(self, channel_id: int) -> Interaction | None:
        """The latest interaction in this channel still showing a private "thinking..."."""
        for inter in reversed(list(self.interactions.values())):
            if inter.channel_id != channel_id or inter.original_id is None:
                continue
            original = self.messages.get(inter.original_id)
            if original is not None and original["flags"] & EPHEMERAL and original["flags"] & LOADING:
                return inter
        return None

    def _note_board(self, inter: Interaction, attachments: list[dict[str, Any]]) -> None:
        if inter.board_at is None and any(self.files.get(int(a["id"]), b"").startswith(PNG_MAGIC) for a in attachments):
            inter.board_at = time.monotonic()

    async def channel_messages_route(
        self, request: web.Request, method: str, channel_id: int, message_id: int | None
    ) -> web.Response:
        try:
            return await self._channel_messages(request, method, channel_id, message_id)
        finally:
            self._touch(channel_id=channel_id)

    async def _channel_messages(
        self, request: web.Request, method: str, channel_id: int, message_id: int | None
    ) -> web.Response:
        if channel_id not in self.channels:
            raise DiscordError(404, 10003, "Unknown Channel")
        message: dict[str, Any] | None
        if message_id is None:
            if method == "POST":
                body, files = await self._read_body(request)
                message = self._create_message(channel_id, body, files)
                pending = self._privately_thinking(channel_id)
                if pending is not None:
                    # What the user sees: the answer to their command, posted in the
                    # channel while its private "thinking..." is still up.
                    pending.messages.append(int(message["id"]))
                    self._note_board(pending, message["attachments"])
                self._spawn(self.dispatch("MESSAGE_CREATE", message))
                return json_response(message)
            if method == "GET":
                return json_response(list(reversed(self.channel_history(channel_id)))[:50])
        else:
            message = self.messages.get(message_id)
            if message is None or int(message["channel_id"]) != channel_id or message["flags"] & EPHEMERAL:
                raise DiscordError(404, 10008, "Unknown Message")
            if method == "GET":
                return json_response(message)
            if method == "PATCH":
                if message["author"]["id"] != self.bot_user["id"]:
                    raise DiscordError(403, 50005, "Cannot edit a message authored by another user")
                body, files = await self._read_body(request)
                self._edit_message(message, body, files)
                self._spawn(self.dispatch("MESSAGE_UPDATE", message))
                return json_response(message)
            if method == "DELETE":
                self._delete(message)
                return web.Response(status=204)
        self.unhandled.append(f"{method} /channels/{channel_id}/messages")
        raise DiscordError(404, 0, "404: Not Found")

    def _delete(self, message: dict[str, Any]) -> None:
        message_id = int(message["id"])
        self.messages.pop(message_id, None)
        self._note_components(message)
        ids = self.channel_messages.get(int(message["channel_id"]), [])
        if message_id in ids:
            ids.remove(message_id)

    async def create_thread(self, request: web.Request, channel_id: int, message_id: int) -> web.Response:
        body, _ = await self._read_body(request)
        if message_id not in self.messages:
            raise DiscordError(404, 10008, "Unknown Message")
        name = body.get("name") or ""
        if not 1 <= len(name) <= 100:
            raise DiscordError(
                400,
                50035,
                "Invalid Form Body",
                {
                    "name": {
                        "_errors": [{"code": "BASE_TYPE_BAD_LENGTH", "message": "Must be between 1 and 100 in length."}]
                    }
                },
            )
        thread = payloads.thread_channel(message_id, self.guild_id, channel_id, name, self.application_id)
        self.channels[message_id] = thread
        self.channel_messages[message_id] = []
        self._spawn(self.dispatch("THREAD_CREATE", {**thread, "newly_created": True}))
        return json_response(thread, status=201)

    async def cdn(self, request: web.Request) -> web.Response:
        data = self.files.get(int(request.match_info["attachment"]))
        if data is None:
            return web.Response(status=404)
        return web.Response(
            body=data, content_type="image/png" if data.startswith(PNG_MAGIC) else "application/octet-stream"
        )

    # -- interactions ------------------------------------------------------------------------------

    async def interaction_callback(self, request: web.Request, interaction_id: int, token: str) -> web.Response:
        now = time.monotonic()
        inter = self.interactions.get(interaction_id)
        if inter is None or inter.token != token:
            raise DiscordError(404, 10062, "Unknown interaction")
        inter.calls.append((now, "callback"))
        if inter.response_type is not None:
            raise DiscordError(400, 40060, "Interaction has already been acknowledged.")
        if now - inter.dispatched_at > ACK_DEADLINE:
            inter.late = True
            raise DiscordError(404, 10062, "Unknown interaction")
        body, files = await self._read_body(request)
        kind = body.get("type")
        data = body.get("data") or {}
        allowed = {
            APPLICATION_COMMAND: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, MODAL},
            MESSAGE_COMPONENT: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, MODAL},
            AUTOCOMPLETE: {AUTOCOMPLETE_RESULT},
        }[inter.type]
        if kind not in allowed:
            raise DiscordError(
                400,
                50035,
                "Invalid Form Body",
                {
                    "type": {
                        "_errors": [
                            {
                                "code": "INTERACTION_RESPONSE_TYPE_INVALID",
                                "message": f"Interaction response type {kind} is not valid here",
                            }
                        ]
                    }
                },
            )
        resource_message: dict[str, Any] | None = None
        if kind == AUTOCOMPLETE_RESULT:
            errors = limits.choices_errors(data.get("choices"))
            if errors:
                raise DiscordError(400, 50035, "Invalid Form Body", {"data": errors})
        elif kind == CHANNEL_MESSAGE:
            resource_message = self._create_message(
                inter.channel_id,
                data,
                files,
                inter=inter,
                message_type=20 if inter.type == APPLICATION_COMMAND else 0,
            )
            inter.original_id = int(resource_message["id"])
        elif kind == DEFERRED_CHANNEL_MESSAGE:
            flags = LOADING | (int(data.get("flags") or 0) & EPHEMERAL)
            message_id = self.snowflake()
            resource_message = payloads.message(
                message_id,
                inter.channel_id,
                self.guild_id,
                self.bot_user,
                flags=flags,
                message_type=20 if inter.type == APPLICATION_COMMAND else 0,
                webhook_id=self.application_id,
                application_id=self.application_id,
                interaction_metadata={"id": str(inter.id), "type": inter.type, "user": self.users.get(inter.user_id)},
            )
            self.messages[message_id] = resource_message
            self.channel_messages.setdefault(inter.channel_id, []).append(message_id)
            inter.messages.append(message_id)
            inter.original_id = message_id
        elif kind == UPDATE_MESSAGE:
            assert inter.message_id is not None
            message = self.messages.get(inter.message_id)
            if message is None:
                raise DiscordError(404, 10008, "Unknown Message")
            resource_message = self._edit_message(message, data, files, inter)
        elif kind == DEFERRED_UPDATE:
            pass
        # first response accepted
        inter.responded_at = now
        inter.response_type = kind
        inter.response_data = data
        self._touch(inter)
        if request.query.get("with_response") not in ("1", "true", "True"):
            return web.Response(status=204)
        out: dict[str, Any] = {
            "interaction": {
                "id": str(inter.id),
                "type": inter.type,
                "response_message_id": str(inter.original_id) if inter.original_id else None,
                "response_message_loading": kind == DEFERRED_CHANNEL_MESSAGE,
                "response_message_ephemeral": bool(resource_message and resource_message["flags"] & EPHEMERAL),
            },
        }
        if resource_message is not None:
            out["resource"] = {"type": kind, "message": resource_message}
        return json_response(out)

    async def webhook(
        self, request: web.Request, method: str, app_id: int, token: str, which: str | None
    ) -> web.Response:
        inter = self.by_token.get(token)
        if app_id != self.application_id or inter is None:
            raise DiscordError(404, 10015, "Unknown Webhook")
        now = time.monotonic()
        inter.calls.append((now, f"{method} webhook {which or ''}"))
        if now - inter.dispatched_at > TOKEN_LIFETIME:
            raise DiscordError(401, 50027, "Invalid Webhook Token")
        if inter.response_type is None:
            raise DiscordError(404, 10015, "Unknown Webhook")
        message: dict[str, Any] | None
        if which is None:
            if method != "POST":
                raise DiscordError(405, 0, "405: Method Not Allowed")
            body, files = await self._read_body(request)
            original = self.messages.get(inter.original_id or 0)
            if inter.response_type == DEFERRED_CHANNEL_MESSAGE and original is not None and original["flags"] & LOADING:
                # The first follow-up after a "thinking" defer fills the placeholder (Discord's documented behaviour).
                body = dict(body)
                message = self._edit_message(original, body, files, inter)
                self._note_pings(message, body)  # it appears now, and notifies
                self._touch(inter)
                return json_response(message)
            flags = int(body.get("flags") or 0) & EPHEMERAL
            message = self._create_message(inter.channel_id, body, files, flags=flags, inter=inter)
            if not flags:
                self._spawn(self.dispatch("MESSAGE_CREATE", message))
            self._touch(inter)
            return json_response(message)
        message_id = inter.original_id if which == "@original" else int(which)
        if message_id is None:
            raise DiscordError(404, 10008, "Unknown Message")
        message = self.messages.get(message_id)
        if message is None or (which != "@original" and message_id not in inter.messages):
            raise DiscordError(404, 10008, "Unknown Message")
        if method == "GET":
            return json_response(message)
        if method == "PATCH":
            body, files = await self._read_body(request)
            self._edit_message(message, body, files, inter)
            self._touch(inter)
            if not message["flags"] & EPHEMERAL:
                self._spawn(self.dispatch("MESSAGE_UPDATE", message))
            return json_response(message)
        if method == "DELETE":
            self._delete(message)
            self._touch(inter)
            return web.Response(status=204)
        raise DiscordError(405, 0, "405: Method Not Allowed")


def has_png(fake: FakeDiscord, message: dict[str, Any]) -> bool:
    return any(fake.files.get(int(a["id"]), b"").startswith(PNG_MAGIC) for a in message.get("attachments", []))


def custom_ids(message: dict[str, Any]) -> list[str]:
    return [
        i["custom_id"] for r in message.get("components", []) for i in r.get("components", []) if i.get("custom_id")
    ]


def select_options(message: dict[str, Any], prefix: str = "") -> list[str]:
    for row in message.get("components", []):
        for item in row.get("components", []):
            if item.get("type") == 3 and item.get("custom_id", "").startswith(prefix):
                return [o["value"] for o in item.get("options", [])]
    return []
