#!/bin/sh
# Make sure GNU Backgammon (gnubg) is installed, for the oracle tests
# (tests/engine/test_gnubg.py: our .mat files imported by the real program).
# `make test` runs it.
#
# On a Debian/Ubuntu machine where gnubg is missing it installs Debian's
# `gnubg` package (apt-get update + install, as root or with passwordless
# sudo). It never fails the build: wherever that is not possible it says so
# and exits 0, and the oracle tests skip with the reason (set
# BG_REQUIRE_GNUBG=1 to make them fail instead). GNUBG names the program if
# it is somewhere else.
set -u

found() {
    if [ -n "${GNUBG:-}" ] && [ -x "$GNUBG" ]; then
        echo "$GNUBG"; return 0
    fi
    if command -v gnubg >/dev/null 2>&1; then
        command -v gnubg; return 0
    fi
    if [ -x /usr/games/gnubg ]; then
        echo /usr/games/gnubg; return 0
    fi
    return 1
}

if program=$(found); then
    echo "gnubg: $program"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "gnubg: not found and apt-get is not available;" \
         "install GNU Backgammon (or set GNUBG) to run the oracle tests - they will be skipped" >&2
    exit 0
fi

SUDO=""
if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        echo "gnubg: missing; run 'sudo apt-get install gnubg' (needs root)" \
             "to run the oracle tests - they will be skipped" >&2
        exit 0
    fi
fi

echo "gnubg: installing Debian's gnubg package (apt-get)"
if ! { $SUDO apt-get update -qq && \
       $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gnubg >/dev/null; }; then
    echo "gnubg: apt-get could not install gnubg; the oracle tests will be skipped" >&2
    exit 0
fi

if program=$(found); then
    echo "gnubg: $program"
else
    echo "gnubg: apt-get installed gnubg but the program is still missing; the oracle tests will be skipped" >&2
fi
exit 0
