"""Start-up with many games: how soon the real bot answers, and how soon it resumes them.

Builds (once, then kept in ``--cache``) a store with the project's own
``GameService``: ``--games`` active games against the computer, each waiting
for the computer to act (the human just played), ``--humans`` active games
between members (someone to roll), and ``--owed`` of those games whose last
board is still owed (in the outbox, as a crash would leave it). Then starts
the REAL bot process (``bot.__main__:main`` through tests/e2e/launcher.py)
against the local stand-in for Discord (tests/e2e/fake_discord.py) on a copy
of that store, and prints:

- the time from the process's start to its IDENTIFY (the gateway) and to READY
  (the guild streamed, ``/bg rules`` sent then and timed to its callback);
- the first response of ``--clicks`` actions (``/bg roll`` in the members'
  games) sent one after another while the computer's games are being resumed:
  p50, p99, max (the event loop's responsiveness during the resume);
- how long until every computer game was resumed: its computer's move posted
  (a board in its channel), and how many were.

    .venv/bin/python -m bench.startup [--games 4000] [--humans 200] [--owed 50] [--clicks 40]
                                      [--cache /tmp/bg-startup] [--timeout 900] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bot.__main__ import settle_memory
from bot.core import ChallengeOptions, GameService, GameState, PlayerRef
from engine import Phase
from tests.e2e import payloads
from tests.e2e.botproc import REAL_BOT, BotProcess
from tests.e2e.fake_discord import EPHEMERAL, FakeDiscord, Interaction, custom_ids
from tests.e2e.load import percentile

LEVEL = "beginner"
"""The computer's level in the bench's games (the cheapest: the figures are the bot's, not the nets')."""
LOG_COPY = Path(tempfile.gettempdir()) / "startup_bot.log"


# -- the store ---------------------------------------------------------------------------------


async def act_until(service: GameService, state: GameState, done: Any, rng: random.Random) -> GameState | None:
    """Members act (random legal plays, no cube) until ``done(view)``; None if the game ended first."""
    for _ in range(400):
        if state.game.phase is Phase.OVER:
            return None
        if done(state):
            return state
        player = state.to_act()
        if player is None:
            return None
        phase = state.game.phase
        if phase is Phase.ROLL:
            outcome = await service.roll(state.id, player.user_id, version=state.version)
        elif phase is Phase.PLAY:
            outcome = await service.play(
                state.id, player.user_id, rng.choice(state.legal_play_texts()), version=state.version
            )
        elif phase is Phase.DOUBLED:
            outcome = await service.take(state.id, player.user_id, version=state.version)
        else:
            return None
        for o in outcome if isinstance(outcome, list) else [outcome]:
            await service.deliveries.delivered(o.owed)
        state = (outcome[-1] if isinstance(outcome, list) else outcome).state
    return None


async def build(path: Path, games: int, humans: int, owed: int, seed: int = 1) -> dict[str, Any]:
    """A store at ``path`` and the world it belongs to (ids of the guild, the bot, channels, users)."""
    ids = payloads.Snowflakes()
    app, guild = ids(), ids()
    computer = PlayerRef(app, "backgammon", True)
    rng = random.Random(seed)
    meta: dict[str, Any] = {"app": app, "guild": guild, "computer": [], "human": [], "users": [], "owed": []}
    service = await GameService.open(str(path))
    started = time.monotonic()
    try:
        n = 0
        while len(meta["computer"]) < games:
            channel, user = ids(), ids()
            human = PlayerRef(user, f"cpu-player{n}")
            n += 1
            outcome = await service.play_computer(
                guild, channel, human, computer, ChallengeOptions(computer_level=LEVEL, hints=True)
            )
            await service.deliveries.delivered(outcome.owed)
            state = await act_until(
                service, outcome.state, lambda v: (a := v.to_act()) is not None and a.user_id == app, rng
            )
            if state is None:
                continue
            meta["computer"].append([channel, state.id])
            meta["users"].append([user, human.name])
            if len(meta["computer"]) % 500 == 0:
                print(
                    f"  {len(meta['computer'])} computer games built ({time.monotonic() - started:.0f} s)", flush=True
                )
        for n in range(humans):
            channel, a_id, b_id = ids(), ids(), ids()
            a, b = PlayerRef(a_id, f"member{2 * n}"), PlayerRef(b_id, f"member{2 * n + 1}")
            challenge = await service.challenges.create(guild, channel, a, b, ChallengeOptions())
            outcome = await service.challenges.accept(challenge.id, b.user_id)
            await service.deliveries.delivered(outcome.owed)
            state = await act_until(service, outcome.state, lambda v: v.game.phase is Phase.ROLL, rng)
            assert state is not None
            actor = state.to_act()
            assert actor is not None
            meta["human"].append([channel, state.id, actor.user_id])
            meta["users"] += [[a_id, a.name], [b_id, b.name]]
        # the last board of some games still owed, as a crash leaves it: one more action, not delivered
        for channel, game_id, actor in meta["human"][:owed]:
            state = await service.lookups.get_game(game_id)
            outcome = await service.roll(game_id, actor, version=state.version)
            assert outcome.owed
            meta["owed"].append(channel)
        meta["human"] = meta["human"][owed:]
    finally:
        await service.close()
    print(f"  store built in {time.monotonic() - started:.0f} s: {path}", flush=True)
    return meta


def world(fake: FakeDiscord, meta: dict[str, Any]) -> None:
    """Give the stand-in the store's guild, bot user, channels and members (their ids)."""
    fake.application_id = meta["app"]
    fake.bot_user = payloads.user(meta["app"], "backgammon", bot=True)
    fake.guild_id = meta["guild"]
    fake.channels.clear()
    fake.channel_messages.clear()
    fake.add_channel("general")
    names = [(c, f"cpu-{i}") for i, (c, _) in enumerate(meta["computer"])]
    names += [(c, f"members-{i}") for i, (c, *_) in enumerate(meta["human"])]
    names += [(c, f"owed-{i}") for i, c in enumerate(meta["owed"])]
    for position, (channel_id, name) in enumerate(names, start=1):
        fake.channels[channel_id] = payloads.text_channel(channel_id, meta["guild"], name, position=position)
        fake.channel_messages[channel_id] = []
    for user_id, name in meta["users"]:
        fake.users[user_id] = payloads.user(user_id, name)
        fake.member_permissions[user_id] = payloads.MEMBER_PERMISSIONS


async def prepared(cache: Path, games: int, humans: int, owed: int) -> tuple[Path, dict[str, Any]]:
    cache.mkdir(parents=True, exist_ok=True)
    stem = cache / f"store-{games}-{humans}-{owed}"
    db, meta_path = stem.with_suffix(".sqlite3"), stem.with_suffix(".json")
    if not (db.exists() and meta_path.exists()):
        print(f"building the store: {games} computer games, {humans} members' games, {owed} boards owed", flush=True)
        for leftover in cache.glob(f"{stem.name}.sqlite3*"):
            leftover.unlink()
        meta = await build(db, games, humans, owed)
        meta_path.write_text(json.dumps(meta))
    return db, json.loads(meta_path.read_text())


# -- the run -----------------------------------------------------------------------------------


def bot_posts(fake: FakeDiscord, channel_id: int) -> int:
    return sum(1 for m in fake.channel_messages.get(channel_id, ()) if not fake.messages[m]["flags"] & EPHEMERAL)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    db, meta = await prepared(Path(args.cache), args.games, args.humans, args.owed)
    fake = FakeDiscord()
    world(fake, meta)
    await fake.start()
    figures: dict[str, Any] = {"games": args.games, "humans": args.humans, "owed": args.owed}
    with tempfile.TemporaryDirectory(prefix="bg-startup-") as tmp:
        copy = Path(tmp) / "bot.sqlite3"
        for part in db.parent.glob(db.name + "*"):
            shutil.copy(part, Path(tmp) / part.name.replace(db.name, "bot.sqlite3"))
        bot = BotProcess(fake, Path(tmp), target=REAL_BOT, database=copy, log_level="INFO")
        asker = next(iter(fake.users.values()))
        try:
            started = time.monotonic()
            await bot.start(wait_ready=False)
            await fake.wait_for(lambda: fake.identifies or bot.exited(), 120, "the IDENTIFY")
            if bot.exited():
                raise RuntimeError(bot.tail())
            identified = next(t for t, what, _ in fake.gateway_log if what == "op2")
            figures["identify_s"] = round(identified - started, 2)
            # READY and the guild go out with the IDENTIFY; a command sent right then
            command = await fake.slash(asker, fake.general, "bg rules")
            await fake.wait_for(lambda: command.responded_at is not None or command.late, 120, "the first command")
            figures["first_command_s"] = round((command.responded_at or float("nan")) - started, 2)
            figures["first_command_latency_ms"] = round((command.first_response_latency or float("nan")) * 1000, 1)

            computer_channels = [c for c, _ in meta["computer"]]

            def resumed_now() -> int:
                return sum(1 for c in computer_channels if bot_posts(fake, c))

            clicks = []

            async def clicker() -> None:
                """One action every ``--click-gap`` seconds (not waiting for the answers) until all are resumed."""
                for channel_id, _, actor in meta["human"][: args.clicks]:
                    if resumed_now() == len(computer_channels):
                        return
                    clicks.append(await fake.slash(fake.users[actor], fake.channels[channel_id], "bg roll"))
                    await asyncio.sleep(args.click_gap)

            clicking = asyncio.create_task(clicker())
            deadline = started + args.timeout
            resumed, quarter = 0, {}
            while time.monotonic() < deadline:
                resumed = resumed_now()
                for q in (1, 2, 3, 4):
                    if q not in quarter and resumed * 4 >= q * len(computer_channels):
                        quarter[q] = round(time.monotonic() - started, 1)
                if resumed == len(computer_channels):
                    break
                await asyncio.sleep(0.25)
            clicking.cancel()
            figures["resumed"] = resumed
            figures["resumed_quarters_s"] = [quarter.get(q) for q in (1, 2, 3, 4)]
            figures["all_resumed_s"] = quarter.get(4)
            await asyncio.sleep(0)
            for inter in clicks:  # their answers and boards
                with contextlib.suppress(AssertionError, asyncio.TimeoutError):

                    def boarded(i: Interaction = inter) -> bool:
                        return i.board_at is not None or i.late

                    await fake.wait_for(boarded, 60, "a roll's board")
            first = [i.first_response_latency * 1000 for i in clicks if i.first_response_latency is not None]
            boards = [i.board_latency * 1000 for i in clicks if i.board_latency is not None]
            figures["clicks_during_resume"] = {
                "n": len(clicks),
                "late": sum(1 for i in clicks if i.late),
                "p50_ms": round(percentile(first, 50), 1),
                "p99_ms": round(percentile(first, 99), 1),
                "max_ms": round(max(first, default=float("nan")), 1),
                "board_p50_ms": round(percentile(boards, 50), 1),
                "board_p99_ms": round(percentile(boards, 99), 1),
                "boards": len(boards),
            }
            owed_posted = sum(1 for c in meta["owed"] if bot_posts(fake, c))
            figures["owed_delivered"] = owed_posted
            live = [c for c in computer_channels if sum(1 for m in fake.channel_history(c) if custom_ids(m)) > 1]
            figures["computer_channels_with_two_live_boards"] = len(live)
            figures["violations"] = len(fake.violations)
        finally:
            await bot.kill()
            await fake.stop()
            shutil.copy(bot.log_path, LOG_COPY)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000, help="active games against the computer, its turn")
    parser.add_argument("--humans", type=int, default=200, help="active games between members")
    parser.add_argument("--owed", type=int, default=50, help="of the members' games, how many owe their last board")
    parser.add_argument("--clicks", type=int, default=150, help="at most this many actions sent during the resume")
    parser.add_argument("--click-gap", type=float, default=0.25, help="seconds between two of those actions")
    parser.add_argument(
        "--cache", default=str(Path(tempfile.gettempdir()) / "bg-startup"), help="where built stores are kept"
    )
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds to wait for every game's resume")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    settle_memory()
    figures = asyncio.run(run(args))
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        c = figures["clicks_during_resume"]
        print(
            f"{figures['games']} computer games waiting, {figures['humans']} members' games, {figures['owed']} boards owed"
        )
        print(
            f"IDENTIFY {figures['identify_s']} s after the process started; "
            f"first command (/bg rules at READY) answered at {figures['first_command_s']} s "
            f"({figures['first_command_latency_ms']} ms after it was sent)"
        )
        print(
            f"actions during the resume (/bg roll, one every {args.click_gap:g} s): n={c['n']}, first response "
            f"p50 {c['p50_ms']} ms, p99 {c['p99_ms']} ms, max {c['max_ms']} ms, late {c['late']}; "
            f"their boards p50 {c['board_p50_ms']} ms, p99 {c['board_p99_ms']} ms (n={c['boards']})"
        )
        print(
            f"computer games resumed: {figures['resumed']} of {figures['games']}"
            + (f", all by {figures['all_resumed_s']} s" if figures["all_resumed_s"] is not None else " (timed out)")
            + f" (a quarter, half, three quarters, all at {figures['resumed_quarters_s']} s)"
            + f"; owed boards delivered: {figures['owed_delivered']} of {figures['owed']}; "
            f"channels with two live boards: {figures['computer_channels_with_two_live_boards']}; "
            f"Discord rule violations: {figures['violations']}"
        )
        print(f"bot log: {LOG_COPY}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
