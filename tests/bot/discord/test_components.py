"""Board controls are freed as soon as they are done with, not by the garbage collector."""

from __future__ import annotations

import gc

import discord

from bot.discord.components import GameButton, PlaySelect, let_go


def views_alive(*, holding_items: bool = False) -> int:
    return sum(isinstance(o, discord.ui.View) and (bool(o.children) or not holding_items) for o in gc.get_objects())


def test_a_view_let_go_is_freed_without_the_collector() -> None:
    gc.collect()
    gc.disable()
    try:
        before = views_alive()
        for version in range(20):
            view = discord.ui.View(timeout=None)
            view.add_item(GameButton("roll", 1, version))
            view.add_item(PlaySelect(1, version, ["24/18 13/10", "13/7 13/10"]))
            let_go(view)
            del view
        assert views_alive() == before
    finally:
        gc.enable()


async def a_game_under_way(w) -> None:
    await w.start_game()
    played = await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    assert not w.private(played)


async def three_turns(w) -> None:
    """Three turns of the board's own controls: Roll, then the first play of the menu."""
    for _ in range(3):
        board = w.board()
        actor = w.bob if f"{w.bob.mention} to roll" in board.content else w.alice
        rolled = await actor.click(board, label="Roll")
        assert not w.private(rolled)
        board = w.board()
        menu = next(c for row in board.components for c in row.children if isinstance(c, discord.SelectMenu))
        chosen = await actor.select(board, [menu.options[0].value])
        assert not w.private(chosen)


async def test_no_board_or_click_leaves_a_view_holding_its_items(world) -> None:
    """A board's controls and the copy of them discord.py builds for each click point
    at their items and back: under load, freeing them was most of the collector's
    work, in pauses of up to half a second with every click in flight waiting. Each
    is let go once done with (SimCord's own hooks still hold the empty views here)."""
    w = world
    await a_game_under_way(w)
    gc.collect()
    gc.disable()
    try:
        before = views_alive(holding_items=True)
        await three_turns(w)
        assert views_alive(holding_items=True) == before
    finally:
        gc.enable()


def left_for_the_collector(kind: type) -> int:
    """How many objects of ``kind`` a collection now would free (only it could)."""
    gc.set_debug(gc.DEBUG_SAVEALL)  # what the collector frees is kept in gc.garbage instead
    try:
        gc.collect()
        return sum(isinstance(o, kind) for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.collect()  # and now free it, or the next look finds it again


def test_a_sent_board_file_is_freed_without_the_collector() -> None:
    """discord.py's ``File.close()``, after each request, puts the buffer's own
    ``close`` back on the buffer: a buffer pointing at itself, each board's PNG
    left for the garbage collector. ``sent`` unties it."""
    import io

    from bot.discord.boards import sent

    gc.collect()
    gc.disable()
    try:
        for untie in (False, True):
            file = discord.File(io.BytesIO(b"\x89PNG" * 1000), filename="board.png")
            file.close()  # as discord.py does once the request is made
            if untie:
                sent(file)
            del file
            assert left_for_the_collector(io.BytesIO) == (0 if untie else 1)
    finally:
        gc.enable()


async def test_no_click_leaves_its_interaction_for_the_collector(world) -> None:
    """An interaction and its response point at each other (and the message it
    answered with, at the interaction): each click's interaction, with the
    clicked message and its components and the member, would wait for the
    garbage collector, which under load ran every second or so for 50-150 ms
    with every click in flight waiting. A click is let go once answered, so
    reference counting frees it."""
    w = world
    await a_game_under_way(w)
    gc.collect()
    gc.disable()
    try:
        await three_turns(w)
        assert left_for_the_collector(discord.Interaction) == 0
    finally:
        gc.enable()


async def test_no_command_or_autocomplete_leaves_its_interaction_for_the_collector(world) -> None:
    """The same for slash commands and their autocomplete, answered or refused:
    the command tree unties each interaction once it is answered (and its error
    reported), so reference counting frees it with its member and options."""
    w = world
    await a_game_under_way(w)
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):
            board = w.board()
            actor = w.bob if f"{w.bob.mention} to roll" in board.content else w.alice
            rolled = await actor.click(board, label="Roll")
            assert not w.private(rolled)
            choices = await actor.autocomplete(w.channel, "bg move", "play", "")
            assert choices
            moved = await actor.slash(w.channel, "bg move", play=choices[0]["value"])
            assert not w.private(moved)
        refused = await w.alice.slash(w.channel, "bg move", play="24/23")  # not alice's turn, or not legal
        assert w.private(refused)
        assert left_for_the_collector(discord.Interaction) == 0
    finally:
        gc.enable()
