"""``bench/tournament_withdrawals.py`` in small: random tournaments with withdrawals and
deadlines never end with a withdrawn champion, nor rank one among those who finished."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "tournament_withdrawals.py"


def load():  # noqa: ANN201
    spec = importlib.util.spec_from_file_location("tournament_withdrawals", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


async def test_no_withdrawn_champion_in_random_tournaments(tmp_path) -> None:
    bench = load()
    figures = await bench.run(10, 3, str(tmp_path / "fuzz.sqlite3"))
    assert figures.tournaments == 10 and figures.with_withdrawals >= 3
    assert figures.broken == []
