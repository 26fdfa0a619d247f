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

import i18n
from bot.core.model import (
    ChallengeView,
    Event,
    GameListing,
    GameState,
    GameSummary,
    LeaderboardPage,
    PlayerRef,
    PlayerStats,
    RatingChange,
    TeamSeat,
    variant_name,
)
from bot.core.narration import phrase
from bot.core.shots import BlotOdds
from bot.core.tournaments import TournamentRecord
from bot.discord.limits import clip, in_code, plain, shown
from engine import Phase, WinKind, XgidError
from engine.variants import TablesGame
from i18n import N_, _, ngettext

STATUSES = {
    "active": N_("active"),
    "finished": N_("finished"),
    "abandoned": N_("abandoned"),
    "pending": N_("pending"),
    "accepted": N_("accepted"),
    "declined": N_("declined"),
    "cancelled": N_("cancelled"),
    "expired": N_("expired"),
    "signup": N_("sign-up"),
    "running": N_("running"),
}
"""A game's or a challenge's status, for the catalogue."""


def status_word(status: str) -> str:
    """A status as a member reads it."""
    return _(STATUSES[status]) if status in STATUSES else status


Listed = TypeVar("Listed", bound=GameState | GameListing)
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
        return _(" vs ").join(shown(p.name) for p in state.players)
    return shown(state.players[1 - seat].name)


def describe_kind(state: GameState) -> str:
    options = state.options
    if options.match_length:
        score = state.match.score
        return _("{length}-point match, {first} {first_score} - {second_score} {second}").format(
            length=options.match_length,
            first=shown(state.players[0].name),
            first_score=score[0],
            second_score=score[1],
            second=shown(state.players[1].name),
        )
    if options.chouette is not None:  # the cubes are the team members', shown by /bgclub ledger
        return _("a chouette's game: box {box} against captain {captain}").format(
            box=shown(state.players[0].name), captain=shown(state.players[1].name)
        )
    if options.is_tables:  # one game of plakoto, fevga or nardy: no stake, no cube
        return _("a game of {game}").format(game=variant_name(options.variant))
    return _("money game at {stake} per point, cube {cube}").format(stake=options.stake, cube=state.game.cube_value)


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
            return _("to play the opening {dice} or throw again").format(dice=f"{offer.high}-{offer.low}")
        return _("to roll or double") if game.can_double(game.turn) else _("to roll")
    if phase is Phase.PLAY:
        dice = game.dice
        todo = _("to play {dice}").format(dice=f"{dice.high}-{dice.low}") if dice is not None else _("to play")
        if len(state.legal_play_texts()) > SELECT_LIMIT:
            todo += " " + _("(type it with `/bg move`)")
        return todo
    if phase is Phase.DOUBLED:
        cube = game.offered_cube or game.cube_value * 2
        if game.can_beaver(game.turn):
            return _("to take, beaver or pass the double to {cube}").format(cube=cube)
        return _("to take or pass the double to {cube}").format(cube=cube)
    if phase is Phase.RESIGNATION:
        level = game.resignation[1] if game.resignation else 1
        return _("to accept or reject the offer to resign {what}").format(
            what=phrase(WinKind(level)) if level in tuple(WinKind) else _("a game")
        )
    if phase is Phase.OPENING:
        return _("to throw the opening die")
    return None


def turn_line(state: GameState, *, ping: bool = True, away: datetime | None = None) -> str:
    """The last line of a board message: who acts now, by when (``away``: the end
    of their vacation, when they are on one)."""
    actor = state.to_act()
    todo = what_to_do(state)
    if actor is None or todo is None:
        return ""
    if actor.is_bot:  # the computer: no mention, no deadline
        return f"▶ 🤖 **{shown(actor.name)}** {todo} " + _("(thinking…)")
    if state.options.team_at(state.game.turn) is not None:  # a team in consultation: it votes, nobody is pinged
        line = f"▶ 👥 **{shown(actor.name)}** {todo} " + _("(the team votes in its thread)")
        if state.deadline is not None:
            line += " " + _("(time runs out {when})").format(when=timestamp(state.deadline))
        return line
    who = mention(actor.user_id) if ping else f"**{shown(actor.name)}**"
    line = f"▶ {who} {todo}"
    if away is not None:
        line += " · 🏖️ " + _("on vacation until {when}: their clock waits until then").format(when=timestamp(away))
    elif state.deadline is not None:
        line += " " + _("(time runs out {when})").format(when=timestamp(state.deadline))
    return line


def turn_pings(state: GameState, *, ping: bool = True) -> list[int]:
    """Whom :func:`turn_line` pings: the person to act (not the computer), if ``ping``."""
    actor = state.to_act()
    if not ping or actor is None or actor.is_bot or what_to_do(state) is None:
        return []
    if state.options.team_at(state.game.turn) is not None:
        return []  # a team: its members hear of it in their own thread
    return [actor.user_id]


def board_content(
    state: GameState, events: Sequence[Event] = (), *, ping: bool = True, away: datetime | None = None
) -> str:
    """What happened (one line per event) and whose turn it is, within Discord's 2000 characters.

    The header and the turn line (with its mention) always stay; when there
    is too much to tell, the oldest events give way.
    """
    header = f"**{_('Game #{game}').format(game=state.id)}** · {describe_kind(state)}"
    commitment = commitment_line(state, events)
    if commitment:
        header += "\n" + commitment
    footer = turn_line(state, ping=ping, away=away)
    if not footer and state.status == "abandoned":
        footer = _("The game was abandoned. Start a new one with `/bg challenge`.")
    elif not footer and not state.is_active:
        footer = _("The match is over. Play again with `/bg challenge`.")
    lines = [f"• {clip(event_line(state, e), MAX_EVENT_CHARS)}" for e in events if e.text]
    budget = MAX_CONTENT - len(header) - len(footer) - 2
    dropped = 0
    while lines and (len(lines) > MAX_EVENT_LINES or sum(len(line) + 1 for line in lines) + 40 > budget):
        lines.pop(0)
        dropped += 1
    if dropped:
        lines.insert(
            0, "• … " + ngettext("{count} earlier event", "{count} earlier events", dropped).format(count=dropped)
        )
    return "\n".join([header, *lines, *([footer] if footer else [])])[:MAX_CONTENT]


def starts_match(state: GameState, events: Sequence[Event]) -> bool:
    """Whether these events start the first game of the stored game (its first message)."""
    return len(state.match.games) == 1 and any(e.kind in ("opening", "setup") for e in events)


def commitment_line(state: GameState, events: Sequence[Event]) -> str:
    """The provably fair dice commitment, for the first message of a game."""
    fair = state.fair_dice
    if not fair or not starts_match(state, events):
        return ""
    salt = ", " + _("salt {salt}").format(salt=f"`{fair['salt']}`") if fair.get("salt") else ""
    return "🎲 " + _(
        "Fair dice: commitment {commitment}, nonce {nonce}{salt}. "
        "The seed is revealed when the game ends: check every roll with `/bgtools verify`."
    ).format(commitment=f"`{fair['commitment']}`", nonce=f"`{fair['nonce']}`", salt=salt)


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
        return _("Game #{game} is {status}.").format(game=state.id, status=status_word(state.status))
    actor = state.to_act()
    todo = what_to_do(state)
    text = _("Game #{game}: {kind}.").format(game=state.id, kind=describe_kind(state))
    if actor is not None and todo is not None:
        text += " " + _("Now: {name} {todo}.").format(name=shown(actor.name), todo=todo)
    link = board_link(state)
    if link:
        text += f" [{_('Current board')}]({link})"
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
    title = _("Match over") if match_over and state.options.match_length else _("Game over")
    if state.status == "abandoned":
        title = _("Game abandoned")
    embed = discord.Embed(title=f"{title} · " + _("game #{game}").format(game=state.id), colour=WIN_COLOUR)
    lines = [event_line(state, e) for e in ended] or [
        _("The game is {status}.").format(status=status_word(state.status))
    ]
    embed.description = "\n".join(lines)
    score = state.match.score
    if state.options.match_length:
        embed.add_field(
            name=_("Score"),
            value=f"{shown(state.players[0].name)} {score[0]} - {score[1]} {shown(state.players[1].name)} "
            + _("(to {length})").format(length=state.options.match_length),
            inline=False,
        )
    else:
        stake = state.options.stake
        embed.add_field(
            name=_("Points"),
            value=f"{shown(state.players[0].name)} {score[0]} - {score[1]} {shown(state.players[1].name)}"
            + (" " + _("(x{stake} stake)").format(stake=stake) if stake != 1 else ""),
            inline=False,
        )
    fair = state.fair_dice
    if fair and fair.get("seed") and not state.is_active:
        embed.add_field(
            name=_("Fair dice"),
            value=(
                _("Seed {seed} (commitment {commitment}, nonce {nonce}). Check every roll: {command}").format(
                    seed=f"`{fair['seed']}`",
                    commitment=f"`{fair['commitment']}`",
                    nonce=f"`{fair['nonce']}`",
                    command=f"`/bgtools verify game:{state.id}`",
                )
            )[:1024],
            inline=False,
        )
    if not state.options.rated:
        embed.set_footer(
            text=_("Unrated: a game against the computer")
            if state.options.computer_level
            else _("Unrated: a practice game")
        )
    changes = [c for c in rating_changes if c.scope == state.guild_id] or list(rating_changes)
    if changes:
        names = {p.user_id: shown(p.name) for p in state.players}
        embed.add_field(
            name=_("Rating"),
            value="\n".join(
                f"{names.get(c.user_id, c.user_id)}: {c.before:.1f} → {c.after:.1f} ({c.delta:+.1f})" for c in changes
            ),
            inline=False,
        )
    return embed


# -- challenges ----------------------------------------------------------------------------


def side_mention(player: PlayerRef, team: TeamSeat | None) -> str:
    """A side of a challenge as its message names it: a member's mention, a team's role
    mention (the role is pinged only if the message's allowed mentions say so), or a
    thread team's name."""
    if team is None:
        return mention(player.user_id)
    return f"<@&{team.team_id}>" if team.kind == "role" else f"**{shown(player.name)}**"


def challenge_content(challenge: ChallengeView, *, thread: bool = False) -> str:
    where = " " + _("The game gets its own thread.") if thread else ""
    expires = " " + _("Answer {when}.").format(when=timestamp(challenge.expires_at)) if challenge.expires_at else ""
    hints = (
        " " + _("Hints are on: accepting agrees that both players may ask `/bg hint` on their turn.")
        if challenge.options.hints
        else ""
    )
    seat = challenge.options.challenger_seat
    text = (
        _("{challenged}, {challenger} challenges you to {what}.").format(
            challenged=side_mention(challenge.challenged, challenge.options.team_at(1 - seat)),
            challenger=side_mention(challenge.challenger, challenge.options.team_at(seat)),
            what=str(challenge.options.describe()),
        )
        + f"{hints}{where}{expires}"
    )
    fair = challenge.fair_dice
    if fair:
        text += "\n🎲 " + _(
            "Dice committed now: {commitment} (nonce {nonce}). Accepting mixes in the "
            "click's Discord id (and your own seed, if you give one), so nobody can pick the dice; the seed is "
            "revealed when the game ends. This message keeps these words."
        ).format(commitment=f"`{fair['commitment']}`", nonce=f"`{fair['nonce']}`")
    return text


def challenge_closed_content(challenge: ChallengeView, status: str, extra: str = "") -> str:
    challenger, challenged = shown(challenge.challenger.name), shown(challenge.challenged.name)
    words = {
        "accepted": "✅ " + _("{challenged} accepted {challenger}'s challenge"),
        "declined": "❌ " + _("{challenged} declined {challenger}'s challenge"),
        "cancelled": "↩️ " + _("{challenger} withdrew the challenge to {challenged}"),
        "expired": "⌛ " + _("{challenger}'s challenge to {challenged} expired"),
    }
    text = words.get(status, _("The challenge is {status}")).format(
        challenged=challenged, challenger=challenger, status=status
    )
    text += f" ({challenge.options.describe()})."
    return text + (f" {extra}" if extra else "")


# -- lists and tables -----------------------------------------------------------------------


def computer_line(record: tuple[int, int] | None) -> str:
    """The computer's record against the server (its games are unrated, so it has its own line)."""
    if not record or not any(record):
        return ""
    wins, losses = record
    return "🤖 " + _("Computer: {wins}, {losses} against this server (unrated)").format(
        wins=ngettext("{count} win", "{count} wins", wins).format(count=wins),
        losses=ngettext("{count} loss", "{count} losses", losses).format(count=losses),
    )


def leaderboard_embed(
    page: LeaderboardPage,
    kind: str,
    guild_name: str | None = None,
    computer: tuple[int, int] | None = None,
) -> discord.Embed:
    where = f" · {plain(guild_name, 100)}" if guild_name else ""
    by = _("Leaderboard by points") if kind == "points" else _("Leaderboard by rating")
    embed = discord.Embed(title=f"{by}{where}", colour=COLOUR)
    if not page.entries:
        embed.description = _("Nobody is ranked yet. Finish a game with `/bg challenge` to get on the board.")
    else:
        rows = []
        for entry in page.entries:
            s = entry.stats
            name = shown(s.display_name or _("player {id}").format(id=s.user_id))
            if kind == "points":
                points = ngettext("{count} point", "{count} points", abs(s.net_points)).format(
                    count=f"{s.net_points:+d}"
                )
                rows.append(f"`{entry.rank:>3}` **{name}** · {points} · {s.wins}-{s.losses}")
            else:
                rows.append(f"`{entry.rank:>3}` **{name}** · {s.rating:.1f} · {s.wins}-{s.losses}")
        embed.description = "\n".join(rows)
    line = computer_line(computer)
    if line:
        embed.description += "\n\n" + line
    pages = max((page.total + page.limit - 1) // page.limit, 1) if page.limit else 1
    embed.set_footer(
        text=_("Page {page} of {pages} · {total} ranked").format(
            page=page.offset // max(page.limit, 1) + 1, pages=pages, total=page.total
        )
    )
    return embed


def ordinal(n: int) -> str:
    if i18n.current() != i18n.ENGLISH:
        return _("{number}.").format(number=n)  # "1st" is English: other languages' own ordinal
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def tournament_line(record: TournamentRecord | None) -> str | None:
    """Titles and the best finish in finished tournaments (None: none played)."""
    if record is None or not record.played:
        return None
    titles = ngettext("{count} title", "{count} titles", record.titles).format(count=record.titles)
    best = ""
    if record.best_place is not None:
        of = " " + _("of {field}").format(field=record.best_field) if record.best_field else ""
        where = f" ({plain(record.best_name)})" if record.best_name else ""
        best = " · " + _("best finish {place}").format(place=ordinal(record.best_place)) + f"{of}{where}"
    return f"{titles}{best} · " + _("{count} played").format(count=record.played)


def stats_embed(name: str, stats: PlayerStats | None, tournaments: TournamentRecord | None = None) -> discord.Embed:
    embed = discord.Embed(title=_("Stats") + f" · {shown(name)}", colour=COLOUR)
    record = tournament_line(tournaments)
    if stats is None:
        embed.description = _("No finished games yet. Challenge someone with `/bg challenge`.")
        if record:
            embed.add_field(name=_("Tournaments"), value=record)
        return embed
    s = stats.stats
    embed.add_field(
        name=_("Rating"),
        value=_("{rating} (best {best})").format(rating=f"{s.rating:.1f}", best=f"{s.best_rating:.1f}"),
    )
    embed.add_field(name=_("Rank"), value=_("{rank} of {ranked}").format(rank=stats.rank, ranked=stats.ranked_players))
    embed.add_field(name=_("Experience"), value=str(s.experience))
    embed.add_field(
        name=_("Matches"),
        value=_("{games} played · {wins} won · {losses} lost").format(games=s.games, wins=s.wins, losses=s.losses),
    )
    embed.add_field(name=_("Gammons / backgammons"), value=f"{s.gammons} / {s.backgammons}")
    embed.add_field(
        name=_("Points"),
        value=_("{won} won · {lost} lost ({net})").format(
            won=s.points_won, lost=s.points_lost, net=f"{s.net_points:+d}"
        ),
    )
    if record:
        embed.add_field(name=_("Tournaments"), value=record)
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
    embed = discord.Embed(title=_("Your games in this server"), colour=COLOUR)
    if not games:
        embed.description = _("No games going on. Start one with `/bg challenge`.")
        return embed
    rows = []
    for state in by_urgency(games, user_id)[:20]:
        actor = state.to_act()
        status = (
            f"**{_('your turn')}**"
            if actor and actor.user_id == user_id
            else _("waiting for {name}").format(name=shown(actor.name))
            if actor
            else status_word(state.status)
        )
        if state.deadline is not None and actor is not None and not actor.is_bot:
            status += ", " + _("time runs out {when}").format(when=timestamp(state.deadline))
        link = board_link(state)
        where = f"[{_('board')}]({link})" if link else f"<#{state.channel_id}>"
        rows.append(
            _("#{game} vs {opponent}").format(game=state.id, opponent=opponent_of(state, user_id))
            + f" · {status} · {where}"
        )
    if len(games) > 20:
        rows.append("… " + _("and {count} more").format(count=len(games) - 20))
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
        label = mark + _("#{game} vs {opponent}").format(game=state.id, opponent=opponent)  # no markup in a label
        buttons.add_item(discord.ui.Button(label=label[:80], url=link))
        if len(buttons.children) == 25:
            break
    return buttons if buttons.children else None


def history_embed(games: Sequence[GameSummary], user_id: int, name: str) -> discord.Embed:
    embed = discord.Embed(title=_("Recent games") + f" · {shown(name)}", colour=COLOUR)
    if not games:
        embed.description = _("No finished games yet.")
        return embed
    rows = []
    for game in games:
        seat = game.seat(user_id)
        if game.status == "abandoned":
            verdict = _("abandoned")
        elif game.winner_seat is None or seat is None:
            verdict = status_word(game.status)
        else:
            verdict = _("won") if game.winner_seat == seat else _("lost")
        score = game.score
        mine, theirs = (score[seat], score[1 - seat]) if seat is not None else score
        kind = _("{length}-pt").format(length=game.options.match_length) if game.options.match_length else _("money")
        row = _("#{game} vs {opponent}").format(game=game.id, opponent=opponent_of(game, user_id))
        row += f" · {kind} · **{verdict}** {mine}-{theirs}"
        change = next((c for c in game.rating_changes if c.user_id == user_id and c.scope == game.guild_id), None)
        if change is not None:
            row += " · " + _("rating {delta}").format(delta=f"{change.delta:+.1f}")
        rows.append(row)
    embed.description = "\n".join(rows)
    embed.set_footer(text=_("{command} gives a game as a .mat file").format(command="/bg export game:<number>"))
    return embed


def shots_text(state: GameState, odds: Sequence[BlotOdds]) -> str:
    """``/bg shots``: each player's blots and the throws of 36 that hit them."""
    lines = [
        "🎯 "
        + _("**Shots at the blots** of game #{game} (throws out of 36, if the other side threw now):").format(
            game=state.id
        )
    ]
    for side in odds:
        name = shown(state.players[side.seat].name)
        if not side.blots:
            lines.append(f"**{name}**: " + _("no blots"))
            continue
        each = ", ".join(_("{point}-point {ways}").format(point=point, ways=ways) for point, ways in side.blots)
        hit = _("hit at all: {ways}/36 ({share})").format(ways=side.any_hit, share=f"{side.any_hit / 36:.0%}")
        lines.append(f"**{name}**: {each} · {hit}")
    lines.append(_("Points are counted from each player's own side. The old texts' table: `/bg rules topic:odds`."))
    return clip("\n".join(lines), MAX_CONTENT)


# -- the computer, hints and analysis ----------------------------------------------------------

MAX_EMBED_DESCRIPTION = 4096


def hint_text(state: GameState, lines: Sequence[str]) -> str:
    """The private answer to ``/bg hint``."""
    game = state.game
    if not lines:
        return _("There's nothing to advise right now.")
    if game.phase is Phase.PLAY and game.dice is not None:
        title = _("Best plays for {dice} (equity, cubeless):").format(dice=f"{game.dice.high}-{game.dice.low}")
    elif game.phase is Phase.DOUBLED:
        title = _("Take or pass:")
    else:
        title = _("Cube action:")
    return clip(title + "\n```\n" + in_code("\n".join(lines)) + "\n```", MAX_CONTENT)


def analysis_embed(state: GameState | GameSummary, summaries: Sequence[tuple[int, str]]) -> discord.Embed:
    """Each player's error rate, blunders and luck, game by game (``(number, summary)`` pairs)."""
    names = _(" vs ").join(shown(p.name) for p in state.players)
    embed = discord.Embed(
        title="📊 " + _("Analysis · game #{game}").format(game=state.id) + f" · {names}", colour=COLOUR
    )
    several = state.game_count > 1
    parts = []
    for number, summary in summaries:
        head = "**" + _("Game {number}").format(number=number) + "**\n" if several else ""
        parts.append(f"{head}```\n{in_code(summary) or _('no decisions')}\n```")
    text = "\n".join(parts) or _("Nothing to analyse.")
    if len(text) > MAX_EMBED_DESCRIPTION - 100:
        text = text[: MAX_EMBED_DESCRIPTION - 110].rsplit("\n", 1)[0] + "\n…```"
    embed.description = text
    embed.set_footer(
        text=_(
            "PR: equity lost per decision × 500 (XG's scale); "
            "error rate: millipoints lost per decision (GNU Backgammon's scale); "
            "luck: equity gained by the dice. Blunders lose more than 0.08."
        )
    )
    return embed


# -- trust: fair dice, statistics, positions --------------------------------------------------


def position_text(state: GameState) -> str:
    """The current position as a GNU Backgammon ID and an XGID (when an XGID can show it); in plakoto,
    fevga and nardy, which neither program plays, the game's own position ID."""
    game = state.game
    header = "**" + _("Game #{game}").format(game=state.id) + "** · " + _("the current position")
    if isinstance(game, TablesGame):
        name = variant_name(game.game)
        return "\n".join(
            [
                header,
                _("Position ID ({game}): {id}").format(game=name, id=f"`{game.position_id()}`"),
                _("GNU Backgammon and XG do not play {game}: neither reads this ID.").format(game=name),
            ]
        )
    lines = [header, _("GNU Backgammon ID: {id}").format(id=f"`{game.gnubg_id()}`")]
    try:
        xgid = game.xgid()
    except XgidError:
        lines.append(f"XGID: {_no_xgid(game.phase)}")
    else:
        lines.append(_("XGID ({name} at the bottom): {id}").format(name=shown(state.players[1].name), id=f"`{xgid}`"))
    lines.append(_("Paste either into GNU Backgammon or XG, or practise from it with `/bgtools setup`."))
    return "\n".join(lines)


def _no_xgid(phase: Phase) -> str:
    if phase is Phase.RESIGNATION:
        return _("none while a resignation waits for an answer (an XGID can't show one)")
    if phase is Phase.OPENING:
        return _("none before the opening throw")
    return _("none now")


POSITION_KINDS = {"xgid": "XGID", "gnubg": N_("GNU Backgammon ID"), "position": N_("Position ID")}
"""How :func:`engine.ids.find_ids`'s kinds are named to players."""


def found_position_text(kind: str, gnubg_id: str, xgid: str | None, link: str, found: int) -> str:
    """The words with a board drawn from a message ("Show board"): both IDs, who is who."""
    lines = [
        _("The {kind} in {link}:").format(kind=_(POSITION_KINDS[kind]), link=link),
        _("GNU Backgammon ID: {id}").format(id=f"`{gnubg_id}`"),
    ]
    if xgid is not None:
        lines.append(_("XGID: `{xgid}`").format(xgid=xgid))
    lines.append(_("O is GNU Backgammon's player 0 (the top player of an XGID), X its player 1 (the bottom player)."))
    if found > 1:
        lines.append(
            _("(That message has {count} positions written in it: this is the first I can read.)").format(count=found)
        )
    lines.append(_("Practise from it with `/bgtools setup`."))
    return "\n".join(lines)
