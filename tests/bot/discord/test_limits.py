"""Every reply fits Discord: quoting, escaping and clipping (bot.discord.limits), the one
choke point every send goes through, and extreme inputs through the real command paths."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from types import SimpleNamespace

import discord
import pytest
from discord import app_commands
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.model import ChallengeError, NotInGameError
from bot.discord import limits
from bot.discord.errors import player_message
from engine import IllegalPlayError, NotationError
from tests.e2e.limits import message_errors

ROOT = Path(__file__).resolve().parents[3]
NASTY = [
    "<@123456789012345678>",
    "<@!123456789012345678>",
    "<@&123456789012345678>",
    "@everyone",
    "@here",
    "[free nitro](http://evil.example)",
    "`code` ```block```",
    "**bold** __under__ ~~gone~~ ||spoiler||",
    "# Heading",
    "> quoted",
    "<#123456789012345678> <t:0:R> </bg roll:1>",
    "\u202eevil reversed",
    "[a](http://x.example) `x` 3, [a](http://x.example) `x`",  # fools discord.utils.escape_markdown
]


def raw_tokens(text: str) -> list[str]:
    """Markup that would do something if Discord rendered ``text``: mentions, links, code, pings."""
    found = re.findall(r"(?<!\\)<[@#/t:&!]", text)
    found += re.findall(r"@(?:everyone|here)", text)
    found += re.findall(r"(?<!\\)\[[^\]]*\]\(", text)
    found += re.findall(r"(?<!\\)`", text)
    found += re.findall(r"(?<!\\)\*\*", text)
    return found + re.findall("[\u202e\x00-\x1f]", text)


# -- quoting, names, plain text -------------------------------------------------------------------------


@pytest.mark.parametrize("text", NASTY)
def test_names_and_quotes_are_shown_as_typed_and_do_nothing(text):
    for shown in (limits.shown(text), limits.quote(text), limits.plain(f"{text} played 24/18")):
        assert raw_tokens(shown) == [], shown


def test_a_quote_is_at_most_a_hundred_characters_and_shows_control_characters():
    quoted = limits.quote("24/18 " * 1000)
    assert quoted.startswith("“24/18 ") and quoted.endswith("…”")
    assert len(quoted) <= limits.QUOTE_MAX + 2
    binary = limits.quote("\x00\x01\x7f\ud800 8/5\n6/5")
    assert binary == "“␀␁␡\ufffd 8/5␊6/5”"
    assert "\\x" not in binary
    # around the place a long text goes wrong
    around = limits.quote("1" * 5000 + "Z" + "2" * 100, around=5000)
    assert "Z" in around and len(around) <= limits.QUOTE_MAX + 2


@given(st.text(max_size=300))
@settings(max_examples=200, deadline=None)
def test_any_text_quoted_is_short_safe_and_encodable(text):
    for shown in (limits.quote(text), limits.shown(text)):
        shown.encode("utf-8")  # no lone surrogates: JSON would refuse them
        assert len(shown) <= 4 * limits.QUOTE_MAX
        assert not re.search("[\x00-\x1f\u202a-\u202e]", shown)
        assert not re.search(r"(?<!\\)<@", shown) and "@everyone" not in shown


def test_the_core_rewords_engine_errors_but_the_original_is_quoted():
    from bot.core.model import RuleError

    try:
        try:
            raise NotationError("\x00ab", 0, "unexpected '\\x00'")
        except NotationError as error:
            raise RuleError(str(error)) from None  # what GameService does
    except RuleError as rule:
        assert player_message(rule) == "I can't read “␀ab” at character 1: unexpected “␀”."


def test_engine_reasons_lose_their_python_literals():
    assert limits.reason("unexpected '\\x00'") == "unexpected “␀”"
    assert limits.reason("'/' needs a point before it") == "“/” needs a point before it"
    assert limits.reason("you can't move: it's blocked") == "you can't move: it's blocked"


# -- error messages ----------------------------------------------------------------------------------------


def test_a_six_thousand_character_play_is_quoted_briefly():
    text = "24/18 13/10 " * 500
    message = player_message(NotationError(text, 5990, "unexpected 'x'"))
    assert message is not None and len(message) < 300
    assert "character 5991" in message and "“x”" in message


def test_binary_text_is_quoted_without_python_escapes():
    message = player_message(NotationError("\x00\x01<@123456789012345678>", 0, "unexpected '\\x00'"))
    assert message == "I can't read “␀␁\\<@\u200b123456789012345678>” at character 1: unexpected “␀”."


def test_the_players_text_keeps_its_case():
    message = player_message(IllegalPlayError("bar/22 aB", "that is not a legal play of these dice"))
    assert message == "You can't play “bar/22 aB”: that is not a legal play of these dice."
    member = SimpleNamespace(_error_display_name="Member")
    transformer = app_commands.TransformerError("x" * 5000, discord.AppCommandOptionType.user, member)  # type: ignore[arg-type]
    assert len(player_message(transformer) or "") < 200


def test_core_messages_are_neutralised():
    message = player_message(ChallengeError("only <@123456789012345678> @everyone can accept this challenge"))
    assert message is not None and raw_tokens(message) == []
    assert len(player_message(NotInGameError("x" * 10_000)) or "") <= limits.PLAIN_MAX


def test_slow_down_says_whole_seconds():
    assert (
        player_message(app_commands.CommandOnCooldown(app_commands.Cooldown(1, 60), 0.2))
        == "Slow down: try again in 1 s."
    )
    assert (
        player_message(app_commands.CommandOnCooldown(app_commands.Cooldown(1, 60), 11.5))
        == "Slow down: try again in 12 s."
    )


# -- fit: the choke point --------------------------------------------------------------------------------


def body(fields: dict) -> dict:
    """The JSON body discord.py would send for ``fields`` (what Discord checks)."""
    out: dict = {}
    if "content" in fields:
        out["content"] = fields["content"]
    embeds = fields.get("embeds") or ([fields["embed"]] if fields.get("embed") else [])
    out["embeds"] = [e.to_dict() for e in embeds]
    if fields.get("view") is not None:
        out["components"] = fields["view"].to_components()
    return out


def test_fit_clips_content_and_embeds_to_every_limit():
    huge = "x" * 10_000
    embeds = []
    for _ in range(12):
        embed = discord.Embed(title=huge, description=huge)
        for _ in range(30):
            embed.add_field(name=huge, value=huge)
        embed.add_field(name="", value="")
        embed.set_footer(text=huge)
        embed.set_author(name=huge)
        embeds.append(embed)
    fitted = limits.fit(content=huge, embeds=embeds)
    assert message_errors(body(fitted)) == {}
    assert len(fitted["content"]) == limits.CONTENT_MAX and fitted["content"].endswith("…")
    assert len(fitted["embeds"]) == 10 and embeds[0].title == huge  # the caller's embeds are untouched
    assert isinstance(fitted["allowed_mentions"], discord.AllowedMentions)
    assert fitted["allowed_mentions"].to_dict() == {"parse": []}


def test_fit_keeps_none_which_removes_on_an_edit():
    fitted = limits.fit(view=None, content=None)
    assert fitted.pop("allowed_mentions").to_dict() == {"parse": []}
    assert fitted == {"view": None, "content": None}


def test_fit_clips_labels_and_refuses_state_it_cannot_cut():
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(label="L" * 200, custom_id="ok"))
    select: discord.ui.Select = discord.ui.Select(custom_id="s", placeholder="P" * 300)
    for i in range(25):
        select.add_option(label=f"{i}" * 150, value=str(i), description="d" * 300)
    view.add_item(select)
    assert message_errors(body(limits.fit(view=view))) == {}
    bad = discord.ui.View(timeout=None)
    bad.add_item(discord.ui.Button(label="x", custom_id="c" * 101))
    with pytest.raises(ValueError):
        limits.fit(view=bad)


def test_pinging_names_exactly_the_members():
    assert limits.pinging().to_dict() == {"parse": []}
    assert limits.pinging(None).to_dict() == {"parse": []}
    assert limits.pinging(5, 7, 5).to_dict() == {"parse": [], "users": [5, 7]}


SENDS = {"send", "send_message", "edit_message", "edit_original_response", "edit"}
FITTED = {"fit", "_fields", "_edit_fields"}
OUR_TARGETS = {"target", "fallback", "where"}


def _calls_fit(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and (
        (isinstance(node.func, ast.Name) and node.func.id in FITTED)
        or (isinstance(node.func, ast.Attribute) and node.func.attr in FITTED)
    )


def test_every_send_goes_through_fit():
    """Every message the Discord layer sends or edits gets its fields from ``fit`` (or one of our
    Targets, which do): a send added without it fails here."""
    problems = []
    for path in sorted((ROOT / "bot" / "discord").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for function in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
            fitted_names = {
                target.id
                for node in ast.walk(function)
                if isinstance(node, ast.Assign) and _calls_fit(node.value)
                for target in node.targets
                if isinstance(target, ast.Name)
            }
            for call in [n for n in ast.walk(function) if isinstance(n, ast.Call)]:
                if not (isinstance(call.func, ast.Attribute) and call.func.attr in SENDS):
                    continue
                splats = [k.value for k in call.keywords if k.arg is None]
                receiver = call.func.value
                ours = (isinstance(receiver, ast.Name) and receiver.id in OUR_TARGETS) or (
                    isinstance(receiver, ast.Call) and getattr(receiver.func, "id", "") in ("InChannel", "EditBoard")
                )
                if ours and len(call.args) == 1 and not call.keywords:
                    continue
                if splats and all(_calls_fit(v) or (isinstance(v, ast.Name) and v.id in fitted_names) for v in splats):
                    continue
                problems.append(f"{path.relative_to(ROOT)}:{call.lineno} {ast.unparse(call)[:80]}")
    assert not problems, "sends that skip limits.fit:\n" + "\n".join(problems)


def test_the_client_pings_nobody_by_default(simcord_bot):
    assert simcord_bot.allowed_mentions.to_dict() == {"parse": []}
