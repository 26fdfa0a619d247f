"""Discord API objects as the gateway and REST API send them (API v10 JSON).

Pure functions, no I/O: users, members, guilds, channels, messages and the
INTERACTION_CREATE payloads of slash commands, autocomplete and components.
Only the fields discord.py 2.7 reads (plus the usual companions) are filled.
"""

from __future__ import annotations

import itertools
import threading
import time
from datetime import UTC, datetime
from typing import Any

DISCORD_EPOCH_MS = 1420070400000

LOCALE = "en-US"
"""The members' clients' and the server's Discord locale (``bench.e2e_load --locale``)."""

ALL_PERMISSIONS = str((1 << 51) - 1)
"""Every permission bit (the bot's ``app_permissions``)."""
MEMBER_PERMISSIONS = str(
    (1 << 10)  # view channel
    | (1 << 11)  # send messages
    | (1 << 14)  # embed links
    | (1 << 15)  # attach files
    | (1 << 16)  # read message history
    | (1 << 31)  # use application commands
    | (1 << 35)  # create public threads
    | (1 << 38)  # send messages in threads
)
"""What an ordinary member may do (no Manage Messages / Manage Server)."""
MODERATOR_PERMISSIONS = str(int(MEMBER_PERMISSIONS) | (1 << 13) | (1 << 5))

ATTACHMENT_SIZE_LIMIT = 25 * 1024 * 1024

# Interaction types
PING, APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 1, 2, 3, 4, 5
# Application command option types
SUB_COMMAND, SUB_COMMAND_GROUP, STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER = range(1, 11)


class Snowflakes:
    """Real-looking, increasing snowflakes (their timestamps are now)."""

    def __init__(self) -> None:
        self._counter = itertools.count()
        self._lock = threading.Lock()
        self._last = 0

    def __call__(self) -> int:
        with self._lock:
            ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
            value = (ms << 22) | (next(self._counter) & 0x3FFFFF)
            if value <= self._last:
                value = self._last + 1
            self._last = value
            return value


def iso_now() -> str:
    return datetime.now(UTC).isoformat()


def user(user_id: int, name: str, *, bot: bool = False) -> dict[str, Any]:
    return {
        "id": str(user_id),
        "username": name,
        "global_name": name.title(),
        "discriminator": "0",
        "avatar": None,
        "bot": bot,
        "system": False,
        "public_flags": 0,
        "flags": 0,
    }


def member(
    user_obj: dict[str, Any], *, permissions: str | None = None, with_user: bool = True, nick: str | None = None
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "roles": [],
        "nick": nick,
        "avatar": None,
        "joined_at": "2024-01-01T00:00:00+00:00",
        "premium_since": None,
        "deaf": False,
        "mute": False,
        "flags": 0,
        "pending": False,
        "communication_disabled_until": None,
    }
    if with_user:
        data["user"] = user_obj
    if permissions is not None:
        data["permissions"] = permissions
    return data


def text_channel(channel_id: int, guild_id: int, name: str, position: int = 0) -> dict[str, Any]:
    return {
        "id": str(channel_id),
        "type": 0,
        "guild_id": str(guild_id),
        "name": name,
        "position": position,
        "permission_overwrites": [],
        "nsfw": False,
        "parent_id": None,
        "topic": None,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "flags": 0,
    }


def thread_channel(
    thread_id: int, guild_id: int, parent_id: int, name: str, owner_id: int, *, private: bool = False
) -> dict[str, Any]:
    """A public thread (type 11), or a private one (type 12: only its members and those who manage threads see it)."""
    return {
        "id": str(thread_id),
        "type": 12 if private else 11,
        "guild_id": str(guild_id),
        "parent_id": str(parent_id),
        "owner_id": str(owner_id),
        "name": name,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "message_count": 0,
        "member_count": 1,
        "flags": 0,
        "thread_metadata": {
            "archived": False,
            "auto_archive_duration": 10080,
            "archive_timestamp": iso_now(),
            "locked": False,
            **({"invitable": False} if private else {}),
        },
    }


def guild(
    guild_id: int, name: str, owner_id: int, channels: list[dict[str, Any]], bot_member: dict[str, Any]
) -> dict[str, Any]:
    return {
        "id": str(guild_id),
        "name": name,
        "icon": None,
        "splash": None,
        "discovery_splash": None,
        "owner_id": str(owner_id),
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "roles": [
            {
                "id": str(guild_id),
                "name": "@everyone",
                "permissions": MEMBER_PERMISSIONS,
                "position": 0,
                "color": 0,
                "hoist": False,
                "managed": False,
                "mentionable": False,
                "flags": 0,
            }
        ],
        "emojis": [],
        "stickers": [],
        "features": [],
        "mfa_level": 0,
        "application_id": None,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "joined_at": "2024-01-01T00:00:00+00:00",
        "large": False,
        "unavailable": False,
        "member_count": 2,
        "voice_states": [],
        "members": [bot_member],
        "channels": channels,
        "threads": [],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "preferred_locale": LOCALE,
        "nsfw_level": 0,
        "vanity_url_code": None,
        "description": None,
        "banner": None,
    }


def message(
    message_id: int,
    channel_id: int,
    guild_id: int | None,
    author: dict[str, Any],
    *,
    content: str = "",
    embeds: list[dict[str, Any]] | None = None,
    components: list[dict[str, Any]] | None = None,
    attachments: list[dict[str, Any]] | None = None,
    flags: int = 0,
    message_type: int = 0,
    webhook_id: int | None = None,
    application_id: int | None = None,
    interaction_metadata: dict[str, Any] | None = None,
    mentions: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": str(message_id),
        "channel_id": str(channel_id),
        "author": author,
        "content": content,
        "timestamp": iso_now(),
        "edited_timestamp": None,
        "tts": False,
        "mention_everyone": False,
        "mentions": mentions or [],
        "mention_roles": [],
        "attachments": attachments or [],
        "embeds": embeds or [],
        "components": components or [],
        "pinned": False,
        "type": message_type,
        "flags": flags,
    }
    if guild_id is not None:
        data["guild_id"] = str(guild_id)
    if webhook_id is not None:
        data["webhook_id"] = str(webhook_id)
    if application_id is not None:
        data["application_id"] = str(application_id)
    if interaction_metadata is not None:
        data["interaction_metadata"] = interaction_metadata
    return data


def interaction(
    *,
    interaction_id: int,
    application_id: int,
    interaction_type: int,
    token: str,
    guild_id: int,
    channel: dict[str, Any],
    member_obj: dict[str, Any],
    data: dict[str, Any] | None = None,
    message_obj: dict[str, Any] | None = None,
    app_permissions: str = ALL_PERMISSIONS,
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "id": str(interaction_id),
        "application_id": str(application_id),
        "type": interaction_type,
        "token": token,
        "version": 1,
        "guild_id": str(guild_id),
        "guild": {"id": str(guild_id), "locale": LOCALE, "features": []},
        "channel_id": channel["id"],
        "channel": channel,
        "member": member_obj,
        "app_permissions": app_permissions,
        "locale": LOCALE,
        "guild_locale": LOCALE,
        "entitlements": [],
        "authorizing_integration_owners": {"0": str(guild_id)},
        "context": 0,
        "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
    }
    if data is not None:
        payload["data"] = data
    if message_obj is not None:
        payload["message"] = message_obj
    return payload
