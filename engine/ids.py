"""Positions from anywhere: a GNU Backgammon ID or an XGID, told apart, read, and found in text.

Three ways of writing a position are read:

- an XGID (``XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10``, the
  prefix optional; :mod:`engine.xgid`);
- a GNU Backgammon ID, ``PositionID:MatchID`` (``4HPwATDgc/ABMA:cIkKAAAAAAAA``),
  also as GNU Backgammon prints them (``Position ID: 4HPwATDgc/ABMA`` and
  ``Match ID   : cIkKAAAAAAAA``);
- a Position ID alone (``4HPwATDgc/ABMA``: money, player 0 to roll).

:func:`gnubg_id_of` turns any of them into the GNU Backgammon ID the rest of
the engine reads (``Game.from_gnubg_id``); :func:`find_ids` finds them in a
message, best first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.gnubgid import decode_match_id
from engine.position import IdError, decode_position_id
from engine.xgid import Xgid, looks_like_xgid, parse_xgid

__all__ = ["FoundId", "find_ids", "gnubg_id_of", "read_id"]

_B64 = "A-Za-z0-9+/"
_XGID = re.compile(r"(?<![-\w=])(?:XGID=)?[-A-Pa-p]{26}(?::[-+0-9A-Za-z]{0,6}){9}(?![-+\w:])", re.IGNORECASE)
"""A whole XGID (case-insensitive for the prefix only: the board's case is checked when read)."""
_XGID_ANY = re.compile(r"XGID=[^\s`'\"<>]*", re.IGNORECASE)
"""Anything written as an XGID, well formed or not (so a broken one is reported, not ignored)."""
_GNUBG = re.compile(rf"(?<![{_B64}])([{_B64}]{{14}}):([{_B64}]{{12}})(?![{_B64}])")
_PRINTED = re.compile(
    rf"Position ID\s*:\s*([{_B64}]{{14}})(?![{_B64}])(?:\s+Match ID\s*:\s*([{_B64}]{{12}})(?![{_B64}]))?"
)
"""GNU Backgammon's own print-out: ``Position ID: ...`` then, on the next line, ``Match ID   : ...``."""
_LONE = re.compile(rf"(?<![{_B64}=:])([{_B64}]{{14}})(?![{_B64}=:])")


@dataclass(frozen=True, slots=True)
class FoundId:
    """A position written in a text."""

    kind: str
    """``xgid``, ``gnubg`` (``PositionID:MatchID``) or ``position`` (a Position ID alone)."""
    text: str
    """As written (GNU Backgammon's print-out as ``PositionID:MatchID``)."""
    start: int
    """Where in the text it starts."""


def read_id(text: str) -> tuple[str, Xgid | None]:
    """The GNU Backgammon ID ``text`` means, and what its XGID said (None for a GNU Backgammon ID).

    :raises XgidError: for a malformed XGID.
    :raises IdError: for a malformed GNU Backgammon ID.
    """
    text = text.strip()
    if looks_like_xgid(text):
        xgid = parse_xgid(text)
        return xgid.gnubg_id(), xgid
    position_id, colon, match_id = text.partition(":")
    decode_position_id(position_id)
    if colon:
        decode_match_id(match_id)
        return f"{position_id.strip()}:{match_id.strip()}", None
    return position_id.strip(), None


def gnubg_id_of(text: str) -> str:
    """The GNU Backgammon ID (``PositionID:MatchID``, or a Position ID alone)
    that an XGID or a GNU Backgammon ID means.

    :raises IdError: (an :class:`~engine.xgid.XgidError` for an XGID) saying what is wrong.
    """
    return read_id(text)[0]


def find_ids(text: str) -> list[FoundId]:
    """The positions written in ``text``, best first: XGIDs, then GNU Backgammon
    IDs (``PositionID:MatchID`` or as GNU Backgammon prints them), then lone
    Position IDs that read as one. Each in the order written; none read yet
    except the lone Position IDs (any word of 14 letters could be one)."""
    found: list[FoundId] = []
    taken: list[tuple[int, int]] = []

    def add(kind: str, written: str, start: int, end: int) -> None:
        if any(start < stop and begin < end for begin, stop in taken):
            return
        taken.append((start, end))
        found.append(FoundId(kind, written, start))

    for match in _XGID.finditer(text):
        add("xgid", match.group(0), match.start(), match.end())
    for match in _XGID_ANY.finditer(text):
        add("xgid", match.group(0).rstrip(".,;!?)]}"), match.start(), match.end())
    gnubg: list[FoundId] = []
    for match in _GNUBG.finditer(text):
        gnubg.append(FoundId("gnubg", f"{match.group(1)}:{match.group(2)}", match.start()))
        taken.append(match.span())
    for match in _PRINTED.finditer(text):
        if any(match.start() < stop and begin < match.end() for begin, stop in taken):
            continue
        if match.group(2):
            gnubg.append(FoundId("gnubg", f"{match.group(1)}:{match.group(2)}", match.start()))
        else:
            gnubg.append(FoundId("position", match.group(1), match.start()))
        taken.append(match.span())
    found += sorted(gnubg, key=lambda f: f.start)
    for match in _LONE.finditer(text):
        if any(match.start() < stop and begin < match.end() for begin, stop in taken):
            continue
        try:
            decode_position_id(match.group(1))
        except IdError:
            continue
        found.append(FoundId("position", match.group(1), match.start()))
    return found
