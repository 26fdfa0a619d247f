"""Run inside GNU Backgammon: ``gnubg -t -q -p gnubg_pr.py`` with ``GNUBG_JOB``
naming a JSON job ``{"paths": [...], "plies": 0, "met": table file, "options": [{"jacoby", "beavers"}, ...]}`` and ``GNUBG_OUT`` the file
for the answer: per .mat file, GNU Backgammon's own match statistics after
``analyse match`` (per player name: unforced moves, close cube decisions and
the EMG error totals). Standard library and ``gnubg`` only."""

import json
import os

import gnubg  # noqa: F401  (only inside GNU Backgammon)

CUBE_ERRORS = (
    "missed-double-below-cp",
    "missed-double-above-cp",
    "wrong-double-below-dp",
    "wrong-double-above-tg",
    "wrong-take",
    "wrong-drop",
)


def main():
    job = json.load(open(os.environ["GNUBG_JOB"]))
    plies = int(job.get("plies", 0))
    gnubg.command(f"set analysis chequerplay evaluation plies {plies}")
    gnubg.command(f"set analysis cubedecision evaluation plies {plies}")
    # Checker plays cubeless (in EMG at match scores), as the bot grades them.
    gnubg.command("set analysis chequerplay evaluation cubeful " + ("on" if job.get("cubeful") else "off"))
    if job.get("met"):  # the table the bot's analysis grades with
        gnubg.command('set matchequitytable "' + job["met"] + '"')
    answers = []
    for number, path in enumerate(job["paths"]):
        options = (job.get("options") or [{}] * len(job["paths"]))[number]
        gnubg.command("set jacoby " + ("on" if options.get("jacoby") else "off"))
        gnubg.command("set beavers " + ("3" if options.get("beavers") else "0"))
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
                # GNU Backgammon's own total (formatgs.c): the six kinds of cube error, in EMG.
                "cube_error": sum(s["cube"][f"err-{kind}-skill"] for kind in CUBE_ERRORS),
            }
        answers.append(stats)
    with open(os.environ["GNUBG_OUT"], "w") as out:
        json.dump(answers, out)


main()
