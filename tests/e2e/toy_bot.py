"""A minimal discord.py bot to test the stand-in without the real bot.

``/toy ping`` answers ``pong`` with a Count button; the button edits the
message in place (type 7) with a PNG attachment; ``/toy slow`` defers with
thinking and then sends a follow-up; ``/toy late`` answers after the 3-s
deadline; ``/toy twice`` answers twice; ``/toy big`` sends 2,001 characters.
Settings come from the environment like the real bot (DISCORD_TOKEN, DEV_GUILD_ID).
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import struct
import zlib

import discord
from discord import app_commands


def tiny_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"\x00\xff\x00\x00"
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


class Counter(discord.ui.DynamicItem[discord.ui.Button], template=r"toy:count:(?P<n>[0-9]+)"):
    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label=f"Count {n}", custom_id=f"toy:count:{n}"))
        self.n = n

    @classmethod
    async def from_custom_id(cls, interaction, item, match, /):
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(Counter(self.n + 1))
        await interaction.response.edit_message(
            content=f"count {self.n + 1} by {interaction.user.name}",
            attachments=[discord.File(io.BytesIO(tiny_png()), filename="count.png")],
            view=view,
        )


class Toy(app_commands.Group):
    @app_commands.command(description="Answer pong")
    @app_commands.describe(who="Someone to greet")
    async def ping(self, interaction: discord.Interaction, who: discord.Member | None = None) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(Counter(0))
        text = "pong" + (f" {who.mention}" if who else "")
        await interaction.response.send_message(text, view=view)

    @app_commands.command(description="Defer, then follow up")
    async def slow(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await asyncio.sleep(0.2)
        await interaction.followup.send("done", file=discord.File(io.BytesIO(tiny_png()), filename="slow.png"))
        await interaction.followup.send("second", ephemeral=True)

    @app_commands.command(description="Answer too late")
    async def late(self, interaction: discord.Interaction) -> None:
        await asyncio.sleep(3.3)
        try:
            await interaction.response.send_message("late")
        except discord.NotFound as error:
            logging.getLogger("toy").warning("late answer refused: %s", error.code)
            print(f"TOY late refused {error.code}", flush=True)

    @app_commands.command(description="Answer twice")
    async def twice(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("one")
        # discord.py refuses a second response itself; go around it to see what Discord says.
        from discord.webhook.async_ import async_context, interaction_response_params

        params = interaction_response_params(4, {"content": "two"})
        try:
            await async_context.get().create_interaction_response(
                interaction.id, interaction.token, session=interaction._session, params=params
            )
        except discord.HTTPException as error:
            print(f"TOY twice refused {error.status} {error.code}", flush=True)

    @app_commands.command(description="Too long a message")
    async def big(self, interaction: discord.Interaction) -> None:
        try:
            await interaction.response.send_message("x" * 2001)
        except discord.HTTPException as error:
            print(f"TOY big refused {error.status} {error.code} {error.text}", flush=True)
            await interaction.response.send_message("too big", ephemeral=True)

    @app_commands.command(description="A channel send that may be rate limited")
    async def post(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        assert interaction.channel_id is not None
        channel = interaction.client.get_partial_messageable(interaction.channel_id)
        await channel.send("posted")
        await interaction.followup.send("ok", ephemeral=True)

    @app_commands.command(description="Autocomplete")
    async def pick(self, interaction: discord.Interaction, word: str) -> None:
        await interaction.response.send_message(word)

    @pick.autocomplete("word")
    async def pick_auto(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=f"{current}{i}", value=f"{current}{i}") for i in range(30)][:25]


class ToyBot(discord.Client):
    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default())
        self.tree = app_commands.CommandTree(self)
        self.tree.add_command(Toy(name="toy", description="Toy commands"))

    async def setup_hook(self) -> None:
        self.add_dynamic_items(Counter)
        guild = discord.Object(int(os.environ["DEV_GUILD_ID"]))
        self.tree.copy_global_to(guild=guild)
        await self.tree.sync(guild=guild)


def main() -> int:
    discord.utils.setup_logging(level=logging.INFO)
    bot = ToyBot()
    bot.run(os.environ["DISCORD_TOKEN"], log_handler=None)
    return 0
