"""The charts' data (bot.discord.lessons): what the game chart draws is the analysis."""

from __future__ import annotations

import json
import random
from types import SimpleNamespace
from typing import cast

import pytest

pytest.importorskip("gnubg_nn")
pytest.importorskip("bgsage")

from bot.ai import Analyst, Level  # noqa: E402
from bot.core.model import GameSummary, PlayerRef  # noqa: E402
from bot.core.progress import BLUNDER, CUBE_ERROR, timeline  # noqa: E402
from bot.discord import lessons  # noqa: E402
from engine import Game, GameSettings, SeededDice  # noqa: E402


def played_game(seed: int) -> Game:
    analyst = Analyst(rng=random.Random(seed))
    game = Game(GameSettings(), dice=SeededDice(seed))
    game.opening_roll()
    rng = random.Random(seed)
    while not game.is_over:
        if game.phase.value == "roll":
            if game.can_double(game.turn) and rng.random() < 0.05:
                game.double(game.turn)
            else:
                game.roll(game.turn)
        elif game.phase.value == "doubled":
            (game.take if rng.random() < 0.7 else game.drop)(game.turn)
        else:
            assert game.dice is not None
            game.play(game.turn, analyst.choose_play(game.position, game.dice, level=Level.BEGINNER, rng=rng))
    return game


@pytest.mark.parametrize("seed", [3, 11])
def test_the_game_chart_draws_the_analysis(seed):
    game = played_game(seed)
    analysis = Analyst().analyse_game(game, ply=0, cube_level="0ply")
    detail = json.loads(json.dumps(analysis.detail()))  # as stored
    state = SimpleNamespace(id=42, game_count=1, players=(PlayerRef(1, "alice"), PlayerRef(2, "bob")))
    ((name, chart),) = lessons.game_charts(cast(GameSummary, state), {1: detail})  # the chart reads no more
    assert name == "analysis-42-1.png"
    assert chart.moves == tuple(m.move for m in analysis.moves)
    assert chart.movers == tuple(m.player for m in analysis.moves)
    assert chart.win == pytest.approx([m.win for m in analysis.moves], abs=1e-4)
    assert [g for pair in chart.gammons for g in pair] == pytest.approx(
        [g for m in analysis.moves for g in m.gammons], abs=1e-4
    )
    for seat in (0, 1):  # the luck bars of each player sum to the analysis's luck
        bars = sum(v for v, p in zip(chart.luck, chart.movers) if p == seat)
        assert bars == pytest.approx(analysis.players[seat].luck, abs=1e-3)
    marked = [
        m
        for p in analysis.players
        for m in p.mistakes
        if m.equity_lost > (BLUNDER if m.kind == "checker" else CUBE_ERROR)
    ]
    assert sorted((m.move, m.player, m.kind) for m in chart.marks) == sorted((m.move, m.player, m.kind) for m in marked)
    line = timeline(1, detail)
    assert [p.rate for p in line.players] == [round(p.error_rate, 2) for p in analysis.players]
    assert [p.pr for p in line.players] == [pytest.approx(p.pr, abs=1e-3) for p in analysis.players]
    alice = analysis.players[0]
    assert f"alice: PR {alice.pr:.1f}" in chart.footer and f"error rate {alice.error_rate:.1f}" in chart.footer
    assert chart.title == "Game #42 · alice vs bob"
    png = chart.draw()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
