"""The stand-in itself, with the toy bot (independent of the real bot)."""

from __future__ import annotations

import json
from typing import cast

import aiohttp
from aiohttp.abc import AbstractStreamWriter

from tests.e2e import limits
from tests.e2e.fake_discord import EPHEMERAL, has_png, split_multipart


async def test_login_sync_slash_and_button(fake, toy):
    assert fake.identifies and fake.identifies[0]["intents"] & 1  # guilds intent
    assert [c["name"] for c in fake.commands()] == ["toy"]
    alice, bob = fake.add_user("alice"), fake.add_user("bob")

    inter = await fake.slash(alice, fake.general, "toy ping", who=bob)
    message = await fake.wait_message(inter, lambda m: m["content"].startswith("pong"))
    assert message["content"] == f"pong <@{bob['id']}>"
    assert fake.pings[int(message["id"])]["users"] == [int(bob["id"])]  # no allowed_mentions: Discord pings
    assert fake.custom_ids(int(message["id"])) == ["toy:count:0"]
    assert inter.first_response_latency < 1.0

    click = await fake.click(bob, int(message["id"]), "toy:count:0")
    await fake.wait_board(click)
    assert click.response_type == 7
    assert message["content"] == "count 1 by bob" and has_png(fake, message)
    assert fake.custom_ids(int(message["id"])) == ["toy:count:1"]
    # the index of messages with components agrees with a look through the whole channel
    assert fake.with_components(fake.general) == [m for m in fake.channel_history(fake.general) if m["components"]]
    assert fake.with_components(fake.general) == [message]
    fake._delete(message)
    assert fake.with_components(fake.general) == []


async def test_defer_then_followups(fake, toy):
    alice = fake.add_user("alice")
    inter = await fake.slash(alice, fake.general, "toy slow")
    await fake.settle(inter)
    assert inter.response_type == 5
    first, second = (fake.messages[m] for m in inter.messages)
    assert first["content"] == "done" and has_png(fake, first) and not first["flags"]  # placeholder filled
    assert second["content"] == "second" and second["flags"] & EPHEMERAL


async def test_autocomplete_choices(fake, toy):
    alice = fake.add_user("alice")
    inter = await fake.autocomplete(alice, fake.general, "toy pick", "word", word="ab")
    await fake.first_response(inter)
    assert inter.response_type == 8 and len(inter.response_data["choices"]) == 25


async def test_deadline_double_ack_and_limits(fake, toy):
    alice = fake.add_user("alice")
    late = await fake.slash(alice, fake.general, "toy late")
    twice = await fake.slash(alice, fake.general, "toy twice")
    big = await fake.slash(alice, fake.general, "toy big")
    await fake.wait_ephemeral(big)
    await fake.wait_for(lambda: late.late, 8, "the late answer")
    await fake.wait_for(
        lambda: "TOY twice refused 400 40060" in toy.tail() and "TOY late refused 10062" in toy.tail(),
        5,
        "the bot to log the refusals",
        poll=0.05,
    )
    assert (
        "TOY big refused 400 50035" in toy.log_text()
        and "In content: Must be 2000 or fewer in length." in toy.log_text()
    )
    assert fake.missed_deadlines() == [late]
    assert twice.response_type == 4 and fake.messages[twice.messages[0]]["content"] == "one"
    codes = sorted(v[1] for v in fake.violations)
    assert codes == [
        "400 40060 Interaction has already been acknowledged.",
        "400 50035 Invalid Form Body",
        "404 10062 Unknown interaction",
    ]
    fake.violations.clear()


def test_limits_catalogue():
    ok = {
        "content": "x" * 2000,
        "embeds": [{"title": "t" * 256, "description": "d" * 4096, "fields": [{"name": "n", "value": "v" * 1024}] * 1}],
    }
    assert limits.message_errors(ok) == {}
    assert "content" in limits.message_errors({"content": "x" * 2001})
    assert limits.message_errors({"embeds": [{}] * 11})["embeds"]
    assert limits.message_errors({"embeds": [{"fields": [{"name": "a", "value": "b"}] * 26}]})
    assert limits.message_errors({"embeds": [{"title": "t" * 257}]})
    assert limits.message_errors({"embeds": [{"footer": {"text": "f" * 2049}}]})
    assert limits.message_errors({"embeds": [{"description": "d" * 4096}, {"description": "d" * 2000}]})  # > 6000
    button = {"type": 2, "style": 1, "label": "b"}
    row = {"type": 1, "components": [dict(button, custom_id=f"b{i}") for i in range(5)]}
    assert limits.message_errors({"components": [row]}) == {}
    assert limits.message_errors(
        {"components": [{"type": 1, "components": [dict(button, custom_id=f"b{i}") for i in range(6)]}]}
    )
    assert limits.message_errors(
        {
            "components": [
                {"type": 1, "components": [dict(button, custom_id=f"r{r}b{i}") for i in range(5)]} for r in range(6)
            ]
        }
    )
    select = {"type": 3, "custom_id": "s", "options": [{"label": str(i), "value": str(i)} for i in range(26)]}
    assert limits.message_errors({"components": [{"type": 1, "components": [select]}]})
    assert limits.choices_errors([{"name": "a", "value": "a"}] * 26)
    assert limits.command_errors([{"name": "Bad Name", "description": "x"}])


def test_the_global_limit_counts_all_but_the_interactions_own_routes():
    assert limits.under_global_limit("/channels/1/messages") and limits.under_global_limit("/channels/1/messages/2")
    assert limits.under_global_limit("/guilds/1/members/2")
    assert not limits.under_global_limit("/interactions/1/token/callback")
    assert not limits.under_global_limit("/webhooks/1/token/messages/@original")
    assert limits.busiest_second([]) == 0
    assert limits.busiest_second([0.0, 0.5, 0.99, 1.0, 1.2, 3.0]) == 4  # 0.5 .. 1.2
    assert limits.busiest_second([0.0, 1.0, 2.0]) == 1


def test_pings_follow_allowed_mentions():
    content = "<@1> <@!2> <@&3> @everyone <@\u200b4>"
    everything = {"users": [1, 2], "roles": [3], "everyone": True}
    assert limits.pinged(content, None) == everything
    assert limits.pinged(content, {"parse": ["users", "roles", "everyone"]}) == everything
    assert limits.pinged(content, {"parse": []}) == {"users": [], "roles": [], "everyone": False}
    assert limits.pinged(content, {"parse": [], "users": [2, 4]}) == {"users": [2], "roles": [], "everyone": False}
    assert limits.pinged("@\u200beveryone", {"parse": ["everyone"]})["everyone"] is False
    assert limits.message_errors({"content": "x", "allowed_mentions": {"parse": ["users"], "users": ["1"]}})
    assert limits.message_errors({"content": "x", "allowed_mentions": {"parse": ["all"]}})
    assert limits.message_errors({"content": "x", "allowed_mentions": {"parse": [], "users": list(range(101))}})
    assert limits.message_errors({"content": "x", "allowed_mentions": {"parse": [], "users": ["1"]}}) == {}


async def test_rate_limit_is_honoured(fake, toy):
    alice = fake.add_user("alice")
    rule = fake.rate_limit_next("POST", r"^/channels/\d+/messages$", retry_after=0.3)
    inter = await fake.slash(alice, fake.general, "toy post")
    await fake.wait_ephemeral(inter)
    posted = [m for m in fake.channel_history(fake.general) if m["content"] == "posted"]
    assert len(posted) == 1 and len(rule.hits) == 1
    sends = [t for t, method, path, status in fake.requests if method == "POST" and path.endswith("/messages")]
    statuses = [status for t, method, path, status in fake.requests if method == "POST" and path.endswith("/messages")]
    assert statuses == [429, 200]
    assert sends[1] - sends[0] >= 0.3


async def test_gateway_resume(fake, toy):
    alice = fake.add_user("alice")
    await fake.drop_gateway(4000)
    await fake.wait_for(lambda: fake.resumes and fake.ws is not None, 15, "the bot to RESUME")
    assert fake.resumes[0]["session_id"] == fake.session.id and len(fake.identifies) == 1
    inter = await fake.slash(alice, fake.general, "toy ping")
    await fake.wait_message(inter, lambda m: m["content"] == "pong")


async def test_interaction_sent_while_disconnected_is_replayed(fake, toy):
    alice = fake.add_user("alice")
    ws = fake.ws
    fake.ws = None  # the next dispatch is buffered only
    await ws.close(code=4000)
    inter = await fake.slash(alice, fake.general, "toy ping")
    await fake.wait_for(lambda: fake.resumes, 15, "RESUME")
    # the dispatch missed while disconnected is replayed after RESUME (seq > the bot's last seq)
    await fake.wait_message(inter, lambda m: m["content"] == "pong")
    assert not inter.late, f"answered {inter.first_response_latency:.2f} s after dispatch"


async def test_multipart_split_matches_what_aiohttp_sends():
    png = b"\x89PNG\r\n\x1a\n" + b"\r\n\r\n--not-a-boundary\r\n" + bytes(range(256))
    payload = json.dumps({"content": "é ▶"})
    form = aiohttp.FormData()
    form.add_field("payload_json", payload, content_type="application/json")
    form.add_field("files[0]", png, filename="board.png", content_type="image/png")
    writer = form()
    body = bytearray()

    class Sink:
        async def write(self, data: bytes) -> None:
            body.extend(data)

    await writer.write(cast(AbstractStreamWriter, Sink()))  # only write() is called
    parts = split_multipart(writer.content_type, bytes(body))
    assert parts == [("payload_json", None, payload.encode()), ("files[0]", "board.png", png)]
