"""Benchmark the board renderer: milliseconds per PNG and PNG size.

Renders a fixed set of positions (the start, a mid-game with a hit and
checkers on the bar, a 15-checker stack, a bear-off) many times on one core
and prints, per position and overall, the median and 95th percentile time per
board including PNG encoding, the median CPU time of this process (steadier
than wall time when other work shares the machine), and the PNG size.
Targets: median <= 25 ms, PNG <= 100 KB.

The same board again and again runs on warm CPU caches and warm text caches,
which flatters the renderer. The "varied" section renders boards from played
games instead (seeded dice and choices, unique player names per game, dice,
last play, cube and pip counts changing), interleaved game by game as a busy
bot sees them, after as many boards of other games, and prints the mean and
median CPU time per board and the mean PNG size.

The "charts" section draws the matplotlib charts (``renderer.charts``) the
same way: a game chart of a short, a typical and a very long game (30, 80
and 300 moves, with marks) and a rating chart of 10, 100 and 1000 rated
matches. Target: every chart under 100 ms (median).

The "tournament pictures" section draws a knockout's bracket at 4, 16 and 64
players (partway through, as the bot shows it after a result) and a 33-player
Swiss's standings, and prints the median and 95th percentile time per picture
including the PNG, and its size. Target: 64-player bracket median <= 50 ms.

``--language el`` draws every board, chart and picture with its words in that
language (the catalogue's lookups and, for Arabic, the right-to-left layout):
run it interleaved with the English default to see what the translation costs.

    python -m bench.render [--rounds 60] [--games 150] [--per-game 4] [--pictures 20] [--chart-rounds 20]
                           [--language en]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from engine.dice import SeededDice
from engine.game import Game, GameSettings, Phase
from engine.play import Move
from engine.position import Position
from i18n import speaking
from renderer.board import render_board
from renderer.bracket import (
    BracketMatch,
    BracketPicture,
    PairingLine,
    Slot,
    StandingRow,
    StandingsPicture,
    bracket_size,
    standings_size,
)
from renderer.charts import GameChart, Mark, RatingChart, warm_up
from renderer.from_game import scene_from_game
from renderer.scene import BoardScene
from renderer.themes import HIGH_CONTRAST

TARGET_MS = 25.0
TARGET_KB = 100.0
BRACKET_TARGET_MS = 50.0
CHART_TARGET_MS = 100.0
NAMES = [
    "Alice",
    "Bob",
    "Carmen",
    "Dmitri",
    "Eve",
    "Farid",
    "Gwendolyn Fairweather",
    "Héctor",
    "Ingrid",
    "Jamal",
    "Kenji",
    "Lena",
    "Mateo",
    "Nadia",
    "Oskar",
    "Priya",
]


def scenes() -> dict[str, BoardScene]:
    """The benchmark boards, named."""
    midgame = Position.from_counts(
        {25: 2, 13: 3, 8: 3, 6: 5, 24: 2},
        {24: 1, 22: 1, 16: 1, 13: 4, 8: 3, 6: 4, 5: 1},
    )
    return {
        "start": BoardScene(Position.start(), names=("Alice", "Bob"), dice=(3, 1), opening=True),
        "midgame": BoardScene(
            midgame,
            names=("Alice 🎲", "Bob"),
            dice=(5, 3),
            cube_value=2,
            cube_owner=1,
            match_length=7,
            score=(3, 5),
            last_play=(Move(13, 9, True), Move(24, 23)),
        ),
        "stack15": BoardScene(
            Position.from_counts({6: 15}, {25: 3, 1: 12}), names=("Stacker", "Barred"), theme=HIGH_CONTRAST
        ),
        "bearoff": BoardScene(
            Position.from_counts({1: 2, 2: 3, 3: 1}, {1: 4, 2: 2, 4: 1}),
            names=("Ann", "Bo"),
            dice=(6, 6),
            stake=5,
            last_play=(Move(5, 0), Move(4, 0), Move(6, 2)),
        ),
    }


def played_game(number: int) -> list[BoardScene]:
    """Every board a channel would see in one seeded game: after each roll, play
    and cube action, from the side of the player to act. Plays are chosen at
    random among the legal ones, doubles now and then; every third game is for
    money, the others are matches at varied scores."""
    choose = random.Random(number)
    money = number % 3 == 0
    length = 0 if money else choose.choice((3, 5, 7, 11))
    score = (0, 0) if money else (choose.randrange(length), choose.randrange(length))
    game = Game(GameSettings(match_length=length), dice=SeededDice(number), score=score)
    names = (f"player{number}a", f"player{number}b")
    stake = choose.choice((1, 5, 10)) if money else None
    boards: list[BoardScene] = []
    game.opening_roll()
    while not game.is_over:
        player = game.turn
        if game.phase is Phase.ROLL:
            if game.can_double(player) and choose.random() < 0.04:
                game.double(player)
            else:
                game.roll(player)
        elif game.phase is Phase.DOUBLED:
            if choose.random() < 0.75:
                game.take(player)
            else:
                game.drop(player)
        else:
            game.play(player, choose.choice(game.legal_plays()))
        boards.append(scene_from_game(game, names, viewer=game.turn, stake=stake))
    return boards


def varied_scenes(games: int, per_game: int, first: int = 0) -> list[BoardScene]:
    """``per_game`` boards from each of ``games`` played games (numbered from
    ``first``), spread over each game and interleaved game by game (the order a
    busy bot draws them in)."""
    picked: list[list[BoardScene]] = []
    for number in range(first, first + games):
        boards = played_game(number)
        step = max(1, len(boards) // per_game)
        picked.append(boards[step // 2 :: step][:per_game])
    return [game[turn] for turn in range(per_game) for game in picked if turn < len(game)]


def bench_varied(games: int, per_game: int) -> None:
    """Mean and median CPU time and mean PNG size over boards from played games,
    after as many boards of other games (a bot that has been running a while:
    caches hold the common words and pieces, not these players' names)."""
    for scene in varied_scenes(games, per_game, first=games):
        render_board(scene)
    boards = varied_scenes(games, per_game)
    cpu: list[float] = []
    total_bytes = 0
    for scene in boards:
        start_cpu = time.process_time()
        png = render_board(scene)
        cpu.append((time.process_time() - start_cpu) * 1000)
        total_bytes += len(png)
    print(
        f"{'varied':<10} {statistics.mean(cpu):>10.2f} {statistics.median(cpu):>8.2f}"
        f" {total_bytes / len(boards) / 1024:>8.1f}  ({len(boards)} boards of {games} played games)"
    )


def bracket(players: int, played: int, seed: int = 1) -> BracketPicture:
    """A knockout of ``players`` with ``played`` rounds decided (a random winner
    each) and the next being played: what the announcement shows after a result."""
    rng = random.Random(seed)
    size = 2
    while size < players:
        size *= 2
    order = [1, 2]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for top in order for s in (top, total - top)]
    slots: list[Slot | None] = [Slot(f"{NAMES[(s - 1) % len(NAMES)]} {s}", s) if s <= players else None for s in order]
    rounds = []
    for number in range(size.bit_length() - 1):
        boxes, following = [], []
        for k in range(len(slots) // 2):
            a, b = slots[2 * k], slots[2 * k + 1]
            if number < played or a is None or b is None:
                if a is None or b is None:
                    boxes.append(BracketMatch(a or b, None, 0, "bye"))
                    following.append(a or b)
                else:
                    won = rng.randrange(2)
                    boxes.append(BracketMatch(a, b, won, "done"))
                    following.append((a, b)[won])
            else:
                boxes.append(BracketMatch(a, b, None, "playing" if number == played else "waiting"))
                following.append(None)
        rounds.append(tuple(boxes))
        slots = following
    return BracketPicture(
        f"Bench Cup {players}",
        f"Knockout · {players} players · round {played + 1}",
        tuple(rounds),
        footer="Round ends Sun 08 Mar 12:00 UTC",
    )


def standings(players: int, seed: int = 2) -> StandingsPicture:
    rng = random.Random(seed)
    rows = tuple(
        StandingRow(
            n + 1,
            f"{NAMES[n % len(NAMES)]} {n + 1}",
            6 - n // 6,
            6 - n // 6,
            n // 6,
            rng.randrange(30),
            rng.randrange(20),
        )
        for n in range(players)
    )
    pairings = tuple(
        PairingLine(
            f"{NAMES[n % len(NAMES)]} {n}",
            f"{NAMES[(n + 5) % len(NAMES)]} {n + 17}",
            rng.choice(("1–0", "0–1", "")),
            None,
        )
        for n in range(players // 2)
    )
    return StandingsPicture(f"Bench Swiss {players}", "Swiss · round 4 of 6", rows, True, "Round 4", pairings)


def bench_pictures(rounds: int) -> bool:
    """Tournament pictures: median and p95 time and size; True if the 64-player bracket met its target."""
    cases = {
        "bracket 4": (bracket(4, 1), bracket_size),
        "bracket 16": (bracket(16, 2), bracket_size),
        "bracket 64": (bracket(64, 2), bracket_size),
        "swiss 33": (standings(33), standings_size),
    }
    print(f"{'picture':<12} {'median ms':>10} {'p95 ms':>8} {'CPU ms':>8} {'PNG KB':>8}  size")
    met = True
    for name, (picture, size_of) in cases.items():
        picture.draw()  # warm: fonts, text masks, the palette
        times: list[float] = []
        cpu: list[float] = []
        for _ in range(rounds):
            start, start_cpu = time.perf_counter(), time.process_time()
            png = picture.draw()
            times.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - start_cpu) * 1000)
        p95 = statistics.quantiles(times, n=20)[-1] if len(times) >= 2 else times[0]
        width, height = size_of(picture)  # type: ignore[operator]
        print(
            f"{name:<12} {statistics.median(times):>10.2f} {p95:>8.2f} {statistics.median(cpu):>8.2f}"
            f" {len(png) / 1024:>8.1f}  {width}x{height}"
        )
        if name == "bracket 64":
            met = statistics.median(times) <= BRACKET_TARGET_MS
    print(f"target: 64-player bracket median <= {BRACKET_TARGET_MS:.0f} ms: {'met' if met else 'MISSED'}")
    return met


def game_chart(moves: int) -> GameChart:
    """A game of ``moves`` moves whose chances swing (seeded), with a blunder every 15 moves."""
    rng = random.Random(moves)
    win, chances = 0.5, []
    for _ in range(moves):
        win = min(max(win + rng.gauss(0, 0.07), 0.01), 0.99)
        chances.append(win)
    return GameChart(
        title=f"Game #1234 · Player{moves}a vs Player{moves}b",
        names=(f"Player{moves}a", f"Player{moves}b"),
        moves=tuple(range(1, moves + 1)),
        movers=tuple(i % 2 for i in range(moves)),
        win=tuple(chances),
        gammons=tuple((w * 0.3, (1 - w) * 0.3) for w in chances),
        luck=tuple(rng.gauss(0, 0.15) for _ in range(moves)),
        marks=tuple(Mark(m, m % 2, "double" if m % 45 == 0 else "checker", 0.1) for m in range(15, moves + 1, 15)),
        footer="Player a: error rate 7.2 · luck +0.41   Player b: error rate 12.0 · luck -0.41",
    )


def rating_chart(matches: int) -> RatingChart:
    """A member's ``matches`` rated matches over a year, half of them analysed."""
    rng = random.Random(matches)
    rating, ratings = 1500.0, []
    for _ in range(matches):
        rating += rng.gauss(1, 10)
        ratings.append(rating)
    times = tuple(1.77e9 + i * 365 * 86400 / matches for i in range(matches))
    return RatingChart(
        title="Member · Backgammon Club",
        times=times,
        ratings=tuple(ratings),
        points=tuple(rng.choice((-2, -1, 1, 2)) for _ in range(matches)),
        won=tuple(rng.random() < 0.55 for _ in range(matches)),
        error_times=times[::2],
        error_rates=tuple(abs(rng.gauss(9, 4)) for _ in times[::2]),
        best_win=matches // 2,
        best_win_label="beat Someone (1688)",
        subtitle="55 won · 45 lost · +12 points · best win: Someone (1688)",
        footer="Error rate, last 5 analysed: 8.1",
    )


def bench_charts(rounds: int) -> None:
    """Median and p95 wall time, median CPU time and PNG size of each chart."""
    warm_up()
    charts: dict[str, GameChart | RatingChart] = {f"game {n}": game_chart(n) for n in (30, 80, 300)}
    charts.update({f"rating {n}": rating_chart(n) for n in (10, 100, 1000)})
    print(f"{'chart':<12} {'median ms':>10} {'p95 ms':>8} {'CPU ms':>8} {'PNG KB':>8}")
    medians = []
    for name, chart in charts.items():
        times: list[float] = []
        cpu: list[float] = []
        for _ in range(rounds):
            start, start_cpu = time.perf_counter(), time.process_time()
            png = chart.draw()
            times.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - start_cpu) * 1000)
        medians.append(statistics.median(times))
        p95 = statistics.quantiles(times, n=20)[-1]
        print(f"{name:<12} {medians[-1]:>10.2f} {p95:>8.2f} {statistics.median(cpu):>8.2f} {len(png) / 1024:>8.1f}")
    ok = max(medians) <= CHART_TARGET_MS
    print(f"target: every chart's median <= {CHART_TARGET_MS:.0f} ms: {'met' if ok else 'MISSED'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=60, help="renders per position")
    parser.add_argument("--games", type=int, default=150, help="played games for the varied boards")
    parser.add_argument("--per-game", type=int, default=4, help="varied boards per played game")
    parser.add_argument("--pictures", type=int, default=20, help="draws per tournament picture")
    parser.add_argument("--only-pictures", action="store_true", help="only the tournament pictures")
    parser.add_argument("--chart-rounds", type=int, default=20, help="draws per chart")
    parser.add_argument("--charts-only", action="store_true", help="only the charts")
    parser.add_argument("--language", default="en", help="the pictures' language (default: en)")
    args = parser.parse_args()
    with speaking(args.language):
        bench(args)


def bench(args: argparse.Namespace) -> None:
    if args.charts_only:
        bench_charts(args.chart_rounds)
        return
    if args.only_pictures:
        bench_pictures(args.pictures)
        return

    boards = scenes()
    for scene in boards.values():  # warm the caches: static board, sprites, fonts
        render_board(scene)
    all_ms: list[float] = []
    all_cpu: list[float] = []
    sizes: list[int] = []
    print(f"{'board':<10} {'median ms':>10} {'p95 ms':>8} {'CPU ms':>8} {'PNG KB':>8}")
    for name, scene in boards.items():
        times: list[float] = []
        cpu: list[float] = []
        for _ in range(args.rounds):
            start, start_cpu = time.perf_counter(), time.process_time()
            png = render_board(scene)
            times.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - start_cpu) * 1000)
        sizes.append(len(png))
        all_ms.extend(times)
        all_cpu.extend(cpu)
        p95 = statistics.quantiles(times, n=20)[-1]
        print(
            f"{name:<10} {statistics.median(times):>10.2f} {p95:>8.2f} {statistics.median(cpu):>8.2f}"
            f" {len(png) / 1024:>8.1f}"
        )
    median = statistics.median(all_ms)
    p95 = statistics.quantiles(all_ms, n=20)[-1]
    largest = max(sizes) / 1024
    print(f"{'all':<10} {median:>10.2f} {p95:>8.2f} {statistics.median(all_cpu):>8.2f} {largest:>8.1f}  (largest PNG)")
    ok = median <= TARGET_MS and largest <= TARGET_KB
    print(f"targets: median <= {TARGET_MS:.0f} ms, PNG <= {TARGET_KB:.0f} KB: {'met' if ok else 'MISSED'}")
    print()
    print(f"{'':<10} {'mean CPU ms':>10} {'median':>8} {'mean KB':>8}")
    bench_varied(args.games, args.per_game)
    print()
    bench_pictures(args.pictures)
    print()
    bench_charts(args.chart_rounds)


if __name__ == "__main__":
    main()
