"""Puzzles of the day and drills: the server's own mistakes, to be found again.

Every analysed game keeps its mistakes with their positions and the equity of
each choice (:meth:`bot.ai.GameAnalysis.detail`). From those:

- **The puzzle of the day** (per server that turned it on, in its puzzle
  channel): the position of the biggest error a member made among the day's
  candidates (games finished in the last day; else the biggest of the last
  :data:`CANDIDATE_DAYS` days), never from a match still being played, never a
  position the server has had before, names hidden unless the server shows
  them. It is posted with a menu of the best choices; members answer privately,
  once each; the next day (UTC) it is revealed: each choice's equity and who
  got it right, and right answers build streaks (a day missed or wrong ends
  one) and the server's puzzle leaderboard. Posting and revealing are due work
  (:meth:`Puzzles.run_due`, a scheduler job) that owes its message to the
  outbox in the same transaction, so a crash loses none.
- **Extra puzzles** (``/bglearn puzzle``): today's puzzle if you have not
  answered it, else another position of the server's games, answered at once.
- **Drills** (``/bglearn drill``): your own errors, served privately on a
  spaced schedule (:data:`DRILL_INTERVALS`): a right answer moves a drill up a
  box and further off, a wrong one brings it back soon, until it is learned.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from time import monotonic
from typing import Any

from bot.core.audience import Sees, everyone
from bot.core.deliveries import Deliveries
from bot.core.model import Delivery, PlayerRef, ServiceError, storage_errors_as_service_errors
from bot.core.players import PlayerNames
from bot.core.progress import MistakeLine, mistake_of
from bot.store import DrillRow, NotFoundError, OutboxEntry, PuzzleRow, ScoreRow, Shard, Store
from i18n import N_, _

log = logging.getLogger(__name__)

MIN_LOSS = 0.04
"""A real error: it loses at least this much equity (GNU Backgammon's "doubtful" and worse)."""
PUBLISHED = 0.08
"""An error losing more is spelled out by the public analysis ("played X, better Y": the
game-over message, ``/bg analysis``; :data:`bot.ai.BLUNDER_THRESHOLD`): the puzzle of the
day, whose answer waits for its reveal, is never one of those."""
CANDIDATE_DAYS = 30
"""When the day brought no candidate, the biggest error of this many days is taken."""
MAX_CHOICES = 5
"""The plays a checker puzzle offers: the best ones, and the one that was played."""
BEST = 0.0005
"""A choice within this much of the best counts as right (equal plays are both right)."""
DRILL_INTERVALS = (timedelta(days=1), timedelta(days=3), timedelta(days=7), timedelta(days=21))
"""How long a drill rests after a right answer in box 0, 1, 2, 3; right in the last box: learned."""
AGAIN = timedelta(minutes=10)
"""A drill answered wrong comes back this soon."""
ANALYSED_KEPT = 400
"""The analysed games (the newest) a puzzle or a member's drills are looked for in."""
CANDIDATES_KEPT_FOR = 120.0
"""Seconds a server's candidates are kept for the next ``/bglearn puzzle`` (a new analysis waits that long)."""
QUIET_FOR = timedelta(hours=1)
"""A server with no candidate is looked at again after this long (not on every pass)."""
SERVED_LOOKED_AT = 25
"""The newest extra (or past daily) puzzles looked at for one a member may be served."""
SETTING_CHANNEL = "puzzle_channel"
SETTING_NAMES = "puzzle_names"

DECISIONS = {"checker": "checker", "double": "double", "take": "take", "pass": "take", "beaver": "take"}
"""A mistake's kind -> the puzzle's question: the play, double or not, take or pass."""


@dataclass(frozen=True, slots=True)
class Choice:
    label: str
    equity: float
    """For the player deciding: cubeless for plays, cubeful (per cube) for the cube."""
    loss: float
    """What it gives up against the best choice."""

    @property
    def best(self) -> bool:
        return self.loss < BEST


@dataclass(frozen=True, slots=True)
class Decision:
    """A position and what there was to choose (a puzzle's, or a drill's)."""

    kind: str
    """``checker`` (which play), ``double`` (double or not) or ``take`` (take or pass)."""
    gnubg_id: str
    dice: tuple[int, int] | None
    seat: int
    """The seat of the player deciding."""
    names: tuple[str, str]
    move: int
    game_id: int
    game_number: int
    played: str
    choices: tuple[Choice, ...]
    """In the order offered (not best first: the order gives nothing away)."""
    imported: bool = False
    """From a game imported from a file (no game here: :attr:`game_id` is 0)."""

    @property
    def best(self) -> Choice:
        return min(self.choices, key=lambda c: (c.loss, c.label))

    @property
    def played_choice(self) -> Choice | None:
        return next((c for c in self.choices if c.label == self.played), None)

    def to_payload(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "id": self.gnubg_id,
            "dice": list(self.dice) if self.dice else None,
            "seat": self.seat,
            "names": list(self.names),
            "move": self.move,
            "game": self.game_id,
            "number": self.game_number,
            "played": self.played,
            "choices": [[c.label, round(c.equity, 4)] for c in self.choices],
        } | ({"imported": True} if self.imported else {})

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> Decision:
        pairs = [(str(label), float(equity)) for label, equity in data.get("choices") or ()]
        top = max((e for _, e in pairs), default=0.0)
        dice = data.get("dice")
        names = data.get("names") or ("", "")
        return cls(
            kind=str(data["kind"]),
            gnubg_id=str(data["id"]),
            dice=(int(dice[0]), int(dice[1])) if dice else None,
            seat=int(data.get("seat", 0)),
            names=(str(names[0]), str(names[1])),
            move=int(data.get("move", 0)),
            game_id=int(data.get("game", 0)),
            game_number=int(data.get("number", 1)),
            played=str(data.get("played", "")),
            choices=tuple(Choice(label, equity, max(top - equity, 0.0)) for label, equity in pairs),
            imported=bool(data.get("imported", False)),
        )


TAKE, PASS = N_("Take"), N_("Pass")
CUBE_LABELS = {"no double": N_("No double"), "double": N_("Double"), "take": TAKE, "beaver": TAKE, "pass": PASS}
"""A cube decision's choices, kept in English (a choice's label is its key) and worded where shown."""


def decision_of(mistake: MistakeLine, names: tuple[str, str], game_id: int, game_number: int) -> Decision | None:
    """The question a kept mistake asks (None if it can't be one: no position, one choice)."""
    kind = DECISIONS.get(mistake.kind)
    if kind is None or not mistake.gnubg_id or len(mistake.choices) < 2:
        return None
    ranked = list(mistake.choices)  # best first
    top = ranked[0][1]
    if kind == "checker":
        played = mistake.played
        offered = ranked[:MAX_CHOICES]
        if played not in [label for label, _ in offered]:
            made = next(((label, e) for label, e in ranked if label == played), None)
            if made is None:
                return None
            offered = [*ranked[: MAX_CHOICES - 1], made]
        offered.sort(key=lambda pair: pair[0])  # by notation: the order gives nothing away
    else:
        played = CUBE_LABELS.get(mistake.played, mistake.played)
        order = (CUBE_LABELS["no double"], CUBE_LABELS["double"]) if kind == "double" else (TAKE, PASS)
        by_label = dict(ranked)
        if set(by_label) != set(order):
            return None
        offered = [(label, by_label[label]) for label in order]
    return Decision(
        kind=kind,
        gnubg_id=mistake.gnubg_id,
        dice=mistake.dice,
        seat=mistake.player,
        names=names,
        move=mistake.move,
        game_id=game_id,
        game_number=game_number,
        played=played,
        choices=tuple(Choice(label, equity, max(top - equity, 0.0)) for label, equity in offered),
    )


@dataclass(frozen=True, slots=True)
class Puzzle:
    id: int
    guild_id: int
    kind: str
    """``daily`` or ``extra``."""
    day: str | None
    user_id: int
    """The member who erred there."""
    decision: Decision
    names_shown: bool
    channel_id: int | None
    message_id: int | None
    reveal_at: datetime | None
    revealed: bool

    @property
    def answered_at_once(self) -> bool:
        """An extra puzzle, or a daily one already revealed: the answer is shown at once."""
        return self.kind != "daily" or self.revealed

    @property
    def names_now(self) -> bool:
        """Names (and the game and move) are shown: where the server shows them, and for
        the puzzle of the day only after its reveal (they would lead to the game's analysis)."""
        return self.names_shown and self.answered_at_once


def _utc(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, UTC)


def puzzle_of(row: PuzzleRow) -> Puzzle:
    payload = row.payload
    return Puzzle(
        id=row.id,
        guild_id=row.guild_id,
        kind=row.kind,
        day=row.day,
        user_id=row.user_id,
        decision=Decision.from_payload(payload),
        names_shown=bool(payload.get("names_shown")),
        channel_id=row.channel_id,
        message_id=row.message_id,
        reveal_at=_utc(row.reveal_at),
        revealed=row.revealed_at is not None,
    )


@dataclass(frozen=True, slots=True)
class Answered:
    """What a member's answer to a puzzle (or a drill) did."""

    choice: Choice
    right: bool
    counted: bool
    """Recorded now (False: answered before, :attr:`before` stands)."""
    before: Choice | None = None
    shown: bool = False
    """The equities are shown at once (an extra puzzle, a revealed one, a drill)."""
    next_due: datetime | None = None
    """A drill: when it comes back (None: learned, or not a drill)."""
    learned: bool = False


@dataclass(frozen=True, slots=True)
class Reveal:
    """A puzzle's answers: each choice with who chose it."""

    puzzle: Puzzle
    chosen: tuple[tuple[Choice, tuple[int, ...]], ...]
    """Each choice (in the order offered) and the members who chose it."""
    streaks: tuple[tuple[int, int], ...] = ()
    """(member, streak) of those who got it right, longest first."""

    @property
    def right(self) -> tuple[int, ...]:
        return tuple(user for choice, users in self.chosen if choice.best for user in users)


@dataclass(frozen=True, slots=True)
class PuzzleDelivery(Delivery):
    """A puzzle to post (``puzzle``), or its reveal (``puzzle_reveal``)."""

    puzzle: Puzzle | None = None
    reveal: Reveal | None = None


@dataclass(frozen=True, slots=True)
class Drill:
    id: int
    user_id: int
    decision: Decision
    box: int
    due: int
    """Drills due now, this one included."""
    later: int
    learned: int


@dataclass(frozen=True, slots=True)
class Candidate:
    guild_id: int
    channel_id: int
    user_id: int
    finished_at: float
    mistake: MistakeLine
    decision: Decision
    players: tuple[int, int] = (0, 0)


def _build_candidates(
    rows: Sequence[Mapping[str, Any]], refs: Mapping[int, PlayerRef], user_id: int | None
) -> list[Candidate]:
    """The candidates of analysed games (their detail's JSON read), biggest error first: in a
    thread, hundreds of games at once."""
    found: list[Candidate] = []
    for row in rows:
        players = row["players"]
        kept = json.loads(row["detail"]).get("mistakes") or []
        names = (refs[players[0]].name, refs[players[1]].name)
        for item in kept:
            mistake = mistake_of(item)
            erring = players[mistake.player]
            if mistake.lost < MIN_LOSS or refs[erring].is_bot:
                continue
            if user_id is not None and erring != user_id:
                continue
            decision = decision_of(mistake, names, row["game_id"], row["game_number"])
            if decision is None:
                continue
            found.append(
                Candidate(
                    row["guild_id"],
                    row["channel_id"],
                    erring,
                    float(row["finished_at"] or 0.0),
                    mistake,
                    decision,
                    (int(players[0]), int(players[1])),
                )
            )
    found.sort(key=lambda c: (-c.mistake.lost, -c.finished_at, c.decision.game_id, c.mistake.move))
    return found


def _day(moment: datetime) -> str:
    return moment.astimezone(UTC).date().isoformat()


def next_midnight(moment: datetime) -> datetime:
    """The start of the next day (UTC): when today's puzzle is revealed and the next one posted."""
    day = moment.astimezone(UTC).date() + timedelta(days=1)
    return datetime.combine(day, time(0, 0), UTC)


@storage_errors_as_service_errors
class Puzzles:
    """The servers' puzzles and the members' drills."""

    def __init__(
        self,
        store: Store,
        clock: Any,
        names: PlayerNames,
        deliveries: Deliveries | None = None,
        *,
        audience: Callable[[int, int], Sees] | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.names = names
        self.audience: Callable[[int, int], Sees] = audience or (lambda guild_id, channel_id: everyone)
        """``audience(guild_id, channel_id)``: who reads a post in that channel (the Discord
        layer says; the daily puzzle comes only from games they could all see)."""
        self._quiet: dict[int, datetime] = {}
        self._candidates: dict[tuple[int | None, int | None], tuple[float, list[Candidate]]] = {}
        """(server, member) -> (until when, its candidates): the last list built, kept a while."""
        """Servers without a candidate, until when they are left alone."""
        self.deliveries: Deliveries | None = deliveries
        if deliveries is not None:
            deliveries.wordings["puzzle"] = self._word_puzzle
            deliveries.wordings["puzzle_reveal"] = self._word_reveal

    # -- a server's settings ---------------------------------------------------------------------

    async def settings(self, guild_id: int) -> dict[str, Any]:
        return await self.store.servers.get(guild_id)

    async def configure(
        self, guild_id: int, *, channel_id: int | None | bool = False, names: bool | None = None
    ) -> dict[str, Any]:
        """Turn the daily puzzle on in ``channel_id`` (None: off; False: leave it), and
        show or hide the players' names (None: leave it)."""
        changes: dict[str, Any] = {}
        if channel_id is not False:
            changes[SETTING_CHANNEL] = channel_id
        if names is not None:
            changes[SETTING_NAMES] = bool(names)
        self._quiet.pop(guild_id, None)
        return await self.store.servers.update(guild_id, changes)

    # -- candidates ---------------------------------------------------------------------------------

    async def candidates(
        self,
        *,
        guild_id: int | None = None,
        user_id: int | None = None,
        since: datetime | None = None,
        sees: Sees = everyone,
    ) -> list[Candidate]:
        """Real errors (:data:`MIN_LOSS`) of members (not the computer) in analysed games of
        finished matches (of a server, of a member: only theirs), biggest first; only
        games whose channel ``sees`` allows (everyone who reads the puzzle could see it).

        Built in a thread (hundreds of games' JSON and decisions), and a server's whole list
        kept :data:`CANDIDATES_KEPT_FOR` for the next member who asks."""
        key = (guild_id, user_id) if since is None else None
        kept = self._candidates.get(key) if key is not None else None
        if kept is not None and kept[0] > monotonic():
            found = kept[1]
        else:
            rows = await self.store.stats.analysed_games(
                guild_id=guild_id,
                user_id=user_id,
                finished_since=since.timestamp() if since else None,
                limit=ANALYSED_KEPT,
            )
            refs = {uid: await self.names.get(uid) for row in rows for uid in row["players"]}
            found = await asyncio.to_thread(_build_candidates, rows, refs, user_id)  # off the loop
            if key is not None and found:
                if len(self._candidates) > 1000:
                    self._candidates.clear()
                self._candidates[key] = (monotonic() + CANDIDATES_KEPT_FOR, found)
        return [c for c in found if sees(c.channel_id, c.players)]

    def pick(self, candidates: Sequence[Candidate], used: set[str], now: datetime) -> Candidate | None:
        """The biggest error among the day's unused candidates; else the biggest unused one."""
        fresh = [c for c in candidates if c.decision.gnubg_id not in used]
        if not fresh:
            return None
        day_ago = (now - timedelta(days=1)).timestamp()
        today = [c for c in fresh if c.finished_at >= day_ago]
        return (today or fresh)[0]

    # -- the puzzle of the day --------------------------------------------------------------------

    async def run_due(self, now: datetime, shard: Shard | None = None) -> None:
        """The scheduler's job: reveal what is due, then post each server's puzzle of the day."""
        owed = False
        for row in await self.store.puzzles.due_reveals(now.timestamp(), shard):
            owed |= await self.store.puzzles.reveal(row)
        for guild_id, settings in await self.store.servers.having(SETTING_CHANNEL, shard):
            quiet = self._quiet.get(guild_id)
            if quiet is not None and quiet > now:
                continue
            try:
                posted = await self.post_daily(
                    guild_id, int(settings[SETTING_CHANNEL]), bool(settings.get(SETTING_NAMES)), now
                )
            except Exception:
                log.exception("the puzzle of the day of server %s failed", guild_id)
                continue
            owed |= posted is not None
        if owed and self.deliveries is not None:
            self.deliveries.wake()  # the dispatcher posts what is owed now

    async def post_daily(self, guild_id: int, channel_id: int, names_shown: bool, now: datetime) -> Puzzle | None:
        """Today's puzzle for a server (owed to its channel), unless it has one."""
        day = _day(now)
        if await self.store.puzzles.daily(guild_id, day) is not None:
            return None
        since = now - timedelta(days=CANDIDATE_DAYS)
        sees = self.audience(guild_id, channel_id)
        found = await self.candidates(guild_id=guild_id, since=since, sees=sees)
        chosen = self.pick(
            [c for c in found if c.mistake.lost <= PUBLISHED],  # its answer not already public
            await self.store.puzzles.used_keys(guild_id),
            now,
        )
        if chosen is None:
            self._quiet[guild_id] = now + QUIET_FOR
            return None
        row = await self._create(
            chosen, guild_id, "daily", day, channel_id, names_shown, reveal_at=next_midnight(now), owes="puzzle"
        )
        return None if row is None else puzzle_of(row)

    async def _create(
        self,
        chosen: Candidate,
        guild_id: int,
        kind: str,
        day: str | None,
        channel_id: int | None,
        names_shown: bool,
        *,
        reveal_at: datetime | None = None,
        owes: str | None = None,
    ) -> PuzzleRow | None:
        payload = {**chosen.decision.to_payload(), "names_shown": names_shown, "lost": round(chosen.mistake.lost, 4)}
        return await self.store.puzzles.create(
            guild_id=guild_id,
            kind=kind,
            day=day,
            position_key=chosen.decision.gnubg_id,
            game_id=chosen.decision.game_id,
            game_number=chosen.decision.game_number,
            user_id=chosen.user_id,
            payload=payload,
            channel_id=channel_id,
            reveal_at=reveal_at.timestamp() if reveal_at else None,
            owes=owes,
        )

    async def next_wakeup(self, shard: Shard | None = None) -> datetime | None:
        """When the next reveal is due, or the next day starts (if any server has daily puzzles)."""
        reveal = await self.store.puzzles.next_reveal(shard)
        due = _utc(reveal)
        if await self.store.servers.having(SETTING_CHANNEL, shard):
            midnight = next_midnight(self.clock())
            due = midnight if due is None else min(due, midnight)
        return due

    async def posted(self, puzzle: Puzzle, channel_id: int, message_id: int) -> None:
        await self.store.puzzles.posted(puzzle.id, channel_id, message_id)

    # -- answers ------------------------------------------------------------------------------------

    async def get(self, puzzle_id: int) -> Puzzle:
        row = await self.store.puzzles.get(puzzle_id)
        if row is None:
            raise ServiceError(_("that puzzle is gone"))
        return puzzle_of(row)

    async def answer(self, puzzle_id: int, user_id: int, index: int) -> tuple[Puzzle, Answered]:
        """A member's answer: a daily puzzle's is kept for the reveal (once: the first
        stands); an extra or revealed one's is shown at once."""
        puzzle = await self.get(puzzle_id)
        choices = puzzle.decision.choices
        if not 0 <= index < len(choices):
            raise ServiceError(_("that is not one of the puzzle's choices"))
        choice = choices[index]
        recorded = await self.store.puzzles.answer(puzzle.id, user_id, index, choice.best, choice.loss)
        before = None
        if not recorded:
            earlier = await self.store.puzzles.answer_of(puzzle.id, user_id)
            if earlier is not None and 0 <= earlier.choice < len(choices):
                before = choices[earlier.choice]
        shown = puzzle.answered_at_once
        kept = before or choice
        return puzzle, Answered(kept, kept.best, recorded, before, shown)

    async def reveal_of(self, puzzle: Puzzle) -> Reveal:
        answers = await self.store.puzzles.answers(puzzle.id)
        chosen = []
        for index, choice in enumerate(puzzle.decision.choices):
            chosen.append((choice, tuple(a.user_id for a in answers if a.choice == index)))
        streaks: list[tuple[int, int]] = []
        if puzzle.kind == "daily":
            for answer in answers:
                if answer.correct:
                    score = await self.store.puzzles.score_of(puzzle.guild_id, answer.user_id)
                    streaks.append((answer.user_id, score.streak if score else 1))
            streaks.sort(key=lambda pair: (-pair[1], pair[0]))
        return Reveal(puzzle, tuple(chosen), tuple(streaks))

    async def _seen(self, rows: Sequence[PuzzleRow], sees: Sees) -> PuzzleRow | None:
        """The first puzzle taken from a game whose channel ``sees`` allows (a puzzle taken
        from a hidden channel's game is not served where that channel is not seen)."""
        for row in rows:
            try:
                game = await self.store.games.get(row.game_id)
            except NotFoundError:
                continue
            if sees(game.channel_id, (game.player0, game.player1)):
                return row
        return None

    async def on_demand(self, guild_id: int, user_id: int, sees: Sees = everyone) -> Puzzle:
        """A puzzle for a member who asks: today's if they have not answered it, else
        another one (an extra puzzle of the server, or a new one from its games),
        else a past one they have not answered; only from games whose channel ``sees``
        allows (the readers of the answer could all see it).

        :raises ServiceError: when the server's games have no error left to ask about.
        """
        now = self.clock()
        today = await self.store.puzzles.daily(guild_id, _day(now))
        if today is not None and today.revealed_at is None:
            if await self.store.puzzles.answer_of(today.id, user_id) is None and await self._seen([today], sees):
                return puzzle_of(today)
        extras = await self.store.puzzles.latest(guild_id, kind="extra", unanswered_by=user_id, limit=SERVED_LOOKED_AT)
        extra = await self._seen(extras, sees)
        if extra is not None:
            return puzzle_of(extra)
        settings = await self.settings(guild_id)
        chosen = self.pick(
            await self.candidates(guild_id=guild_id, sees=sees), await self.store.puzzles.used_keys(guild_id), now
        )
        if chosen is not None:
            row = await self._create(chosen, guild_id, "extra", None, None, bool(settings.get(SETTING_NAMES)))
            if row is not None:
                return puzzle_of(row)
        past = await self.store.puzzles.latest(
            guild_id, kind="daily", revealed=True, unanswered_by=user_id, limit=SERVED_LOOKED_AT
        )
        found = await self._seen(past, sees)
        if found is not None:
            return puzzle_of(found)
        raise ServiceError(
            _(
                "there is no puzzle here yet: puzzles come from this server's analysed games, "
                "where a member lost at least 0.04 in one decision"
            )
        )

    async def leaderboard(self, guild_id: int, limit: int = 10) -> list[ScoreRow]:
        return await self.store.puzzles.scores(guild_id, limit=limit)

    async def score(self, guild_id: int, user_id: int) -> ScoreRow | None:
        return await self.store.puzzles.score_of(guild_id, user_id)

    # -- the outbox's wordings ------------------------------------------------------------------

    def _retried(self, entry: OutboxEntry) -> bool:
        return self.deliveries is not None and self.deliveries.retried([entry])

    async def _word_puzzle(self, entry: OutboxEntry) -> Delivery | None:
        row = await self.store.puzzles.get(int(entry.payload.get("puzzle", 0)))
        if row is None:
            return None
        return PuzzleDelivery(
            kind="puzzle",
            entries=(entry.id,),
            guild_id=entry.guild_id,
            channel_id=entry.channel_id,
            attempts=entry.attempts,
            retried=self._retried(entry),
            puzzle=puzzle_of(row),
        )

    async def _word_reveal(self, entry: OutboxEntry) -> Delivery | None:
        row = await self.store.puzzles.get(int(entry.payload.get("puzzle", 0)))
        if row is None:
            return None
        puzzle = puzzle_of(row)
        return PuzzleDelivery(
            kind="puzzle_reveal",
            entries=(entry.id,),
            guild_id=entry.guild_id,
            channel_id=entry.channel_id,
            attempts=entry.attempts,
            retried=self._retried(entry),
            puzzle=puzzle,
            reveal=await self.reveal_of(puzzle),
        )

    # -- drills -----------------------------------------------------------------------------------

    async def next_drill(self, user_id: int) -> Drill | None:
        """The member's drill due first (their errors of games analysed since the last
        look are added first); None when none is due."""
        since = await self.store.puzzles.drills_since(user_id)
        start = None if since is None else datetime.fromtimestamp(since, UTC) - timedelta(days=1)
        found = await self.candidates(user_id=user_id, since=start)
        await self.store.puzzles.add_drills(
            user_id, [(c.decision.gnubg_id, c.decision.game_id, c.decision.to_payload()) for c in found]
        )
        now = self.clock().timestamp()
        row = await self.store.puzzles.due_drill(user_id, now)
        if row is None:
            return None
        return self._drill(row, await self.store.puzzles.drill_counts(user_id, now))

    @staticmethod
    def _drill(row: DrillRow, counts: tuple[int, int, int]) -> Drill:
        return Drill(row.id, row.user_id, Decision.from_payload(row.payload), row.box, *counts)

    async def add_imported_drills(self, user_id: int, decisions: Sequence[Decision]) -> int:
        """Errors of games the member imported from a file, as their drills (theirs alone: drills
        are served privately to their owner); how many are new. Nothing else of an import is kept."""
        return await self.store.puzzles.add_drills(
            user_id, [(d.gnubg_id, None, d.to_payload()) for d in decisions], source="import"
        )

    async def drill_counts(self, user_id: int) -> tuple[int, int, int]:
        return await self.store.puzzles.drill_counts(user_id, self.clock().timestamp())

    async def answer_drill(self, drill_id: int, user_id: int, index: int) -> tuple[Drill, Answered]:
        """Right: up a box, back after :data:`DRILL_INTERVALS` (or learned); wrong: back to
        the first box, again in :data:`AGAIN`.

        :raises ServiceError: someone else's drill, one answered already, a bad choice.
        """
        row = await self.store.puzzles.drill(drill_id)
        if row is None or row.user_id != user_id:
            raise ServiceError(_("that drill is not yours: `/bglearn drill` serves your own"))
        now = self.clock()
        if row.due_at is None or row.due_at > now.timestamp():
            raise ServiceError(_("you answered that drill already: `/bglearn drill` for the next one"))
        drill = self._drill(row, (0, 0, 0))
        choices = drill.decision.choices
        if not 0 <= index < len(choices):
            raise ServiceError(_("that is not one of the drill's choices"))
        choice = choices[index]
        if choice.best:
            box = row.box + 1
            due = now + DRILL_INTERVALS[row.box] if row.box < len(DRILL_INTERVALS) else None
        else:
            box, due = 0, now + AGAIN
        if not await self.store.puzzles.drill_answered(
            row.id, box, due.timestamp() if due else None, expected_box=row.box
        ):
            raise ServiceError(_("you answered that drill already: `/bglearn drill` for the next one"))
        return drill, Answered(choice, choice.best, True, shown=True, next_due=due, learned=due is None)
