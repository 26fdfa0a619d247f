"""Enough YAML to read compose.yaml where PyYAML is not installed: block mappings and
sequences by indentation, ``[...]`` flow sequences of scalars, quoted and plain
scalars, comments. Anything else (anchors, flow mappings, multi-line strings) is refused."""

from __future__ import annotations

import json
import re
from typing import Any

_INT = re.compile(r"^-?\d+$")


def _scalar(text: str) -> Any:
    text = text.strip()
    if text.startswith('"'):
        return json.loads(text)
    if text.startswith("'"):
        return text[1:-1].replace("''", "'")
    if text.startswith("["):
        inner = text[1:-1].strip()
        return [_scalar(part) for part in _split(inner)] if inner else []
    if text[:1] in ("{", "&", "*", "|", ">", "!"):
        raise ValueError(f"unsupported YAML: {text!r}")
    if text in ("", "~", "null"):
        return None
    if text in ("true", "false"):
        return text == "true"
    if _INT.match(text):
        return int(text)
    return text


def _split(inner: str) -> list[str]:
    parts, depth, quote, current = [], 0, "", ""
    for ch in inner:
        if quote:
            current += ch
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
            current += ch
        elif ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return [p.strip() for p in parts]


def _strip_comment(line: str) -> str:
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return line.rstrip()


def loads(text: str) -> Any:
    lines = [
        (len(raw) - len(raw.lstrip(" ")), raw.strip()) for raw in map(_strip_comment, text.splitlines()) if raw.strip()
    ]

    def block(i: int, indent: int) -> tuple[Any, int]:
        if lines[i][1].startswith("- "):
            items = []
            while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("- "):
                item = lines[i][1][2:]
                if re.search(r":( |$)", item) and not item.lstrip().startswith(('"', "'", "[")):
                    raise ValueError(f"unsupported YAML (a mapping in a list): {lines[i][1]!r}")
                items.append(_scalar(lines[i][1][2:]))
                i += 1
            return items, i
        mapping: dict[str, Any] = {}
        while i < len(lines) and lines[i][0] == indent:
            key, sep, rest = lines[i][1].partition(":")
            if not sep or (rest and not rest.startswith(" ")):
                raise ValueError(f"expected key: value, got {lines[i][1]!r}")
            key = _scalar(key)
            i += 1
            if rest.strip():
                mapping[key] = _scalar(rest)
            elif i < len(lines) and (lines[i][0] > indent or (lines[i][0] == indent and lines[i][1].startswith("- "))):
                mapping[key], i = block(i, lines[i][0])
            else:
                mapping[key] = None
        return mapping, i

    value, end = block(0, lines[0][0]) if lines else (None, 0)
    if end != len(lines):
        raise ValueError(f"unexpected indentation at {lines[end][1]!r}")
    return value
