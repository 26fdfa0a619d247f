"""The pseudo-language proof: with every catalogue message replaced ("⟦…⟧", accented
letters), the bot's flows show no English word outside names, notation and numbers.

Every member's client and the server speak the pseudo-language (tests/i18n/catalogues.py);
everything a member reads is gathered (public posts and private answers, their embeds,
buttons, menus) and :func:`english_words` lists what went round the catalogue. A string
the code does not send through ``_()`` (or one missing from the template) fails here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import discord
import pytest
import simcord.interactions

from engine import GLOSSARY, Roll, call
from tests.i18n.catalogues import PSEUDO, catalogues, english_words, pseudo, pseudo_catalogue

NAMES = (
    {"alice", "bob", "carol", "mod", "olga", "Backgammon", "Club", "backgammon", "TestBot", "Cup", "Bh", "SB", "UTC"}
    | {"Hoyle", "Snowie", "cIkW"}  # an author, a match equity table, a Match ID a member typed
    | {word for term in GLOSSARY for word in re.findall(r"[A-Za-z]+", f"{term.word} {term.said or ''}")}
    | {word for a in range(1, 7) for b in range(1, a + 1) for word in call(Roll(a, b)).split()}
)
"""Names of the members, the server, the channel and the tournament, the tie-breaks' abbreviations
(Buchholz, Sonneborn-Berger), a time zone, the old words the glossary explains and the old calls
of the throws ("six deuce")."""


@pytest.fixture
def pseudo_world(world: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The world with every member's client and the server in the pseudo-language."""
    base = simcord.interactions.base_payload

    def payload(backend: Any, **kwargs: Any) -> Any:
        record, data = base(backend, **kwargs)
        data["locale"] = PSEUDO
        return record, data

    monkeypatch.setattr(simcord.interactions, "base_payload", payload)
    with catalogues(monkeypatch, **{PSEUDO: pseudo_catalogue()}):
        world.service.languages._servers[world.guild.id] = PSEUDO
        world.bot.table.notes.available = lambda: False  # no analysis after the game: not this test's
        yield world


def message_texts(message: discord.Message) -> list[str]:
    texts = [message.content or ""]
    for embed in message.embeds:
        texts += [embed.title or "", embed.description or "", embed.footer.text or "", embed.author.name or ""]
        for field in embed.fields:
            texts += [field.name or "", field.value or ""]
    for row in message.components:
        for child in getattr(row, "children", [row]):
            texts += [getattr(child, "label", None) or "", getattr(child, "placeholder", None) or ""]
            for option in getattr(child, "options", []) or []:
                texts += [option.label or "", option.description or ""]
    return [text for text in texts if text]


def result_texts(result: Any) -> list[str]:
    messages = ([result.response] if getattr(result, "response", None) is not None else []) + list(
        getattr(result, "followups", [])
    )
    return [text for message in messages for text in message_texts(message)]


def leaks(texts: list[str]) -> list[tuple[str, list[str]]]:  # noqa
    import os

    if os.environ.get("SHOW_LEAKS"):
        for text in texts:
            if english_words(text, NAMES):
                print("LEAK", repr(text[:300]), english_words(text, NAMES))
    return [(text, words) for text in texts if (words := english_words(text, NAMES))]


def channel_texts(w: Any, channel: Any = None) -> list[str]:
    return [text for message in (channel or w.channel).history() for text in message_texts(message)]


async def test_settings_speak_the_pseudo_language(pseudo_world) -> None:
    w = pseudo_world
    texts = result_texts(await w.alice.slash(w.channel, "bg settings"))
    texts += result_texts(await w.alice.slash(w.channel, "bg settings", reminders=False, quiet_from=22, quiet_to=7))
    texts += result_texts(await w.alice.slash(w.channel, "bg settings", vacation_days=3))
    assert texts and leaks(texts) == []


@pytest.mark.parametrize("topic", ["how to play", "options", "glossary", "odds"])
async def test_the_help_pages_speak_the_pseudo_language(pseudo_world, topic: str) -> None:
    w = pseudo_world
    texts = result_texts(await w.alice.slash(w.channel, "bg rules", topic=topic))
    assert texts and leaks(texts) == []


async def test_a_challenge_and_a_game_to_its_end_speak_the_pseudo_language(pseudo_world) -> None:
    w = pseudo_world
    texts: list[str] = []
    challenged = await w.alice.slash(w.channel, "bg challenge", opponent=w.bob)
    texts += result_texts(challenged)
    accepted = await w.bob.click(challenged.response, label=pseudo("Accept"))
    texts += result_texts(accepted)
    texts += result_texts(await w.alice.slash(w.channel, "bg move", play="8/5 6/5"))
    texts += result_texts(await w.bob.slash(w.channel, "bg double"))
    texts += result_texts(await w.alice.slash(w.channel, "bg pass"))
    texts += result_texts(await w.carol.slash(w.channel, "bg games"))
    texts += result_texts(await w.alice.slash(w.channel, "bg stats"))
    await w.env.settle()
    texts += channel_texts(w)
    assert any("⟦" in text for text in texts)
    assert leaks(texts) == []


async def test_a_tournament_speaks_the_pseudo_language(pseudo_world) -> None:
    w = pseudo_world
    events = w.guild.create_role("Events", permissions=discord.Permissions(manage_events=True))
    olga = w.guild.add_member(w.env.create_user("olga"), roles=[events])
    texts = result_texts(await w.carol.slash(w.channel, "bgtourney create", name="Cup"))
    texts += result_texts(await olga.slash(w.channel, "bgtourney create", name="Cup", match_length=1))
    announcement = w.channel.last_message
    for member in (w.alice, w.bob, w.carol, w.mod):
        texts += result_texts(await member.click(w.channel.history()[0], label=pseudo("Join")))
    texts += result_texts(await olga.slash(w.channel, "bgtourney start"))
    await w.bot.dispatcher.idle()
    texts += result_texts(await w.carol.slash(w.channel, "bgtourney standings"))
    texts += result_texts(await w.carol.slash(w.channel, "bgtourney list"))
    texts += channel_texts(w) + [text for thread in w.channel.threads for text in channel_texts(w, thread)]
    assert announcement is not None and any("⟦" in text for text in texts)
    assert leaks(texts) == []


async def test_patience_speaks_the_pseudo_language(pseudo_world) -> None:
    w = pseudo_world
    texts = result_texts(await w.alice.slash(w.channel, "patience hoyle"))
    texts += result_texts(await w.alice.slash(w.channel, "patience daily"))
    texts += result_texts(await w.alice.slash(w.channel, "patience play", squares="A1 A2"))
    texts += result_texts(await w.alice.slash(w.channel, "patience leaderboard"))
    assert any("⟦" in text for text in texts)
    assert leaks(texts) == []


async def test_the_engines_reasons_speak_the_pseudo_language(pseudo_world) -> None:
    w = pseudo_world
    texts = result_texts(await w.alice.slash(w.channel, "patience hoyle"))
    refused = result_texts(await w.alice.slash(w.channel, "patience play", squares="A1 Z9"))
    challenged = await w.alice.slash(w.channel, "bg challenge", opponent=w.bob)
    await w.bob.click(challenged.response, label=pseudo("Accept"))
    refused += result_texts(await w.alice.slash(w.channel, "bg move", play="8/5 6/4"))  # illegal with 3-1
    refused += result_texts(await w.alice.slash(w.channel, "bg move", play="8/5 6/"))  # unreadable
    refused += result_texts(await w.bob.slash(w.channel, "bg double"))  # not bob's turn
    refused += result_texts(
        await w.alice.slash(w.channel, "bgtools setup", position="4HPwATDgc/ABMA:cIkW")
    )  # a short Match ID
    assert len(refused) >= 4 and all("⟦" in text for text in refused), refused
    assert leaks(texts + refused) == []


async def test_a_forfeit_speaks_the_pseudo_language(pseudo_world) -> None:
    w = pseudo_world
    challenged = await w.alice.slash(w.channel, "bg challenge", opponent=w.bob)
    await w.bob.click(challenged.response, label=pseudo("Accept"))
    texts = result_texts(await w.bob.slash(w.channel, "bg forfeit")) + channel_texts(w)
    assert any("⟦ (fórféít)⟧" in text for text in texts), texts  # how the game ended, in the language
    assert leaks(texts) == []


async def test_an_unreadable_id_is_refused_in_the_pseudo_language(pseudo_world) -> None:
    """The ID's kind, the side it names and the XGID field are all the catalogue's ("XGID" is a name)."""
    w = pseudo_world
    texts: list[str] = []
    for pasted in ("XGID=-b------------------------:0:0:1:00:0:0:0:0:10", "XGID=-b--:0:0"):
        message = await w.alice.send(w.channel, pasted)
        texts += result_texts(await w.carol.context_menu(w.channel, "Show board", message))
    assert len(texts) == 2 and all("⟦" in text for text in texts), texts
    assert [(text, words) for text in texts if (words := english_words(text, NAMES | {"XGID"}))] == []


async def test_a_puzzle_speaks_the_pseudo_language(pseudo_world) -> None:
    w = pseudo_world
    challenged = await w.alice.slash(w.channel, "bg challenge", opponent=w.bob)  # puzzles come from games
    await w.bob.click(challenged.response, label=pseudo("Accept"))
    texts = result_texts(await w.carol.slash(w.channel, "bglearn puzzle"))
    texts += result_texts(await w.alice.slash(w.channel, "bglearn puzzle"))
    texts += result_texts(await w.mod.slash(w.channel, "bglearn puzzle", daily="on"))
    texts += result_texts(await w.alice.slash(w.channel, "bglearn drill"))
    assert any("⟦" in text for text in texts)
    assert leaks(texts) == []


async def test_the_old_masters_openings_and_match_equity_speak_the_pseudo_language(pseudo_world) -> None:
    w = pseudo_world
    w.bot.parts.advice.opening_ply = 0  # quicker than the bot's 2-ply
    texts = result_texts(await w.alice.slash(w.channel, "bglearn openings", roll="2-1"))
    texts += result_texts(await w.alice.slash(w.channel, "bglearn openings"))
    texts += result_texts(await w.alice.slash(w.channel, "bglearn met", length=5, score="2-4", cube=2))
    texts += result_texts(await w.alice.slash(w.channel, "bglearn met", length=3, score="2-1"))  # Crawford
    texts += channel_texts(w)
    assert any("⟦" in text for text in texts)
    assert leaks(texts) == []


async def test_the_computers_seat_and_the_tutor_speak_the_pseudo_language(pseudo_world) -> None:
    pytest.importorskip("gnubg_nn")
    pytest.importorskip("bgsage")
    w = pseudo_world
    w.bot.table.computer.pause = 0
    w.bot.table.computer.default_level = "beginner"
    w.bot.parts.advice.hint_level = "beginner"
    texts = result_texts(await w.alice.slash(w.channel, "bg settings", tutor="blunders"))
    texts += result_texts(await w.alice.slash(w.channel, "bg computer", level="beginner"))
    texts += result_texts(await w.alice.slash(w.channel, "bg hint"))
    warned = await w.alice.select(w.board(), ["8/7 6/3"])  # gives up about 0.3 at 0-ply: the tutor warns
    texts += result_texts(warned)
    (warning,) = [m for m in [warned.response, *warned.followups] if m is not None and m.ephemeral]
    texts += result_texts(await w.alice.click(warning, label=pseudo("Let me think again")))
    texts += message_texts(warning)
    texts += result_texts(await w.alice.slash(w.channel, "bg move", play="8/5 6/5"))
    await w.bot.table.computer.wait()
    texts += result_texts(await w.alice.slash(w.channel, "bg resign", level="backgammon"))
    await w.bot.table.computer.wait()
    await w.env.settle()
    texts += channel_texts(w)
    assert any("⟦" in text for text in texts)
    assert leaks(texts) == []


async def test_a_failing_computer_says_so_in_the_pseudo_language(pseudo_world, monkeypatch) -> None:
    pytest.importorskip("gnubg_nn")
    pytest.importorskip("bgsage")
    from bot.core.computer import ComputerPlayer

    async def broken(self: Any, game_id: int) -> Any:
        raise RuntimeError("engine exploded")

    w = pseudo_world
    w.bot.table.computer.pause = 0
    await w.alice.slash(w.channel, "bg computer", level="beginner")
    monkeypatch.setattr(ComputerPlayer, "take_turn", broken)
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    await w.bot.table.computer.wait()
    said = message_texts(w.channel.history()[-1])  # the newest
    assert any("⟦" in text for text in said) and w.alice.mention in said[0]
    assert leaks(said) == []


async def test_the_regional_games_speak_the_pseudo_language(pseudo_world) -> None:
    """Plakoto from the challenge to its first plays, its refusals (no hint, an illegal play)
    and its rules page; the board's words and the game's name in the member's language."""
    w = pseudo_world
    texts = result_texts(await w.carol.slash(w.channel, "bg rules", game="plakoto"))
    texts += result_texts(await w.carol.slash(w.channel, "bg rules", game="tavli"))
    challenged = await w.alice.slash(w.channel, "bg challenge", opponent=w.bob, game="plakoto")
    texts += result_texts(challenged)
    texts += result_texts(await w.bob.click(challenged.response, label=pseudo("Accept")))
    texts += result_texts(await w.alice.slash(w.channel, "bg hint"))
    state = await w.service.lookups.game_in_channel(w.channel.id)
    assert state is not None and state.options.variant == "plakoto"
    player = w.alice if state.to_act().user_id == w.alice.id else w.bob
    texts += result_texts(await player.slash(w.channel, "bg move", play="24/20"))  # before the roll
    texts += result_texts(await player.click(w.board(), label=pseudo("Roll")))
    state = await w.service.lookups.game_in_channel(w.channel.id)
    assert state is not None
    texts += result_texts(await player.slash(w.channel, "bg move", play="1/2 1/2 1/2 1/2 1/2"))  # illegal
    texts += result_texts(await player.slash(w.channel, "bg move", play=state.legal_play_texts()[0]))
    await w.env.settle()
    texts += channel_texts(w)
    assert any("⟦" in text for text in texts)
    assert leaks(texts) == []
