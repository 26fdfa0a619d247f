"""The old masters' openings valued by the neural net (bot.core.advice.Advice.openings)."""

from __future__ import annotations

import pytest

pytest.importorskip("gnubg_nn")
pytest.importorskip("bgsage")

from bot.ai import Analyst  # noqa: E402
from bot.core.advice import Advice  # noqa: E402
from bot.core.openings import verdict  # noqa: E402
from tests.narrowing import present  # noqa: E402


@pytest.mark.slow
async def test_hoyles_bar_point_threes_give_up_about_a_tenth_at_two_ply() -> None:
    analyst = Analyst()
    advice = Advice(None, analyst)  # type: ignore[arg-type]  # openings need no games
    try:
        (item,) = await advice.openings([(3, 3)])
        losses = {entry.play: present(valued.loss) for entry, valued in item.old if entry.source == "hoyle"}
        assert item.best is not None
        assert item.ply == 2 and item.best.text == "8/5(2) 6/3(2)"
        assert losses["8/5(2) 6/3(2)"] == 0.0
        assert 0.10 < losses["13/7(2)"] < 0.14  # the "about 0.12"
        assert 0.0 < losses["24/21(2) 8/5(2)"] < 0.05
        assert await advice.openings([(3, 3)]) == [item]  # worked out once per process
    finally:
        await analyst.aclose()


def test_a_verdict_from_values() -> None:
    ranked = [("24/23 13/11", 0.01), ("13/11 6/5", -0.02), ("13/10", -0.05)]
    item = verdict((2, 1), ranked, 0)
    assert item.best is not None
    assert item.best.text == "24/23 13/11" and item.best.is_best
    (hit, gammon) = (valued for _, valued in item.old)
    assert hit.is_best and abs(present(gammon.loss) - 0.03) < 1e-9
    assert item.worst_loss == pytest.approx(0.03)
    bare = verdict((2, 1), None)
    assert bare.best is None and all(v.loss is None for _, v in bare.old) and bare.worst_loss == 0.0
