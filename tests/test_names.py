"""Names that look alike (``tapete.names``, docs/server.md "Names that look alike"): a new
name's letters come from one script (Unicode TS #39 "highly restrictive") and its digits
from one system; the skeleton makes names that look alike equal."""

from __future__ import annotations

import pytest

from tapete.names import (
    MixedScriptsError,
    look_alike,
    mixed_scripts,
    one_script,
    script_of,
    skeleton,
)


@pytest.mark.parametrize(
    "name",
    [
        "Ana",
        "João Silva",
        "O'Brien-Smith 2",
        "Zoe\u0308",  # (a combining diaeresis belongs to no script)
        "Мария",
        "Μαρία",
        "محمد ١٢",
        "דוד",
        "अनिल",
        "김민준",
        "山田たろう",  # Japanese: Han and Hiragana
        "ヤマダ タロウ",
        "Tシャツ",  # Latin may join Japanese ...
        "李小龍 Bruce",  # ... and Han
        "ㄅㄆ李",  # Chinese: Bopomofo and Han
        "Hawaiʻi",  # (the ʻokina, a modifier letter, belongs to no script)
        "Ａｎａ",  # full-width Latin (NFKC: Latin)
        "𝐀na",  # a mathematical A (NFKC: Latin)
        "Ana 🂡 ♥",
        "ラーメン",  # (the prolonged sound mark, Unicode's Common script, counts as kana)
    ],
)
def test_names_in_one_script_are_taken(name: str) -> None:
    assert mixed_scripts(name) is None
    assert one_script(name) == name


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("\u0410na", "mixes Cyrillic and Latin letters ('А' is Cyrillic, 'n' is Latin)"),
        ("Ana \u039c", "mixes Latin and Greek letters ('A' is Latin, 'Μ' is Greek)"),
        ("Ｍ\u0430ria", "mixes Latin and Cyrillic letters ('M' is Latin, 'а' is Cyrillic)"),
        ("Мар\u03b9я", "mixes Cyrillic and Greek letters ('М' is Cyrillic, 'ι' is Greek)"),
        ("Tシャツ Иван", "mixes Latin, Katakana and Cyrillic letters"),
        ("김ひ", "mixes Hangul and Hiragana letters"),  # (Korean and Japanese)
        ("ㄅひ", "mixes Bopomofo and Hiragana letters"),
        ("Ana 3\u0663", "mixes digits of different systems ('3' and '٣')"),
    ],
)
def test_names_that_mix_scripts_are_refused_with_the_letters(name: str, why: str) -> None:
    problem = mixed_scripts(name)
    assert problem is not None and problem.startswith(why), problem
    with pytest.raises(MixedScriptsError) as refused:
        one_script(name, "'name'")
    assert str(refused.value).startswith(f"'name' {why}")
    assert str(refused.value).endswith("so that it cannot pass for another name")
    assert refused.value.code == "name_scripts"


def test_the_script_of_a_letter_is_unicodes() -> None:
    """By the first word of its Unicode name, but for the words that name no script."""
    letters = {
        "a": "Latin",
        "ß": "Latin",
        "Ⅎ": "Latin",  # TURNED CAPITAL F
        "ж": "Cyrillic",
        "ω": "Greek",
        "ا": "Arabic",
        "א": "Hebrew",
        "ع": "Arabic",
        "ก": "Thai",
        "ა": "Georgian",
        "ա": "Armenian",
        "山": "Han",
        "々": "Han",  # IDEOGRAPHIC ITERATION MARK
        "た": "Hiragana",
        "タ": "Katakana",
        "ー": "Kana",
        "한": "Hangul",
        "ㄅ": "Bopomofo",
        "ᐁ": "Canadian Aboriginal",
        "ʻ": None,  # MODIFIER LETTER TURNED COMMA
    }
    assert {ch: script_of(ch) for ch in letters} == letters


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Bob", "\u0412\u041e\u0412"),  # Cyrillic ВОВ
        ("Bob", "B0b"),
        ("Pop", "\u0420\u043e\u0440"),  # Cyrillic Рор
        ("Isa", "lsa"),
        ("Isa", "1sa"),
        ("ANA", "ana"),
        ("Ana", "Ａｎａ"),
        ("Nico", "\u039d\u03b9co"),  # Greek Νι
        ("Elena", "\u0415lena"),  # a Cyrillic Е
        ("Ëlena", "\u0401lena"),  # Ё (Cyrillic, with its diaeresis) and Ë
    ],
)
def test_names_that_look_alike_share_a_skeleton(a: str, b: str) -> None:
    assert a != b and skeleton(a) == skeleton(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Ana", "Anna"),
        ("Ana", "Aná"),
        ("Bob", "Rob"),
        # an L is no I (it was: I and l were one letter, and the case fold made L an l)
        ("Ian", "Lan"),
        ("IAN", "LAN"),
        ("Isa", "Lsa"),
    ],
)
def test_names_that_look_different_do_not(a: str, b: str) -> None:
    assert skeleton(a) != skeleton(b) and not look_alike(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [("IRIS", "Iris"), ("\u0410\u041d\u0410", "\u0410\u043d\u0430"), ("Bob", "\u0412\u041e\u0412")],
)
def test_a_name_in_another_case_or_like_it_looks_alike(a: str, b: str) -> None:
    """The same name in any case looks alike, also where the skeletons differ (a capital I
    taken as an l, a Cyrillic Н as an H, their small letters as they are)."""
    assert look_alike(a, b) and look_alike(b, a)
    assert not look_alike("Ana", "Anna") and not look_alike("Bob", "Rob")
