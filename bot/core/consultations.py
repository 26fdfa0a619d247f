"""Consultation games: a side played by a team, its every decision put to a vote.

A team is the members of a role or of a private thread (:class:`~bot.core.model.TeamSeat`
in the game's options); its seat's player is the team itself, so the game's
log, board, outbox, deadlines and record are an ordinary game's, and the
members' own ratings are untouched (a team's game is unrated; its results are
the team's record: :meth:`Consultations.record`).

Each decision of the team (a play among the legal ones, double or not, take or
pass, accept or reject a resignation) opens a vote (:meth:`Consultations.advance`)
with a deadline, :data:`VOTE_SHARE` of the game's time per move; a roll with no
cube choice is made at once. Members vote privately and may change their mind
until the vote closes (:meth:`Consultations.close`): at its deadline, or at the
first ballot after it if nobody had voted. The answer most given is played; a
tie goes to the captain's ballot (else to the first tied answer in the vote's
order). A vote is stored before its prompt is owed and closed in the
transaction that owes its tally; the team's action is compare-and-set on the
game's version: a restart mid-vote loses nothing and plays nothing twice.
A vote nobody has answered when :data:`REMIND_SHARE` of its time has passed is
reminded once in the team's thread (:meth:`Consultations.remind`), claimed in
the transaction that owes it; the game's own reminder is not sent to a team.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from bot.core.deliveries import Deliveries
from bot.core.kibitzers import DOUBLE, NO_DOUBLE, PASS, TAKE, choice_of
from bot.core.model import (
    Delivery,
    GameState,
    NoGameError,
    Outcome,
    ServiceError,
    StaleGameError,
    TeamSeat,
)
from bot.store import Store
from bot.store.consultations import (
    PROMPT_KIND,
    REMINDER_KIND,
    TALLY_KIND,
    ConsultationStore,
    TeamRecord,
    VoteRow,
)
from bot.store.outbox import OutboxEntry
from bot.store.shards import Shard, serves
from engine import IllegalPlayError, NotationError, Phase, format_play, parse_play
from i18n import _, worded

if TYPE_CHECKING:
    from bot.core.games import GameService

log = logging.getLogger(__name__)

ACCEPT, REJECT = "accept", "reject"
ROLL = "roll"
"""Not a vote: the team rolls at once (no cube choice)."""
VOTE_SHARE = 0.5
"""A vote closes when this share of the game's time per move has passed."""
REMIND_SHARE = 0.5
"""A vote nobody has answered is reminded in the team's thread once this share of its time has passed."""

__all__ = [
    "ACCEPT",
    "PROMPT_KIND",
    "REJECT",
    "REMINDER_KIND",
    "REMIND_SHARE",
    "TALLY_KIND",
    "VOTE_SHARE",
    "Consultations",
    "Question",
    "TeamRecord",
    "decide",
    "question_of",
]


@dataclass(frozen=True, slots=True)
class Question:
    """The decision a team's game waits for, as its members are asked it."""

    team: TeamSeat
    kind: str
    """``play``, ``cube`` (double or no double), ``take`` (take or pass), ``resignation``
    (accept or reject), or :data:`ROLL` (nothing to vote on)."""
    answers: tuple[str, ...]


def question_of(state: GameState) -> Question | None:
    """What the team to act must decide now (None: a member's or the computer's turn,
    a forced play the service makes, or the game is over)."""
    if not state.is_active or state.match.game is None or not state.options.teams:
        return None
    game = state.game
    if game.is_over:
        return None
    team = state.options.team_at(game.turn)
    if team is None:
        return None
    if game.phase is Phase.PLAY and game.dice is not None:
        plays = state.legal_play_texts()
        return Question(team, "play", tuple(plays)) if len(plays) > 1 else None
    if game.phase is Phase.ROLL:
        if game.can_double(game.turn):
            return Question(team, "cube", (NO_DOUBLE, DOUBLE))
        return Question(team, ROLL, ())
    if game.phase is Phase.DOUBLED:
        return Question(team, "take", (TAKE, PASS))
    if game.phase is Phase.RESIGNATION:
        return Question(team, "resignation", (ACCEPT, REJECT))
    return None


def decide(answers: Sequence[str], ballots: Mapping[int, str], captain_id: int) -> tuple[str | None, bool]:
    """The team's choice from its ballots: the answer most given; a tie goes to the
    captain's ballot, else to the first tied answer in the vote's order. Returns
    (choice, whether the captain broke a tie); None without a ballot."""
    counts = Counter(a for a in ballots.values() if a in answers)
    if not counts:
        return None, False
    top = max(counts.values())
    tied = [a for a in answers if counts.get(a) == top]
    if len(tied) > 1 and ballots.get(captain_id) in tied:
        return ballots[captain_id], True
    return tied[0], False


def _chosen_in_log(kind: str, action: dict[str, object] | None) -> str | None:
    if kind == "resignation" and action is not None:
        what = action.get("kind")
        return ACCEPT if what == "accept_resignation" else REJECT if what == "reject_resignation" else None
    return choice_of(kind, action)


class Consultations:
    """The consultation games of one bot process."""

    def __init__(
        self,
        store: Store,
        clock: Callable[[], datetime],
        service: GameService,
        get_game: Callable[[int], Awaitable[GameState]],
        deliveries: Deliveries | None = None,
    ) -> None:
        self.votes = ConsultationStore(store.db)
        self.store = store
        self.clock = clock
        self.service = service
        self._get_game = get_game
        self.deliveries = deliveries
        if deliveries is not None:
            deliveries.wordings[PROMPT_KIND] = self._word
            deliveries.wordings[TALLY_KIND] = self._word
            deliveries.wordings[REMINDER_KIND] = self._word

    # -- the turn ------------------------------------------------------------------------------

    async def advance(self, state: GameState) -> Outcome | None:
        """The team to act: roll for it when there is nothing to decide (the outcome to
        post), else put the decision to a vote (once per version)."""
        question = question_of(state)
        if question is None:
            return None
        if question.kind == ROLL:
            try:
                return await self.service.roll(state.id, question.team.team_id, version=state.version)
            except StaleGameError:
                return None  # rolled already (another pass, another process)
        days = max(state.options.move_days, 1)
        now = self.clock()
        deadline = now + timedelta(days=days * VOTE_SHARE)
        remind_at = now + (deadline - now) * REMIND_SHARE
        opened = await self.votes.open(
            game_id=state.id,
            version=state.version,
            seat=question.team.seat,
            guild_id=state.guild_id,
            thread_id=question.team.thread_id,
            kind=question.kind,
            answers=question.answers,
            deadline=deadline.timestamp(),
            remind_at=remind_at.timestamp(),
        )
        if opened and self.deliveries is not None:
            self.deliveries.wake()
        return None

    async def ballot(self, state: GameState, version: int, user_id: int, answer: str, *, member: bool) -> VoteRow:
        """A member's ballot on the vote of ``state`` at ``version`` (``member``: whether
        they belong to the team, as the Discord layer found).

        :raises ServiceError: not a member of the team, the vote closed, an answer that
            is not one of the vote's.
        """
        vote = await self.votes.vote(state.id, version)
        if vote is None or vote.closed or state.version != version:
            raise StaleGameError(_("this vote is closed: the team has played"))
        if not member:
            raise ServiceError(_("only the team's members vote on its moves"))
        if answer not in vote.answers and vote.kind == "play" and state.game.dice is not None:
            try:  # a play typed (more plays than a menu holds): in the menu's notation
                answer = format_play(parse_play(state.game.position, state.game.dice, answer))
            except (NotationError, IllegalPlayError) as error:
                raise ServiceError(_("that is not a legal play here: {why}").format(why=worded(error.reason))) from None
        if answer not in vote.answers:
            raise ServiceError(_("that is not one of the vote's answers"))
        if not await self.votes.ballot(state.id, version, user_id, answer):
            raise StaleGameError(_("this vote is closed: the team has played"))
        return vote

    async def ballot_of(self, game_id: int, version: int, user_id: int) -> str | None:
        """A member's own ballot (for them alone)."""
        return (await self.votes.ballots(game_id, version)).get(user_id)

    # -- closing -------------------------------------------------------------------------------

    async def close(self, vote: VoteRow) -> Outcome | None:
        """Close a vote: play the team's choice (the outcome to post) and owe the tally.
        A vote nobody answered stays open (the game's own clock still runs); one whose
        game moved on meanwhile (a crash after the play, a forfeit) is closed with what
        the log says was played."""
        try:
            state = await self._get_game(vote.game_id)
        except NoGameError:
            return None
        team = state.options.team_at(vote.seat)
        ballots = await self.votes.ballots(vote.game_id, vote.version)
        choice, tie_broken = decide(vote.answers, ballots, team.captain_id if team is not None else 0)
        outcome: Outcome | None = None
        chosen: str | None
        if state.is_active and state.version == vote.version and team is not None:
            if choice is None:
                return None
            try:
                outcome = await self._play(vote, team, choice)
            except StaleGameError:
                state = await self._get_game(vote.game_id)
        if outcome is not None:
            chosen = choice
        else:
            actions = await self.store.games.actions(vote.game_id, after_seq=vote.version)
            chosen = _chosen_in_log(vote.kind, actions[0].action if actions else None)
        counts = Counter(ballots.values())
        tally: dict[str, object] = {
            "counts": sorted(counts.items(), key=lambda item: (-item[1], item[0])),
            "kind": vote.kind,
            "chosen": chosen,
            "tie": tie_broken,
            "captain": team.captain_id if team is not None else None,
        }
        if await self.votes.close(vote, chosen, tally) and self.deliveries is not None:
            self.deliveries.wake()
        return outcome

    async def _play(self, vote: VoteRow, team: TeamSeat, choice: str) -> Outcome:
        service, game_id, who, version = self.service, vote.game_id, team.team_id, vote.version
        if vote.kind == "play":
            return await service.play(game_id, who, choice, version=version)
        if vote.kind == "cube":
            if choice == DOUBLE:
                return await service.double(game_id, who, version=version)
            return await service.roll(game_id, who, version=version)
        if vote.kind == "take":
            if choice == TAKE:
                return await service.take(game_id, who, version=version)
            return await service.pass_double(game_id, who, version=version)
        if choice == ACCEPT:
            return await service.accept_resignation(game_id, who, version=version)
        return await service.reject_resignation(game_id, who, version=version)

    async def due(self, now: datetime | None = None, shard: Shard | None = None) -> list[VoteRow]:
        """Open votes past their deadline, or whose game has moved on."""
        return await self.votes.due((now or self.clock()).timestamp(), shard)

    async def next_due(self, shard: Shard | None = None) -> datetime | None:
        """The next vote's close or reminder."""
        dues = [
            d for d in (await self.votes.next_deadline(shard), await self.votes.next_reminder(shard)) if d is not None
        ]
        return datetime.fromtimestamp(min(dues), tz=self.clock().tzinfo) if dues else None

    async def remind(self, now: datetime | None = None, shard: Shard | None = None) -> int:
        """Owe the reminders due: each open vote nobody has answered yet, once, in its team's
        thread (a role team's reminder names the role). Returns how many are owed."""
        owed = 0
        for vote in await self.votes.reminders_due((now or self.clock()).timestamp(), shard):
            try:
                state = await self._get_game(vote.game_id)
            except NoGameError:
                state = None
            team = state.options.team_at(vote.seat) if state is not None else None
            payload: dict[str, object] = {"role": team.team_id} if team is not None and team.kind == "role" else {}
            if await self.votes.claim_reminder(vote, payload):
                owed += 1
        if owed and self.deliveries is not None:
            self.deliveries.wake()
        return owed

    async def waiting(self, shard: Shard | None = None) -> list[GameState]:
        """Active team games whose team is to act with no vote put yet (after a restart)."""
        rows = await self.store.db.fetchall(
            "SELECT id, guild_id, version FROM games WHERE status = 'active' AND settings LIKE ?", ("%team_id%",)
        )
        waiting = []
        for row in rows:
            if shard is not None and not serves(shard, int(row["guild_id"])):
                continue
            if await self.votes.vote(int(row["id"]), int(row["version"])) is not None:
                continue
            try:
                state = await self._get_game(int(row["id"]))
            except NoGameError:
                continue
            if question_of(state) is not None:
                waiting.append(state)
        return waiting

    # -- the team's record ---------------------------------------------------------------------

    async def record(self, team_id: int, guild_id: int) -> TeamRecord:
        return await self.votes.record(team_id, guild_id)

    # -- the messages --------------------------------------------------------------------------

    async def _word(self, entry: OutboxEntry) -> Delivery | None:
        game_id, version = int(entry.payload.get("game", 0)), int(entry.payload.get("version", -1))
        vote = await self.votes.vote(game_id, version)
        if vote is None or entry.kind == REMINDER_KIND and vote.closed:
            return None  # a reminder of a vote closed meanwhile: nothing left to remind
        data = dict(entry.payload)
        data.update(kind_of_vote=vote.kind, answers=list(vote.answers), deadline=vote.deadline, seat=vote.seat)
        return Delivery(
            kind=entry.kind,
            entries=(entry.id,),
            guild_id=entry.guild_id,
            channel_id=entry.channel_id,
            attempts=entry.attempts,
            retried=self.deliveries is not None and self.deliveries.retried([entry]),
            data=data,
        )
