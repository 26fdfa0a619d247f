"""The command line (single and JSON-lines modes) and animated replays."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import GifImagePlugin, Image

from engine.gnubgid import MatchState, encode_match_id
from engine.play import Move
from engine.position import Position
from renderer import layout as L
from renderer.__main__ import main
from renderer.replay import render_replay
from renderer.scene import BoardScene

ROOT = Path(__file__).resolve().parents[2]
START_ID = Position.start().position_id()


def test_single_render_writes_the_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sub" / "board.png"
    match_id = encode_match_id(MatchState(cube=2, cube_owner=0, dice=(6, 4), match_length=5, score=(1, 3)))
    status = main(["render", "--position-id", START_ID, "--match-id", match_id, "--out", str(out)])
    assert status == 0
    assert capsys.readouterr().out.strip() == str(out)
    with Image.open(out) as image:
        assert image.format == "PNG" and image.size == L.SIZE


def test_single_render_bad_id_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["render", "--position-id", "not-an-id", "--out", str(tmp_path / "x.png")])
    assert status == 1
    assert "Position ID" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_jsonl_goes_on_after_a_bad_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [
        json.dumps({"position_id": START_ID, "dice": [3, 1], "names": ["Ann", "Bob"]}),
        "{not json",
        json.dumps({"position_id": START_ID, "dice": [9, 1]}),
        "",
        json.dumps({"position_id": START_ID, "match_id": encode_match_id(MatchState(match_length=3))}),
    ]
    status = main(["render", "--jsonl", "--out-dir", str(tmp_path)], stdin=io.StringIO("\n".join(lines) + "\n"))
    captured = capsys.readouterr()
    assert status == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["000001.png", "000005.png"]
    assert "line 2:" in captured.err and "line 3:" in captured.err
    assert "line 1:" not in captured.err and "line 5:" not in captured.err
    assert captured.out.split() == [str(tmp_path / "000001.png"), str(tmp_path / "000005.png")]


def test_jsonl_all_good_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stdin = io.StringIO(json.dumps({"position_id": START_ID}) + "\n")
    assert main(["render", "--jsonl", "--out-dir", str(tmp_path)], stdin=stdin) == 0
    assert (tmp_path / "000001.png").exists()


def test_module_runs_as_a_program(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = tmp_path / "b.png"
    done = subprocess.run(
        [sys.executable, "-m", "renderer", "render", "--position-id", START_ID, "--dice", "6", "5", "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(out)
    assert out.read_bytes().startswith(b"\x89PNG")


def test_replay_has_one_frame_per_scene() -> None:
    scenes = [
        BoardScene(Position.start(), dice=(3, 1), opening=True),
        BoardScene(Position.start().swap(), last_play=(Move(8, 5), Move(6, 5)), dice=(6, 4)),
        BoardScene(Position.start(), viewpoint=1),
    ]
    gif = render_replay(scenes, frame_ms=500)
    with Image.open(io.BytesIO(gif)) as image:
        assert isinstance(image, GifImagePlugin.GifImageFile)
        assert image.n_frames == 3
        assert image.size == L.SIZE
        assert image.info["duration"] == 500
    with pytest.raises(ValueError):
        render_replay([])
