"""Run inside GNU Backgammon: ``gnubg -t -q -p gnubg_pr.py`` with ``GNUBG_JOB``
naming a JSON job ``{"paths": [...], "plies": 0}`` and ``GNUBG_OUT`` the file
for the answer: per .mat file, GNU Backgammon's own match statistics after
``analyse match`` (per player name: unforced moves, close cube decisions and
the EMG error totals). Standard library and ``gnubg`` only."""

import json
import os

import gnubg  # noqa: F401  (only inside GNU Backgammon)


def main():
    job = json.load(open(os.environ["GNUBG_JOB"]))
    plies = int(job.get("plies", 0))
    gnubg.command(f"set analysis chequerplay evaluation plies {plies}")
    gnubg.command(f"set analysis cubedecision evaluation plies {plies}")
    gnubg.command("set analysis chequerplay evaluation cubeful on")
    answers = []
    for path in job["paths"]:
        gnubg.command("import mat " + path)
        gnubg.command("analyse match")
        match = gnubg.match(analysis=1, boards=0, statistics=1, verbose=0)
        info = match["match-info"]
        stats = {}
        for side in ("X", "O"):
            s = match["stats"][side]
            stats[info[side]["name"]] = {
                "unforced": s["moves"]["unforced-moves"],
                "close_cube": s["cube"]["close-cube"],
                "checker_error": s["moves"]["error-skill"],
                "cube_error": s["cube"]["error-skill"],
            }
        answers.append(stats)
    with open(os.environ["GNUBG_OUT"], "w") as out:
        json.dump(answers, out)


main()
