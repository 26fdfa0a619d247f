"""The large-store bench builds what the bot would have grown: a small one here.

``bench/build_store.py`` copies real games (played through the service) into
a store made by the project's migrations; these checks read it back through
the service and the scale bench, so the bench cannot drift from the schema.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.core import GameService
from engine.ratings import DEFAULT_RATING

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def small_store(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("big") / "small.sqlite"
    subprocess.run(
        [sys.executable, "-m", "bench.build_store", "--scale", "0.0004", "--pool", "6", "--out", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return out


async def test_the_built_store_reads_back_through_the_service(small_store: Path) -> None:
    meta = json.loads(Path(str(small_store) + ".json").read_text())
    service = await GameService.open(str(small_store))
    try:
        db = service.store.db
        counts = {
            r["status"]: r["n"] for r in await db.fetchall("SELECT status, COUNT(*) AS n FROM games GROUP BY status")
        }
        assert counts == {"finished": meta["finished"], "active": meta["active"]}
        # every game's version counts its log, and every active game rebuilds and is waiting for someone
        bad = await db.fetchone(
            "SELECT COUNT(*) FROM games g WHERE g.version <> (SELECT COUNT(*) FROM actions a WHERE a.game_id = g.id)"
        )
        assert bad is not None and bad[0] == 0
        for row in await db.fetchall("SELECT id, turn FROM games WHERE status = 'active'"):
            state = await service.lookups.get_game(int(row["id"]))
            assert state.to_act() is not None and state.to_act() == state.players[row["turn"]]  # its turn is kept
        computer = await db.fetchall(
            "SELECT id FROM games WHERE status = 'active' AND player1 = ?", (meta["computer_id"],)
        )
        assert len(computer) == meta["computer"]
        # ratings are what the history says: each row's rating is its last change's
        for r in await db.fetchall("SELECT scope, user_id, rating, games FROM ratings"):
            history = await service.store.ratings.history(int(r["user_id"]), int(r["scope"]))
            assert len(history) == r["games"]
            assert r["rating"] == pytest.approx(history[-1].rating_after if history else DEFAULT_RATING)
        # a finished game reads back from its summary; the dice are counted
        finished = await db.fetchone("SELECT id, player0, guild_id FROM games WHERE status = 'finished' LIMIT 1")
        assert finished is not None
        summary = await service.archive.look_up(int(finished["id"]))
        assert summary.id == finished["id"]
        assert (await service.lookups.dice_stats(int(finished["guild_id"]), int(finished["player0"]))).rolls > 0
        assert len(await service.archive.history(int(finished["guild_id"]), int(finished["player0"]))) >= 1
    finally:
        await service.close()
    with sqlite3.connect(small_store) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_the_scale_bench_runs_on_it(small_store: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bench.scale", "--db", str(small_store), "--repeat", "3", "--touch", "20", "--json"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout
    figures = json.loads(out[out.index("\n{") + 1 : out.rindex("}") + 1])
    assert "leaderboard, biggest server, page 1" in figures["queries"]
    assert figures["memory"]["steps"][-1]["touched"] == 20
