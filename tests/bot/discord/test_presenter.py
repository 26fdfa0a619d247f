"""Pure presentation helpers: autocomplete ranking, event lines, limits."""

from __future__ import annotations

from bot.core import Event
from bot.discord.autocomplete import rank_plays
from bot.discord.presenter import board_content, turn_line

PLAYS = ["13/10 6/5", "13/9", "24/20", "24/21 6/5", "6/2", "6/5 6/3", "8/4", "8/5 6/5"]


def test_rank_plays_prefix_then_substring_then_rest():
    ranked = rank_plays(PLAYS, "6/5")
    assert ranked[:2] == ["6/5 6/3", "8/5 6/5"] or ranked[0] == "6/5 6/3"
    assert ranked[0] == "6/5 6/3"  # prefix first
    assert set(ranked[1:4]) == {"13/10 6/5", "24/21 6/5", "8/5 6/5"}  # then the plays containing it
    assert sorted(ranked) == sorted(PLAYS)  # then everything else


def test_rank_plays_ignores_spacing_case_and_hits():
    assert rank_plays(["13/7* 8/7", "24/18"], " 13/7 8")[0] == "13/7* 8/7"
    assert rank_plays(["bar/22 6/off"], "BAR/22")[0] == "bar/22 6/off"


def test_rank_plays_limits_to_25():
    plays = [f"{i}/x" for i in range(60)]
    assert len(rank_plays(plays, "")) == 25
    assert rank_plays(plays, "5")[0] == "5/x"


async def test_board_content_stays_within_discord_limits(world):
    w = world
    await w.start_game()
    state = await w.service.lookups.game_in_channel(w.channel.id)
    many = [Event("roll", 0, "alice rolled 6-5 " + "x" * 300)] * 40
    text = board_content(state, many)
    assert len(text) <= 2000
    assert text.startswith("**Game #1**")
    assert text.splitlines()[1].startswith("• … ") and "earlier events" in text
    assert text.endswith(turn_line(state))  # the mention of who is to act survives
    few = board_content(state, many[:2])
    assert "earlier" not in few and few.count("alice rolled") == 2


def test_database_trouble_is_answered_in_words() -> None:
    from bot.core import BusyError
    from bot.discord.errors import player_message
    from bot.store import DatabaseBusyError, DatabaseUnavailableError

    # the core hands the store's wording up as a BusyError
    assert "try again" in (player_message(BusyError(str(DatabaseUnavailableError()))) or "").lower()
    assert player_message(BusyError(str(DatabaseBusyError())))
    assert player_message(RuntimeError("a bug")) is None
