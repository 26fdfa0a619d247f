"""Games played elsewhere: a ``.mat`` file read, replayed by the rules and analysed.

Nothing of an imported file is stored: its games never reach ratings,
leaderboards, puzzles or the game list. Reading runs in a thread and the
analysis in the analyst's low-priority process, never on the event loop.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from bot.ai.values import AnalysisUnavailable
from bot.core.model import AnalysisUnavailableError, ServiceError
from engine.mat_import import MAX_BYTES, MatImportError, read_mat
from i18n import _

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


class Imports:
    def __init__(self, analyst: object) -> None:
        self.analyst = analyst

    async def analyse(self, data: bytes) -> ImportedAnalysis:
        """:raises MatFileError: for a file that cannot be read (nothing is kept of it)."""
        if len(data) > MAX_FILE_BYTES:
            raise MatFileError(_("That file is larger than {number} MB.").format(number=MAX_FILE_BYTES // 1_000_000))
        try:
            match = await asyncio.to_thread(read_mat, data)
        except MatImportError as error:
            raise MatFileError(
                _("That is not a match file I can replay: line {line}: {reason}").format(
                    line=error.line, reason=error.reason
                )
            ) from None
        names = match.names
        shown = list(enumerate(match.games, start=1))[-MAX_ANALYSED:]
        games = []
        for number, game in shown:
            try:
                analysis = await self.analyst.aanalyse_game(game)  # type: ignore[attr-defined]
            except AnalysisUnavailable as error:
                raise AnalysisUnavailableError(str(error)) from error
            games.append(ImportedGame(number, analysis.summary(names)))
        return ImportedAnalysis(names, match.length, len(match.games), tuple(games))
