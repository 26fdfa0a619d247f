"""``python -m engine plays --jsonl``: legal plays as JSON lines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(stdin: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "engine", *(args or ("plays", "--jsonl"))],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def line(position_id: str, dice) -> str:
    return json.dumps({"position_id": position_id, "dice": dice})


def test_start_position_with_3_1_and_errors_in_one_run():
    stdin = (
        "\n".join(
            [
                line("4HPwATDgc/ABMA", [3, 1]),
                "",
                "not json",
                "   ",
                line("4HPwATDgc/ABMA", [7, 1]),
                json.dumps([1, 2]),
                line("xxxx", [3, 1]),
                json.dumps({"position_id": "4HPwATDgc/ABMA"}),
                line("4HPwATDgc/ABMA", [1, 3]),
            ]
        )
        + "\n"
    )
    result = run(stdin)
    assert result.returncode == 1
    answers = [json.loads(x) for x in result.stdout.splitlines()]
    assert len(answers) == 7  # blank lines skipped, every other line answered
    first = answers[0]["plays"]
    assert len(first) == 16
    assert {"play": "8/5 6/5", "position_id": "sGfwATDgc/ABMA"} in first
    assert len({p["position_id"] for p in first}) == 16
    assert all(set(p) == {"play", "position_id"} for p in first)
    for bad in answers[1:6]:
        assert set(bad) == {"error"} and bad["error"]
    # The line after the errors is still answered, the same as the first (dice order is irrelevant).
    assert answers[6] == answers[0]


def test_exit_status_zero_when_all_lines_succeed():
    stdin = line("4HPwATDgc/ABMA", [6, 6]) + "\n\n" + line("sGfwATDgc/ABMA", [6, 5]) + "\n"
    result = run(stdin)
    assert result.returncode == 0, result.stderr
    answers = [json.loads(x) for x in result.stdout.splitlines()]
    assert len(answers) == 2
    assert all("plays" in a and a["plays"] for a in answers)
    assert {"24/13"} <= {p["play"] for p in answers[1]["plays"]}


def test_no_play_is_a_single_empty_play():
    from engine import Position

    closed = Position.from_counts({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 8: 3})
    result = run(line(closed.position_id(), [6, 5]) + "\n")
    assert result.returncode == 0
    plays = json.loads(result.stdout)["plays"]
    assert plays == [{"play": "", "position_id": closed.swap().position_id()}]


def test_empty_input_and_usage():
    assert run("").returncode == 0
    assert run("", "plays").returncode != 0  # --jsonl is required


def test_booleans_are_not_dice():
    """``true`` is 1 to Python; the CLI refuses it as a die (once 1-1)."""
    result = run(line("4HPwATDgc/ABMA", [True, 1]) + "\n" + line("4HPwATDgc/ABMA", [1, 1]) + "\n")
    first, second = (json.loads(x) for x in result.stdout.splitlines())
    assert set(first) == {"error"} and "plays" in second
    assert result.returncode == 1
