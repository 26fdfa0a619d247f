"""Run inside GNU Backgammon: ``gnubg -t -q -p gnubg_export.py`` with ``GNUBG_JOB``
naming a JSON job ``{"matches": [{"path", "out", "jacoby", "beavers"}, ...]}``: each
``.mat`` is imported and exported again by GNU Backgammon (``export match mat``).
``GNUBG_OUT`` gets ``{"done": n}``. Standard library and ``gnubg`` only."""

import json
import os

import gnubg  # noqa: F401  (only inside GNU Backgammon)


def main():
    job = json.load(open(os.environ["GNUBG_JOB"]))
    for case in job["matches"]:
        gnubg.command("set jacoby " + ("on" if case.get("jacoby") else "off"))
        gnubg.command("set beavers " + ("3" if case.get("beavers") else "0"))
        gnubg.command("import mat " + case["path"])
        gnubg.command('export match mat "' + case["out"] + '"')
    with open(os.environ["GNUBG_OUT"], "w") as out:
        json.dump({"done": len(job["matches"])}, out)


main()
