"""``/patience`` through Discord (SimCord): a whole Hoyle's deal laid with the
panel's buttons to the reveal, the daily deal (the same for everyone, a typed
path, one submission, the public line that pings nobody, the leaderboard), a
stale panel, and a panel that keeps working after a restart."""

from __future__ import annotations

import io
import re
from datetime import UTC
from typing import Any

import discord
from PIL import Image

from bot.discord.cogs.patience import STALE_NOTE
from engine.patience import ENGLISH, HOYLE_DEAL, Layout
from renderer.patience import SIZE_PX
from tests.bot.conftest import components, custom_ids, labels
from tests.bot.discord.test_hostile import MESSAGE_ROUTES
from tests.e2e.limits import message_errors
from tests.narrowing import present

SNAKE = "A1 B1 C1 D1 E1 E2 D2 C2 B2 A2 A3 B3 C3 D3 E3 E4 D4 C4 B4 A4 A5 B5 C5 D5 E5".split()
"""A rook's path over the whole grid, row by row."""


def panel_of(result):
    """The private message an interaction answered with (or edited)."""
    messages = ([result.response] if result.response is not None else []) + list(result.followups)
    mine = [m for m in messages if m.ephemeral]
    assert mine, f"no private answer: {result}"
    return mine[-1]


def enabled_labels(message) -> list[str]:
    return [c.label for c in components(message.message) if not c.disabled]


async def picture_size(message, index: int = 0) -> tuple[int, int]:
    attachment = message.attachments[index]
    return Image.open(io.BytesIO(await attachment.read())).size


async def test_a_whole_hoyle_deal_laid_with_buttons_to_the_reveal(world):
    w = world
    started = await w.alice.slash(w.channel, "patience hoyle")
    panel = panel_of(started)
    assert "**Hoyle's deal**" in panel.content and "Card 1 of 25 is **6♦**" in panel.content
    assert [a.filename for a in panel.attachments] == ["patience-1-0.png"]
    assert await picture_size(panel) == SIZE_PX
    # the first card: a 5 by 5 grid of squares, those a rook's path can start on lit
    assert labels(panel.message) == SNAKE[:5] + SNAKE[9:4:-1] + SNAKE[10:15] + SNAKE[19:14:-1] + SNAKE[20:]
    assert len(enabled_labels(panel)) == 13 and "B1" not in enabled_labels(panel)

    for number, square in enumerate(SNAKE, start=1):
        result = await w.alice.click(panel, label=square)
        panel = panel_of(result)
        if number == 3:  # change one's mind: Undo, then the same square again
            panel = panel_of(await w.alice.click(panel, label="Undo"))
            assert "2 of 25 laid" in panel.content
            panel = panel_of(await w.alice.click(panel, label=square))
        if number < 25:
            assert f"{number} of 25 laid" in panel.content, panel.content
            assert set(enabled_labels(panel)) <= {
                "A1",
                "B1",
                "C1",
                "D1",
                "E1",
                "A2",
                "B2",
                "C2",
                "D2",
                "E2",
                "A3",
                "B3",
                "C3",
                "D3",
                "E3",
                "A4",
                "B4",
                "C4",
                "D4",
                "E4",
                "A5",
                "B5",
                "C5",
                "D5",
                "E5",
                "Undo",
            }
            assert len(labels(panel.message)) <= 5  # at most four squares a rook's step away, and Undo
            assert SNAKE[number] in labels(panel.message)
    assert "All 25 cards are laid" in panel.content
    assert labels(panel.message) == ["Submit", "Undo"]
    mine = Layout.parse(HOYLE_DEAL, " ".join(SNAKE)).score(ENGLISH)
    assert f"**{mine}** points" in panel.content

    revealed = panel_of(await w.alice.click(panel, label="Submit"))
    text = revealed.content
    assert f"You scored **{mine}** points. The best possible score is **81**" in text
    assert re.search(r"A best path: `([A-E][1-5] ){24}[A-E][1-5]`", text)
    assert [a.filename for a in revealed.attachments] == ["patience-1-yours.png", "patience-1-best.png"]
    assert await picture_size(revealed, 0) == await picture_size(revealed, 1) == SIZE_PX
    assert revealed.components == []  # submitted: nothing more to click
    assert w.public() == []  # Hoyle's deal is nobody else's business

    # asked again: a new layout of Hoyle's deal, from an empty grid
    again = panel_of(await w.alice.slash(w.channel, "patience hoyle"))
    assert "Card 1 of 25" in again.content and custom_ids(again.message)[0] == "pt:p:2:0:A1"


async def test_the_daily_deal_typed_submitted_once_announced_and_ranked(world):
    w = world
    alice = panel_of(await w.alice.slash(w.channel, "patience daily"))
    bob = panel_of(await w.bob.slash(w.channel, "patience daily"))
    assert "**Daily deal 2026-03-02**" in alice.content
    commitment = present(re.search(r"Deal committed: `([0-9a-f]{64})`", alice.content)).group(1)
    assert f"`{commitment}`" in bob.content
    patience = w.service.patience
    deals = {(await patience.current(w.guild.id, member.id, "daily")).deal for member in (w.alice, w.bob)}
    assert len(deals) == 1  # the same deal for everyone here

    bad = await w.alice.slash(w.channel, "patience play", squares="A1 Z9")
    assert bad.ephemeral and "not a square" in panel_of(bad).content and "nothing was laid" in panel_of(bad).content
    bad = await w.alice.slash(w.channel, "patience play", squares="A1 C3")
    assert "rook's step" in panel_of(bad).content
    assert (await patience.current(w.guild.id, w.alice.id)).placed == 0

    typed = panel_of(await w.alice.slash(w.channel, "patience play", squares=" ".join(SNAKE)))
    assert "All 25 cards are laid" in typed.content and "Submit" in labels(typed.message)
    revealed = panel_of(await w.alice.click(typed, label="Submit"))
    # the day is on: the score and the place, never the deal's best (a pasted path would hand it round)
    assert "best score and a best layout are shown once the day is over" in revealed.content
    assert "A best path" not in revealed.content
    assert [f.filename for f in revealed.attachments] == [a.filename for a in revealed.attachments[:1]]
    assert "Your place today: 1st of 1 so far" in revealed.content

    (line,) = w.public()  # the daily result in one public line, pinging nobody
    assert line.content.startswith("🃏 **alice** laid today's patience deal for **")
    assert "<@" not in line.content and not line.mentions and "best" not in line.content

    again = panel_of(await w.alice.slash(w.channel, "patience daily"))
    assert "submitted this layout already" in again.content and again.components == []
    assert len(w.public()) == 1  # announced once

    board = await w.carol.slash(w.channel, "patience leaderboard")
    assert not board.ephemeral
    embed = board.response.embeds[0]
    assert embed.title == "Patience · daily deal 2026-03-02 · Backgammon Club"
    assert "**alice**" in embed.description and "bob" not in embed.description
    assert any(commitment in f.value for f in embed.fields)
    unknown = await w.carol.slash(w.channel, "patience leaderboard", day="someday")
    assert unknown.ephemeral and "not a day" in panel_of(unknown).content

    # every message and edit fits Discord's limits and pings nobody
    checked = 0
    for request in w.env.http_requests:
        if request.method not in ("POST", "PATCH") or not MESSAGE_ROUTES.match(request.path):
            continue
        body = request.json or {}
        if "/callback" in request.path:
            body = body.get("data") or {}
        if not {"content", "embeds", "components"} & set(body):
            continue  # a deferral
        checked += 1
        assert message_errors(body) == {}, (request.path, body)
        assert body.get("allowed_mentions") == {"parse": []}, (request.path, body)
    assert checked >= 8


async def test_a_stale_panel_is_shown_as_it_stands_and_lays_nothing(world):
    w = world
    first = panel_of(await w.alice.slash(w.channel, "patience hoyle"))
    second = panel_of(await w.alice.slash(w.channel, "patience hoyle"))  # the same layout, a second panel
    second = panel_of(await w.alice.click(second, label="C3"))
    refreshed = panel_of(await w.alice.click(first, label="A1"))  # what the first panel still offered
    assert STALE_NOTE in refreshed.content and "1 of 25 laid" in refreshed.content
    layout = (await w.service.patience.current(w.guild.id, w.alice.id)).layout
    assert str(layout) == "C3"


async def test_the_panel_keeps_working_after_a_restart(world, make_bot):
    w = world
    panel = panel_of(await w.alice.slash(w.channel, "patience random"))
    panel = panel_of(await w.alice.click(panel, label="A1"))
    await w.env.restart_bot(make_bot())
    panel = panel_of(await w.alice.click(panel, label="B1"))
    assert "2 of 25 laid" in panel.content
    resumed = panel_of(await w.alice.slash(w.channel, "patience random"))
    assert "2 of 25 laid" in resumed.content and "Random deal" in resumed.content


# -- words and buttons ------------------------------------------------------------------------


def attempt_of(path: str = "", **fields):
    from datetime import datetime

    from bot.core.patience import Attempt

    values: dict[str, Any] = dict(
        id=7,
        guild_id=1,
        user_id=2,
        kind="hoyle",
        day=None,
        layout=Layout.parse(HOYLE_DEAL, path),
        scoring=ENGLISH,
        version=3,
        submitted=False,
        score=None,
        best=None,
        started_at=datetime(2026, 3, 2, tzinfo=UTC),
        finished_at=None,
    )
    values.update(fields)
    return Attempt(**values)


def test_the_buttons_fit_discords_rows_and_carry_the_version():
    from bot.discord.patience_panel import controls

    grid = controls(attempt_of())
    assert grid is not None
    assert len(grid.children) == 25 and {button.row for button in buttons(grid)} == {0, 1, 2, 3, 4}
    assert sum(not button.disabled for button in buttons(grid)) == 13
    middle = controls(attempt_of("C3"))
    assert middle is not None
    assert [button.custom_id for button in buttons(middle)] == [
        "pt:p:7:3:C2",
        "pt:p:7:3:B3",
        "pt:p:7:3:D3",
        "pt:p:7:3:C4",
        "pt:u:7:3",
    ]
    assert [str(button.emoji) for button in buttons(middle)[:4]] == ["⬆️", "⬅️", "➡️", "⬇️"]
    done = controls(attempt_of(" ".join(SNAKE)))
    assert done is not None
    assert [button.label for button in buttons(done)] == ["Submit", "Undo"]
    assert controls(attempt_of(" ".join(SNAKE), submitted=True, score=40, best=81)) is None


def test_the_public_line_pings_nobody_and_spoils_nothing():
    from bot.core.patience import PatienceResult
    from bot.discord.limits import shown
    from bot.discord.patience_panel import daily_line, ordinal
    from engine.patience import solve
    from tests.bot.discord.test_limits import NASTY, raw_tokens

    result = PatienceResult(
        attempt_of(" ".join(SNAKE), kind="daily", day="2026-03-02", submitted=True, score=40, best=81),
        solve(HOYLE_DEAL),
        streak=4,
        rank=2,
        entrants=11,
    )
    for name in NASTY:
        line = daily_line(name, result)
        assert f"**{shown(name)}**" in line and raw_tokens(shown(name)) == [], line
        assert not re.search(r"(?<!\\)<[@#&]", line) and "@everyone" not in line and "@here" not in line
        assert "81" not in line and "(2nd of 11 so far) · 🔥 4-day streak" in line
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "12th",
        "13th",
        "21st",
        "22nd",
        "101st",
        "111th",
    ]


def buttons(view: discord.ui.View) -> list[Any]:
    """The buttons inside a view's dynamic items."""
    inside = []
    for child in view.children:
        assert isinstance(child, discord.ui.DynamicItem)
        inside.append(child.item)
    return inside
