"""Games played elsewhere: a ``.mat`` file read, replayed by the rules and analysed.

Of an imported file only the importing member's own errors are kept, as their
drills (served to them alone, privately): its games never reach ratings,
leaderboards, puzzles or the game list, and the other player's errors are not
kept. Which player the member was is the name they give, else the one named
like them. Reading runs in a thread and the analysis in the analyst's
low-priority process, never on the event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

from bot.ai.values import AnalysisUnavailable
from bot.core.model import AnalysisUnavailableError, ServiceError
from bot.core.progress import mistake_of
from bot.core.puzzles import MIN_LOSS, Decision, decision_of
from engine.mat_import import MAX_BYTES, MatImportError, read_mat
from i18n import _, worded

MAX_FILE_BYTES = MAX_BYTES
"""1 MB: far more than any match file (a 25-point match is some 30 kB)."""
MAX_ANALYSED = 15
"""Games analysed from one file (the last ones): each takes seconds of a core."""


class MatFileError(ServiceError):
    """A file that is not a match the engine can replay: said privately, with its first bad line."""


@dataclass(frozen=True, slots=True)
class ImportedGame:
    number: int
    summary: str
    """The analysis's words (PR, error rate, luck, blunders), as ``/bg analysis`` gives them."""


@dataclass(frozen=True, slots=True)
class ImportedAnalysis:
    names: tuple[str, str]
    length: int
    games_read: int
    games: tuple[ImportedGame, ...]
    seat: int | None = None
    """The importing member's player in the file (None: not known, nothing kept)."""
    drills: int = 0
    """Their errors kept as new drills."""


def seat_of(names: tuple[str, str], me: str | None, member_names: Sequence[str] = ()) -> int | None:
    """The importer's player: the one named ``me`` (case and spaces aside), else the one
    named like the member; None when no name (or both) fit.

    >>> seat_of(("Xavier", "alice"), None, ["alice"]), seat_of(("Xavier", "Yolanda"), " yolanda ")
    (1, 1)
    """

    def plain(name: str) -> str:
        return " ".join(name.split()).casefold()

    wanted = [plain(me)] if me else [plain(n) for n in member_names if n]
    fits = [seat for seat in (0, 1) if plain(names[seat]) in wanted]
    return fits[0] if len(fits) == 1 else None


KeepDrills = Callable[[int, Sequence[Decision]], Awaitable[int]]
"""Where an importer's errors go: ``(member, decisions) -> new drills`` (:meth:`Puzzles.add_imported_drills`)."""


class Imports:
    def __init__(self, analyst: object, keep_drills: KeepDrills | None = None) -> None:
        self.analyst = analyst
        self.keep_drills = keep_drills

    async def analyse(
        self,
        data: bytes,
        *,
        importer: int | None = None,
        me: str | None = None,
        member_names: Sequence[str] = (),
    ) -> ImportedAnalysis:
        """The analysis of each game (the last :data:`MAX_ANALYSED`); with an ``importer``,
        their own errors (:func:`seat_of`) kept as their drills.

        :raises MatFileError: for a file that cannot be read (nothing is kept of it)."""
        if len(data) > MAX_FILE_BYTES:
            raise MatFileError(_("That file is larger than {number} MB.").format(number=MAX_FILE_BYTES // 1_000_000))
        try:
            match = await asyncio.to_thread(read_mat, data)
        except MatImportError as error:
            raise MatFileError(
                _("That is not a match file I can replay: line {line}: {reason}").format(
                    line=error.line, reason=worded(error.reason)
                )
            ) from None
        names = match.names
        shown = list(enumerate(match.games, start=1))[-MAX_ANALYSED:]
        seat = seat_of(names, me, member_names) if importer is not None else None
        games = []
        decisions: list[Decision] = []
        for number, game in shown:
            try:
                analysis = await self.analyst.aanalyse_game(game)  # type: ignore[attr-defined]
            except AnalysisUnavailable as error:
                raise AnalysisUnavailableError(str(error)) from error
            games.append(ImportedGame(number, analysis.summary(names)))
            if seat is not None:
                decisions += own_errors(analysis.detail(), seat, names, number)
        drills = 0
        if importer is not None and seat is not None and decisions and self.keep_drills is not None:
            drills = await self.keep_drills(importer, decisions)
        return ImportedAnalysis(names, match.length, len(match.games), tuple(games), seat, drills)


def own_errors(detail: dict[str, object], seat: int, names: tuple[str, str], number: int) -> list[Decision]:
    """The real errors (:data:`MIN_LOSS`) of ``seat`` in an imported game's analysis, as drills ask them."""
    found = []
    for item in detail.get("mistakes") or ():  # type: ignore[attr-defined]
        mistake = mistake_of(item)
        if mistake.player != seat or mistake.lost < MIN_LOSS:
            continue
        decision = decision_of(mistake, names, 0, number)
        if decision is not None:
            found.append(replace(decision, imported=True))
    return found
