"""Service features beyond two people playing: event order, the computer,
practice positions, thread games and provably fair dice."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.core import ChallengeError, ChallengeOptions, GameService, ServiceError
from bot.store import open_store
from engine import Phase
from engine.fairdice import commitment
from tests.bot.core.helpers import ALICE, BOB, GUILD, ROBOT, Env, open_env, start_game

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
async def env(db_url: str) -> AsyncIterator[Env]:
    e = await open_env(db_url)
    yield e
    await e.store.close()


@pytest.fixture
async def fair_env(new_db_url) -> AsyncIterator[Env]:
    """A service with the production (provably fair) dice."""
    url = new_db_url()
    store = await open_store(url)
    service = GameService(store)
    yield Env(store, service, None, url)  # type: ignore[arg-type]
    await store.close()


async def test_a_game_result_comes_before_the_next_game(env: Env) -> None:
    state = await start_game(env.service, options=ChallengeOptions(match_length=3))
    # Get to a roll phase, double and pass: game 1 ends and game 2 starts in one step.
    while state.game.phase is not Phase.ROLL:
        actor = state.to_act()
        assert actor is not None
        state = (await env.service.play(state.id, actor.user_id, state.legal_play_texts()[0])).state
    doubler = state.to_act()
    assert doubler is not None
    state = (await env.service.double(state.id, doubler.user_id)).state
    taker = state.to_act()
    assert taker is not None
    out = await env.service.pass_double(state.id, taker.user_id)
    kinds = [e.kind for e in out.events]
    assert kinds[:3] == ["pass", "game_over", "new_game"], kinds
    assert "opening" in kinds[3:]
    assert out.state.match.score == ((1, 0) if doubler == ALICE else (0, 1))


async def test_a_game_against_the_computer_is_unrated(env: Env) -> None:
    with pytest.raises(ChallengeError):
        await env.service.challenges.create(GUILD, 300, ALICE, ROBOT, ChallengeOptions())
    with pytest.raises(ChallengeError):
        await env.service.play_computer(GUILD, 300, ALICE, BOB, ChallengeOptions(computer_level="beginner"))
    out = await env.service.play_computer(GUILD, 300, ALICE, ROBOT, ChallengeOptions(computer_level="beginner"))
    state = out.state
    assert state.players == (ALICE, ROBOT) and state.options.computer_level == "beginner"
    assert not state.options.rated
    # The human gives up: the game ends, and no rating row appears for anyone.
    out = await env.service.forfeit(state.id, ALICE.user_id)
    assert out.state.status == "finished" and out.rating_changes == []
    assert await env.service.lookups.stats(GUILD, ALICE.user_id) is None
    assert (await env.service.lookups.leaderboard(GUILD)).total == 0


async def test_practice_from_a_gnubg_id_is_one_unrated_game(env: Env) -> None:
    # Player 1 (bob) to roll, money, cube 2 owned by bob.
    gnubg_id = "4HPwATDgc/ABMA:UQkAAAAAAAAA"
    challenge = await env.service.challenges.create_practice(GUILD, 400, ALICE, BOB, gnubg_id)
    assert await env.service.lookups.game_in_channel(400) is None  # nobody is seated before accepting
    out = await env.service.challenges.accept(challenge.id, BOB.user_id)
    state = out.state
    assert state.options.practice and not state.options.rated
    game = state.game
    assert game.phase is Phase.ROLL and state.to_act() == BOB
    assert game.cube_value == 2 and game.cube_owner == 1
    assert out.events[0].kind == "setup"
    out = await env.service.resign(state.id, BOB.user_id, 1)
    out = await env.service.accept_resignation(state.id, ALICE.user_id)
    assert out.state.status == "finished" and out.rating_changes == []
    assert out.state.match.score == (2, 0)  # a single game at cube 2


async def test_practice_from_an_xgid_is_kept_as_its_gnubg_id(env: Env) -> None:
    # The same state as an XGID: bob (player 1, the bottom player) to roll, cube 2 his.
    xgid = "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:0:0:0:0:10"
    challenge = await env.service.challenges.create_practice(GUILD, 402, ALICE, BOB, xgid)
    assert challenge.options.gnubg_id == "4HPwATDgc/ABMA:UQkAAAAAAAAE"  # stored as the GNU Backgammon ID
    out = await env.service.challenges.accept(challenge.id, BOB.user_id)
    game = out.state.game
    assert game.phase is Phase.ROLL and out.state.to_act() == BOB
    assert (game.cube_value, game.cube_owner) == (2, 1)
    assert game.xgid() == "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:0:0:0:0:6"  # the bot's cube limit, 64
    # against the computer at once: the top player (alice, player 0) on roll with 5-2
    top_rolled = "-b----E-C---eE---c-e----B-:0:0:-1:52:0:0:0:0:10"
    out = await env.service.setup_practice(GUILD, 403, ALICE, ROBOT, top_rolled)
    assert out.state.game.phase is Phase.PLAY and out.state.to_act() == ALICE
    assert out.state.game.dice is not None and (out.state.game.dice.high, out.state.game.dice.low) == (5, 2)


async def test_practice_refuses_a_bad_xgid_saying_why(env: Env) -> None:
    with pytest.raises(ChallengeError, match="not an XGID I can set up: .*beaver waiting for an answer"):
        await env.service.setup_practice(GUILD, 404, ALICE, ROBOT, "XGID=-b----E-C---eE---c-e----B-:1:1:1:B:0:0:2:0:9")
    with pytest.raises(
        ChallengeError, match="not an XGID I can set up: the cube shows 128, past this game.s limit of 64"
    ):
        await env.service.challenges.create_practice(
            GUILD, 404, ALICE, BOB, "-b----E-C---eE---c-e----B-:7:1:1:00:0:0:0:0:9"
        )
    with pytest.raises(ChallengeError, match="not an XGID I can set up: an XGID has 10 fields"):
        await env.service.challenges.create_practice(GUILD, 404, ALICE, BOB, "XGID=oops")
    assert await env.service.lookups.game_in_channel(404) is None


async def test_practice_refuses_a_bad_id_and_writes_nothing(env: Env) -> None:
    with pytest.raises(ChallengeError, match="GNU Backgammon ID"):
        await env.service.setup_practice(GUILD, 401, ALICE, ROBOT, "not-an-id")
    with pytest.raises(ChallengeError, match="GNU Backgammon ID"):
        await env.service.challenges.create_practice(GUILD, 401, ALICE, BOB, "not-an-id")
    assert await env.service.lookups.game_in_channel(401) is None


async def test_a_thread_game_may_start_beside_a_busy_channel(env: Env) -> None:
    await start_game(env.service, channel=500)
    with pytest.raises(ChallengeError):
        await env.service.challenges.create(GUILD, 500, ALICE, BOB, ChallengeOptions())
    challenge = await env.service.challenges.create(GUILD, 500, ALICE, BOB, ChallengeOptions(thread=True))
    out = await env.service.challenges.accept(challenge.id, BOB.user_id, channel_id=501)
    assert out.state.channel_id == 501 and out.state.is_active


async def test_fair_dice_are_committed_then_revealed_and_verify(fair_env: Env, tmp_path: Path) -> None:
    service = fair_env.service
    state = await start_game(service, channel=600)
    assert state.fair_dice is not None and "seed" not in state.fair_dice
    with pytest.raises(ServiceError, match="still being played"):
        await service.archive.verify(state.id)
    # Play a few turns, then end the game.
    for _ in range(6):
        actor = state.to_act()
        assert actor is not None
        if state.game.phase is Phase.ROLL:
            state = (await service.roll(state.id, actor.user_id)).state
        elif state.game.phase is Phase.PLAY:
            state = (await service.play(state.id, actor.user_id, state.legal_play_texts()[0])).state
    actor = state.to_act()
    assert actor is not None
    state = (await service.forfeit(state.id, actor.user_id)).state
    revealed = state.fair_dice
    assert revealed is not None and commitment(bytes.fromhex(revealed["seed"])) == revealed["commitment"]
    result = await service.archive.verify(state.id)
    assert result.ok and result.dice_checked >= 4

    export = json.loads(await service.archive.export_json(state.id))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(export))
    script = ROOT / "scripts" / "verify_dice.py"
    ok = subprocess.run([sys.executable, str(script), str(path)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    # Change one die in the log: the standalone check fails.
    for action in export["actions"]:
        if action["kind"] == "roll":
            action["dice"][0] = action["dice"][0] % 6 + 1
            break
    path.write_text(json.dumps(export))
    bad = subprocess.run([sys.executable, str(script), str(path)], capture_output=True, text=True)
    assert bad.returncode == 1 and "FAIL" in bad.stdout


async def test_dice_carry_on_from_the_seed_after_a_restart(fair_env: Env) -> None:
    service = fair_env.service
    state = await start_game(service, channel=700)
    # A new service on the same store (a restart) must throw the same next dice
    # as the old one would have: both derive them from the seed and the count.
    while state.game.phase is not Phase.ROLL:
        actor = state.to_act()
        assert actor is not None
        state = (await service.play(state.id, actor.user_id, state.legal_play_texts()[0])).state
    actor = state.to_act()
    assert actor is not None
    restarted = GameService(fair_env.store)
    after_restart = (await restarted.roll(state.id, actor.user_id)).state
    await restarted.forfeit(state.id, actor.user_id)
    assert (await restarted.archive.verify(state.id)).ok
    assert after_restart.version > state.version


async def test_due_work_is_split_by_discord_shard(env: Env) -> None:
    # Guilds on shard 0 and shard 1 of 2: (guild_id >> 22) % 2.
    guild_on = {0: 0 << 22, 1: 1 << 22}
    views = {}
    for shard, guild in guild_on.items():
        views[shard] = await start_game(env.service, guild=guild, channel=800 + shard)
    env.clock.advance(days=3, seconds=30)  # both turns just ran out
    first = await env.service.deadlines.process_due(shard=(2, (1,)))
    assert {n.state.guild_id for n in first if n.state} == {guild_on[1]}
    assert all(n.kind == "timeout" for n in first)
    rest = await env.service.deadlines.process_due(shard=(2, (0,)))
    assert {n.state.guild_id for n in rest if n.state} == {guild_on[0]}
    assert await env.service.deadlines.process_due() == []


async def test_peek_gives_the_newest_view_without_the_database(env: Env) -> None:
    assert env.service.cache.peek_in_channel(900) is None
    state = await start_game(env.service, channel=900)
    peeked = env.service.cache.peek_in_channel(900)
    assert peeked is not None and peeked.id == state.id and peeked.version == state.version
    actor = state.to_act()
    assert actor is not None
    out = await env.service.forfeit(state.id, actor.user_id)
    assert out.state.status == "finished"
    assert env.service.cache.peek_in_channel(900) is None


async def test_the_computer_has_no_deadline_and_a_record(env: Env) -> None:
    out = await env.service.play_computer(GUILD, 950, ALICE, ROBOT, ChallengeOptions(computer_level="beginner"))
    state = out.state
    # Hand the turn around until the computer is to act: no deadline then.
    while state.to_act() != ROBOT:
        actor = state.to_act()
        assert actor == ALICE
        if state.game.phase is Phase.ROLL:
            state = (await env.service.roll(state.id, ALICE.user_id)).state
        else:
            state = (await env.service.play(state.id, ALICE.user_id, state.legal_play_texts()[0])).state
    assert state.deadline is None
    env.clock.advance(days=60)
    assert [n for n in await env.service.deadlines.process_due() if n.state and n.state.id == state.id] == []
    await env.service.forfeit(state.id, ALICE.user_id)
    assert await env.service.lookups.computer_record(GUILD, ROBOT.user_id) == (1, 0)
    assert await env.service.lookups.computer_record(GUILD + 1, ROBOT.user_id) == (0, 0)


async def test_analyses_are_kept(env: Env) -> None:
    state = await start_game(env.service, channel=960)
    assert await env.service.archive.analyses(state.id) == {}
    await env.service.archive.save_analysis(state.id, 1, 0, "alice: 12.3 mp")
    await env.service.archive.save_analysis(state.id, 1, 1, "alice: 10.1 mp")
    await env.service.archive.save_analysis(state.id, 2, 0, "bob: 3.0 mp")
    assert await env.service.archive.analyses(state.id) == {1: "alice: 10.1 mp", 2: "bob: 3.0 mp"}


# -- dice committed with the challenge, salted at Accept ---------------------------------------


def _fixed_seed() -> bytes:
    return bytes(range(32))


async def _opening(
    url: str, channel: int, accepted_by: int | None, seed: str | None = None, challenger_seed: str | None = None
) -> tuple[list[int], dict[str, str], dict]:
    """The opening dice of a game whose secret seed is always the same."""
    store = await open_store(url)
    try:
        service = GameService(store, seed_source=_fixed_seed)
        challenge = await service.challenges.create(
            GUILD, channel, ALICE, BOB, ChallengeOptions(), seed=challenger_seed
        )
        state = (await service.challenges.accept(challenge.id, BOB.user_id, accepted_by=accepted_by, seed=seed)).state
        dice = [d for a in state.match.log if a.kind == "opening" and a.dice for d in a.dice]
        assert state.fair_dice is not None and challenge.fair_dice is not None
        return dice, challenge.fair_dice, state.fair_dice
    finally:
        await store.close()


async def test_the_commitment_comes_with_the_challenge_and_the_seed_stays_secret(fair_env: Env) -> None:
    service = fair_env.service
    challenge = await service.challenges.create(GUILD, 900, ALICE, BOB, ChallengeOptions(), seed="alice's luck")
    assert challenge.fair_dice is not None and set(challenge.fair_dice) == {"commitment", "nonce"}
    state = (await service.challenges.accept(challenge.id, BOB.user_id, accepted_by=123456789, seed="bob")).state
    fair = state.fair_dice
    assert fair is not None and "seed" not in fair  # nothing shows the seed before the end
    assert (fair["commitment"], fair["nonce"]) == (challenge.fair_dice["commitment"], challenge.fair_dice["nonce"])
    assert fair["salt"].startswith("accept=123456789;challenger=") and ";accepter=" in fair["salt"]
    assert "seed" not in json.loads(await service.archive.export_json(state.id))["dice"]
    over = (await service.forfeit(state.id, ALICE.user_id)).state
    assert over.fair_dice is not None and commitment(bytes.fromhex(over.fair_dice["seed"])) == fair["commitment"]
    assert (await service.archive.verify(state.id)).ok


async def test_the_dice_follow_the_accepting_click_and_the_players_seeds(new_db_url) -> None:
    """A game's dice are those of its committed seed under the salted nonce; the
    same seed and nonce salted by another Accept click (or another player seed)
    give other dice: the bot cannot choose them."""
    from engine.fairdice import die_at, salted

    url = new_db_url()
    cases = [(1111, None, None), (2222, None, None), (1111, "x", None), (1111, None, "y")]
    salts = []
    for n, (accepted_by, seed, challenger_seed) in enumerate(cases):
        dice, public, fair = await _opening(url, 910 + n, accepted_by, seed, challenger_seed)
        assert dice == [die_at(_fixed_seed(), salted(public["nonce"], fair["salt"]), k) for k in range(len(dice))]
        salts.append(fair["salt"])
    assert salts[0] == "accept=1111" and salts[1] == "accept=2222" and len(set(salts)) == 4
    # the same seed and nonce under each salt: the first twenty dice differ between any two salts
    streams = {tuple(die_at(_fixed_seed(), salted("bg-challenge-0", salt), k) for k in range(20)) for salt in salts}
    assert len(streams) == len(salts)


async def test_games_made_before_the_salt_still_verify(fair_env: Env) -> None:
    """A stored game whose dice record has no salt replays and verifies as before."""
    service = fair_env.service
    state = await start_game(service, channel=950)  # accepted without a click id: no salt
    assert state.fair_dice is not None and "salt" not in state.fair_dice
    actor = state.to_act()
    assert actor is not None
    await service.forfeit(state.id, actor.user_id)
    assert (await service.archive.verify(state.id)).ok
    assert (await GameService(fair_env.store).archive.verify(state.id)).ok  # a restart rebuilds the same dice


# -- closed out: today's rule for new games, the old one for stored games -------------------------


def test_new_games_roll_when_closed_out_and_old_ones_keep_their_rule() -> None:
    assert ChallengeOptions().to_dict()["closed_out"] == "roll"
    assert ChallengeOptions.from_dict({"match_length": 3}).closed_out == "skip"  # stored before the setting
    assert ChallengeOptions.from_dict(ChallengeOptions().to_dict()).game_settings().closed_out == "roll"
    with pytest.raises(ChallengeError):
        ChallengeOptions(closed_out="sometimes").validate()


async def test_a_closed_out_player_who_cannot_double_dances_without_a_click(env: Env) -> None:
    """On the bar against a closed board with the cube the opponent's, there is nothing to
    decide: the service throws the dance and the turn passes (ALICE is to roll)."""
    from engine import Position
    from engine.gnubgid import MatchState, encode_match_id

    closed = Position.from_counts({25: 1, 6: 5, 5: 4, 4: 3, 3: 2}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    cube_theirs = encode_match_id(MatchState(cube=2, cube_owner=1, player_on_roll=0, turn=0))
    out = await env.service.setup_practice(GUILD, 960, ALICE, ROBOT, f"{closed.position_id()}:{cube_theirs}")
    kinds = [e.kind for e in out.events]
    assert "roll" in kinds and "dance" in kinds, out.events  # thrown and lost at once
    assert out.state.to_act() == ROBOT and out.state.game.phase is Phase.ROLL
