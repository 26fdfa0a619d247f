"""The Makefile checks Python and venv before installing anything, and makes .env private."""

from __future__ import annotations

import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def shim(tmp_path: Path, body: str) -> Path:
    """A fake ``python`` that records each call in calls.txt."""
    path = tmp_path / "python-shim"
    path.write_text(f'#!/bin/sh\necho "$@" >> {tmp_path}/calls.txt\n{body}\n')
    path.chmod(0o755)
    return path


def make(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "requirements").mkdir(exist_ok=True)
    for name in (
        "pyproject.toml",
        "requirements/bootstrap.txt",
        "requirements/run.txt",
        "requirements/base.txt",
        "requirements/test.txt",
    ):
        (tmp_path / name).touch()  # what the install rules depend on
    return subprocess.run(
        ["make", "-s", "-f", str(ROOT / "Makefile"), "-C", str(tmp_path), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_an_old_python_stops_before_any_install(tmp_path) -> None:
    python = shim(tmp_path, 'case "$1" in -V) echo "Python 3.10.12"; exit 0;; esac\nexit 1')
    done = make(tmp_path, f"PYTHON={python}", "run")
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert "Python 3.11 or newer" in lines[0] and "Python 3.10.12" in lines[0] and "apt install" in lines[0]
    calls = (tmp_path / "calls.txt").read_text()
    assert "venv" not in calls.replace("import ensurepip, venv", "") and "pip" not in calls
    assert not (tmp_path / ".venv").exists()


def test_a_python_without_venv_names_the_apt_package(tmp_path) -> None:
    real = sys.executable
    python = shim(
        tmp_path,
        f'case "$2" in *ensurepip*) exit 1;; esac\nexec {real} "$@"',
    )
    done = make(tmp_path, f"PYTHON={python}", "run")
    assert done.returncode != 0
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert f"sudo apt install python{version}-venv" in done.stderr
    assert not (tmp_path / ".venv").exists()


def test_make_env_creates_a_private_env(tmp_path) -> None:
    shutil.copy(ROOT / ".env.example", tmp_path / ".env.example")
    done = make(tmp_path, "env")
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE((tmp_path / ".env").stat().st_mode) == 0o600
    assert (tmp_path / ".env").read_text() == (ROOT / ".env.example").read_text()
