"""Building a play checker by checker in a private panel."""

from __future__ import annotations

from bot.discord import builder
from engine import Move


def test_steps_travel_in_the_custom_id_and_read_as_notation():
    assert builder.encode([(8, 5), (6, 5)]) == "8-5.6-5"
    assert builder.decode("25-22.6-0") == [(25, 22), (6, 0)]
    assert builder.decode("") == []
    assert builder.step_label((25, 22)) == "bar/22" and builder.step_label(Move(6, 0, True)) == "6/off*"
    assert builder.step_label(Move(13, 7)) == "13/7"


async def test_build_confirm_and_undo(world):
    w = world
    board = await w.start_game()
    nosy = await w.bob.click(board, label="Move checker by checker")
    assert "not your turn" in w.private(nosy).lower()
    opened = await w.alice.click(board, label="Move checker by checker")
    panel = opened.response
    assert panel.ephemeral and "Building your play of 3-1: **nothing yet**" in panel.content
    assert "8/5" in w.labels(panel.message) and "Confirm" not in w.labels(panel.message)
    await w.alice.click(panel, label="8/5")
    assert "**8/5**" in panel.content and "Undo" in w.labels(panel.message)
    await w.alice.click(panel, label="Undo")
    assert "nothing yet" in panel.content
    await w.alice.click(panel, label="8/5")
    await w.alice.click(panel, label="6/5")
    assert "That makes **8/5 6/5**" in panel.content
    public_before = len(w.public())
    confirmed = await w.alice.click(panel, label="Confirm")
    assert not [m for m in confirmed.followups if m.ephemeral]
    assert "You play **8/5 6/5**" in panel.content and not panel.components
    new = w.board()
    assert len(w.public()) == public_before + 1
    assert "alice played 8/5 6/5" in new.content and f"{w.bob.mention} to roll" in new.content
    old = next(m for m in w.channel.history() if m.id == board.id)
    assert w.custom_ids(old) == []


async def test_builder_panel_goes_stale(world):
    w = world
    board = await w.start_game()
    opened = await w.alice.click(board, label="Move checker by checker")
    panel = opened.response
    await w.alice.click(panel, label="8/5")
    await w.alice.select(board, ["13/10 6/5"])  # played from the menu meanwhile
    late = await w.alice.click(panel, label="6/5")
    assert "moved on" in panel.content.lower() and not panel.components
    assert not w.private(late) or "moved on" in w.private(late).lower()
