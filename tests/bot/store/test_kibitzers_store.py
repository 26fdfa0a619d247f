"""The kibitzer polls' repository, on both backends: answers kept until the reveal, one reveal
owed once, the server's table counting revealed polls only."""

from __future__ import annotations

from typing import Any

from bot.store import open_store
from bot.store.kibitzers import REVEAL_KIND, KibitzerStore

GUILD = 7


async def test_answers_a_single_reveal_and_the_table(db_url: str) -> None:
    async with await open_store(db_url) as store:
        game = await store.games.create(guild_id=GUILD, channel_id=70, player0=1, player1=2, settings={})
        polls = KibitzerStore(store.db)
        poll: dict[str, Any] = dict(
            game_id=game.id, version=2, guild_id=GUILD, channel_id=70, player_id=1, kind="play", position_id="x:y"
        )
        answers = ("8/5 6/5", "24/23 13/10")
        assert await polls.vote(**poll, answers=answers, user_id=3, answer="8/5 6/5")
        assert await polls.vote(**poll, answers=answers, user_id=4, answer="8/5 6/5")
        assert await polls.vote(**poll, answers=answers, user_id=4, answer="24/23 13/10")  # changed
        assert await polls.answers(game.id, 2) == {3: "8/5 6/5", 4: "24/23 13/10"}
        assert await polls.scores(GUILD) == []  # nothing counts before the reveal

        (row,) = await polls.open_polls(game.id)
        assert row.answers == answers and not row.revealed
        verdict = {"8/5 6/5": 0.16, "24/23 13/10": -0.01}
        assert await polls.reveal(row, "8/5 6/5", verdict, "8/5 6/5")
        assert not await polls.reveal(row, "8/5 6/5", verdict, "8/5 6/5")  # once
        assert not await polls.vote(**poll, answers=answers, user_id=5, answer="8/5 6/5")  # too late
        assert [e.kind for e in await store.outbox.owed()] == [REVEAL_KIND]
        revealed = await polls.poll(game.id, 2)
        assert revealed is not None and revealed.revealed and revealed.verdict == verdict
        assert revealed.chosen == "8/5 6/5" and await polls.open_polls(game.id) == []
        table = await polls.scores(GUILD)
        assert [(s.user_id, s.answered, s.agreed) for s in table] == [(3, 1, 1), (4, 1, 0)]
        assert await polls.scores(GUILD + 1) == []  # another server's table is its own
