"""Event-loop stalls: a storm of replays, histories and exports while two members play.

Builds a database holding long finished matches (``--matches`` 25-point matches
between alice and bob, played through the game service with seeded dice, no
doubles, so each runs to about 20 games and 2,000 logged actions), starts the
local stand-in for Discord and the real bot process on that database (with
``bench/loop_probe.py``, which records every moment the bot's event loop woke
late), and has carol and dave play a game in another channel. Once they are
under way, 8 members ask at once for ``/bgtools replay`` of the last match,
8 for ``/bg history member:alice`` and 8 for ``/bg export`` of it.

Prints the longest event-loop stall while the storm was answered, how many
were over 100 ms, the first-response latency of the two players' interactions
in that time (p50/p99/max), and each storm command's first-response and
completion times. Targets: no stall over 100 ms, players' p99 first response
under 300 ms. Exit code 1 if a target is missed. (Benches print figures;
tests never assert timings.)

    .venv/bin/python -m bench.loop_stall [--matches 4] [--storm 8] [--runs 1] [--json] [--stacks]

``--stacks`` also records where the bot's loop was during each stall over 40 ms
(written next to the bot's log copy).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bot.core import ChallengeOptions, GameService, GameState, PlayerRef
from bot.store import open_store
from engine import Phase, SeededDice
from tests.e2e.botproc import BotProcess
from tests.e2e.fake_discord import EPHEMERAL, LOADING, FakeDiscord, Interaction
from tests.e2e.load import percentile
from tests.e2e.players import GameDriver

PROBE = "bench.loop_probe:main"
TARGET_STALL_MS = 100.0
TARGET_FIRST_P99_MS = 300.0
LOG_COPY = Path(tempfile.gettempdir()) / "loop_stall_bot.log"
STACKS_COPY = Path(tempfile.gettempdir()) / "loop_stall_stacks.txt"


# -- the long matches -----------------------------------------------------------------------


async def play_long_matches(
    database: Path, guild_id: int, channel_id: int, alice: PlayerRef, bob: PlayerRef, matches: int, seed: int
) -> tuple[int, int, int]:
    """``matches`` finished 25-point matches between alice and bob, played through the
    service (random legal plays, no doubles). Returns (last game id, its games, its actions)."""
    store = await open_store(str(database))
    service = GameService(store, dice=SeededDice(seed))
    rng = random.Random(seed)
    last: GameState | None = None
    try:
        for _ in range(matches):
            challenge = await service.challenges.create(
                guild_id, channel_id, alice, bob, ChallengeOptions(match_length=25)
            )
            state = (await service.challenges.accept(challenge.id, bob.user_id)).state
            while state.is_active:
                actor = state.to_act()
                assert actor is not None
                if state.game.phase is Phase.ROLL:
                    outcome = await service.roll(state.id, actor.user_id, version=state.version)
                else:
                    play = rng.choice(state.legal_play_texts())
                    outcome = await service.play(state.id, actor.user_id, play, version=state.version)
                state = outcome.state
            last = state
    finally:
        await store.close()
    assert last is not None
    return last.id, len(last.match.games), last.version


# -- the players and the storm --------------------------------------------------------------


async def keep_playing(
    fake: FakeDiscord,
    channel: dict[str, Any],
    a: dict[str, Any],
    b: dict[str, Any],
    stop: asyncio.Event,
    done: list[Interaction],
    errors: list[str],
) -> None:
    """carol and dave play game after game (never doubling) until ``stop``."""
    while not stop.is_set():
        driver = GameDriver(fake, channel, a, b, plays_before_double=10**9, take=True, timeout=60.0)
        try:
            await driver.start()
            while not stop.is_set() and not driver.over():
                await driver.step()
        except Exception as error:  # noqa: BLE001 - reported with the figures
            errors.append(f"players: {type(error).__name__}: {str(error)[:500]}")
            return
        finally:
            done.extend(inter for _, inter in driver.actions)


def answered(fake: FakeDiscord, inter: Interaction) -> bool:
    """The interaction's answer is there: a message of its own that is not "thinking...",
    or a private "thinking..." taken away once the public answer went to the channel."""
    if inter.original_id is not None and inter.original_id not in fake.messages:
        return True
    ids = list(inter.messages) + ([inter.original_id] if inter.original_id is not None else [])
    for message_id in ids:
        message = fake.messages.get(message_id)
        if message is None or message["flags"] & LOADING:
            continue
        if message.get("attachments") or message.get("embeds") or message.get("content"):
            return True
    return False


def private_text(fake: FakeDiscord, inter: Interaction) -> str:
    texts = [
        fake.messages[m].get("content") or ""
        for m in inter.messages
        if m in fake.messages
        and fake.messages[m]["flags"] & EPHEMERAL
        and not fake.messages[m].get("attachments")
        and not fake.messages[m].get("embeds")
    ]
    return " | ".join(t for t in texts if t)


# -- one run --------------------------------------------------------------------------------


def stalls_between(path: Path, start: float, end: float) -> list[float]:
    """Seconds late of every wake-up of the bot's loop probe between ``start`` and ``end``."""
    found = []
    for line in path.read_text().splitlines():
        at, late = (float(x) for x in line.split())
        # a stall is reported when it ends: one that ended inside the window, or ran into it
        if start <= at and at - late <= end and late > 0:
            found.append(late)
    return found


async def one_run(matches: int, storm: int, seed: int, stacks: bool = False) -> dict[str, Any]:
    fake = await FakeDiscord().start()
    alice_u, bob_u = fake.add_user("alice"), fake.add_user("bob")
    carol_u, dave_u = fake.add_user("carol"), fake.add_user("dave")
    askers = [fake.add_user(f"asker{n}") for n in range(storm * 3)]
    archive, live, lobby = fake.add_channel("archive"), fake.add_channel("live"), fake.add_channel("lobby")
    with tempfile.TemporaryDirectory(prefix="loop-stall-") as tmp:
        workdir = Path(tmp)
        database = workdir / "bot.sqlite3"
        started = time.monotonic()
        game_id, games, actions = await play_long_matches(
            database,
            fake.guild_id,
            int(archive["id"]),
            PlayerRef(int(alice_u["id"]), "alice"),
            PlayerRef(int(bob_u["id"]), "bob"),
            matches,
            seed,
        )
        print(
            f"{matches} finished 25-point matches played in {time.monotonic() - started:.1f} s; "
            f"the last, game #{game_id}: {games} games, {actions} logged actions"
        )
        probe_file = workdir / "stalls.txt"
        bot = BotProcess(
            fake,
            workdir,
            target=PROBE,
            database=database,
            log_level="WARNING",
            extra_env={
                "LOOP_PROBE_FILE": str(probe_file),
                "LOOP_PROBE_STACKS": "1" if stacks else "",
                # the two players act and start games without thinking, faster than the
                # cooldowns let a member: they measure the loop, not the limits
                "COOLDOWN_TURN": "off",
                "COOLDOWN_CHALLENGE": "off",
            },
        )
        stop = asyncio.Event()
        played: list[Interaction] = []
        errors: list[str] = []
        try:
            await bot.start()
            await fake.wait_for(lambda: probe_file.exists(), 30, "the loop probe to start", poll=0.1)
            players = asyncio.create_task(keep_playing(fake, live, carol_u, dave_u, stop, played, errors))
            await asyncio.sleep(3.0)  # the players are under way
            storm_start = time.monotonic()
            kinds = ["replay"] * storm + ["history"] * storm + ["export"] * storm
            calls = []
            for n, kind in enumerate(kinds):
                who = askers[n]
                if kind == "replay":
                    calls.append(fake.slash(who, lobby, "bgtools replay", game=game_id))
                elif kind == "history":
                    calls.append(fake.slash(who, lobby, "bg history", member=alice_u))
                else:
                    calls.append(fake.slash(who, lobby, "bg export", game=game_id))
            asked = await asyncio.gather(*calls)

            async def answered_at(inter: Interaction) -> float | None:
                """When the answer came (None: it never came, or too late for Discord)."""
                try:
                    await fake.wait_for(lambda: answered(fake, inter) or inter.late, 120, "an answer", channel=lobby)
                except TimeoutError:
                    return None
                return None if inter.late else time.monotonic()

            ends = await asyncio.gather(*(answered_at(inter) for inter in asked))
            storm_end = max((end for end in ends if end is not None), default=time.monotonic())
            await asyncio.sleep(1.0)
            stop.set()
            try:
                await asyncio.wait_for(players, 90)
            except TimeoutError:
                errors.append("players: their last action was not answered in 90 s")
        finally:
            stop.set()
            await bot.kill()
            await fake.stop()
            shutil.copy(bot.log_path, LOG_COPY)
            if stacks and Path(f"{probe_file}.stacks").exists():
                shutil.copy(f"{probe_file}.stacks", STACKS_COPY)
        stalls = stalls_between(probe_file, storm_start, storm_end)
    in_storm = [i for i in played if storm_start <= i.dispatched_at <= storm_end]
    late = sum(1 for i in in_storm if i.first_response_latency is None or i.late)
    # an action answered too late (or never) counts as the slowest of all
    first = [i.first_response_latency * 1000 for i in in_storm if i.first_response_latency is not None and not i.late]
    first += [float("inf")] * late
    board = [i.board_latency * 1000 for i in in_storm if i.board_latency is not None]
    per_kind: dict[str, Any] = {}
    for kind in ("replay", "history", "export"):
        mine = [(i, end) for k, i, end in zip(kinds, asked, ends) if k == kind]
        firsts = [i.first_response_latency * 1000 for i, _ in mine if i.first_response_latency is not None]
        complete = [(end - i.dispatched_at) * 1000 for i, end in mine if end is not None]
        refusals = [t for t in (private_text(fake, i) for i, _ in mine) if t]
        per_kind[kind] = {
            "n": len(mine),
            "unanswered": sum(1 for _, end in mine if end is None),
            "first_p50": round(percentile(firsts, 50), 1),
            "first_max": round(max(firsts, default=0), 1),
            "complete_p50": round(percentile(complete, 50), 1),
            "complete_max": round(max(complete, default=float("nan")), 1),
            "private_answers": refusals[:2],
        }
    figures: dict[str, Any] = {
        "storm_seconds": round(storm_end - storm_start, 2),
        "longest_stall_ms": round(max(stalls, default=0.0) * 1000, 1),
        "stalls_over_100ms": sum(1 for s in stalls if s > 0.1),
        "stalled_ms_in_all": round(sum(stalls) * 1000, 1),
        "players": {
            "interactions": len(in_storm),
            "late_or_unanswered": late,
            "first_p50": round(percentile(first, 50), 1),
            "first_p99": round(percentile(first, 99), 1),
            "first_max": round(max(first, default=float("nan")), 1),
            "board_p50": round(percentile(board, 50), 1),
            "board_p99": round(percentile(board, 99), 1),
        },
        "storm": per_kind,
        "missed_deadlines": len(fake.missed_deadlines()),
        "errors": errors,
    }
    figures["targets_met"] = (
        figures["longest_stall_ms"] <= TARGET_STALL_MS
        and figures["players"]["first_p99"] <= TARGET_FIRST_P99_MS
        and not figures["players"]["late_or_unanswered"]
        and not errors
        and not any(row["unanswered"] for row in per_kind.values())
    )
    return figures


def show(f: dict[str, Any]) -> None:
    p = f["players"]
    print(
        f"storm answered in {f['storm_seconds']} s; event loop: longest stall {f['longest_stall_ms']} ms, "
        f"{f['stalls_over_100ms']} stalls over 100 ms, {f['stalled_ms_in_all']} ms stalled in all "
        f"(wake-ups more than 10 ms late)"
    )
    print(
        f"players meanwhile: {p['interactions']} interactions ({p['late_or_unanswered']} late or unanswered), "
        f"first response p50 {p['first_p50']} ms, "
        f"p99 {p['first_p99']} ms, max {p['first_max']} ms; board p50 {p['board_p50']} ms, p99 {p['board_p99']} ms"
    )
    for kind, row in f["storm"].items():
        print(
            f"  {kind:<8} n={row['n']:<3} unanswered {row['unanswered']:<2} first p50 {row['first_p50']:>7} max {row['first_max']:>7} ms | "
            f"answered p50 {row['complete_p50']:>8} max {row['complete_max']:>8} ms"
            + (f" | private: {row['private_answers']}" if row["private_answers"] else "")
        )
    print(f"missed 3-second deadlines: {f['missed_deadlines']}; errors: {f['errors'] or 'none'}")
    print(
        f"targets: no stall over {TARGET_STALL_MS:.0f} ms, players' p99 first response <= "
        f"{TARGET_FIRST_P99_MS:.0f} ms: {'MET' if f['targets_met'] else 'MISSED'}"
    )


async def main(matches: int, storm: int, runs: int, as_json: bool, seed: int, stacks: bool = False) -> int:
    results = []
    for number in range(1, runs + 1):
        if runs > 1:
            print(f"-- run {number} of {runs}")
        figures = await one_run(matches, storm, seed, stacks)
        results.append(figures)
        print(json.dumps(figures, indent=2)) if as_json else show(figures)
    if runs > 1:
        print(
            f"-- {runs} runs: median longest stall "
            f"{statistics.median(f['longest_stall_ms'] for f in results):.1f} ms, median players' p99 first response "
            f"{statistics.median(f['players']['first_p99'] for f in results):.1f} ms"
        )
    print(f"bot log: {LOG_COPY}" + (f"; where the loop stalled: {STACKS_COPY}" if stacks else ""))
    return 0 if all(f["targets_met"] for f in results) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=4, help="finished 25-point matches in alice's history")
    parser.add_argument("--storm", type=int, default=8, help="members asking for each of replay, history, export")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--stacks", action="store_true", help="record where the bot's loop was in each long stall")
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.matches, args.storm, args.runs, args.json, args.seed, args.stacks)))
