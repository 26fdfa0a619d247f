"""``bench/tournament_withdrawals.py`` in small: random tournaments with withdrawals and
deadlines never end with a withdrawn champion, nor rank one among those who finished."""

from __future__ import annotations

from bench import tournament_withdrawals as bench


async def test_no_withdrawn_champion_in_random_tournaments(tmp_path) -> None:
    figures = await bench.run(10, 3, str(tmp_path / "fuzz.sqlite3"))
    assert figures.tournaments == 10 and figures.with_withdrawals >= 3
    assert figures.broken == []
