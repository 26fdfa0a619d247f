"""The tutor through Discord (SimCord): a warning before a blunder, "Let me think again"
leaves the game exactly as it was, "Play it anyway" plays it; never a word in a rated
game between members with hints off.

Dice are scripted (conftest.OPENING + ROLLS): alice starts with 3-1, where 8/7 6/3
gives up about 0.3 equity at 0-ply (the net's best is 8/5 6/5).
"""

from __future__ import annotations

import pytest

pytest.importorskip("gnubg_nn")
pytest.importorskip("bgsage")

from bot.core.tutor import allowed_in, parse_threshold  # noqa: E402

BLUNDER = "8/7 6/3"


@pytest.fixture
def fast(world):
    seat = world.bot.table.computer
    seat.pause = 0
    seat.default_level = "beginner"
    return world


async def tutor_on(w, member, value="blunders"):
    result = await member.slash(w.channel, "bg settings", tutor=value)
    assert "Tutor: a warning" in w.private(result), w.private(result)


async def stored(w, game_id):
    """The game as the database keeps it: its version and its logged actions."""
    store = w.service.store
    row = await store.games.get(game_id)
    actions = await store.games.actions(game_id)
    return row.version, [(a.seq, a.kind, a.action) for a in actions]


def warning_of(result):
    (message,) = [m for m in [result.response, *result.followups] if m is not None and m.ephemeral]
    return message


async def test_a_blunder_against_the_computer_is_warned_think_again_changes_nothing(fast):
    w = fast
    await tutor_on(w, w.alice)
    await w.alice.slash(w.channel, "bg computer", level="beginner")
    board = w.board()
    game_id = w.game_id(board)
    before = await stored(w, game_id)
    state_before = await w.service.lookups.get_game(game_id)

    warned = await w.alice.select(board, [BLUNDER])
    warning = warning_of(warned)
    assert "Tutor" in warning.content and BLUNDER in warning.content and "8/5 6/5" in warning.content
    assert w.labels(warning.message) == ["Let me think again", "Play it anyway"]
    assert all(
        cid.startswith("bgtutor:") and f":{game_id}:{state_before.version}:" in cid
        for cid in w.custom_ids(warning.message)
    )
    assert await stored(w, game_id) == before  # nothing played yet

    # only the mover sees it (Discord shows an ephemeral message to one member)
    with pytest.raises(Exception, match="not visible"):
        await w.bob.click(warning, label="Play it anyway")

    await w.alice.click(warning, label="Let me think again")
    assert "Nothing was played" in warning.content and not warning.components
    assert await stored(w, game_id) == before
    after = await w.service.lookups.get_game(game_id)
    assert after.version == state_before.version and after.game.log == state_before.game.log
    assert w.board().id == board.id and f"{w.alice.mention} to play 3-1" in w.board().content

    # warned again, left open; the typed move is warned too, and this time alice plays it anyway
    left_open = warning_of(await w.alice.select(board, [BLUNDER]))
    typed = await w.alice.slash(w.channel, "bg move", play="6/3 8/7")
    warning = warning_of(typed)
    assert BLUNDER in warning.content
    assert await stored(w, game_id) == before
    await w.alice.click(warning, label="Play it anyway")
    assert f"You play **{BLUNDER}**" in warning.content
    played = await w.service.lookups.get_game(game_id)
    assert played.game.log[len(state_before.game.log)].text == BLUNDER
    assert f"alice played {BLUNDER}" in "\n".join(m.content for m in w.public())

    # the warning left open does nothing once the game moved on
    now = await w.service.lookups.get_game(game_id)
    await w.alice.click(left_open, label="Play it anyway")
    assert "moved on" in left_open.content.lower() and not left_open.components
    assert (await w.service.lookups.get_game(game_id)).game.log == now.game.log


async def test_a_good_play_goes_through_unwarned(fast):
    w = fast
    await tutor_on(w, w.alice)
    await w.alice.slash(w.channel, "bg computer", level="beginner")
    played = await w.alice.select(w.board(), ["8/5 6/5"])
    assert not w.private(played)
    assert "alice played 8/5 6/5" in "\n".join(m.content for m in w.public())


async def test_a_pass_is_warned_in_a_game_with_hints_and_the_take_goes_through(world):
    w = world
    await tutor_on(w, w.alice, "errors")
    board = await w.start_game(hints=True)
    await w.alice.select(board, ["8/5 6/5"])
    await w.bob.click(w.board(), label="Double")  # bob has no tutor: no warning
    board = w.board()
    game_id = w.game_id(board)
    before = await stored(w, game_id)
    warned = await w.alice.click(board, label="Pass")
    warning = warning_of(warned)
    assert "passing" in warning.content and "**take**" in warning.content
    assert await stored(w, game_id) == before
    await w.alice.click(warning, label="Let me think again")
    assert await stored(w, game_id) == before
    took = await w.alice.click(w.board(), label="Take")
    assert not w.private(took)
    state = await w.service.lookups.get_game(game_id)
    assert state.is_active and state.game.cube_value == 2


async def test_no_warning_in_a_rated_game_between_members_with_hints_off(world, monkeypatch):
    w = world
    await tutor_on(w, w.alice)
    asked = []

    async def never(*args, **kwargs):
        asked.append(args)
        raise AssertionError("the tutor asked the net in a rated game without hints")

    monkeypatch.setattr(w.bot.parts.advice.analyst, "adecision_loss", never)
    board = await w.start_game()
    state = await w.service.lookups.get_game(w.game_id(board))
    assert state.options.rated and not state.options.hints and not allowed_in(state)
    played = await w.alice.select(board, [BLUNDER])
    assert not w.private(played) and not asked
    assert f"alice played {BLUNDER}" in w.board().content
    await w.bob.click(w.board(), label="Double")
    took = await w.alice.slash(w.channel, "bg take")  # a pass would end the game (and start its analysis)
    assert not took.ephemeral and not asked
    assert (await w.service.lookups.get_game(state.id)).game.cube_value == 2


async def test_the_builder_is_warned_in_its_panel(fast):
    w = fast
    await tutor_on(w, w.alice)
    await w.alice.slash(w.channel, "bg computer", level="beginner")
    board = w.board()
    before = await stored(w, w.game_id(board))
    opened = await w.alice.click(board, label="Move checker by checker")
    panel = opened.response
    await w.alice.click(panel, label="8/7")
    await w.alice.click(panel, label="6/3")
    await w.alice.click(panel, label="Confirm")
    assert "Tutor" in panel.content and w.labels(panel.message) == ["Let me think again", "Play it anyway"]
    assert await stored(w, w.game_id(board)) == before
    await w.alice.click(panel, label="Let me think again")
    assert await stored(w, w.game_id(board)) == before


async def test_settings_read_the_threshold(world):
    w = world
    assert parse_threshold("off") is None and parse_threshold("errors") == 0.04 and parse_threshold("0,06") == 0.06
    with pytest.raises(ValueError):
        parse_threshold("2")
    bad = await w.alice.slash(w.channel, "bg settings", tutor="lots")
    assert "The tutor takes off, blunders" in w.private(bad)
    await tutor_on(w, w.alice, "0.06")
    assert (await w.service.members.prefs(w.alice.id)).tutor == 0.06
    off = await w.alice.slash(w.channel, "bg settings", tutor="off")
    assert "Tutor: off" in w.private(off)
    assert (await w.service.members.prefs(w.alice.id)).tutor is None
