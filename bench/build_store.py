"""Build a large store with the project's own schema: a server a few years on.

    .venv/bin/python -m bench.build_store [--out bench/.stores/big.sqlite | --database-url postgresql://...]
        [--finished 1000000] [--active 100000] [--guilds 1000] [--players 50000]
        [--computer 4000] [--due 400] [--pool 300] [--no-summaries] [--seed 1]

The schema comes from the project's migrations (the store is opened and
migrated by :func:`bot.store.open_store` first), so the large store is what
the bot would have grown into. The games themselves are real: a pool of
``--pool`` games and matches is played to the end through the game service
(random legal plays, doubles, takes and passes, seeded dice), and each stored
game is one of them, with its whole action log, its summary and its rating
changes (the FIBS formula of :mod:`engine.ratings`, applied in order per
server and globally). What varies per copy is who played, where and when:

- ``--guilds`` servers whose sizes fall off like a power law (the biggest
  about 8,600 members, the default), drawing from ``--players`` members;
  within a server a few members play most of the games (the busiest has
  a couple of thousand);
- ``--finished`` finished games spread over the last two years (their
  summaries are the pool's texts: the names inside the .mat and the JSON
  export stay the pool's, the card's are the copy's);
- ``--active`` active games at a random point of a pool game, started in
  the last week, with turn deadlines ahead (``--due`` of them already
  overdue: a deadline sweep's worth), ``--computer`` of them against the
  computer and waiting for it to act.

SQLite is written through :mod:`sqlite3` with the secondary indexes dropped
during the load and made again after (as a bulk load should); PostgreSQL
through COPY. The default sizes make a file of tens of GB and take a while
(the figures printed say how long); ``--scale 0.01`` makes a small one.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import itertools
import json
import math
import os
import random
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.ai import Level
from bot.core import ChallengeOptions, GameService, PlayerRef
from bot.core.computer import ComputerPlayer
from bot.core.model import SERVICE_ACTIONS
from bot.store import open_store
from engine import Match, SeededDice
from engine.ratings import DEFAULT_RATING, Rating, effective_length, rate_match

HERE = Path(__file__).resolve().parent

DEFAULT_OUT = HERE / ".stores" / "big.sqlite"
COMPUTER_ID = 1  # the computer's player id (bot.core: the bot's own user id in a real run)
FIRST_USER = 100_000_000_000_000_000  # Discord snowflakes are 18-19 digits
FIRST_GUILD = 200_000_000_000_000_000
FIRST_CHANNEL = 300_000_000_000_000_000
BIGGEST_GUILD = 8_600
YEAR = 365 * 86_400.0
CHUNK = 5_000  # games per write batch


# ---------------------------------------------------------------------- the pool


@dataclass(frozen=True)
class PoolGame:
    """One real game or match, as the service stored it."""

    settings: str
    match_length: int
    score: tuple[int, int]
    winner_seat: int
    result: str
    actions: list[tuple[int | None, str, str, int | None, int | None, str | None]]
    """(seat or None, kind, action JSON, die1, die2, play)"""
    card: dict[str, Any]
    games: str
    mat: str
    export: str
    gammons: tuple[int, int]
    backgammons: tuple[int, int]
    turns: list[int | None]
    """whose turn it is after each action (the seat; None once over)"""


async def play_pool(size: int, seed: int) -> list[PoolGame]:
    """Play ``size`` games through the game service (on a temporary SQLite file),
    both sides played by the computer at its beginner level (0-ply gnubg-nn with a
    little noise: games as long as people's, about 50 plays, and now and then a
    double, a take, a pass or a resignation)."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="bg-pool-") as folder:
        return await _play_pool(size, rng, seed, os.path.join(folder, "pool.sqlite"))


async def _play_pool(size: int, rng: random.Random, seed: int, path: str) -> list[PoolGame]:
    store = await open_store(path)
    service = GameService(store, dice=SeededDice(seed))

    async def one(i: int) -> None:
        a, b = PlayerRef(10_000 + 2 * i, f"player{2 * i}"), PlayerRef(10_001 + 2 * i, f"player{2 * i + 1}")
        sides = {
            p.user_id: ComputerPlayer(service, p.user_id, Level.BEGINNER, rng=random.Random(rng.random()))
            for p in (a, b)
        }
        length = rng.choice([0] * 9 + [3])
        options = ChallengeOptions(stake=1 + i % 3) if length == 0 else ChallengeOptions(match_length=length)
        challenge = await service.challenges.create(1, 5_000 + i, a, b, options)
        state = (await service.challenges.accept(challenge.id, b.user_id)).state
        while (player := state.to_act()) is not None:
            await sides[player.user_id].take_turn(state.id)
            state = await service.lookups.get_game(state.id)

    try:
        for start in range(0, size, 8):  # the engines run in a pool: keep it busy
            await asyncio.gather(*(one(i) for i in range(start, min(size, start + 8))))
    finally:
        await store.close()
    return _read_pool(path)


def _read_pool(path: str) -> list[PoolGame]:
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    pool: list[PoolGame] = []
    try:
        for g in conn.execute("SELECT * FROM games WHERE status = 'finished' ORDER BY id"):
            seats = {g["player0"]: 0, g["player1"]: 1}
            actions = [
                (seats.get(r["actor"]), r["kind"], r["action"], r["die1"], r["die2"], r["play"])
                for r in conn.execute("SELECT * FROM actions WHERE game_id = ? ORDER BY seq", (g["id"],))
            ]
            s = conn.execute("SELECT * FROM game_summaries WHERE game_id = ?", (g["id"],)).fetchone()
            card = json.loads(s["card"])
            result = json.loads(g["result"])
            gammons, backgammons = [0, 0], [0, 0]
            for each in card.get("games", []):
                won = each.get("result") or {}
                if won.get("kind") == 2:
                    gammons[won["winner"]] += 1
                elif won.get("kind") == 3:
                    backgammons[won["winner"]] += 1
            pool.append(
                PoolGame(
                    settings=g["settings"],
                    match_length=g["match_length"],
                    score=(g["score0"], g["score1"]),
                    winner_seat=int(result["winner_seat"]),
                    result=g["result"],
                    actions=actions,
                    card=card,
                    games=s["games"],
                    mat=s["mat"],
                    export=s["export"],
                    gammons=(gammons[0], gammons[1]),
                    backgammons=(backgammons[0], backgammons[1]),
                    turns=_turns(g["settings"], [json.loads(a[2]) for a in actions]),
                )
            )
    finally:
        conn.close()
    return pool


def _turns(settings: str, actions: list[dict[str, Any]]) -> list[int | None]:
    """Replay a log as the service does, noting whose turn it is after each action."""
    match = Match(ChallengeOptions.from_dict(json.loads(settings)).game_settings(), dice=SeededDice(0))
    turns: list[int | None] = []
    for action in actions:
        if action.get("kind") not in SERVICE_ACTIONS:
            match.apply(action)
        game = match.game
        turns.append(None if game is None or game.is_over or match.is_over else game.turn)
    return turns


# ---------------------------------------------------------------------- who plays where


@dataclass
class World:
    guilds: list[int]
    members: list[list[int]]
    """each guild's members, busiest first"""
    weights: list[float]
    """each guild's share of the games"""

    def __post_init__(self) -> None:
        self._cumulative = list(itertools.accumulate(self.weights))

    def pick(self, rng: random.Random) -> int:
        """A guild, by its share of the games."""
        return min(bisect.bisect(self._cumulative, rng.random() * self._cumulative[-1]), len(self.guilds) - 1)


def make_world(n_guilds: int, n_players: int, rng: random.Random) -> World:
    guilds, members, sizes = [], [], []
    for i in range(n_guilds):
        size = max(8, min(n_players, int(BIGGEST_GUILD / (i + 1) ** 0.8)))
        guilds.append(FIRST_GUILD + i)
        members.append(rng.sample(range(FIRST_USER, FIRST_USER + n_players), size))
        sizes.append(size)
    total = sum(sizes)
    return World(guilds, members, [s / total for s in sizes])


def pick_pair(world: World, g: int, rng: random.Random) -> tuple[int, int]:
    """Two members of guild ``g``; a few members play most games (rank ~ u**2)."""
    people = world.members[g]
    n = len(people)
    a = people[int(n * rng.random() ** 2)]
    while True:
        b = people[int(n * rng.random() ** 1.5)]
        if b != a:
            return a, b


# ---------------------------------------------------------------------- rows


def card_for(game: PoolGame, names: tuple[str, str]) -> str:
    card = dict(game.card)
    card["names"] = list(names)
    return json.dumps(card, separators=(",", ":"))


def name_of(user_id: int) -> str:
    return f"member{user_id - FIRST_USER}"


class Rows:
    """The rows of a chunk of games, table by table."""

    def __init__(self) -> None:
        self.games: list[tuple[Any, ...]] = []
        self.actions: list[tuple[Any, ...]] = []
        self.summaries: list[tuple[Any, ...]] = []
        self.history: list[tuple[Any, ...]] = []

    def __len__(self) -> int:
        return len(self.games)


def finished_rows(
    args: argparse.Namespace, pool: list[PoolGame], world: World, rng: random.Random, now: float
) -> Iterator[Rows]:
    """Finished games, oldest first, with their logs, summaries and rating changes."""
    ratings: dict[tuple[int, int], list[float]] = {}
    """(scope, user) -> [rating, experience, games, wins, gammons, backgammons, won, lost, best, updated]"""
    starts = sorted(now - 2 * YEAR * rng.random() for _ in range(args.finished))
    rows = Rows()
    channels = [FIRST_CHANNEL + 1_000 * i for i in range(len(world.guilds))]
    for n, finished_at in enumerate(starts):
        game_id = n + 1
        g = world.pick(rng)
        guild = world.guilds[g]
        p0, p1 = pick_pair(world, g, rng)
        game = pool[rng.randrange(len(pool))]
        duration = rng.uniform(300, 3 * 86_400)
        created = finished_at - duration
        seats = (p0, p1)
        winner = seats[game.winner_seat]
        loser = seats[1 - game.winner_seat]
        channel = channels[g] + rng.randrange(40)
        rows.games.append(
            (
                game_id,
                guild,
                channel,
                p0,
                p1,
                game.settings,
                "finished",
                game.match_length,
                game.score[0],
                game.score[1],
                len(game.actions),
                None,
                None,
                0,
                game.result,
                winner,
                channel,
                None,
                created,
                finished_at,
                finished_at,
                None,
            )
        )
        step = duration / max(1, len(game.actions))
        for seq, (seat, kind, action, d1, d2, play) in enumerate(game.actions, 1):
            actor = None if seat is None else seats[seat]
            rows.actions.append((game_id, seq, actor, kind, action, d1, d2, play, created + seq * step))
        if not args.no_summaries:
            rows.summaries.append(
                (game_id, card_for(game, (name_of(p0), name_of(p1))), game.games, game.mat, game.export, finished_at)
            )
        w, lose = game.winner_seat, 1 - game.winner_seat
        for scope in (guild, 0):
            rw = ratings.setdefault((scope, winner), [DEFAULT_RATING, 0, 0, 0, 0, 0, 0, 0, DEFAULT_RATING, 0.0])
            rl = ratings.setdefault((scope, loser), [DEFAULT_RATING, 0, 0, 0, 0, 0, 0, 0, DEFAULT_RATING, 0.0])
            new_w, new_l = rate_match(
                Rating(rw[0], int(rw[1])), Rating(rl[0], int(rl[1])), effective_length(game.match_length)
            )
            for uid, r, new, won, pts_won, pts_lost, seat in (
                (winner, rw, new_w, 1, game.score[w], game.score[lose], w),
                (loser, rl, new_l, 0, game.score[lose], game.score[w], lose),
            ):
                rows.history.append(
                    (game_id, scope, uid, r[0], new.rating, new.experience, won, pts_won - pts_lost, finished_at)
                )
                r[0], r[1] = new.rating, new.experience
                r[2] += 1
                r[3] += won
                r[4] += game.gammons[seat]
                r[5] += game.backgammons[seat]
                r[6] += pts_won
                r[7] += pts_lost
                r[8] = max(r[8], new.rating)
                r[9] = finished_at
        if len(rows) >= CHUNK:
            yield rows
            rows = Rows()
    if len(rows):
        yield rows
    finished_rows.ratings = ratings  # type: ignore[attr-defined]


def active_rows(
    args: argparse.Namespace, pool: list[PoolGame], world: World, rng: random.Random, now: float, first_id: int
) -> Iterator[Rows]:
    """Active games: part-way through a pool game, each in a channel of its own."""
    money = [g for g in pool if g.match_length == 0] or pool
    rows = Rows()
    computer_every = args.active // args.computer if args.computer else 0
    due_every = args.active // args.due if args.due else 0
    for n in range(args.active):
        game_id = first_id + n
        g = world.pick(rng)
        guild = world.guilds[g]
        p0, p1 = pick_pair(world, g, rng)
        game = money[rng.randrange(len(money))]
        settings = game.settings
        computer = bool(computer_every) and n % computer_every == 0
        if computer:
            p1 = COMPUTER_ID
            settings = json.dumps(
                {**json.loads(settings), "computer_level": "expert", "practice": False}, separators=(",", ":")
            )
        # stop part-way, where the computer (seat 1) is to act for its games
        cut = rng.randrange(2, len(game.actions))
        if computer:
            cut = next((k for k in range(cut, 1, -1) if game.turns[k - 1] == 1), cut)
        created = now - rng.uniform(600, 7 * 86_400)
        step = (now - created) / cut
        due = bool(due_every) and n % due_every == 1
        deadline = now - rng.uniform(1, 600) if due else now + rng.uniform(600, 3 * 86_400)
        reminder = deadline - 86_400
        channel = FIRST_CHANNEL + 500_000_000 + game_id  # one active game per channel
        rows.games.append(
            (
                game_id,
                guild,
                channel,
                p0,
                p1,
                settings,
                "active",
                0,
                0,
                0,
                cut,
                deadline,
                reminder,
                int(reminder < now),
                None,
                None,
                channel,
                None,
                created,
                now - step,
                None,
                game.turns[cut - 1],
            )
        )
        seats = (p0, p1)
        for seq, (seat, kind, action, d1, d2, play) in enumerate(game.actions[:cut], 1):
            actor = None if seat is None else seats[seat]
            rows.actions.append((game_id, seq, actor, kind, action, d1, d2, play, created + seq * step))
        if len(rows) >= CHUNK:
            yield rows
            rows = Rows()
    if len(rows):
        yield rows


def player_rows(args: argparse.Namespace, now: float) -> list[tuple[Any, ...]]:
    rows = [(COMPUTER_ID, "Computer", 1, now - 2 * YEAR, now)]
    rows += [(FIRST_USER + i, name_of(FIRST_USER + i), 0, now - 2 * YEAR, now) for i in range(args.players)]
    return rows


def rating_rows(ratings: dict[tuple[int, int], list[float]]) -> Iterator[tuple[Any, ...]]:
    for (scope, uid), r in ratings.items():
        yield (
            scope,
            uid,
            r[0],
            int(r[1]),
            int(r[2]),
            int(r[3]),
            int(r[4]),
            int(r[5]),
            int(r[6]),
            int(r[7]),
            r[8],
            r[9],
        )


# ---------------------------------------------------------------------- writers

GAME_COLUMNS = (
    "id, guild_id, channel_id, player0, player1, settings, status, match_length, score0, score1, version,"
    " turn_deadline, reminder_at, reminder_sent, result, winner, board_channel_id, board_message_id,"
    " created_at, updated_at, finished_at, turn"
)
ACTION_COLUMNS = "game_id, seq, actor, kind, action, die1, die2, play, created_at"
SUMMARY_COLUMNS = "game_id, card, games, mat, export, created_at"
HISTORY_COLUMNS = "game_id, scope, user_id, rating_before, rating_after, experience_after, won, points, created_at"
RATING_COLUMNS = (
    "scope, user_id, rating, experience, games, wins, gammons, backgammons, points_won, points_lost,"
    " best_rating, updated_at"
)
PLAYER_COLUMNS = "user_id, display_name, is_bot, created_at, updated_at"
BULK_TABLES = ("games", "actions", "game_summaries", "rating_history", "ratings", "players")


DERIVED = (
    # What the store keeps beside the games, as the transaction that ends a game
    # would have kept it (bot.store.stats.count_dice): the finished games' dice.
    """
    INSERT INTO dice_counts (user_id, guild_id, hi, lo, n)
    SELECT a.actor, g.guild_id,
           CASE WHEN a.die1 >= a.die2 THEN a.die1 ELSE a.die2 END,
           CASE WHEN a.die1 >= a.die2 THEN a.die2 ELSE a.die1 END,
           COUNT(*)
    FROM actions a JOIN games g ON g.id = a.game_id
    WHERE g.status <> 'active' AND a.actor IS NOT NULL AND a.die1 IS NOT NULL
    GROUP BY 1, 2, 3, 4
    """,
)


def _marks(columns: str) -> str:
    return ", ".join("?" for _ in columns.split(","))


class SqliteWriter:
    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode = OFF")
        self.conn.execute("PRAGMA synchronous = OFF")
        self.conn.execute("PRAGMA cache_size = -400000")
        marks = ", ".join("?" for _ in BULK_TABLES)
        self.indexes = [
            (name, sql)
            for name, sql in self.conn.execute(
                f"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
                f" AND tbl_name IN ({marks})",
                BULK_TABLES,
            )
        ]
        for name, _ in self.indexes:
            self.conn.execute(f'DROP INDEX "{name}"')
        self.conn.execute("BEGIN")

    def write(self, table: str, columns: str, rows: Any) -> None:
        self.conn.executemany(f"INSERT INTO {table} ({columns}) VALUES ({_marks(columns)})", rows)

    def commit(self) -> None:
        self.conn.execute("COMMIT")
        self.conn.execute("BEGIN")

    def finish(self) -> None:
        self.conn.execute("COMMIT")
        for sql in DERIVED:
            self.conn.execute(sql)
        for _, sql in self.indexes:
            self.conn.execute(sql)
        self.conn.execute("UPDATE sqlite_sequence SET seq = (SELECT MAX(id) FROM games) WHERE name = 'games'")
        self.conn.execute(
            "INSERT INTO sqlite_sequence (name, seq) SELECT 'games', MAX(id) FROM games"
            " WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'games')"
        )
        self.conn.execute("ANALYZE")
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.close()


class PostgresWriter:
    def __init__(self, url: str) -> None:
        import asyncpg

        self.loop = asyncio.new_event_loop()
        self.conn = self.loop.run_until_complete(asyncpg.connect(url))
        rows = self.loop.run_until_complete(
            self.conn.fetch(
                """
            SELECT i.indexname, i.indexdef FROM pg_indexes i
            WHERE i.schemaname = current_schema() AND i.tablename = ANY($1::text[])
              AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)
            """,
                list(BULK_TABLES),
            )
        )
        self.indexes = [(r[0], r[1]) for r in rows]
        for name, _ in self.indexes:
            self.loop.run_until_complete(self.conn.execute(f'DROP INDEX "{name}"'))

    def write(self, table: str, columns: str, rows: Any) -> None:
        names = [c.strip() for c in columns.split(",")]
        self.loop.run_until_complete(self.conn.copy_records_to_table(table, records=list(rows), columns=names))

    def commit(self) -> None:
        pass

    def finish(self) -> None:
        run = self.loop.run_until_complete
        for sql in DERIVED:
            run(self.conn.execute(sql))
        for _, sql in self.indexes:
            run(self.conn.execute(sql))
        run(self.conn.execute("SELECT setval(pg_get_serial_sequence('games', 'id'), (SELECT MAX(id) FROM games))"))
        run(
            self.conn.execute(
                "SELECT setval(pg_get_serial_sequence('rating_history', 'id'), (SELECT MAX(id) FROM rating_history))"
            )
        )
        run(self.conn.execute("VACUUM ANALYZE"))
        run(self.conn.close())
        self.loop.close()


# ---------------------------------------------------------------------- main


def build(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    target = args.database_url or str(args.out)
    if not args.database_url:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-wal", "-shm"):
            Path(str(args.out) + suffix).unlink(missing_ok=True)

    async def migrate() -> None:
        store = await open_store(target)
        await store.close()

    asyncio.run(migrate())
    t = time.perf_counter()
    pool = asyncio.run(play_pool(args.pool, args.seed))
    plays = sum(sum(1 for a in g.actions if a[1] == "play") for g in pool) / len(pool)
    print(
        f"pool: {len(pool)} games played through the service in {time.perf_counter() - t:.1f} s "
        f"({plays:.0f} plays, {sum(len(g.actions) for g in pool) / len(pool):.0f} actions a game on average)",
        flush=True,
    )

    rng = random.Random(args.seed)
    now = time.time()
    world = make_world(args.guilds, args.players, rng)
    writer: SqliteWriter | PostgresWriter = (
        PostgresWriter(args.database_url) if args.database_url else SqliteWriter(args.out)
    )
    writer.write("players", PLAYER_COLUMNS, player_rows(args, now))
    t = time.perf_counter()
    done = 0
    for rows in finished_rows(args, pool, world, rng, now):
        writer.write("games", GAME_COLUMNS, rows.games)
        writer.write("actions", ACTION_COLUMNS, rows.actions)
        if rows.summaries:
            writer.write("game_summaries", SUMMARY_COLUMNS, rows.summaries)
        writer.write("rating_history", HISTORY_COLUMNS, rows.history)
        writer.commit()
        done += len(rows)
        if done % 100_000 < CHUNK:
            print(f"  {done:,} finished games, {time.perf_counter() - t:.0f} s", flush=True)
    ratings = finished_rows.ratings  # type: ignore[attr-defined]
    writer.write("ratings", RATING_COLUMNS, list(rating_rows(ratings)))
    print(
        f"finished: {args.finished:,} games, {len(ratings):,} rating rows in {time.perf_counter() - t:.0f} s",
        flush=True,
    )
    t = time.perf_counter()
    for rows in active_rows(args, pool, world, rng, now, args.finished + 1):
        writer.write("games", GAME_COLUMNS, rows.games)
        writer.write("actions", ACTION_COLUMNS, rows.actions)
        writer.commit()
    print(
        f"active: {args.active:,} games ({args.computer:,} against the computer, {args.due} overdue) "
        f"in {time.perf_counter() - t:.0f} s",
        flush=True,
    )
    t = time.perf_counter()
    writer.finish()
    print(f"indexes and statistics: {time.perf_counter() - t:.0f} s", flush=True)
    size = ""
    if not args.database_url:
        size = f", {args.out.stat().st_size / 1e9:.2f} GB"
    print(
        f"built {target if not args.database_url else 'the PostgreSQL database'} in "
        f"{time.perf_counter() - started:.0f} s{size}"
    )
    meta = {
        "finished": args.finished,
        "active": args.active,
        "guilds": args.guilds,
        "players": args.players,
        "computer": args.computer,
        "due": args.due,
        "first_user": FIRST_USER,
        "first_guild": FIRST_GUILD,
        "computer_id": COMPUTER_ID,
        "built_at": now,
    }
    if not args.database_url:
        Path(str(args.out) + ".json").write_text(json.dumps(meta, indent=1))


async def fill_turns(target: str) -> None:
    """A store built before turns were kept: fill each active game's turn now, as the
    bot does lazily when it lists a game (``Lookups.game_list``)."""
    service = await GameService.open(target)
    try:
        t = time.perf_counter()
        pairs = await service.store.db.fetchall(
            "SELECT DISTINCT guild_id, player0 FROM games WHERE status = 'active' AND turn IS NULL"
        )
        for n, r in enumerate(pairs, 1):
            await service.lookups.game_list(int(r["guild_id"]), int(r["player0"]))
            if n % 10_000 == 0:
                print(f"  {n:,} of {len(pairs):,} members' games, {time.perf_counter() - t:.0f} s", flush=True)
        print(f"turns filled for {len(pairs):,} members' games in {time.perf_counter() - t:.0f} s")
    finally:
        await service.close()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the SQLite file (default %(default)s)")
    parser.add_argument("--database-url", help="build into this PostgreSQL database instead")
    parser.add_argument("--finished", type=int, default=1_000_000)
    parser.add_argument("--active", type=int, default=100_000)
    parser.add_argument("--guilds", type=int, default=1_000)
    parser.add_argument("--players", type=int, default=50_000)
    parser.add_argument("--computer", type=int, default=4_000, help="active games against the computer")
    parser.add_argument("--due", type=int, default=400, help="active games already past their deadline")
    parser.add_argument("--pool", type=int, default=300, help="real games played to copy from")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the counts (0.01: a small store)")
    parser.add_argument("--no-summaries", action="store_true", help="leave out the finished games' summaries")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--fill-turns",
        action="store_true",
        help="only fill the active games' turns of a store built before they were kept",
    )
    args = parser.parse_args(argv)
    if args.scale != 1.0:
        for name in ("finished", "active", "guilds", "players", "computer", "due"):
            setattr(args, name, max(1, math.ceil(getattr(args, name) * args.scale)))
    if args.computer > args.active or args.due > args.active:
        parser.error("--computer and --due are parts of --active")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.fill_turns:
        asyncio.run(fill_turns(args.database_url or str(args.out)))
    else:
        build(args)


if __name__ == "__main__":
    main()
