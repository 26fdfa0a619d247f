# The bot's image: `docker build -t backgammon-bot .` (compose.yaml builds it too).
# Every dependency comes from the hashed lock (requirements/run.txt); the code is
# copied, not installed, and owned by root: the bot's user (10001) can read it only.

FROM python:3.11-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
COPY requirements/ /tmp/requirements/
# The computer opponent's engines are wheels for common platforms; without them the
# bot runs with no computer opponent and no analysis (the Makefile does the same).
RUN python -m venv /venv \
    && (/venv/bin/pip install --require-hashes -r /tmp/requirements/run.txt \
        || /venv/bin/pip install --require-hashes -r /tmp/requirements/base.txt)

FROM python:3.11-slim-bookworm
RUN useradd --system --uid 10001 --user-group --home-dir /data --no-create-home --shell /usr/sbin/nologin backgammon \
    && install -d -m 0700 -o 10001 -g 10001 /data
COPY --from=build /venv /venv
COPY engine/ /app/engine/
COPY renderer/ /app/renderer/
COPY bot/ /app/bot/
ENV PATH=/venv/bin:$PATH \
    PYTHONPATH=/app \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    DATABASE_PATH=/data/backgammon.sqlite3
WORKDIR /data
VOLUME /data
USER 10001:10001
STOPSIGNAL SIGTERM
# 0 healthy; a warning or a critical finding is unhealthy (Docker reserves exit code 2).
HEALTHCHECK --interval=60s --timeout=30s --start-period=120s --retries=3 \
    CMD python -m bot check || exit 1
CMD ["python", "-m", "bot"]
