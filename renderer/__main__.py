"""Command line: draw boards from GNU Backgammon IDs.

    python -m renderer render --position-id 4HPwATDgc/ABMA [--match-id cAkAAAAAAAAA]
                              [--dice 6 4] [--names Ann Bob] [--viewpoint 0|1]
                              [--theme classic|high-contrast] [--out board.png]

writes one PNG (default ``board.png``) and prints its path.

    python -m renderer render --jsonl --out-dir DIR < boards.jsonl

reads one JSON object per line, ``{"position_id": ..., "match_id"?: ...,
"dice"?: [d1, d2], "names"?: [a, b], "viewpoint"?: 0|1, "theme"?: name}``, and
writes ``DIR/000001.png``, ``DIR/000002.png``, ... numbered by input line
(blank lines are skipped but still counted). Each path written is printed on
stdout. A bad line prints ``line N: reason`` on stderr and the rest go on.

Exit status: 0 when every board was written, 1 when any line failed, 2 for
a usage error (argparse).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from i18n import LANGUAGES, language_of
from renderer.board import render_board
from renderer.scene import BoardScene
from renderer.themes import THEMES


def scene_from_request(request: dict[str, Any]) -> BoardScene:
    """A scene from one request: IDs plus optional dice, names, viewpoint, theme and
    language (a catalogue name such as ``"el"``, or a Discord locale).

    Explicit ``dice`` win over the Match ID's dice.

    :raises ValueError: (or :class:`engine.gnubgid.IdError`, a ValueError) for bad input.
    """
    if not isinstance(request, dict):
        raise ValueError("expected a JSON object")
    position_id = request.get("position_id")
    if not isinstance(position_id, str):
        raise ValueError('"position_id" (a string) is required')
    match_id = request.get("match_id")
    if match_id is not None and not isinstance(match_id, str):
        raise ValueError('"match_id" must be a string')
    options: dict[str, object] = {}
    dice = request.get("dice")
    if dice is not None:
        if not (isinstance(dice, list | tuple) and len(dice) == 2 and all(type(d) is int for d in dice)):
            raise ValueError('"dice" must be two integers')
        options["dice"] = (dice[0], dice[1])
    names = request.get("names")
    if names is not None:
        if not (isinstance(names, list | tuple) and len(names) == 2 and all(isinstance(n, str) for n in names)):
            raise ValueError('"names" must be two strings')
        options["names"] = (names[0], names[1])
    if "viewpoint" in request:
        options["viewpoint"] = request["viewpoint"]
    theme = request.get("theme")
    if theme is not None:
        if theme not in THEMES:
            raise ValueError(f"unknown theme {theme!r} (known: {', '.join(THEMES)})")
        options["theme"] = THEMES[theme]
    language = request.get("language")
    if language is not None:
        if not isinstance(language, str):
            raise ValueError('"language" must be a string')
        options["language"] = language if language in LANGUAGES else language_of(language)
    return BoardScene.from_ids(position_id, match_id, **options)


def _render_jsonl(lines: TextIO, out_dir: Path, out: TextIO, err: TextIO) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    failed = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            scene = scene_from_request(json.loads(line))
            png = render_board(scene)
        except (ValueError, TypeError) as error:  # json.JSONDecodeError is a ValueError
            print(f"line {number}: {error}", file=err)
            failed += 1
            continue
        path = out_dir / f"{number:06d}.png"
        path.write_bytes(png)
        print(path, file=out)
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None, *, stdin: TextIO | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m renderer", description="Draw backgammon boards.")
    commands = parser.add_subparsers(dest="command", required=True)
    render = commands.add_parser("render", help="write board PNGs")
    render.add_argument("--position-id", help="GNU Backgammon Position ID")
    render.add_argument("--match-id", help="GNU Backgammon Match ID (cube, dice, score)")
    render.add_argument("--dice", nargs=2, type=int, metavar=("D1", "D2"))
    render.add_argument("--names", nargs=2, metavar=("ON_ROLL", "OPPONENT"))
    render.add_argument("--viewpoint", type=int, choices=(0, 1), default=0)
    render.add_argument("--theme", choices=sorted(THEMES), default="classic")
    render.add_argument("--language", help="the language of the board's words (el, ru, ar, pt-BR, ...)")
    render.add_argument("--out", default="board.png", help="PNG file to write (single mode)")
    render.add_argument("--jsonl", action="store_true", help="read one JSON request per stdin line")
    render.add_argument("--out-dir", help="directory for the numbered PNGs (--jsonl mode)")
    args = parser.parse_args(argv)

    if args.jsonl:
        if not args.out_dir:
            parser.error("--jsonl needs --out-dir")
        return _render_jsonl(stdin or sys.stdin, Path(args.out_dir), sys.stdout, sys.stderr)
    if not args.position_id:
        parser.error("--position-id is required (or use --jsonl)")
    request: dict[str, Any] = {
        "position_id": args.position_id,
        "viewpoint": args.viewpoint,
        "theme": args.theme,
    }
    if args.match_id:
        request["match_id"] = args.match_id
    if args.dice:
        request["dice"] = list(args.dice)
    if args.names:
        request["names"] = list(args.names)
    if args.language:
        request["language"] = args.language
    try:
        png = render_board(scene_from_request(request))
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    path = Path(args.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
