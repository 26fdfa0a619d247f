"""The bot: a :class:`commands.Bot` that builds the Discord layer's parts and runs them.

The composition root (:mod:`bot.__main__`) opens the game service (the
database) and the drawing workers and hands them to :func:`create_bot`, which
builds the bot without side effects; the bot closes them when it closes, after
its own parts. Everything that needs the event loop (building the parts,
loading the cogs as extensions, registering the persistent buttons, starting
the dispatcher and the scheduler, and with ``DEV_GUILD_ID`` the developer's
instant guild sync) happens in :meth:`BackgammonBot.setup_hook`, which
discord.py runs at login. The global command list is synced only on request
(``python -m bot sync``): Discord rate-limits syncs, and discord.py warns
against syncing at every start of every process. Each part
gets what it needs through its constructor; the persistent components, which
discord.py rebuilds from their custom ids, find their table through
:func:`bot.discord.replies.table_of`.

Coming back (at start, and after Discord was out of reach): the downtime is
credited to every running clock, everything owed is delivered, and only then
do deadlines run again and the computer resume its turns (in the background,
a few games at a time: commands are answered all along). While Discord is
out of reach, deadlines wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Callable
from typing import Any

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands

import i18n
from bot.config import Settings
from bot.core.advice import Advice
from bot.core.deadlines import HEARTBEAT
from bot.core.games import GameService
from bot.core.progress import Progress
from bot.core.puzzles import Puzzles
from bot.core.scheduler import Scheduler
from bot.core.tutor import Tutor
from bot.discord import privacy
from bot.discord.analysis_notes import AnalysisNotes
from bot.discord.boards import BoardPoster, warm_up
from bot.discord.components import DYNAMIC_ITEMS, let_go
from bot.discord.computer_seat import ComputerSeat
from bot.discord.cooldowns import Cooldowns
from bot.discord.direct import ClosedDms, TurnMessages
from bot.discord.dispatcher import Dispatcher
from bot.discord.errors import answer_privately, report
from bot.discord.instruments import AnswerTimer, FamilyOf
from bot.discord.parts import Parts
from bot.discord.quiet import POLL_SECONDS, until_quiet
from bot.discord.replays import Replays
from bot.discord.table import Table
from bot.discord.tourneys import Tourneys
from bot.discord.translator import CatalogueTranslator
from bot.ops.alerts import AlertHandler, Alerts
from bot.ops.check import problems
from bot.ops.health import HealthServer
from bot.ops.metrics import ErrorCounter, Metrics
from i18n import N_, _
from renderer.pool import RenderWorkers

log = logging.getLogger("bot")

INTENTS = discord.Intents(guilds=True)
"""Only guild and channel events: the bot works through interactions, so it
neither needs nor parses the message events every channel post would send."""

EXTENSIONS = (
    "bot.discord.cogs.game",
    "bot.discord.cogs.tools",
    "bot.discord.cogs.patience",
    "bot.discord.cogs.tourney",
    "bot.discord.cogs.learn",
    "bot.discord.cogs.club",
)
"""The cogs, loaded by name: ``/bg``, ``/bgtools``, ``/patience``, ``/bgtourney``, ``/bglearn`` and ``/bgclub``."""
CREDIT_PATIENCE_SECONDS = 120.0
"""Coming back from an outage, the games' clocks are credited in quiet moments
(:mod:`bot.discord.quiet`), or from this long after the bot came back however
busy it is: until then no deadline runs (none can fall due early), so a few
minutes' wait punishes nobody, while crediting 100,000 games under full load
made every board of the load bench's first seconds half as slow again."""
STOP_DRAIN_SECONDS = 6.0
"""A clean stop waits this long at most for the interactions in flight
(:data:`bot.ops.shutdown.STOP_SECONDS` bounds the whole stop)."""
IN_FLIGHT = ("CommandTree-invoker", "discord-ui-", "bg-refuse")
"""Names of the tasks that answer an interaction (discord.py's, and :meth:`BackgammonBot._refuse`'s)."""
STOPPING_ANSWER = N_("The bot is restarting: try again in a minute.")


class BackgammonTree(app_commands.CommandTree["BackgammonBot"]):
    """The command tree; its ``on_error`` is the one error path of every slash command."""

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        await report(interaction, error)

    def _from_interaction(self, interaction: discord.Interaction[BackgammonBot]) -> None:
        """discord.py's own (2.7: run the command or autocomplete, then report an
        error), and then untie the interaction (:func:`let_go`). An interaction
        and its response point at each other: once clicks were untied, each
        ``/bg move`` and its autocomplete, with the member, their namespace and
        options, was nearly all the collector still found, a young collection of
        ~50 ms every few seconds with every click in flight waiting. discord.py
        has no public hook after the error path, hence this override of its
        private one (checked by tests/bot/discord/test_components.py)."""

        async def invoke() -> None:
            try:
                await self._call(interaction)
            except app_commands.AppCommandError as error:
                await self._dispatch_error(interaction, error)
            finally:
                let_go(None, interaction)

        self.client.loop.create_task(invoke(), name="CommandTree-invoker")


class BackgammonBot(commands.Bot):
    """The backgammon bot. Build it with :func:`create_bot`.

    :param service: the game service, on its open database (closed with the bot).
    :param drawing: the drawing workers (started at login, closed with the bot).
    :param scheduler: whether reminders and timeouts run.
    :param serving: False: login only builds the command tree (``python -m bot sync``), starting
        no dispatcher, scheduler or drawing workers.
    :param kept_up_for: seconds the bot has kept up with its boards (default: the drawing
        workers' own, :meth:`RenderWorkers.kept_up_for`; see :mod:`bot.discord.quiet`):
        what waits for a quiet moment (analyses, an outage's credit) and the dispatcher's pace read it.
    """

    user: discord.ClientUser  # filled in at login

    def __init__(
        self,
        settings: Settings,
        *,
        service: GameService,
        drawing: RenderWorkers,
        scheduler: bool = True,
        serving: bool = True,
        kept_up_for: Callable[[], float] | None = None,
    ) -> None:
        # A board game never joins a voice channel: no start-up warnings about voice libraries.
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        metrics = Metrics() if settings.health_port is not None else None
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=INTENTS,
            help_command=None,
            tree_cls=BackgammonTree,
            # nobody is pinged unless a send names them (bot.discord.limits.pinging)
            allowed_mentions=discord.AllowedMentions.none(),
            # shard_ids is for AutoShardedBot, next in ShardedBackgammonBot's MRO; mypy reads Bot's signature
            **(settings.shard_options if isinstance(self, commands.AutoShardedBot) else {}),  # type: ignore[misc]
        )
        self.settings = settings
        self.service = service
        self.drawing = drawing
        self._with_scheduler = scheduler
        self.serving = serving
        self._parts: Parts | None = None
        self.table: Table | None = None
        self.tourneys: Tourneys | None = None
        """The tournaments' Discord side, made by their extension."""
        self.scheduler: Scheduler | None = None
        self.dispatcher: Dispatcher | None = None
        self.turn_messages: TurnMessages | None = None
        self.connected = False
        """Whether the gateway is up (deadlines run only then)."""
        self._coming_back: asyncio.Task[None] | None = None
        self._back_again = False
        """Connected again while a come-back was still under way: one more after it."""
        self._kept_up_for = kept_up_for or drawing.kept_up_for
        self.credit_patience = CREDIT_PATIENCE_SECONDS
        self.credit_poll = POLL_SECONDS
        self._heartbeats: asyncio.Task[None] | None = None
        self.stopping = False
        """A clean stop is under way (:meth:`wind_down`): new interactions are turned away."""
        self.metrics = metrics
        """The process's metrics (``HEALTH_PORT`` set), else None."""
        self._answer_timer = AnswerTimer(metrics) if metrics is not None else None
        self.health: HealthServer | None = None
        self.alerts: Alerts | None = None
        self._alert_handler: logging.Handler | None = None
        self._error_counter: logging.Handler | None = None
        self._turn_away_when_stopping()

    async def login(self, token: str) -> None:
        if self.http.connector is discord.utils.MISSING:
            # discord.py's own is unbounded: a burst of requests (games starting together, boards
            # owed after a restart) opened a connection each, a TLS handshake each against Discord.
            self.http.connector = aiohttp.TCPConnector(limit=self.settings.http_connections)
        await super().login(token)

    @property
    def parts(self) -> Parts:
        """What the cogs are built from (made by :meth:`setup_hook`)."""
        if self._parts is None:
            raise RuntimeError("the bot's parts are built at login (setup_hook)")
        return self._parts

    async def setup_hook(self) -> None:
        service = self.service
        await service.languages.load()
        advice = Advice(service)
        poster = BoardPoster(self, service, self.drawing)
        notes = AnalysisNotes(advice, self.drawing, kept_up_for=self._kept_up_for)
        computer = ComputerSeat(self, service, advice, poster, notes)
        self.closed_dms = ClosedDms()
        self.turn_messages = TurnMessages(self, service.members)
        poster.listeners += [computer.after_post, notes.after_game, self.turn_messages.after_post]
        cooldowns = Cooldowns(self.settings.cooldowns)
        self.table = Table(self, service, poster, computer, notes, cooldowns)
        self.table.tutor = Tutor(advice, service.members)
        self.dispatcher = Dispatcher(self, service, poster, shard=self.settings.shard, kept_up_for=self._kept_up_for)
        if self._with_scheduler:
            self.scheduler = Scheduler(service.deadlines, shard=self.settings.shard)
            self.scheduler.add_job("digests", service.members.send_digests, service.members.next_digest)
        self._parts = Parts(
            self.settings,
            service,
            advice,
            self.table,
            cooldowns,
            Replays(service, self.drawing.replay),
            self.drawing,
            self.dispatcher,
            progress=Progress(service.store),
            puzzles=Puzzles(
                service.store,
                service.clock,
                service.names,
                service.deliveries,
                audience=lambda guild_id, channel_id: privacy.for_channel(self.get_guild(guild_id), channel_id),
            ),
            scheduler=self.scheduler,
        )
        await self.tree.set_translator(CatalogueTranslator(self.tree))  # descriptions in each member's language
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        if not self.serving:
            return
        self.dispatcher.start()
        if self.scheduler is not None:
            self.scheduler.start()
            self._heartbeats = asyncio.create_task(self._beat_forever(), name="bg-heartbeat")
        if self.settings.health_port is not None:
            await self._start_health()
        if self.settings.alert_webhook_url:
            self.alerts = Alerts(self.settings.alert_webhook_url, self.settings.secrets)
            self.alerts.start()
            self.alerts.watch(lambda: problems(self.settings))
            self._alert_handler = AlertHandler(self.alerts)
            logging.getLogger().addHandler(self._alert_handler)
        await warm_up(self.drawing)
        advice.available()  # import the engines now, not on the event loop when the first game ends
        if self.syncs_at_start:
            await self.sync_commands()

    @property
    def syncs_at_start(self) -> bool:
        """Whether this process syncs the commands as it starts: only to a developer's
        server (``DEV_GUILD_ID``, instant), and only from the process that runs shard 0,
        so several processes never sync at once. The global list is synced on request
        (``python -m bot sync``)."""
        ids = self.settings.shard_ids
        return self.settings.dev_guild_id is not None and (ids is None or 0 in ids)

    async def _start_health(self) -> None:
        service = self.service
        assert service is not None
        metrics = self.metrics
        if metrics is not None:
            metrics.level(
                "bg_gateway_latency_seconds",
                "The gateway's heartbeat round trip, by shard.",
                self._gateway_latencies,
                label="shard",  # a metric's label: the operator's, never translated
            )
            metrics.slow_level("bg_outbox_owed", "Messages owed to Discord (the outbox).", service.store.outbox.count)
            metrics.level("bg_drawing_queue", "Drawings waiting for a drawing worker.", lambda: self.drawing.queued)
            metrics.level("bg_cached_games", "Games kept rebuilt in memory.", lambda: len(service.cache.matches))
            metrics.start()
            assert self._answer_timer is not None
            self._answer_timer.install()
            self._error_counter = ErrorCounter(metrics)
            logging.getLogger().addHandler(self._error_counter)
        self.health = HealthServer(
            connected=lambda: self.connected and not self.stopping,
            database=service.store.schema_version,
            metrics=metrics,
            host=self.settings.health_host,
            port=self.settings.health_port or 0,
        )
        await self.health.start()

    def _gateway_latencies(self) -> list[tuple[str, float]]:
        found = self.latencies if isinstance(self, commands.AutoShardedBot) else [(self.shard_id or 0, self.latency)]
        return [(str(shard), latency) for shard, latency in found if math.isfinite(latency)]

    async def sync_commands(self) -> list[app_commands.AppCommand]:
        """Sync the slash commands: to the dev guild (instant) if one is set, else globally."""
        if self.settings.dev_guild_id:
            guild = discord.Object(id=self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to guild %s", len(synced), self.settings.dev_guild_id)
        else:
            synced = await self.tree.sync()
            log.info("synced %d global commands (Discord may take a while to show changes)", len(synced))
        return synced

    async def on_ready(self) -> None:
        log.info("ready as %s (%s) in %d servers", self.user, self.user.id, len(self.guilds))
        self._come_back()

    async def on_resumed(self) -> None:
        self._come_back()

    async def on_disconnect(self) -> None:
        self.connected = False
        if self.scheduler is not None:
            self.scheduler.close()  # nobody can move: no clock may run out meanwhile

    def _come_back(self) -> None:
        if self.stopping:
            return  # connected as the stop began: the next start comes back
        self.connected = True
        if self._coming_back is None or self._coming_back.done():
            self._coming_back = asyncio.create_task(self._come_backs(), name="bg-come-back")
        else:
            self._back_again = True  # this outage too must be written down and credited

    async def _come_backs(self) -> None:
        while True:
            self._back_again = False
            await self.come_back()
            if not self._back_again:
                return

    async def come_back(self) -> None:
        """Connected again: write the time away down, deliver what is owed and let
        the computer take its turns; credit the time away to the games' clocks in
        quiet moments meanwhile (:data:`CREDIT_PATIENCE_SECONDS`), then let
        deadlines run."""
        service, shard = self.service, self.settings.shard
        came_back = time.monotonic()
        try:
            await service.deadlines.beat(shard=shard, coming_back=True)
        except Exception:
            log.exception("could not record the heartbeat")
        crediting = asyncio.create_task(self._credit_time_away(came_back), name="bg-credit-outage")
        try:
            try:
                await service.members.refresh()  # who is on vacation, for the boards
            except Exception:
                log.warning("could not read the vacations under way", exc_info=True)
            if self.dispatcher is not None:
                try:
                    sent = await self.dispatcher.drain()
                    if sent:
                        log.info("delivered %d messages owed from before", sent)
                except Exception:
                    log.exception("could not deliver the messages owed from before")
            if self.table is not None:
                # the computer's turns left waiting by a restart: in the background, a few at a
                # time, the longest-waiting first (a game a player touches meanwhile goes at once)
                self.table.computer.start_resume()
            await crediting
        finally:
            crediting.cancel()  # closing meanwhile: the next come-back finishes it
        if self.scheduler is not None and self.connected:
            self.scheduler.open()

    async def _credit_time_away(self, came_back: float) -> None:
        """The games' clocks moved on by the outages owed, a batch in each quiet moment."""
        service = self.service

        async def room() -> None:
            await until_quiet(came_back, self.credit_patience, kept_up_for=self._kept_up_for, poll=self.credit_poll)

        try:
            credited = await service.deadlines.settle_outages(shard=self.settings.shard, room=room)
        except Exception:
            log.exception("could not credit the time away to the games' clocks")
            return
        if credited:
            log.info("credited the time away to %d games' clocks", credited)

    async def _beat_forever(self) -> None:
        """Every :data:`~bot.core.deadlines.HEARTBEAT` while connected: the bot is here."""
        while True:
            await asyncio.sleep(HEARTBEAT.total_seconds())
            if not self.connected:
                continue
            try:
                await self.service.deadlines.beat(shard=self.settings.shard)
            except Exception:
                log.warning("could not record the heartbeat", exc_info=True)

    def _turn_away_when_stopping(self) -> None:
        """Once stopping, an interaction gets a private "restarting" rather than a game
        action that the stop could cut off. discord.py has no hook before it hands an
        interaction to the command tree or a view, hence the wrapped gateway parser."""
        parsers = self._connection.parsers
        parse = parsers["INTERACTION_CREATE"]
        metrics, family_of = self.metrics, FamilyOf(self.tree)

        def parse_interaction(data: Any) -> None:
            # The member's language is in force for everything the interaction starts: the
            # tasks discord.py creates for the command, the click or the modal copy it.
            with i18n.speaking(self.language_of(data)):
                if not self.stopping:
                    if metrics is not None:  # here, not in a listener: no task per interaction
                        metrics.received(int(data["id"]), family_of(data))
                    parse(data)
                else:
                    asyncio.get_running_loop().create_task(self._refuse(data), name="bg-refuse")

        parsers["INTERACTION_CREATE"] = parse_interaction

    def language_of(self, data: Any) -> str:
        """The language to answer an interaction's member in (:mod:`bot.core.languages`)."""
        try:
            who = (data.get("member") or {}).get("user") or data.get("user") or {}
            return self.service.languages.for_interaction(int(who["id"]), data.get("locale"))
        except (KeyError, TypeError, ValueError, AttributeError):
            return i18n.language_of(data.get("locale") if isinstance(data, dict) else None)

    async def _refuse(self, data: Any) -> None:
        interaction = discord.Interaction(data=data, state=self._connection)
        if interaction.type is not discord.InteractionType.autocomplete:
            await answer_privately(interaction, _(STOPPING_ANSWER))
            return
        with contextlib.suppress(discord.HTTPException):
            await interaction.response.autocomplete([])

    async def wind_down(self) -> None:
        """The first half of a clean stop: take no new work and let the interactions in
        flight finish (the dispatcher's and the scheduler's work goes back to the
        outbox and the due rows, for the next start). Then the caller stops the
        gateway's reader and closes the bot: a close frame with code 1000."""
        self.stopping = True
        if self.scheduler is not None:
            self.scheduler.close()
        if self.dispatcher is not None:
            await self.dispatcher.stop()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + STOP_DRAIN_SECONDS
        while (left := deadline - loop.time()) > 0:
            busy = [t for t in asyncio.all_tasks() if t.get_name().startswith(IN_FLIGHT) and not t.done()]
            if not busy:
                break
            await asyncio.wait(busy, timeout=left)
        else:
            log.warning("stopping with interactions still in flight")

    async def close(self) -> None:
        for task in (self._heartbeats, self._coming_back):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self.dispatcher is not None:
            await self.dispatcher.stop()
        if self.scheduler is not None:
            await self.scheduler.stop()
        if self.table is not None:
            await self.table.close()  # the computer's turns, the analyses in progress
        if self.turn_messages is not None:
            await self.turn_messages.close()
        if self._parts is not None:
            await self._parts.advice.close()  # the analyst's worker processes
        await super().close()
        if self.health is not None:
            await self.health.close()
        if self.metrics is not None:
            await self.metrics.close()
        if self._answer_timer is not None:
            self._answer_timer.uninstall()
        if self._error_counter is not None:
            logging.getLogger().removeHandler(self._error_counter)
        if self._alert_handler is not None:
            logging.getLogger().removeHandler(self._alert_handler)
        if self.alerts is not None:
            await self.alerts.close()
        # what the bot was given, once nothing of the bot's uses it any more
        self.drawing.close()
        await self.service.close()


def create_bot(
    settings: Settings,
    *,
    service: GameService,
    drawing: RenderWorkers,
    scheduler: bool = True,
    serving: bool = True,
    kept_up_for: Callable[[], float] | None = None,
) -> BackgammonBot:
    """A new, not yet started bot on an open ``service`` and ``drawing`` workers, which
    it closes when it closes. Nothing is connected until login.

    With ``SHARD_COUNT`` set it is a :class:`ShardedBackgammonBot` (an
    :class:`commands.AutoShardedBot` running ``SHARD_IDS``), else a plain one.
    """
    cls = ShardedBackgammonBot if settings.sharded else BackgammonBot
    return cls(
        settings, service=service, drawing=drawing, scheduler=scheduler, serving=serving, kept_up_for=kept_up_for
    )


class ShardedBackgammonBot(BackgammonBot, commands.AutoShardedBot):
    """The bot as an :class:`commands.AutoShardedBot`: ``shard_count``/``shard_ids`` from the settings."""
