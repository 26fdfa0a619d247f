"""The dispatcher: posts what the outbox owes that no command is posting.

Boards left owed by a crash or a failed post, the final boards of timeouts,
reminders and expired challenges (:mod:`bot.core.deliveries` words them)
go out from here, in the order they were owed, each game on its own: one
that fails waits for its back-off and holds up no other.

Before posting something an earlier attempt may have posted already (a
crash right after the post), the dispatcher looks through the channel's
latest messages: a board is known by its picture's name
(:func:`bot.discord.boards.picture_name`), a reminder by its text. Channel
posts also carry a nonce, which Discord honours for a few minutes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

import discord

import i18n
from bot.core.deliveries import OwedEntries
from bot.core.games import GameService
from bot.core.model import Delivery, GameState, ServiceError, Shard
from bot.discord import direct, presenter, speech
from bot.discord.boards import AlreadyShown, BoardPoster, InChannel, picture_name
from bot.discord.buckets import TokenBucket
from bot.discord.direct import digest_pointer, digest_text, reminder_text, send_direct
from bot.discord.limits import fit, pinging, plain
from bot.discord.quiet import QUIET_SECONDS

log = logging.getLogger(__name__)

IDLE_SECONDS = 60.0
"""The longest sleep between two looks at the outbox (another process may owe us work)."""
HELD_BEAT = 1.0
"""The slow beat's shortest sleep after a pass with nothing to deliver (a command that
fails to post releases its entries and wakes the dispatcher at once)."""
LOOK_BACK = 50
"""How many of a channel's latest messages are searched for an earlier post."""
PARALLEL = 4
"""Deliveries in flight at once: a slow channel does not hold up the others."""
DELIVERIES_PER_SECOND = 10.0
"""Deliveries started each second, by all the bot's processes together (each
takes its shards' share). A delivery makes at most three requests on a
channel's routes (a look back for an earlier post, the post, the old board's
controls taken off), and Discord allows a bot 50 a second on those routes in
all (its global limit; an interaction's own routes do not count): past it,
every channel request of the bot waits. With the burst after a quiet moment
(:attr:`Dispatcher.burst`), at most 15 start in any second: 45 requests.
Unpaced, a backlog after an outage went out as fast as the stand-in answered:
100 requests in a second on the load bench's large store."""
BUSY_SHARE = 0.2
"""The share of :data:`DELIVERIES_PER_SECOND` kept while live play saturates the bot
(its drawing workers not keeping up): wording a board rebuilds its game and
drawing it takes a worker, so a backlog after an outage at full pace took some
5% of the event loop from the players it had come back to (the load bench's
large store); it goes on, more slowly, until the bot has room again."""
EXPIRIES_PER_PASS = 10
EXPIRY_PACE = 0.2
"""Expired challenges are tidied at most this many per pass, this many seconds apart
(a flood of challenges expiring together must not become a flood of edits)."""


Handler = Callable[[Delivery], Awaitable[None]]


class NotDelivered(Exception):
    """A post failed without an answer from Discord to show for it."""


class Dispatcher:
    """Delivers owed messages for the guilds of ``shard`` (None: all)."""

    def __init__(
        self,
        client: discord.Client,
        service: GameService,
        poster: BoardPoster,
        *,
        shard: Shard | None = None,
        kept_up_for: Callable[[], float],
    ) -> None:
        """``kept_up_for``: seconds the bot has kept up with its boards (the pace, :attr:`pace`)."""
        self.client = client
        self.kept_up_for = kept_up_for
        self.service = service
        self.deliveries = service.deliveries
        self.poster = poster
        self.shard = shard
        self._task: asyncio.Task[None] | None = None
        self._kicked: asyncio.Task[None] | None = None
        self._again = False
        self._limit = asyncio.Semaphore(PARALLEL)
        self.per_second = DELIVERIES_PER_SECOND * (len(shard[1]) / shard[0] if shard is not None else 1.0)
        """This process's pace (:data:`DELIVERIES_PER_SECOND`, its shards' share)."""
        self._bucket: TokenBucket | None = None
        """The deliveries that may start at once (below 0: promised to those
        waiting), on the loop's clock; None: a full burst."""
        self._stopped = False
        """Stopped (the bot is stopping): what is owed from now on waits for the next start."""
        self._pass = asyncio.Lock()  # one pass at a time: two would deliver the same entries
        self._wording = asyncio.Lock()
        self.deliveries.wakers.append(self.kick)
        self.handlers: dict[str, Handler] = {
            "board": self._board,
            "reminder": self._reminder,
            "challenge_expired": self._expired,
            "digest": self._digest,
            "notice": self._notice,
        }
        """How each kind of delivery is posted. A feature that owes its own kind of
        message adds its handler here (raising on failure: it is retried)."""

    # -- running ---------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        self._stopped = False
        if not self.running:
            self._task = asyncio.create_task(self._run(), name="bg-dispatcher")

    async def stop(self) -> None:
        self._stopped = True
        for task in (self._task, self._kicked):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._task = self._kicked = None

    def kick(self) -> None:
        """Something is owed now: a pass soon (another after it, if one is running)."""
        if self._stopped:
            return
        if self._kicked is None or self._kicked.done():
            self._kicked = asyncio.get_running_loop().create_task(self._passes(), name="bg-dispatch")
        else:
            self._again = True

    async def idle(self) -> None:
        """Until the passes asked for so far are done (tests, shutdown)."""
        while self._kicked is not None and not self._kicked.done():
            await asyncio.wait({self._kicked})

    async def _passes(self) -> None:
        while True:
            self._again = False
            await self._safe_pass()
            if not self._again:
                return

    async def _run(self) -> None:
        """The slow beat: retries when their back-off ends, and other processes' leftovers.
        A pass that found nothing to deliver (what is due is being posted by the
        commands that made it) waits at least :data:`HELD_BEAT` before the next: under
        load something is always due, and looking every 50 ms cost reads for nothing."""
        delay = await self._delay()
        while True:
            await asyncio.sleep(delay)
            attempted = await self._safe_pass()
            delay = await self._delay()
            if not attempted:
                delay = max(delay, HELD_BEAT)

    async def _safe_pass(self) -> int:
        try:
            return await self.run_once()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the dispatcher failed; trying again shortly")
            return 0

    async def _delay(self) -> float:
        try:
            due = await self.deliveries.next_attempt(shard=self.shard)
        except Exception:
            return IDLE_SECONDS
        if due is None:
            return IDLE_SECONDS
        return min(max((due - self.service.clock()).total_seconds(), 0.05), IDLE_SECONDS)

    async def drain(self) -> int:
        """Deliver everything owed now (at start-up, before deadlines run again);
        returns how many messages went out. What fails waits for its back-off."""
        total = 0
        for _ in range(1000):
            done = await self.run_once()
            total += done
            if not done:
                return total
        return total

    async def run_once(self) -> int:
        """One pass: boards and reminders first, then a few expired challenges.
        Returns how many deliveries were attempted."""
        async with self._pass:
            return await self._run_pass()

    async def _run_pass(self) -> int:
        urgent = await self.deliveries.owed_entries(
            shard=self.shard, not_kinds=("challenge_expired",), limit=self.per_pass
        )
        attempted = await asyncio.gather(*(self._word_and_deliver(entries) for entries in urgent))
        expired = await self.deliveries.owed(shard=self.shard, kinds=("challenge_expired",), limit=EXPIRIES_PER_PASS)
        for number, delivery in enumerate(expired):
            if number:
                await asyncio.sleep(EXPIRY_PACE)
            await self._guarded(delivery)
        return sum(attempted) + len(expired)

    @property
    def per_pass(self) -> int:
        """Deliveries taken on in one pass: what the pace lets start in about a second
        and a half. Each is worded at its turn to go out (:meth:`_word_and_deliver`):
        wording a board rebuilds its game, and passes worded 100 up front, a burst of
        seconds of the loop's time while players waited (the load bench's large
        store, coming back with a backlog), the last posted ten seconds later."""
        return max(PARALLEL, round(self.burst + self.per_second))

    @property
    def burst(self) -> float:
        """Deliveries that may start at once after a quiet moment: half a second's worth."""
        return max(1.0, self.per_second / 2)

    @property
    def pace(self) -> float:
        """Deliveries a second now: :attr:`per_second`, or :data:`BUSY_SHARE` of it while
        live play keeps the drawing workers from keeping up (``kept_up_for``)."""
        if self.kept_up_for() >= QUIET_SECONDS:
            return self.per_second
        return self.per_second * BUSY_SHARE

    async def _paced(self) -> None:
        """Until this delivery's turn (a token bucket: :attr:`burst` at once, then
        :attr:`pace`). Each caller takes a token, or promises the next one and
        waits for it, so those waiting start in turn."""
        now = asyncio.get_running_loop().time()
        if self._bucket is None:
            self._bucket = TokenBucket(self.burst, now)
        wait = self._bucket.take(self.burst, self.pace, now, promise=True)
        if wait > 0:
            await asyncio.sleep(wait)

    async def _word_and_deliver(self, entries: OwedEntries) -> bool:
        """Word owed entries at their turn to go out, and deliver them; False when
        there was nothing to deliver (nothing left to say, or a command posts it)."""
        async with self._limit:
            await self._paced()
            first = entries[0]
            try:
                async with self._wording:  # one at a time, in turn: they start in the order owed
                    with i18n.speaking(await speech.public(self.client, first.guild_id)):
                        delivery = await self.deliveries.word(entries)
            except ServiceError as error:  # the database: the entries stay owed
                log.warning("could not word a %s message: %s", first.kind, error)
                return True
            except Exception:  # a game that does not rebuild, say: retried with back-off, then given up
                log.exception("wording a %s message for channel %s failed", first.kind, first.channel_id)
                await self._failed(
                    Delivery(
                        kind=first.kind,
                        entries=tuple(e.id for e in entries),
                        guild_id=first.guild_id,
                        channel_id=first.channel_id,
                        attempts=max(e.attempts for e in entries),
                    )
                )
                return True
            if delivery is None:
                self._unpaced()
                return False
            await self._deliver_guarded(delivery)
            return True

    async def paced(self) -> None:
        """Wait for a turn at the dispatcher's pace: for a handler that makes several
        messages of one delivery (a round's matches), one turn per message after its first."""
        await self._paced()

    def _unpaced(self) -> None:
        """Give back the turn of a delivery that had nothing to post (a reminder of a
        turn played meanwhile): it made no request, and stale entries owed by an
        outage must not hold up the rest at the busy pace."""
        if self._bucket is not None:
            self._bucket.give_back(self.burst)

    async def _guarded(self, delivery: Delivery) -> None:
        async with self._limit:
            await self._paced()
            await self._deliver_guarded(delivery)

    async def _deliver_guarded(self, delivery: Delivery) -> None:
        """Deliver, and settle a failure: retried later with back-off, or given up."""
        try:
            await self.deliver(delivery)
        except discord.NotFound:
            log.info("channel %s is gone: dropping a %s message", delivery.channel_id, delivery.kind)
            await self._failed(delivery, permanent=True)
        except (TimeoutError, discord.HTTPException, NotDelivered, OSError) as error:
            log.warning("could not deliver a %s message to channel %s: %s", delivery.kind, delivery.channel_id, error)
            await self._failed(delivery)
        except ServiceError as error:  # the database: the entry stays owed
            log.warning("could not settle a %s message: %s", delivery.kind, error)
        except Exception:
            log.exception("delivering a %s message to channel %s failed", delivery.kind, delivery.channel_id)
            await self._failed(delivery)

    async def _failed(self, delivery: Delivery, *, permanent: bool = False) -> None:
        with contextlib.suppress(ServiceError):
            await self.deliveries.failed(delivery, permanent=permanent)

    # -- delivering --------------------------------------------------------------------------

    async def deliver(self, delivery: Delivery) -> None:
        handler = self.handlers.get(delivery.kind)
        if handler is None:
            log.warning("no way to deliver a %s message: dropped", delivery.kind)
            await self.deliveries.delivered(delivery.entries)
            return
        # a channel's post in the server's language; what goes to a member's direct
        # messages is worded in theirs (:meth:`_reminder`, :meth:`_digest`)
        with i18n.speaking(await speech.public(self.client, delivery.guild_id)):
            await handler(delivery)

    def _where(self, delivery: Delivery) -> InChannel:
        return InChannel(self.client, delivery.channel_id, delivery.guild_id, nonce=f"bg-outbox-{delivery.entries[-1]}")

    async def _board(self, delivery: Delivery) -> None:
        outcome = delivery.outcome
        assert outcome is not None
        state = outcome.state
        if delivery.retried:
            found = await self._posted_board(delivery.channel_id, state)
            if found is not None:
                log.info("game %s: its board was posted before the restart; taking it as the board", state.id)
                await self.poster.shown(state, found, state.board_message, owed=delivery.entries)
                return
        headline = None
        if delivery.headline:
            about, *others = [presenter.mention(u) for u in delivery.ping] or [""]
            headline = " ".join(p for p in ("⌛", about, f"{plain(delivery.headline)}.", *others) if p)
        where = self._where(delivery)
        try:
            message = await self.poster.publish(
                outcome,
                where,
                old=state.board_message,
                headline=headline,
                pings=delivery.ping,
                listeners=None if delivery.headline is None else [],
                unless_shown=True,
            )
        except AlreadyShown as shown:
            log.debug("not posting an owed board: %s", shown)
            return
        if message is None:
            raise where.error or NotDelivered("the board could not be posted")

    async def _posted_board(self, channel_id: int, state: GameState) -> discord.Message | None:
        """Our message in the channel showing ``state``'s board, if one was posted."""
        name = picture_name(state)
        return await self._look_back(channel_id, lambda m: any(a.filename == name for a in m.attachments))

    async def look_back(self, channel_id: int, match: object) -> discord.Message | None:
        """Our latest message in the channel that ``match(message)`` accepts (a feature's
        handler looking for its earlier post before posting again)."""
        return await self._look_back(channel_id, match)

    def where(self, delivery: Delivery) -> InChannel:
        """Where a delivery is posted: its channel, with a nonce of its own."""
        return self._where(delivery)

    async def _look_back(self, channel_id: int, match: object) -> discord.Message | None:
        channel = self.client.get_partial_messageable(channel_id)
        me = self.client.user.id if self.client.user else None
        try:
            async for message in channel.history(limit=LOOK_BACK):
                if message.author.id == me and match(message):  # type: ignore[operator]
                    return message
        except discord.Forbidden:
            log.info("can't read the history of channel %s to look for an earlier post", channel_id)
        return None

    async def _reminder(self, delivery: Delivery) -> None:
        if delivery.dm_to is not None:
            with i18n.speaking(await speech.member(self.client, delivery.dm_to)):
                text = reminder_text(delivery, mention=False)
            if await self._direct(delivery, text):
                return
        await self.post_text(delivery, reminder_text(delivery, mention=True))

    async def _digest(self, delivery: Delivery) -> None:
        """The daily digest by direct message; when their direct messages are closed, a
        pointer to ``/bg games`` in the channel of the most urgent game (pinging the
        member), never the list: it names games of other channels and servers."""
        with i18n.speaking(await speech.member(self.client, delivery.dm_to or 0)):
            text = digest_text(delivery.data)
        if await self._direct(delivery, text):
            return
        await self.post_text(delivery, digest_pointer(delivery.dm_to or 0))

    async def _direct(self, delivery: Delivery, text: str) -> bool:
        """Send a delivery to its member's direct messages and settle it; False when closed.
        Once only: a delivery a crash may have sent already is looked for first (direct
        messages have no nonce Discord enforces)."""
        assert delivery.dm_to is not None
        if delivery.retried and await self._sent_directly(delivery.dm_to, text):
            await self.deliveries.delivered(delivery.entries)
            return True
        if await send_direct(self.client, delivery.dm_to, text) is None:
            return False
        await self.deliveries.delivered(delivery.entries)
        return True

    async def _sent_directly(self, user_id: int, text: str) -> bool:
        """Whether the member's direct messages already hold ``text`` from the bot (lately)."""
        closed = getattr(self.client, "closed_dms", None)
        if closed is not None and closed.closed(user_id):
            return False
        me = self.client.user.id if self.client.user else None
        wanted = fit(content=text).get("content", text)  # as sent: within Discord's limits
        try:
            channel = await direct.open_dm(self.client, user_id)
            async for message in channel.history(limit=LOOK_BACK):
                if message.author.id == me and message.content == wanted:
                    return True
        except discord.HTTPException as error:
            log.info("can't read the direct messages of %s to look for an earlier one: %s", user_id, error)
        return False

    async def _notice(self, delivery: Delivery) -> None:
        """A line of text (its markup neutralised), after the mentions of whom it pings."""
        mentions = [presenter.mention(u) for u in delivery.ping]
        text = plain(delivery.text)
        when = (delivery.data or {}).get("when")
        if when is not None:  # a moment in the reader's time zone: outside the escaping
            text += f" <t:{int(when)}:f>" + plain(str(delivery.data.get("after", "")))
        await self.post_text(delivery, " ".join([*mentions, text]))

    async def post_text(self, delivery: Delivery, text: str) -> discord.Message:
        """Post ``text`` for a delivery (once: after a crash it looks first) and settle it."""
        if delivery.retried:
            found = await self._look_back(delivery.channel_id, lambda m: m.content == text)
            if found is not None:
                await self.deliveries.delivered(delivery.entries)
                return found
        where = self._where(delivery)
        message = await where.send({"content": text, "allowed_mentions": pinging(*delivery.ping)})
        if message is None:
            raise where.error or NotDelivered(f"the {delivery.kind} could not be posted")
        await self.deliveries.delivered(delivery.entries)
        return message

    async def _expired(self, delivery: Delivery) -> None:
        """An expired challenge loses its buttons and says so, in place: no new message."""
        challenge = delivery.challenge
        assert challenge is not None
        if challenge.message_id:
            channel = self.client.get_partial_messageable(challenge.channel_id, guild_id=challenge.guild_id)
            try:
                await channel.get_partial_message(challenge.message_id).edit(
                    **fit(content=presenter.challenge_closed_content(challenge, "expired"), view=None)
                )
            except discord.NotFound:
                pass  # deleted: nothing left to tidy
        await self.deliveries.delivered(delivery.entries)
