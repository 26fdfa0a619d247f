"""Gateway disconnect + RESUME and REST 429s, with the real bot."""

from __future__ import annotations

from tests.e2e.players import GameDriver, actor_of


async def test_gateway_drop_resume_and_game_goes_on(fake, real):
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    game = GameDriver(fake, fake.general, alice, bob, plays_before_double=2)
    await game.start()
    session = fake.session.id
    await fake.drop_gateway(4000)
    await fake.wait_for(lambda: fake.resumes and fake.ws is not None, 15, "the bot to RESUME")
    (resume,) = fake.resumes
    assert resume["session_id"] == session and resume["seq"] == fake.session.sent[-2][0]  # the last seq before RESUMED
    assert len(fake.identifies) == 1
    await game.step()
    # and once more with op 7 RECONNECT (Discord asks the bot to move)
    await fake.send_reconnect()
    await fake.wait_for(lambda: len(fake.resumes) == 2 and fake.ws is not None, 15, "the second RESUME")
    final = await game.play_out()
    assert final["embeds"][0]["title"].startswith("Game over")
    assert not fake.missed_deadlines()


async def test_rate_limited_calls_are_retried_after_the_delay(fake, real):
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    game = GameDriver(fake, fake.general, alice, bob, plays_before_double=1)
    await game.start()
    # the next follow-up and the next edit of a follow-up (the old board, through the
    # interaction that posted it) get 429s
    followup = fake.rate_limit_next("POST", r"^/webhooks/\d+/[^/]+$", retry_after=0.3)
    edit = fake.rate_limit_next("PATCH", r"^/webhooks/\d+/[^/]+/messages/\d+$", retry_after=0.3)
    before = len(fake.requests)
    assert game.board is not None
    player = actor_of(game.board)
    game.use_slash_move = True
    await game.step()  # /bg move: board in a follow-up + the old board loses its buttons (edit)
    assert len(followup.hits) == 1 and len(edit.hits) == 1
    for rule, method in ((followup, "POST"), (edit, "PATCH")):
        calls = [(t, s) for t, m, path, s in fake.requests[before:] if m == method and rule.pattern.search(path)]
        assert [s for _, s in calls] == [429, 200], calls
        assert calls[1][0] - calls[0][0] >= 0.3, "retried before Retry-After"
    assert actor_of(game.board) != player
    assert "rate limited" in real.log_text()
    assert not fake.missed_deadlines()


async def test_a_burst_of_requests_waits_for_a_bounded_pool_of_connections(fake, launch):
    """Discord's API over at most ``HTTP_CONNECTIONS`` connections (discord.py's own pool
    has no bound: a connection, and against Discord a TLS handshake, per request in
    flight). With every answer held back, a burst of commands gets that many requests
    through; the rest wait for a connection, and all are answered once they free up."""
    import asyncio

    from tests.e2e.botproc import REAL_BOT

    await launch(REAL_BOT, log_level="WARNING", extra_env={"HTTP_CONNECTIONS": "3", "COOLDOWN_LOOKUP": "off"})
    members = [fake.add_user(f"member{n}") for n in range(8)]
    held = fake.hold("POST", r"^/interactions/\d+/[^/]+/callback$")
    burst = [await fake.slash(member, fake.general, "bg games") for member in members]
    await fake.wait_for(lambda: held.held, 10, "the first answers to reach Discord")
    await asyncio.sleep(0.5)  # unbounded, all eight would be held by now
    assert 1 <= len(held.held) <= 3, held.held
    held.release()
    for inter in burst:
        await fake.first_response(inter)
    assert len(held.held) < len(burst) and not fake.missed_deadlines()
