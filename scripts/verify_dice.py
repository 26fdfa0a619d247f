#!/usr/bin/env python3
"""Check the dice of a finished game, with nothing but the Python standard library.

Usage: python3 verify_dice.py game-123.json

The file is what ``/bg export`` attaches as JSON: ``{"dice": {"commitment",
"nonce", "salt", "seed"}, "actions": [...]}``. The check: SHA-256 of the
revealed seed equals the commitment posted with the challenge, and every die
in the log equals HMAC-SHA256(key=seed, msg="<nonce>|<salt>:<k>") turned into
a die by taking the first byte below 252, modulo 6, plus 1 (k counts dice
from 0 in the order thrown; if all 32 bytes are 252 or more,
"<nonce>|<salt>:<k>:<j>" for j = 1, 2, ... is used the same way). The salt
holds the id Discord gave the Accept click and a hash of each player's own
seed; games without a salt use "<nonce>:<k>". Exit status 0 when everything
matches.
"""

import hashlib
import hmac
import json
import sys


def die_at(seed: bytes, nonce: str, index: int) -> int:
    attempt = 0
    while True:
        message = f"{nonce}:{index}" if attempt == 0 else f"{nonce}:{index}:{attempt}"
        for byte in hmac.new(seed, message.encode("utf-8"), hashlib.sha256).digest():
            if byte < 252:
                return byte % 6 + 1
        attempt += 1


def main(path: str) -> int:
    with open(path, encoding="utf-8") as handle:
        export = json.load(handle)
    fair = export.get("dice") or {}
    if not fair.get("seed"):
        print("the seed is not revealed yet: it is published when the game ends")
        return 1
    seed = bytes.fromhex(fair["seed"])
    if hashlib.sha256(seed).hexdigest() != fair["commitment"].lower():
        print("FAIL: the revealed seed does not match the commitment")
        return 1
    nonce = f"{fair['nonce']}|{fair['salt']}" if fair.get("salt") else fair["nonce"]
    thrown = [
        int(d) for a in export["actions"] if a.get("kind") in ("opening", "roll") and a.get("dice") for d in a["dice"]
    ]
    for index, value in enumerate(thrown):
        expected = die_at(seed, nonce, index)
        if expected != value:
            print(f"FAIL: die {index + 1} should be {expected}, the log says {value}")
            return 1
    print(f"OK: the seed matches the commitment and all {len(thrown)} dice follow from it")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
