"""Which language the bot speaks (SimCord): each member's client language in answers to
them, their stored language in what it sends them unasked, the server's on public posts.

The catalogues here are small ones made by the test (tests/i18n/catalogues.py): a
few messages in Greek and German are enough to see which language was chosen.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import discord
import pytest
import simcord.interactions

import i18n
from tests.bot.discord.test_notifications import dms, settings
from tests.i18n.catalogues import catalogues, small_catalogue

ONLY_MANAGERS = "Only members who can manage this server can set its language."
GREEK = {ONLY_MANAGERS: "Μόνο όσοι διαχειρίζονται τον διακομιστή ορίζουν τη γλώσσα του."}
GERMAN = {ONLY_MANAGERS: "Nur wer diesen Server verwaltet, legt seine Sprache fest."}


@pytest.fixture
def locales(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[int, str]]:
    """Each member's Discord client language (by user id; en-US unless set)."""
    chosen: dict[int, str] = {}
    base = simcord.interactions.base_payload

    def payload(backend: Any, **kwargs: Any) -> Any:
        record, data = base(backend, **kwargs)
        data["locale"] = chosen.get(kwargs["user_id"], "en-US")
        return record, data

    monkeypatch.setattr(simcord.interactions, "base_payload", payload)
    yield chosen


@pytest.fixture
def greek_and_german(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with catalogues(monkeypatch, el=small_catalogue("el", GREEK), de=small_catalogue("de", GERMAN)):
        yield


async def test_the_same_command_from_a_greek_and_a_german_client(world, locales, greek_and_german) -> None:
    w = world
    locales[w.alice.id], locales[w.bob.id] = "el", "de"
    greek = await w.alice.slash(w.channel, "bgtools language", language="de")
    german = await w.bob.slash(w.channel, "bgtools language", language="el")
    english = await w.carol.slash(w.channel, "bgtools language", language="el")
    assert w.private(greek) == GREEK[ONLY_MANAGERS]
    assert w.private(german) == GERMAN[ONLY_MANAGERS]
    assert w.private(english) == ONLY_MANAGERS


async def test_a_member_chooses_a_language_over_their_clients(world, locales, greek_and_german) -> None:
    w = world
    locales[w.alice.id] = "el"
    await settings(w, w.alice, language="de")
    refused = await w.alice.slash(w.channel, "bgtools language", language="de")
    assert w.private(refused) == GERMAN[ONLY_MANAGERS]
    await settings(w, w.alice, language="client")
    refused = await w.alice.slash(w.channel, "bgtools language", language="de")
    assert w.private(refused) == GREEK[ONLY_MANAGERS]


async def test_a_members_locale_is_remembered_once_until_it_changes(world, locales) -> None:
    w = world
    store = w.service.store
    writes: list[list[tuple[int, str]]] = []
    remember = store.languages.remember

    async def counted(seen: Any) -> None:
        writes.append(list(seen))
        await remember(writes[-1])

    store.languages.remember = counted
    w.service.languages.flush_seconds = 3600.0  # written when the test says (a slow machine's clock)
    await settings(w, w.alice, reminders=True)  # makes alice a player
    locales[w.alice.id] = "de"
    for _ in range(3):
        await settings(w, w.alice)
    await w.service.languages.flush()
    assert writes == [[(w.alice.id, "de")]]  # one write for the four interactions, with the latest locale
    assert await store.languages.of(w.alice.id) == ("de", None)
    for _ in range(3):
        await settings(w, w.alice)
    await w.service.languages.flush()
    assert writes == [[(w.alice.id, "de")]]  # nothing changed: nothing written


async def test_a_reminder_goes_out_in_the_members_stored_language(world, locales, clock, monkeypatch) -> None:
    w = world
    german = {
        "{name}, it's your move in game #{game}: {left} left before it is forfeited": (
            "{name}, du bist in Partie #{game} am Zug: noch {left}, dann ist sie verloren"
        ),
        ("{count} hour", "{count} hours"): "",
        "Go to the board": "Zum Brett",
    }
    catalogue = small_catalogue("de", {k: v for k, v in german.items() if isinstance(k, str)})
    catalogue.add(("{count} hour", "{count} hours"), ("{count} Stunde", "{count} Stunden"))
    with catalogues(monkeypatch, de=catalogue):
        locales[w.alice.id] = "de"
        await settings(w, w.alice, turn="dm")
        await w.start_game(days=1)
        await w.service.languages.flush()
        w.service.languages._seen = type(w.service.languages._seen)(10)  # a restart forgets what it saw
        clock.advance(hours=19)
        await w.bot.scheduler.run_once()
        await w.bot.dispatcher.idle()
    (reminder,) = [m for m in dms(w, w.alice) if m.content.startswith("⏰")]
    assert "du bist in Partie #1 am Zug: noch 5 Stunden, dann ist sie verloren." in reminder.content
    assert "[Zum Brett](" in reminder.content


async def test_a_public_board_is_in_the_servers_language(world, locales, monkeypatch) -> None:
    w = world
    opening = "opening throw: {first} {first_die}, {second} {second_die}: {starter} starts"
    german = small_catalogue(
        "de", {opening: "Eröffnungswurf: {first} {first_die}, {second} {second_die}: {starter} beginnt"}
    )
    greek = small_catalogue(
        "el", {opening: "Αρχική ζαριά: {first} {first_die}, {second} {second_die}: ξεκινά {starter}"}
    )
    with catalogues(monkeypatch, de=german, el=greek):
        locales[w.alice.id] = locales[w.bob.id] = "el"
        managers = w.guild.create_role("Managers", permissions=discord.Permissions(manage_guild=True))
        manager = w.guild.add_member(w.env.create_user("manager"), roles=[managers])
        done = await manager.slash(w.channel, "bgtools language", language="de")
        assert w.private(done) == "The bot's public posts in this server are now in Deutsch."
        board = await w.start_game()
    assert "Eröffnungswurf: alice 3, bob 1: alice beginnt" in board.content
    assert "Αρχική" not in board.content


async def test_the_server_language_defaults_to_its_preferred_locale_when_spoken(env, monkeypatch) -> None:
    from bot.discord import speech

    german = env.create_guild("Spielrunde", preferred_locale="de")
    japanese = env.create_guild("碁会所", preferred_locale="ja")
    assert await speech.public(env.bot, german.id) == "de"
    assert await speech.public(env.bot, japanese.id) == i18n.ENGLISH
