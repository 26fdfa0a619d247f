"""A warning at start when a file with secrets or games is readable by other users.

``cp .env.example .env`` and a umask of 022 leave the token readable by every
local account; so is a database made before the bot made its files 0600.
"""

from __future__ import annotations

import logging
import stat
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger("bot.ops")


def exposed(path: str | Path) -> str | None:
    """``"group"``, ``"others"`` or ``"group and others"`` when they may read ``path`` (None: private or absent)."""
    try:
        mode = Path(path).stat().st_mode
    except OSError:
        return None
    who = [name for name, bit in (("group", stat.S_IRGRP), ("others", stat.S_IROTH)) if mode & bit]
    return " and ".join(who) or None


def warn_exposed(paths: Iterable[str | Path]) -> list[str]:
    """Log one warning per file others may read; returns the warnings."""
    warnings = []
    for path in paths:
        who = exposed(path)
        if who is not None:
            warnings.append(f"{path} is readable by {who}: chmod 600 {path}")
            log.warning("%s", warnings[-1])
    return warnings
