"""Pairings and standings of a tournament: pure functions over player ids.

Nothing here stores, waits or knows Discord: a round is computed from the
entrants (in seed order, the best first) and what was played so far.

- **Knockout** (:func:`knockout_table`, :func:`knockout_pairs`,
  :func:`knockout_next_table`): the bracket is the next power of two; the
  seeds are placed so that 1 and 2 can meet only in the final, 1 to 4 only in
  the semi-finals, and so on; the places left over are byes, which fall to the
  top seeds. Each round's winners move on in table order.
- **Round robin** (:func:`round_robin`): the circle method. One player stays
  put and the others turn around them, so everyone meets everyone once in
  ``n - 1`` rounds (``n`` rounds for an odd field, each player sitting out once).
- **Swiss** (:func:`swiss_pairs`): players meet others on the same score,
  nobody meets the same opponent twice while that can be avoided, and the bye
  goes round: the pairing is a maximum-weight perfect matching of
  :mod:`networkx` over a graph whose edge weights put, in this order, no
  rematch, then the smallest score differences, then the top half of each
  score group against its bottom half (the bye is one more vertex, joined only
  to the players with the fewest byes so far, the lowest ranked preferred).
- **Standings** (:func:`standings`): a win, a bye or a forfeit won is a point.
  Ties are broken by Buchholz (the sum of the opponents' scores), then
  Sonneborn-Berger (the sum of the scores of the opponents beaten), then by
  seed. A knockout ranks players by how far they got.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

KNOCKOUT = "knockout"
ROUND_ROBIN = "round_robin"
SWISS = "swiss"
FORMATS = (KNOCKOUT, ROUND_ROBIN, SWISS)


@dataclass(frozen=True, slots=True)
class Pair:
    """One table of a round: ``a`` against ``b``, or a bye for ``a`` (``b`` None)."""

    table: int
    a: int
    b: int | None

    @property
    def is_bye(self) -> bool:
        return self.b is None

    @property
    def players(self) -> tuple[int, ...]:
        return (self.a,) if self.b is None else (self.a, self.b)


@dataclass(frozen=True, slots=True)
class Played:
    """A decided table: ``winner`` is ``a`` or ``b``, or None when neither won
    (both withdrew, or a moderator abandoned the game). A bye (``b`` None) is won by ``a``."""

    round: int
    a: int
    b: int | None
    winner: int | None
    forfeit: bool = False

    @property
    def is_bye(self) -> bool:
        return self.b is None

    def loser(self) -> int | None:
        if self.b is None or self.winner is None:
            return None
        return self.b if self.winner == self.a else self.a


# -- knockout -----------------------------------------------------------------------------


def bracket_size(players: int) -> int:
    """The smallest power of two holding ``players`` (at least 2)."""
    size = 2
    while size < players:
        size *= 2
    return size


def knockout_rounds(players: int) -> int:
    """How many rounds a knockout of ``players`` takes."""
    return bracket_size(players).bit_length() - 1


def bracket_order(size: int) -> list[int]:
    """Seeds 1..``size`` in table order: 1 and 2 meet only in the final, the top
    four only from the semi-finals, ... (``[1, 8, 4, 5, 2, 7, 3, 6]`` for 8)."""
    if size < 2 or size & (size - 1):
        raise ValueError(f"a bracket holds a power of two players, not {size}")
    order = [1, 2]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


def knockout_table(seeded: Sequence[int]) -> list[int | None]:
    """The first round's slots, in table order: players by seed (``seeded[0]``
    is seed 1), None where a bye is (they fall to the top seeds)."""
    if len(seeded) < 2:
        raise ValueError("a knockout needs at least two players")
    return [seeded[seed - 1] if seed <= len(seeded) else None for seed in bracket_order(bracket_size(len(seeded)))]


def knockout_pairs(table: Sequence[int | None]) -> list[Pair]:
    """The round's tables: slots ``2k`` and ``2k + 1`` meet at table ``k``; one
    alone has a bye; an empty table (both gone) is left out."""
    pairs = []
    for k in range(len(table) // 2):
        a, b = table[2 * k], table[2 * k + 1]
        if a is None and b is None:
            continue
        if a is None:
            a, b = b, None
        assert a is not None
        pairs.append(Pair(k, a, b))
    return pairs


def knockout_next_table(table: Sequence[int | None], winners: Mapping[int, int | None]) -> list[int | None]:
    """The next round's slots: the winner of each table (``winners``: table ->
    winner; None or missing: nobody goes on from it)."""
    if len(table) < 2:
        raise ValueError("the final has no next round")
    return [winners.get(k) for k in range(len(table) // 2)]


# -- round robin ----------------------------------------------------------------------------


def round_robin(players: Sequence[int]) -> list[list[Pair]]:
    """Every round of an all-play-all by the circle method (``players`` in seed
    order; an odd field gets a bye a round, each player's once). The fixed
    player's seat alternates from round to round."""
    if len(players) < 2:
        raise ValueError("a round robin needs at least two players")
    if len(set(players)) != len(players):
        raise ValueError("a player can enter only once")
    ring: list[int | None] = list(players)
    if len(ring) % 2:
        ring.append(None)
    size = len(ring)
    rounds: list[list[Pair]] = []
    for number in range(size - 1):
        pairs: list[Pair] = []
        byes: list[int] = []
        for i in range(size // 2):
            a, b = ring[i], ring[size - 1 - i]
            if i == 0 and number % 2:
                a, b = b, a
            if a is None or b is None:
                byes.append(a if a is not None else b)  # type: ignore[arg-type]
                continue
            pairs.append(Pair(len(pairs), a, b))
        pairs += [Pair(len(pairs) + n, player, None) for n, player in enumerate(byes)]
        rounds.append(pairs)
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


# -- swiss ------------------------------------------------------------------------------------


def scores(history: Iterable[Played]) -> Counter[int]:
    """Points so far: a win, a bye or a forfeit won is one."""
    points: Counter[int] = Counter()
    for game in history:
        for player in (game.a, game.b):
            if player is not None:
                points[player] += 0
        if game.winner is not None:
            points[game.winner] += 1
    return points


def ranked(players: Sequence[int], history: Iterable[Played]) -> list[int]:
    """``players`` (in seed order) by score, the seed breaking ties: the Swiss pairing order."""
    points = scores(history)
    seed = {player: index for index, player in enumerate(players)}
    return sorted(players, key=lambda p: (-points[p], seed[p]))


_BYE = -1
"""The bye's vertex in the matching graph (player ids are positive)."""


def swiss_pairs(players: Sequence[int], history: Sequence[Played]) -> list[Pair]:
    """The next Swiss round for ``players`` (those still in, in seed order),
    given every table played so far (including withdrawn players' games, which
    count for the others' scores and rematches).

    A maximum-weight matching with the most pairs (every player paired, one
    bye for an odd field) over weights that put, in this order of importance:
    no rematch, the smallest score differences (squared: two gaps of one beat
    one gap of two), each score group's top half against its bottom half. The
    bye goes to one of those with the fewest byes, the lowest ranked if the
    rest pairs as well. Tables are numbered by their better-ranked player."""
    if len(players) < 2:
        raise ValueError("a Swiss round needs at least two players")
    if len(set(players)) != len(players):
        raise ValueError("a player can enter only once")
    order = ranked(players, history)
    points = scores(history)
    rank = {player: index for index, player in enumerate(order)}
    met: set[frozenset[int]] = set()
    byes: Counter[int] = Counter()
    for game in history:
        if game.b is None:
            byes[game.a] += 1
        else:
            met.add(frozenset((game.a, game.b)))
    groups: dict[int, list[int]] = defaultdict(list)
    for player in order:
        groups[points[player]].append(player)
    place = {player: (index, len(group)) for group in groups.values() for index, player in enumerate(group)}

    n = len(order)
    top = max((points[p] for p in order), default=0)
    low = min((points[p] for p in order), default=0)
    spread = top - low
    edges = n // 2 + 1
    score_step = n * n + 1  # one step of score difference outweighs every rank preference of the round
    rematch = edges * (spread * spread + 1) * score_step + 1  # one rematch outweighs every score difference
    base = rematch * (edges + 1)

    def rank_cost(a: int, b: int) -> int:
        """How far b is from a's ideal opponent: the same place in the other half of a's group."""
        (pos_a, size), (pos_b, _) = place[a], place[b]
        if points[a] == points[b]:
            return abs(pos_b - (pos_a + size // 2)) if pos_a < size // 2 else abs(pos_a - (pos_b + size // 2))
        return pos_b if points[a] > points[b] else pos_a  # a floater meets the top of the group below

    graph = nx.Graph()
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            gap = points[a] - points[b]
            weight = base - gap * gap * score_step - rank_cost(a, b)
            if frozenset((a, b)) in met:
                weight -= rematch
            graph.add_edge(a, b, weight=weight)
    if n % 2:
        fewest = min(byes[p] for p in order)
        for player in order:
            if byes[player] == fewest:
                gap = points[player] - low
                graph.add_edge(player, _BYE, weight=base - gap * gap * score_step - (n - 1 - rank[player]))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    tables: list[tuple[int, int | None]] = []
    bye: int | None = None
    for u, v in matching:
        if _BYE in (u, v):
            bye = v if u == _BYE else u
            continue
        a, b = (u, v) if rank[u] < rank[v] else (v, u)
        tables.append((a, b))
    tables.sort(key=lambda pair: rank[pair[0]])
    pairs = [Pair(index, a, b) for index, (a, b) in enumerate(tables)]
    if bye is not None:
        pairs.append(Pair(len(pairs), bye, None))
    paired = [p for pair in pairs for p in pair.players]
    assert sorted(paired) == sorted(players), "every player is paired once"
    return pairs


def rematches(pairs: Iterable[Pair], history: Iterable[Played]) -> int:
    """How many of ``pairs`` are rematches of a table in ``history``."""
    met = {frozenset((g.a, g.b)) for g in history if g.b is not None}
    return sum(1 for pair in pairs if pair.b is not None and frozenset((pair.a, pair.b)) in met)


# -- standings ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's line in the standings."""

    player: int
    place: int
    """1 for the leader; in a knockout players out in the same round share it."""
    score: int
    """Wins (forfeits won included) and byes."""
    wins: int
    losses: int
    byes: int
    buchholz: int
    """The sum of the opponents' scores (byes count nothing)."""
    sonneborn_berger: int
    """The sum of the scores of the opponents beaten."""
    out_in: int | None
    """A knockout: the round a player lost or left in (None: still in, or the champion)."""
    withdrawn: bool = False


def standings(
    fmt: str,
    players: Sequence[int],
    history: Sequence[Played],
    withdrawn: Iterable[int] = (),
) -> list[Standing]:
    """Everyone's standing, the leader first. ``players`` in seed order (seed:
    the last tie-break); ``withdrawn``: players who left (they keep what they won).

    Round robin and Swiss: by score, then Buchholz, then Sonneborn-Berger, then
    seed, a withdrawn player after everyone who finished. Knockout: by how far a player got (the champion, then the finalist,
    then the semi-finalists sharing third place, ...), then score, then seed."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    gone = set(withdrawn)
    points = scores(history)
    seed = {player: index for index, player in enumerate(players)}
    wins: Counter[int] = Counter()
    losses: Counter[int] = Counter()
    byes: Counter[int] = Counter()
    opponents: dict[int, list[int]] = defaultdict(list)
    beaten: dict[int, list[int]] = defaultdict(list)
    out_in: dict[int, int] = {}
    for game in history:
        if game.b is None:
            if game.winner is None:  # a withdrawn player's table: a round lost
                losses[game.a] += 1
            else:
                byes[game.a] += 1
            continue
        opponents[game.a].append(game.b)
        opponents[game.b].append(game.a)
        for player in (game.a, game.b):
            if game.winner != player:
                losses[player] += 1
                out_in.setdefault(player, game.round)
        if game.winner is not None:
            wins[game.winner] += 1
            beaten[game.winner].append(game.b if game.winner == game.a else game.a)
    last_round = max((g.round for g in history), default=0)
    for player in gone:
        out_in.setdefault(player, last_round)
    buchholz = {p: sum(points[o] for o in opponents[p]) for p in players}
    sb = {p: sum(points[o] for o in beaten[p]) for p in players}

    if fmt == KNOCKOUT:

        def key(p: int) -> tuple[int, ...]:
            return (-(out_in.get(p, 1 << 30)), -points[p], seed[p])

        def level(p: int) -> tuple[int, ...]:
            return (-(out_in.get(p, 1 << 30)),)
    else:

        def key(p: int) -> tuple[int, ...]:  # a withdrawn player after those who finished
            return (p in gone, -points[p], -buchholz[p], -sb[p], seed[p])

        def level(p: int) -> tuple[int, ...]:
            return key(p)

    order = sorted(players, key=key)
    table: list[Standing] = []
    for index, player in enumerate(order):
        shared = index and level(order[index - 1]) == level(player)
        place = table[-1].place if shared else index + 1
        table.append(
            Standing(
                player=player,
                place=place,
                score=points[player],
                wins=wins[player],
                losses=losses[player],
                byes=byes[player],
                buchholz=buchholz[player],
                sonneborn_berger=sb[player],
                out_in=out_in.get(player) if fmt == KNOCKOUT else None,
                withdrawn=player in gone,
            )
        )
    return table
