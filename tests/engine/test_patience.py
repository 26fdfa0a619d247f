"""Serpent Poker Patience (engine.patience): cards, hands, score tables, the
serpent rule, Hoyle's worked example, the exact solver and seeded deals."""

from __future__ import annotations

import doctest
import functools
import hashlib
import hmac
import random
from collections import Counter
from typing import cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.fairdice import chi_square_uniform
from engine.patience import (
    AMERICAN,
    CELLS,
    ENGLISH,
    FULL_DECK,
    HOYLE_BEST,
    HOYLE_DEAL,
    LINES,
    SCORINGS,
    Card,
    CardError,
    Category,
    Cell,
    CellError,
    Deal,
    DealError,
    HandError,
    Layout,
    PlacementError,
    Rank,
    Suit,
    best_score,
    classify,
    completable,
    deal_from_seed,
    format_path,
    parse_cards,
    parse_path,
    prepare,
    rook_paths,
    scoring_named,
    solve,
)

# -- Hoyle's example, transcribed from the book ---------------------------------------

HOYLE_TEXT = (
    "D.6, S.5, C.Q, D.Q, H.Q, H.10, C.10, H.6, C.3, H.J, H. ace, H.5, H.8, H.K, S.Q, H.4, "
    "C.2, D.2, H.7, S.J, S.3, H.3, D.3, S.6, H.2."
)
HOYLE_78 = [  # "A few trials will suggest the following arrangement ... a total of 78"
    "H.8 H.5 C.3 H.6 C.10",
    "H.K H.A H.J H.Q H.10",
    "S.Q H.4 C.2 D.Q C.Q",
    "S.6 H.2 D.2 H.7 S.5",
    "D.3 H.3 S.3 S.J D.6",
]
HOYLE_81 = [  # "But the correct solution is as follows ... Total, 81."
    "H.8 H.5 C.3 H.6 C.10",
    "H.K H.A H.J H.Q H.10",
    "S.Q S.J S.3 D.Q C.Q",
    "H.4 H.7 H.3 D.6 S.5",
    "C.2 D.2 D.3 S.6 H.2",
]


def grid_of(rows: list[str]) -> list[list[Card]]:
    return [parse_cards(row) for row in rows]


def hand(text: str) -> list[Card]:
    return parse_cards(text)


# -- cards and deals ------------------------------------------------------------------


def test_card_spellings() -> None:
    assert str(Card(Rank.SIX, Suit.DIAMONDS)) == "D6"
    assert str(Card(Rank.TEN, Suit.HEARTS)) == "H10"
    assert str(Card(Rank.ACE, Suit.HEARTS)) == "HA"
    assert str(Card(Rank.KING, Suit.SPADES)) == "SK"
    ten_of_hearts = Card(Rank.TEN, Suit.HEARTS)
    for text in ("H10", "h10", "H.10", "H. 10", "HT", "10H", "♥10", "10♥", " H10 "):
        assert Card.parse(text) == ten_of_hearts, text
    for text in ("HA", "H.A", "H. ace", "H.ace", "AH", "ha", "♥A"):
        assert Card.parse(text) == Card(Rank.ACE, Suit.HEARTS), text
    assert Card.parse("C.knave") == Card.parse("C.jack") == Card.parse("CJ")
    assert Card.parse("S.queen") == Card.parse("SQ") and Card.parse("D king") == Card.parse("DK")
    assert Card(Rank.TEN, Suit.HEARTS).label == "10♥"
    assert repr(Card.parse("SK")) == "Card.parse('SK')"


@pytest.mark.parametrize("text", ["", "H", "H1", "H11", "X9", "H10x", "10", "ace", "HH", "H 10 S", "D6 S5"])
def test_not_a_card(text: str) -> None:
    with pytest.raises(CardError):
        Card.parse(text)
    assert issubclass(CardError, ValueError)


@given(st.sampled_from(FULL_DECK))
def test_every_card_round_trips(card: Card) -> None:
    assert Card.parse(str(card)) == card
    assert Card.parse(f"{card.suit.letter}.{card.rank.letter}") == card
    assert Card.parse(card.rank.letter + card.suit.symbol) == card


def test_the_deck() -> None:
    assert len(FULL_DECK) == len(set(FULL_DECK)) == 52
    assert str(FULL_DECK[0]) == "CA" and str(FULL_DECK[-1]) == "SK"


def test_hoyles_deal_reads_as_he_wrote_it() -> None:
    assert Deal.parse(HOYLE_TEXT) == HOYLE_DEAL
    assert str(HOYLE_DEAL) == "D6 S5 CQ DQ HQ H10 C10 H6 C3 HJ HA H5 H8 HK SQ H4 C2 D2 H7 SJ S3 H3 D3 S6 H2"
    assert Deal.parse(str(HOYLE_DEAL)) == HOYLE_DEAL
    assert eval(repr(HOYLE_DEAL)) == HOYLE_DEAL  # noqa: S307 - the repr spells a constructor
    assert HOYLE_DEAL[10] == Card.parse("HA") and len(HOYLE_DEAL) == 25


@given(st.permutations(FULL_DECK))
def test_every_deal_round_trips(deck: list[Card]) -> None:
    deal = Deal(tuple(deck[:25]))
    assert Deal.parse(str(deal)) == deal
    assert Deal.parse(", ".join(f"{c.suit.letter}. {c.rank.letter}" for c in deal)) == deal


def test_bad_deals_say_what_is_wrong() -> None:
    cards = str(HOYLE_DEAL).split()
    with pytest.raises(DealError, match="25 cards, not 24"):
        Deal.parse(" ".join(cards[:24]))
    with pytest.raises(DealError, match="25 cards, not 26"):
        Deal.parse(" ".join(cards + ["SA"]))
    with pytest.raises(DealError, match="repeated: D6"):
        Deal.parse(" ".join(cards[:24] + ["D6"]))
    with pytest.raises(CardError, match="card 3: 'X9'"):
        Deal.parse("D6 S5 X9 " + " ".join(cards[3:]))
    with pytest.raises(CardError):
        Deal.of(["D6", "S5", "Z1"])
    assert issubclass(DealError, ValueError)


# -- hands and score tables -------------------------------------------------------------

CATEGORY_EXAMPLES = [
    ("H10 HJ HQ HK HA", Category.ROYAL_FLUSH),
    ("HA HK HQ HJ H10", Category.ROYAL_FLUSH),
    ("HA H2 H3 H4 H5", Category.STRAIGHT_FLUSH),  # the wheel: the ace low
    ("S9 S10 SJ SQ SK", Category.STRAIGHT_FLUSH),
    ("C2 C3 C4 C5 C6", Category.STRAIGHT_FLUSH),
    ("C3 H3 S3 D3 HK", Category.FOURS),
    ("H6 HQ DQ D6 S6", Category.FULL_HOUSE),
    ("HA H3 H8 HJ HK", Category.FLUSH),
    ("HQ HK HA H2 H3", Category.FLUSH),  # no wrap-around: the ace is low or high, not both
    ("H4 H7 H3 D6 S5", Category.STRAIGHT),
    ("CA D2 H3 S4 C5", Category.STRAIGHT),  # ace low
    ("C10 DJ HQ SK CA", Category.STRAIGHT),  # ace high
    ("CQ DK HA S2 C3", Category.NOTHING),
    ("S.Q D.Q C.Q S.3 S.J", Category.THREES),
    ("C3 HJ C2 D2 S3", Category.TWO_PAIRS),
    ("H10 C10 CQ S5 H2", Category.PAIR),
    ("H8 HK SQ S6 D3", Category.NOTHING),
]


@pytest.mark.parametrize(("text", "category"), CATEGORY_EXAMPLES)
def test_classify(text: str, category: Category) -> None:
    assert classify(hand(text)) == category


def test_every_category_has_an_example_and_a_name() -> None:
    assert {category for _, category in CATEGORY_EXAMPLES} == set(Category)
    assert [c.label for c in Category] == [
        "nothing",
        "pair",
        "two pairs",
        "threes",
        "straight",
        "flush",
        "full house",
        "fours",
        "straight flush",
        "royal flush",
    ]


def test_short_lines_count_only_their_rank_groups() -> None:
    assert classify([]) == Category.NOTHING
    assert classify(hand("H2 H3 H4 H5")) == Category.NOTHING  # no straight nor flush yet
    assert classify(hand("H2 D2")) == Category.PAIR
    assert classify(hand("H2 D2 S3 C3")) == Category.TWO_PAIRS
    assert classify(hand("H2 D2 S2")) == Category.THREES
    assert classify(hand("H2 D2 S2 C2")) == Category.FOURS
    with pytest.raises(HandError):
        classify(hand("H2 D2 S2 C2 HA HK"))


def test_the_english_table() -> None:
    expected = {
        Category.ROYAL_FLUSH: 30,
        Category.STRAIGHT_FLUSH: 30,
        Category.FOURS: 16,
        Category.STRAIGHT: 12,
        Category.FULL_HOUSE: 10,
        Category.THREES: 6,
        Category.FLUSH: 5,
        Category.TWO_PAIRS: 3,
        Category.PAIR: 1,
        Category.NOTHING: 0,
    }
    assert {c: ENGLISH.points(c) for c in Category} == expected
    assert ENGLISH.score(hand("HA H2 H3 H4 H5")) == 30
    assert ENGLISH.score(hand("H4 H7 H3 D6 S5")) == 12


def test_the_american_table() -> None:
    expected = {
        Category.ROYAL_FLUSH: 100,
        Category.STRAIGHT_FLUSH: 75,
        Category.FOURS: 50,
        Category.FULL_HOUSE: 25,
        Category.FLUSH: 20,
        Category.STRAIGHT: 15,
        Category.THREES: 10,
        Category.TWO_PAIRS: 5,
        Category.PAIR: 2,
        Category.NOTHING: 0,
    }
    assert {c: AMERICAN.points(c) for c in Category} == expected
    assert AMERICAN.score(hand("SA SK SQ SJ S10")) == 100
    assert AMERICAN.score(hand("SA S2 S3 S4 S5")) == 75


def test_tables_by_name() -> None:
    assert SCORINGS == {"english": ENGLISH, "american": AMERICAN}
    assert scoring_named("English") is ENGLISH and scoring_named(" american ") is AMERICAN
    with pytest.raises(ValueError, match="english or american"):
        scoring_named("french")


def slow_category(cards: list[Card]) -> Category:
    """An independent reading of the hand rules, by the sorted rank counts and
    a table of the ten straights."""
    ranks = sorted(card.rank.value for card in cards)
    shape = sorted(Counter(ranks).values())
    straights = [list(range(low, low + 5)) for low in range(1, 10)] + [[1, 10, 11, 12, 13]]
    flush = len({card.suit for card in cards}) == 1
    if ranks in straights and flush:
        return Category.ROYAL_FLUSH if ranks == [1, 10, 11, 12, 13] else Category.STRAIGHT_FLUSH
    by_shape = {
        (1, 4): Category.FOURS,
        (2, 3): Category.FULL_HOUSE,
        (1, 1, 3): Category.THREES,
        (1, 2, 2): Category.TWO_PAIRS,
        (1, 1, 1, 2): Category.PAIR,
    }
    if tuple(shape) in by_shape:
        return by_shape[tuple(shape)]
    if flush:
        return Category.FLUSH
    if ranks in straights:
        return Category.STRAIGHT
    return Category.NOTHING


@given(st.lists(st.sampled_from(FULL_DECK), min_size=5, max_size=5, unique=True))
def test_classify_agrees_with_a_slow_reading(cards: list[Card]) -> None:
    assert classify(cards) == slow_category(cards)


@given(st.lists(st.sampled_from(FULL_DECK[:13]), min_size=5, max_size=5, unique=True))
def test_classify_one_suit(cards: list[Card]) -> None:
    assert classify(cards) == slow_category(cards)


# -- the grid and its rook's paths ------------------------------------------------------


def all_rook_paths_by_search() -> set[tuple[tuple[int, int], ...]]:
    """Every rook's path over the 5 by 5 grid by plain depth-first search
    (no pruning, nothing from engine.patience.grid)."""
    found: set[tuple[tuple[int, int], ...]] = set()

    def walk(path: list[tuple[int, int]], seen: set[tuple[int, int]]) -> None:
        if len(path) == 25:
            found.add(tuple(path))
            return
        r, c = path[-1]
        for step in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= step[0] < 5 and 0 <= step[1] < 5 and step not in seen:
                path.append(step)
                seen.add(step)
                walk(path, seen)
                seen.discard(step)
                path.pop()

    for r in range(5):
        for c in range(5):
            walk([(r, c)], {(r, c)})
    return found


@pytest.fixture(scope="module")
def searched_paths() -> set[tuple[tuple[int, int], ...]]:
    return all_rook_paths_by_search()


def test_the_rook_paths_are_all_there(searched_paths) -> None:
    paths = rook_paths()
    assert len(paths) == len(searched_paths) == 8648  # OEIS A096969: 4,324 undirected
    assert {tuple((cell.row, cell.col) for cell in path) for path in paths} == searched_paths
    assert list(paths) == sorted(paths, key=lambda p: [cell.number for cell in p])
    assert all(path[0].dark and path[-1].dark for path in paths)
    assert {tuple(reversed(path)) for path in paths} == set(paths)


@functools.cache
def all_rook_paths() -> frozenset:
    return frozenset(rook_paths())


def test_the_package_docstring_example() -> None:
    import engine.patience

    assert doctest.testmod(engine.patience).failed == 0


def test_prepare_builds_the_tables() -> None:
    assert prepare(ENGLISH, AMERICAN) == (8648, 1081, 2427)


def test_cells_and_their_spelling() -> None:
    assert str(Cell(0, 0)) == "A1" and str(Cell(4, 4)) == "E5" and str(Cell(2, 3)) == "D3"
    assert Cell.parse("d3") == Cell(2, 3) == Cell.at(2, 3)
    assert [str(c) for c in Cell(0, 0).neighbours()] == ["B1", "A2"]
    assert [str(c) for c in Cell.parse("C3").neighbours()] == ["C2", "B3", "D3", "C4"]
    assert all(Cell.parse(str(cell)) == cell and CELLS[cell.number] == cell for cell in CELLS)
    assert Cell(0, 0).touches(Cell(1, 0)) and not Cell(0, 0).touches(Cell(1, 1))
    for bad in ("F1", "A6", "A0", "", "AA", "C33"):
        with pytest.raises(CellError):
            Cell.parse(bad)
    with pytest.raises(CellError):
        Cell.at(5, 0)
    path = parse_path("D4 E4, E3")
    assert format_path(path) == "D4 E4 E3" and path[0] == Cell(3, 3)
    assert [line.name for line in LINES] == [
        "row 1",
        "row 2",
        "row 3",
        "row 4",
        "row 5",
        "column A",
        "column B",
        "column C",
        "column D",
        "column E",
    ]


def test_completable() -> None:
    assert completable([]) and completable([Cell(2, 2)]) and completable(parse_path("C1 B1 B2"))
    assert not completable([Cell(0, 1)])  # B1 is light: rook's paths start and end on dark squares
    assert not completable([Cell(0, 0), Cell(1, 1)])  # corner to corner
    assert not completable(parse_path("A1 A1"))
    assert not completable(parse_path("C1 B1 B2 A2"))  # A1 walled in: A2 must go there and stop
    assert not completable(parse_path("A1 B1 B2 C2"))  # A2 (light) would have to be the last square
    assert completable(rook_paths()[0]) and not completable(rook_paths()[0] + (Cell(0, 0),))


# -- layouts and the serpent rule ----------------------------------------------------------


def test_hoyles_78() -> None:
    layout = Layout.from_grid(HOYLE_DEAL, grid_of(HOYLE_78))
    assert layout.is_complete and layout.score() == 78 and layout.score(ENGLISH) == 78
    lines = {line.line.name: (line.category, line.points) for line in layout.line_scores()}
    # "The rows count a straight flush (30), threes (6), a pair (1), threes (6)"
    assert lines["row 2"] == (Category.ROYAL_FLUSH, 30)
    assert lines["row 3"] == (Category.THREES, 6)
    assert lines["row 4"] == (Category.PAIR, 1)
    assert lines["row 5"] == (Category.THREES, 6)
    # "the columns count a straight flush (30), two pairs (3), pair (1), pair (1)"
    assert lines["column B"] == (Category.STRAIGHT_FLUSH, 30)  # H5 HA H4 H2 H3: the wheel
    assert lines["column C"] == (Category.TWO_PAIRS, 3)
    assert lines["column D"] == (Category.PAIR, 1)
    assert lines["column E"] == (Category.PAIR, 1)
    assert lines["row 1"][1] == lines["column A"][1] == 0


def test_hoyles_81() -> None:
    layout = Layout.from_grid(HOYLE_DEAL, grid_of(HOYLE_81))
    assert layout.score() == 81 == HOYLE_BEST
    lines = {line.line.name: (line.category, line.points) for line in layout.line_scores()}
    # "The rows count a straight flush (30), threes (6), a straight (12), threes (6)."
    assert [lines[f"row {n}"] for n in range(2, 6)] == [
        (Category.ROYAL_FLUSH, 30),
        (Category.THREES, 6),
        (Category.STRAIGHT, 12),
        (Category.THREES, 6),
    ]
    # "The columns count fours (16), full hand (10), pair (1). Total, 81."
    assert lines["column C"] == (Category.FOURS, 16)
    assert lines["column D"] == (Category.FULL_HOUSE, 10)
    assert lines["column E"] == (Category.PAIR, 1)
    assert str(layout) == "D4 E4 E3 D3 D2 E2 E1 D1 C1 C2 B2 B1 A1 A2 A3 A4 A5 B5 B4 B3 C3 C4 C5 D5 E5"
    assert Layout.parse(HOYLE_DEAL, str(layout)) == layout
    assert layout.grid()[3] == tuple(parse_cards("H4 H7 H3 D6 S5"))


def test_a_grid_that_breaks_the_rule_or_the_deal() -> None:
    rows = grid_of(HOYLE_81)
    swapped = [list(row) for row in rows]
    swapped[0][0], swapped[4][4] = swapped[4][4], swapped[0][0]
    with pytest.raises(PlacementError):
        Layout.from_grid(HOYLE_DEAL, swapped)
    other = [list(row) for row in rows]
    other[0][0] = Card.parse("SA")
    with pytest.raises(DealError, match="lacks"):
        Layout.from_grid(HOYLE_DEAL, other)
    with pytest.raises(DealError):
        Layout.from_grid(HOYLE_DEAL, rows[:4])


def test_placing_card_by_card() -> None:
    layout = Layout.start(HOYLE_DEAL)
    assert layout.placed == 0 and layout.next_card == Card.parse("D6") and layout.last_cell is None
    assert layout.legal_cells() == tuple(cell for cell in CELLS if cell.dark)
    assert layout.score() == 0
    layout = layout.place("D4")
    assert layout.card_at("D4") == Card.parse("D6") and layout.order_at(Cell(3, 3)) == 0
    assert layout.card_at("A1") is None and layout.order_at("A1") is None
    assert [str(c) for c in layout.legal_cells()] == ["D3", "C4", "E4", "D5"]
    with pytest.raises(PlacementError, match="rook's step"):
        layout.place("E5")
    with pytest.raises(PlacementError, match="already holds card 1"):
        layout.place("D4")
    with pytest.raises(CellError):
        layout.place("F9")
    assert layout.undo() == Layout.start(HOYLE_DEAL)
    with pytest.raises(PlacementError, match="no card to take back"):
        Layout.start(HOYLE_DEAL).undo()
    with pytest.raises(PlacementError, match="cannot all reach"):
        Layout.start(HOYLE_DEAL).place("B1")  # a light square


def test_a_dead_end_is_refused() -> None:
    layout = Layout.parse(HOYLE_DEAL, "C1 B1 B2")
    assert [str(cell) for cell in layout.legal_cells()] == ["C2", "B3"]  # not A2: A1 would be walled in
    with pytest.raises(PlacementError, match="cannot all reach"):
        layout.place("A2")
    with pytest.raises(PlacementError):
        Layout.parse(HOYLE_DEAL, "C1 B1 B2 A2")


def test_partial_lines_score_what_they_hold() -> None:
    layout = Layout.parse(HOYLE_DEAL, "D4 E4 E3 D3")  # D6 S5 / CQ DQ
    scores = {line.line.name: line for line in layout.line_scores()}
    assert scores["row 3"].category == Category.PAIR and scores["row 3"].points == 1
    assert not scores["row 3"].complete and scores["row 3"].cards == tuple(parse_cards("DQ CQ"))
    assert layout.score() == 1 and layout.score(AMERICAN) == 2
    full = solve(HOYLE_DEAL)
    assert all(line.complete for line in full.line_scores())
    with pytest.raises(PlacementError, match="all 25 cards"):
        full.place(full.path[-1])
    assert full.legal_cells() == () and full.next_card is None


def test_layout_constructor_checks_and_normalises() -> None:
    # squares given loosely, as pairs and names: the constructor makes them cells
    assert Layout(HOYLE_DEAL, cast(tuple[Cell, ...], ((3, 3), "E4"))).path == (Cell(3, 3), Cell(3, 4))
    with pytest.raises(PlacementError):
        Layout(HOYLE_DEAL, cast(tuple[Cell, ...], ((3, 3), (4, 4))))
    layout = Layout.parse(HOYLE_DEAL, "D4 E4")
    assert eval(repr(layout)) == layout  # noqa: S307 - the repr spells a constructor


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 24), min_size=0, max_size=60), st.integers(0, 2**32 - 1))
def test_the_rule_holds_on_every_placement(tries: list[int], seed: int) -> None:
    """Whatever squares are tried: exactly the offered squares are taken, each
    a rook's step from the last card, and an offered square never leads into a
    dead end (the layout always finishes)."""
    deal = deal_from_seed(f"hypothesis {seed}")
    layout = Layout.start(deal)
    for number in tries:
        if layout.is_complete:
            break
        legal = layout.legal_cells()
        assert legal, "a layout can always go on"
        cell = CELLS[number]
        if cell in legal:
            placed = layout.place(cell)
            assert placed.path == layout.path + (cell,)
            assert not layout.path or layout.path[-1].touches(cell)
            assert placed.undo() == layout
            layout = placed
        else:
            with pytest.raises(PlacementError):
                layout.place(cell)
    rng = random.Random(seed)
    while not layout.is_complete:  # finish by the offered squares alone
        layout = layout.place(rng.choice(layout.legal_cells()))
    assert len(set(layout.path)) == 25
    assert all(a.touches(b) for a, b in zip(layout.path, layout.path[1:]))
    assert layout.path in all_rook_paths()
    assert Layout(deal, layout.path) == layout


def test_offered_squares_are_exactly_the_placeable_ones() -> None:
    layout = Layout.parse(HOYLE_DEAL, "C3 C2 B2")
    for cell in CELLS:
        try:
            layout.place(cell)
            placeable = True
        except PlacementError:
            placeable = False
        assert placeable == (cell in layout.legal_cells()), cell


# -- the solver -----------------------------------------------------------------------------


def test_the_solver_finds_hoyles_81() -> None:
    best = solve(HOYLE_DEAL)
    assert best.is_complete and best.score(ENGLISH) == 81 == best_score(HOYLE_DEAL)
    assert Layout(HOYLE_DEAL, best.path) == best  # a legal layout
    assert solve(HOYLE_DEAL) == best  # the same answer every time


def test_the_solver_under_the_american_table() -> None:
    best = solve(HOYLE_DEAL, AMERICAN)
    assert best.score(AMERICAN) == best_score(HOYLE_DEAL, AMERICAN)
    assert best.score(AMERICAN) >= Layout.from_grid(HOYLE_DEAL, grid_of(HOYLE_81)).score(AMERICAN)


def brute_force_best(deal: Deal, paths: set[tuple[tuple[int, int], ...]], table: dict[Category, int]) -> int:
    """The best score over every rook's path, by the slow reading of hands."""
    memo: dict[frozenset[int], int] = {}
    best = -1
    for path in paths:
        total = 0
        for line in [[i for i, (r, _) in enumerate(path) if r == k] for k in range(5)] + [
            [i for i, (_, c) in enumerate(path) if c == k] for k in range(5)
        ]:
            key = frozenset(line)
            if key not in memo:
                memo[key] = table[slow_category([deal[i] for i in line])]
            total += memo[key]
        best = max(best, total)
    return best


@pytest.mark.parametrize("seed", range(4))
def test_the_solver_against_brute_force(seed: int, searched_paths) -> None:
    deal = deal_from_seed(f"brute force {seed}")
    for scoring in (ENGLISH, AMERICAN):
        table = {category: scoring.points(category) for category in Category}
        best = solve(deal, scoring)
        assert best.score(scoring) == brute_force_best(deal, searched_paths, table)


def test_the_solver_against_brute_force_on_rich_deals(searched_paths) -> None:
    """Deals of few ranks and suits, where flushes, fours and full houses crowd in."""
    rng = random.Random(7)
    for _ in range(3):
        ranks = rng.sample(list(Rank), 7)
        pool = [Card(rank, suit) for rank in ranks for suit in Suit]
        deal = Deal(tuple(rng.sample(pool, 25)))
        for scoring in (ENGLISH, AMERICAN):
            table = {category: scoring.points(category) for category in Category}
            assert best_score(deal, scoring) == brute_force_best(deal, searched_paths, table)
    one_suit_heavy = Deal(tuple(FULL_DECK[13:26] + FULL_DECK[26:38]))  # all diamonds, 12 hearts
    assert best_score(one_suit_heavy) == brute_force_best(
        one_suit_heavy, searched_paths, {c: ENGLISH.points(c) for c in Category}
    )


# -- deals from a seed ------------------------------------------------------------------------


def deal_by_the_documented_rule(seed: bytes, nonce: str) -> list[str]:
    """engine.patience.deals' module docstring, followed to the letter."""
    deck = [f"{suit}{rank}" for suit in "CDHS" for rank in ["A", *map(str, range(2, 11)), "J", "Q", "K"]]
    cards = []
    for k in range(25):
        left = 52 - k
        limit = (256 // left) * left
        attempt, pick = 0, None
        while pick is None:
            message = f"{nonce}:{k}" if attempt == 0 else f"{nonce}:{k}:{attempt}"
            for byte in hmac.new(seed, message.encode(), hashlib.sha256).digest():
                if byte < limit:
                    pick = byte % left
                    break
            attempt += 1
        cards.append(deck.pop(pick))
    return cards


def test_deal_from_seed_follows_its_documented_rule() -> None:
    for seed in (b"\x00" * 32, bytes(range(32)), b"2025-01-31 guild 42"):
        for nonce in ("patience", "patience:2025-01-31"):
            assert str(deal_from_seed(seed, nonce)).split() == deal_by_the_documented_rule(seed, nonce)
    assert deal_from_seed("text seed") == deal_from_seed(b"text seed")


def test_deal_from_seed_is_fixed_and_varies_with_seed_and_nonce() -> None:
    seed = bytes(range(32))
    deal = deal_from_seed(seed)
    assert deal == deal_from_seed(seed) and len(set(deal)) == 25
    assert str(deal) == str(deal_from_seed(bytes(range(32)), "patience"))
    assert deal_from_seed(seed, "patience:2025-01-31") != deal
    assert deal_from_seed(bytes(range(1, 33))) != deal
    with pytest.raises(ValueError):
        deal_from_seed(b"")


def test_seeded_deals_look_uniform() -> None:
    first = Counter(deal_from_seed(f"uniform {n}")[0] for n in range(2600))
    last = Counter(deal_from_seed(f"uniform {n}")[24] for n in range(2600))
    for counts in (first, last):
        _, p_value = chi_square_uniform([counts[card] for card in FULL_DECK])
        assert p_value > 0.001
