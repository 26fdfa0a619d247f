"""End-to-end load: N games at once against the local stand-in for Discord.

Starts the stand-in (tests/e2e/fake_discord.py) and the real bot process
(``bot.__main__:main`` through tests/e2e/launcher.py, on a temporary
database, or on a copy of ``--store``), then plays N games at once, each in its
own channel between two simulated players. By default each game is played to
its end (a single money game): challenge -> Accept -> Roll -> play -> ... with
the first legal play of the board's menu (or of ``/bg move``'s autocomplete
when there are more than 25), a double every 20 plays while the cube may turn,
always taken: about 120 interactions a game. ``--short`` plays the old short
game instead: challenge -> Accept -> play -> Roll -> play -> Double -> Pass.

Prints interactions per second; p50/p99 time to the first response
(INTERACTION_CREATE sent -> callback received) and to the board image
(INTERACTION_CREATE sent -> the PNG posted or edited in), overall and per kind
of interaction (accept, roll, play, double, take, ...); missed 3-second
deadlines; CPU per interaction of the bot process, its drawing workers and the
rest; and the bot process's RSS sampled every second (a few samples and the
maximum); and the requests on the routes Discord's global limit counts (all
but an interaction's callback and webhook: at most 50 a second, or Discord's
429s pause the bot), with the busiest second. Targets at 200 full games: p99
first response <= 100 ms, p99 board image <= 500 ms, no missed deadline
(``--short``: 300 ms and 1.5 s, as before), the global limit kept.
Exit code 1 if a target is missed.

By default the hardest case: all games start in the same instant and every
player acts the moment the board is up (a saturation test: with no time
between actions, latency is games / throughput). ``--think LOW HIGH`` gives
the players a reaction time (people take seconds); ``--ramp S`` starts the
games over S seconds. The players act faster than the turn cooldown lets a
member (30 in 30 s), so the bench turns that one off for its bot. Bot,
stand-in and players share this machine's cores, so runs vary: repeat a few
times (``--runs N`` does, and prints the medians). The speed of this
(virtual) machine drifts too, by up to 2x within an hour: each run first
prints the CPU time of drawing a fixed set of boards in this process, a
reference to compare runs made at different times.

``--kibitzed K --onlookers M`` adds K games challenged with kibitzer polls on
(``kibitzers: True``), beside the ``--games`` ordinary ones and played like
them, each watched by M onlookers (members who are not its players,
tests/e2e/onlookers.py) who answer every poll as it opens: read the board,
press "What would you play?", read the private menu, pick an answer. They take
``--onlooker-think LOW HIGH`` seconds to read the board (default 1-5, as people
do; 0 0: at once) and a quarter of a draw to pick. An onlooker answering every
poll of a fast game asks more than the lookup cooldown lets a member (10 a
minute), so with onlookers the bench turns that one off too. The onlookers'
interactions are their own kinds (``kibitz-ask``, ``kibitz-vote``) in the
figures, and count in the overall ones; besides, the polls' own figures: polls
seen, answers sent and recorded, those refused because the player had acted,
reveals posted of those owed (the polls answered; the reveals still owed when
the games are over are waited for, at most 30 s) and their time after the
player's action. Privacy: every text the stand-in delivered to the players of
a kibitzed game (the channel's messages as posted and edited, their own
ephemerals) is checked; a vote count or an onlooker's answer there before the
player acted on that poll is a violation, printed and counted: the run fails
unless there are none.

``--store PATH`` runs the bot on a copy of a store (a SQLite file with the
project's schema, e.g. from ``bench/build_store.py``); ``--store big`` is
``bench/.stores/big.sqlite``. ``--keep-store PATH`` keeps the run's database.
``--locale el`` makes every player's client and the server speak that Discord locale
(default ``en-US``): every answer and board is then worded through the catalogue in
that language; interleave runs with the default to see what translation costs.
``--env KEY=VALUE`` sets one of the bot's settings (``--env HEALTH_PORT=9102``:
with its metrics on). ``--profile PATH`` samples the bot's event loop (``E2E_PROFILE``, see
tests/e2e/launcher.py); ``python -m bench.profile_report PATH`` sums it.

    python -m bench.e2e_load [--games 200] [--short] [--store PATH|big] [--think 0.5 2] [--ramp 0]
                             [--kibitzed 50 --onlookers 10 [--onlooker-think 1 5]]
                             [--runs 1] [--json] [--profile PATH] [--keep-store PATH] [--locale en-US]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.__main__ import settle_memory
from tests.e2e import limits, payloads
from tests.e2e.botproc import REAL_BOT, BotProcess
from tests.e2e.fake_discord import FakeDiscord
from tests.e2e.load import run_games

HERE = Path(__file__).resolve().parent

TARGETS_MS = {"full": (100.0, 500.0), "short": (300.0, 1500.0)}
"""p99 first response and p99 board image (ms) of each mode."""
STORES = HERE / ".stores"
NAMED_STORES = {"big": STORES / "big.sqlite"}
RSS_EVERY = 1.0
LOG_COPY = Path(tempfile.gettempdir()) / "e2e_load_bot.log"


def cpu_seconds(root: int) -> dict[int, float]:
    """CPU seconds used so far by process ``root`` and each of its descendants
    (Linux /proc; empty elsewhere). Steadier than wall time on a shared machine."""
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    parents: dict[int, int] = {}
    used: dict[int, float] = {}
    for entry in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = entry.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        pid = int(entry.parent.name)
        parents[pid] = int(fields[1])
        used[pid] = (int(fields[11]) + int(fields[12])) / ticks
    family = {root}
    grew = True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in family and pid not in family:
                family.add(pid)
                grew = True
    return {pid: used[pid] for pid in family if pid in used}


@functools.cache
def _reference_boards() -> tuple[Callable[[Any], bytes], list[Any]]:
    """``bench/render.py``'s drawing function and 120 of its boards of played games (made once)."""
    from bench import render

    return render.render_board, render.varied_scenes(30, 4)


def reference_board_ms() -> float:
    """Median CPU milliseconds to draw one of a fixed set of boards here: how fast this
    machine is right now."""
    render_board, scenes = _reference_boards()
    for scene in scenes[:20]:  # warm the caches
        render_board(scene)
    cpu = []
    for scene in scenes:
        start = time.process_time()
        render_board(scene)
        cpu.append((time.process_time() - start) * 1000)
    return statistics.median(cpu)


def rss_mb(pid: int) -> float | None:
    """The resident set of process ``pid`` (MB), or None if it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


async def sample_rss(pid: int, into: list[tuple[float, float]], every: float = RSS_EVERY) -> None:
    """Append (seconds since start, RSS MB) of ``pid`` every ``every`` seconds until cancelled."""
    started = time.monotonic()
    while True:
        rss = rss_mb(pid)
        if rss is not None:
            into.append((time.monotonic() - started, rss))
        await asyncio.sleep(every)


def resolve_store(name: str | None) -> Path | None:
    if name is None:
        return None
    path = NAMED_STORES.get(name, Path(name))
    if not path.is_file():
        raise SystemExit(
            f"no store at {path}" + (" (make it with bench/build_store.py)" if name in NAMED_STORES else "")
        )
    return path


UNKNOWN_CHANNEL = "404 10003 "
"""Discord's answer for a channel that does not exist (or the bot cannot see)."""


def split_store_channels(fake: FakeDiscord) -> tuple[list[Any], list[Any]]:
    """The stand-in's refusals, less the 404s for channels of a pre-built store.

    A store comes with its own games, in 1,000 servers the stand-in knows
    nothing of: what the bot owes them after its outage (the boards of the
    computer's turns, reminders, timeouts) finds no channel there, where a real
    bot would post it. Those are the store's, not the bot's breaking a rule."""
    kept, unknown = [], []
    for violation in fake.violations:
        found = re.search(r"/channels/(\d+)", violation[0])
        if violation[1].startswith(UNKNOWN_CHANNEL) and found and int(found.group(1)) not in fake.channels:
            unknown.append(violation)
        else:
            kept.append(violation)
    return kept, unknown


def copy_store(source: Path, target: Path) -> None:
    """A SQLite file and its write-ahead log, if any (the copy is what the bot opens),
    written through to the disk before the bot starts: gigabytes of the copy still
    waiting in the page cache made the bot's first checkpoint wait 0.7 s for them,
    and the kernel throttled its writes meanwhile (a loop stall of 0.2 s), which a
    bot on its own store never meets."""
    copied = [target]
    shutil.copyfile(source, target)
    for suffix in ("-wal", "-shm"):
        extra = source.with_name(source.name + suffix)
        if extra.exists():
            copied.append(target.with_name(target.name + suffix))
            shutil.copyfile(extra, copied[-1])
    for path in copied:
        with open(path, "rb+") as file:
            os.fsync(file.fileno())


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


async def main(
    games: int,
    as_json: bool,
    timeout: float,
    ramp: float = 0.0,
    think: tuple[float, float] = (0.0, 0.0),
    runs: int = 1,
    *,
    full: bool = True,
    store: Path | None = None,
    profile: str | None = None,
    keep_store: Path | None = None,
    env: dict[str, str] | None = None,
    kibitzed: int = 0,
    onlookers: int = 0,
    onlooker_think: tuple[float, float] = (1.0, 5.0),
) -> int:
    """``runs`` runs, each with a new stand-in and bot; exit code 0 if every run met the targets."""
    results = []
    for number in range(1, runs + 1):
        if runs > 1:
            print(f"-- run {number} of {runs}")
        results.append(
            await one_run(
                games,
                as_json,
                timeout,
                ramp,
                think,
                full=full,
                store=store,
                profile=profile,
                keep_store=keep_store,
                env=env,
                kibitzed=kibitzed,
                onlookers=onlookers,
                onlooker_think=onlooker_think,
            )
        )
    if runs > 1:
        met = sum(f["targets_met"] for f in results)
        median = {
            key: statistics.median(pick(f) for f in results)
            for key, pick in (
                ("interactions_per_s", lambda f: f["interactions_per_s"]),
                ("first_p99", lambda f: f["first_response_ms"]["p99"]),
                ("board_p50", lambda f: f["board_ms"]["p50"]),
                ("board_p99", lambda f: f["board_ms"]["p99"]),
                ("reference_board_ms", lambda f: f["reference_board_ms"]),
                ("bot_cpu", lambda f: f["cpu_ms_per_interaction"]["bot"]),
                ("drawing_cpu", lambda f: f["cpu_ms_per_interaction"]["drawing_workers"]),
                ("rss_max", lambda f: f["rss_mb"]["max"]),
            )
        }
        print(
            f"-- {runs} runs: median {median['interactions_per_s']:.1f} interactions/s, "
            f"p99 first response {median['first_p99']:.0f} ms, board p50 {median['board_p50']:.0f} ms, "
            f"p99 {median['board_p99']:.0f} ms; CPU per interaction: bot {median['bot_cpu']:.2f} ms, "
            f"drawing {median['drawing_cpu']:.2f} ms; max RSS {median['rss_max']:.0f} MB; "
            f"reference board {median['reference_board_ms']:.2f} ms; targets met in {met} of {runs} runs"
        )
    return 0 if all(f["targets_met"] for f in results) else 1


async def one_run(
    games: int,
    as_json: bool,
    timeout: float,
    ramp: float,
    think: tuple[float, float],
    *,
    full: bool = True,
    store: Path | None = None,
    profile: str | None = None,
    keep_store: Path | None = None,
    env: dict[str, str] | None = None,
    kibitzed: int = 0,
    onlookers: int = 0,
    onlooker_think: tuple[float, float] = (1.0, 5.0),
) -> dict[str, Any]:
    reference = reference_board_ms()
    print(
        f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores; "
        f"reference board {reference:.2f} ms of CPU (lower: a faster machine right now)"
    )
    fake = await FakeDiscord().start()
    rss: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory(prefix="e2e-load-") as tmp:
        database = Path(tmp) / "bot.sqlite3"
        if store is not None:
            started = time.monotonic()
            copy_store(store, database)
            print(
                f"store: a copy of {store} ({store.stat().st_size / 2**20:.0f} MB, copied in "
                f"{time.monotonic() - started:.1f} s)"
            )
        extra_env = {"COOLDOWN_TURN": "off", **({"COOLDOWN_LOOKUP": "off"} if onlookers else {}), **(env or {})}
        if profile:
            extra_env["E2E_PROFILE"] = str(Path(profile).resolve())
        bot = BotProcess(fake, Path(tmp), target=REAL_BOT, database=database, log_level="WARNING", extra_env=extra_env)
        sampler = None
        try:
            started = time.monotonic()
            await bot.start(timeout=120.0)
            assert bot.proc is not None
            ready_s = time.monotonic() - started
            sampler = asyncio.ensure_future(sample_rss(bot.proc.pid, rss))
            before, own_before = cpu_seconds(bot.proc.pid), time.process_time()
            games_started = time.monotonic()
            result = await run_games(
                fake,
                games,
                timeout=timeout,
                stagger=ramp / max(games + kibitzed, 1),
                think=think,
                full=full,
                kibitzed=kibitzed,
                onlookers=onlookers,
                onlooker_think=onlooker_think,
            )
            after, own = cpu_seconds(bot.proc.pid), time.process_time() - own_before
            drawing = {pid for pid in after if b"renderer.pipe" in _cmdline(pid)}
        finally:
            if sampler is not None:
                sampler.cancel()
            if profile and bot.proc is not None and bot.proc.returncode is None:
                await asyncio.sleep(2.5)  # the sampler's last write
            await bot.kill()
            await fake.stop()
            shutil.copy(bot.log_path, LOG_COPY)
            if keep_store is not None:
                copy_store(database, keep_store)
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; bot log: {LOG_COPY}")
        figures = result.figures()
        bot_cpu = after.get(bot.proc.pid, 0.0) - before.get(bot.proc.pid, 0.0)
        drawing_cpu = sum(used - before.get(pid, 0.0) for pid, used in after.items() if pid in drawing)
        others_cpu = sum(used - before.get(pid, 0.0) for pid, used in after.items()) - bot_cpu - drawing_cpu
        per = 1000 / max(len(result.interactions), 1)
        figures["cpu_ms_per_interaction"] = {
            "bot": round(bot_cpu * per, 2),
            "drawing_workers": round(drawing_cpu * per, 2),
            "other_workers": round(others_cpu * per, 2),  # analyses of ended games
            "stand_in_and_players": round(own * per, 2),
        }
        figures["mode"] = "full" if full else "short"
        figures["store"] = str(store) if store else None
        figures["ready_s"] = round(ready_s, 2)
        sizes = [mb for _, mb in rss]
        figures["rss_mb"] = {
            "max": round(max(sizes, default=float("nan")), 1),
            "samples": [(round(t, 1), round(mb, 1)) for t, mb in rss[:: max(1, len(rss) // 8)]],
        }
        violations, unknown = split_store_channels(fake) if store is not None else (list(fake.violations), [])
        figures["violations"] = len(violations)
        figures["store_channels_unknown"] = len(unknown)
        counted, peak = fake.global_limit_peak(games_started)
        figures["global_limit"] = {
            "requests": counted,
            "busiest_second": peak,
            "limit": limits.GLOBAL_REQUESTS_PER_SECOND,
        }
        figures["reference_board_ms"] = round(reference, 3)
        figures["think_s"] = list(think)
        figures["ramp_s"] = ramp
        figures["onlooker_think_s"] = list(onlooker_think) if kibitzed else None
        first_target, board_target = TARGETS_MS[figures["mode"]]
        ok = (
            figures["first_response_ms"]["p99"] <= first_target
            and figures["board_ms"]["p99"] <= board_target
            and result.missed == 0
            and result.finished == games + kibitzed
            and not result.privacy  # the players saw no vote before they acted
            and not violations
            and peak <= limits.GLOBAL_REQUESTS_PER_SECOND  # Discord's rule too: over it, 429s pause the bot
        )
        figures["targets_met"] = ok
        if as_json:
            print(json.dumps(figures, indent=2))
        else:
            how = "players act at once" if think[1] <= 0 else f"players take {think[0]:g}-{think[1]:g} s to act"
            what = "full games (a single game each, doubles taken)" if full else "short games (double, pass)"
            if kibitzed:
                low, high = onlooker_think
                what += f", {kibitzed} of them kibitzed by {onlookers} onlookers each " + (
                    "answering at once" if high <= 0 else f"reading a board {low:g}-{high:g} s"
                )
            print(
                f"{what}; {how}; games start {'together' if ramp <= 0 else f'over {ramp:g} s'}; "
                f"bot ready in {ready_s:.1f} s"
            )
            print(result.summary())
            cpu = figures["cpu_ms_per_interaction"]
            print(
                f"CPU per interaction: bot {cpu['bot']:.2f} ms, drawing {cpu['drawing_workers']:.2f} ms, "
                f"analyses {cpu['other_workers']:.2f} ms; stand-in and players {cpu['stand_in_and_players']:.2f} ms"
            )
            print(
                "bot RSS (s: MB): "
                + ", ".join(f"{t:.0f}: {mb:.0f}" for t, mb in figures["rss_mb"]["samples"])
                + f"; max {figures['rss_mb']['max']:.0f} MB"
            )
            print(f"Discord rule violations: {len(violations)}")
            if unknown:
                print(
                    f"messages owed to the store's own channels, which the stand-in does not know: {len(unknown)} "
                    f"(404 Unknown Channel; a real bot would post them)"
                )
            print(
                f"requests under Discord's global limit (all but the interactions' own routes): {counted}, "
                f"{peak} in the busiest second (the limit: {limits.GLOBAL_REQUESTS_PER_SECOND} a second)"
            )
            for text in result.privacy[:10]:
                print(f"privacy violation: {text}")
            print(
                f"targets: p99 first response <= {first_target:.0f} ms, "
                f"p99 board image <= {board_target:.0f} ms, 0 missed deadlines, "
                + ("no vote shown to a player before they acted, " if kibitzed else "")
                + f"<= {limits.GLOBAL_REQUESTS_PER_SECOND} a second on the globally limited routes: "
                f"{'MET' if ok else 'MISSED'}"
            )
        kinds: dict[str, int] = {}
        for error in result.errors:
            what = error.split("\n", 1)[0].split(": ", 1)[-1]
            what = re.sub(r"\d+", "N", what)[:120]
            kinds[what] = kinds.get(what, 0) + 1
        for what, count in sorted(kinds.items(), key=lambda item: -item[1]):
            print(f"error x{count}: {what}", file=sys.stderr)
        for text in result.polls.refused[:3]:
            print(f"an onlooker refused: {text[:300]}", file=sys.stderr)
        for error in result.errors[:3]:
            print(error[:1500], file=sys.stderr)
        if result.errors or violations:
            print(fake.describe(), file=sys.stderr)
        return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds a player waits for one answer")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--ramp", type=float, default=0.0, help="seconds over which the games start (0: all at once)")
    parser.add_argument("--runs", type=int, default=1, help="repeat the whole run; prints the medians")
    parser.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=(0.0, 0.0),
        metavar=("LOW", "HIGH"),
        help="seconds a player takes to act, uniform between LOW and HIGH (default: at once)",
    )
    parser.add_argument(
        "--kibitzed", type=int, default=0, help="games with kibitzer polls on, besides the --games ordinary ones"
    )
    parser.add_argument("--onlookers", type=int, default=10, help="onlookers answering each kibitzed game's polls")
    parser.add_argument(
        "--onlooker-think",
        type=float,
        nargs=2,
        default=(1.0, 5.0),
        metavar=("LOW", "HIGH"),
        help="seconds an onlooker reads a board before answering its poll (default 1 5; 0 0: at once)",
    )
    parser.add_argument("--short", action="store_true", help="the old short games (double, pass) instead of full ones")
    parser.add_argument("--full", action="store_true", help="full games (the default)")
    parser.add_argument(
        "--store", default=None, help="run on a copy of this SQLite store ('big': bench/.stores/big.sqlite)"
    )
    parser.add_argument("--keep-store", type=Path, default=None, help="copy the run's database here afterwards")
    parser.add_argument("--profile", default=None, help="write a sampling profile of the bot's event loop here")
    parser.add_argument("--locale", default="en-US", help="the players' and the server's Discord locale (e.g. el)")
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a setting for the bot (repeatable), e.g. --env HEALTH_PORT=9102 to measure it with its metrics on",
    )
    args = parser.parse_args()
    payloads.LOCALE = args.locale
    if args.short and args.full:
        parser.error("--short or --full, not both")
    run = functools.partial(
        main,
        args.games,
        args.json,
        args.timeout,
        args.ramp,
        tuple(args.think),
        args.runs,
        full=not args.short,
        store=resolve_store(args.store),
        profile=args.profile,
        keep_store=args.keep_store,
        env=dict(item.split("=", 1) for item in args.env),
        kibitzed=args.kibitzed,
        onlookers=args.onlookers if args.kibitzed else 0,
        onlooker_think=tuple(args.onlooker_think),
    )
    # The stand-in and the players share the bot's two cores (Discord's own servers would
    # not): keep them light, and the lighter loop if installed. No garbage collections
    # at all: the stand-in makes next to no cyclic garbage, while a collection scans
    # every message it keeps (one took 449 ms in a 200-game run), pausing every player
    # and counting that pause as the bot's latency.
    settle_memory()
    gc.disable()
    try:
        import uvloop
    except ImportError:
        sys.exit(asyncio.run(run()))
    sys.exit(uvloop.run(run()))
