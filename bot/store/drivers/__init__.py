"""Database drivers: the one set of queries of :mod:`bot.store` runs on SQLite
(:mod:`.sqlite`, the embedded default) or PostgreSQL (:mod:`.postgres`, an
asyncpg pool, for several bot processes sharing one database). :mod:`.url`
picks one from a ``DATABASE_URL``. Each driver turns its library's errors into
:mod:`bot.store.errors`, so nothing above it imports sqlite3 or asyncpg.
"""
