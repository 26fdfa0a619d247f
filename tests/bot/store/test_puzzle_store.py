"""Migration 10 and the puzzles' repository, on both backends."""

from __future__ import annotations

import pytest

from bot.store import SCHEMA_VERSION, open_store


async def test_rated_matches_get_their_points_when_migrated(db_url: str) -> None:
    """Matches rated before migration 10 get their net points from the match score (x the stake for money)."""
    old = await open_store(db_url, migrate_to=9)

    async def seed(tx) -> None:
        for uid in (1, 2):
            await tx.execute(
                "INSERT INTO players (user_id, display_name, created_at, updated_at) VALUES (?, ?, 0, 0)",
                (uid, f"p{uid}"),
            )
        for gid, length, settings, score in ((1, 0, '{"stake": 3}', (0, 2)), (2, 5, '{"stake": 9}', (5, 3))):
            await tx.execute(
                "INSERT INTO games (id, guild_id, channel_id, player0, player1, settings, status, match_length,"
                " score0, score1, created_at, updated_at) VALUES (?, 7, ?, 1, 2, ?, 'finished', ?, ?, ?, 0, 0)",
                (gid, 100 + gid, settings, length, *score),
            )
            for uid, won in ((1, int(score[0] > score[1])), (2, int(score[1] > score[0]))):
                await tx.execute(
                    "INSERT INTO rating_history (game_id, scope, user_id, rating_before, rating_after,"
                    " experience_after, won, created_at) VALUES (?, 7, ?, 1500, 1500, 1, ?, 0)",
                    (gid, uid, won),
                )

    await old.db.transact(seed)
    await old.close()
    async with await open_store(db_url) as store:
        assert await store.schema_version() == SCHEMA_VERSION
        ones = await store.ratings.history(1, 7)
        twos = await store.ratings.history(2, 7)
        assert [m.points for m in ones] == [-6, 2]  # a money game at 3 a point lost 0-2; a 5-point match won 5-3
        assert [m.points for m in twos] == [6, -2]
        assert ones[0].opponent == 2 and ones[0].opponent_name == "p2" and ones[0].opponent_rating == 1500


async def test_answers_once(store_factory) -> None:
    store = await store_factory()
    game = await store.games.create(guild_id=5, channel_id=1, player0=1, player1=2)
    made = await store.puzzles.create(
        guild_id=5,
        kind="daily",
        day="2026-03-02",
        position_key="abc:def",
        game_id=game.id,
        game_number=1,
        user_id=1,
        payload={"x": 1},
        channel_id=9,
        reveal_at=100.0,
        owes="puzzle",
    )
    assert made is not None and made.payload == {"x": 1}
    again = dict(guild_id=5, game_id=game.id, game_number=1, user_id=1, payload={}, channel_id=9, reveal_at=None)
    assert await store.puzzles.create(kind="daily", day="2026-03-02", position_key="other", **again) is None
    assert await store.puzzles.create(kind="extra", day=None, position_key="abc:def", **again) is None
    assert [e.kind for e in await store.outbox.owed()] == ["puzzle"]
    assert await store.puzzles.answer(made.id, 3, 1, True, 0.0)
    assert not await store.puzzles.answer(made.id, 3, 0, False, 0.2)  # once
    assert (await store.puzzles.answer_of(made.id, 3)).choice == 1
    assert await store.puzzles.reveal(made) and not await store.puzzles.reveal(made)
    (score,) = await store.puzzles.scores(5)
    assert (score.user_id, score.correct, score.streak, score.best_streak) == (3, 1, 1, 1)


@pytest.mark.parametrize("kind", ["daily", "extra"])
async def test_one_position_per_server(store_factory, kind: str) -> None:
    store = await store_factory()
    game = await store.games.create(guild_id=5, channel_id=1, player0=1, player1=2)
    fields = dict(guild_id=5, game_id=game.id, game_number=1, user_id=1, payload={}, channel_id=None, reveal_at=None)
    assert await store.puzzles.create(kind=kind, day="d1" if kind == "daily" else None, position_key="k", **fields)
    assert await store.puzzles.create(kind="extra", day=None, position_key="k", **fields) is None
    assert await store.puzzles.used_keys(5) == {"k"}
