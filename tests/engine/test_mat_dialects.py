"""Reading the ``.mat`` dialects of other sites (engine/mat_import.py): eXtreme Gammon,
DailyGammon, Backgammon Galaxy and FIBS clients all write JellyFish's format, each with
its habits, as GNU Backgammon's importer (import.c) documents them and XG documents its
header. Each dialect here is a small hand-written file, and our own exports of random
matches rewritten in that dialect's habits: read back with 0 differences in moves, dice
and cube against the games written.

- XG: a UTF-8 byte-order mark, ``; [Key "Value"]`` tags, Windows line ends, ``Cannot Move``
  written for a roll that cannot be played, ``Wins N points and the match``.
- DailyGammon: ``bar/22`` and ``6/off`` spelt out, a score line padded to its own width
  (not the records' column).
- Backgammon Galaxy: its tags, no indentation, a double's repeated moves shortened to
  ``8/2(2)``, hits not marked.
- FIBS clients: moves written with dashes (``bar-22``, ``6-off``), ``#`` comments, a pass
  written ``Passes``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from gnubg_oracle import random_match  # type: ignore[import-not-found]  # noqa: E402
from test_mat_import import NAMES, differences  # type: ignore[import-not-found]  # noqa: E402

from engine import Game  # noqa: E402
from engine.mat import export_games  # noqa: E402
from engine.mat_import import read_mat  # noqa: E402

XG_TAGS = """; [Site "eXtreme Gammon"]
; [Match ID "-246338669"]
; [Player 1 "Alice"]
; [Player 2 "Bob"]
; [Player 1 Elo "1600.00/0"]
; [Player 2 Elo "1600.00/0"]
; [EventDate "2024.03.01"]
; [EventTime "20.15"]
; [Variation "Backgammon"]
; [Unrated "Off"]
; [Crawford "On"]
; [Jacoby "Off"]
; [Beaver "Off"]
; [CubeLimit "1024"]
"""
GALAXY_TAGS = """; [Site "Backgammon Galaxy"]
; [Match ID "5f0c2e7a"]
; [Player 1 "Alice"]
; [Player 2 "Bob"]
; [EventDate "2024.03.02"]
; [EventTime "18.40"]
; [Variation "Backgammon"]
; [Jacoby "Off"]
; [Beaver "Off"]
; [Unrated "Off"]
; [CubeLimit "64"]
"""
_TOKEN = re.compile(r"(?<![\w/-])(\d+|bar)(/(?:\d+|off)\*?)+")


def _tokens(text: str, rewrite) -> str:
    """``rewrite`` applied to the moves of every record, each column kept where it starts
    (an exporter pads the first player's records to the second player's column)."""
    out = []
    column = 30
    for line in text.splitlines():
        names = re.match(r"^\s*\S+ : \d+\s+(\S+) : \d+\s*$", line)
        if names:
            column = names.start(1)
        elif re.match(r"^\s*\d+\)", line) or line.startswith(" " * 6):
            right_at = next(
                (i for i in range(max(column - 2, 1), len(line)) if line[i] != " " and line[i - 1] == " "), len(line)
            )
            left, right = (_moves(part, rewrite) for part in (line[:right_at], line[right_at:]))
            left = left.rstrip()
            line = (left.ljust(right_at) if len(left) < right_at else left + " ") + right if right else left
        out.append(line)
    return "\n".join(out) + "\n"


def _moves(part: str, rewrite) -> str:
    return re.sub(r"(?<=\d\d: )(.*?)\s*$", lambda m: rewrite(m[1]) + " ", part)


def _words(moves: str) -> str:
    return " ".join(re.sub(r"^25/", "bar/", re.sub(r"/0$", "/off", t)) for t in moves.split())


def _dashes(moves: str) -> str:
    return _words(moves).replace("/", "-")


def _shortened(moves: str) -> str:
    tokens = [t.rstrip("*") for t in moves.split()]
    out: list[str] = []
    for token in tokens:
        if out and out[-1].split("(")[0] == token:
            base, _, count = out[-1].partition("(")
            out[-1] = f"{base}({int(count.rstrip(')') or 1) + 1})"
        else:
            out.append(token)
    return " ".join(out)


def xg(text: str) -> str:
    text = text.replace('; [Site "Discord"]\n', XG_TAGS)
    text = re.sub(r"(\d\d): (?=\s{2,}|$)", r"\1: Cannot Move ", text, flags=re.MULTILINE)
    text = re.sub(r"(Wins \d+ points?)\s*$", r"\1 and the match", text.rstrip("\n")) + "\n"
    return "\ufeff" + text.replace("\n", "\r\n")


def dailygammon(text: str) -> str:
    text = text.replace('; [Site "Discord"]\n', "")
    text = re.sub(r"^ (\S+) : (\d+)\s+(\S+) : (\d+)$", r" \1 : \2   \3 : \4", text, flags=re.MULTILINE)
    return _tokens(text, _words)


def galaxy(text: str) -> str:
    text = _tokens(text.replace('; [Site "Discord"]\n', GALAXY_TAGS), _shortened)
    return "\n".join(line[1:] if line.startswith(" ") else line for line in text.splitlines()) + "\n"


def fibs(text: str) -> str:
    text = text.replace('; [Site "Discord"]\n', "# FIBS match log, saved by the client\n")
    return _tokens(text, _dashes).replace("Drops", "Passes")


DIALECTS = {"xg": xg, "dailygammon": dailygammon, "galaxy": galaxy, "fibs": fibs}


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
@pytest.mark.parametrize("seed", (1, 2))
def test_random_matches_in_each_dialect_read_back_identically(dialect: str, seed: int) -> None:
    sample = random_match(seed)
    ours = export_games(sample.games, NAMES, match_length=sample.length)
    theirs = DIALECTS[dialect](ours)
    assert theirs != ours
    match = read_mat(theirs)
    assert match.length == sample.length and match.names == NAMES
    assert differences(sample.games, match.games) == []


def records(game: Game) -> list[tuple]:
    """Who did what with which dice: the rolls (with their plays) and the cube actions."""
    out: list[tuple] = []
    for action in game.log:
        if action.kind == "opening" and action.dice and action.dice[0] != action.dice[1]:
            out.append((None, tuple(sorted(action.dice, reverse=True))))  # the throw that counts
        elif action.kind == "roll" and action.dice:
            out.append((action.player, tuple(sorted(action.dice, reverse=True))))
        elif action.kind == "play" and not action.auto:
            out.append((action.player, action.text))
        elif action.kind in ("double", "take", "pass", "resign", "accept_resign"):
            out.append((action.player, action.kind))
    return out


XG_SAMPLE = (
    '\ufeff; [Site "eXtreme Gammon"]\r\n; [Match ID "-246338669"]\r\n; [Player 1 "Xavier"]\r\n'
    '; [Player 2 "Yolanda"]\r\n; [EventDate "2024.03.01"]\r\n; [EventTime "20.15"]\r\n'
    '; [Variation "Backgammon"]\r\n; [Crawford "On"]\r\n; [CubeLimit "1024"]\r\n\r\n'
    "3 point match\r\n\r\n"
    " Game 1\r\n"
    " Xavier : 0                          Yolanda : 0\r\n"
    "  1) 31: 8/5 6/5                     64: 24/18 13/9\r\n"
    "  2) 62: 24/16*                      55: Cannot Move\r\n"
    "  3)  Doubles => 2                    Drops\r\n"
    "      Wins 1 point\r\n"
)
XG_RESIGNED = XG_SAMPLE + (
    " Game 2\r\n"
    " Xavier : 1                          Yolanda : 0\r\n"
    "  1)                                 52: 13/11 13/8\r\n"
    "  2) 43: ???\r\n"
    "                                      Wins 2 points\r\n"
)
DAILYGAMMON_SAMPLE = """ 5 point match

 Game 1
 alice : 0   bob : 0
  1)                             52: 13/11 13/8
  2) 64: 24/18 13/9              61: 13/7* 8/7
  3) 41: bar/24 24/20            31: 8/5 6/5
  4)  Doubles => 2                Drops
      Wins 1 point
"""
GALAXY_SAMPLE = """; [Site "Backgammon Galaxy"]
; [Player 1 "Gal"]
; [Player 2 "Axy"]
; [EventDate "2024.03.02"]

1 point match

Game 1
Gal : 0                        Axy : 0
1) 42: 8/4 6/4                 33: 8/5(2) 6/3(2)
2) 65: 24/13                   43: 13/9 13/10
3) 22: 13/11(2) 6/4(2)         62: 24/18/16
                               Wins 1 point and the match
"""
FIBS_SAMPLE = """# FIBS match log (client export)
 7 point match

 Game 1
 fibsfan : 0                      oldtimer : 0
  1) 51: 13-8 6-5                 62: 24-18 13-11
  2) 43: 24-20 13-10              55: 13-8(2) 8-3(2)
  3)  Doubles => 2                 Passes
      Wins 1 point
"""
EXPECTED = {
    "xg": [
        (None, (3, 1)),
        (0, "8/5 6/5"),
        (1, (6, 4)),
        (1, "24/18 13/9"),
        (0, (6, 2)),
        (0, "24/16*"),
        (1, (5, 5)),
        (0, "double"),
        (1, "pass"),
    ],
    "dailygammon": [
        (None, (5, 2)),
        (1, "13/11 13/8"),
        (0, (6, 4)),
        (0, "24/18 13/9"),
        (1, (6, 1)),
        (1, "13/7* 8/7"),
        (0, (4, 1)),
        (0, "bar/20"),
        (1, (3, 1)),
        (1, "8/5* 6/5"),
        (0, "double"),
        (1, "pass"),
    ],
    "galaxy": [
        (None, (4, 2)),
        (0, "8/4 6/4"),
        (1, (3, 3)),
        (1, "8/5(2) 6/3(2)"),
        (0, (6, 5)),
        (0, "24/13"),
        (1, (4, 3)),
        (1, "13/10 13/9"),
        (0, (2, 2)),
        (0, "13/11(2) 6/4(2)"),
        (1, (6, 2)),
        (1, "24/16"),
        (0, "resign"),
    ],
    "fibs": [
        (None, (5, 1)),
        (0, "13/8 6/5"),
        (1, (6, 2)),
        (1, "24/18 13/11"),
        (0, (4, 3)),
        (0, "24/20 13/10"),
        (1, (5, 5)),
        (1, "13/3(2)"),
        (0, "double"),
        (1, "pass"),
    ],
}
"""Each file's records as the engine spells them (``bar/24 24/20`` is ``bar/20``, a hit gets its ``*``)."""
WINNERS = {"xg": 0, "dailygammon": 0, "galaxy": 1, "fibs": 0}
SAMPLES = {"xg": XG_SAMPLE, "dailygammon": DAILYGAMMON_SAMPLE, "galaxy": GALAXY_SAMPLE, "fibs": FIBS_SAMPLE}


@pytest.mark.parametrize("dialect", sorted(SAMPLES))
def test_a_hand_written_file_of_each_dialect(dialect: str) -> None:
    match = read_mat(SAMPLES[dialect])
    (game,) = match.games
    assert records(game) == EXPECTED[dialect]
    assert game.result is not None and game.result.winner == WINNERS[dialect] and game.result.points == 1


def test_xg_writes_question_marks_for_a_roll_its_player_then_resigned() -> None:
    first, second = read_mat(XG_RESIGNED).games
    assert records(second) == [(None, (5, 2)), (1, "13/11 13/8"), (0, (4, 3)), (0, "resign")]
    assert second.score == (1, 0) and second.result is not None
    assert (second.result.winner, second.result.points) == (1, 2)
