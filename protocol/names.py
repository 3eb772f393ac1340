"""What a player's name may look like: nothing invisible, nothing that passes for another
name or for the client's own marks.

A name is shown on leaderboards, in rooms and on the Watch list; one that looks like
another player's (or like nothing) lets someone pass for them. Beside the invisible
categories (:data:`REFUSED_CATEGORIES`) a name may not hold:

- **blanks and fillers**: characters that draw nothing although they are letters or
  symbols (Hangul fillers U+3164, U+FFA0, U+115F, U+1160; the braille blank U+2800), the
  other default-ignorable code points, and spaces other than the plain one;
- **compatibility look-alikes**: full-width, mathematical (bold, script ...), circled,
  superscript, small and presentation forms, whose compatibility decomposition (NFKC)
  is a plain letter (the fonts of ``𝐒𝐩𝐞𝐞𝐝𝐲`` and ``Ｓｐｅｅｄｙ`` are not a name of
  their own), and the presentation-form blocks (U+FDFD is a whole phrase in one very wide
  character);
- **runs of combining marks** longer than :data:`MAX_MARKS` ("zalgo" text that draws over
  its neighbours; Thai, Vietnamese or Devanagari names need at most two or three);
- **mixed scripts** beyond UTS #39's *moderately restrictive* profile: one script, or
  Latin with Han and Japanese kana, with Han and Bopomofo, with Han and Hangul, or with one
  other script that is not Cyrillic or Greek (``Ѕрееdу`` mixes Cyrillic into Latin);
- **the client's name·tag pattern**: a dot followed by four hex digits, which the web
  client appends to every name (``Ann·4f2c``) to tell namesakes apart.

The script of a character comes from the Unicode data Python ships (``unicodedata``): the
script word its name starts with (``LATIN``, ``CYRILLIC``, ``THAI`` ...; :func:`script`).
Digits, punctuation and symbols have no script (UTS #39's Common), combining marks without
one of their own take their base's (Inherited).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Final

#: Unicode categories a name may not hold: control (Cc), format (Cf: zero-width and bidi
#: controls), surrogate (Cs), private use (Co), unassigned (Cn), line and paragraph
#: separators (Zl, Zp). They make two names look alike or reorder what is shown around them.
REFUSED_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})

#: Letters and symbols that draw nothing (Hangul fillers, the braille blank) and the other
#: default-ignorable code points that are not of a refused category (DerivedCoreProperties:
#: the combining grapheme joiner, Khmer inherent vowels, Mongolian variation selectors,
#: variation selectors).
BLANKS: Final = frozenset(
    {0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x034F, 0x17B4, 0x17B5}
    | set(range(0x180B, 0x1810))
    | set(range(0xFE00, 0xFE10))
    | set(range(0xE0100, 0xE01F0))
)

#: Blocks of presentation forms, never typed as text (Arabic text is in U+0600-U+06FF):
#: among them U+FDFD, a whole phrase in one very wide character.
PRESENTATION_FORMS: Final = ((0xFB50, 0xFDFF), (0xFE70, 0xFEFF))

#: Compatibility decompositions that mark a look-alike of a plain character (or word).
LOOKALIKE_TAGS: Final = frozenset(
    {
        "<font>",
        "<wide>",
        "<narrow>",
        "<circle>",
        "<square>",
        "<super>",
        "<sub>",
        "<small>",
        "<vertical>",
        "<fraction>",
        "<initial>",
        "<medial>",
        "<final>",
        "<isolated>",
    }
)

#: The longest run of combining marks a name may hold.
MAX_MARKS: Final = 3

#: Sets of scripts UTS #39's moderately restrictive profile allows together, besides one
#: script alone and Latin with any one script but Cyrillic and Greek.
CJK_SETS: Final = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)

#: Name words that are a script under another name, or no script of their own.
_SCRIPT_WORDS: Final = {
    "CJK": "HAN",
    "IDEOGRAPHIC": "HAN",  # 々 (ideographic iteration mark), 〇
    "KATAKANA-HIRAGANA": "",  # ー, used in both kana
    "MODIFIER": "",  # modifier letters: ʼ, ˈ
    "COMBINING": "",
}

#: The web client's name·tag (``who()`` in client_web/js/dom.js): a dot, then four hex digits.
TAG_PATTERN: Final = re.compile(
    r"[\u00b7\u0387\u2022\u2027\u2219\u22c5\u30fb\u2e31\ua78f]\s*[0-9a-f]{4}", re.IGNORECASE
)


@lru_cache(maxsize=4096)
def script(char: str) -> str:
    """The script of a character: the script word its Unicode name starts with for a letter
    or mark (``LATIN``, ``CYRILLIC``, ``HAN`` ...), or ``""`` for none (digits, punctuation,
    symbols, spaces; marks that take their base's)."""
    if unicodedata.category(char)[0] not in "LM":
        return ""
    word = unicodedata.name(char, "").split(" ", 1)[0]
    return _SCRIPT_WORDS.get(word, word)


def scripts_allowed(found: set[str]) -> bool:
    """Whether a name's scripts pass UTS #39's moderately restrictive profile."""
    if len(found) <= 1:
        return True
    if any(found <= allowed for allowed in CJK_SETS):
        return True
    others = found - {"LATIN"}
    return len(found) == 2 and len(others) == 1 and not others & {"CYRILLIC", "GREEK"}


def refusal(name: str) -> str | None:
    """Why a name (in NFC) is refused, or None: the first rule it breaks, in words."""
    marks = 0
    for char in name:
        code = f"U+{ord(char):04X}"
        label = unicodedata.name(char, "an unnamed character")
        category = unicodedata.category(char)
        if category in REFUSED_CATEGORIES or ord(char) in BLANKS:
            return f"a name may not hold {code} ({label})"
        if category == "Zs" and char != " ":
            return f"a name may not hold {code} ({label}): use a plain space"
        tag = unicodedata.decomposition(char).split(" ", 1)[0]
        presentation = any(low <= ord(char) <= high for low, high in PRESENTATION_FORMS)
        if tag in LOOKALIKE_TAGS or presentation:
            return f"a name may not hold {code} ({label}): write the plain character"
        marks = marks + 1 if category in ("Mn", "Me") else 0
        if marks > MAX_MARKS:
            return f"a name may not stack more than {MAX_MARKS} combining marks"
    found = {s for s in map(script, name) if s}
    if not scripts_allowed(found):
        mixed = ", ".join(sorted(s.title() for s in found))
        return f"a name may not mix these scripts: {mixed}"
    if TAG_PATTERN.search(name):
        return "a name may not hold a dot and four hex digits (·4f2c): the page tags every name so"
    return None


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype: the characters that Unicode's confusables
    data (``confusables.txt`` of UTS #39, as the ``confusable_homoglyphs`` package ships
    it) links one to one, joined into classes, each named by one member (an ASCII one when
    the class holds one: ``0`` and ``O`` are ``O``, ``1``, ``I``, ``l`` and ``|`` are ``1``).
    Sequences of several characters (``rn`` for ``m``) are left out: a one-to-one class
    cannot hold them."""
    from confusable_homoglyphs.confusables import confusables_data

    parent: dict[str, str] = {}

    def root(char: str) -> str:
        parent.setdefault(char, char)
        while parent[char] != char:
            parent[char] = parent[parent[char]]
            char = parent[char]
        return char

    for char, glyphs in confusables_data.items():
        if len(char) != 1:
            continue
        for glyph in glyphs:
            other = glyph["c"]
            if len(other) == 1 and root(char) != root(other):
                parent[root(char)] = root(other)
    members: dict[str, list[str]] = {}
    for char in list(parent):
        members.setdefault(root(char), []).append(char)
    out: dict[str, str] = {}
    for chars in members.values():
        name = min(chars, key=lambda c: (not c.isascii(), c))
        out.update(dict.fromkeys(chars, name))
    return out


def skeleton(name: str) -> str:
    """UTS #39's skeleton of a name: decomposed (NFD), each character replaced by its
    confusable class's prototype, decomposed again. Two names of one skeleton pass for
    each other: ``Ann`` and the Cyrillic ``Аnn``, ``Mary`` and ``Маrу``, ``B0b`` and ``BOb``.

    >>> skeleton("Маrу") == skeleton("Mary")  # Cyrillic М, а and у
    True
    >>> skeleton("Ann") == skeleton("Anna")
    False
    """
    table = _prototypes()
    decomposed = unicodedata.normalize("NFD", name)
    return unicodedata.normalize("NFD", "".join(table.get(c, c) for c in decomposed))
