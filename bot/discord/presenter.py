"""The core's results as Discord shows them: message text, mentions, timestamps and embeds.

Every function takes core values (:class:`~bot.core.model.GameState`,
:class:`~bot.core.model.Event`, ...) and returns text in Discord's markdown
or a :class:`discord.Embed`; it sends nothing. The board picture's scene is
:func:`bot.discord.boards.scene_for`. The table, cogs and buttons decide
where these go.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import TypeVar

import discord

from bot.core.model import (
    ChallengeView,
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
from bot.discord.limits import clip, in_code, plain, shown
from engine import Phase, WinKind, XgidError

Listed = TypeVar("Listed", GameState, GameListing)
"""A game in a list: as it stands (rebuilt), or as its row says (``/bg games``)."""

COLOUR = discord.Colour(0x2E7D5B)
"""The bot's accent colour (felt green)."""
WIN_COLOUR = discord.Colour(0xC9A227)
MAX_CONTENT = 2000
MAX_EVENT_LINES = 12
MAX_EVENT_CHARS = 300
SELECT_LIMIT = 25


def sentence(text: str) -> str:
    """The service speaks in lower-case clauses; a message starts with a capital.

    Only for our own words: a text that may start with what a player typed or
    their name is shown through :func:`bot.discord.limits.plain` as it is."""
    text = str(text).strip()  # a message made elsewhere (i18n.Said) worded in the language in force
    return text[:1].upper() + text[1:] if text else text


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def timestamp(moment: datetime, style: str = "R") -> str:
    """A Discord timestamp that each reader sees in their own time zone."""
    return f"<t:{int(moment.timestamp())}:{style}>"


def jump_url(guild_id: int | None, channel_id: int, message_id: int) -> str:
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


def board_link(state: GameState | GameListing) -> str | None:
    if state.board_message is None:
        return None
    channel_id, message_id = state.board_message
    return jump_url(state.guild_id, channel_id, message_id)


def opponent_of(state: GameState | GameListing | GameSummary, user_id: int) -> str:
    seat = state.seat(user_id)
    if seat is None:
        return " vs ".join(shown(p.name) for p in state.players)
    return shown(state.players[1 - seat].name)


def describe_kind(state: GameState) -> str:
    options = state.options
    if options.match_length:
        score = state.match.score
        return f"{options.match_length}-point match, {shown(state.players[0].name)} {score[0]} - {score[1]} {shown(state.players[1].name)}"
    return f"money game at {options.stake} per point, cube {state.game.cube_value}"


# -- whose turn -----------------------------------------------------------------


def what_to_do(state: GameState) -> str | None:
    """``"to roll or double"``, ``"to play 6-5"``, ... for the player to act (None when over)."""
    actor = state.to_act()
    if actor is None:
        return None
    game = state.game
    phase = game.phase
    if phase is Phase.ROLL:
        if game.opening_offer is not None:
            offer = game.opening_offer
            return f"to play the opening {offer.high}-{offer.low} or throw again"
        return "to roll or double" if game.can_double(game.turn) else "to roll"
    if phase is Phase.PLAY:
        dice = game.dice
        todo = f"to play {dice.high}-{dice.low}" if dice is not None else "to play"
        if len(state.legal_play_texts()) > SELECT_LIMIT:
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


def turn_line(state: GameState, *, ping: bool = True, away: datetime | None = None) -> str:
    """The last line of a board message: who acts now, by when (``away``: the end
    of their vacation, when they are on one)."""
    actor = state.to_act()
    todo = what_to_do(state)
    if actor is None or todo is None:
        return ""
    if actor.is_bot:  # the computer: no mention, no deadline
        return f"▶ 🤖 **{shown(actor.name)}** {todo} (thinking…)"
    who = mention(actor.user_id) if ping else f"**{shown(actor.name)}**"
    line = f"▶ {who} {todo}"
    if away is not None:
        line += f" · 🏖️ on vacation until {timestamp(away)}: their clock waits until then"
    elif state.deadline is not None:
        line += f" (time runs out {timestamp(state.deadline)})"
    return line


def turn_pings(state: GameState, *, ping: bool = True) -> list[int]:
    """Whom :func:`turn_line` pings: the person to act (not the computer), if ``ping``."""
    actor = state.to_act()
    if not ping or actor is None or actor.is_bot or what_to_do(state) is None:
        return []
    return [actor.user_id]


def board_content(
    state: GameState, events: Sequence[Event] = (), *, ping: bool = True, away: datetime | None = None
) -> str:
    """What happened (one line per event) and whose turn it is, within Discord's 2000 characters.

    The header and the turn line (with its mention) always stay; when there
    is too much to tell, the oldest events give way.
    """
    header = f"**Game #{state.id}** · {describe_kind(state)}"
    commitment = commitment_line(state, events)
    if commitment:
        header += "\n" + commitment
    footer = turn_line(state, ping=ping, away=away)
    if not footer and state.status == "abandoned":
        footer = "The game was abandoned. Start a new one with `/bg challenge`."
    elif not footer and not state.is_active:
        footer = "The match is over. Play again with `/bg challenge`."
    lines = [f"• {clip(event_line(state, e), MAX_EVENT_CHARS)}" for e in events if e.text]
    budget = MAX_CONTENT - len(header) - len(footer) - 2
    dropped = 0
    while lines and (len(lines) > MAX_EVENT_LINES or sum(len(line) + 1 for line in lines) + 40 > budget):
        lines.pop(0)
        dropped += 1
    if dropped:
        lines.insert(0, f"• … {dropped} earlier event{'s' if dropped != 1 else ''}")
    return "\n".join([header, *lines, *([footer] if footer else [])])[:MAX_CONTENT]


def starts_match(state: GameState, events: Sequence[Event]) -> bool:
    """Whether these events start the first game of the stored game (its first message)."""
    return len(state.match.games) == 1 and any(e.kind in ("opening", "setup") for e in events)


def commitment_line(state: GameState, events: Sequence[Event]) -> str:
    """The provably fair dice commitment, for the first message of a game."""
    fair = state.fair_dice
    if not fair or not starts_match(state, events):
        return ""
    salt = f", salt `{fair['salt']}`" if fair.get("salt") else ""
    return (
        f"🎲 Fair dice: commitment `{fair['commitment']}`, nonce `{fair['nonce']}`{salt}. "
        "The seed is revealed when the game ends: check every roll with `/bgtools verify`."
    )


def event_line(state: GameState, event: Event) -> str:
    """The event's text, capitalised unless it starts with a player's name (names keep their
    case), and neutralised: it holds names, which may hold markdown or mentions."""
    text = str(event.text)  # worded now, in the language of the message (i18n.Said)
    if any(p.name and text.startswith(p.name) for p in state.players):
        return plain(text, MAX_EVENT_CHARS)
    return plain(sentence(text), MAX_EVENT_CHARS)


def state_summary(state: GameState) -> str:
    """One or two lines on where a game stands (for private answers)."""
    if not state.is_active:
        return f"Game #{state.id} is {state.status}."
    actor = state.to_act()
    todo = what_to_do(state)
    text = f"Game #{state.id}: {describe_kind(state)}."
    if actor is not None and todo is not None:
        text += f" Now: {shown(actor.name)} {todo}."
    link = board_link(state)
    if link:
        text += f" [Current board]({link})"
    return text


# -- results -----------------------------------------------------------------------------


def game_over_events(events: Iterable[Event]) -> list[Event]:
    return [e for e in events if e.kind in ("game_over", "match_over", "abandon", "timeout", "forfeit")]


def result_embed(
    state: GameState, events: Sequence[Event], rating_changes: Sequence[RatingChange] = ()
) -> discord.Embed | None:
    """An embed for a finished game or match (None if nothing ended)."""
    ended = [e for e in events if e.kind in ("game_over", "match_over", "abandon")]
    if not ended and state.is_active:
        return None
    match_over = any(e.kind == "match_over" for e in events) or not state.is_active
    title = "Match over" if match_over and state.options.match_length else "Game over"
    if state.status == "abandoned":
        title = "Game abandoned"
    embed = discord.Embed(title=f"{title} · game #{state.id}", colour=WIN_COLOUR)
    lines = [event_line(state, e) for e in ended] or [f"The game is {state.status}."]
    embed.description = "\n".join(lines)
    score = state.match.score
    if state.options.match_length:
        embed.add_field(
            name="Score",
            value=f"{shown(state.players[0].name)} {score[0]} - {score[1]} {shown(state.players[1].name)} (to {state.options.match_length})",
            inline=False,
        )
    else:
        stake = state.options.stake
        embed.add_field(
            name="Points",
            value=f"{shown(state.players[0].name)} {score[0]} - {score[1]} {shown(state.players[1].name)}"
            + (f" (x{stake} stake)" if stake != 1 else ""),
            inline=False,
        )
    fair = state.fair_dice
    if fair and fair.get("seed") and not state.is_active:
        embed.add_field(
            name="Fair dice",
            value=(
                f"Seed `{fair['seed']}` (commitment `{fair['commitment']}`, nonce `{fair['nonce']}`). "
                f"Check every roll: `/bgtools verify game:{state.id}`"
            )[:1024],
            inline=False,
        )
    if not state.options.rated:
        embed.set_footer(
            text="Unrated: " + ("a game against the computer" if state.options.computer_level else "a practice game")
        )
    changes = [c for c in rating_changes if c.scope == state.guild_id] or list(rating_changes)
    if changes:
        names = {p.user_id: shown(p.name) for p in state.players}
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


def by_urgency(games: Sequence[Listed], user_id: int) -> list[Listed]:
    """Games waiting for ``user_id`` first, the least time left first; then the others by their clocks."""
    far = datetime.max.replace(tzinfo=UTC)

    def key(state: Listed) -> tuple[int, datetime, int]:
        actor = state.to_act()
        mine = actor is not None and actor.user_id == user_id
        return (0 if mine else 1, state.deadline or far, state.id)

    return sorted(games, key=key)


def games_embed(games: Sequence[GameState | GameListing], user_id: int) -> discord.Embed:
    """``/bg games``: the member's games, the most urgent first."""
    embed = discord.Embed(title="Your games in this server", colour=COLOUR)
    if not games:
        embed.description = "No games going on. Start one with `/bg challenge`."
        return embed
    rows = []
    for state in by_urgency(games, user_id)[:20]:
        actor = state.to_act()
        status = (
            "**your turn**"
            if actor and actor.user_id == user_id
            else f"waiting for {shown(actor.name)}"
            if actor
            else state.status
        )
        if state.deadline is not None and actor is not None and not actor.is_bot:
            status += f", time runs out {timestamp(state.deadline)}"
        link = board_link(state)
        where = f"[board]({link})" if link else f"<#{state.channel_id}>"
        rows.append(f"#{state.id} vs {opponent_of(state, user_id)} · {status} · {where}")
    if len(games) > 20:
        rows.append(f"… and {len(games) - 20} more")
    embed.description = "\n".join(rows)
    return embed


def games_buttons(games: Sequence[GameState | GameListing], user_id: int) -> discord.ui.View | None:
    """A link button to each game's board, the most urgent first (Discord allows 25)."""
    buttons = discord.ui.View(timeout=None)
    for state in by_urgency(games, user_id):
        link = board_link(state)
        if link is None:
            continue
        actor = state.to_act()
        mark = "▶ " if actor is not None and actor.user_id == user_id else ""
        seat = state.seat(user_id)
        opponent = state.players[1 - seat].name if seat is not None else "?"
        label = f"{mark}#{state.id} vs {opponent}"  # a label shows no markup: the name as it is
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


def shots_text(state: GameState, odds: Sequence[BlotOdds]) -> str:
    """``/bg shots``: each player's blots and the throws of 36 that hit them."""
    lines = [f"🎯 **Shots at the blots** of game #{state.id} (throws out of 36, if the other side threw now):"]
    for side in odds:
        name = shown(state.players[side.seat].name)
        if not side.blots:
            lines.append(f"**{name}**: no blots")
            continue
        each = ", ".join(f"{point}-point {ways}" for point, ways in side.blots)
        lines.append(f"**{name}**: {each} · hit at all: {side.any_hit}/36 ({side.any_hit / 36:.0%})")
    lines.append("Points are counted from each player's own side. The old texts' table: `/bg rules topic:odds`.")
    return clip("\n".join(lines), MAX_CONTENT)


# -- the computer, hints and analysis ----------------------------------------------------------

MAX_EMBED_DESCRIPTION = 4096


def hint_text(state: GameState, lines: Sequence[str]) -> str:
    """The private answer to ``/bg hint``."""
    game = state.game
    if not lines:
        return "There's nothing to advise right now."
    if game.phase is Phase.PLAY and game.dice is not None:
        title = f"Best plays for {game.dice.high}-{game.dice.low} (equity, cubeless):"
    elif game.phase is Phase.DOUBLED:
        title = "Take or pass:"
    else:
        title = "Cube action:"
    return clip(title + "\n```\n" + in_code("\n".join(lines)) + "\n```", MAX_CONTENT)


def analysis_embed(state: GameState | GameSummary, summaries: Sequence[tuple[int, str]]) -> discord.Embed:
    """Each player's error rate, blunders and luck, game by game (``(number, summary)`` pairs)."""
    names = " vs ".join(shown(p.name) for p in state.players)
    embed = discord.Embed(title=f"📊 Analysis · game #{state.id} · {names}", colour=COLOUR)
    several = state.game_count > 1
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


def position_text(state: GameState) -> str:
    """The current position as a GNU Backgammon ID and an XGID (when an XGID can show it)."""
    game = state.game
    lines = [f"**Game #{state.id}** · the current position", f"GNU Backgammon ID: `{game.gnubg_id()}`"]
    try:
        xgid = game.xgid()
    except XgidError:
        lines.append(f"XGID: {_no_xgid(game.phase)}")
    else:
        lines.append(f"XGID ({shown(state.players[1].name)} at the bottom): `{xgid}`")
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
