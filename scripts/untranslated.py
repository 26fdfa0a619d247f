"""List the English text in the code that may reach a member without the catalogue.

``python -m scripts.untranslated [path ...]`` (default: ``bot/core`` and
``bot/discord``) parses each module with :mod:`ast` and prints every string
literal with words in it that is not marked for the catalogue (``_``,
``ngettext``, ``pgettext``, ``N_``, ``Said`` ...), not a docstring, not a log
line, not an operator's exception, and not a key, a name or a pattern (a
``custom_id``, a task's name, a comparison, a dictionary key). What it prints
is a candidate, not a verdict: a text a member reads is wrapped; a word only
code reads is left. ``tests/i18n/test_untranslated.py`` holds the modules
already wrapped to none.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ("bot/core", "bot/discord")

MARKERS = {"_", "N_", "ngettext", "pgettext", "npgettext", "Said", "said_n", "gettext"}
"""Calls whose string arguments are catalogue messages."""
LOGGERS = {"log", "logger", "logging", "_log", "LOG", "warnings"}
"""Objects whose calls write for the operator (``log.warning(...)``)."""
OPERATOR = {
    "ValueError",
    "TypeError",
    "RuntimeError",
    "AssertionError",
    "KeyError",
    "LookupError",
    "NotImplementedError",
    "OSError",
    "SystemExit",
    "ImportError",
    "NotDelivered",  # a delivery the outbox retries: logged
    "AlreadyShown",
    "SnapshotError",
    "Gauge",  # the operator's metrics
    "Counter",
    "Histogram",
    "Summary",
    "level",
    "slow_level",
    "TypeVar",
    "get_cog",
}
"""Exceptions meant for the operator (a member never reads them)."""
CODE_KEYWORDS = {
    "custom_id",
    "name_prefix",
    "thread_name_prefix",
    "format",
    "style",
    "mode",
    "encoding",
    "sep",
    "end",
    "reason",  # Discord's audit log: the operator's
    "help",  # argparse: the operator's
    "metavar",
    "prog",
    "filename",
    "group_name",
    "group_description",  # a command's description: the command tree's texts go to the catalogue at sync
}
COMMAND_TEXTS = {"command", "describe", "Choice", "Group", "context_menu", "rename", "choices", "group"}
"""Calls that make the command tree: its descriptions and choices are translated at sync (bot/discord/translator.py)."""
"""Keyword arguments that carry code's words, not a member's."""
WORDS = re.compile(r"[A-Za-z]{2,}")
CODE_SPAN = re.compile(r"`[^`]*`")
FILE_NAME = re.compile(r"[\w{}<>.-]+\.(?:png|gif|json|mat|txt|csv)")
DATE_PATTERN = re.compile(r"[EdMyHhmsa ,.:]+")
"""A CLDR date pattern ("EEE d MMM HH:mm")."""
SPACE_WORDS = re.compile(r"[A-Za-z]{2,}(?:[ ,:!?']+|\.\s+)[A-Za-z]{2,}")


@dataclass(frozen=True)
class Candidate:
    path: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text!r}"


def _called(node: ast.Call) -> str:
    function = node.func
    if isinstance(function, ast.Name):
        return function.id
    if isinstance(function, ast.Attribute):
        return function.attr
    return ""


def _owner(node: ast.Call) -> str:
    function = node.func
    while isinstance(function, ast.Attribute):
        function = function.value
    if isinstance(function, ast.Call):
        return _owner(function)
    return function.id if isinstance(function, ast.Name) else ""


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstrings' nodes (a module's, a class's, a function's, and an attribute's below it)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for index, statement in enumerate(body):
            is_string = (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Constant)
                and isinstance(statement.value.value, str)
            )
            if is_string and (
                index == 0
                or isinstance(body[index - 1], (ast.Assign, ast.AnnAssign, ast.FunctionDef, ast.ClassDef))
                or id(getattr(body[index - 1], "value", None)) in found  # a second docstring below the first
            ):
                found.add(id(statement.value))
    return found


def _skipped(tree: ast.AST) -> set[int]:
    """ids of the nodes under a marked call, a log line, an operator's exception, a code keyword,
    a comparison, a subscript, a dictionary's key or a type annotation."""
    skipped: set[int] = set()

    def skip(node: ast.AST | None) -> None:
        if node is not None:
            skipped.update(id(inner) for inner in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            called = _called(node)
            if called in MARKERS | COMMAND_TEXTS or _owner(node) in LOGGERS or called in OPERATOR:
                skip(node)
            for keyword in node.keywords:
                if keyword.arg in CODE_KEYWORDS:
                    skip(keyword.value)
            if called in {"getattr", "setattr", "hasattr", "get", "pop", "setdefault", "startswith", "endswith"}:
                for argument in node.args[:2]:
                    skip(argument)
            if called in {"compile", "match", "search", "fullmatch", "sub", "split", "findall", "strftime", "strptime"}:
                for argument in node.args[:1]:
                    skip(argument)
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and _called(node.exc) in OPERATOR:
            skip(node.exc)
        elif isinstance(node, ast.Assert):
            skip(node.msg)
        elif isinstance(node, ast.Compare):
            skip(node)
        elif isinstance(node, ast.Subscript):
            skip(node.slice)
        elif isinstance(node, ast.Dict):
            for key in node.keys:
                skip(key)
        elif isinstance(node, (ast.AnnAssign, ast.arg)):
            skip(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            skip(node.returns)
            for decorator in node.decorator_list:
                skip(decorator)
        elif isinstance(node, ast.ClassDef):
            for keyword in node.keywords:
                skip(keyword)
        elif isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id in {"__all__", "__slots__"} for target in node.targets
        ):
            skip(node.value)
    return skipped


def _worded(text: str) -> bool:
    """A text with words a member could read: two words apart, or one capitalised word
    (not a constant's or a column's name, not a path, an address, a file's name, a code span or a format)."""
    if CODE_SPAN.fullmatch(text) or FILE_NAME.fullmatch(text) or DATE_PATTERN.fullmatch(text):
        return False
    if "://" in text or text.startswith(("/", "%", "bg-", "bg:", "SELECT", "INSERT", "UPDATE", "DELETE", "CREATE")):
        return False
    if SPACE_WORDS.search(text.replace("{}", " ")):
        return True
    words = WORDS.findall(text)
    return len(words) == 1 and text.strip()[:1].isupper() and not text.strip().isupper() and "_" not in text


def candidates(path: Path) -> Iterator[Candidate]:
    """The unmarked worded strings of one module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    ignored = _docstrings(tree) | _skipped(tree)
    name = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
    for node in ast.walk(tree):
        if id(node) in ignored:
            continue
        if isinstance(node, ast.JoinedStr):
            text = "".join(
                part.value if isinstance(part, ast.Constant) and isinstance(part.value, str) else "{}"
                for part in node.values
            )
            ignored.update(id(part) for part in node.values)
            if _worded(text):
                yield Candidate(name, node.lineno, text)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _worded(node.value):
            yield Candidate(name, node.lineno, node.value)


def scan(paths: list[str]) -> list[Candidate]:
    found: list[Candidate] = []
    for given in paths:
        path = ROOT / given if not Path(given).is_absolute() else Path(given)
        modules = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for module in modules:
            found += sorted(candidates(module), key=lambda candidate: candidate.line)
    return found


def main(argv: list[str]) -> int:
    found = scan(argv or list(DEFAULT))
    for candidate in found:
        print(candidate)
    print(f"{len(found)} candidates", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
