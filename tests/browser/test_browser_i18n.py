"""The client's strings: the three languages have the same keys (and a game's or a profile's
own words where a language needs them), and every key the code asks for exists (no browser
needed)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from browser_helpers import start_game, tid, wait_turn

from tapete.games import GAMES, PROFILES
from tapete.server.rules import rules_page

WEB = Path(__file__).resolve().parents[2] / "src" / "tapete" / "web"
LANGS = ("es", "pt", "en")
#: whose own words a key may have (js/i18n.js tOwn: `${key}_${which}`): a game or a profile
OWNERS = (*GAMES, *(p for profiles in PROFILES.values() for p in profiles))


def load(lang: str) -> dict[str, str]:
    return json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def own_words_of(key: str, keys: dict[str, str]) -> str | None:
    """The key of ``keys`` that ``key`` is a game's or a profile's own words for (``talon``
    for ``talon_casa``), else None."""
    for owner in OWNERS:
        base = key.removesuffix(f"_{owner}")
        if base != key and base in keys:
            return base
    return None


def test_same_keys_and_placeholders_in_every_language() -> None:
    """Every language has English's keys, and may add a profile's own words where English
    has none (es: casa sings a "cante", the club announces a "matrimonio"), with the
    placeholders of the key they stand for."""
    en = load("en")
    for lang in ("es", "pt"):
        other = load(lang)
        assert set(en) <= set(other), (lang, sorted(set(en) - set(other)))
        for key, text in other.items():
            source = key if key in en else own_words_of(key, en)
            assert source is not None, (lang, key)
            wanted = set(re.findall(r"\{(\w+)\}", en[source]))
            assert set(re.findall(r"\{(\w+)\}", text)) == wanted, (lang, key)
            assert text.strip(), (lang, key)


def test_portuguese_says_jogo_for_a_game_and_mao_for_a_deal() -> None:
    """pt calls a game "jogo" ("Novo jogo") and a deal "mão" ("Mão 80"): the Lobby's
    "Partida rápida" and the chart's "distribuições" stood out. ("distribuições prováveis"
    in the hints are the likely layouts of the unseen cards, not the deals of the game.)"""
    pt = load("pt")
    assert [k for k, text in pt.items() if "partida" in text.lower()] == []
    assert pt["quick_game"] == "Jogo rápido"
    assert pt["chart_deals"] == "mãos"
    assert pt["chart_label"] == "A pontuação de cada jogador após cada uma das {n} mãos"


def test_the_lobby_s_quick_game_in_portuguese(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="pt-PT")
    page.goto(live_server.url)
    page.wait_for_selector("[data-testid='newgame'][open]")
    page.click("[data-testid='newgame-lobby']")
    assert page.inner_text("[data-testid='quick-game']") == "Jogo rápido"
    assert page.js_errors == []


def test_every_key_used_by_the_code_exists() -> None:
    code = "\n".join(
        f.read_text(encoding="utf-8") for f in [WEB / "app.js", *sorted((WEB / "js").glob("*.js"))]
    )
    en = load("en")
    used = set(re.findall(r'\b(?:t|tOwn)\("([a-z0-9_]+)"', code))
    missing = sorted(k for k in used if k not in en)
    assert missing == []
    # keys built from a prefix: every value the views can hold has its string
    built = {
        "rank_": "A T K Q J 9 8 7",
        "suit_": "S C D H",
        "profile_": "club casa casa-500 mariage",
        "level_": "random rules search",
        "lang_name_": "es pt en",
        "reason_": "four_nines low_points low_talon",
        "why_": "claim false_claim closer_failed opponent_claimed_after_close exhausted tie",
        "ev_": "bid pass redeal keep rospis give contract play play_marriage exchange marriage"
        " close claim decline",
        "do_": "bid pass redeal keep rospis give contract play play_marriage exchange marriage"
        " close claim decline",
    }
    for prefix, names in built.items():
        for name in names.split():
            assert f"{prefix}{name}" in en, f"{prefix}{name}"


def test_rules_pages_exist_for_every_profile_and_language() -> None:
    for profile in ("club", "casa", "casa-500", "mariage"):
        for lang in LANGS:
            text = rules_page(WEB / "rules", profile, lang)
            assert text is not None, (profile, lang)
            assert f'<html lang="{lang}">' in text
            assert 'class="decision"' in text  # our decisions are listed


def test_spanish_rules_say_matrimonio_in_the_club_and_cante_in_casa() -> None:
    """docs/rules-mil.md's Words: the club's Spanish rules page said *cante* and «Cantar»,
    the words of casa's, where the seed's club rules (000) announce a *matrimonio*."""
    es = load("es")
    club = rules_page(WEB / "rules", "club", "es")
    assert club is not None
    assert "matrimonio" in club and not re.search(r"\bcant", club, re.IGNORECASE)
    assert f"«{es['sing']}»" in club  # (the toggle it names)
    for profile in ("casa", "casa-500"):
        casa = rules_page(WEB / "rules", profile, "es")
        assert casa is not None and "cante" in casa and "matrimonio" not in casa, profile


def test_the_rules_pages_name_each_profile_as_the_games_window_does() -> None:
    """The short game was "Mil · casa, corta" in the Games window and "Mil · casa a 500" in
    the rules pages' menu: every rules page names the four profiles with the words of the
    page's language (``profile_<name>``)."""
    for lang in ("es", "pt", "en"):
        words = load(lang)
        for page in ("club", "casa", "casa-500", "mariage"):
            html = rules_page(WEB / "rules", page, lang)
            assert html is not None, (page, lang)
            menu = html[html.index("<nav") : html.index("</nav>")]
            for profile in ("club", "casa", "casa-500", "mariage"):
                found = re.search(rf'href="/rules/{profile}\?lang={lang}"[^>]*>([^<]*)</a>', menu)
                assert found is not None, (page, lang, profile)
                assert found.group(1) == words[f"profile_{profile}"], (page, lang, profile)


#: Spanish words of the talon met only in the club (the redeal for a poor talon: casa has none)
CLUB_ONLY_TALON = {
    "reason_low_talon",
    "reason_short_low_talon",
    "talon_points",
    "hint_reason_redeal_poor_talon",
    "hint_why_redeal_poor_talon",
}


def test_spanish_casa_says_monte_wherever_the_club_says_talon() -> None:
    """docs/web.md: in the house rules the talon is the *monte* in Spanish. The table said it,
    but a hint while giving cards ("el plan hecho con el talón") and the deal review ("El
    talón tenía:") said *talón* at a casa table: every word of the talon a casa table may
    show has its casa and casa-500 words, with *monte*."""
    es = load("es")
    for key, text in es.items():
        if "talón" not in text.lower() or key in CLUB_ONLY_TALON or "_casa" in key:
            continue
        for profile in ("casa", "casa-500"):
            own = es.get(f"{key}_{profile}", "")
            assert "monte" in own.lower() and "talón" not in own.lower(), (key, profile, own)


def test_a_given_card_reads_as_in_each_language(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """A give in "What happened": English names the card with its article, as a played one
    ("gives the Nine of spades"; it read "gives Nine of spades"), a hidden one as "a card";
    Spanish and Portuguese without the article, as their plays."""
    page = new_page(locale="en-GB")
    page.goto(live_server.url)
    page.wait_for_selector("[data-testid='newgame'][open]")
    said = {}
    for lang in ("en", "es", "pt"):
        said[lang] = page.evaluate(
            """async (lang) => {
                const i18n = await import('/static/js/i18n.js');
                const history = await import('/static/js/history.js');
                await i18n.loadLang(lang);
                return [history.actionText({ type: 'give', card: '9S', to: 1 }, 0, 'ev'),
                        history.actionText({ type: 'give', card: null, to: 1 }, 0, 'ev')];
            }""",
            lang,
        )
    assert "gives the Nine of spades to" in said["en"][0], said
    assert "gives a card to" in said["en"][1], said
    assert " da el nueve de picas a " in said["es"][0], said
    assert " dá o nove de espadas a " in said["pt"][0], said
    # a card in a sentence has its article in the gender of its rank, in running text's case
    for lang, card, words in (
        ("es", "QH", "Ana echa la reina de corazones"),
        ("es", "JC", "Ana echa la jota de tréboles"),
        ("pt", "QH", "Ana joga a dama de copas"),
        ("pt", "AS", "Ana joga o ás de espadas"),
        ("en", "QH", "Ana plays the Queen of hearts"),
    ):
        said_play = page.evaluate(
            """async ([lang, card]) => {
                const i18n = await import('/static/js/i18n.js');
                const history = await import('/static/js/history.js');
                await i18n.loadLang(lang);
                return history.actionText({ type: 'play', card }, 0, 'ev', () => 'Ana');
            }""",
            [lang, card],
        )
        assert said_play == words, said_play


def test_numbers_are_written_as_each_language_writes_them(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """A number that is not whole (an average in the statistics, a rating, half a point, a
    hint's estimate) has a decimal comma in Spanish and Portuguese and a point in English;
    whole numbers are written as they are, a score of 1000 without a separator."""
    page = new_page(locale="en-GB")
    page.goto(live_server.url)
    page.wait_for_selector("[data-testid='newgame'][open]")
    written = {}
    for lang in ("en", "es", "pt"):
        written[lang] = page.evaluate(
            """async (lang) => {
                const i18n = await import('/static/js/i18n.js');
                const dom = await import('/static/js/dom.js');
                const hints = await import('/static/js/hints.js');
                await i18n.loadLang(lang);
                const args = { value: '120', est: '81.5' };
                const hint = { key: 'rospis_worth', reason: 'x', args };
                return [dom.fmt(12.5), dom.fmt(-0.25), dom.fmt(1000), dom.fmt(-40), dom.fmt(null),
                        dom.decimalText('+1.2'), dom.decimalText('85%'), hints.hintReason(hint)];
            }""",
            lang,
        )
    assert written["en"][:7] == ["12.5", "-0.3", "1000", "-40", "—", "+1.2", "85%"], written
    for lang in ("es", "pt"):
        assert written[lang][:7] == ["12,5", "-0,3", "1000", "-40", "—", "+1,2", "85%"], written
        assert "81,5" in written[lang][7] and "81.5" not in written[lang][7], written
    assert "81.5" in written["en"][7], written


def test_your_own_seat_says_it_is_your_turn_in_your_language(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """Mil: the badge on the seat to play; on your own seat it speaks to you (es "te toca",
    it read "le toca", as for another player)."""
    page = new_page(locale="es-ES")
    start_game(page, live_server.url, "mil-club", seed=5)
    assert wait_turn(page) == "turn"
    me = page.locator(f"{tid('seat-0')} .badge.turn")
    assert me.inner_text() == "te toca"
    others = page.locator("[data-testid^='seat-']:not([data-testid='seat-0']) .badge.turn")
    assert others.count() == 0


def test_replay_and_review_do_not_share_their_verb() -> None:
    """The end window shows both buttons side by side: pt said "Rever" for both (replay the
    game, review the deals)."""
    for lang in LANGS:
        strings = load(lang)
        replay = {strings["replay_game"].split()[0], strings["replay_btn"].split()[0]}
        review = {strings["review_game"].split()[0], strings["review_this_deal"].split()[0]}
        assert not replay & review, (lang, replay, review)
