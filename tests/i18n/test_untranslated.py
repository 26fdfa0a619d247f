"""No English text in the core or the Discord layer that a member may read outside the catalogue.

``scripts/untranslated.py`` lists each worded string literal that is not a
catalogue message, a docstring, a log line, an operator's exception or a key;
:data:`KNOWN` is what it lists that is right as it is. A new bare string a
member may read fails here: wrap it (``_``, ``N_``, ``Said``), or, when only
code or the operator reads it, add it to :data:`KNOWN` with why.
"""

from __future__ import annotations

from scripts.untranslated import scan

KNOWN = {
    "unknown chouette action {}": "a bug's message (an action the code never sends)",
    "{}, it's your move in game #{}: {} left before it is forfeited": "the reminder's fallback: the dispatcher words it",
    "no double": "a kibitzer poll's answer key",
    "Jacoby": "a rule's name, the same in every language",
    "patience:random": "a nonce",
    "Discord game #{}": "the .mat file's event line (read by GNU Backgammon and XG)",
    "how to play": "a command's choice value (its name is translated at sync)",
    "Show board": "a message command's name (names stay English)",
    "Any text: the dice are mixed with it": "the modal's class default, worded in its __init__",
    "e.g. a word, a number, the time": "the modal's class default, worded in its __init__",
    "python3 scripts/verify_dice.py game-<number>.json": "a command line",
    "Hoyle": "a name",
    ", Bh {}, SB {}": "the tie-breaks' international abbreviations",
    "The gateway's heartbeat round trip, by shard.": "a metric's help (the operator's)",
    "Messages owed to Discord (the outbox).": "a metric's help (the operator's)",
    "Drawings waiting for a drawing worker.": "a metric's help (the operator's)",
    "Games kept rebuilt in memory.": "a metric's help (the operator's)",
}


def test_no_bare_english_in_the_core_or_the_discord_layer() -> None:
    found = scan(["bot/core", "bot/discord"])
    assert [str(candidate) for candidate in found if candidate.text not in KNOWN] == []


def test_the_scanner_finds_a_bare_string_and_passes_what_is_marked(tmp_path) -> None:
    module = tmp_path / "panel.py"
    module.write_text(
        '"""A panel."""\n'
        "import logging\n"
        "from i18n import N_, _\n"
        "log = logging.getLogger(__name__)\n"
        'TITLE = N_("Your games")\n'
        "def words(name, embed):\n"
        '    """What it says."""\n'
        '    log.warning("could not post for %s", name)\n'
        '    embed.set_footer(text=f"{name} is on vacation")\n'
        '    if name == "nobody here":\n'
        '        raise ValueError("a bug, for the operator")\n'
        '    return _("Your turn, {name}").format(name=name), {"a key word": 1}, "Throw again"\n'
    )
    found = scan([str(module)])
    assert [(candidate.line, candidate.text) for candidate in found] == [(9, "{} is on vacation"), (12, "Throw again")]


def test_the_pictures_and_the_engines_words_are_in_the_template() -> None:
    """The renderer's labels and the engine's refusals are extracted (i18n/babel.cfg), the words
    that mean something else elsewhere in their own context."""
    from tests.i18n.catalogues import template

    keys = {(m.id if isinstance(m.id, str) else m.id[0], m.context) for m in template() if m.id}
    assert {
        ("{count} pip", None),
        ("Money game", None),
        ("{player} to roll or double", None),
        ("Crawford", "match"),
        ("pair", "poker hand"),
        ("move", "chart"),
        ("wins %", None),
        ("no die takes a checker from {source} to {destination} with {high}-{low}", None),
        ("{text!r} is not a square: write a column A-E and a row 1-5, as C3", None),
    } <= keys
