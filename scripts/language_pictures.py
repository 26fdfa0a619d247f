"""Draw one board and one chart in each language the bot speaks, into docs/pictures/.

    PYTHONPATH=. python scripts/language_pictures.py [--out docs/pictures]

Each picture is drawn as the bot draws it for a message in that language: the
scene or chart carries the language (``language=``) and the drawing happens in
:func:`i18n.speaking` of it. Where a language's catalogue does not translate a
picture's label yet, a small sample catalogue (:data:`SAMPLES`, the board's and
the charts' labels) stands in for it, so the pictures show each alphabet, the
fonts and the right-to-left layout before the translators' work lands. The
catalogues under ``i18n/locales`` win wherever they translate a label.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from babel.messages.catalog import Catalog  # noqa: E402
from babel.messages.pofile import write_po  # noqa: E402

import i18n  # noqa: E402
from engine.play import Move  # noqa: E402
from engine.position import Position  # noqa: E402
from renderer import BoardScene, render_board  # noqa: E402
from renderer.charts import GameChart, Mark  # noqa: E402

Key = str | tuple[str, str]
"""A message id, or (singular, plural) for a plural message."""
Translation = str | tuple[str, ...]
"""A translation, or one per plural form (the last repeated for the forms not given)."""

_BOARD_IDS: tuple[Key, ...] = (
    "played {play}",
    "{player} doubles to {value}: {opponent} to take or pass",
    "Opening roll {dice}: {player} to play",
    "{player} to play {dice}",
    "{player} to roll or double",
    "{player} to roll",
    "Match to {length}",
    "Crawford",  # context "match"
    "Money game · {stake} per point",
    "Money game",
    "Score {score}",
    ("{count} pip", "{count} pips"),
    "Player",
    "Opponent",
    ("{player} wins {count} point", "{player} wins {count} points"),
)
_CHART_IDS: tuple[Key, ...] = (
    "wins %",
    "luck",
    "move",
    "blunder",
    "cube error",
    "darker/lighter: gammons",
    "rating",
    "points",
    "error rate",
    "no analysed match yet",
    "won",
    "lost",
)
IDS = _BOARD_IDS + _CHART_IDS
CONTEXTS = {"Crawford": "match"}

SAMPLES: dict[str, tuple[Translation, ...]] = {
    "el": (
        "έπαιξε {play}",
        "{player} διπλασιάζει στο {value}: {opponent} δέχεται ή πάσο",
        "Πρώτη ζαριά {dice}: παίζει {player}",
        "{player} παίζει {dice}",
        "{player}: ζάρια ή διπλασιασμός",
        "{player}: ζάρια",
        "Αγώνας στους {length}",
        "Κρόφορντ",
        "Με χρήματα · {stake} ανά πόντο",
        "Με χρήματα",
        "Σκορ {score}",
        ("{count} πιπ",),
        "Παίκτης",
        "Αντίπαλος",
        ("{player} κερδίζει {count} πόντο", "{player} κερδίζει {count} πόντους"),
        "νίκες %",
        "τύχη",
        "κίνηση",
        "γκάφα",
        "λάθος κύβου",
        "σκούρο/ανοιχτό: διπλά",
        "βαθμολογία",
        "πόντοι",
        "ποσοστό λαθών",
        "κανένας αναλυμένος αγώνας ακόμη",
        "νίκη",
        "ήττα",
    ),
    "tr": (
        "{play} oynadı",
        "{player} katlıyor ({value}): {opponent} kabul mü pas mı",
        "Açılış zarı {dice}: {player} oynar",
        "{player} {dice} oynar",
        "{player}: zar ya da katlama",
        "{player}: zar atar",
        "{length} sayılık maç",
        "Crawford",
        "Parasına oyun · sayı başı {stake}",
        "Parasına oyun",
        "Skor {score}",
        ("{count} pip",),
        "Oyuncu",
        "Rakip",
        ("{player} {count} sayı kazanır",),
        "kazanma %",
        "şans",
        "hamle",
        "büyük hata",
        "küp hatası",
        "koyu/açık: mars",
        "reyting",
        "sayı",
        "hata oranı",
        "henüz analiz edilmiş maç yok",
        "kazandı",
        "kaybetti",
    ),
    "ru": (
        "сыграл {play}",
        "{player} удваивает до {value}: {opponent} принимает или сдаётся",
        "Первый бросок {dice}: ходит {player}",
        "{player} ходит {dice}",
        "{player}: бросок или удвоение",
        "{player}: бросок",
        "Матч до {length}",
        "Кроуфорд",
        "Игра на деньги · {stake} за очко",
        "Игра на деньги",
        "Счёт {score}",
        ("{count} пип", "{count} пипа", "{count} пипов"),
        "Игрок",
        "Соперник",
        ("{player} выигрывает {count} очко", "{player} выигрывает {count} очка", "{player} выигрывает {count} очков"),
        "выигрыш %",
        "удача",
        "ход",
        "грубая ошибка",
        "ошибка куба",
        "темнее/светлее: марс",
        "рейтинг",
        "очки",
        "доля ошибок",
        "ещё нет разобранных матчей",
        "победа",
        "поражение",
    ),
    "de": (
        "spielte {play}",
        "{player} verdoppelt auf {value}: {opponent} nimmt an oder passt",
        "Eröffnungswurf {dice}: {player} zieht",
        "{player} zieht {dice}",
        "{player} würfelt oder doppelt",
        "{player} würfelt",
        "Match auf {length}",
        "Crawford",
        "Geldspiel · {stake} pro Punkt",
        "Geldspiel",
        "Stand {score}",
        ("{count} Pip", "{count} Pips"),
        "Spieler",
        "Gegner",
        ("{player} gewinnt {count} Punkt", "{player} gewinnt {count} Punkte"),
        "Gewinn %",
        "Glück",
        "Zug",
        "Patzer",
        "Würfelfehler",
        "dunkler/heller: Gammons",
        "Wertung",
        "Punkte",
        "Fehlerquote",
        "noch kein analysiertes Match",
        "gewonnen",
        "verloren",
    ),
    "fr": (
        "a joué {play}",
        "{player} double à {value} : {opponent} accepte ou passe",
        "Premier lancer {dice} : {player} joue",
        "{player} joue {dice}",
        "{player} lance ou double",
        "{player} lance",
        "Match en {length}",
        "Crawford",
        "Partie d’argent · {stake} par point",
        "Partie d’argent",
        "Score {score}",
        ("{count} pip", "{count} pips"),
        "Joueur",
        "Adversaire",
        ("{player} gagne {count} point", "{player} gagne {count} points"),
        "gains %",
        "chance",
        "coup",
        "gaffe",
        "erreur de videau",
        "foncé/clair : gammons",
        "classement",
        "points",
        "taux d’erreur",
        "aucun match analysé",
        "gagné",
        "perdu",
    ),
    "es": (
        "jugó {play}",
        "{player} dobla a {value}: {opponent} acepta o pasa",
        "Tirada inicial {dice}: juega {player}",
        "{player} juega {dice}",
        "{player} tira o dobla",
        "{player} tira",
        "Partida a {length}",
        "Crawford",
        "Partida por dinero · {stake} por punto",
        "Partida por dinero",
        "Marcador {score}",
        ("{count} pip", "{count} pips"),
        "Jugador",
        "Rival",
        ("{player} gana {count} punto", "{player} gana {count} puntos"),
        "victorias %",
        "suerte",
        "jugada",
        "error grave",
        "error de cubo",
        "oscuro/claro: gammons",
        "puntuación",
        "puntos",
        "tasa de error",
        "aún no hay partidas analizadas",
        "ganada",
        "perdida",
    ),
    "it": (
        "ha giocato {play}",
        "{player} raddoppia a {value}: {opponent} accetta o passa",
        "Tiro d’apertura {dice}: gioca {player}",
        "{player} gioca {dice}",
        "{player} tira o raddoppia",
        "{player} tira",
        "Match ai {length}",
        "Crawford",
        "Partita a soldi · {stake} a punto",
        "Partita a soldi",
        "Punteggio {score}",
        ("{count} pip",),
        "Giocatore",
        "Avversario",
        ("{player} vince {count} punto", "{player} vince {count} punti"),
        "vittorie %",
        "fortuna",
        "mossa",
        "errore grave",
        "errore di cubo",
        "scuro/chiaro: gammon",
        "rating",
        "punti",
        "tasso d’errore",
        "nessun match analizzato",
        "vinta",
        "persa",
    ),
    "pt_BR": (
        "jogou {play}",
        "{player} dobra para {value}: {opponent} aceita ou passa",
        "Lance inicial {dice}: {player} joga",
        "{player} joga {dice}",
        "{player} rola ou dobra",
        "{player} rola os dados",
        "Partida de {length}",
        "Crawford",
        "Jogo a dinheiro · {stake} por ponto",
        "Jogo a dinheiro",
        "Placar {score}",
        ("{count} pip", "{count} pips"),
        "Jogador",
        "Adversário",
        ("{player} ganha {count} ponto", "{player} ganha {count} pontos"),
        "vitórias %",
        "sorte",
        "jogada",
        "erro grave",
        "erro de cubo",
        "escuro/claro: gamões",
        "rating",
        "pontos",
        "taxa de erro",
        "nenhuma partida analisada",
        "venceu",
        "perdeu",
    ),
    "ar": (
        "لعب {play}",
        "{player} يضاعف إلى {value}: {opponent} يقبل أو ينسحب",
        "الرمية الأولى {dice}: يلعب {player}",
        "يلعب {player} {dice}",
        "{player}: رمي النرد أو المضاعفة",
        "{player}: رمي النرد",
        "مباراة إلى {length}",
        "كروفورد",
        "لعب على المال · {stake} لكل نقطة",
        "لعب على المال",
        "النتيجة {score}",
        ("{count} خطوة",),
        "لاعب",
        "الخصم",
        ("يفوز {player} بـ {count} نقطة",),
        "الفوز %",
        "الحظ",
        "النقلة",
        "خطأ فادح",
        "خطأ المكعب",
        "أغمق/أفتح: مارس",
        "التصنيف",
        "النقاط",
        "نسبة الأخطاء",
        "لا توجد مباراة محللة بعد",
        "فوز",
        "خسارة",
    ),
}
"""The board's and the charts' labels in each language, in the order of :data:`IDS`:
stand-ins until the language's catalogue translates them."""

NAMES: dict[str, tuple[str, str]] = {
    "en": ("Ann", "Bob"),
    "el": ("Νίκος", "Ελένη"),
    "tr": ("Ayşe", "Emre"),
    "ru": ("Анна", "Борис"),
    "de": ("Jürgen", "Maß"),
    "fr": ("Aurélie", "Noël"),
    "es": ("Iñigo", "Sofía"),
    "it": ("Niccolò", "Chiara"),
    "pt_BR": ("João", "Conceição"),
    "ar": ("ليلى", "Sam"),
}
"""Players' names in each language's alphabet (and one Latin name beside Arabic, for the mixed direction)."""


def sample_catalogue(language: str, real: Catalog | None = None) -> Catalog:
    """``language``'s catalogue: the real one's messages, and :data:`SAMPLES` for the
    pictures' labels it does not translate."""
    catalogue = Catalog(locale=language)
    if real is not None:
        for message in real:
            if message.id:
                catalogue[message.id] = message
    for key, translation in zip(IDS, SAMPLES[language], strict=True):
        context = CONTEXTS.get(key) if isinstance(key, str) else None
        found = catalogue.get(key[0] if isinstance(key, tuple) else key, context=context)
        if found is not None and found.string and (isinstance(found.string, str) or all(found.string)):
            continue
        if found is not None:  # untranslated: adding again would keep its empty string
            catalogue.delete(found.id, context=context)
        if isinstance(key, tuple):
            forms = tuple(translation) if isinstance(translation, tuple) else (translation,)
            forms = (forms + (forms[-1],) * catalogue.num_plurals)[: catalogue.num_plurals]
            catalogue.add(key, forms, context=context)
        else:
            assert isinstance(translation, str)
            catalogue.add(key, translation, context=context)
    return catalogue


@contextmanager
def sample_catalogues() -> Iterator[Path]:
    """Every language's catalogue completed with :data:`SAMPLES`, in force (``i18n.LOCALES``
    pointed at a folder of them) until the block ends."""
    real_folder = i18n.LOCALES
    with tempfile.TemporaryDirectory(prefix="catalogues-") as folder:
        for language in SAMPLES:
            i18n.catalogue.cache_clear()
            real = i18n.catalogue(language)
            target = Path(folder) / language / "LC_MESSAGES"
            target.mkdir(parents=True)
            with (target / "messages.po").open("wb") as file:
                write_po(file, sample_catalogue(language, real))
        i18n.LOCALES = Path(folder)
        i18n.catalogue.cache_clear()
        try:
            yield Path(folder)
        finally:
            i18n.LOCALES = real_folder
            i18n.catalogue.cache_clear()


def board(language: str) -> BoardScene:
    """A match board with a last play, a hit, an owned cube and the Crawford game."""
    return BoardScene(
        Position.from_position_id("jGfkATDgc/ABMA"),
        names=NAMES[language],
        dice=(5, 3),
        cube_value=2,
        cube_owner=1,
        match_length=7,
        score=(6, 4),
        crawford=True,
        last_play=(Move(13, 9, True), Move(24, 23, False)),
        language=language,
    )


def chart(language: str) -> GameChart:
    """A short game's chart, its chances drifting and a blunder and a cube error marked."""
    moves = tuple(range(1, 31))
    win = tuple(min(0.95, max(0.05, 0.5 + 0.012 * n * (1 if n % 7 else -2))) for n in moves)
    names = NAMES[language]
    return GameChart(
        title=f"{names[0]} · {names[1]}",
        names=names,
        moves=moves,
        movers=tuple(n % 2 for n in moves),
        win=win,
        gammons=tuple((w * 0.2, (1 - w) * 0.15) for w in win),
        luck=tuple(((n * 37) % 11 - 5) / 20 for n in moves),
        marks=(Mark(14, 1, "checker", 0.12), Mark(21, 0, "double", 0.08)),
        language=language,
    )


def write(out: Path) -> list[Path]:
    """The pictures of every language, written to ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with sample_catalogues():
        for language in i18n.LANGUAGES:
            for name, data in (("board", render_board(board(language))), ("chart", chart(language).draw())):
                path = out / f"{name}-{language}.png"
                path.write_bytes(data)
                written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "docs" / "pictures")
    args = parser.parse_args()
    for path in write(args.out):
        print(path)


if __name__ == "__main__":
    main()
