"""``python -m engine patience solve``: one JSON line for a best layout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.patience import AMERICAN, HOYLE_DEAL, Card, Cell, Layout, best_score

ROOT = Path(__file__).resolve().parents[2]
HOYLE = "D6 S5 CQ DQ HQ H10 C10 H6 C3 HJ HA H5 H8 HK SQ H4 C2 D2 H7 SJ S3 H3 D3 S6 H2"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "engine", "patience", "solve", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def check_answer(answer: dict) -> Layout:
    """The answer for Hoyle's deal: its grid and path agree with each other and
    with the deal, and the path obeys the rule (Layout checks it)."""
    assert set(answer) == {"score", "grid", "path"}
    assert len(answer["grid"]) == 5 and all(len(row) == 5 for row in answer["grid"])
    assert len(answer["path"]) == 25
    for card, (row, col) in zip(HOYLE.split(), answer["path"]):
        assert answer["grid"][row][col] == card
    return Layout(HOYLE_DEAL, tuple(Cell(r, c) for r, c in answer["path"]))


def test_hoyles_deal_scores_81() -> None:
    result = run("--deal", HOYLE)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    answer = json.loads(lines[0])
    assert answer["score"] == 81
    assert check_answer(answer).score() == 81


def test_hoyles_own_spelling_and_the_american_table() -> None:
    spelled = ", ".join(f"{c[0]}.{' ace' if c[1:] == 'A' else c[1:]}" for c in HOYLE.split())
    result = run("--deal", spelled, "--scoring", "american")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["score"] == best_score(HOYLE_DEAL, AMERICAN)
    assert check_answer(answer).score(AMERICAN) == answer["score"]
    assert json.loads(run("--deal", HOYLE, "--scoring", "english").stdout)["score"] == 81


@pytest.mark.parametrize(
    ("deal", "message"),
    [
        ("D6 S5 X9 " + " ".join(HOYLE.split()[3:]), "'X9' is not a card"),
        (" ".join(HOYLE.split()[:24]), "25 cards, not 24"),
        (HOYLE + " SA", "25 cards, not 26"),
        (" ".join(HOYLE.split()[:24] + ["D6"]), "repeated: D6"),
        ("", "25 cards, not 0"),
    ],
)
def test_a_bad_deal_is_an_error_line_and_status_1(deal: str, message: str) -> None:
    result = run("--deal", deal)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    answer = json.loads(lines[0])
    assert set(answer) == {"error"} and message in answer["error"]


def test_usage_errors() -> None:
    assert run().returncode == 2  # --deal is required
    assert run("--deal", HOYLE, "--scoring", "french").returncode == 2
    missing = subprocess.run(
        [sys.executable, "-m", "engine", "patience"], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert missing.returncode == 2


def test_the_answer_in_process() -> None:
    from engine.patience.cli import layout_json, solve_answer

    assert solve_answer(HOYLE)["score"] == 81
    assert solve_answer(HOYLE, "nope") == {"error": "no score table 'nope': choose english or american"}
    partial = Layout.parse(HOYLE_DEAL, "D4 E4")
    as_json = layout_json(partial, AMERICAN)
    assert as_json["grid"][3][3] == str(Card.parse("D6")) and as_json["grid"][0][0] is None
    assert as_json["path"] == [[3, 3], [3, 4]] and as_json["score"] == 0
