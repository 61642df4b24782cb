"""Cards as named buttons, languages switched mid-game, keyboard play, hints, end screen."""

from __future__ import annotations

import json
import random
from typing import Any

from browser_helpers import (
    card_label,
    enabled_cards,
    keep_seat,
    play_until_deal_ends,
    shot,
    start_game,
    state,
    take_turn,
    tid,
    view,
    wait_turn,
)

HAND_CARDS = f"{tid('hand')} .card"


def hand_labels(page) -> list[tuple[str, str, bool]]:
    return page.eval_on_selector_all(
        HAND_CARDS,
        "els => els.map(e => [e.dataset.card, e.getAttribute('aria-label'), !e.disabled,"
        " e.tagName])",
    )


def test_cards_are_named_buttons_in_every_language(new_page, live_server, artifacts) -> None:
    page = new_page(locale="es-ES")
    # game number 1 deals no hand that may ask for a redeal, so Ana's first turn is a bid
    # (with a random deal it was now and then a redeal offer, without the bid buttons)
    start_game(page, live_server.url, "mil-club", seed=1)
    wait_turn(page)
    assert view(page)["phase"] == "bidding"
    version = state(page)["version"]
    hand = view(page)["hand"]
    for lang in ("es", "pt", "en", "es"):
        page.click(tid(f"lang-{lang}"))
        page.wait_for_function("([l]) => document.documentElement.lang === l", arg=[lang])
        cards = hand_labels(page)
        assert [c[0] for c in cards] == hand  # same game, same cards
        for card, label, _enabled, tag in cards:
            assert tag == "BUTTON"
            assert label == card_label(card, lang)
        assert state(page)["version"] == version
        href = page.get_attribute(tid("rules-link"), "href")
        assert href == f"/rules/club?lang={lang}"
    assert card_label("TH", "es") == "Diez de corazones"
    assert card_label("AH", "pt") == "Ás de copas"
    # bidding: cards are shown but none can be played; the bid buttons are real buttons
    assert not any(c[2] for c in hand_labels(page))
    assert page.get_attribute(tid("status"), "aria-live") == "polite"
    assert page.get_by_role("button", name="Pujar").count() == 1
    # the range of bids in Spanish ("De 105 a 120"), or the one bid left when the computers
    # bid first and left a single value ("Aquí solo cabe 120"): their choices are the server's
    assert page.locator(tid("bid-range")).inner_text().startswith(("De ", "Aquí solo cabe "))
    # a hint puts the stepper on the suggested bid (or outlines Paso)
    page.click(tid("hint"))
    page.wait_for_selector(tid("hint-text"))
    hint = page.evaluate("() => window.tapete.hint.action")
    assert page.inner_text(tid("hint-text")).startswith("Pista:")
    if hint["type"] == "bid":
        assert page.inner_text(tid("bid-value")) == str(hint["value"])
        assert "hinted" in page.get_attribute(tid("bid"), "class")
    else:
        assert "hinted" in page.get_attribute(tid(hint["type"]), "class")
    shot(page, artifacts, "ui-bidding-es")
    # every button has an accessible name (its text or aria-label)
    unnamed = page.eval_on_selector_all(
        "button",
        "els => els.filter(e => !(e.getAttribute('aria-label') || e.textContent).trim())"
        ".map(e => e.outerHTML)",
    )
    assert unnamed == []
    # the rules pages exist in every language for every profile
    for profile in ("club", "casa", "casa-500", "mariage"):
        for lang in ("es", "pt", "en"):
            res = page.request.get(f"{live_server.url}/rules/{profile}?lang={lang}")
            assert res.status == 200, (profile, lang)
            assert f'lang="{lang}"' in res.text()
    assert page.js_errors == []


#: (in the page) the cards the person's seat plays, from the events of every message, and
#: at each key that goes down the focused card and the first playable one: what a key
#: played is checked against what the page showed when it went down, and against the
#: events, not against the hand afterwards (a computer that ends the hand at once deals a
#: new one, which may hold the same card again)
_WATCH_KEYS = """() => {
    window.__plays = [];
    window.tapete.ws.addEventListener("message", (m) => {
        for (const e of JSON.parse(m.data).events || [])
            if (e.type === "action" && e.seat === window.tapete.session.seat
                && e.action.type === "play") window.__plays.push(e.action.card);
    });
    document.addEventListener("keydown", () => {
        const first = document.querySelector('[data-testid="hand"] .card:not([disabled])');
        window.__atKey = [document.activeElement?.dataset.card, first?.dataset.card];
    }, { capture: true });
}"""


def _played_after(page: Any, count: int) -> str:
    """The card of the person's next play after the first ``count`` ones."""
    page.wait_for_function("n => window.__plays.length > n", arg=count)
    return str(page.evaluate("n => window.__plays[n]", count))


def test_keyboard_only_play(new_page, live_server, artifacts) -> None:
    page = new_page(locale="en-GB")
    start_game(page, live_server.url, "mariage", levels=("random",))
    wait_turn(page)
    page.evaluate(_WATCH_KEYS)
    rng = random.Random(3)
    log: list[str] = []
    while "play" not in {a["type"] for a in view(page)["legal"]}:
        take_turn(page, rng, log)
        wait_turn(page)
    playable = enabled_cards(page)
    assert playable
    # Tab through the page until an enabled card has the focus, then Enter plays it
    page.locator("body").focus()
    focused = None
    for _ in range(60):
        page.keyboard.press("Tab")
        focused = page.evaluate(
            "() => document.activeElement && document.activeElement.dataset.card"
        )
        if focused:
            break
    assert focused in playable
    plays = page.evaluate("() => window.__plays.length")
    page.keyboard.press("Enter")
    pressed, _ = page.evaluate("() => window.__atKey")
    assert pressed in playable, (pressed, focused, playable)
    assert _played_after(page, plays) == pressed
    # number keys: "1" plays the first playable card
    wait_turn(page, int(state(page)["deals"]))
    if state(page)["deals"] == "0" and "play" in {a["type"] for a in view(page)["legal"]}:
        # the focus came back to the table for the next move
        page.wait_for_function(
            "() => document.activeElement && document.activeElement.closest('#table')"
        )
        plays = page.evaluate("() => window.__plays.length")
        page.keyboard.press("1")
        _, first = page.evaluate("() => window.__atKey")
        assert first is not None
        assert _played_after(page, plays) == first
    shot(page, artifacts, "ui-keyboard")
    assert page.js_errors == []


def test_the_focus_waits_where_the_keyboard_needs_it(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """Keyboard play from the first move: the game's first turn takes the focus (a card or
    the main button; it was on the page's body, 15 Tabs away), and the end of a deal puts it
    on "Next deal"."""
    page = new_page(locale="en-GB")
    start_game(page, live_server.url, "mariage", levels=("random",))
    wait_turn(page)
    page.wait_for_function(
        "() => document.activeElement && document.activeElement.closest('#table')"
        " && document.activeElement.matches('button:not([disabled])')"
    )
    rng = random.Random(5)
    log: list[str] = []
    for _ in range(60):
        page.wait_for_function(
            """() => { const m = document.querySelector('#table');
            return m && (m.dataset.paused === 'true' || m.dataset.over === 'true'
              || (m.dataset.myTurn === 'true' && m.dataset.pending === 'false')); }"""
        )
        st = state(page)
        if st["paused"] == "true" or st["over"] == "true":
            break
        take_turn(page, rng, log)
    assert state(page)["paused"] == "true", log
    page.wait_for_function("() => document.activeElement?.dataset.testid === 'next-deal'")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('#table').dataset.paused === 'false'")
    assert page.js_errors == []


def test_hint_highlights_the_suggestion(new_page, live_server, artifacts) -> None:
    page = new_page(locale="pt-PT")
    start_game(page, live_server.url, "mariage", levels=("random",))
    wait_turn(page)
    page.click(tid("hint"))
    page.wait_for_selector(tid("hint-text"))
    hint = page.evaluate("() => window.tapete.hint")
    assert hint["action"] in view(page)["legal"]
    text = page.inner_text(tid("hint-text"))
    assert text.startswith("Dica:")
    # the reason is shown in Portuguese (issue 5): every hint comes with its key and arguments
    assert hint.get("key") and isinstance(hint.get("args"), dict), hint
    assert hint["reason"] not in text and "{" not in text, text
    # the head says the move, then only the why (hint_why_<key>): the whole reason, which
    # begins with the move, is not said again, unless it is a generic one that does not say it
    reason = page.evaluate("async (h) => (await import('/static/js/hints.js')).hintReason(h)", hint)
    generic = hint["key"] in ("only_legal", "first_legal", "safe_legal", "no_suggestion")
    assert (reason in text) == generic, (reason, text)
    assert text.count("Dica:") == 1 and text.endswith("."), text
    if hint["action"]["type"] == "play":
        card = hint["action"]["card"]
        assert "hinted" in page.get_attribute(f'{tid("hand")} [data-card="{card}"]', "class")
    shot(page, artifacts, "ui-hint-pt")


def test_end_screen_record_stats_and_ranking(new_page, live_server, artifacts) -> None:
    page = new_page(locale="en-GB")
    page.goto(live_server.url)
    # a one-hand match, so that the end screen comes quickly
    res = page.request.post(
        f"{live_server.url}/api/tables",
        data=json.dumps(
            {
                "game": "mariage",
                "profile": "mariage",
                "name": "Zoe",
                "language": "en",
                "levels": ["random"],
                "max_deals": 1,
            }
        ),
        headers={"Content-Type": "application/json"},
    )
    assert res.status == 201
    body = res.json()
    keep_seat(page, body["table"], body["token"], body["seat"])
    page.reload()
    page.wait_for_selector(f"{HAND_CARDS}")
    play_until_deal_ends(page, random.Random(9), [])
    page.wait_for_selector(f"{tid('over')}[open]")
    assert page.inner_text(tid("winner"))
    shot(page, artifacts, "ui-game-over")
    href = page.get_attribute(tid("download-record"), "href")
    rec = page.request.get(f"{live_server.url}{href}")
    assert rec.status == 200
    record = rec.json()
    assert record["format"] == "tapete/1" and record["game"] == "mariage"
    assert len(record["deals"]) == 1
    page.click(tid("over-close"))
    page.click(tid("open-stats"))
    page.wait_for_selector(tid("stats-body"))
    assert "Zoe" in page.inner_text(tid("stats"))
    shot(page, artifacts, "ui-stats")
    page.click(tid("close-stats"))
    page.click(tid("open-ranking"))
    page.wait_for_selector(tid("ranking-body"))
    page.click(tid("ranking-mariage"))
    page.wait_for_selector(tid("ranking-body"))
    shot(page, artifacts, "ui-ranking")
    page.click(tid("close-ranking"))
    assert page.js_errors == []


def test_phone_width(new_page, live_server, artifacts) -> None:
    page = new_page(locale="es-ES", width=390, height=844)
    start_game(page, live_server.url, "mil-casa-500")
    wait_turn(page)
    rng = random.Random(1)
    log: list[str] = []
    for _ in range(12):
        take_turn(page, rng, log)
        if wait_turn(page, int(state(page)["deals"])) != "turn" or view(page)["phase"] == "play":
            break
    overflow = page.evaluate("() => document.documentElement.scrollWidth")
    assert overflow <= 392, f"the page is {overflow}px wide on a 390px phone"
    shot(page, artifacts, "ui-phone-mil")


def test_switch_between_saved_games(new_page, live_server) -> None:
    page = new_page(locale="pt-PT")
    start_game(page, live_server.url, "mariage", name="Rui", levels=("random",))
    wait_turn(page)
    first = page.evaluate("() => window.tapete.session.table")
    hand = view(page)["hand"]
    # a second game from the Games window
    page.click(tid("open-newgame"))
    page.click(tid("choose-mil-casa"))
    page.click(tid("level-0-random"))
    page.click(tid("level-1-random"))
    page.click(tid("start"))
    page.wait_for_function("() => window.tapete.view && window.tapete.view.game === 'mil'")
    # the first one is still there, and comes back as it was
    page.click(tid("open-newgame"))
    page.wait_for_selector(f"{tid('saved-games')} >> text=a decorrer")
    page.click(tid(f"resume-{first}"))
    page.wait_for_function("() => window.tapete.view && window.tapete.view.game === 'mariage'")
    assert view(page)["hand"] == hand
    page.reload()  # and the choice survives a reload
    page.wait_for_function("() => window.tapete.view && window.tapete.view.game === 'mariage'")
    assert page.evaluate("() => window.tapete.session.table") == first
    assert page.js_errors == []
