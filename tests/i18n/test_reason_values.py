"""No English word as a value of an engine's refusal.

``i18n.worded`` translates a :class:`~engine.reasons.Reason`'s template and the
Reasons nested in its values; a plain ``str`` value stays as it is. So a value
a member reads as a word ("bottom", "a beaver", "plakoto", a phase's name) is a
Reason itself, or its sentence is split into whole sentences. This test reads
every ``Reason(...)`` call in ``engine/`` with :mod:`ast` and fails on a value
that is, or may be, a string literal with letters: a literal, an f-string, an
if-expression or a lookup of literals, ``" or ".join(...)``, a name bound to
such (an assignment, a ``for`` over literals, a parameter its callers pass
literals to), a game's identifier (``.game``) or a phase's (``phase.value``).
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"
LETTERS = re.compile(r"[A-Za-z]")

UNKNOWN = "an unknown game's identifier quoted as given: the bot passes only known games, the operator's error"
ALLOWED: dict[tuple[str, str, str], str] = {
    ("engine/game.py", "the {name} of a logged {kind} is a whole number: {data}", "name"): (
        "a logged action's JSON key (player, value), shown with the data it is in"
    ),
    ("engine/gnubgid.py", "match field {name}={value} does not fit in {width} bits", "name"): (
        "a Match ID field's code name: only encoding raises it, the operator's error"
    ),
    ("engine/variants.py", "no such game {game!r}: one of {value}", "value"): (
        "the identifiers the engine accepts: the bot passes only these, the operator's error"
    ),
    ("engine/variants.py", "no such game {game!r}: one of {value}", "game"): UNKNOWN,
    ("engine/variants.py", "no such game {kind!r}", "kind"): UNKNOWN,
    ("engine/tables.py", "no such game {game!r}", "game"): UNKNOWN,
}
"""(file, template, placeholder) of the values that are no words, each with why."""

WORDY_METHODS = {"join", "get", "format"}
"""Methods whose arguments make their result: ``", ".join(NAMES)``, ``{...}.get(state, "a finished game")``."""
WORDY_ATTRIBUTES = {"game"}
"""Attributes that hold an English word: a game's identifier ("plakoto"), named by engine.reasons.game_name."""


@dataclass(frozen=True)
class Found:
    path: str
    line: int
    template: str
    keyword: str
    value: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.keyword}={self.value} in Reason({self.template!r})"


class Module:
    """One module's tree, with each node's parent, to follow a name to what binds it."""

    def __init__(self, source: str) -> None:
        self.tree = ast.parse(source)
        self.parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node

    def function(self, node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return node
        return None

    def wordy(self, expr: ast.AST | None, at: ast.AST, seen: frozenset[str] = frozenset()) -> bool:
        """Whether ``expr`` (in the scope of ``at``) is, or may be, an English word or phrase."""
        match expr:
            case None:
                return False
            case ast.Constant(value=str() as text):
                return bool(LETTERS.search(text))
            case ast.JoinedStr(values=parts):
                return any(self.wordy(part, at, seen) for part in parts)
            case ast.IfExp(body=body, orelse=orelse):
                return self.wordy(body, at, seen) or self.wordy(orelse, at, seen)
            case ast.BoolOp(values=values):
                return any(self.wordy(value, at, seen) for value in values)
            case ast.BinOp(left=left, right=right):
                return self.wordy(left, at, seen) or self.wordy(right, at, seen)
            case ast.Tuple(elts=items) | ast.List(elts=items) | ast.Set(elts=items):
                return any(self.wordy(item, at, seen) for item in items)
            case ast.Dict(values=values):
                return any(self.wordy(value, at, seen) for value in values)
            case ast.Subscript(value=container):
                return self.wordy(container, at, seen)
            case ast.Call(func=ast.Attribute(value=owner, attr=method), args=args) if isinstance(
                owner, (ast.Constant, ast.Dict, ast.Tuple, ast.List, ast.Name)
            ) and not (isinstance(owner, ast.Name) and owner.id == "self"):
                words = method in WORDY_METHODS and any(self.wordy(arg, at, seen) for arg in args)
                return words or self.wordy(owner, at, seen)
            case ast.Attribute(attr=attr, value=owner):
                return attr in WORDY_ATTRIBUTES or (attr == "value" and ast.unparse(owner).endswith("phase"))
            case ast.Name(id=name) if name not in seen:
                return any(self.wordy(bound, where, seen | {name}) for bound, where in self.bindings(name, at))
        return False

    def bindings(self, name: str, at: ast.AST) -> list[tuple[ast.AST | None, ast.AST]]:
        """What ``name`` may hold at ``at``: assigned values, a ``for``'s items, a parameter's arguments."""
        scope: ast.AST = self.function(at) or self.tree
        found: list[tuple[ast.AST | None, ast.AST]] = []
        for node in ast.walk(scope):
            if isinstance(node, ast.Assign) and any(_binds(target, name) for target in node.targets):
                found.append((node.value, node))
            elif isinstance(node, ast.AnnAssign) and _binds(node.target, name):
                found.append((node.value, node))
            elif isinstance(node, (ast.For, ast.comprehension)) and _binds(node.target, name):
                iterables: list[ast.AST] = [node.iter]
                if isinstance(node.iter, ast.Name) and node.iter.id != name:  # ``for name, width in FIELDS``
                    iterables = [value for value, _ in self.bindings(node.iter.id, node) if value is not None]
                found.extend((item, node) for iterable in iterables for item in _items(node.target, name, iterable))
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.extend(self.arguments(scope, name))
        if not found:
            found.extend(self.constant(name))
        return found

    def constant(self, name: str) -> list[tuple[ast.AST | None, ast.AST]]:
        """A module's constant ``name``: assigned here, or imported from another engine module."""
        found: list[tuple[ast.AST | None, ast.AST]] = []
        for node in self.tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(_binds(target, name) for target in targets):
                    found.append((node.value, node))
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("engine"):
                source = ROOT / Path(*(node.module or "").split(".")).with_suffix(".py")
                if source.exists() and any((alias.asname or alias.name) == name for alias in node.names):
                    other = Module(source.read_text(encoding="utf-8"))
                    found.extend((value, other.tree) for value, _ in other.constant(name))
        return found

    def arguments(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str
    ) -> list[tuple[ast.AST | None, ast.AST]]:
        """The arguments this module's calls of ``function`` pass to its parameter ``name``."""
        parameters = [argument.arg for argument in function.args.posonlyargs + function.args.args]
        keywords = [argument.arg for argument in function.args.kwonlyargs]
        if name not in parameters and name not in keywords:
            return []
        found: list[tuple[ast.AST | None, ast.AST]] = []
        for call in ast.walk(self.tree):
            if not isinstance(call, ast.Call):
                continue
            if isinstance(call.func, ast.Name) and call.func.id == function.name:
                offset = 0
            elif isinstance(call.func, ast.Attribute) and call.func.attr == function.name:
                offset = 1 if parameters[:1] in (["self"], ["cls"]) else 0
            else:
                continue
            if name in parameters and 0 <= parameters.index(name) - offset < len(call.args):
                found.append((call.args[parameters.index(name) - offset], call))
            found.extend((keyword.value, call) for keyword in call.keywords if keyword.arg == name)
        return found


def _binds(target: ast.AST, name: str) -> bool:
    """Whether assigning to ``target`` binds ``name`` (``name``, ``(name, other)``; not ``x[name]``)."""
    match target:
        case ast.Name(id=bound):
            return bound == name
        case ast.Tuple(elts=parts) | ast.List(elts=parts):
            return any(_binds(part, name) for part in parts)
        case ast.Starred(value=inner):
            return _binds(inner, name)
    return False


def _items(target: ast.AST, name: str, iterable: ast.AST) -> list[ast.AST]:
    """What a ``for`` over a literal binds to ``name`` (the whole items when it cannot tell)."""
    if not isinstance(iterable, (ast.Tuple, ast.List, ast.Set)):
        return [iterable]
    if isinstance(target, ast.Name):
        return list(iterable.elts)
    if isinstance(target, ast.Tuple):
        index = next(i for i, part in enumerate(target.elts) if _binds(part, name))
        return [
            item.elts[index] if isinstance(item, ast.Tuple) and len(item.elts) == len(target.elts) else item
            for item in iterable.elts
        ]
    return list(iterable.elts)


def english_values(source: str, path: str) -> tuple[list[Found], list[str]]:
    """The values of ``source``'s ``Reason(...)`` calls that may be English words, and the calls
    whose template is no literal (extraction cannot read it)."""
    module = Module(source)
    found: list[Found] = []
    unread: list[str] = []
    for call in ast.walk(module.tree):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "Reason"):
            continue
        first = call.args[0] if call.args else None
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            unread.append(f"{path}:{call.lineno}: Reason({ast.unparse(first) if first else ''}, ...)")
            continue
        for keyword in call.keywords:
            if keyword.arg is not None and module.wordy(keyword.value, call):
                found.append(Found(path, keyword.value.lineno, first.value, keyword.arg, ast.unparse(keyword.value)))
    return found, unread


@functools.cache
def engine_values() -> tuple[list[Found], list[str]]:
    found: list[Found] = []
    unread: list[str] = []
    for file in sorted(ENGINE.rglob("*.py")):
        path = file.relative_to(ROOT).as_posix()
        values, calls = english_values(file.read_text(encoding="utf-8"), path)
        found += values
        unread += [call for call in calls if path != "engine/reasons.py"]  # its unpickling: Reason(template, ...)
    return found, unread


def test_no_engine_refusal_has_an_english_word_as_a_value() -> None:
    found, unread = engine_values()
    left = [str(value) for value in found if (value.path, value.template, value.keyword) not in ALLOWED]
    assert left == [], "make the word a Reason (a catalogue message) or split the sentence:\n" + "\n".join(left)
    assert unread == [], "a Reason's template is a literal, or the catalogue never gets it"


def test_each_allowed_value_is_still_there() -> None:
    found, _ = engine_values()
    assert set(ALLOWED) <= {(value.path, value.template, value.keyword) for value in found}


SAMPLE = """
from engine.reasons import Reason, game_name

SIDES = ("bottom", "top")


def side(board, pending_kind, game, phase):
    for who, counts in (("bottom", 1), ("top", 2)):
        Reason("{board}: the {who} side has {counts}", board=board, who=who, counts=counts)
    pending = "a beaver" if pending_kind == "B" else "a raccoon"
    Reason("{pending} waits", pending=pending)
    what = {0: "a game to come"}.get(game.state, "a finished game")
    Reason("not {what}", what=what)
    Reason("one of {value}", value=", ".join(SIDES))
    Reason("say which: {options}", options=" or ".join(board))
    Reason("{name} is {meaning}", name=field(board, "cube"), meaning=f"up to {counts} points")
    Reason("no cube in {game}", game=game.game)
    Reason("in its {value} phase", value=game.phase.value)
    Reason("the {side} wins", side=SIDES[game.winner])


def field(text, name):
    return Reason("the {name} is {text}", name=name, text=text)


def fine(board, game, point):
    Reason("{board}: the {who} side", board=board, who=Reason("bottom"))
    Reason("point {point} of {count}", point=point, count=len(board))
    Reason("no cube in {game}", game=game_name(game.game))
    Reason("{options}", options=", ".join(str(p) for p in board))
    Reason("{value}", value=board[point])
"""


def test_the_check_finds_words_however_they_are_passed() -> None:
    found, unread = english_values(SAMPLE, "sample.py")
    assert unread == []
    assert sorted((value.line, value.keyword) for value in found) == [
        (9, "who"),
        (11, "pending"),
        (13, "what"),
        (14, "value"),
        (15, "options"),
        (16, "meaning"),
        (17, "game"),
        (18, "value"),
        (19, "side"),
        (23, "name"),
    ]
    assert english_values('Reason(template, who="x")', "t.py")[1] == ["t.py:1: Reason(template, ...)"]
