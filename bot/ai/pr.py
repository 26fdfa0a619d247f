"""Performance rating (PR) on eXtreme Gammon's scale, beside GNU Backgammon's error rate.

PR is 500 times the average equity a player gives up per decision that counts
(docs/analysis.md says which count and why): forced plays are left out, and so
are cube decisions that were never close. The error rate (millipoints per
decision) counts the same equity over the decisions the analyst grades; PR's
denominator adds the close no-double decisions a player got right, as XG and
GNU Backgammon do.
"""

from __future__ import annotations

PR_PER_EQUITY = 500.0
"""PR is the average equity lost per decision times 500 (XG's scale)."""

CLOSE_CUBE = 0.16
"""A no-double decision counts when the double is within this much (in units of
the pass, i.e. normalised so that double/pass = 1) of the best cube action:
GNU Backgammon's ``isCloseCubedecision`` threshold, which XG's "relevant cube
decision" follows."""

TRIVIAL = 1e-4
"""No double and double/take this close (normalised): the cube is dead, nothing to decide."""

PR_BANDS: tuple[tuple[float, str], ...] = (
    (2.5, "world class+"),
    (5.0, "world class"),
    (7.5, "expert"),
    (12.5, "advanced"),
    (17.5, "intermediate"),
    (22.5, "casual player"),
    (30.0, "beginner"),
)
"""XG's bands, upper bounds (a PR below the bound earns the word); 30 and more is "awful"."""


def pr_of(equity_lost: float, decisions: int) -> float | None:
    """PR for ``equity_lost`` over ``decisions`` decisions that count (None without any)."""
    if decisions <= 0:
        return None
    return PR_PER_EQUITY * equity_lost / decisions


def pr_label(pr: float | None) -> str:
    """XG's word for a PR ("no decisions" for None)."""
    if pr is None:
        return "no decisions"
    for bound, word in PR_BANDS:
        if pr < bound:
            return word
    return "awful"


def is_close_cube(no_double: float, double_take: float, double_pass: float) -> bool:
    """Whether a doubling decision is close enough to count for PR (docs/analysis.md).

    Equities are the would-be doubler's, cubeful; they are normalised so that
    double/pass is 1 (GNU Backgammon's ``arDouble`` convention)."""
    scale = abs(double_pass) or 1.0
    if abs(no_double - double_take) < TRIVIAL * scale:
        return False  # doubling changes nothing (a dead cube): no decision at all
    doubled = min(double_take, double_pass)
    best = max(no_double, doubled)
    return (best - doubled) / scale < CLOSE_CUBE


def format_pr(pr: float | None) -> str:
    """``PR 6.3 (expert)``, or ``PR –`` without a decision that counts."""
    if pr is None:
        return "PR –"
    return f"PR {pr:.1f} ({pr_label(pr)})"
