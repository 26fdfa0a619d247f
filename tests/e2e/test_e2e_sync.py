"""``python -m bot sync`` against the stand-in: the commands are synced on request, once,
globally, and the process says how many and exits (to ``DEV_GUILD_ID``:
tests/bot/test_entry.py)."""

from __future__ import annotations

import asyncio
import sys

from tests.e2e.botproc import LAUNCHER, REAL_BOT, BotProcess

TOP_LEVEL = ["bg", "bgtools", "patience", "bgtourney", "bglearn", "bgclub", "Show board"]


async def sync(fake, tmp_path, dev_guild: str) -> tuple[int, str, str]:
    env = BotProcess(fake, tmp_path).env()
    env["DEV_GUILD_ID"] = dev_guild
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        *LAUNCHER,
        REAL_BOT,
        "sync",
        cwd=str(tmp_path),
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_python_m_bot_sync_syncs_the_global_commands_and_exits(fake, tmp_path):
    code, out, err = await sync(fake, tmp_path, dev_guild="")
    assert code == 0, err
    assert out.strip() == f"synced {len(TOP_LEVEL)} commands globally"
    assert not fake.identifies  # logged in over HTTP only: no gateway session, no shard started
    (put,) = fake.command_puts  # one sync
    assert put[0] is None and not fake.guild_commands
    assert [c["name"] for c in fake.global_commands] == TOP_LEVEL
    assert not fake.unhandled and not fake.violations
