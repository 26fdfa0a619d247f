"""Discord's limits on messages and application commands, as the API enforces them.

:func:`message_errors` and :func:`command_errors` return Discord's
``errors`` object (``{"content": {"_errors": [{"code": ..., "message": ...}]}}``,
nested by field path) or ``{}`` when the body is valid. The stand-in answers
a non-empty result with ``400 {"code": 50035, "message": "Invalid Form Body"}``.
"""

from __future__ import annotations

import re
from typing import Any

CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4096
EMBED_FIELDS_MAX = 25
EMBED_FIELD_NAME_MAX = 256
EMBED_FIELD_VALUE_MAX = 1024
EMBED_FOOTER_MAX = 2048
EMBED_AUTHOR_MAX = 256
EMBED_TOTAL_MAX = 6000
ACTION_ROWS_MAX = 5
BUTTONS_PER_ROW_MAX = 5
COMPONENTS_MAX = 25
SELECT_OPTIONS_MAX = 25
CUSTOM_ID_MAX = 100
BUTTON_LABEL_MAX = 80
SELECT_PLACEHOLDER_MAX = 150
SELECT_OPTION_TEXT_MAX = 100
ATTACHMENTS_MAX = 10
ATTACHMENT_SIZE_MAX = 25 * 1024 * 1024
CHOICES_MAX = 25
CHOICE_NAME_MAX = 100
COMMAND_NAME = re.compile(r"^[-_\w]{1,32}$")
COMMAND_DESCRIPTION_MAX = 100
COMMAND_OPTIONS_MAX = 25
COMMANDS_MAX = 100
ALLOWED_MENTIONS_IDS_MAX = 100
MENTION_TYPES = ("roles", "users", "everyone")

GLOBAL_REQUESTS_PER_SECOND = 50
"""Discord's global rate limit: a bot's requests per second across all routes,
except the interaction endpoints (the callback, and the webhooks of an
interaction's token: its original answer and its follow-ups)."""


def under_global_limit(path: str) -> bool:
    """Whether a request to ``path`` counts toward :data:`GLOBAL_REQUESTS_PER_SECOND`."""
    return not path.startswith(("/interactions/", "/webhooks/"))


def busiest_second(times: list[float]) -> int:
    """The most of ``times`` (seconds, ascending) that fall within any one second."""
    most, start = 0, 0
    for end, t in enumerate(times):
        while t - times[start] >= 1.0:
            start += 1
        most = max(most, end - start + 1)
    return most


class Errors:
    """Collects errors in Discord's nested ``errors`` shape."""

    def __init__(self) -> None:
        self.tree: dict[str, Any] = {}

    def add(self, path: tuple[str | int, ...], code: str, message: str) -> None:
        node = self.tree
        for part in path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def too_long(self, path: tuple[str | int, ...], value: Any, limit: int) -> None:
        if isinstance(value, str) and len(value) > limit:
            self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")

    def too_many(self, path: tuple[str | int, ...], items: Any, limit: int) -> None:
        if isinstance(items, list) and len(items) > limit:
            self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")

    def required(self, path: tuple[str | int, ...], value: Any) -> None:
        if value is None or value == "":
            self.add(path, "BASE_TYPE_REQUIRED", "This field is required")

    def __bool__(self) -> bool:
        return bool(self.tree)


def embed_length(embed: dict[str, Any]) -> int:
    total = len(embed.get("title") or "") + len(embed.get("description") or "")
    total += len((embed.get("footer") or {}).get("text") or "")
    total += len((embed.get("author") or {}).get("name") or "")
    for field in embed.get("fields") or []:
        total += len(field.get("name") or "") + len(field.get("value") or "")
    return total


def check_embeds(errors: Errors, embeds: Any) -> None:
    if not isinstance(embeds, list):
        return
    errors.too_many(("embeds",), embeds, EMBEDS_MAX)
    for i, embed in enumerate(embeds):
        path = ("embeds", i)
        errors.too_long(path + ("title",), embed.get("title"), EMBED_TITLE_MAX)
        errors.too_long(path + ("description",), embed.get("description"), EMBED_DESCRIPTION_MAX)
        footer = embed.get("footer") or {}
        errors.too_long(path + ("footer", "text"), footer.get("text"), EMBED_FOOTER_MAX)
        author = embed.get("author") or {}
        errors.too_long(path + ("author", "name"), author.get("name"), EMBED_AUTHOR_MAX)
        fields = embed.get("fields") or []
        errors.too_many(path + ("fields",), fields, EMBED_FIELDS_MAX)
        for j, field in enumerate(fields):
            fpath = path + ("fields", j)
            errors.required(fpath + ("name",), field.get("name"))
            errors.required(fpath + ("value",), field.get("value"))
            errors.too_long(fpath + ("name",), field.get("name"), EMBED_FIELD_NAME_MAX)
            errors.too_long(fpath + ("value",), field.get("value"), EMBED_FIELD_VALUE_MAX)
    if sum(embed_length(e) for e in embeds) > EMBED_TOTAL_MAX:
        errors.add(("embeds",), "MAX_EMBED_SIZE_EXCEEDED", f"Embed size exceeds maximum size of {EMBED_TOTAL_MAX}")


def check_components(errors: Errors, rows: Any) -> None:
    if not isinstance(rows, list):
        return
    errors.too_many(("components",), rows, ACTION_ROWS_MAX)
    seen: set[str] = set()
    count = 0
    for i, row in enumerate(rows):
        path = ("components", i)
        if row.get("type") != 1:
            errors.add(path + ("type",), "UNION_TYPE_CHOICES", "Top-level components must be action rows")
            continue
        children = row.get("components") or []
        if not children:
            errors.add(path + ("components",), "BASE_TYPE_MIN_LENGTH", "Must be 1 or more in length.")
        kinds = {c.get("type") for c in children}
        if kinds - {2}:
            if len(children) != 1:
                errors.add(
                    path + ("components",),
                    "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                    "The specified component exceeds the maximum width",
                )
        errors.too_many(path + ("components",), children, BUTTONS_PER_ROW_MAX)
        for j, item in enumerate(children):
            count += 1
            ipath = path + ("components", j)
            custom_id = item.get("custom_id")
            needs_custom_id = not (item.get("type") == 2 and item.get("style") in (5, 6))  # link / premium
            if needs_custom_id:
                errors.required(ipath + ("custom_id",), custom_id)
            if custom_id is not None:
                errors.too_long(ipath + ("custom_id",), custom_id, CUSTOM_ID_MAX)
                if custom_id in seen:
                    errors.add(
                        ipath + ("custom_id",),
                        "COMPONENT_CUSTOM_ID_DUPLICATED",
                        "Component custom id cannot be duplicated",
                    )
                seen.add(custom_id)
            if item.get("type") == 2:
                errors.too_long(ipath + ("label",), item.get("label"), BUTTON_LABEL_MAX)
                if not item.get("label") and not item.get("emoji"):
                    errors.add(ipath, "BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED", "A label or an emoji is required")
            elif item.get("type") == 3:
                options = item.get("options") or []
                if not options:
                    errors.add(ipath + ("options",), "BASE_TYPE_MIN_LENGTH", "Must be 1 or more in length.")
                errors.too_many(ipath + ("options",), options, SELECT_OPTIONS_MAX)
                errors.too_long(ipath + ("placeholder",), item.get("placeholder"), SELECT_PLACEHOLDER_MAX)
                values: set[str] = set()
                for k, option in enumerate(options):
                    opath = ipath + ("options", k)
                    errors.required(opath + ("label",), option.get("label"))
                    errors.required(opath + ("value",), option.get("value"))
                    errors.too_long(opath + ("label",), option.get("label"), SELECT_OPTION_TEXT_MAX)
                    errors.too_long(opath + ("value",), option.get("value"), SELECT_OPTION_TEXT_MAX)
                    errors.too_long(opath + ("description",), option.get("description"), SELECT_OPTION_TEXT_MAX)
                    if option.get("value") in values:
                        errors.add(
                            opath + ("value",),
                            "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
                            "Select component option values must be unique",
                        )
                    values.add(option.get("value"))
                max_values = item.get("max_values", 1)
                if isinstance(max_values, int) and max_values > max(len(options), 1):
                    errors.add(
                        ipath + ("max_values",),
                        "BASE_TYPE_MAX_VALUE",
                        "max_values must be less than or equal to the number of options",
                    )
    if count > COMPONENTS_MAX:
        errors.add(("components",), "BASE_TYPE_MAX_LENGTH", f"Must be {COMPONENTS_MAX} or fewer components.")


def check_allowed_mentions(errors: Errors, allowed: Any) -> None:
    """``allowed_mentions``: ``parse`` of mention types, or explicit ``users`` / ``roles`` (not both for one kind)."""
    if allowed is None:
        return
    if not isinstance(allowed, dict):
        errors.add(("allowed_mentions",), "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
        return
    parse = allowed.get("parse") or []
    for i, kind in enumerate(parse):
        if kind not in MENTION_TYPES:
            errors.add(("allowed_mentions", "parse", i), "BASE_TYPE_CHOICES", f"Value must be one of {MENTION_TYPES}.")
    for kind in ("users", "roles"):
        ids = allowed.get(kind)
        if ids is None:
            continue
        errors.too_many(("allowed_mentions", kind), ids, ALLOWED_MENTIONS_IDS_MAX)
        if kind in parse and ids:
            errors.add(
                ("allowed_mentions",),
                "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                f'parse:["{kind}"] and {kind}: [ids...] are mutually exclusive.',
            )


def pinged(content: str, allowed: Any) -> dict[str, Any]:
    """Whom a new message with ``content`` notifies, by Discord's rules: the mentions in the
    content that ``allowed_mentions`` lets through (without it, every kind; the bot here
    may mention everyone). Mentions in embeds never notify."""
    users = list(dict.fromkeys(re.findall(r"<@!?(\d+)>", content or "")))
    roles = list(dict.fromkeys(re.findall(r"<@&(\d+)>", content or "")))
    if allowed is None:
        allowed = {"parse": list(MENTION_TYPES)}
    parse = set(allowed.get("parse") or [])
    listed_users = {str(u) for u in allowed.get("users") or []}
    listed_roles = {str(r) for r in allowed.get("roles") or []}
    return {
        "users": [int(u) for u in users if "users" in parse or u in listed_users],
        "roles": [int(r) for r in roles if "roles" in parse or r in listed_roles],
        "everyone": "everyone" in parse and ("@everyone" in (content or "") or "@here" in (content or "")),
    }


def message_errors(body: dict[str, Any], *, files: int = 0) -> dict[str, Any]:
    """Form-body errors of a message create/edit body (``{}`` if valid)."""
    errors = Errors()
    check_allowed_mentions(errors, body.get("allowed_mentions"))
    content = body.get("content")
    if content is not None and not isinstance(content, str):
        errors.add(("content",), "BASE_TYPE_BAD_STRING", "Must be a string.")
    errors.too_long(("content",), content, CONTENT_MAX)
    check_embeds(errors, body.get("embeds"))
    check_components(errors, body.get("components"))
    attachments = body.get("attachments")
    if isinstance(attachments, list):
        errors.too_many(("attachments",), attachments, ATTACHMENTS_MAX)
    if files > ATTACHMENTS_MAX:
        errors.add(("files",), "BASE_TYPE_MAX_LENGTH", f"Must be {ATTACHMENTS_MAX} or fewer in length.")
    return errors.tree


def choices_errors(choices: Any) -> dict[str, Any]:
    """Errors of an autocomplete result (type 8)."""
    errors = Errors()
    if not isinstance(choices, list):
        errors.add(("choices",), "BASE_TYPE_REQUIRED", "This field is required")
        return errors.tree
    errors.too_many(("choices",), choices, CHOICES_MAX)
    for i, choice in enumerate(choices):
        errors.required(("choices", i, "name"), choice.get("name"))
        errors.too_long(("choices", i, "name"), choice.get("name"), CHOICE_NAME_MAX)
        value = choice.get("value")
        if isinstance(value, str):
            errors.too_long(("choices", i, "value"), value, CHOICE_NAME_MAX)
    return errors.tree


def _check_options(errors: Errors, path: tuple[str | int, ...], options: list[dict[str, Any]]) -> None:
    errors.too_many(path, options, COMMAND_OPTIONS_MAX)
    names: set[str] = set()
    seen_optional = False
    for i, option in enumerate(options):
        opath = path + (i,)
        name = option.get("name") or ""
        if not COMMAND_NAME.match(name) or name != name.lower():
            errors.add(opath + ("name",), "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
        if name in names:
            errors.add(opath + ("name",), "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS", "Duplicate option name")
        names.add(name)
        description = option.get("description") or ""
        if not 1 <= len(description) <= COMMAND_DESCRIPTION_MAX:
            errors.add(opath + ("description",), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
        choices = option.get("choices") or []
        errors.too_many(opath + ("choices",), choices, CHOICES_MAX)
        if choices and option.get("autocomplete"):
            errors.add(
                opath + ("autocomplete",),
                "APPLICATION_COMMAND_AUTOCOMPLETE_INVALID",
                "Autocomplete cannot be used with choices",
            )
        if option.get("type") in (1, 2):
            _check_options(errors, opath + ("options",), option.get("options") or [])
        else:
            if option.get("required"):
                if seen_optional:
                    errors.add(
                        opath + ("required",),
                        "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                        "Required options must be placed before non-required options",
                    )
            else:
                seen_optional = True


def command_errors(commands: Any) -> dict[str, Any]:
    """Errors of a bulk-overwrite body (PUT .../commands)."""
    errors = Errors()
    if not isinstance(commands, list):
        errors.add((), "BASE_TYPE_ARRAY", "Must be an array")
        return errors.tree
    errors.too_many((), commands, COMMANDS_MAX)
    for i, command in enumerate(commands):
        name = command.get("name") or ""
        kind = command.get("type", 1)
        if kind == 1 and (not COMMAND_NAME.match(name) or name != name.lower()):
            errors.add((i, "name"), "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
        if kind in (2, 3) and not 1 <= len(name) <= 32:  # user and message commands: any case, spaces
            errors.add((i, "name"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 32 in length.")
        description = command.get("description") or ""
        if kind == 1 and not 1 <= len(description) <= COMMAND_DESCRIPTION_MAX:
            errors.add((i, "description"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
        _check_options(errors, (i, "options"), command.get("options") or [])
    return errors.tree
