"""The core's results as Discord shows them: message text, mentions, timestamps and embeds.

Every function takes core values (:class:`~bot.core.model.GameState`,
:class:`~bot.core.model.Event`, ...) and returns text in Discord's markdown
or a :class:`discord.Embed`; it sends nothing. The board picture's scene is
:func:`bot.discord.boards.scene_for`. The table, cogs and buttons decide
where these go.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import TypeVar

import discord

from bot.core.dice_stats import face_counts, roll_kinds_p_value
from bot.core.model import (
    ChallengeView,
    DiceStats,
    Event,
    GameListing,
    GameState,
    GameSummary,
    LeaderboardPage,
    PlayerStats,
    RatingChange,
)
from bot.core.shots import BlotOdds
from bot.core.tournaments import TournamentRecord
from bot.discord.limits import in_code, plain, shown
from engine import GLOSSARY, Phase, Roll, WinKind, XgidError, call, direct_shots
from engine.fairdice import chi_square_uniform

Listed = TypeVar("Listed", GameState, GameListing)
"""A game in a list: as it stands (rebuilt), or as its row says (``/bg games``)."""

COLOUR = discord.Colour(0x2E7D5B)
"""The bot's accent colour (felt green)."""
WIN_COLOUR = discord.Colour(0xC9A227)
MAX_CONTENT = 2000
MAX_EVENT_LINES = 12
MAX_EVENT_CHARS = 300
AUTOCOMPLETE_LIMIT = 25
SELECT_LIMIT = 25

VERIFY_SCRIPT = "python3 scripts/verify_dice.py game-<number>.json"


def sentence(text: str) -> str:
    """The service speaks in lower-case clauses; a message starts with a capital.

    Only for our own words: a text that may start with what a player typed or
    their name is shown through :func:`bot.discord.limits.plain` as it is."""
    text = text.strip()
    return text[:1].upper() + text[1:] if text else text


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def timestamp(moment: datetime, style: str = "R") -> str:
    """A Discord timestamp that each reader sees in their own time zone."""
    return f"<t:{int(moment.timestamp())}:{style}>"


def jump_url(guild_id: int | None, channel_id: int, message_id: int) -> str:
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


def board_link(view: GameState | GameListing) -> str | None:
    if view.board_message is None:
        return None
    channel_id, message_id = view.board_message
    return jump_url(view.guild_id, channel_id, message_id)


def opponent_of(view: GameState | GameListing | GameSummary, user_id: int) -> str:
    seat = view.seat(user_id)
    if seat is None:
        return " vs ".join(shown(p.name) for p in view.players)
    return shown(view.players[1 - seat].name)


def describe_kind(view: GameState) -> str:
    options = view.options
    if options.match_length:
        score = view.match.score
        return f"{options.match_length}-point match, {shown(view.players[0].name)} {score[0]} - {score[1]} {shown(view.players[1].name)}"
    return f"money game at {options.stake} per point, cube {view.game.cube_value}"


# -- whose turn -----------------------------------------------------------------


def what_to_do(view: GameState) -> str | None:
    """``"to roll or double"``, ``"to play 6-5"``, ... for the player to act (None when over)."""
    actor = view.to_act()
    if actor is None:
        return None
    game = view.game
    phase = game.phase
    if phase is Phase.ROLL:
        if game.opening_offer is not None:
            offer = game.opening_offer
            return f"to play the opening {offer.high}-{offer.low} or throw again"
        return "to roll or double" if game.can_double(game.turn) else "to roll"
    if phase is Phase.PLAY:
        dice = game.dice
        todo = f"to play {dice.high}-{dice.low}" if dice is not None else "to play"
        if len(view.legal_play_texts()) > SELECT_LIMIT:
            todo += " (type it with `/bg move`)"
        return todo
    if phase is Phase.DOUBLED:
        cube = game.offered_cube or game.cube_value * 2
        extra = ", beaver" if game.can_beaver(game.turn) else ""
        return f"to take{extra} or pass the double to {cube}"
    if phase is Phase.RESIGNATION:
        level = game.resignation[1] if game.resignation else 1
        return (
            f"to accept or reject the offer to resign {WinKind(level).phrase if level in tuple(WinKind) else 'a game'}"
        )
    if phase is Phase.OPENING:
        return "to throw the opening die"
    return None


def turn_line(view: GameState, *, ping: bool = True, away: datetime | None = None) -> str:
    """The last line of a board message: who acts now, by when (``away``: the end
    of their vacation, when they are on one)."""
    actor = view.to_act()
    todo = what_to_do(view)
    if actor is None or todo is None:
        return ""
    if actor.is_bot:  # the computer: no mention, no deadline
        return f"▶ 🤖 **{shown(actor.name)}** {todo} (thinking…)"
    who = mention(actor.user_id) if ping else f"**{shown(actor.name)}**"
    line = f"▶ {who} {todo}"
    if away is not None:
        line += f" · 🏖️ on vacation until {timestamp(away)}: their clock waits until then"
    elif view.deadline is not None:
        line += f" (time runs out {timestamp(view.deadline)})"
    return line


def turn_pings(view: GameState, *, ping: bool = True) -> list[int]:
    """Whom :func:`turn_line` pings: the person to act (not the computer), if ``ping``."""
    actor = view.to_act()
    if not ping or actor is None or actor.is_bot or what_to_do(view) is None:
        return []
    return [actor.user_id]


def board_content(
    view: GameState, events: Sequence[Event] = (), *, ping: bool = True, away: datetime | None = None
) -> str:
    """What happened (one line per event) and whose turn it is, within Discord's 2000 characters.

    The header and the turn line (with its mention) always stay; when there
    is too much to tell, the oldest events give way.
    """
    header = f"**Game #{view.id}** · {describe_kind(view)}"
    commitment = commitment_line(view, events)
    if commitment:
        header += "\n" + commitment
    footer = turn_line(view, ping=ping, away=away)
    if not footer and view.status == "abandoned":
        footer = "The game was abandoned. Start a new one with `/bg challenge`."
    elif not footer and not view.is_active:
        footer = "The match is over. Play again with `/bg challenge`."
    lines = [f"• {_clip(event_line(view, e), MAX_EVENT_CHARS)}" for e in events if e.text]
    budget = MAX_CONTENT - len(header) - len(footer) - 2
    dropped = 0
    while lines and (len(lines) > MAX_EVENT_LINES or sum(len(line) + 1 for line in lines) + 40 > budget):
        lines.pop(0)
        dropped += 1
    if dropped:
        lines.insert(0, f"• … {dropped} earlier event{'s' if dropped != 1 else ''}")
    return "\n".join([header, *lines, *([footer] if footer else [])])[:MAX_CONTENT]


def starts_match(view: GameState, events: Sequence[Event]) -> bool:
    """Whether these events start the first game of the stored game (its first message)."""
    return len(view.match.games) == 1 and any(e.kind in ("opening", "setup") for e in events)


def commitment_line(view: GameState, events: Sequence[Event]) -> str:
    """The provably fair dice commitment, for the first message of a game."""
    fair = view.fair_dice
    if not fair or not starts_match(view, events):
        return ""
    salt = f", salt `{fair['salt']}`" if fair.get("salt") else ""
    return (
        f"🎲 Fair dice: commitment `{fair['commitment']}`, nonce `{fair['nonce']}`{salt}. "
        "The seed is revealed when the game ends: check every roll with `/bgtools verify`."
    )


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def event_line(view: GameState, event: Event) -> str:
    """The event's text, capitalised unless it starts with a player's name (names keep their
    case), and neutralised: it holds names, which may hold markdown or mentions."""
    if any(p.name and event.text.startswith(p.name) for p in view.players):
        return plain(event.text, MAX_EVENT_CHARS)
    return plain(sentence(event.text), MAX_EVENT_CHARS)


def state_summary(view: GameState) -> str:
    """One or two lines on where a game stands (for private answers)."""
    if not view.is_active:
        return f"Game #{view.id} is {view.status}."
    actor = view.to_act()
    todo = what_to_do(view)
    text = f"Game #{view.id}: {describe_kind(view)}."
    if actor is not None and todo is not None:
        text += f" Now: {shown(actor.name)} {todo}."
    link = board_link(view)
    if link:
        text += f" [Current board]({link})"
    return text


# -- results -----------------------------------------------------------------------------


def game_over_events(events: Iterable[Event]) -> list[Event]:
    return [e for e in events if e.kind in ("game_over", "match_over", "abandon", "timeout", "forfeit")]


def result_embed(
    view: GameState, events: Sequence[Event], rating_changes: Sequence[RatingChange] = ()
) -> discord.Embed | None:
    """An embed for a finished game or match (None if nothing ended)."""
    ended = [e for e in events if e.kind in ("game_over", "match_over", "abandon")]
    if not ended and view.is_active:
        return None
    match_over = any(e.kind == "match_over" for e in events) or not view.is_active
    title = "Match over" if match_over and view.options.match_length else "Game over"
    if view.status == "abandoned":
        title = "Game abandoned"
    embed = discord.Embed(title=f"{title} · game #{view.id}", colour=WIN_COLOUR)
    lines = [event_line(view, e) for e in ended] or [f"The game is {view.status}."]
    embed.description = "\n".join(lines)
    score = view.match.score
    if view.options.match_length:
        embed.add_field(
            name="Score",
            value=f"{shown(view.players[0].name)} {score[0]} - {score[1]} {shown(view.players[1].name)} (to {view.options.match_length})",
            inline=False,
        )
    else:
        stake = view.options.stake
        embed.add_field(
            name="Points",
            value=f"{shown(view.players[0].name)} {score[0]} - {score[1]} {shown(view.players[1].name)}"
            + (f" (x{stake} stake)" if stake != 1 else ""),
            inline=False,
        )
    fair = view.fair_dice
    if fair and fair.get("seed") and not view.is_active:
        embed.add_field(
            name="Fair dice",
            value=(
                f"Seed `{fair['seed']}` (commitment `{fair['commitment']}`, nonce `{fair['nonce']}`). "
                f"Check every roll: `/bgtools verify game:{view.id}`"
            )[:1024],
            inline=False,
        )
    if not view.options.rated:
        embed.set_footer(
            text="Unrated: " + ("a game against the computer" if view.options.computer_level else "a practice game")
        )
    changes = [c for c in rating_changes if c.scope == view.guild_id] or list(rating_changes)
    if changes:
        names = {p.user_id: shown(p.name) for p in view.players}
        embed.add_field(
            name="Rating",
            value="\n".join(
                f"{names.get(c.user_id, c.user_id)}: {c.before:.1f} → {c.after:.1f} ({c.delta:+.1f})" for c in changes
            ),
            inline=False,
        )
    return embed


# -- challenges ----------------------------------------------------------------------------


def challenge_content(challenge: ChallengeView, *, thread: bool = False) -> str:
    where = " The game gets its own thread." if thread else ""
    expires = f" Answer {timestamp(challenge.expires_at)}." if challenge.expires_at else ""
    hints = (
        " Hints are on: accepting agrees that both players may ask `/bg hint` on their turn."
        if challenge.options.hints
        else ""
    )
    text = (
        f"{mention(challenge.challenged.user_id)}, {mention(challenge.challenger.user_id)} challenges you to "
        f"{challenge.options.describe()}.{hints}{where}{expires}"
    )
    fair = challenge.fair_dice
    if fair:
        text += (
            f"\n🎲 Dice committed now: `{fair['commitment']}` (nonce `{fair['nonce']}`). Accepting mixes in the "
            "click's Discord id (and your own seed, if you give one), so nobody can pick the dice; the seed is "
            "revealed when the game ends. This message keeps these words."
        )
    return text


def challenge_closed_content(challenge: ChallengeView, status: str, extra: str = "") -> str:
    challenger, challenged = shown(challenge.challenger.name), shown(challenge.challenged.name)
    words = {
        "accepted": f"✅ {challenged} accepted {challenger}'s challenge",
        "declined": f"❌ {challenged} declined {challenger}'s challenge",
        "cancelled": f"↩️ {challenger} withdrew the challenge to {challenged}",
        "expired": f"⌛ {challenger}'s challenge to {challenged} expired",
    }
    text = words.get(status, f"The challenge is {status}")
    text += f" ({challenge.options.describe()})."
    return text + (f" {extra}" if extra else "")


# -- lists and tables -----------------------------------------------------------------------


def computer_line(record: tuple[int, int] | None) -> str:
    """The computer's record against the server (its games are unrated, so it has its own line)."""
    if not record or not any(record):
        return ""
    wins, losses = record
    return (
        f"🤖 Computer: {wins} win{'s' if wins != 1 else ''}, {losses} loss{'es' if losses != 1 else ''} "
        "against this server (unrated)"
    )


def leaderboard_embed(
    page: LeaderboardPage,
    kind: str,
    guild_name: str | None = None,
    computer: tuple[int, int] | None = None,
) -> discord.Embed:
    where = f" · {plain(guild_name, 100)}" if guild_name else ""
    embed = discord.Embed(title=f"Leaderboard by {kind}{where}", colour=COLOUR)
    if not page.entries:
        embed.description = "Nobody is ranked yet. Finish a game with `/bg challenge` to get on the board."
    else:
        rows = []
        for entry in page.entries:
            s = entry.stats
            name = shown(s.display_name or f"player {s.user_id}")
            if kind == "points":
                rows.append(f"`{entry.rank:>3}` **{name}** · {s.net_points:+d} points · {s.wins}-{s.losses}")
            else:
                rows.append(f"`{entry.rank:>3}` **{name}** · {s.rating:.1f} · {s.wins}-{s.losses}")
        embed.description = "\n".join(rows)
    line = computer_line(computer)
    if line:
        embed.description += "\n\n" + line
    pages = max((page.total + page.limit - 1) // page.limit, 1) if page.limit else 1
    embed.set_footer(text=f"Page {page.offset // max(page.limit, 1) + 1} of {pages} · {page.total} ranked")
    return embed


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def tournament_line(record: TournamentRecord | None) -> str | None:
    """Titles and the best finish in finished tournaments (None: none played)."""
    if record is None or not record.played:
        return None
    titles = f"{record.titles} title{'s' if record.titles != 1 else ''}"
    best = ""
    if record.best_place is not None:
        of = f" of {record.best_field}" if record.best_field else ""
        where = f" ({plain(record.best_name)})" if record.best_name else ""
        best = f" · best finish {ordinal(record.best_place)}{of}{where}"
    return f"{titles}{best} · {record.played} played"


def stats_embed(name: str, stats: PlayerStats | None, tournaments: TournamentRecord | None = None) -> discord.Embed:
    embed = discord.Embed(title=f"Stats · {shown(name)}", colour=COLOUR)
    record = tournament_line(tournaments)
    if stats is None:
        embed.description = "No finished games yet. Challenge someone with `/bg challenge`."
        if record:
            embed.add_field(name="Tournaments", value=record)
        return embed
    s = stats.stats
    embed.add_field(name="Rating", value=f"{s.rating:.1f} (best {s.best_rating:.1f})")
    embed.add_field(name="Rank", value=f"{stats.rank} of {stats.ranked_players}")
    embed.add_field(name="Experience", value=str(s.experience))
    embed.add_field(name="Matches", value=f"{s.games} played · {s.wins} won · {s.losses} lost")
    embed.add_field(name="Gammons / backgammons", value=f"{s.gammons} / {s.backgammons}")
    embed.add_field(name="Points", value=f"{s.points_won} won · {s.points_lost} lost ({s.net_points:+d})")
    if record:
        embed.add_field(name="Tournaments", value=record)
    return embed


def by_urgency(views: Sequence[Listed], user_id: int) -> list[Listed]:
    """Games waiting for ``user_id`` first, the least time left first; then the others by their clocks."""
    far = datetime.max.replace(tzinfo=UTC)

    def key(view: Listed) -> tuple[int, datetime, int]:
        actor = view.to_act()
        mine = actor is not None and actor.user_id == user_id
        return (0 if mine else 1, view.deadline or far, view.id)

    return sorted(views, key=key)


def games_embed(views: Sequence[GameState | GameListing], user_id: int) -> discord.Embed:
    """``/bg games``: the member's games, the most urgent first."""
    embed = discord.Embed(title="Your games in this server", colour=COLOUR)
    if not views:
        embed.description = "No games going on. Start one with `/bg challenge`."
        return embed
    rows = []
    for view in by_urgency(views, user_id)[:20]:
        actor = view.to_act()
        status = (
            "**your turn**"
            if actor and actor.user_id == user_id
            else f"waiting for {shown(actor.name)}"
            if actor
            else view.status
        )
        if view.deadline is not None and actor is not None and not actor.is_bot:
            status += f", time runs out {timestamp(view.deadline)}"
        link = board_link(view)
        where = f"[board]({link})" if link else f"<#{view.channel_id}>"
        rows.append(f"#{view.id} vs {opponent_of(view, user_id)} · {status} · {where}")
    if len(views) > 20:
        rows.append(f"… and {len(views) - 20} more")
    embed.description = "\n".join(rows)
    return embed


def games_buttons(views: Sequence[GameState | GameListing], user_id: int) -> discord.ui.View | None:
    """A link button to each game's board, the most urgent first (Discord allows 25)."""
    buttons = discord.ui.View(timeout=None)
    for view in by_urgency(views, user_id):
        link = board_link(view)
        if link is None:
            continue
        actor = view.to_act()
        mark = "▶ " if actor is not None and actor.user_id == user_id else ""
        seat = view.seat(user_id)
        opponent = view.players[1 - seat].name if seat is not None else "?"
        label = f"{mark}#{view.id} vs {opponent}"  # a label shows no markup: the name as it is
        buttons.add_item(discord.ui.Button(label=label[:80], url=link))
        if len(buttons.children) == 25:
            break
    return buttons if buttons.children else None


def history_embed(games: Sequence[GameSummary], user_id: int, name: str) -> discord.Embed:
    embed = discord.Embed(title=f"Recent games · {shown(name)}", colour=COLOUR)
    if not games:
        embed.description = "No finished games yet."
        return embed
    rows = []
    for game in games:
        seat = game.seat(user_id)
        if game.status == "abandoned":
            verdict = "abandoned"
        elif game.winner_seat is None or seat is None:
            verdict = game.status
        else:
            verdict = "won" if game.winner_seat == seat else "lost"
        score = game.score
        mine, theirs = (score[seat], score[1 - seat]) if seat is not None else score
        kind = f"{game.options.match_length}-pt" if game.options.match_length else "money"
        row = f"#{game.id} vs {opponent_of(game, user_id)} · {kind} · **{verdict}** {mine}-{theirs}"
        change = next((c for c in game.rating_changes if c.user_id == user_id and c.scope == game.guild_id), None)
        if change is not None:
            row += f" · rating {change.delta:+.1f}"
        rows.append(row)
    embed.description = "\n".join(rows)
    embed.set_footer(text="/bg export game:<number> gives a game as a .mat file")
    return embed


def shots_text(view: GameState, odds: Sequence[BlotOdds]) -> str:
    """``/bg shots``: each player's blots and the throws of 36 that hit them."""
    lines = [f"🎯 **Shots at the blots** of game #{view.id} (throws out of 36, if the other side threw now):"]
    for side in odds:
        name = shown(view.players[side.seat].name)
        if not side.blots:
            lines.append(f"**{name}**: no blots")
            continue
        each = ", ".join(f"{point}-point {ways}" for point, ways in side.blots)
        lines.append(f"**{name}**: {each} · hit at all: {side.any_hit}/36 ({side.any_hit / 36:.0%})")
    lines.append("Points are counted from each player's own side. The old texts' table: `/bg rules topic:odds`.")
    return _clip("\n".join(lines), MAX_CONTENT)


def glossary_embed() -> discord.Embed:
    """``/bg rules topic:glossary``: the period words of the old rule texts."""
    embed = discord.Embed(title="The old words of backgammon", colour=COLOUR)
    embed.description = (
        "Hoyle and the Britannica name the games, the dice and the board in words met rarely today. "
        f"A throw is called as they did: 6-2 is *{call(Roll(6, 2))}*, 3-3 *{call(Roll(3, 3))}*."
    )
    titles = {"game": "What a game is worth", "die": "The dice and the points", "board": "The board"}
    for group, title in titles.items():
        lines = []
        for term in GLOSSARY:
            if term.group == group:
                said = f" (said *{term.said}*)" if term.said else ""
                lines.append(f"**{term.word}**{said}: {term.meaning}")
        embed.add_field(name=title, value=_clip("\n".join(lines), 1024), inline=False)
    return embed


def options_embed() -> discord.Embed:
    """``/bg rules topic:options``: what a challenge may choose, the seeds' conventions included."""
    embed = discord.Embed(title="Challenge options", colour=COLOUR)
    embed.description = "Options of `/bg challenge`; the challenged member sees them before accepting."
    embed.add_field(
        name="Today's game",
        value=(
            "`match_length` (0 = money game, `stake` per point) · `days` per move · "
            "money games: `jacoby`, `beavers`, `automatic_doubles` (ties of the opening throw double the cube: "
            "twice, or every tie up to `cube_limit`) · `cube_limit` (2 to 64) · `opening_reroll` · `hints`"
        ),
        inline=False,
    )
    embed.add_field(
        name="The old texts' conventions",
        value=(
            "`rules: hoyle` — **Hoyle's rubber**: best of three games, no cube, a gammon counts two; "
            "`backgammon: 4` if agreed (else 3); the winner of a hit throws first in the next game "
            "(after a gammon both throw again); the opening winner chooses: play the opening throw or throw again.\n"
            "`early_doubles: False` — nobody doubles before the game's first play (seed 003).\n"
            "`closed_out: skip` — on the bar against a closed board you don't throw and your opponent throws "
            "again (the old rule; today's `roll` throws and dances). GNU Backgammon's .mat can't show a skipped "
            "turn, so such games export differently."
        ),
        inline=False,
    )
    embed.add_field(
        name="Counting shots",
        value=(
            "`/bg shots` shows how many of the 36 throws hit each blot in this channel's game, "
            "as the old texts' tables counted (`/bg rules topic:odds`)."
        ),
        inline=False,
    )
    return embed


def odds_embed() -> discord.Embed:
    """``/bg rules topic:odds``: the seeds' table of direct shots, worked out by the engine."""
    embed = discord.Embed(title="The odds of being hit", colour=COLOUR)
    embed.description = (
        "Throws out of 36 that hit a lone blot so many pips away, with nothing between "
        "(the old texts' table, counted by the bot's rules):"
    )
    rows = [f"{distance:>2} pips: {direct_shots(distance):>2}/36" for distance in range(1, 25)]
    half = len(rows) // 2
    embed.add_field(name="1 to 12 pips", value="```\n" + "\n".join(rows[:half]) + "\n```", inline=True)
    embed.add_field(name="13 to 24 pips", value="```\n" + "\n".join(rows[half:]) + "\n```", inline=True)
    embed.set_footer(text="In a game, /bg shots counts every blot with the checkers really in the way.")
    return embed


def rules_embed() -> discord.Embed:
    embed = discord.Embed(title="Backgammon on Discord", colour=COLOUR)
    embed.description = (
        "Challenge someone with `/bg challenge @member` (match length 0 = money game). "
        "When it's your turn, use the buttons under the board or the commands below. "
        "Each player has a few days per move; a reminder comes before time runs out."
    )
    embed.add_field(
        name="Your turn",
        value=(
            "`/bg roll` or **Roll** · `/bg double` or **Double**\n"
            "`/bg move 13/7 8/7` (or pick from the menu): from/to points, `bar`, `off`, `*` for a hit, `(2)` to repeat\n"
            "`/bg take` · `/bg pass` · `/bg beaver` when doubled"
        ),
        inline=False,
    )
    embed.add_field(
        name="Giving up",
        value="`/bg resign single|gammon|backgammon` (the opponent accepts or rejects) · `/bg forfeit` gives up the match",
        inline=False,
    )
    embed.add_field(
        name="The computer",
        value=(
            "`/bg computer` (or challenge me) plays a game against the computer (unrated) · "
            "`/bg hint` privately suggests plays or the cube action (always against the computer; "
            "between people only if the challenge had `hints`) · `/bg analysis` grades a finished game"
        ),
        inline=False,
    )
    embed.add_field(
        name="Fair dice",
        value=(
            "Every game's dice come from a secret seed whose SHA-256 commitment is posted when it starts; "
            "the seed is revealed when it ends. `/bgtools verify` recomputes every roll; "
            f"`/bg export` gives the game's JSON for `{VERIFY_SCRIPT}` (Python standard library only). "
            "`/bgtools dice` shows a player's roll statistics."
        ),
        inline=False,
    )
    embed.add_field(
        name="More",
        value=(
            "`/bg board` shows the board again · `/bg games` · `/bg history` · `/bg export` · `/bg stats` · "
            "`/bg leaderboard` · `/bgtools position` (GNU Backgammon ID) · `/bgtools setup` (practice from an ID) · "
            "`/bgtools replay` (animated GIF)"
        ),
        inline=False,
    )
    embed.set_footer(
        text="/bg rules topic:options lists the challenge options (Hoyle's rubber too); topic:glossary the old words."
    )
    return embed


# -- the computer, hints and analysis ----------------------------------------------------------

MAX_EMBED_DESCRIPTION = 4096


def hint_text(view: GameState, lines: Sequence[str]) -> str:
    """The private answer to ``/bg hint``."""
    game = view.game
    if not lines:
        return "There's nothing to advise right now."
    if game.phase is Phase.PLAY and game.dice is not None:
        title = f"Best plays for {game.dice.high}-{game.dice.low} (equity, cubeless):"
    elif game.phase is Phase.DOUBLED:
        title = "Take or pass:"
    else:
        title = "Cube action:"
    return _clip(title + "\n```\n" + in_code("\n".join(lines)) + "\n```", MAX_CONTENT)


def analysis_embed(view: GameState | GameSummary, summaries: Sequence[tuple[int, str]]) -> discord.Embed:
    """Each player's error rate, blunders and luck, game by game (``(number, summary)`` pairs)."""
    names = " vs ".join(shown(p.name) for p in view.players)
    embed = discord.Embed(title=f"📊 Analysis · game #{view.id} · {names}", colour=COLOUR)
    several = view.game_count > 1
    parts = []
    for number, summary in summaries:
        head = f"**Game {number}**\n" if several else ""
        parts.append(f"{head}```\n{in_code(summary) or 'no decisions'}\n```")
    text = "\n".join(parts) or "Nothing to analyse."
    if len(text) > MAX_EMBED_DESCRIPTION - 100:
        text = text[: MAX_EMBED_DESCRIPTION - 110].rsplit("\n", 1)[0] + "\n…```"
    embed.description = text
    embed.set_footer(
        text="PR: equity lost per decision × 500 (XG's scale); "
        "error rate: millipoints lost per decision (GNU Backgammon's scale); "
        "luck: equity gained by the dice. Blunders lose more than 0.08."
    )
    return embed


# -- trust: fair dice, statistics, positions --------------------------------------------------


def dice_embed(name: str, stats: DiceStats) -> discord.Embed:
    embed = discord.Embed(title=f"🎲 Dice · {shown(name)}", colour=COLOUR)
    counts = {(max(k), min(k)): n for k, n in stats.counts.items()}
    rolls = stats.rolls
    if rolls == 0:
        embed.description = "No rolls yet in this server."
        return embed
    doubles = stats.doubles
    embed.description = (
        f"**{rolls}** rolls · **{doubles}** doubles ({100 * doubles / rolls:.1f}%, expected 16.7%) · "
        f"**{stats.pips}** pips ({stats.pips / rolls:.2f} a roll, expected 8.17)"
    )
    grid = ["     " + "".join(f"{low:>5}" for low in range(1, 7))]
    for high in range(1, 7):
        cells = "".join(f"{counts.get((high, low), 0):>5}" if low <= high else "    ·" for low in range(1, 7))
        grid.append(f"{high:>4} {cells}")
    _, p_rolls = roll_kinds_p_value(counts)
    embed.add_field(
        name="Roll kinds (high die by low die)",
        value="```\n" + "\n".join(grid) + "\n```" + f"Chi-square against fair dice (20 d.f.): p = {p_rolls:.3f}",
        inline=False,
    )
    faces = face_counts(counts)
    _, p_faces = chi_square_uniform(faces)
    thrown = sum(faces)
    embed.add_field(
        name="Faces (each die thrown)",
        value=" · ".join(f"{face}: {n} ({100 * n / thrown:.1f}%)" for face, n in enumerate(faces, start=1))
        + f"\nChi-square against fair dice (5 d.f.): p = {p_faces:.3f}",
        inline=False,
    )
    embed.set_footer(text="A p-value below 0.01 would be suspicious; by chance alone 1 player in 100 gets one.")
    return embed


def verify_text(view: GameState | GameSummary, verification: object) -> str:
    """The answer to ``/bgtools verify``: the result and how to check it yourself."""
    ok = bool(getattr(verification, "ok", False))
    reason = plain(sentence(str(getattr(verification, "reason", ""))))
    fair = view.fair_dice or {}
    mark = "✅" if ok else "❌"
    lines = [f"{mark} **Game #{view.id}**: {reason.rstrip('.')}."]
    if fair:
        salt = f", salt `{fair['salt']}`" if fair.get("salt") else ""
        lines.append(
            f"Commitment `{fair.get('commitment', '?')}`, nonce `{fair.get('nonce', '?')}`{salt}, seed `{fair.get('seed', '?')}`."
        )
    lines.append(
        f"Check it yourself: `/bg export game:{view.id}` gives the game's JSON; run `{VERIFY_SCRIPT}` "
        "(Python standard library only)."
    )
    return "\n".join(lines)


def position_text(view: GameState) -> str:
    """The current position as a GNU Backgammon ID and an XGID (when an XGID can show it)."""
    game = view.game
    lines = [f"**Game #{view.id}** · the current position", f"GNU Backgammon ID: `{game.gnubg_id()}`"]
    try:
        xgid = game.xgid()
    except XgidError:
        lines.append(f"XGID: {_no_xgid(game.phase)}")
    else:
        lines.append(f"XGID ({shown(view.players[1].name)} at the bottom): `{xgid}`")
    lines.append("Paste either into GNU Backgammon or XG, or practise from it with `/bgtools setup`.")
    return "\n".join(lines)


def _no_xgid(phase: Phase) -> str:
    if phase is Phase.RESIGNATION:
        return "none while a resignation waits for an answer (an XGID can't show one)"
    if phase is Phase.OPENING:
        return "none before the opening throw"
    return "none now"


POSITION_KINDS = {"xgid": "XGID", "gnubg": "GNU Backgammon ID", "position": "Position ID"}
"""How :func:`engine.ids.find_ids`'s kinds are named to players."""


def found_position_text(kind: str, gnubg_id: str, xgid: str | None, link: str, found: int) -> str:
    """The words with a board drawn from a message ("Show board"): both IDs, who is who."""
    lines = [f"The {POSITION_KINDS[kind]} in {link}:", f"GNU Backgammon ID: `{gnubg_id}`"]
    if xgid is not None:
        lines.append(f"XGID: `{xgid}`")
    lines.append("O is GNU Backgammon's player 0 (the top player of an XGID), X its player 1 (the bottom player).")
    if found > 1:
        lines.append(f"(That message has {found} positions written in it: this is the first I can read.)")
    lines.append("Practise from it with `/bgtools setup`.")
    return "\n".join(lines)


# -- autocomplete ------------------------------------------------------------------------------

_SPACES = re.compile(r"\s+")


def _compact(text: str) -> str:
    return _SPACES.sub("", text.lower()).replace("*", "")


def rank_plays(plays: Sequence[str], typed: str, limit: int = AUTOCOMPLETE_LIMIT) -> list[str]:
    """Legal plays closest to what is typed: prefix matches, then substrings, then the rest."""
    want = _SPACES.sub(" ", typed.strip().lower())
    compact = _compact(typed)
    if not want:
        return list(plays[:limit])
    prefix, inside, rest = [], [], []
    for play in plays:
        low = play.lower()
        if low.startswith(want) or _compact(play).startswith(compact):
            prefix.append(play)
        elif want in low or (compact and compact in _compact(play)):
            inside.append(play)
        else:
            rest.append(play)
    return (prefix + inside + rest)[:limit]
