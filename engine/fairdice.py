"""Provably fair dice: every die comes from a secret seed committed in advance,
mixed with a salt the bot cannot choose.

The scheme (also in the README and in ``scripts/verify_dice.py``):

1. When a challenge is made, a 32-byte secret ``seed`` is drawn from the
   operating system's secure generator, and its commitment ``SHA-256(seed)``
   (hex) is published with the challenge, together with a public ``nonce``.
2. When the challenge is accepted, a public ``salt`` is fixed from what the
   bot could not know when it committed: the id Discord gave the Accept click,
   and the seeds the players chose (if any). The dice use the *salted nonce*
   ``f"{nonce}|{salt}"`` (:func:`salted`); without a salt (games from before,
   or with nothing to mix in) the nonce alone.
3. Die number ``k`` (0, 1, 2, ... in the order the dice are thrown, opening
   throws included, player 0's die first) is
   ``HMAC-SHA256(key=seed, msg=f"{salted nonce}:{k}")``: the first byte below
   252 gives ``byte % 6 + 1``. (252 is the largest multiple of 6 below 256, so
   every face is equally likely; the bytes from 252 up are rejected.) If all
   32 bytes are rejected, the message ``f"{salted nonce}:{k}:{j}"`` for
   j = 1, 2, ... is used the same way.
4. When the game ends the seed is revealed; anyone can check that it matches
   the commitment and recompute every die.

The seed cannot change after the commitment (another seed would not hash to
it), and it was fixed before the salt existed: the bot could not pick a seed
that gives good dice for the salt, nor the salt for the seed.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

SEED_BYTES = 32
_LIMIT = 252  # the largest multiple of 6 that fits in a byte


def new_seed() -> bytes:
    """A fresh secret seed from the operating system's secure generator."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    """The public commitment to a seed: SHA-256, hex."""
    return hashlib.sha256(seed).hexdigest()


def salted(nonce: str, salt: str | None) -> str:
    """The nonce the dice are drawn with: ``nonce|salt``, or the nonce alone without a salt."""
    return f"{nonce}|{salt}" if salt else nonce


def player_part(name: str, text: str) -> str:
    """A player's own seed as part of a salt: ``name=`` and the first 16 hex
    digits of its SHA-256 (any text will do; the player can hash it to check)."""
    return f"{name}={hashlib.sha256(text.encode('utf-8')).hexdigest()[:16]}"


def die_at(seed: bytes, nonce: str, index: int) -> int:
    """Die number ``index`` of the game with this seed and nonce."""
    attempt = 0
    while True:
        message = f"{nonce}:{index}" if attempt == 0 else f"{nonce}:{index}:{attempt}"
        digest = hmac.new(seed, message.encode("utf-8"), hashlib.sha256).digest()
        for byte in digest:
            if byte < _LIMIT:
                return byte % 6 + 1
        attempt += 1


class FairDice:
    """A dice source that derives every die from a committed seed and a salt.

    ``counter`` is how many dice have been thrown already (a game rebuilt
    from its log goes on from where it stopped).
    """

    def __init__(self, seed: bytes, nonce: str, counter: int = 0, *, salt: str | None = None) -> None:
        if len(seed) < 16:
            raise ValueError("a seed needs at least 16 bytes")
        self.seed = seed
        self.nonce = salted(nonce, salt)
        self.counter = counter

    def __deepcopy__(self, memo: dict[int, object]) -> FairDice:
        """An independent copy (its seed and nonce are immutable; its counter is its own)."""
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        memo[id(self)] = clone
        return clone

    @property
    def commitment(self) -> str:
        return commitment(self.seed)

    def die(self) -> int:
        value = die_at(self.seed, self.nonce, self.counter)
        self.counter += 1
        return value


@dataclass(frozen=True, slots=True)
class Verification:
    """The outcome of checking a game's dice."""

    ok: bool
    reason: str
    dice_checked: int
    first_mismatch: int | None = None


def verify(
    seed_hex: str, commitment_hex: str, nonce: str, dice: Iterable[int], *, salt: str | None = None
) -> Verification:
    """Check a revealed seed against its commitment and recompute every die."""
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        return Verification(False, "the seed is not hex", 0)
    if not hmac.compare_digest(commitment(seed), commitment_hex.lower()):
        return Verification(False, "the seed does not match the commitment", 0)
    nonce = salted(nonce, salt)
    count = 0
    for index, value in enumerate(dice):
        if die_at(seed, nonce, index) != value:
            return Verification(
                False, f"die {index + 1} should be {die_at(seed, nonce, index)}, not {value}", index, index
            )
        count += 1
    return Verification(True, f"all {count} dice match the committed seed", count)


def dice_in_log(actions: Iterable[Any]) -> list[int]:
    """The dice of a game's (or match's) action log in the order thrown: stored
    actions (dicts) or the engine's own log entries (:class:`~engine.game.Action`)."""
    thrown: list[int] = []
    for action in actions:
        if isinstance(action, dict):
            kind, dice = action.get("kind"), action.get("dice")
        else:
            kind, dice = action.kind, action.dice
        if kind in ("opening", "roll") and dice:
            thrown.extend(int(d) for d in dice)
    return thrown


def chi_square_uniform(counts: list[int]) -> tuple[float, float]:
    """Pearson's chi-square test of counts against equal chances.

    Returns ``(statistic, p_value)`` with ``len(counts) - 1`` degrees of
    freedom; a small p-value (say below 0.01) would mean the dice look unfair.
    """
    total = sum(counts)
    if total == 0 or len(counts) < 2:
        return 0.0, 1.0
    expected = total / len(counts)
    statistic = sum((c - expected) ** 2 / expected for c in counts)
    return statistic, chi_square_survival(statistic, len(counts) - 1)


def chi_square_survival(x: float, dof: int) -> float:
    """P(X >= x) for a chi-square variable with ``dof`` degrees of freedom."""
    if x <= 0:
        return 1.0
    return _upper_regularized_gamma(dof / 2.0, x / 2.0)


def _upper_regularized_gamma(a: float, x: float) -> float:
    # Q(a, x) by the series for small x and a continued fraction otherwise
    # (Numerical Recipes' gser/gcf), accurate far beyond what a p-value needs.
    import math

    log_prefix = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1.0:
        term = total = 1.0 / a
        n = a
        for _ in range(1000):
            n += 1.0
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_prefix))
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return min(1.0, math.exp(log_prefix) * h)
