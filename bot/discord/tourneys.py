"""Tournaments in Discord: the announcement, its Join / Leave buttons, the matches'
threads, the bracket picture and the words.

The announcement is the message ``/bgtourney create`` posts: what the
tournament is, who is in (with Join / Leave while sign-up is open), then the
bracket (a knockout) or the standings (a Swiss or round robin) as a picture,
drawn by the drawing workers (:mod:`renderer.bracket`), with the current
round's tables in words under it (the text fallback, and all there is if the
picture can't be drawn). It is redrawn after every change the core owes it
(``tourney_update`` in the outbox).

A round's matches are owed too (``tourney_round``): :meth:`Tourneys.open_round`
makes each match's thread in the tournament's channel, has the core start the
game in it, posts its first board there pinging both players, once, and then
redraws the announcement. A match that fails is tried again with the entry
(those opened are not opened twice: each table takes one game).
"""

from __future__ import annotations

import asyncio
import io
import logging
from datetime import UTC
from typing import Any, Literal

import discord

import i18n
from bot.core.games import GameService
from bot.core.model import Delivery, PlayerRef
from bot.core.tournaments import KNOCKOUT, MatchToOpen, Pairing, TournamentView
from bot.core.tournaments.model import FORMAT_NAMES
from bot.core.tournaments.pairing import bracket_size
from bot.discord import presenter, speech
from bot.discord.boards import BoardPoster, InChannel
from bot.discord.components import tourney_controls
from bot.discord.cooldowns import Cooldowns, hold
from bot.discord.dispatcher import NotDelivered
from bot.discord.errors import report
from bot.discord.limits import fit, pinging, plain, shown
from bot.discord.replies import player_ref, send_private
from i18n import _, ngettext
from renderer.bracket import (
    BracketMatch,
    BracketPicture,
    PairingLine,
    Slot,
    StandingRow,
    StandingsPicture,
    default_round_names,
)
from renderer.pictures import Picture

log = logging.getLogger(__name__)

NAMES_SHOWN = 60
"""Entrants named in the announcement (then "and N more")."""
TABLES_SHOWN = 16
"""Tables of the current round written under the picture."""
STANDINGS_SHOWN = 20
THREAD_ARCHIVE_MINUTES: Literal[10080] = 10080


# -- words -------------------------------------------------------------------------------------


def _name(player: PlayerRef | None) -> str:
    return shown(player.name) if player is not None else "?"


def status_line(view: TournamentView) -> str:
    """Where the tournament stands, in one line."""
    if view.status == "signup":
        if view.starts_at is not None:
            return _("Sign-up closes and it starts {starts_at}.").format(starts_at=presenter.timestamp(view.starts_at))
        return _("Sign-up is open until {name} starts it (`/bgtourney start`).").format(name=_name(view.organiser))
    if view.status == "cancelled":
        return _("This tournament was cancelled.")
    if view.status == "finished":
        if view.champion is not None:
            return _("★ Champion: **{name}**.").format(name=_name(view.champion))
        return _("It is over, with no champion.")
    deadline = (
        ", " + _("ends {when}").format(when=presenter.timestamp(view.round_deadline)) if view.round_deadline else ""
    )
    what = (
        _("the final")
        if view.format == KNOCKOUT and view.round == view.rounds
        else _("round {round} of {rounds}").format(round=view.round, rounds=view.rounds)
    )
    return _("Now playing {what}{deadline}.").format(what=what, deadline=deadline)


def table_line(table: Pairing) -> str:
    """One table of a round, in words."""
    a, b = _name(table.a), _name(table.b)
    if table.is_bye and table.outcome == "void":
        return _("{a}: withdrew (a loss)").format(a=a)
    if table.is_bye:
        return _("{a}: a bye").format(a=a)
    if table.outcome == "void":
        return _("{a} and {b}: no winner").format(a=a, b=b)
    if table.decided:
        winner, loser = (a, b) if table.winner == table.a.user_id else (b, a)
        if table.outcome == "forfeit":
            return _("**{winner}** beat {loser} (forfeit)").format(winner=winner, loser=loser)
        return _("**{winner}** beat {loser}").format(winner=winner, loser=loser)
    if table.thread_id:
        return _("{a} vs {b}: playing in {thread}").format(a=a, b=b, thread=f"<#{table.thread_id}>")
    return _("{a} vs {b}: playing").format(a=a, b=b)


def tables_text(view: TournamentView, number: int | None = None, limit: int = TABLES_SHOWN) -> str:
    tables = view.round_tables(number)
    playing = [t for t in tables if not t.decided]
    done = [t for t in tables if t.decided]
    lines = [f"- {table_line(t)}" for t in playing + done]
    if len(lines) > limit:
        lines = lines[:limit] + ["- " + _("and {count} more").format(count=len(lines) - limit)]
    return "\n".join(lines)


def standings_text(view: TournamentView, limit: int = STANDINGS_SHOWN) -> str:
    """The standings in words: place, name, points, and the tie-breaks."""
    lines = []
    for line in view.standings[:limit]:
        s = line.standing
        extra = ", " + _("out in round {round}").format(round=s.out_in) if view.format == KNOCKOUT and s.out_in else ""
        breaks = f", Bh {s.buchholz}, SB {s.sonneborn_berger}" if view.format != KNOCKOUT else ""
        left = " " + _("(withdrew)") if s.withdrawn else ""
        score = ngettext("{count} pt", "{count} pts", s.score).format(count=s.score)
        lines.append(f"{s.place}. {_name(line.player)}{left}: {score} ({s.wins}-{s.losses}{breaks}{extra})")
    if len(view.standings) > limit:
        lines.append(_("... and {number} more").format(number=len(view.standings) - limit))
    return "\n".join(lines)


def header(view: TournamentView) -> str:
    return _("🏆 **{name}** (#{id}): {describe}. Organised by {name2}.").format(
        name=plain(view.name), id=view.id, describe=view.options.describe(), name2=_name(view.organiser)
    )


def entrants_text(view: TournamentView) -> str:
    names = [_name(e.player) for e in view.entrants]
    shown_names = ", ".join(names[:NAMES_SHOWN]) + (
        " " + _("and {count} more").format(count=len(names) - NAMES_SHOWN) if len(names) > NAMES_SHOWN else ""
    )
    entered = _("In ({count}/{capacity}):").format(count=len(names), capacity=view.options.capacity)
    nobody = _("nobody yet")
    return f"**{entered}** {shown_names or nobody}"


def announcement_content(view: TournamentView) -> str:
    """The announcement's words (the picture, once there is one, goes with them)."""
    parts = [header(view), status_line(view)]
    if view.is_open:
        parts.append(entrants_text(view))
        parts.append(_("Click **Join** to play."))
    elif view.is_running:
        parts.append(tables_text(view))
    elif view.status == "finished" and view.standings:
        parts.append(standings_text(view, limit=8))
    return "\n".join(p for p in parts if p)


# -- pictures ------------------------------------------------------------------------------------


def _slot(player: PlayerRef | None, seeds: dict[int, int | None], gone: set[int]) -> Slot | None:
    if player is None:
        return None
    return Slot(player.name, seeds.get(player.user_id), player.user_id in gone)


def _box(table: Pairing, seeds: dict[int, int | None], gone: set[int]) -> BracketMatch:
    top, bottom = _slot(table.a, seeds, gone), _slot(table.b, seeds, gone)
    if table.is_bye:
        return BracketMatch(top, None, 0, "bye")
    if table.outcome == "void":
        return BracketMatch(top, bottom, None, "void")
    if table.decided:
        return BracketMatch(top, bottom, 0 if table.winner == table.a.user_id else 1, "done")
    return BracketMatch(top, bottom, None, "playing")


def subtitle(view: TournamentView) -> str:
    parts = [
        _(FORMAT_NAMES[view.format]).capitalize(),
        ngettext("{count} players", "{count} players", view.field_size).format(count=view.field_size),
        ngettext("{count}-point matches", "{count}-point matches", view.options.match_length).format(
            count=view.options.match_length
        ),
    ]
    if view.is_running:
        parts.append(_("round {round} of {rounds}").format(round=view.round, rounds=view.rounds))
    elif view.status != "signup":
        parts.append(presenter.status_word(view.status))
    return " · ".join(parts)


def footer(view: TournamentView) -> str:
    if view.is_running and view.round_deadline is not None:
        deadline = view.round_deadline.astimezone(UTC)
        when = i18n.date(deadline, "EEE d MMM HH:mm") + " UTC"
        return _("Round {round} of {rounds} ends {when}").format(round=view.round, rounds=view.rounds, when=when)
    if view.status == "cancelled":
        return _("Cancelled")
    return ""


def bracket_picture(view: TournamentView) -> BracketPicture:
    """A knockout's bracket: every round's boxes, those not played yet with the
    winners known so far."""
    seeds = {e.player.user_id: e.seed for e in view.entrants}
    gone = {e.player.user_id for e in view.entrants if e.withdrawn}
    size = bracket_size(max(view.field_size, 2))
    rounds = view.rounds or (size.bit_length() - 1)
    names = {e.player.user_id: e.player for e in view.entrants}
    boxes: list[tuple[BracketMatch, ...]] = []
    winners: dict[int, PlayerRef | None] = {}
    for number in range(1, rounds + 1):
        count = size >> number
        tables = {t.table: t for t in view.round_tables(number)}
        row: list[BracketMatch] = []
        following: dict[int, PlayerRef | None] = {}
        for k in range(count):
            table = tables.get(k)
            if table is not None:
                row.append(_box(table, seeds, gone))
                following[k] = names.get(table.winner) if table.winner is not None else None
            else:
                top = winners.get(2 * k) if number > 1 else None
                bottom = winners.get(2 * k + 1) if number > 1 else None
                row.append(BracketMatch(_slot(top, seeds, gone), _slot(bottom, seeds, gone), None, "waiting"))
                following[k] = None
        boxes.append(tuple(row))
        winners = following
    return BracketPicture(
        title=view.name,
        subtitle=subtitle(view),
        rounds=tuple(boxes),
        round_names=default_round_names(rounds),
        champion=view.champion.name if view.champion else None,
        footer=footer(view),
    )


def standings_picture(view: TournamentView) -> StandingsPicture:
    """A Swiss or round robin's standings, and the current round's tables."""
    rows = tuple(
        StandingRow(
            s.standing.place,
            s.player.name,
            s.standing.score,
            s.standing.wins + s.standing.byes,
            s.standing.losses,
            s.standing.buchholz,
            s.standing.sonneborn_berger,
            s.standing.withdrawn,
        )
        for s in view.standings
    )
    pairings = []
    for table in view.round_tables():
        if table.is_bye and table.outcome != "void":
            pairings.append(PairingLine(table.a.name, None, "", 0))
        elif table.outcome == "void":
            pairings.append(PairingLine(table.a.name, table.b.name if table.b else None, "void", None))
        elif table.decided:
            won = 0 if table.winner == table.a.user_id else 1
            pairings.append(
                PairingLine(table.a.name, table.b.name if table.b else None, "1–0" if won == 0 else "0–1", won)
            )
        else:
            pairings.append(PairingLine(table.a.name, table.b.name if table.b else None, "v", None))
    return StandingsPicture(
        title=view.name,
        subtitle=subtitle(view),
        rows=rows,
        tie_breaks=True,
        round_title=_("Round {round}").format(round=view.round) if view.round else "",
        pairings=tuple(pairings),
        champion=view.champion.name if view.champion else None,
        footer=footer(view),
    )


def picture_of(view: TournamentView) -> Picture | None:
    """The tournament's picture (None while signing up: nobody is paired yet)."""
    if view.is_open or not view.tables:
        return None
    return bracket_picture(view) if view.format == KNOCKOUT else standings_picture(view)


def picture_name(view: TournamentView) -> str:
    kind = "bracket" if view.format == KNOCKOUT else "standings"
    return f"tournament-{view.id}-{kind}-r{view.round}.png"


# -- the Discord side ------------------------------------------------------------------------------


class Tourneys:
    """Announcements, buttons and matches of the tournaments; one per bot."""

    def __init__(self, client: discord.Client, service: GameService, poster: BoardPoster, cooldowns: Cooldowns) -> None:
        self.client = client
        self.service = service
        self.tournaments = service.tournaments
        self.poster = poster
        self.cooldowns = cooldowns
        self._opening: set[int] = set()
        """Tournaments whose round this process is opening (it redraws the announcement after)."""
        self._drawing: dict[int, asyncio.Lock] = {}

    async def picture(self, view: TournamentView) -> discord.File | None:
        """The bracket or standings as a file (None: none yet, or it could not be drawn:
        the words stand alone)."""
        job = picture_of(view)
        if job is None:
            return None
        try:
            png = await self.poster.drawing.picture(job)
        except Exception:
            log.warning("could not draw tournament %s", view.id, exc_info=True)
            return None
        return discord.File(io.BytesIO(png), filename=picture_name(view))

    async def announcement(self, view: TournamentView) -> dict[str, Any]:
        """The announcement's content, picture and buttons."""
        payload: dict[str, Any] = {"content": announcement_content(view), "view": tourney_controls(view)}
        file = await self.picture(view)
        payload["attachments"] = [file] if file is not None else []
        return payload

    # -- buttons ---------------------------------------------------------------------------------

    async def click(self, interaction: discord.Interaction, action: str, tournament_id: int) -> None:
        """Join or Leave on the announcement: the list is redrawn in place, a word to the member privately."""
        try:
            hold(self.cooldowns, "lookup", interaction.user)
            if action == "join":
                view = await self.tournaments.join(tournament_id, player_ref(interaction.user))
                word = _("You're in {tournament} ({count} of {capacity}). Good luck!").format(
                    tournament=plain(view.name), count=len(view.entrants), capacity=view.options.capacity
                )
            else:
                view = await self.tournaments.leave(tournament_id, interaction.user.id)
                word = _("You left {tournament}.").format(tournament=plain(view.name))
            payload = await self.announcement(view)
            payload.pop("attachments", None)  # nothing drawn while signing up
            await interaction.response.edit_message(**fit(**payload))
            await send_private(interaction, content=word)
        except Exception as error:
            await report(interaction, error)

    # -- what the outbox owes ------------------------------------------------------------------------

    async def open_round(self, delivery: Delivery) -> None:
        """A round's matches, each: its thread, its game, its first board pinging both
        players, one at a time at the dispatcher's pace (the delivery had the first turn);
        then the announcement redrawn. Raises (the entry is tried again) if one failed,
        after telling the channel and the organiser the first time."""
        tournament_id = int(delivery.data["tournament"])
        matches: list[MatchToOpen] = delivery.data["matches"]
        dispatcher = getattr(self.client, "dispatcher", None)
        failures: list[BaseException] = []
        self._opening.add(tournament_id)
        try:
            for index, match in enumerate(matches):
                if index and dispatcher is not None:
                    await dispatcher.paced()  # one thread, game and board per turn: never 64 at once
                try:
                    await self.open_match(match)
                except Exception as error:  # noqa: BLE001 - the others still open; the entry is retried
                    log.warning("could not open tournament match %s: %s", match.pairing_id, error)
                    failures.append(error)
        finally:
            self._opening.discard(tournament_id)
        await self.redraw(tournament_id)
        if failures:
            if delivery.attempts == 0:
                await self._tell_unopened(tournament_id, delivery.channel_id, len(failures))
            raise failures[0]
        await self.service.deliveries.delivered(delivery.entries)

    async def _tell_unopened(self, tournament_id: int, channel_id: int, count: int) -> None:
        """Some matches of a round could not open: the organiser and the channel are told
        (at the round's deadline a match never opened goes to the better seed)."""
        try:
            view = await self.tournaments.get(tournament_id)
            organiser = view.organiser.user_id
            text = f"{presenter.mention(organiser)} " + ngettext(
                "{tournament}: {count} match of round {round} could not open (I could not make its thread here: I"
                " need to create public threads and send messages in them). I keep trying; a match never opened"
                " goes to the better seed at the round's deadline.",
                "{tournament}: {count} matches of round {round} could not open (I could not make its thread here: I"
                " need to create public threads and send messages in them). I keep trying; a match never opened"
                " goes to the better seed at the round's deadline.",
                count,
            ).format(tournament=plain(view.name), count=count, round=view.round)
            where = InChannel(self.client, channel_id, view.guild_id, nonce=f"bg-tu-{tournament_id}-{view.round}")
            await where.send({"content": text, "allowed_mentions": pinging(organiser)})
        except Exception:  # noqa: BLE001 - telling is a courtesy: the round's retry goes on
            log.warning("could not tell tournament %s's channel its matches did not open", tournament_id, exc_info=True)

    async def open_match(self, match: MatchToOpen) -> None:
        """One match: its thread (made once), its game, its first board pinging both players."""
        thread_id = match.thread_id
        if thread_id is None:
            thread_id = await self._make_thread(match)
        outcome = await self.tournaments.open_match(match, thread_id)
        if outcome is None:
            return  # opened already
        a, b = match.players
        with i18n.speaking(await speech.public(self.client, match.guild_id)):  # the match's thread is public
            headline = "🏆 " + _("{first} vs {second}: {tournament}, round {round}. Good luck!").format(
                first=presenter.mention(a.user_id),
                second=presenter.mention(b.user_id),
                tournament=plain(match.name),
                round=match.round,
            )
        where = InChannel(self.client, thread_id, match.guild_id, nonce=f"bg-tm-{match.pairing_id}")
        message = await self.poster.publish(outcome, where, old=None, headline=headline, pings=(a.user_id, b.user_id))
        if message is None:  # the game stands; its board is owed, and the dispatcher posts it
            log.warning("tournament match %s: its first board was not posted", match.pairing_id)

    async def _make_thread(self, match: MatchToOpen) -> int:
        channel = self.client.get_channel(match.channel_id)
        if channel is None:
            channel = await self.client.fetch_channel(match.channel_id)
        if not isinstance(channel, discord.TextChannel):
            raise NotDelivered(f"channel {match.channel_id} can't hold a match thread")
        a, b = match.players
        name = _("{first} vs {second} · {tournament} R{round}").format(
            first=a.name, second=b.name, tournament=match.name, round=match.round
        )[:100]
        thread = await channel.create_thread(
            name=name,
            type=discord.ChannelType.public_thread,
            auto_archive_duration=THREAD_ARCHIVE_MINUTES,
        )
        kept = await self.tournaments.set_thread(match.pairing_id, thread.id)
        if kept != thread.id:  # another process made one first: use it
            try:
                await thread.delete()
            except discord.HTTPException:
                log.debug("could not delete a spare match thread", exc_info=True)
        return kept

    async def update(self, delivery: Delivery) -> None:
        """Redraw the announcement (a new one if it is gone), unless this process is
        opening the tournament's round: that redraws it when done."""
        view: TournamentView = delivery.data["tournament"]
        if view.id not in self._opening:
            await self.redraw(view.id, view)
        await self.service.deliveries.delivered(delivery.entries)

    async def redraw(self, tournament_id: int, view: TournamentView | None = None) -> None:
        """Redraw the announcement as the tournament stands (one redraw of it at a time)."""
        lock = self._drawing.setdefault(tournament_id, asyncio.Lock())
        async with lock:
            await self._redraw(await self.tournaments.get(tournament_id) if view is None else view)
        if not lock.locked():
            self._drawing.pop(tournament_id, None)

    async def _redraw(self, view: TournamentView) -> None:
        payload = await self.announcement(view)
        if view.is_over:
            payload["view"] = None
        message = None
        if view.message_id is not None:
            channel = self.client.get_partial_messageable(view.channel_id, guild_id=view.guild_id)
            try:
                message = await channel.get_partial_message(view.message_id).edit(**fit(**payload))
            except discord.NotFound:
                message = None
        if message is None:
            channel = self.client.get_partial_messageable(view.channel_id, guild_id=view.guild_id)
            files = payload.pop("attachments", [])
            if files:
                payload["file"] = files[0]
            if payload.get("view") is None:
                payload.pop("view", None)
            message = await channel.send(**fit(**payload))
            await self.tournaments.set_message(view.id, message.id)


__all__ = [
    "Tourneys",
    "announcement_content",
    "bracket_picture",
    "picture_of",
    "standings_picture",
    "standings_text",
    "tables_text",
]
