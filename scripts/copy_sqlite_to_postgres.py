#!/usr/bin/env python3
"""Copy the bot's SQLite database into PostgreSQL and verify it (same as ``python -m bot.store.copy``).

.venv/bin/python scripts/copy_sqlite_to_postgres.py data/backgammon.sqlite3 postgresql://bg@dbhost/bg
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.store.copy import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
