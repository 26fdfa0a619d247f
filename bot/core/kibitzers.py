"""Kibitzer polls: while a player thinks, the onlookers say what they would play.

On a public game (the players did not switch polls off), an onlooker, never one
of the two players, answers privately: a play from the legal ones, double or
no double, take or pass. Nothing of the answers shows while it matters: no
count, no hint, to nobody (moderators included). Once the player has acted the
poll is revealed once (:meth:`Kibitzers.reveal_after`): the room's answers, the
player's choice and the neural net's equity for each, posted through the
outbox (kind :data:`~bot.store.kibitzers.REVEAL_KIND`). Each server keeps a
table of its kibitzers: answers given, and how often the net agreed.

The poll's answers are the core's words (``double``/``no double``,
``take``/``pass``, a play's canonical notation); the Discord layer shows them.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

from bot.core.advice import Advice
from bot.core.deliveries import Deliveries
from bot.core.model import Delivery, GameState, NoGameError, ServiceError, StaleGameError
from bot.store import Store
from bot.store.kibitzers import REVEAL_KIND, KibitzerScore, KibitzerStore, PollRow
from bot.store.outbox import OutboxEntry
from bot.store.shards import Shard
from engine import Action, Game, IllegalPlayError, NotationError, Phase, format_play, parse_play
from i18n import _, worded

log = logging.getLogger(__name__)

DOUBLE, NO_DOUBLE, TAKE, PASS = "double", "no double", "take", "pass"
VERDICT_PLY = 0
"""The depth the net judges a poll's answers at (0-ply: a few milliseconds, in a worker thread)."""

__all__ = [
    "DOUBLE",
    "NO_DOUBLE",
    "PASS",
    "REVEAL_KIND",
    "TAKE",
    "Kibitzers",
    "KibitzerScore",
    "Poll",
    "Reveal",
    "RevealDelivery",
]


@dataclass(frozen=True, slots=True)
class Poll:
    """The decision a game waits for, as onlookers are asked it."""

    game_id: int
    version: int
    player_id: int
    kind: str
    """``play``, ``cube`` (double or no double) or ``take`` (take or pass)."""
    answers: tuple[str, ...]
    position_id: str


def poll_of(state: GameState) -> Poll | None:
    """The poll a game's board offers now (None: nothing to ask, or polls are off)."""
    if not state.is_active or not getattr(state.options, "kibitzers", True) or state.options.practice:
        return None
    actor = state.to_act()
    if actor is None or actor.is_bot or state.options.team_at(state.game.turn) is not None:
        return None  # the computer's turn, or a team's (its members vote on it: bot.core.consultations)
    game = state.game
    answers: tuple[str, ...]
    if game.phase is Phase.PLAY and game.dice is not None:
        plays = state.legal_play_texts()
        if len(plays) < 2:
            return None
        kind, answers = "play", tuple(plays)
    elif game.phase is Phase.ROLL and game.opening_offer is None and game.can_double(game.turn):
        kind, answers = "cube", (NO_DOUBLE, DOUBLE)
    elif game.phase is Phase.DOUBLED:
        kind, answers = "take", (TAKE, PASS)
    else:
        return None
    try:
        position_id = game.gnubg_id()
    except Exception:  # a variant GNU Backgammon cannot spell: no poll
        return None
    return Poll(state.id, state.version, actor.user_id, kind, answers, position_id)


@dataclass(frozen=True, slots=True)
class Reveal:
    """A revealed poll: the room's answers, the player's, the net's."""

    game_id: int
    version: int
    player_id: int
    kind: str
    counts: tuple[tuple[str, int], ...]
    """(answer, how many onlookers gave it), most given first."""
    chosen: str | None
    """What the player did (None: they resigned, forfeited or ran out of time)."""
    verdict: dict[str, float] | None
    """The net's equity of each answer (for the player to act), None without the engines."""

    @property
    def best(self) -> str | None:
        if not self.verdict:
            return None
        return max(self.verdict, key=lambda answer: self.verdict[answer])  # type: ignore[index]

    @property
    def voters(self) -> int:
        return sum(n for _, n in self.counts)


@dataclass(frozen=True, slots=True)
class RevealDelivery(Delivery):
    """A poll's reveal to post (kind :data:`REVEAL_KIND`)."""

    reveal: Reveal | None = None


def choice_of(kind: str, action: dict[str, object] | None) -> str | None:
    """What the player's logged action answers the poll with."""
    if action is None:
        return None
    what = action.get("kind")
    if kind == "play":
        return str(action.get("text") or "") if what == "play" else None
    if kind == "cube":
        return DOUBLE if what == "double" else NO_DOUBLE if what == "roll" else None
    if kind == "take":
        return TAKE if what in ("take", "beaver") else PASS if what == "pass" else None
    return None


class Kibitzers:
    """The polls of one bot process.

    :param advice: the bot's door to the neural nets (:class:`~bot.core.advice.Advice`), asked
        when a poll is revealed; without it (or without the engines) a reveal has no verdict.
    """

    def __init__(
        self,
        store: Store,
        clock: Callable[[], datetime],
        get_game: Callable[[int], Awaitable[GameState]],
        deliveries: Deliveries | None = None,
        *,
        advice: Callable[[], Advice | None] | None = None,
    ) -> None:
        self.polls = KibitzerStore(store.db)
        self.store = store
        self.clock = clock
        self._get_game = get_game
        self._advice = advice
        self.deliveries = deliveries
        if deliveries is not None:
            deliveries.wordings[REVEAL_KIND] = self._word_reveal

    async def vote(self, state: GameState, version: int, user_id: int, answer: str) -> str:
        """Record an onlooker's answer to the poll of ``state`` at ``version``; returns it as
        kept (a typed play in the menu's notation).

        :raises ServiceError: a player of the game, polls off, the player acted already,
            an answer that is not one of the poll's.
        """
        if state.seat(user_id) is not None:
            raise ServiceError(_("you play in this game: the poll is for the onlookers"))
        poll = poll_of(state)
        if poll is None or state.version != version:
            raise StaleGameError(_("the player has acted: the poll is closed, its answers are shown under the board"))
        if answer not in poll.answers and poll.kind == "play" and state.game.dice is not None:
            try:  # a play typed (more plays than a menu holds): in the menu's notation
                answer = format_play(parse_play(state.game.position, state.game.dice, answer))
            except (NotationError, IllegalPlayError) as error:
                raise ServiceError(_("that is not a legal play here: {why}").format(why=worded(error.reason))) from None
        if answer not in poll.answers:
            raise ServiceError(_("that is not one of the poll's answers"))
        stored = await self.polls.vote(
            game_id=state.id,
            version=version,
            guild_id=state.guild_id,
            channel_id=state.channel_id,
            player_id=poll.player_id,
            kind=poll.kind,
            position_id=poll.position_id,
            answers=poll.answers,
            user_id=user_id,
            answer=answer,
        )
        if not stored:
            raise StaleGameError(_("the player has acted: the poll is closed, its answers are shown under the board"))
        return answer

    async def answer_of(self, game_id: int, version: int, user_id: int) -> str | None:
        """An onlooker's own answer (for them alone)."""
        return (await self.polls.answers(game_id, version)).get(user_id)

    # -- the reveal ---------------------------------------------------------------------------

    async def reveal_after(self, state: GameState) -> int:
        """Reveal the game's open polls its player has acted on (``state``: the game now);
        returns how many were revealed (their messages are owed to the outbox)."""
        revealed = 0
        for poll in await self.polls.open_polls(state.id):
            if poll.version >= state.version and state.is_active:
                continue  # still the player's to answer
            if await self._reveal(poll, state):
                revealed += 1
        if revealed and self.deliveries is not None:
            self.deliveries.wake()
        return revealed

    async def reveal_leftovers(self, shard: Shard | None = None) -> int:
        """After a restart: reveal the polls whose player acted while the bot was away."""
        revealed = 0
        games = sorted({p.game_id for p in await self.polls.moved_on(shard)})
        for game_id in games:
            try:
                state = await self._state(game_id)
            except NoGameError:
                continue
            revealed += await self.reveal_after(state)
        return revealed

    async def _state(self, game_id: int) -> GameState:
        return await self._get_game(game_id)

    async def _reveal(self, poll: PollRow, state: GameState) -> bool:
        actions = await self.store.games.actions(poll.game_id, after_seq=poll.version)
        chosen = choice_of(poll.kind, actions[0].action if actions else None)
        verdict = await self.verdict(poll, state)
        best = max(verdict, key=lambda a: verdict[a]) if verdict else None
        return await self.polls.reveal(poll, chosen, verdict, best)

    async def verdict(self, poll: PollRow, state: GameState) -> dict[str, float] | None:
        """The net's equity of each of the poll's answers, for the player to act; None
        when the engines are missing or cannot read the position."""
        advice = self._advice() if self._advice is not None else None
        if advice is None or not advice.available():
            return None
        try:
            game = Game(state.options.game_settings())
            game.apply(Action("setup", text=poll.position_id))
            analyst = advice.analyst
            if poll.kind == "play":
                assert game.dice is not None
                ranked = await analyst.aplay_equities(game.position, game.dice, ply=VERDICT_PLY)
                equities = {c.text: c.equity for c in ranked}
                return {a: round(equities[a], 4) for a in poll.answers if a in equities}
            cube = await analyst.acube_action(game, level=VERDICT_PLY)
            if poll.kind == "cube":
                doubled = min(cube.double_take, cube.double_pass)
                return {NO_DOUBLE: round(cube.no_double, 4), DOUBLE: round(doubled, 4)}
            # the taker's side of the doubler's equities
            return {TAKE: round(-cube.double_take, 4), PASS: round(-cube.double_pass, 4)}
        except Exception:  # the verdict is a courtesy: the reveal goes out without it
            log.warning("no verdict for the poll of game %s at %s", poll.game_id, poll.version, exc_info=True)
            return None

    async def reveal_of(self, poll: PollRow) -> Reveal:
        answers = await self.polls.answers(poll.game_id, poll.version)
        counted = Counter(answers.values())
        counts = tuple(sorted(counted.items(), key=lambda item: (-item[1], item[0])))
        return Reveal(poll.game_id, poll.version, poll.player_id, poll.kind, counts, poll.chosen, poll.verdict)

    async def _word_reveal(self, entry: OutboxEntry) -> Delivery | None:
        poll = await self.polls.poll(int(entry.payload.get("game", 0)), int(entry.payload.get("version", -1)))
        if poll is None:
            return None
        return RevealDelivery(
            kind=REVEAL_KIND,
            entries=(entry.id,),
            guild_id=entry.guild_id,
            channel_id=entry.channel_id,
            attempts=entry.attempts,
            retried=self.deliveries is not None and self.deliveries.retried([entry]),
            reveal=await self.reveal_of(poll),
        )

    # -- the table ----------------------------------------------------------------------------

    async def table(self, guild_id: int, limit: int = 10) -> list[KibitzerScore]:
        """The server's kibitzers: agreement with the net, answers given (revealed polls only)."""
        return await self.polls.scores(guild_id, limit=limit)
