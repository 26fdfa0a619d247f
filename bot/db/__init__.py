"""Database drivers behind :class:`bot.storage.Store`.

``bot.storage`` holds the one set of queries; the drivers here run them on
SQLite (:mod:`bot.db.sqlite`, aiosqlite, the embedded default) or PostgreSQL
(:mod:`bot.db.postgres`, asyncpg with a connection pool, for several bot
processes sharing one database).  :mod:`bot.db.url` picks one from a
``DATABASE_URL``; :mod:`bot.db.copy` copies a SQLite database into PostgreSQL.
"""
