"""Legal plays (docs/rules.md sections 3-6).

A *move* takes one checker the distance of one die; a *play* is the whole
turn, every move of one roll (both values are in :mod:`engine.play`). Plays
that reach the same position are the same play, so :func:`legal_plays` gives
one play per distinct resulting position.
"""

from __future__ import annotations

from engine.dice import Roll
from engine.play import Move, Play
from engine.position import BAR, CHECKERS, OFF, Position, unchecked_position


def legal_plays(position: Position, roll: Roll) -> list[Play]:
    """Every legal play of ``roll`` for the player on roll, one per resulting position.

    The rules applied: checkers on the bar enter first; a move may land only on
    an open point (empty, ours, or an opposing blot, which is hit); a checker
    using both dice touches down on the intermediate point; the play must use
    as many dice as possible, and when only one die of two can be used, the
    larger one if it can; bearing off needs every checker home, and a die bears
    off from its own point or, when no checker stands higher, from the highest
    point. When no die can be played the list holds the single empty play.
    """
    # Work on a flat list: a[1..24] signed points, a[25] our bar, a[0] our off.
    start = [position.off[0], *position.board, position.bar[0]]
    results: _Results = {}

    if roll.is_double:
        best = _search_doubles(start, roll.die1, 4, BAR, (), results, set())
    else:
        best = max(
            _search_pair(start, roll.die1, roll.die2, results),
            _search_pair(start, roll.die2, roll.die1, results),
        )
    if best == 0:
        return [_new_play((), position)]

    # Only one die of two can be used: the larger, if any play uses it.
    larger_only = best == 1 and any(die == roll.high for _, die in results.values())
    plays = []
    their_bar, their_off = position.bar[1], position.off[1]
    high = roll.high
    moves_of = _MOVES.__getitem__
    for key, (moves, first_die) in results.items():
        if len(moves) != best or (larger_only and first_die != high):
            continue
        hits = 0
        for move in moves:
            if move[2]:
                hits += 1
        plays.append(
            _new_play(
                tuple([moves_of(move) for move in moves]),
                unchecked_position(key[1:25], _PAIRS[key[25]][their_bar + hits], _PAIRS[key[0]][their_off]),
            )
        )
    return plays


# The values every play is made of, made once: plays are found by the thousand
# a second and live until one is chosen, and the garbage collector scans every
# object alive, so shared moves and (ours, theirs) pairs are fewer to make and to scan.
_MOVES: dict[tuple[int, int, bool], Move] = {
    (source, destination, hit): Move(source, destination, hit)
    for source in range(1, BAR + 1)
    for destination in range(OFF, source)
    for hit in (False, True)
}
_PAIRS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((ours, theirs) for theirs in range(CHECKERS + 1)) for ours in range(CHECKERS + 1)
)


def pack_moves(moves: tuple[Move, ...]) -> bytes:
    """``moves`` as bytes, three a move (source, destination, hit): what a game
    keeps of plays it forgot, which the garbage collector need not scan."""
    return bytes([part for move in moves for part in move])


def unpack_moves(packed: bytes) -> tuple[Move, ...]:
    """The moves :func:`pack_moves` packed (the very same shared values)."""
    return tuple([_MOVES[packed[i], packed[i + 1], bool(packed[i + 2])] for i in range(0, len(packed), 3)])


def play_of_moves(position: Position, moves: tuple[Move, ...]) -> Play:
    """The play of ``moves`` (those of a legal play of ``position``, in its order):
    the same :class:`Play` :func:`legal_plays` found, without searching again."""
    a = [position.off[0], *position.board, position.bar[0]]
    hits = 0
    for source, destination, hit in moves:
        a[source] -= 1
        if destination == OFF:
            a[OFF] += 1
        elif hit:
            a[destination] = 1
            hits += 1
        else:
            a[destination] += 1
    their_bar, their_off = position.bar[1], position.off[1]
    position_after = unchecked_position(tuple(a[1:25]), _PAIRS[a[BAR]][their_bar + hits], _PAIRS[a[OFF]][their_off])
    return _new_play(moves, position_after)


def _new_play(moves: tuple[Move, ...], position: Position) -> Play:
    """Build a Play without the frozen dataclass __init__ (the hot path makes thousands)."""
    play = object.__new__(Play)
    object.__setattr__(play, "moves", moves)
    object.__setattr__(play, "position", position)
    return play


def _single_moves(a: list[int], die: int, highest_source: int) -> list[tuple[int, int]]:
    """(source, destination) of every legal move of one die from a source <= highest_source."""
    if a[BAR] > 0:
        destination = BAR - die
        return [(BAR, destination)] if a[destination] >= -1 else []
    found = []
    # Bearing off needs nothing on points 7..24 (the bar is empty here).
    home = max(a[7:25]) <= 0
    highest = 0
    if home:
        for p in range(6, 0, -1):
            if a[p] > 0:
                highest = p
                break
    for source in range(min(highest_source, 24), 0, -1):
        if a[source] <= 0:
            continue
        destination = source - die
        if destination >= 1:
            if a[destination] >= -1:
                found.append((source, destination))
        elif home and (destination == 0 or source == highest):
            found.append((source, OFF))
    return found


def _apply(a: list[int], source: int, destination: int) -> tuple[list[int], _Step]:
    b = a.copy()
    b[source] -= 1
    hit = False
    if destination == OFF:
        b[OFF] += 1
    elif b[destination] == -1:
        b[destination] = 1
        hit = True
    else:
        b[destination] += 1
    return b, (source, destination, hit)


# During the search a move is a plain (source, destination, hit) tuple: cheaper
# to build than a Move, which only the plays returned get.
_Step = tuple[int, int, bool]
_Results = dict[tuple[int, ...], tuple[tuple[_Step, ...], int]]


def _record(results: _Results, a: list[int], moves: tuple[_Step, ...], first_die: int) -> None:
    key = tuple(a)
    known = results.get(key)
    # Keep the longest way to a position; among one-die ways, the larger die.
    if known is None or len(known[0]) < len(moves) or (len(known[0]) == len(moves) == 1 and first_die > known[1]):
        results[key] = (moves, first_die)


def _search_pair(a: list[int], first: int, second: int, results: _Results) -> int:
    """Play ``first`` then ``second``; return the most dice used."""
    best = 0
    for source, destination in _single_moves(a, first, BAR):
        b, move1 = _apply(a, source, destination)
        seconds = _single_moves(b, second, BAR)
        if not seconds:
            best = max(best, 1)
            _record(results, b, (move1,), first)
            continue
        best = 2
        # The inner loop makes most of the plays: apply and record inline.
        for source2, destination2 in seconds:
            c = b.copy()
            c[source2] -= 1
            hit = False
            if destination2 == OFF:
                c[OFF] += 1
            elif c[destination2] == -1:
                c[destination2] = 1
                hit = True
            else:
                c[destination2] += 1
            key = tuple(c)
            known = results.get(key)
            if known is None or len(known[0]) < 2:
                results[key] = ((move1, (source2, destination2, hit)), first)
    return best


def _search_doubles(
    a: list[int],
    die: int,
    left: int,
    highest_source: int,
    moves: tuple[_Step, ...],
    results: _Results,
    seen: set[tuple[tuple[int, ...], int]],
) -> int:
    """Play up to ``left`` moves of ``die``; return the most dice used.

    Sources never rise from one move to the next. That loses no play: any set
    of equal moves can be made highest checker first.
    """
    if left == 0:
        _record(results, a, moves, die)
        return len(moves)
    candidates = _single_moves(a, die, highest_source)
    if not candidates:
        if moves:
            _record(results, a, moves, die)
        return len(moves)
    best = 0
    for source, destination in candidates:
        b, move = _apply(a, source, destination)
        state = (tuple(b), source)
        if state in seen:
            continue
        seen.add(state)
        best = max(best, _search_doubles(b, die, left - 1, source, moves + (move,), results, seen))
    return best
