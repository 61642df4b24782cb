"""A player's name as every front end takes it (the server's tables and player pages, the
terminal's ``play --name``): runs of whitespace squeezed to one space, then 1 to
:data:`MAX_NAME_CHARS` printable characters.

And what keeps one name from passing for another (docs/server.md, "Names that look alike"):
:func:`mixed_scripts` (a new name's letters come from one script, its digits from one
system), :func:`skeleton` (the form two names that look alike share) and :func:`look_alike`
(two names that are one to the eye)."""

from __future__ import annotations

import unicodedata

__all__ = [
    "MAX_NAME_CHARS",
    "MixedScriptsError",
    "look_alike",
    "mixed_scripts",
    "one_script",
    "player_name",
    "script_of",
    "skeleton",
    "squeeze",
]

#: the longest name a player may play under
MAX_NAME_CHARS = 32


def squeeze(text: str) -> str:
    """``text`` with its runs of whitespace as one space, none at the ends."""
    return " ".join(text.split())


def player_name(text: str) -> str | None:
    """The name ``text`` stands for (squeezed), or None when it is no name: empty, longer than
    :data:`MAX_NAME_CHARS`, or holding a control character."""
    name = squeeze(text)
    if not name or len(name) > MAX_NAME_CHARS or not name.isprintable():
        return None
    return name


# ---------------------------------------------------------------------- scripts

#: a letter's script is the first word of its Unicode name ("CYRILLIC CAPITAL LETTER A":
#: Cyrillic), but for these words. Python's ``unicodedata`` has no Script property; checked
#: against it (the ``regex`` module's) for every letter of Unicode 14 that NFKC leaves as it
#: is, this gives Unicode's script to all but nine rare ones (five modifier letters, which
#: count in none here; the Arabic tatweel, 〆 and the Javanese pangrangkep, which count in
#: the script they are written with; the Old Chinese iteration mark), and to a script of
#: several words its first (Old Italic and Old Persian are one "Old" here). None: a letter
#: of no script, as digits and punctuation are (modifier letters such as the ʻokina of
#: "Hawaiʻi", Vedic signs)
_SCRIPT_OF_WORD: dict[str, str | None] = {
    "CJK": "Han",
    "IDEOGRAPHIC": "Han",
    "HENTAIGANA": "Hiragana",
    "CANADIAN": "Canadian Aboriginal",
    # (the prolonged sound mark ー and the masu mark, written with both kanas)
    "KATAKANA-HIRAGANA": "Kana",
    "MASU": "Kana",
    "TURNED": "Latin",
    "ROMAN": "Latin",
    "MODIFIER": None,
    "CARON": None,
    "VEDIC": None,
    "VERTICAL": None,
}

#: the writing systems a script belongs to besides its own (Unicode TS #39's augmented
#: script sets): a name may mix scripts that one writing system shares, as Japanese writes
#: Han with Hiragana and Katakana
_SYSTEMS: dict[str, frozenset[str]] = {
    "Han": frozenset({"Han", "Japanese", "Korean", "Chinese"}),
    "Hiragana": frozenset({"Hiragana", "Japanese"}),
    "Katakana": frozenset({"Katakana", "Japanese"}),
    "Kana": frozenset({"Hiragana", "Katakana", "Japanese"}),
    "Hangul": frozenset({"Hangul", "Korean"}),
    "Bopomofo": frozenset({"Bopomofo", "Chinese"}),
}

#: the writing systems that may hold Latin letters too (TS #39's "highly restrictive"
#: level: Latin with Japanese, with Chinese and Bopomofo, with Korean, as they are written)
_WITH_LATIN = frozenset({"Japanese", "Chinese", "Korean"})


def script_of(letter: str) -> str | None:
    """The script of a letter (Unicode category L), from its Unicode name; None for the few
    letters of no script (modifier letters).

    >>> script_of("a"), script_of("\\u0430"), script_of("\\u03b1"), script_of("\\u5c71")
    ('Latin', 'Cyrillic', 'Greek', 'Han')
    """
    name = unicodedata.name(letter, "")
    if not name:
        return "Unnamed"  # (Tangut ideographs have no name in Python 3.11's tables)
    word = name.split(" ", 1)[0]
    return _SCRIPT_OF_WORD[word] if word in _SCRIPT_OF_WORD else word.title()


class MixedScriptsError(ValueError):
    """A new name that mixes scripts (:func:`one_script`); ``code`` is the refusal's code
    in the HTTP API, for a client to say it in its own language."""

    code = "name_scripts"


def one_script(name: str, what: str = "the name") -> str:
    """``name``, or raise :class:`MixedScriptsError` with a sentence that begins with
    ``what`` (the field): the rule every new name follows, an account's (sign-up) as a
    guest's or a seat's (a new table, a sit-down, a quick game, an invitation).

    >>> one_script("\u0391na", "'name'")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tapete.names.MixedScriptsError: 'name' mixes Greek and Latin letters ('Α' is Greek, ...
    >>> one_script("Ana")
    'Ana'
    """
    problem = mixed_scripts(name)
    if problem is not None:
        raise MixedScriptsError(
            f"{what} {problem}: a name is written in one script, so that it cannot pass for "
            "another name"
        )
    return name


def mixed_scripts(name: str) -> str | None:
    """Why ``name`` may not be a new name, or None: its letters must all come from one
    script (Latin, Cyrillic, Greek, Arabic, ...; Japanese mixes Han, Hiragana and
    Katakana, and Latin may join Japanese, Chinese with Bopomofo, or Korean: Unicode TS #39,
    "highly restrictive") and its digits from one system; spaces, punctuation, symbols
    and combining marks count in no script. The name is read in its NFKC form (a
    full-width or a mathematical A is a Latin A). The reason is a phrase to follow the
    name of the field.

    >>> mixed_scripts("\\u0410na")  # (a Cyrillic A)
    "mixes Cyrillic and Latin letters ('А' is Cyrillic, 'n' is Latin)"
    >>> mixed_scripts("山田たろう"), mixed_scripts("Ana 2"), mixed_scripts("Μαρία")
    (None, None, None)
    """
    letters: dict[str, str] = {}  # each script, and its first letter in the name
    digits: dict[int, str] = {}  # the zero of each system of digits, and its first digit
    for ch in unicodedata.normalize("NFKC", name):
        category = unicodedata.category(ch)
        if category == "Nd":
            digits.setdefault(ord(ch) - unicodedata.decimal(ch), ch)
        elif category[0] == "L":
            script = script_of(ch)
            if script is not None:
                letters.setdefault(script, ch)
    if len(digits) > 1:
        first, second = list(digits.values())[:2]
        return f"mixes digits of different systems ({first!r} and {second!r})"
    others = [_SYSTEMS.get(s, frozenset({s})) for s in letters if s != "Latin"]
    shared = frozenset.intersection(*others) if others else frozenset({"Latin"})
    if shared and ("Latin" not in letters or not others or shared & _WITH_LATIN):
        return None
    scripts = list(letters)
    listed = ", ".join(scripts[:-1]) + " and " + scripts[-1]
    examples = ", ".join(f"{letters[s]!r} is {s}" for s in scripts)
    return f"mixes {listed} letters ({examples})"


# ---------------------------------------------------------------------- look-alikes

#: letters drawn like Latin ones, and the Latin letter each passes for: the Cyrillic and
#: Greek look-alikes (capitals, then small letters), and in Latin itself the digit 0 as an
#: O. The capital I, the small l, the digit 1 and their look-alikes become the digit 1,
#: which case folding leaves alone: were they an ``l``, the fold would make every ``L`` one
#: of them too (``Lan`` taken for ``Ian``)
_LOOK_ALIKES = str.maketrans(
    # Cyrillic А В С Е Н І Ј К М О Р Ѕ Т Х У Ү Ԛ Ԝ Ӏ, а с е һ і ј о р ԛ ѕ ԝ х у ү ӏ ԁ
    "\u0410\u0412\u0421\u0415\u041d\u0406\u0408\u041a\u041c\u041e\u0420\u0405\u0422\u0425"
    "\u0423\u04ae\u051a\u051c\u04c0"
    "\u0430\u0441\u0435\u04bb\u0456\u0458\u043e\u0440\u051b\u0455\u051d\u0445\u0443\u04af"
    "\u04cf\u0501"
    # Greek Α Β Ε Ζ Η Ι Κ Μ Ν Ο Ρ Τ Υ Χ Ϲ Ϳ, α ι ο ν ρ υ χ ϲ ϳ γ
    "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7"
    "\u03f9\u037f"
    "\u03b1\u03b9\u03bf\u03bd\u03c1\u03c5\u03c7\u03f2\u03f3\u03b3"
    # Latin I, l, 0, dotless ı and ȷ
    "Il0\u0131\u0237",
    "ABCEH1JKMOPSTXYYQW1acehijopqswxyy1dABEZH1KMNOPTYXCJaiovpuxcjy11Oij",
)


def skeleton(name: str) -> str:
    """The form in which names that look alike are equal: compatibility forms undone
    (NFKD: a full-width A is an A, an accented letter its letter and its accent), each
    Cyrillic or Greek look-alike as the Latin letter it passes for, I, 1 and l as one (the
    digit 1; not L), 0 and O as one, and case folded. (A new account's name may not have an
    older account's skeleton: ``users.skeleton`` keeps it, so changing this mapping needs a
    migration that computes the column again.)

    >>> skeleton("\\u0412\\u041e\\u0412") == skeleton("Bob") == skeleton("B0b") == "bob"
    True
    >>> skeleton("Isa") == skeleton("lsa") != skeleton("Lsa")
    True
    """
    return unicodedata.normalize("NFKD", name).translate(_LOOK_ALIKES).casefold()


def look_alike(a: str, b: str) -> bool:
    """Whether two names are one to the eye: the same name in any case (``IRIS`` and
    ``Iris``, ``АНА`` and ``Ана``), or of one :func:`skeleton` (``ВОВ`` and ``Bob``). The
    skeleton alone does not say the first: it takes a capital drawn like another letter
    (``I`` with ``l`` and ``1``, the Cyrillic ``Н`` as ``H``) and leaves its small letter (``i``,
    ``н``), so two cases of one name may have two skeletons. (An account's name is checked
    both ways too: its ``name_key`` and its skeleton are each unique.)

    >>> look_alike("IRIS", "Iris"), look_alike("\\u0412\\u041e\\u0412", "Bob")
    (True, True)
    >>> skeleton("IRIS") == skeleton("Iris"), look_alike("Ana", "Anna")
    (False, False)
    """
    return a.casefold() == b.casefold() or skeleton(a) == skeleton(b)
