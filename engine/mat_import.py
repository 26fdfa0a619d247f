"""Reading a ``.mat`` match file (GNU Backgammon's export, which XG, DailyGammon,
Galaxy and FIBS tools also write) back into games, every record replayed by the
rules engine: a move the rules refuse, dice that are not dice, a cube action out
of turn, is refused with its line number, and nothing is returned.

Columns: the first player's records are on the left, the second player's on
the right; which side a record is on is told by where it starts (the second
name's column on the game's name line), so a blank left half is a record of
the second player's only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.game import Game, GameSettings, Phase, WinKind
from engine.reasons import Reason

MAX_BYTES = 1_000_000
"""The largest file read (the bot's attachment cap)."""
MAX_GAMES = 500

_LENGTH = re.compile(r"^\s*(\d+)\s+point\s+match\s*$", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_NAMES = re.compile(r"^\s*(?P<a>\S.*?)\s*:\s*(?P<s0>\d+)\s+(?P<b>\S.*?)\s*:\s*(?P<s1>\d+)\s*$")
_MOVE = re.compile(r"^\s*(\d+)\)(.*)$")
_RECORD = re.compile(
    r"(?P<roll>[1-6][1-6]):(?:\s+(?P<none>Cannot\s+Move)|\s+(?P<resigned>\?{3,4}))?"
    r"(?P<moves>(?:\s+(?:\d+|bar)[/-][^\s]+)*)"
    r"|(?P<double>Doubles(?:\s*=>\s*\d+)?)|(?P<take>Takes)|(?P<drop>Drops|Passes)"
    r"|(?P<beaver>Beavers\s*=>\s*\d+)|(?P<wins>Wins\s+(?P<points>\d+)\s+points?(?:\s+and\s+the\s+match)?)",
    re.IGNORECASE,
)


class MatImportError(ValueError):
    """A file that is not a match this engine can replay: ``line`` is the first bad one (1-based)."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


@dataclass
class ImportedMatch:
    length: int
    """0 for a money session."""
    names: tuple[str, str] = ("", "")
    games: list[Game] = field(default_factory=list)


def _gammon_kind(game: Game, points: int) -> WinKind:
    per_cube = max(points // max(game.cube_value, 1), 1)
    return WinKind(min(per_cube, 3))


def read_mat(text: str | bytes) -> ImportedMatch:
    """The match in ``text``.

    :raises MatImportError: naming the first line that cannot be read or replayed."""
    if isinstance(text, bytes):
        if len(text) > MAX_BYTES:
            raise MatImportError(1, Reason("the file is larger than {value} kB", value=MAX_BYTES // 1000))
        text = text.decode("utf-8", errors="replace")
    text = text.removeprefix("\ufeff")  # XG writes a byte-order mark
    if len(text) > MAX_BYTES:
        raise MatImportError(1, Reason("the file is larger than {value} kB", value=MAX_BYTES // 1000))
    match: ImportedMatch | None = None
    game: Game | None = None
    column = 30
    opened = False
    crawford_done = False
    lines = text.splitlines()
    number = 0

    def finish(at: int) -> None:
        if game is not None and not game.is_over:
            raise MatImportError(at, Reason("the game before this line does not end"))

    for number, line in enumerate(lines, start=1):
        try:
            stripped = line.strip()
            if not stripped or stripped.startswith((";", "#")):
                continue
            if "\x00" in line:
                raise MatImportError(number, Reason("binary data, not a .mat text"))
            if match is None:
                found = _LENGTH.match(line)
                if found is None:
                    raise MatImportError(number, Reason('expected the match length, e.g. " 7 point match"'))
                match = ImportedMatch(int(found[1]))
                if match.length > 255:
                    raise MatImportError(number, Reason("a match is 0 (money) to 255 points"))
                continue
            if _GAME.match(line):
                finish(number)
                if len(match.games) >= MAX_GAMES:
                    raise MatImportError(number, Reason("more than {MAX_GAMES} games", MAX_GAMES=MAX_GAMES))
                game = None
                continue
            names = _NAMES.match(line)
            if names and game is None:
                score = (int(names["s0"]), int(names["s1"]))
                n = match.length
                if n and any(s >= n for s in score):
                    raise MatImportError(
                        number,
                        Reason(
                            "a score of {value}-{value2} in a {n}-point match", value=score[0], value2=score[1], n=n
                        ),
                    )
                crawford = bool(n) and not crawford_done and n - 1 in score
                crawford_done = crawford_done or crawford
                match.names = (names["a"], names["b"])
                column = names.start("b")
                settings = GameSettings(match_length=n) if n else GameSettings()
                game = Game(settings, score=score, crawford=crawford)
                match.games.append(game)
                opened = False
                continue
            found = _MOVE.match(line)
            if game is None or (found is None and not _RECORD.match(stripped)):
                raise MatImportError(number, Reason("not a line of a .mat file: {value!r}", value=stripped[:40]))
            # A line of records without a move number ("Wins 1 point") keeps its columns too.
            offset, rest = (found.start(2), found[2]) if found else (0, line)
            position = 0
            for record in _RECORD.finditer(rest):
                if rest[position : record.start()].strip():
                    raise MatImportError(
                        number, Reason("cannot read {value!r}", value=rest[position : record.start()].strip()[:30])
                    )
                position = record.end()
                player = 1 if offset + record.start() >= column - 2 else 0
                if game.is_over:
                    if record["wins"]:
                        continue
                    raise MatImportError(number, Reason("a record after the game has ended"))
                if record["roll"]:
                    dice = (int(record["roll"][0]), int(record["roll"][1]))
                    moves = record["moves"].strip()
                    if not opened:
                        if dice[0] == dice[1]:
                            raise MatImportError(number, Reason("the opening throw cannot be a double"))
                        high, low = max(dice), min(dice)
                        game.opening_roll((high, low) if player == 0 else (low, high))
                        opened = True
                    else:
                        game.roll(player, dice)
                    if game.phase is Phase.PLAY and record["resigned"] and not moves:
                        pass  # XG: rolled, then resigned (the "Wins" record follows)
                    elif game.phase is Phase.PLAY:
                        if not moves:
                            raise MatImportError(
                                number, Reason("no move written for {value}{value2}", value=dice[0], value2=dice[1])
                            )
                        game.play(player, moves)
                    elif moves:
                        raise MatImportError(
                            number,
                            Reason(
                                "{value}{value2} cannot be played, yet a move is written", value=dice[0], value2=dice[1]
                            ),
                        )
                elif record["double"]:
                    game.double(player)
                elif record["take"]:
                    game.take(player)
                elif record["drop"]:
                    game.drop(player)
                elif record["beaver"]:
                    game.beaver(player)
                elif record["wins"]:
                    game.offer_resignation(1 - player, _gammon_kind(game, int(record["points"])).value)
                    game.accept_resignation(player)
            if rest[position:].strip():
                raise MatImportError(number, Reason("cannot read {value!r}", value=rest[position:].strip()[:30]))
        except MatImportError:
            raise
        except Exception as error:  # the engine's refusal, worded for the line
            raise MatImportError(number, str(error) or type(error).__name__) from None
    if match is None:
        raise MatImportError(max(number, 1), Reason("no match length: this is not a .mat file"))
    finish(number)
    if not match.games:
        raise MatImportError(max(number, 1), Reason("no game in the file"))
    return match
