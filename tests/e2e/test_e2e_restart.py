"""SIGKILL the bot mid-game and start it again on the same database."""

from __future__ import annotations

import re
from typing import Any

from tests.e2e.botproc import REAL_BOT
from tests.e2e.fake_discord import EPHEMERAL
from tests.e2e.players import GameDriver, actor_of, control, game_controls


def players(fake, n):
    return [fake.add_user(f"player{i}") for i in range(n)]


async def test_games_go_on_after_sigkill_and_old_buttons_work(fake, launch):
    bot = await launch(REAL_BOT)
    p = players(fake, 6)
    ch = [fake.general, fake.add_channel("bg-2"), fake.add_channel("bg-3")]
    rolling = GameDriver(fake, ch[0], p[0], p[1], plays_before_double=99)
    playing = GameDriver(fake, ch[1], p[2], p[3])
    doubled = GameDriver(fake, ch[2], p[4], p[5], plays_before_double=1)
    for game in (rolling, playing, doubled):
        await game.start()
    await rolling.step()  # a play: the other player is on roll
    await doubled.step()  # a play ...
    await doubled.step()  # ... and a double: take or pass pending
    assert rolling.board is not None and playing.board is not None and doubled.board is not None
    assert control(rolling.board, "roll") and control(playing.board, "play") and control(doubled.board, "pass")
    old = {id(g): (int(board["id"]), game_controls(board)) for g, board in shown(rolling, playing, doubled)}

    assert await bot.kill() == -9
    await bot.start()  # same DATABASE_PATH
    assert len(fake.identifies) == 2 and not fake.resumes

    for game in (rolling, playing, doubled):
        message_id, controls = old[id(game)]
        assert game.board is not None
        assert int(game.board["id"]) == message_id and game_controls(game.board) == controls
        inter = await game.step()  # a click on a message posted before the kill
        assert inter.message_id == message_id or inter.type == 2
        answers = [fake.messages[m] for m in inter.messages if fake.messages[m]["flags"] & EPHEMERAL]
        assert not answers, answers[0]["content"]
    for game in (rolling, playing, doubled):
        game.plays_before_double = 0  # end quickly: double at the next chance, pass
        final = await game.play_out()
        assert final["embeds"] and final["embeds"][0]["title"].startswith("Game over")
    assert not fake.missed_deadlines()


async def test_action_cut_by_sigkill_is_applied_exactly_once(fake, launch):
    bot = await launch(REAL_BOT)
    alice, bob = players(fake, 2)
    game = GameDriver(fake, fake.general, alice, bob, plays_before_double=1)
    await game.start()
    await game.step()  # a play; now the player on roll may double
    board = game.board
    assert board is not None
    doubler = fake.users[actor_of(board)]
    double = control(board, "double")
    inter = await fake.click(doubler, int(board["id"]), double)
    await fake.first_response(inter)  # deferred: the bot is working on it ...
    await bot.kill()  # ... and dies
    await bot.start()

    if double in fake.custom_ids(int(board["id"])):
        again = await fake.click(doubler, int(board["id"]), double)
        await fake.settle(again)
    # wherever the game is, /bg board shows it with its controls
    show = await fake.slash(doubler, fake.general, "bg board")
    game.board = await fake.wait_board(show)
    assert control(game.board, "pass"), game.board["content"]
    final = await game.play_out()
    assert final["embeds"][0]["title"].startswith("Game over")

    export = await fake.slash(alice, fake.general, "bg export", game=game.game_id)
    message = await fake.wait_message(export, lambda m: bool(m["attachments"]))
    mat = fake.attachment_bytes(message["attachments"][0]).decode()
    assert len(re.findall(r"Doubles => 2", mat)) == 1, mat
    assert len(re.findall(r"Drops", mat)) == 1, mat
    assert not fake.missed_deadlines()


def shown(*games: GameDriver) -> list[tuple[GameDriver, dict[str, Any]]]:
    """Each game with its board (every one has one by now)."""
    boards = []
    for game in games:
        assert game.board is not None
        boards.append((game, game.board))
    return boards
