"""Jellyfish .mat export (formats.md 3.4), as GNU Backgammon writes it."""

from __future__ import annotations

from datetime import date

from engine import Game, GameSettings, Match, Position, Roll, ScriptedDice, WinKind, legal_plays, parse_play
from engine.gnubgid import MatchState, encode_match_id
from engine.mat import export_games, export_match, format_play_plain, set_pos_line, xg_position

P = Position.from_counts


def scripted_match() -> Match:
    match = Match(GameSettings(match_length=5))
    g = match.new_game()
    g.opening_roll((6, 2))
    g.play(0, "13/7 13/11")
    g.roll(1, (6, 4))
    g.play(1, "24/18* 13/9")
    g.roll(0, (6, 5))
    g.play(0, "bar/20 13/7*")
    g.double(1)
    g.take(0)
    g.offer_resignation(1, 1)
    g.accept_resignation(0)  # 2 points with the cube at 2
    g = match.new_game()
    g.opening_roll((2, 5))  # player 1 starts
    g.play(1, "13/11 13/8")
    g.roll(0, (3, 1))
    g.play(0, "8/5 6/5")
    g.double(1)
    g.drop(0)
    return match


# Byte for byte what GNU Backgammon 1.07 writes when it re-exports this file
# (``export match mat``), trailing spaces included: its reader splits rows by
# that layout.
EXPECTED = (
    '; [Site "Discord"]\n'
    '; [Event "Test"]\n'
    '; [EventDate "2024.05.06"]\n'
    "\n"
    " 5 point match\n"
    "\n"
    " Game 1\n"
    " Alice_Smith : 0                bob_the_builder : 0\n"
    "  1) 62: 13/11 13/7              64: 24/18* 13/9 \n"
    "  2) 65: 25/20 13/7*              Doubles => 2\n"
    "  3)  Takes                      \n"
    "      Wins 2 points\n"
    "\n"
    " Game 2\n"
    " Alice_Smith : 2                bob_the_builder : 0\n"
    "  1)                             52: 13/11 13/8 \n"
    "  2) 31: 8/5 6/5                  Doubles => 2\n"
    "  3)  Drops                       Wins 1 point \n"
    "\n"
)


def test_scripted_match_export_exact():
    text = export_match(scripted_match(), ("Alice Smith", "bob:the:builder"), event="Test", played=date(2024, 5, 6))
    assert text == EXPECTED


def test_layout_rules():
    lines = export_match(scripted_match(), ("a", "b")).splitlines()
    assert lines[0] == '; [Site "Discord"]'
    assert " 5 point match" in lines
    assert [line for line in lines if line.startswith(" Game")] == [" Game 1", " Game 2"]
    # Score line: " %-31s%s : %d"
    score_lines = [line for line in lines if " : " in line]
    assert score_lines == [" " + "a : 0".ljust(31) + "b : 0", " " + "a : 2".ljust(31) + "b : 0"]
    rows = [line for line in lines if line[:5].strip().endswith(")")]
    for row in rows:
        number = int(row[:3])
        assert row[3:5] == ") "
        assert number >= 1
        # The left column is always 27 characters and a space, even alone on
        # its row: GNU Backgammon's reader needs the padding.
        assert len(row) >= 33 and row[32] == " "
    # Game 2 starts with player 1: an empty left column.
    first_of_game_2 = rows[3]
    assert first_of_game_2.startswith("  1) " + " " * 28)
    assert first_of_game_2[33:] == "52: 13/11 13/8 "
    # A drop in the left column carries the winner's "Wins" on its row, in the right column.
    assert rows[-1] == "  3)  Drops" + " " * 23 + "Wins 1 point "


def test_money_game_is_a_zero_point_match_and_names_are_sanitized():
    match = Match()
    g = match.new_game()
    g.opening_roll((3, 1))
    g.play(0, "8/5 6/5")
    g.forfeit(1)
    text = export_match(match, ("  has  spaces ", "a:b : c"), site="Elsewhere")
    lines = text.splitlines()
    assert lines[0] == '; [Site "Elsewhere"]'
    assert " 0 point match" in lines
    score = next(line for line in lines if line.startswith(" has"))
    assert score == " " + "has_spaces : 0".ljust(31) + "a_b___c : 0"
    assert score.count(" : ") == 2
    assert "      Wins 1 point" in lines
    assert not any("EventDate" in line or "Event " in line for line in lines)


def test_empty_name_gets_a_placeholder():
    match = Match()
    g = match.new_game()
    g.opening_roll((3, 1))
    g.forfeit(0)
    text = export_match(match, ("", "   "))
    assert " " + "player : 0".ljust(31) + "player : 0" in text.splitlines()


def plain(position: Position, roll: Roll, text: str) -> str:
    return format_play_plain(parse_play(position, roll, text))


def test_moves_one_die_at_a_time_with_25_and_0():
    start = Position.start()
    assert plain(start, Roll(6, 5), "24/13") == "24/18 18/13"
    assert plain(start, Roll(3, 3), "13/7(2)") == "13/10 13/10 10/7 10/7"
    assert plain(start, Roll(3, 1), "8/5 6/5") == "8/5 6/5"
    on_bar = P({25: 1, 24: 1, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 4, 18: 1})  # their 18 = our 7
    assert plain(on_bar, Roll(6, 5), "bar/20 13/7*") == "25/20 13/7*"
    home = P({6: 2, 5: 3, 4: 3, 3: 3, 2: 2, 1: 2}, {12: 2, 13: 5, 8: 3, 6: 5})
    assert plain(home, Roll(6, 6), "6/off(2) 5/off(2)") == "6/0 6/0 5/0 5/0"
    blot10 = P({24: 2, 13: 5, 8: 3, 6: 5}, {24: 1, 15: 1, 13: 5, 8: 3, 6: 5})
    assert plain(blot10, Roll(4, 3), "13/10*/6") == "13/10* 10/6"


def test_dance_and_closed_out_rows():
    board = P({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 8: 5})
    match = Match()
    g = match.new_game()
    # Replace the fresh game with one set up from an ID (player 1 on roll, on the bar).
    g = Game.from_gnubg_id(f"{board.position_id()}:{encode_match_id(MatchState(player_on_roll=1, turn=1))}")
    match.games[0] = g
    g.roll(1, (5, 4))  # dances
    g.roll(0, (6, 5))
    g.play(0, "8/2 8/3")
    g.forfeit(1)
    lines = export_match(match, ("x", "y")).splitlines()
    assert "  1)                             54: " in lines
    assert "  2) 65: 8/3 8/2                 " in lines
    assert lines[-2:] == ["      Wins 1 point", ""]


def beaver_export() -> str:
    match = Match(GameSettings(beavers=True))
    g = match.new_game()
    g.opening_roll((3, 1))
    g.play(0, "8/5 6/5")
    g.double(1)
    g.beaver(0)
    g.roll(1, (6, 5))
    g.play(1, "24/13")
    g.double(0)
    g.drop(1)
    assert g.result is not None
    assert g.result.points == 4
    text = export_match(match, ("x", "y"))
    assert "Wins 4 points" in text
    return text


def test_beaver_cell():
    text = beaver_export()
    assert " Beavers => " in text
    assert text.count(" Doubles => ") == 2 and " Drops" in text


def test_beaver_and_redouble_values_in_mat():
    text = beaver_export()
    assert " Beavers => 4" in text
    assert " Doubles => 8" in text


def test_doubles_after_automatic_double():
    match = Match(GameSettings(automatic_doubles=1))
    g = match.new_game()
    g.opening_roll((4, 4))
    g.opening_roll((3, 1))
    assert g.cube_value == 2
    g.play(0, "8/5 6/5")
    g.double(1)
    g.drop(0)
    assert g.result is not None
    assert g.result.points == 2
    assert " Doubles => 4" in export_match(match, ("x", "y"))


def test_every_legal_play_formats_one_die_per_move():
    position = Position.start()
    for play in legal_plays(position, Roll(4, 4)):
        parts = format_play_plain(play).split()
        assert len(parts) == len(play.moves) == 4
        for part in parts:
            src, dst = part.rstrip("*").split("/")
            assert int(src) - int(dst) == 4


def test_a_set_up_game_carries_its_position():
    """A game set up from an ID starts from a "; Set Pos=" line (eXtreme
    Gammon's extension, which GNU Backgammon 1.07 reads): without it, GNU
    Backgammon would replay "65: 5/0 4/0" from the standard start."""
    game = Game.from_gnubg_id("6RoAALYtAAAAAA")
    game.roll(0, (6, 5))
    game.play(0, "5/off 4/off")
    game.roll(1, (2, 1))
    game.play(1, "6/5 6/4")
    text = export_games([game], ("alice", "bob"))
    assert text.splitlines()[4:] == [
        " Game 1",
        " alice : 0                      bob : 0",
        "; Set Pos=-BBBBA-------------baca-a-/0",
        "  1) 65: 5/0 4/0                 21: 6/5 6/4 ",
    ]


def test_set_pos_cube_and_sides():
    # Uppercase is player 0, seen from player 0; the cube: 0 centred, -n player 0's, n player 1's.
    start = Position.start()
    assert xg_position(start) == "-b----E-C---eE---c-e----B-"
    assert set_pos_line(start, 1, None).endswith("/0")
    assert set_pos_line(start, 4, 0).endswith("/-2")
    assert set_pos_line(start, 8, 1).endswith("/3")
    on_bar = P({25: 2, 6: 13}, {25: 1, 6: 14})
    assert xg_position(on_bar)[0] == "a" and xg_position(on_bar)[25] == "B"
    # Player 1 on roll in the ID: the line still shows player 0's side in capitals.
    state = MatchState(player_on_roll=1, turn=1, cube=2, cube_owner=0)
    game = Game.from_gnubg_id(f"{start.position_id()}:{encode_match_id(state)}")
    assert export_games([game], ("x", "y")).splitlines()[6] == "; Set Pos=-b----E-C---eE---c-e----B-/-1"


def test_a_session_of_money_games_carries_the_running_score():
    first = Game(dice=ScriptedDice([]))
    first.opening_roll((3, 1))
    first.forfeit(1, WinKind.GAMMON)
    second = Game(dice=ScriptedDice([]), score=(2, 0))
    second.opening_roll((1, 3))
    second.forfeit(0)
    lines = export_games([first, second], ("x", "y")).splitlines()
    assert " 0 point match" in lines
    assert [line for line in lines if " : " in line] == [" x : 0" + " " * 26 + "y : 0", " x : 2" + " " * 26 + "y : 0"]


def test_a_beaver_that_ends_the_game_is_written_as_a_double_and_a_take():
    """GNU Backgammon takes a "Beavers" for the doubler at their next roll; with
    no roll after it, its reader would carry the beaver into the next game."""
    game = Game(GameSettings(beavers=True), dice=ScriptedDice([]))
    game.opening_roll((3, 1))
    game.play(0, "8/5 6/5")
    game.double(1)
    game.beaver(0)
    game.offer_resignation(1, 1)
    game.accept_resignation(0)
    lines = export_games([game], ("x", "y")).splitlines()
    assert lines[6:] == [
        "  1) 31: 8/5 6/5                  Doubles => 2",
        "  2)  Doubles => 4                Takes",
        "      Wins 4 points",
        "",
    ]
    assert " Beavers => 4" in beaver_export()  # a roll follows: the usual spelling


def test_a_resignation_after_the_winners_dice_gets_a_row_of_its_own():
    """Written on the dice's row, GNU Backgammon's reader would take "Wins" for a play."""
    game = opened()
    game.roll(1, (6, 4))
    game.offer_resignation(0, 2)  # the player not on roll resigns
    game.accept_resignation(1)
    lines = export_games([game], ("x", "y")).splitlines()
    assert lines[6:] == [
        "  1) 31: 8/5 6/5                 64: ",
        " " * 34 + "Wins 2 points",
        "",
    ]
    game = Game(dice=ScriptedDice([]))
    game.opening_roll((5, 2))
    game.offer_resignation(1, 1)
    game.accept_resignation(0)
    assert export_games([game], ("x", "y")).splitlines()[6:] == ["  1) 52: ", "      Wins 1 point", ""]


def opened() -> Game:
    game = Game(dice=ScriptedDice([]))
    game.opening_roll((3, 1))
    game.play(0, "8/5 6/5")
    return game
