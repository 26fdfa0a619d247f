"""Service results in words: message text and embeds.

Nothing here talks to Discord; every function takes service values
(:class:`~bot.service.GameView`, :class:`~bot.service.Event`, storage rows)
and returns strings or :class:`discord.Embed` objects (the board picture's
scene comes from :meth:`bot.service.GameService.scene`). The cogs and buttons
decide where they go.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime

import discord

from bot import storage
from bot.service import ChallengeView, Event, GameView
from engine import Phase

COLOUR = discord.Colour(0x2E7D5B)
"""The bot's accent colour (felt green)."""
WIN_COLOUR = discord.Colour(0xC9A227)
MAX_CONTENT = 2000
MAX_EVENT_LINES = 12
MAX_EVENT_CHARS = 300
AUTOCOMPLETE_LIMIT = 25
SELECT_LIMIT = 25

RESIGN_WORDS = {1: "a single game", 2: "a gammon", 3: "a backgammon"}


def sentence(text: str) -> str:
    """The service speaks in lower-case clauses; a message starts with a capital."""
    text = text.strip()
    return text[:1].upper() + text[1:] if text else text


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def timestamp(moment: datetime, style: str = "R") -> str:
    """A Discord timestamp that each reader sees in their own time zone."""
    return f"<t:{int(moment.timestamp())}:{style}>"


def jump_url(guild_id: int | None, channel_id: int, message_id: int) -> str:
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


def board_link(view: GameView) -> str | None:
    if view.board_message is None:
        return None
    channel_id, message_id = view.board_message
    return jump_url(view.guild_id, channel_id, message_id)


def opponent_of(view: GameView, user_id: int) -> str:
    seat = view.seat(user_id)
    if seat is None:
        return " vs ".join(p.name for p in view.players)
    return view.players[1 - seat].name


def describe_kind(view: GameView) -> str:
    options = view.options
    if options.match_length:
        score = view.match.score
        return f"{options.match_length}-point match, {view.players[0].name} {score[0]} - {score[1]} {view.players[1].name}"
    return f"money game at {options.stake} per point, cube {view.game.cube_value}"


# -- whose turn -----------------------------------------------------------------


def what_to_do(view: GameView) -> str | None:
    """``"to roll or double"``, ``"to play 6-5"``, ... for the player to act (None when over)."""
    actor = view.to_act()
    if actor is None:
        return None
    game = view.game
    phase = game.phase
    if phase is Phase.ROLL:
        return "to roll or double" if game.can_double(game.turn) else "to roll"
    if phase is Phase.PLAY:
        dice = game.dice
        todo = f"to play {dice.high}-{dice.low}" if dice is not None else "to play"
        if len(game.legal_plays()) > SELECT_LIMIT:
            todo += " (type it with `/bg move`)"
        return todo
    if phase is Phase.DOUBLED:
        cube = game.offered_cube or game.cube_value * 2
        extra = ", beaver" if game.can_beaver(game.turn) else ""
        return f"to take{extra} or pass the double to {cube}"
    if phase is Phase.RESIGNATION:
        level = game.resignation[1] if game.resignation else 1
        return f"to accept or reject the offer to resign {RESIGN_WORDS.get(level, 'a game')}"
    if phase is Phase.OPENING:
        return "to throw the opening die"
    return None


def turn_line(view: GameView, *, ping: bool = True) -> str:
    """The last line of a board message: who acts now, by when."""
    actor = view.to_act()
    todo = what_to_do(view)
    if actor is None or todo is None:
        return ""
    who = mention(actor.user_id) if ping else f"**{actor.name}**"
    line = f"▶ {who} {todo}"
    if view.deadline is not None:
        line += f" (time runs out {timestamp(view.deadline)})"
    return line


def board_content(view: GameView, events: Sequence[Event] = (), *, ping: bool = True) -> str:
    """What happened (one line per event) and whose turn it is, within Discord's 2000 characters.

    The header and the turn line (with its mention) always stay; when there
    is too much to tell, the oldest events give way.
    """
    header = f"**Game #{view.id}** · {describe_kind(view)}"
    footer = turn_line(view, ping=ping)
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


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def event_line(view: GameView, event: Event) -> str:
    """The event's text, capitalised unless it starts with a player's name (names keep their case)."""
    if any(p.name and event.text.startswith(p.name) for p in view.players):
        return event.text
    return sentence(event.text)


def state_summary(view: GameView) -> str:
    """One or two lines on where a game stands (for private answers)."""
    if not view.is_active:
        return f"Game #{view.id} is {view.status}."
    actor = view.to_act()
    todo = what_to_do(view)
    text = f"Game #{view.id}: {describe_kind(view)}."
    if actor is not None and todo is not None:
        text += f" Now: {actor.name} {todo}."
    link = board_link(view)
    if link:
        text += f" [Current board]({link})"
    return text


# -- results -----------------------------------------------------------------------------


def game_over_events(events: Iterable[Event]) -> list[Event]:
    return [e for e in events if e.kind in ("game_over", "match_over", "abandon", "timeout", "forfeit")]


def result_embed(view: GameView, events: Sequence[Event], rating_changes: Sequence[storage.RatingChange] = ()) -> discord.Embed | None:
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
            value=f"{view.players[0].name} {score[0]} - {score[1]} {view.players[1].name} (to {view.options.match_length})",
            inline=False,
        )
    else:
        stake = view.options.stake
        embed.add_field(
            name="Points",
            value=f"{view.players[0].name} {score[0]} - {score[1]} {view.players[1].name}"
            + (f" (x{stake} stake)" if stake != 1 else ""),
            inline=False,
        )
    shown = [c for c in rating_changes if c.scope == view.guild_id] or list(rating_changes)
    if shown:
        names = {p.user_id: p.name for p in view.players}
        embed.add_field(
            name="Rating",
            value="\n".join(
                f"{names.get(c.user_id, c.user_id)}: {c.before:.1f} → {c.after:.1f} ({c.delta:+.1f})" for c in shown
            ),
            inline=False,
        )
    return embed


# -- challenges ----------------------------------------------------------------------------


def challenge_content(challenge: ChallengeView, *, thread: bool = False) -> str:
    where = " The game gets its own thread." if thread else ""
    expires = f" Answer {timestamp(challenge.expires_at)}." if challenge.expires_at else ""
    return (
        f"{mention(challenge.challenged.user_id)}, {mention(challenge.challenger.user_id)} challenges you to "
        f"{challenge.options.describe()}.{where}{expires}"
    )


def challenge_closed_content(challenge: ChallengeView, status: str, extra: str = "") -> str:
    words = {
        "accepted": f"✅ {challenge.challenged.name} accepted {challenge.challenger.name}'s challenge",
        "declined": f"❌ {challenge.challenged.name} declined {challenge.challenger.name}'s challenge",
        "cancelled": f"↩️ {challenge.challenger.name} withdrew the challenge to {challenge.challenged.name}",
        "expired": f"⌛ {challenge.challenger.name}'s challenge to {challenge.challenged.name} expired",
    }
    text = words.get(status, f"The challenge is {status}")
    text += f" ({challenge.options.describe()})."
    return text + (f" {extra}" if extra else "")


# -- lists and tables -----------------------------------------------------------------------


def leaderboard_embed(page: storage.LeaderboardPage, kind: str, guild_name: str | None = None) -> discord.Embed:
    where = f" · {guild_name}" if guild_name else ""
    embed = discord.Embed(title=f"Leaderboard by {kind}{where}", colour=COLOUR)
    if not page.entries:
        embed.description = "Nobody is ranked yet. Finish a game with `/bg challenge` to get on the board."
    else:
        rows = []
        for entry in page.entries:
            s = entry.stats
            name = discord.utils.escape_markdown(s.display_name or f"player {s.user_id}")
            if kind == "points":
                rows.append(f"`{entry.rank:>3}` **{name}** · {s.net_points:+d} points · {s.wins}-{s.losses}")
            else:
                rows.append(f"`{entry.rank:>3}` **{name}** · {s.rating:.1f} · {s.wins}-{s.losses}")
        embed.description = "\n".join(rows)
    pages = max((page.total + page.limit - 1) // page.limit, 1) if page.limit else 1
    embed.set_footer(text=f"Page {page.offset // max(page.limit, 1) + 1} of {pages} · {page.total} ranked")
    return embed


def stats_embed(name: str, stats: storage.PlayerStats | None) -> discord.Embed:
    embed = discord.Embed(title=f"Stats · {name}", colour=COLOUR)
    if stats is None:
        embed.description = "No finished games yet. Challenge someone with `/bg challenge`."
        return embed
    s = stats.stats
    embed.add_field(name="Rating", value=f"{s.rating:.1f} (best {s.best_rating:.1f})")
    embed.add_field(name="Rank", value=f"{stats.rank} of {stats.ranked_players}")
    embed.add_field(name="Experience", value=str(s.experience))
    embed.add_field(name="Matches", value=f"{s.games} played · {s.wins} won · {s.losses} lost")
    embed.add_field(name="Gammons / backgammons", value=f"{s.gammons} / {s.backgammons}")
    embed.add_field(name="Points", value=f"{s.points_won} won · {s.points_lost} lost ({s.net_points:+d})")
    return embed


def games_embed(views: Sequence[GameView], user_id: int) -> discord.Embed:
    embed = discord.Embed(title="Your games in this server", colour=COLOUR)
    if not views:
        embed.description = "No games going on. Start one with `/bg challenge`."
        return embed
    rows = []
    for view in views[:20]:
        actor = view.to_act()
        status = "**your turn**" if actor and actor.user_id == user_id else f"waiting for {actor.name}" if actor else view.status
        link = board_link(view)
        where = f"[board]({link})" if link else f"<#{view.channel_id}>"
        rows.append(f"#{view.id} vs {opponent_of(view, user_id)} · {status} · {where}")
    embed.description = "\n".join(rows)
    return embed


def history_embed(views: Sequence[GameView], user_id: int, name: str) -> discord.Embed:
    embed = discord.Embed(title=f"Recent games · {name}", colour=COLOUR)
    if not views:
        embed.description = "No finished games yet."
        return embed
    rows = []
    for view in views:
        seat = view.seat(user_id)
        result = view.result or {}
        winner = result.get("winner_seat", view.match.winner)
        if view.status == "abandoned":
            verdict = "abandoned"
        elif winner is None or seat is None:
            verdict = view.status
        else:
            verdict = "won" if winner == seat else "lost"
        score = view.match.score
        mine, theirs = (score[seat], score[1 - seat]) if seat is not None else score
        kind = f"{view.options.match_length}-pt" if view.options.match_length else "money"
        rows.append(f"#{view.id} vs {opponent_of(view, user_id)} · {kind} · **{verdict}** {mine}-{theirs}")
    embed.description = "\n".join(rows)
    embed.set_footer(text="/bg export game:<number> gives a game as a .mat file")
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
        name="More",
        value="`/bg board` shows the board again · `/bg games` · `/bg history` · `/bg export` · `/bg stats` · `/bg leaderboard`",
        inline=False,
    )
    embed.set_footer(text="Money games: Jacoby, beavers and automatic doubles are options of /bg challenge.")
    return embed


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
