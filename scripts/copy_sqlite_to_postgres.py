#!/usr/bin/env python3
"""Copy the bot's SQLite database into PostgreSQL and verify it (same as ``python -m bot.store.copy``).

.venv/bin/python -m scripts.copy_sqlite_to_postgres data/backgammon.sqlite3 postgresql://bg@dbhost/bg
"""

from bot.store.copy import main

if __name__ == "__main__":
    raise SystemExit(main())
