#!/bin/sh
# Make sure the PostgreSQL server binaries (initdb, pg_ctl, postgres) are
# installed, for the PostgreSQL half of the storage tests. `make test` runs it.
#
# The tests start their own throw-away server (initdb into a temporary
# directory, private port); this script only installs the binaries. On a
# Debian/Ubuntu machine where they are missing it installs Debian's
# `postgresql` package (apt-get update + install, as root or with
# passwordless sudo) without creating or starting the system cluster.
# Elsewhere it prints how to get them and exits 0: the PostgreSQL tests then
# skip with that reason (set BG_REQUIRE_POSTGRES=1 to make them fail instead).
set -eu

found() {
    if [ -n "${PG_BIN:-}" ] && [ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/pg_ctl" ]; then
        echo "$PG_BIN"; return 0
    fi
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n -r); do
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && [ -x "$dir/postgres" ]; then
            echo "$dir"; return 0
        fi
    done
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(command -v pg_ctl)"; return 0
    fi
    return 1
}

if dir=$(found); then
    echo "postgres: server binaries in $dir"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "postgres: initdb/pg_ctl not found and apt-get is not available;" \
         "install the PostgreSQL server (or set PG_BIN) to run the PostgreSQL tests - they will be skipped" >&2
    exit 0
fi

SUDO=""
if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        echo "postgres: server binaries missing; run 'sudo apt-get install postgresql' (needs root)" \
             "to run the PostgreSQL tests - they will be skipped" >&2
        exit 0
    fi
fi

echo "postgres: installing Debian's postgresql package (apt-get)"
# Do not create (and start) the system's "main" cluster: the tests use their own.
if [ ! -e /etc/postgresql-common/createcluster.conf ]; then
    $SUDO mkdir -p /etc/postgresql-common
    echo "create_main_cluster = false" | $SUDO tee /etc/postgresql-common/createcluster.conf >/dev/null
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null

if dir=$(found); then
    echo "postgres: server binaries in $dir"
else
    echo "postgres: apt-get installed postgresql but initdb/pg_ctl are still missing" >&2
    exit 1
fi
