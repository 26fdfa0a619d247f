"""Run inside GNU Backgammon: ``gnubg -t -q -p gnubg_dump.py`` with
``GNUBG_JOB`` naming a JSON job and ``GNUBG_OUT`` the file for the answer.

It only reports what GNU Backgammon sees; the comparison is the test's
(tests/engine/gnubg_oracle.py). Standard library and ``gnubg`` only.

Job: ``{"matches": [{"path", "jacoby", "beavers", "cube"}, ...],
"notation": [{"position_id", "texts": [...], "moves": [[from, to, ...], ...]}, ...],
"ids": [gnubg_id, ...], "xgids": [xgid, ...]}``. Answer: per match its games
(records, info and the Position and Match ID after each record); per notation
case what ``parsemove`` reads from each text and how ``movetupletostring``
writes each move; per ID what ``set gnubgid`` makes of it, per XGID what
``set xgid`` makes of it (the Position and Match ID after it).
"""

import json
import os
from typing import Any

import gnubg  # noqa: F401  (only inside GNU Backgammon)


def on(flag):
    return "on" if flag else "off"


def states_of(game):
    """The (Position ID, Match ID) before the first record and after each."""
    states = [[gnubg.positionid(), gnubg.matchid()]]
    for _ in game["game"]:
        gnubg.navigate(next=1)
        states.append([gnubg.positionid(), gnubg.matchid()])
    return states


def dump_match(case):
    gnubg.command("set jacoby " + on(case.get("jacoby")))
    gnubg.command("set beavers " + ("3" if case.get("beavers") else "0"))
    gnubg.command("set cube use " + on(case.get("cube", True)))
    gnubg.command("import mat " + case["path"])
    match = gnubg.match(analysis=0, boards=1, statistics=0, verbose=0)
    if not match:
        return {"error": "nothing imported"}
    games = []
    gnubg.navigate()
    for number, game in enumerate(match["games"]):
        if number:
            gnubg.navigate(game=1)
        games.append({"records": list(game["game"]), "info": game["info"], "states": states_of(game)})
    return {"games": games, "info": match["match-info"]}


def dump_notation(case):
    board = gnubg.positionfromid(case["position_id"])
    parsed: list[list[list[int]] | None] = []
    for text in case["texts"]:
        try:
            parsed.append([list(pair) for pair in gnubg.parsemove(text)])
        except Exception:  # gnubg raises SystemError for what it cannot read
            parsed.append(None)
    written = [gnubg.movetupletostring(tuple(move), board) for move in case["moves"]]
    return {"parsed": parsed, "written": written}


def dump_id(gnubg_id):
    gnubg.command("new game")
    gnubg.command("set gnubgid " + gnubg_id)
    return [gnubg.positionid(), gnubg.matchid()]


def dump_xgid(xgid):
    gnubg.command("new game")
    gnubg.command("set xgid " + xgid)
    return [gnubg.positionid(), gnubg.matchid()]


def main():
    with open(os.environ["GNUBG_JOB"]) as job_file:
        job = json.load(job_file)
    answer: dict[str, list[Any]] = {"matches": [], "notation": [], "ids": [], "xgids": []}
    for player in (0, 1):  # nobody moves by itself after "new game"
        gnubg.command(f"set player {player} human")
    for case in job.get("matches", []):
        try:
            answer["matches"].append(dump_match(case))
        except Exception as error:  # report and go on: one bad file is one difference
            answer["matches"].append({"error": repr(error)})
    for case in job.get("notation", []):
        answer["notation"].append(dump_notation(case))
    for gnubg_id in job.get("ids", []):
        answer["ids"].append(dump_id(gnubg_id))
    for xgid in job.get("xgids", []):
        answer["xgids"].append(dump_xgid(xgid))
    with open(os.environ["GNUBG_OUT"], "w") as out:
        json.dump(answer, out)


main()
