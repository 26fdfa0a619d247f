"""Many games at once: simulated players in many channels, and the figures.

Used by ``tests/e2e/test_e2e_load.py`` (a few dozen games) and by
``bench/e2e_load.py`` (200 games). Besides the ordinary games, ``kibitzed``
games can be challenged with kibitzer polls on and watched by ``onlookers``
simulated onlookers each (:mod:`tests.e2e.onlookers`) who answer every poll.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from tests.e2e.fake_discord import FakeDiscord, Interaction
from tests.e2e.onlookers import Onlooker, PollCounts, Reveals, privacy_violations, reveals
from tests.e2e.players import GameDriver, private_answer

REVEAL_WAIT = 30.0
"""Seconds the reveals still owed when the games are over may take to be posted."""


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def first_response_ms(interactions: list[Interaction]) -> list[float]:
    return [i.first_response_latency * 1000 for i in interactions if i.first_response_latency is not None]


def board_ms(interactions: list[Interaction]) -> list[float]:
    return [i.board_latency * 1000 for i in interactions if i.board_latency is not None]


@dataclass
class LoadResult:
    games: int
    finished: int
    seconds: float
    actions: list[tuple[str, Interaction]]
    """Every interaction with what it was (``challenge``, ``accept``, ``play``, ``roll``, ...)."""
    missed: int
    unexpected_private: list[str]
    errors: list[str] = field(default_factory=list)
    kibitzed: int = 0
    """Of the ``games``, those with kibitzer polls on and onlookers answering them."""
    onlookers: int = 0
    """Onlookers of each kibitzed game."""
    polls: PollCounts = field(default_factory=PollCounts)
    """What the onlookers did with the polls, added up."""
    answered: set[tuple[int, int]] = field(default_factory=set)
    """Polls (game, version) with at least one answer kept: each owes a reveal."""
    reveals: Reveals = field(default_factory=Reveals)
    reveals_by_end: int = 0
    """Reveals posted by the time the last game was over."""
    reveal_wait: float = 0.0
    """Seconds waited after the games for the reveals still owed."""
    reveal_ms: list[float] = field(default_factory=list)
    """Each posted reveal's time from its player's action to its post (ms)."""
    privacy: list[str] = field(default_factory=list)
    """Texts that told the players of a kibitzed game of a poll's answers before they acted."""

    @property
    def interactions(self) -> list[Interaction]:
        return [inter for _, inter in self.actions]

    @property
    def first_response_ms(self) -> list[float]:
        return first_response_ms(self.interactions)

    @property
    def board_ms(self) -> list[float]:
        return board_ms(self.interactions)

    def by_kind(self) -> dict[str, dict[str, Any]]:
        """Count, p50/p99 first response and p50/p99 board image (ms) of each kind of
        interaction, in the order the kinds first occur: it shows which step makes the tail."""
        grouped: dict[str, list[Interaction]] = {}
        for kind, inter in self.actions:
            grouped.setdefault(kind, []).append(inter)
        table = {}
        for kind, inters in grouped.items():
            first, board = first_response_ms(inters), board_ms(inters)
            row: dict[str, Any] = {
                "n": len(inters),
                "first_p50": round(percentile(first, 50), 1),
                "first_p99": round(percentile(first, 99), 1),
            }
            if board:
                row.update(board_p50=round(percentile(board, 50), 1), board_p99=round(percentile(board, 99), 1))
            table[kind] = row
        return table

    def figures(self) -> dict[str, Any]:
        first, board = self.first_response_ms, self.board_ms
        return {
            "games": self.games,
            "finished": self.finished,
            "interactions": len(self.interactions),
            "seconds": round(self.seconds, 2),
            "interactions_per_s": round(len(self.interactions) / self.seconds, 1) if self.seconds else 0.0,
            "first_response_ms": {
                "p50": round(percentile(first, 50), 1),
                "p99": round(percentile(first, 99), 1),
                "max": round(max(first, default=float("nan")), 1),
                "n": len(first),
            },
            "board_ms": {
                "p50": round(percentile(board, 50), 1),
                "p99": round(percentile(board, 99), 1),
                "max": round(max(board, default=float("nan")), 1),
                "n": len(board),
            },
            "missed_deadlines": self.missed,
            "unexpected_private_answers": len(self.unexpected_private),
            "errors": len(self.errors),
            "by_kind": self.by_kind(),
            **({"kibitzers": self.kibitzer_figures()} if self.kibitzed else {}),
        }

    def kibitzer_figures(self) -> dict[str, Any]:
        polls = self.polls
        return {
            "games": self.kibitzed,
            "onlookers_per_game": self.onlookers,
            "readings": polls.seen,
            "no_poll_after_reading": polls.gone,
            "answers_sent": polls.sent,
            "answers_recorded": polls.recorded,
            "closed_meanwhile": polls.closed,
            "typed_not_answered": polls.typed,
            "other_refusals": len(polls.refused),
            "polls_answered": len(self.answered),
            "reveals_posted": len(self.reveals.posted),
            "reveals_posted_by_the_end": self.reveals_by_end,
            "reveal_wait_s": round(self.reveal_wait, 1),
            "reveal_after_action_ms": {
                "p50": round(percentile(self.reveal_ms, 50), 1),
                "p99": round(percentile(self.reveal_ms, 99), 1),
                "max": round(max(self.reveal_ms, default=float("nan")), 1),
            },
            "reveals_with_verdict": self.reveals.with_verdict,
            "reveals_unasked": len(set(self.reveals.posted) - self.answered),
            "privacy_violations": len(self.privacy),
        }

    def summary(self) -> str:
        f = self.figures()
        return (
            f"{f['games']} games ({f['finished']} finished), {f['interactions']} interactions in {f['seconds']} s "
            f"= {f['interactions_per_s']} interactions/s\n"
            f"first response: p50 {f['first_response_ms']['p50']} ms, p99 {f['first_response_ms']['p99']} ms, "
            f"max {f['first_response_ms']['max']} ms (n={f['first_response_ms']['n']})\n"
            f"board image:    p50 {f['board_ms']['p50']} ms, p99 {f['board_ms']['p99']} ms, "
            f"max {f['board_ms']['max']} ms (n={f['board_ms']['n']})\n"
            f"missed deadlines: {f['missed_deadlines']}, unexpected private answers: {f['unexpected_private_answers']}, "
            f"errors: {f['errors']}\n"
            + "\n".join(
                f"  {kind:<12} n={row['n']:<4} first p50 {row['first_p50']:>6} p99 {row['first_p99']:>6} ms"
                + (f" | board p50 {row['board_p50']:>6} p99 {row['board_p99']:>6} ms" if "board_p50" in row else "")
                for kind, row in f["by_kind"].items()
            )
            + (self._kibitzer_summary(f["kibitzers"]) if "kibitzers" in f else "")
        )

    @staticmethod
    def _kibitzer_summary(k: dict[str, Any]) -> str:
        return (
            f"\nkibitzed games: {k['games']} x {k['onlookers_per_game']} onlookers; a poll opened and read "
            f"{k['readings']} times, no poll open after the reading {k['no_poll_after_reading']}; "
            f"answers sent {k['answers_sent']}, "
            f"recorded {k['answers_recorded']}, refused as closed {k['closed_meanwhile']} "
            f"(presses and answers), other refusals {k['other_refusals']}, "
            f"typed plays not answered {k['typed_not_answered']}\n"
            f"reveals posted {k['reveals_posted']} of {k['polls_answered']} polls answered "
            f"({k['reveals_posted_by_the_end']} by the last game's end, the rest within {k['reveal_wait_s']} s), "
            f"{k['reveals_with_verdict']} with the net's verdict, {k['reveals_unasked']} for no answer; "
            f"from the player's action to the reveal: p50 {k['reveal_after_action_ms']['p50']} ms, "
            f"p99 {k['reveal_after_action_ms']['p99']} ms, max {k['reveal_after_action_ms']['max']} ms\n"
            f"privacy: {k['privacy_violations']} texts told a player of the votes before they acted"
        )


async def run_games(
    fake: FakeDiscord,
    games: int,
    *,
    plays_before_double: int | None = None,
    timeout: float = 30.0,
    stagger: float = 0.0,
    think: tuple[float, float] = (0.0, 0.0),
    full: bool = False,
    kibitzed: int = 0,
    onlookers: int = 0,
    onlooker_think: tuple[float, float] = (1.0, 5.0),
) -> LoadResult:
    """``games`` games at once, each in its own channel between two new users. Short games
    (the default) end by double/pass after ``plays_before_double`` (2) plays; ``full`` games
    are played to the end, a double taken every ``plays_before_double`` (20) plays.
    Players act at once, or after a time drawn from ``think`` (seconds, uniform; seeded per game).

    Besides, ``kibitzed`` games like them are challenged with kibitzer polls on, each
    watched by ``onlookers`` new members who answer every poll (reading the board for
    ``onlooker_think`` seconds first); then the reveals still owed are waited for (at
    most :data:`REVEAL_WAIT` s) and what the players received is checked for votes."""
    if plays_before_double is None:
        plays_before_double = 20 if full else 2
    drivers = []
    for n in range(games + kibitzed):
        kibitz = n >= games
        name = f"kibitz-{n - games}" if kibitz else f"load-{n}"
        channel = fake.add_channel(name)
        a, b = fake.add_user(f"{name}a".replace("-", "")), fake.add_user(f"{name}b".replace("-", ""))
        drivers.append(
            GameDriver(
                fake,
                channel,
                a,
                b,
                plays_before_double=plays_before_double,
                timeout=timeout,
                think=think,
                rng=random.Random(n),
                full=full,
                kibitzers=True if kibitz else None,
            )
        )
    if kibitzed:  # what the kibitzed games' members receive, for the privacy check
        fake.record_received = {int(d.channel["id"]) for d in drivers[games:]}
    watchers = [
        Onlooker(
            fake,
            driver,
            fake.add_user(f"{driver.channel['name']}o{k}".replace("-", "")),
            think=onlooker_think,
            rng=random.Random(1_000_000 + index * 100 + k),
            timeout=timeout,
        )
        for index, driver in enumerate(drivers[games:])
        for k in range(onlookers)
    ]
    await asyncio.sleep(0.2)  # CHANNEL_CREATEs reach the bot
    errors: list[str] = []

    async def one(index: int, driver: GameDriver) -> bool:
        if stagger:
            await asyncio.sleep(stagger * index)
        try:
            await driver.start()
            await driver.play_out()
            return True
        except Exception as error:  # noqa: BLE001 - collected and reported
            errors.append(f"game in {driver.channel['name']}: {type(error).__name__}: {str(error)[:2000]}")
            return False
        finally:
            driver.done = True

    async def watch(onlooker: Onlooker) -> None:
        where = f"onlooker in {onlooker.driver.channel['name']}"
        try:
            await onlooker.run()
        except Exception as error:  # noqa: BLE001 - collected and reported
            errors.append(f"{where}: {type(error).__name__}: {str(error)[:2000]}")
        errors.extend(f"{where}, {error}" for error in onlooker.errors)

    started = time.monotonic()
    done, _watched = await asyncio.gather(
        asyncio.gather(*(one(i, d) for i, d in enumerate(drivers))), asyncio.gather(*map(watch, watchers))
    )
    seconds = time.monotonic() - started
    played = [action for d in drivers for action in d.actions]
    actions = played + [action for w in watchers for action in w.actions]
    private = []  # the onlookers' answers are private by design: the players' only
    for _, inter in played:
        for message_id in inter.messages:
            message = fake.messages.get(message_id)
            if message is not None and private_answer(message):
                private.append(message["content"])
    result = LoadResult(
        games + kibitzed,
        sum(done),
        seconds,
        actions,
        len(fake.missed_deadlines()),
        private,
        errors,
        kibitzed,
        onlookers,
    )
    if kibitzed:
        kibitz_drivers = drivers[games:]
        for watcher in watchers:
            result.polls.add(watcher.counts)
            result.answered |= watcher.answered
        result.reveals_by_end = len(reveals(fake, kibitz_drivers).posted)
        waited = time.monotonic()
        while len(reveals(fake, kibitz_drivers).posted) < len(result.answered):
            if time.monotonic() - waited > REVEAL_WAIT:
                break
            await asyncio.sleep(0.5)
        result.reveal_wait = time.monotonic() - waited
        result.reveals = reveals(fake, kibitz_drivers)
        acted = {key: at for driver in kibitz_drivers for key, at in driver.acted_on.items()}
        result.reveal_ms = [
            (posted - acted[key]) * 1000 for key, posted in result.reveals.posted.items() if key in acted
        ]
        result.privacy = privacy_violations(fake, kibitz_drivers)
    return result


def spread(values: list[float]) -> str:
    if len(values) < 2:
        return ""
    return f"mean {statistics.mean(values):.1f} ms, stdev {statistics.stdev(values):.1f} ms"
