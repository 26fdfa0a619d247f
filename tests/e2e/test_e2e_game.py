"""The real bot (``python -m bot``'s ``main``) end to end against the stand-in."""

from __future__ import annotations

import io

from PIL import Image

from tests.e2e.fake_discord import EPHEMERAL, has_png
from tests.e2e.players import GameDriver, actor_of, control, game_controls


def snapshot(fake, channel):
    """What everyone in the channel can see (content, components, attachments) - to prove nothing changed."""
    return [
        (m["id"], m["content"], repr(m["components"]), [a["id"] for a in m["attachments"]], repr(m["embeds"]))
        for m in fake.channel_history(channel)
    ]


async def test_command_schema(fake, real):
    commands = {c["name"]: c for c in fake.commands()}
    assert set(commands) == {"bg", "bgtools", "patience", "bgtourney", "bglearn", "bgclub", "Show board"}
    assert commands["Show board"]["type"] == 3 and commands["Show board"]["description"] == ""  # Message -> Apps
    assert {o["name"] for o in commands["bglearn"]["options"]} == {
        "openings",
        "puzzle",
        "leaderboard",
        "drill",
        "met",
        "import",
    }
    bg = commands["bg"]
    assert bg["guild_id"] == str(fake.guild_id)
    subs = {o["name"]: o for o in bg["options"]}
    tools = {o["name"] for o in commands["bgtools"]["options"]}
    assert {"verify", "dice", "position", "setup", "replay"} <= tools
    tourney = {o["name"] for o in commands["bgtourney"]["options"]}
    assert {"create", "start", "standings", "bracket", "cancel", "withdraw", "list", "role"} == tourney
    assert {"challenge", "roll", "move", "double", "take", "pass", "resign", "accept-resign", "board", "stats"} <= set(
        subs
    )
    assert any(o["name"] == "opponent" and o["type"] == 6 and o["required"] for o in subs["challenge"]["options"])
    assert any(o["name"] == "play" and o.get("autocomplete") for o in subs["move"]["options"])


async def test_full_game_with_rating_update(fake, real):
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    game = GameDriver(fake, fake.general, alice, bob, plays_before_double=3, use_slash_move=True)
    challenge = await game.challenge()
    assert challenge["content"].startswith(f"<@{bob['id']}>, <@{alice['id']}> challenges you")
    words = challenge["content"]
    assert "Dice committed now" in words
    board = await game.accept(challenge)
    assert fake.messages[int(challenge["id"])]["content"] == words  # the commitment stays as it was
    assert not fake.messages[int(challenge["id"])]["components"], "the challenge keeps its buttons"
    png = fake.attachment_bytes(board["attachments"][0])
    assert Image.open(io.BytesIO(png)).format == "PNG"
    assert actor_of(board) in (int(alice["id"]), int(bob["id"]))

    final = await game.play_out()
    kinds = [k for k, _ in game.actions]
    assert {"move", "autocomplete", "roll", "double", "pass"} <= set(kinds), kinds
    assert has_png(fake, final) and not game_controls(final)
    (embed,) = final["embeds"]
    assert embed["title"].startswith("Game over")
    rating = next(f for f in embed["fields"] if f["name"] == "Rating")
    assert "Alice" in rating["value"] and "Bob" in rating["value"] and "→" in rating["value"]

    stats = await fake.slash(alice, fake.general, "bg stats")
    message = await fake.wait_message(stats, lambda m: bool(m["embeds"]))
    assert "1" in repr(message["embeds"])  # one game in the record
    assert not fake.missed_deadlines()
    for _, inter in game.actions:
        assert inter.first_response_latency is not None and inter.first_response_latency < 1.0


async def test_bystanders_and_wrong_player_get_private_answers(fake, real):
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    game = GameDriver(fake, fake.general, alice, bob)
    challenge = await game.challenge()

    # carol clicks Accept on a challenge meant for bob
    before = snapshot(fake, fake.general)
    accept = next(c for c in fake.custom_ids(int(challenge["id"])) if ":accept:" in c)
    inter = await fake.click(carol, int(challenge["id"]), accept)
    answer = await fake.wait_ephemeral(inter)
    assert answer["flags"] & EPHEMERAL and "Bob" in answer["content"]
    await fake.settle(inter)
    assert snapshot(fake, fake.general) == before

    board = await game.accept(challenge)
    actor = fake.users[actor_of(board)]
    waiting = bob if actor is alice else alice
    select = control(board, "play")
    option = board["components"][0]["components"][0]["options"][0]["value"]
    before = snapshot(fake, fake.general)

    attempts = [
        await fake.click(carol, int(board["id"]), select, values=[option]),  # not in the game
        await fake.click(waiting, int(board["id"]), select, values=[option]),  # not their turn
        await fake.slash(carol, fake.general, "bg move", play=option),
        await fake.slash(waiting, fake.general, "bg move", play=option),
        await fake.slash(carol, fake.general, "bg roll"),
        await fake.slash(carol, fake.general, "bg resign"),
        await fake.slash(waiting, fake.general, "bg double"),
    ]
    for attempt in attempts:
        answer = await fake.wait_ephemeral(attempt)
        assert answer["content"], answer
        assert not has_png(fake, answer)
        await fake.settle(attempt)
    assert snapshot(fake, fake.general) == before, "a bystander changed the game"
    auto = await fake.autocomplete(carol, fake.general, "bg move", "play", play="")
    await fake.first_response(auto)
    assert auto.response_data["choices"] == []

    # the real player still can
    await game.step()
    assert game.board is not None and actor_of(game.board) == int(waiting["id"])
    assert not fake.missed_deadlines()


async def test_patience_privately_with_pictures_from_the_workers(fake, real):
    """/patience hoyle in the real process: a private panel with its picture, a card laid by a click."""
    alice = fake.add_user("alice")
    before = snapshot(fake, fake.general)
    start = await fake.slash(alice, fake.general, "patience hoyle")
    panel = await fake.wait_message(start, lambda m: has_png(fake, m), what="the patience panel")
    assert panel["flags"] & EPHEMERAL and "Card 1 of 25" in panel["content"]
    square = next(c for c in fake.custom_ids(int(panel["id"])) if c.endswith(":C3"))
    click = await fake.click(alice, int(panel["id"]), square)
    laid = await fake.wait_message(click, lambda m: "1 of 25 laid" in m["content"], what="the card laid")
    assert has_png(fake, laid) and laid["flags"] & EPHEMERAL
    await fake.settle(click)
    assert snapshot(fake, fake.general) == before  # nobody else saw a thing
    assert not fake.missed_deadlines()
