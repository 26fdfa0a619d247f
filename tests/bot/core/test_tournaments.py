"""Tournaments in the core (bot/core/tournaments/service.py): sign-up, start, matches
opened through the game service, results from the games' end, rounds advanced once
(two services racing on one database), deadlines, withdrawals, restarts, and whole
tournaments (a 64-player knockout, a 33-player 6-round Swiss) played to the end.

Matches are opened as the Discord layer would (a thread id, then ``open_match``),
and decided by real games: the loser forfeits, or a whole game is played."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import timedelta
from itertools import count

import pytest

from bot.core import ChallengeOptions, GameService, PlayerRef
from bot.core.tournaments import ROUND_KIND, TournamentError, TournamentOptions, TournamentView
from bot.store import open_store
from engine import SeededDice
from tests.bot.core.helpers import FakeClock, play_out, random_step

GUILD = 555
CHANNEL = 4242
ORGANISER = PlayerRef(1, "Olga")


def people(n: int, start: int = 100) -> list[PlayerRef]:
    return [PlayerRef(start + i, f"P{i + 1}") for i in range(n)]


@dataclass
class World:
    """A store and a service, and a stand-in for the Discord layer that opens matches."""

    service: GameService
    clock: FakeClock
    threads: count = field(default_factory=lambda: count(900_000))
    opened: list[int] = field(default_factory=list)
    """Game ids, in the order their matches opened."""
    notices: list[str] = field(default_factory=list)
    headlines: list[str] = field(default_factory=list)
    """Boards posted under a notice (timeouts)."""

    @property
    def t(self):  # noqa: ANN201
        return self.service.tournaments

    async def deliver(self) -> None:
        """What the outbox owes: matches opened (a thread, then the game), the rest settled."""
        deliveries = self.service.deliveries
        for _ in range(100):
            owed = await deliveries.owed(self.clock.now + timedelta(seconds=1), limit=500)
            if not owed:
                return
            for delivery in owed:
                if delivery.kind == ROUND_KIND:
                    for match in delivery.data["matches"]:
                        thread = await self.t.set_thread(match.pairing_id, next(self.threads))
                        outcome = await self.t.open_match(match, thread)
                        if outcome is not None:
                            self.opened.append(outcome.state.id)
                            await deliveries.delivered(outcome.owed)
                elif delivery.kind == "notice":
                    self.notices.append(delivery.text)
                elif delivery.kind == "board" and delivery.headline:
                    self.headlines.append(delivery.headline)
                await deliveries.delivered(delivery.entries)
        raise AssertionError("the outbox never emptied")

    async def tournament(self, n: int, fmt: str = "knockout", **options) -> TournamentView:
        made = await self.t.create(GUILD, CHANNEL, ORGANISER, "Spring Cup", TournamentOptions(format=fmt, **options))
        for player in people(n):
            await self.t.join(made.id, player)
        return await self.t.get(made.id)

    async def open_tables(self, tid: int):  # noqa: ANN201
        view = await self.t.get(tid)
        return [t for t in view.round_tables() if not t.decided]

    async def play_round(self, tid: int, pick) -> TournamentView:  # noqa: ANN001
        """Every open table of the current round decided: ``pick(table)`` is the winner,
        the other forfeits."""
        await self.deliver()
        for table in await self.open_tables(tid):
            assert table.game_id is not None, "each match was opened"
            winner = pick(table)
            loser = table.b if winner == table.a.user_id else table.a
            await self.service.forfeit(table.game_id, loser.user_id)
        await self.deliver()
        return await self.t.get(tid)


_worlds = count(0)


async def open_world(url: str, clock: FakeClock | None = None) -> World:
    clock = clock or FakeClock()
    store = await open_store(url, clock=clock)
    threads = count(900_000 + 10_000 * next(_worlds))  # Discord's thread ids are unique
    return World(GameService(store, dice=SeededDice(5), clock=clock), clock, threads)


@pytest.fixture
async def world(db_url: str) -> AsyncIterator[World]:
    w = await open_world(db_url)
    yield w
    await w.service.store.close()


def better_seed(view_of_seeds: dict[int, int]):  # noqa: ANN201
    return lambda table: min((table.a.user_id, table.b.user_id), key=lambda u: view_of_seeds[u])


# -- sign-up -----------------------------------------------------------------------------------


async def test_sign_up_and_its_refusals(world: World) -> None:
    t = world.t
    with pytest.raises(TournamentError, match="2 to 16"):
        await t.create(GUILD, CHANNEL, ORGANISER, "RR", TournamentOptions(format="round_robin", max_players=40))
    with pytest.raises(TournamentError, match="name"):
        await t.create(GUILD, CHANNEL, ORGANISER, "   ", TournamentOptions())
    made = await t.create(GUILD, CHANNEL, ORGANISER, "Cup\n of   the week", TournamentOptions(max_players=3))
    assert made.name == "Cup of the week" and made.is_open and made.entrants == ()
    a, b, c, d = people(4)
    await t.join(made.id, a)
    with pytest.raises(TournamentError, match="in Cup of the week already"):
        await t.join(made.id, a)
    with pytest.raises(TournamentError, match="bots"):
        await t.join(made.id, PlayerRef(7, "Robo", is_bot=True))
    await t.join(made.id, b)
    await t.join(made.id, c)
    with pytest.raises(TournamentError, match="full"):
        await t.join(made.id, d)
    left = await t.leave(made.id, c.user_id)
    assert [e.player for e in left.entrants] == [a, b]
    with pytest.raises(TournamentError, match="not in"):
        await t.leave(made.id, c.user_id)
    with pytest.raises(TournamentError, match="organiser"):
        await t.start(made.id, a)
    started = await t.start(made.id, ORGANISER)
    assert started.is_running and started.round == 1 and started.rounds == 1
    with pytest.raises(TournamentError, match="sign-up for Cup of the week is closed"):
        await t.join(made.id, d)
    with pytest.raises(TournamentError, match="withdraw"):
        await t.leave(made.id, a.user_id)
    with pytest.raises(TournamentError, match="started already"):
        await t.start(made.id, ORGANISER)
    assert (await t.current(GUILD)).id == made.id


async def test_a_tournament_needs_two_players_and_the_scheduler_cancels_an_empty_one(world: World) -> None:
    t = world.t
    alone = await t.create(GUILD, CHANNEL, ORGANISER, "Lonely", TournamentOptions(signup_hours=2))
    await t.join(alone.id, people(1)[0])
    with pytest.raises(TournamentError, match="at least two"):
        await t.start(alone.id, ORGANISER)
    assert await t.next_wakeup() == world.clock.now + timedelta(hours=2)
    world.clock.advance(hours=2)
    await t.run_due(world.clock.now)
    assert (await t.get(alone.id)).status == "cancelled"
    await world.deliver()
    assert any("fewer than two players" in n for n in world.notices)


async def test_sign_up_closes_and_the_scheduler_starts_it(world: World) -> None:
    made = await world.tournament(4, signup_hours=24)
    world.clock.advance(hours=23)
    await world.t.run_due(world.clock.now)
    assert (await world.t.get(made.id)).is_open
    world.clock.advance(hours=1)
    await world.t.run_due(world.clock.now)
    view = await world.t.get(made.id)
    assert view.is_running and len(view.round_tables()) == 2
    await world.deliver()
    assert len(world.opened) == 2
    assert any("round 1 of 2 has begun, 2 matches" in n for n in world.notices)


async def test_seeding_by_server_rating(world: World) -> None:
    made = await world.tournament(4)
    players = [e.player for e in made.entrants]
    # P4 beats P1 and P2, P3 beats P2: P4 is rated best, then P3
    for winner, loser in ((players[3], players[0]), (players[3], players[1]), (players[2], players[1])):
        channel = 10 + winner.user_id + loser.user_id
        challenge = await world.service.challenges.create(GUILD, channel, winner, loser, ChallengeOptions())
        game = await world.service.challenges.accept(challenge.id, loser.user_id)
        await world.service.forfeit(game.state.id, loser.user_id)
    view = await world.t.start(made.id, ORGANISER)
    seeds = [e.player for e in sorted(view.entrants, key=lambda e: e.seed or 0)]
    assert seeds == [players[3], players[2], players[0], players[1]]  # the best server rating first


# -- whole tournaments ---------------------------------------------------------------------------


async def test_a_knockout_of_5_with_byes_to_the_top_seeds(world: World) -> None:
    made = await world.tournament(5)
    view = await world.t.start(made.id, ORGANISER)
    seeds = {e.player.user_id: e.seed for e in view.entrants}
    first = view.round_tables()
    assert sorted(seeds[t.a.user_id] for t in first if t.is_bye) == [1, 2, 3]
    assert [sorted((seeds[t.a.user_id], seeds[t.b.user_id])) for t in first if not t.is_bye] == [[4, 5]]
    view = await world.play_round(made.id, better_seed(seeds))
    assert view.round == 2 and len(view.round_tables()) == 2
    view = await world.play_round(made.id, better_seed(seeds))
    assert view.round == 3
    view = await world.play_round(made.id, lambda table: table.b.user_id)  # seed 2 beats seed 1 in the final
    assert view.status == "finished" and view.champion is not None and seeds[view.champion.user_id] == 2
    assert [s.standing.place for s in view.standings] == [1, 2, 3, 3, 5]
    assert any("wins Spring Cup" in n for n in world.notices)
    record = await world.t.record(GUILD, view.champion.user_id)
    assert (record.played, record.titles, record.best_place) == (1, 1, 1)


async def test_a_64_player_knockout_to_the_end(world: World) -> None:
    lite = world
    made = await lite.tournament(64, max_players=64, match_length=1)
    view = await lite.t.start(made.id, ORGANISER)
    assert view.rounds == 6
    seeds = {e.player.user_id: e.seed for e in view.entrants}
    for number in range(1, 7):
        assert view.round == number and len(view.round_tables()) == 64 >> number
        view = await lite.play_round(made.id, better_seed(seeds))
    assert view.status == "finished" and seeds[view.champion.user_id] == 1
    assert len(lite.opened) == 63 == len(set(lite.opened))
    places = Counter(s.standing.place for s in view.standings)
    assert places == Counter({1: 1, 2: 1, 3: 2, 5: 4, 9: 8, 17: 16, 33: 32})
    # rated like any game: every match moved its players' server ratings
    changes = await lite.service.store.ratings.changes_of(lite.opened[0])
    assert {c.scope for c in changes} == {GUILD, 0}


async def test_a_33_player_6_round_swiss_to_the_end(world: World) -> None:
    lite = world
    made = await lite.tournament(33, fmt="swiss", swiss_rounds=6, max_players=40, match_length=1, rated=False)
    view = await lite.t.start(made.id, ORGANISER)
    rng = random.Random(33)
    byes: list[int] = []
    for number in range(1, 7):
        tables = view.round_tables()
        assert view.round == number and len(tables) == 17
        assert sorted(p.user_id for t in tables for p in (t.a, t.b) if p is not None) == sorted(
            e.player.user_id for e in view.entrants
        )
        earlier = [t for t in view.tables if t.round < number and t.b is not None]
        met = {frozenset((t.a.user_id, t.b.user_id)) for t in earlier}
        assert not any(t.b is not None and frozenset((t.a.user_id, t.b.user_id)) in met for t in tables)
        byes += [t.a.user_id for t in tables if t.is_bye]
        view = await lite.play_round(made.id, lambda table: rng.choice((table.a.user_id, table.b.user_id)))
    assert view.status == "finished" and len(set(byes)) == 6
    assert view.champion == view.standings[0].player
    keys = [(-s.standing.score, -s.standing.buchholz, -s.standing.sonneborn_berger) for s in view.standings]
    assert keys == sorted(keys)
    assert await lite.service.store.ratings.changes_of(lite.opened[0]) == []  # an unrated tournament


async def test_a_round_robin_plays_everyone_once_with_a_real_game(world: World) -> None:
    made = await world.tournament(3, fmt="round_robin", match_length=1)
    view = await world.t.start(made.id, ORGANISER)
    assert view.rounds == 3
    await world.deliver()
    (table,) = [t for t in view.round_tables() if not t.is_bye]
    game = await world.service.lookups.get_game((await world.t.get(made.id)).round_tables()[0].game_id)
    assert game.options.tournament == made.id and game.options.match_length == 1
    await play_out(world.service, game, random.Random(2))  # a whole game, played move by move
    view = await world.t.get(made.id)
    assert view.round == 2
    for _ in range(2):
        view = await world.play_round(made.id, lambda t: t.a.user_id)
    assert view.status == "finished"
    met = Counter(frozenset((t.a.user_id, t.b.user_id)) for t in view.tables if t.b is not None)
    assert len(met) == 3 and set(met.values()) == {1}
    assert Counter(t.a.user_id for t in view.tables if t.is_bye) == Counter(e.player.user_id for e in view.entrants)


# -- racing, restarts ------------------------------------------------------------------------------


async def test_two_services_racing_the_last_results_advance_once(db_url: str) -> None:
    """Two bot processes on one database: the round's last two games end at once, one
    in each, and each tries to advance: round 2 exists once, each match opened once."""
    clock = FakeClock()
    one, two = await open_world(db_url, clock), await open_world(db_url, clock)
    try:
        made = await one.tournament(4)
        await one.t.start(made.id, ORGANISER)
        await one.deliver()
        first, second = await one.open_tables(made.id)
        for w in (one, two):  # each process only records its result: the advances race below
            w.service.recorder.finish_listeners.clear()
        await asyncio.gather(
            one.service.forfeit(first.game_id, first.b.user_id),
            two.service.forfeit(second.game_id, second.b.user_id),
        )
        moved = await asyncio.gather(one.t.advance(made.id), two.t.advance(made.id), one.t.advance(made.id))
        assert moved.count(True) == 1
        view = await two.t.get(made.id)
        assert view.round == 2 and len(view.round_tables(2)) == 1
        await asyncio.gather(one.deliver(), two.deliver())
        assert len(one.opened) + len(two.opened) == 3  # two matches of round 1, the final once
    finally:
        for w in (one, two):
            await w.service.store.close()


async def test_a_restart_mid_round_and_a_crash_before_the_advance(db_url: str) -> None:
    clock = FakeClock()
    first = await open_world(db_url, clock)
    made = await first.tournament(4)
    await first.t.start(made.id, ORGANISER)
    await first.deliver()
    one, other = await first.open_tables(made.id)
    await first.service.forfeit(one.game_id, one.b.user_id)
    first.service.recorder.finish_listeners.clear()  # the process dies between the last result and the advance
    await first.service.forfeit(other.game_id, other.b.user_id)
    assert (await first.t.get(made.id)).round == 1
    await first.service.store.close()

    again = await open_world(db_url, clock)  # the restart: the scheduler's pass finds the round complete
    try:
        await again.t.run_due(clock.now)
        view = await again.t.get(made.id)
        assert view.round == 2
        view = await again.play_round(made.id, lambda t: t.a.user_id)
        assert view.status == "finished" and view.champion == one.a
    finally:
        await again.service.store.close()


# -- deadlines, withdrawals -------------------------------------------------------------------------


async def test_the_round_deadline_decides_by_the_move_deadline_rule(world: World) -> None:
    """At the round's deadline a table whose player to move has not had a full turn goes on
    under its move deadline (tests/bot/core/test_tournament_rules.py: no sniping)."""
    made = await world.tournament(4, round_days=2, move_days=2)
    await world.t.start(made.id, ORGANISER)
    await world.deliver()
    tables = await world.open_tables(made.id)
    world.clock.advance(days=1)
    first = await world.service.lookups.get_game(tables[0].game_id)
    mover = first.to_act()
    while first.to_act() == mover and first.is_active:  # a move a day in: its clock runs to day 3
        outcome = await random_step(world.service, first, random.Random(1))
        world.service.deliveries.release(outcome.owed)  # its boards: the dispatcher's
        first = outcome.state
    movers = [first.to_act(), (await world.service.lookups.get_game(tables[1].game_id)).to_act()]
    world.clock.advance(days=1)  # day 2: the round's deadline, before the first game's move deadline
    await world.service.deadlines.process_due(world.clock.now)
    await world.t.run_due(world.clock.now)
    assert (await world.service.lookups.get_game(tables[0].game_id)).is_active
    view = await world.t.get(made.id)
    assert view.round == 1  # the first table goes on; the second's mover had their two days
    world.clock.advance(days=1, seconds=1)  # day 3: the first game's move deadline
    await world.service.deadlines.process_due(world.clock.now)
    await world.t.run_due(world.clock.now)
    view = await world.t.get(made.id)
    assert view.round == 2
    for table, loser in zip(view.round_tables(1), movers):
        assert table.outcome == "won" and loser is not None and table.winner not in (None, loser.user_id)
    final = view.round_tables(2)[0]
    assert {final.a.user_id, final.b.user_id} == {t.winner for t in view.round_tables(1)}


async def test_a_match_never_opened_goes_to_the_better_seed_at_the_deadline(world: World) -> None:
    made = await world.tournament(2, round_days=1, move_days=1)
    view = await world.t.start(made.id, ORGANISER)  # its match is never opened (no thread could be made)
    (table,) = view.round_tables()
    world.clock.advance(days=1)
    await world.t.run_due(world.clock.now)
    view = await world.t.get(made.id)
    assert view.status == "finished" and view.champion == table.a and view.tables[0].outcome == "forfeit"


async def test_withdrawing_forfeits_the_open_match_and_later_tables(world: World) -> None:
    made = await world.tournament(4, fmt="round_robin")
    view = await world.t.start(made.id, ORGANISER)
    await world.deliver()
    quitter = view.round_tables()[0].a
    others = [e.player for e in view.entrants if e.player != quitter]
    with pytest.raises(TournamentError, match="not in"):
        await world.t.withdraw(made.id, PlayerRef(999, "Stranger"))
    view = await world.t.withdraw(made.id, quitter)
    table = view.round_tables(1)[0]
    assert table.outcome == "won" and table.winner != quitter.user_id  # the game was forfeited
    game = await world.service.lookups.get_game(table.game_id)
    assert game.status == "finished" and game.result["forfeited"]  # type: ignore[index]
    with pytest.raises(TournamentError, match="already"):
        await world.t.withdraw(made.id, quitter)
    for _ in range(3):  # the rest of round 1, then rounds 2 and 3
        view = await world.play_round(made.id, lambda t: t.a.user_id)
    assert view.status == "finished"
    later = [t for t in view.tables if t.round > 1 and quitter in (t.a, t.b)]
    assert len(later) == 2 and all(t.outcome == "forfeit" and t.game_id is None for t in later)
    line = next(s for s in view.standings if s.player == quitter)
    assert line.standing.withdrawn and line.standing.score == 0
    assert view.champion in others


async def test_a_knockout_withdrawal_before_the_match_opens_and_a_bye_after_a_void(world: World) -> None:
    made = await world.tournament(4)
    view = await world.t.start(made.id, ORGANISER)
    a_table, b_table = view.round_tables()
    await world.t.withdraw(made.id, a_table.a)  # before any match opened: decided without a game
    view = await world.t.get(made.id)
    assert view.round_tables()[0].outcome == "forfeit" and view.round_tables()[0].winner == a_table.b.user_id
    await world.deliver()
    assert len(world.opened) == 1  # only the other table's match opened
    await world.t.withdraw(made.id, a_table.b)  # the one who went through leaves too
    view = await world.play_round(made.id, lambda t: t.a.user_id)
    assert view.status == "finished" and view.champion == b_table.a  # the final was a forfeit


async def test_a_player_in_two_tournaments(world: World) -> None:
    both = people(1)[0]
    one = await world.tournament(2)
    two = await world.t.create(GUILD, CHANNEL + 1, ORGANISER, "Autumn Cup", TournamentOptions())
    for player in (both, PlayerRef(300, "Zed")):
        await world.t.join(two.id, player)
    await world.t.start(one.id, ORGANISER)
    await world.t.start(two.id, ORGANISER)
    await world.deliver()
    assert len(world.opened) == 2
    games = [await world.service.lookups.get_game(g) for g in world.opened]
    assert {g.options.tournament for g in games} == {one.id, two.id}
    assert len({g.channel_id for g in games}) == 2  # each in its own thread
    in_two = next(g for g in games if g.options.tournament == two.id)
    await world.service.forfeit(in_two.id, both.user_id)
    assert (await world.t.get(two.id)).champion == PlayerRef(300, "Zed")
    assert (await world.t.get(one.id)).is_running  # the other tournament is untouched


async def test_cancel(world: World) -> None:
    made = await world.tournament(2)
    with pytest.raises(TournamentError, match="organiser"):
        await world.t.cancel(made.id, people(1)[0])
    view = await world.t.cancel(made.id, people(1)[0], moderator=True)
    assert view.status == "cancelled"
    with pytest.raises(TournamentError, match="over already"):
        await world.t.cancel(made.id, ORGANISER)


async def test_a_knockout_player_who_withdrew_goes_no_further(world: World) -> None:
    made = await world.tournament(4)
    await world.t.start(made.id, ORGANISER)
    await world.deliver()
    first, second = await world.open_tables(made.id)
    await world.service.forfeit(first.game_id, first.b.user_id)
    await world.t.withdraw(made.id, first.a)  # through to the final, then gone
    # the other match is abandoned by a moderator: nobody goes through from it
    await world.service.abandon(second.game_id, 999)
    view = await world.t.get(made.id)
    assert view.status == "finished" and view.champion is None  # the one left to go through had left
    assert view.round_tables(2) == []
    line = next(s for s in view.standings if s.player == first.a)
    assert line.standing.withdrawn and line.standing.wins == 1
    await world.deliver()
    assert any("no champion" in n for n in world.notices)


async def test_a_lone_finalist_is_champion_without_a_final(world: World) -> None:
    made = await world.tournament(4)
    await world.t.start(made.id, ORGANISER)
    await world.deliver()
    first, second = await world.open_tables(made.id)
    await world.service.abandon(second.game_id, 999)
    await world.service.forfeit(first.game_id, first.b.user_id)
    view = await world.t.get(made.id)
    assert view.status == "finished" and view.champion == first.a


def test_new_tables_of_players_who_left() -> None:
    from bot.core.tournaments import Pair, Tournaments

    table = Tournaments._new_table
    assert (table(Pair(0, 5, None), set()).outcome, table(Pair(0, 5, None), set()).winner) == ("bye", 5)
    assert (table(Pair(0, 5, None), {5}).outcome, table(Pair(0, 5, None), {5}).winner) == ("void", None)
    assert (table(Pair(1, 5, 6), {5}).outcome, table(Pair(1, 5, 6), {5}).winner) == ("forfeit", 6)
    assert (table(Pair(1, 5, 6), {5, 6}).outcome, table(Pair(1, 5, 6), {5, 6}).winner) == ("void", None)
    assert table(Pair(1, 5, 6), set()).outcome is None
