"""deploy/, the Dockerfile, .dockerignore and compose.yaml: checked without a daemon."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from bot import __main__ as entry
from bot.ops.shutdown import NO_RESTART
from tests.deploy.miniyaml import loads

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
UNIT = ROOT / "deploy" / "backgammon@.service"


def unit_settings() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in UNIT.read_text().splitlines():
        if line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            found.setdefault(key, []).append(value)
    return found


def test_the_unit_restarts_on_failure_but_not_on_config_errors() -> None:
    unit = unit_settings()
    assert unit["User"] == ["backgammon"]
    assert unit["Restart"] == ["on-failure"] and int(unit["RestartSec"][0]) >= 15
    assert {int(code) for code in unit["RestartPreventExitStatus"][0].split()} == set(NO_RESTART)
    assert set(NO_RESTART) == {entry.EXIT_CONFIG, entry.EXIT_LOGIN}
    for setting in ("NoNewPrivileges", "ProtectHome", "PrivateTmp"):
        assert unit[setting] == ["yes"], setting
    assert unit["ProtectSystem"] == ["strict"]
    assert unit["ReadWritePaths"] == ["/var/lib/backgammon"] and unit["UMask"] == ["0077"]
    assert unit["EnvironmentFile"][0].startswith("/etc/backgammon/")
    assert int(unit["TimeoutStopSec"][0]) > 10  # the bot's own bound is 10 s


@pytest.fixture
def testable_unit(tmp_path) -> Path:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    copy = tmp_path / "backgammon@test.service"
    text = re.sub(r"(?m)^ExecStart=.*$", f"ExecStart={sys.executable} -m bot", UNIT.read_text())
    copy.write_text(text)
    return copy


def test_systemd_analyze_verify(testable_unit) -> None:
    done = subprocess.run(["systemd-analyze", "verify", str(testable_unit)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and not done.stderr.strip() and not done.stdout.strip(), done.stderr


def test_systemd_analyze_security_exposure_is_low(testable_unit) -> None:
    done = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", "--threshold=20", str(testable_unit)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", done.stdout)
    assert found, done.stdout + done.stderr
    assert float(found[1]) <= 2.0, done.stdout
    assert done.returncode == 0


def test_the_dockerfile_is_non_root_health_checked_and_hashed() -> None:
    text = (ROOT / "Dockerfile").read_text()
    joined = re.sub(r"\\\n", " ", text)
    users = re.findall(r"(?m)^USER\s+(\S+)", joined)
    assert users and users[-1].split(":")[0] not in ("root", "0")
    assert re.search(r"(?m)^HEALTHCHECK .*CMD python -m bot check", joined)
    assert re.search(r"(?m)^FROM python:3\.(1[1-9])-slim", joined)
    installs = re.findall(r"pip install[^&|)\n]*", joined)
    assert installs and all("--require-hashes" in line for line in installs), installs
    assert re.search(r"(?m)^VOLUME /data", joined)
    assert "COPY . " not in joined and ".env" not in re.findall(r"(?m)^COPY .*", joined)


def test_dockerignore_keeps_secrets_and_data_out() -> None:
    lines = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()}
    for kept_out in (".env", "data/", ".venv/", ".git/", "secrets/", "*.sqlite3"):
        assert kept_out in lines, kept_out


def compose() -> dict:
    return loads((ROOT / "compose.yaml").read_text())


def test_compose_matches_the_compose_spec_schema() -> None:
    """compose-spec.json is compose-spec/compose-spec's schema/compose-spec.json (Apache-2.0), vendored."""
    schema = json.loads((HERE / "compose-spec.json").read_text())
    jsonschema.Draft7Validator(schema).validate(compose())  # the schema's own draft


def test_the_schema_check_can_fail() -> None:
    schema = json.loads((HERE / "compose-spec.json").read_text())
    broken = compose()
    broken["services"]["bot-0"]["restart"] = ["always"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(schema).validate(broken)


def test_compose_runs_two_bots_on_disjoint_shards_after_a_healthy_postgres() -> None:
    services = compose()["services"]
    assert "test" in services["postgres"]["healthcheck"]
    bots = [s for name, s in services.items() if name.startswith("bot-")]
    assert len(bots) == 2
    counts = {int(b["environment"]["SHARD_COUNT"]) for b in bots}
    assert counts == {2}
    shards = [int(i) for b in bots for i in b["environment"]["SHARD_IDS"].split(",")]
    assert sorted(shards) == [0, 1]  # disjoint, and every shard run
    for bot in bots:
        assert bot["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert bot["restart"] == "unless-stopped" and bot["stop_grace_period"]
        assert bot["logging"]["options"]["max-size"]
        assert "DISCORD_TOKEN" not in bot["environment"]  # a secret file, not the environment
        assert bot["environment"]["DISCORD_TOKEN_FILE"].startswith("/run/secrets/")


def test_miniyaml_refuses_what_it_cannot_read() -> None:
    assert loads("a:\n  b: [1, 'x', \"y\"]\n  c:\n    - d\n") == {"a": {"b": [1, "x", "y"], "c": ["d"]}}
    with pytest.raises(ValueError):
        loads("a: &anchor\n  b: 1\n")
