"""Database backends for the tests: SQLite files and a private PostgreSQL server.

Fixtures
--------
``backend``
    Parametrised ``"sqlite"`` / ``"postgres"``: a test that asks for it (or
    for ``db_url`` / ``store_factory``) runs once per backend.
``db_url``
    A fresh, empty database for this test: a SQLite file path, or the URL
    of a new database on the session's PostgreSQL server.
``store_factory``
    ``await store_factory(clock=..., migrate_to=...)`` opens a
    :class:`bot.store.Store` on ``db_url`` (call it twice for two
    connections/pools on one database); all are closed after the test.
``pg_server``
    The session's PostgreSQL server (:class:`PgServer`): ``initdb`` into a
    temporary directory, ``pg_ctl start`` on a free port of 127.0.0.1 with
    the unix socket in that directory, trust auth, ``fsync=off``.  Stopped
    and deleted at the end of the session.  It never touches a system
    database or a system server.

If the PostgreSQL server binaries are missing the ``postgres`` variants skip
(with the reason), unless ``BG_REQUIRE_POSTGRES=1`` (set by ``make test``,
which installs them) turns that into a failure.  ``PG_BIN`` names the folder
of ``initdb``/``pg_ctl`` if they are not on ``PATH`` or in
``/usr/lib/postgresql/*/bin`` (an empty ``PG_BIN=`` skips the PostgreSQL
tests).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

BACKENDS = ("sqlite", "postgres")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests marked slow first (the order is otherwise kept): with several workers
    (pytest-xdist), a minute-long test started last makes every other worker wait for it."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


# The bots' drawing and analysis workers (and those of the bot processes the e2e tests start) at
# the tests' own priority: the suite runs more pytest workers than cores, and workers lowered
# below them waited for a core (an analysis in the idle class got none: SimCord's settle timed out).
# The tests of the lowering itself set it back to "low".
os.environ["WORKER_PRIORITY"] = "normal"


def find_pg_bin() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``, or None."""
    candidates: list[str] = []
    if "PG_BIN" in os.environ:  # explicit: only there (PG_BIN= skips the PostgreSQL tests)
        candidates = [os.environ["PG_BIN"]] if os.environ["PG_BIN"] else []
        return next((Path(c) for c in candidates if _has_server(Path(c))), None)
    on_path = shutil.which("pg_ctl")
    if on_path:
        candidates.append(str(Path(on_path).resolve().parent))
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version_key, reverse=True)
    for folder in candidates:
        if _has_server(Path(folder)):
            return Path(folder)
    return None


def _has_server(p: Path) -> bool:
    return (p / "initdb").exists() and (p / "pg_ctl").exists() and (p / "postgres").exists()


def _version_key(path: str) -> float:
    try:
        return float(Path(path).parent.name)
    except ValueError:
        return 0.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgServer:
    """A throw-away PostgreSQL cluster in a temporary directory."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="bg-pg-"))
        self.data = self.root / "data"
        self.socket_dir = self.root / "sock"
        self.logfile = self.root / "server.log"
        self.port = _free_port()
        self.user = "postgres"
        self._run_as: list[str] = []
        self._counter = itertools.count(1)
        if os.geteuid() == 0:  # initdb/postgres refuse to run as root
            try:
                account = pwd.getpwnam("postgres")
            except KeyError:
                pytest.skip("running as root and there is no 'postgres' user to run the test server")
            runuser = shutil.which("runuser") or shutil.which("setpriv")
            if runuser is None:
                pytest.skip("running as root and neither runuser nor setpriv is available")
            if runuser.endswith("runuser"):
                self._run_as = [runuser, "-u", "postgres", "--"]
            else:
                self._run_as = [runuser, f"--reuid={account.pw_uid}", f"--regid={account.pw_gid}", "--clear-groups"]
            os.chown(self.root, account.pw_uid, account.pw_gid)
        self.socket_dir.mkdir()
        if self._run_as:
            os.chown(self.socket_dir, pwd.getpwnam("postgres").pw_uid, pwd.getpwnam("postgres").pw_gid)

    # ---------------------------------------------------------------- control

    def _cmd(self, *args: str, timeout: float = 120) -> None:
        result = subprocess.run([*self._run_as, *args], capture_output=True, text=True, timeout=timeout, cwd=self.root)
        if result.returncode != 0:
            raise RuntimeError(
                f"{' '.join(args)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}\n{self.log_tail()}"
            )

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.logfile.read_text().splitlines()[-lines:])
        except OSError:
            return ""

    def initdb(self) -> None:
        self._cmd(
            str(self.bin_dir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            self.user,
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
            "--locale=C",
        )

    @property
    def _options(self) -> str:
        settings = {
            "port": str(self.port),
            "listen_addresses": "127.0.0.1",
            "unix_socket_directories": str(self.socket_dir),
            "fsync": "off",
            "full_page_writes": "off",
            "max_connections": "200",
            "shared_buffers": "32MB",
        }
        return " ".join(f"-c {k}={v}" for k, v in settings.items())

    def start(self) -> None:
        self._cmd(
            str(self.bin_dir / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.logfile),
            "-w",
            "-t",
            "60",
            "-o",
            self._options,
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        self._cmd(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-w", "-m", mode, "stop")

    def restart(self, mode: str = "fast") -> None:
        self._cmd(
            str(self.bin_dir / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.logfile),
            "-w",
            "-t",
            "60",
            "-m",
            mode,
            "-o",
            self._options,
            "restart",
        )

    def cleanup(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self.stop("immediate")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    # ---------------------------------------------------------------- databases

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    async def admin(self, *statements: str) -> list[Any]:
        import asyncpg

        conn = await asyncpg.connect(self.url("postgres"), timeout=30)
        try:
            return [await conn.fetch(sql) for sql in statements]
        finally:
            await conn.close()

    def admin_sync(self, *statements: str) -> list[Any]:
        """Run admin statements (works inside a running event loop too: own thread)."""
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, self.admin(*statements)).result()

    def create_database(self) -> tuple[str, str]:
        """A new empty database: ``(name, url)``."""
        name = f"bg_test_{os.getpid()}_{next(self._counter)}"
        self.admin_sync(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return name, self.url(name)

    def drop_database(self, name: str) -> None:
        try:
            self.admin_sync(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        except Exception:  # noqa: BLE001 - the whole cluster is deleted at the end anyway
            pass


def _postgres_missing(reason: str) -> None:
    if os.environ.get("BG_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"BG_REQUIRE_POSTGRES=1 but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One private PostgreSQL server for the whole test session."""
    try:
        import asyncpg  # noqa: F401
    except ImportError:
        _postgres_missing("asyncpg is not installed (pip install -e '.[test]')")
    bin_dir = find_pg_bin()
    if bin_dir is None:
        _postgres_missing(
            "PostgreSQL server binaries (initdb, pg_ctl, postgres) not found: "
            "`make test` installs Debian's postgresql package, or set PG_BIN"
        )
        raise AssertionError("unreachable")
    server = PgServer(bin_dir)
    try:
        server.initdb()
        server.start()
    except Exception as exc:
        server.cleanup()
        _postgres_missing(f"could not start a private PostgreSQL server: {exc}")
    try:
        yield server
    finally:
        server.cleanup()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """``"sqlite"`` or ``"postgres"`` (the postgres variant starts the session server)."""
    if request.param == "postgres":
        request.getfixturevalue("pg_server")
    return str(request.param)


@pytest.fixture
def db_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh empty database for this test (SQLite file path or PostgreSQL URL)."""
    if backend == "sqlite":
        yield str(tmp_path / "db" / "bg.sqlite3")
        return
    server: PgServer = request.getfixturevalue("pg_server")
    name, url = server.create_database()
    try:
        yield url
    finally:
        server.drop_database(name)


@pytest.fixture
def new_db_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Any]:
    """``new_db_url()`` -> one more fresh database of the test's backend."""
    made: list[str] = []
    counter = itertools.count(1)

    def make() -> str:
        if backend == "sqlite":
            return str(tmp_path / f"extra{next(counter)}" / "bg.sqlite3")
        server: PgServer = request.getfixturevalue("pg_server")
        name, url = server.create_database()
        made.append(name)
        return url

    yield make
    if made:
        server: PgServer = request.getfixturevalue("pg_server")
        for name in made:
            server.drop_database(name)


@pytest.fixture
async def store_factory(db_url: str) -> AsyncIterator[Any]:
    """``await store_factory(**open_kwargs)`` -> a Store on this test's database."""
    from bot.store import open_store

    opened: list[Any] = []

    async def make(**kwargs: Any) -> Any:
        store = await open_store(db_url, **kwargs)
        opened.append(store)
        return store

    try:
        yield make
    finally:
        for store in opened:
            await store.close()


def wait_until(predicate: Any, timeout: float = 10.0, interval: float = 0.02) -> bool:
    """Poll ``predicate()`` until true or ``timeout`` seconds passed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return bool(predicate())
