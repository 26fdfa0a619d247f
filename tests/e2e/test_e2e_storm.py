"""A storm against the real bot while two members play: 8 replays, 8 histories and
8 exports of a finished 25-point match asked for at once, and a member flooding
challenges. Every interaction is answered within Discord's 3 seconds (the players'
too), the bot logs no traceback, and the flood pings nobody past its quota.
(The event loop's stalls are measured by ``bench/loop_stall.py``.)
"""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path

import pytest

from bot.core import ChallengeOptions, GameService, PlayerRef
from bot.store import open_store
from engine import Phase, SeededDice
from tests.e2e.botproc import REAL_BOT
from tests.e2e.fake_discord import EPHEMERAL, LOADING
from tests.e2e.players import GameDriver

STORM = 8


async def finished_long_match(database: Path, guild_id: int, channel_id: int, a: PlayerRef, b: PlayerRef) -> int:
    """A 25-point match between ``a`` and ``b`` played to its end through the service (random
    legal plays, no doubles: about 20 games and 4,000 logged actions). Returns its game id."""
    store = await open_store(str(database))
    try:
        service = GameService(store, dice=SeededDice(7))
        rng = random.Random(7)
        challenge = await service.challenges.create(guild_id, channel_id, a, b, ChallengeOptions(match_length=25))
        state = (await service.challenges.accept(challenge.id, b.user_id)).state
        while state.is_active:
            actor = state.to_act()
            assert actor is not None
            if state.game.phase is Phase.ROLL:
                state = (await service.roll(state.id, actor.user_id, version=state.version)).state
            else:
                play = rng.choice(state.legal_play_texts())
                state = (await service.play(state.id, actor.user_id, play, version=state.version)).state
        assert len(state.match.games) > 10
        return state.id
    finally:
        await store.close()


def answered(fake, inter) -> bool:
    """The interaction's answer is there (not a "thinking...")."""
    if inter.original_id is not None and inter.original_id not in fake.messages:
        return True  # a private "thinking..." taken away once the answer went to the channel
    ids = list(inter.messages) + ([inter.original_id] if inter.original_id is not None else [])
    return any(
        (m := fake.messages.get(i)) is not None
        and not m["flags"] & LOADING
        and (m.get("attachments") or m.get("embeds") or m.get("content"))
        for i in ids
    )


@pytest.mark.slow
async def test_a_storm_of_replays_histories_exports_and_challenges_leaves_the_players_alone(fake, launch, tmp_path):
    alice, bob, carol, dave, mallory = (fake.add_user(n) for n in ("alice", "bob", "carol", "dave", "mallory"))
    askers = [fake.add_user(f"asker{n}") for n in range(3 * STORM)]
    targets = [fake.add_user(f"target{n}") for n in range(5)]
    archive, live, lobby = fake.add_channel("archive"), fake.add_channel("live"), fake.add_channel("lobby")
    database = tmp_path / "bot.sqlite3"
    game_id = await finished_long_match(
        database,
        fake.guild_id,
        int(archive["id"]),
        PlayerRef(int(alice["id"]), "alice"),
        PlayerRef(int(bob["id"]), "bob"),
    )
    bot = await launch(REAL_BOT, database=database)

    players = GameDriver(fake, live, carol, dave, plays_before_double=6, timeout=60)
    await players.start()
    playing = asyncio.create_task(players.play_out(max_steps=200))
    await asyncio.sleep(0.5)

    calls = []
    for n in range(STORM):
        calls.append(fake.slash(askers[n], lobby, "bgtools replay", game=game_id))
        calls.append(fake.slash(askers[STORM + n], lobby, "bg history", member=alice))
        calls.append(fake.slash(askers[2 * STORM + n], lobby, "bg export", game=game_id))
    for target in targets:  # one member floods challenges: past the quota, refused privately
        calls.append(
            fake.slash(mallory, fake.add_channel(f"duel-{target['username']}"), "bg challenge", opponent=target)
        )
    asked = await asyncio.gather(*calls)
    await fake.wait_for(lambda: all(answered(fake, i) or i.late for i in asked), 90, "every storm answer")
    final = await asyncio.wait_for(playing, 90)
    assert final["embeds"][0]["title"].startswith("Game over")

    assert not fake.missed_deadlines(), [(i.id, i.payload["data"].get("name")) for i in fake.missed_deadlines()]
    assert all(not i.late for i in asked)

    def shown(inter, what: str) -> bool:
        return any(fake.messages[m].get(what) for m in inter.messages if m in fake.messages)

    histories, exports = asked[1 : 3 * STORM : 3], asked[2 : 3 * STORM : 3]
    assert all(shown(i, "attachments") for i in exports)  # the .mat, JSON and GIF, privately
    assert all(shown(i, "embeds") for i in histories)

    def gifs() -> list:
        return [
            m
            for m in fake.channel_history(lobby)
            if any(a["filename"].endswith("-replay.gif") for a in m.get("attachments", []))
        ]

    await fake.wait_for(lambda: len(gifs()) == STORM, 30, "every replay posted")
    assert len(gifs()) == STORM  # each replay posted in the channel (drawn once, cached)
    challenges = asked[3 * STORM :]
    refused = [
        i
        for i in challenges
        if any(
            fake.messages[m]["flags"] & EPHEMERAL and "waiting for an answer" in fake.messages[m]["content"]
            for m in i.messages
            if m in fake.messages
        )
    ]
    assert len(refused) == len(targets) - 3  # 3 may wait for an answer at once
    pinged = {int(u) for mid, p in fake.pings.items() for u in p.get("users", ())}
    assert not {int(t["id"]) for t in targets[3:]} & pinged  # the refused ones were not pinged
    log = bot.log_text()
    assert "Traceback" not in log and not re.search(r"\bERROR\b", log), log[-3000:]
