"""Reading .mat files back (engine/mat_import.py): our exports and GNU Backgammon's
re-exports give the same moves, dice and cube; anything else is refused with the
first bad line, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Game
from engine.mat import export_games
from engine.mat_import import MAX_BYTES, MatImportError, read_mat
from tests.engine.gnubg_oracle import find_gnubg, random_match, random_session, run_gnubg

COMPARED = ("opening", "roll", "play", "double", "take", "pass", "beaver")
NAMES = ("Alice", "Bob")


def trail(game: Game) -> list[tuple]:
    """Each roll, play and cube action with who made it, the dice, the position and cube after it."""
    replay = Game(game.settings, score=game.score, crawford=game.crawford)
    out = []
    for action in game.log:
        replay.apply(action)
        if action.kind == "opening" and action.dice and action.dice[0] == action.dice[1]:
            continue  # a tied opening throw is thrown again: a .mat writes only the one that counts
        if action.kind in COMPARED:
            # A .mat writes a roll's higher die first; the dice are the same throw.
            dice = tuple(sorted(action.dice, reverse=True)) if action.kind == "roll" and action.dice else action.dice
            out.append((action.kind, action.player, dice, replay.position.position_id(), replay.cube_value))
    return out


def differences(originals: list[Game], imported: list[Game]) -> list[str]:
    if len(originals) != len(imported):
        return [f"{len(imported)} games read, {len(originals)} written"]
    found = []
    for number, (ours, theirs) in enumerate(zip(originals, imported, strict=True), start=1):
        if trail(ours) != trail(theirs):
            found.append(f"game {number}: moves, dice or cube differ")
        assert ours.result is not None
        assert theirs.result is not None
        if (ours.result.winner, ours.result.points) != (theirs.result.winner, theirs.result.points):
            found.append(f"game {number}: {ours.result} read as {theirs.result}")
        if ours.score != theirs.score:
            found.append(f"game {number}: score {ours.score} read as {theirs.score}")
    return found


def plain_session(seed: int):
    """A money session with no set-up game (a .mat cannot say where a set-up game starts)."""
    sample = random_session(seed)
    return sample if not any(a.kind == "setup" for g in sample.games for a in g.log) else None


@pytest.mark.parametrize("seed", range(1, 9))
def test_our_exports_read_back_identically(seed: int) -> None:
    sample = random_match(seed)
    text = export_games(sample.games, NAMES, match_length=sample.length)
    match = read_mat(text)
    assert match.length == sample.length and match.names == NAMES
    assert differences(sample.games, match.games) == []


def test_gnubg_re_exports_read_back_identically(tmp_path: Path) -> None:
    program = find_gnubg()
    if program is None:
        pytest.skip("GNU Backgammon (gnubg) is not installed")
    samples = [random_match(seed) for seed in (11, 12, 13, 14)]
    samples += [s for s in (plain_session(seed) for seed in range(20, 40)) if s is not None][:3]
    job = []
    for i, sample in enumerate(samples):
        path = tmp_path / f"ours{i}.mat"
        path.write_text(export_games(sample.games, NAMES, match_length=sample.length))
        job.append({"path": str(path), "out": str(tmp_path / f"gnubg{i}.mat"), **sample.gnubg_options})
    run_gnubg(program, {"matches": job}, tmp_path, script="gnubg_export.py")
    sessions = 0
    for i, sample in enumerate(samples):
        match = read_mat((tmp_path / f"gnubg{i}.mat").read_text())
        sessions += match.length == 0
        assert differences(sample.games, match.games) == [], i
    assert sessions >= 1


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("", 1, "no match length"),
        ("hello\n", 1, "expected the match length"),
        (" 3 point match\n\n Game 1\n A : 0   B : 0\n  1) 52: 13/11 13/8\n", 5, "does not end"),
        (" 3 point match\n Game 1\n A : 0                 B : 0\n  1) 52: 13/11 13/9\n", 4, "13/11 13/9"),
        (" 3 point match\n Game 1\n A : 0                 B : 0\n  1) 55: 13/8 13/8\n", 4, "double"),
        (" 3 point match\n Game 1\n A : 4                 B : 0\n", 3, "a score of 4-0"),
        (" 3 point match\n Game 1\n A : 0                 B : 0\n  1) 52: 13/11 13/8 rm -rf\n", 4, "cannot read"),
    ],
)
def test_bad_files_name_their_first_bad_line(text: str, line: int, words: str) -> None:
    with pytest.raises(MatImportError) as refused:
        read_mat(text)
    assert refused.value.line == line and words in str(refused.value)


def test_too_large_a_file_is_refused_unread() -> None:
    with pytest.raises(MatImportError, match="larger than"):
        read_mat(b" 1 point match\n" + b" " * MAX_BYTES)


VALID = export_games(random_match(3).games, NAMES, match_length=random_match(3).length)


@settings(max_examples=60, deadline=None)  # bench/fuzz_mat_import.py runs 1,000
@given(st.data())
def test_fuzzed_files_give_only_the_clear_refusal(data: st.DataObject) -> None:
    lines = VALID.splitlines()
    for _ in range(data.draw(st.integers(1, 4))):
        where = data.draw(st.integers(0, len(lines) - 1))
        how = data.draw(st.sampled_from(["drop", "garble", "insert", "swap"]))
        if how == "drop":
            del lines[where]
        elif how == "garble":
            line = lines[where]
            at = data.draw(st.integers(0, max(len(line) - 1, 0)))
            lines[where] = line[:at] + data.draw(st.text(max_size=5)) + line[at + 1 :]
        elif how == "insert":
            lines.insert(where, data.draw(st.text(max_size=40)))
        else:
            other = data.draw(st.integers(0, len(lines) - 1))
            lines[where], lines[other] = lines[other], lines[where]
        if not lines:
            break
    try:
        read_mat("\n".join(lines))
    except MatImportError as refused:
        assert refused.line >= 1 and str(refused).startswith(f"line {refused.line}: ")
