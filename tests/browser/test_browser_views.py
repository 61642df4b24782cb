"""Rare positions rendered from real engine views fed to the page (redeal, rospis, marriages).

The views come from the engine itself (seeded games driven to the position), and are handed
to the client as if the server had sent them; what the client sends back is captured.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from browser_helpers import shot, start_game, tid

from tapete.games import new_game


def find(game: str, profile: str, cond: Callable[[Any], bool], players: list[str]) -> Any:
    """The first seeded game, driven by random moves, in which seat 0 must act and cond holds."""
    for seed in range(500):
        g = new_game(game, profile, seed=seed, players=players)
        rng = random.Random(seed)
        for _ in range(80):
            if g.over:
                break
            if g.turn == 0 and cond(g):
                return g
            acts = [a for a in g.legal_actions() if a.to_json()["type"] not in ("claim", "close")]
            g.apply(rng.choice(acts or g.legal_actions()))
    raise AssertionError("no such position in 500 seeds")


def legal_types(g: Any) -> set[str]:
    return {a.to_json()["type"] for a in g.legal_actions()}


class Feeder:
    """Feeds views to the page and collects the actions the page sends."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.version = 10**6
        page.evaluate(
            """() => { window.__sent = []; const ws = window.tapete.ws;
                ws.send = (m) => { window.__sent.push(JSON.parse(m)); };
                ws.onmessage = () => {}; }"""  # (the live table's own messages: not now)
        )

    def show(self, view: dict[str, Any]) -> None:
        self.version += 1
        self.page.evaluate(
            "([v, n]) => window.tapete.receive({type: 'view', version: n, view: v, events: []})",
            [view, self.version],
        )
        self.page.wait_for_function(
            "([n]) => document.querySelector('#table').dataset.version === String(n)",
            arg=[self.version],
        )

    def events(self, view: dict[str, Any], events: list[dict[str, Any]]) -> None:
        """A view with the events that led to it, as the server sends them after an action."""
        self.version += 1
        self.page.evaluate(
            "([v, n, e]) => window.tapete.receive({type: 'view', version: n, view: v, events: e})",
            [view, self.version, events],
        )
        self.page.wait_for_function(
            "([n]) => document.querySelector('#table').dataset.version === String(n)",
            arg=[self.version],
        )

    def sent(self) -> list[dict[str, Any]]:
        return [m for m in self.page.evaluate("() => window.__sent") if m["type"] == "act"]


@pytest.fixture
def mil_page(new_page, live_server):  # type: ignore[no-untyped-def]
    page = new_page(locale="es-ES")
    start_game(page, live_server.url, "mil-club", name="Ana")
    return page


MIL_PLAYERS = ["Ana", "Bruno", "Carla"]


def test_redeal_offer_and_keep(mil_page, artifacts) -> None:
    g = find("mil", "club", lambda g: {"redeal", "keep"} <= legal_types(g), MIL_PLAYERS)
    feed = Feeder(mil_page)
    view = g.view(0)
    feed.show(view)
    reasons = [a["reason"] for a in view["legal"] if a["type"] == "redeal"]
    for reason in reasons:
        assert mil_page.locator(tid(f"redeal-{reason}")).is_enabled()
    if "four_nines" in reasons:
        nines = mil_page.eval_on_selector_all(
            f"{tid('hand')} .card.justify", "els => els.map(e => e.dataset.card)"
        )
        assert sorted(c[0] for c in nines) == ["9"] * 4
    shot(mil_page, artifacts, "views-redeal-es")
    mil_page.click(tid("keep"))
    assert feed.sent()[-1] == {"type": "act", "version": feed.version, "action": {"type": "keep"}}
    # someone else's redeal: the cards that justify it are shown when the event carries them
    event = {
        "type": "action",
        "seat": 1,
        "action": {"type": "redeal", "reason": "four_nines"},
        "shown": ["9S", "9C", "9D", "9H"],
    }
    mil_page.evaluate(
        "([v, n, e]) => window.tapete.receive({type: 'view', version: n, view: v, events: [e]})",
        [view, feed.version + 1, event],
    )
    shown = mil_page.eval_on_selector_all(
        f"{tid('redeal-shown')} .card", "els => els.map(e => e.getAttribute('aria-label'))"
    )
    assert shown == [
        "Nueve de picas",
        "Nueve de tréboles",
        "Nueve de diamantes",
        "Nueve de corazones",
    ]
    assert "Bruno pide otro reparto: cuatro nueves" in mil_page.inner_text(tid("status"))


def test_rospis_and_giving(mil_page, artifacts) -> None:
    g = find("mil", "club", lambda g: "rospis" in legal_types(g), MIL_PLAYERS)
    feed = Feeder(mil_page)
    view = g.view(0)
    feed.show(view)
    assert mil_page.locator(tid("rospis")).is_enabled()
    assert mil_page.locator(f"{tid('talon')} .card").count() == 3  # shown to everyone
    gives = [a for a in view["legal"] if a["type"] == "give"]
    card = gives[0]["card"]
    mil_page.click(f'{tid("hand")} [data-card="{card}"]')
    targets = {a["to"] for a in gives if a["card"] == card}
    # the card chosen, the focus goes to a seat's Give button (it stayed on the card, and the
    # buttons come before the hand); their names spell the card out, as the cards' do
    focused = mil_page.evaluate("() => document.activeElement.dataset.testid")
    assert focused in {f"give-to-{seat}" for seat in targets}, focused
    label = mil_page.locator(tid(focused)).get_attribute("aria-label") or ""
    assert label.startswith("Dar ") and not any(s in label for s in "♠♣♦♥"), label
    for seat in (1, 2):
        button = mil_page.locator(tid(f"give-to-{seat}"))
        assert button.count() == 0 or button.is_enabled() == (seat in targets)
    shot(mil_page, artifacts, "views-give-es")
    to = min(targets)
    mil_page.click(tid(f"give-to-{to}"))
    assert feed.sent()[-1]["action"] == {"type": "give", "card": card, "to": to}
    feed.show(view)
    # rospis ends the deal and costs the bid: the first click asks, Cancel takes it back
    sent = len(feed.sent())
    mil_page.click(tid("rospis"))
    box = mil_page.locator(tid("rospis-confirm-box"))
    assert "¿Renuncias a esta mano?" in box.inner_text() and len(feed.sent()) == sent
    assert box.get_attribute("role") == "alertdialog"
    # (the focus on the safe answer: a keyboard user's next Enter cancels)
    active = mil_page.evaluate("() => document.activeElement?.dataset?.testid")
    assert active == "rospis-cancel", active
    shot(mil_page, artifacts, "views-rospis-confirm-es")
    mil_page.click(tid("rospis-cancel"))
    assert box.count() == 0 and len(feed.sent()) == sent
    mil_page.click(tid("rospis"))
    mil_page.click(tid("rospis-confirm"))
    assert feed.sent()[-1]["action"] == {"type": "rospis"}


def test_club_marriage_lead_is_a_choice(mil_page, artifacts) -> None:
    def singing(g: Any) -> bool:
        return any(a.to_json().get("marriage") for a in g.legal_actions())

    g = find("mil", "club", singing, MIL_PLAYERS)
    feed = Feeder(mil_page)
    view = g.view(0)
    feed.show(view)
    card = next(a["card"] for a in view["legal"] if a.get("marriage"))
    suit = card[1]
    assert suit in view["held_marriages"]
    for rank in "KQ":
        cls = mil_page.get_attribute(f'{tid("hand")} [data-card="{rank}{suit}"]', "class")
        assert "pair" in cls  # the golden dot
    sing = mil_page.locator(tid("sing"))
    assert sing.get_attribute("aria-pressed") == "true"
    shot(mil_page, artifacts, "views-sing-es")
    mil_page.click(f'{tid("hand")} [data-card="{card}"]')
    assert feed.sent()[-1]["action"] == {"type": "play", "card": card, "marriage": True}
    feed.show(view)
    mil_page.click(tid("sing"))
    assert mil_page.locator(tid("sing")).get_attribute("aria-pressed") == "false"
    mil_page.click(f'{tid("hand")} [data-card="{card}"]')
    assert feed.sent()[-1]["action"] == {"type": "play", "card": card}


def test_casa_marriage_is_automatic(new_page, live_server) -> None:
    page = new_page(locale="pt-PT")
    start_game(page, live_server.url, "mil-casa")
    g = find(
        "mil",
        "casa",
        lambda g: any(a.to_json().get("marriage") for a in g.legal_actions()),
        MIL_PLAYERS,
    )
    feed = Feeder(page)
    view = g.view(0)
    feed.show(view)
    assert page.locator(tid("sing")).count() == 0
    card = next(a["card"] for a in view["legal"] if a.get("marriage"))
    page.click(f'{tid("hand")} [data-card="{card}"]')
    assert feed.sent()[-1]["action"] == {"type": "play", "card": card, "marriage": True}


def test_mariage_buttons_and_closed_stock(new_page, live_server, artifacts) -> None:
    page = new_page(locale="en-GB", width=1000, height=800)
    start_game(page, live_server.url, "mariage", levels=("random",))
    g = find(
        "mariage",
        "mariage",
        lambda g: {"exchange", "marriage", "close"} <= legal_types(g),
        ["Ana", "Bruno"],
    )
    feed = Feeder(page)
    view = g.view(0)
    feed.show(view)
    suit = next(a["suit"] for a in view["legal"] if a["type"] == "marriage")
    for name in ("exchange", f"marriage-{suit}", "close"):
        assert page.locator(tid(name)).is_enabled(), name
    assert page.locator(f'{tid("stock")} [data-card="{view["indicator"]}"]').count() == 1
    shot(page, artifacts, "views-mariage-open-en")
    page.click(tid(f"marriage-{suit}"))
    assert feed.sent()[-1]["action"] == {"type": "marriage", "suit": suit}
    close = next(a for a in g.legal_actions() if a.to_json()["type"] == "close")
    g.apply(close)
    closed = g.view(0)
    feed.show(closed)
    assert closed["closed"] and closed["indicator"] is None
    assert page.locator(tid("closed")).count() == 1
    assert page.locator(f"{tid('stock')} .indicator.closed .back").count() == 1
    assert page.locator(tid("exchange")).count() == 0
    shot(page, artifacts, "views-mariage-closed-en")


@pytest.mark.parametrize(
    ("locale", "of_seven", "mark", "dealer", "score", "marriage"),
    [
        (
            "en-GB",
            "0 of 7 game points",
            "D",
            "Dealer",
            "0 of 1000 points",
            "Announced marriage: hearts ♥, 100",
        ),
        (
            "es-ES",
            "0 de 7 puntos de partida",
            "R",
            "Reparte",
            "0 de 1000 puntos",
            "Matrimonio anunciado: corazones ♥, 100",
        ),
        (
            "pt-PT",
            "0 de 7 pontos de jogo",
            "D",
            "Distribui",
            "0 de 1000 pontos",
            "Casamento anunciado: copas ♥, 100",
        ),
    ],
)
def test_seat_marks_are_read_in_words(  # type: ignore[no-untyped-def]
    new_page,
    live_server,
    locale: str,
    of_seven: str,
    mark: str,
    dealer: str,
    score: str,
    marriage: str,
) -> None:
    """A seat read 'Rui 0/7 D Tricks: 1' to a screen reader: the game points of the 7 had
    only a title and the dealer's "D" nothing. Both are read in words (and shown as they
    were: a phone's row has no room for more), in Mariage and Mil alike."""
    page = new_page(locale=locale)
    start_game(page, live_server.url, "mariage", levels=("random",))
    g = new_game("mariage", "mariage", seed=1, players=["Ann", "Bruno"])
    view = g.view(0)
    Feeder(page).show(view)
    read = {s: page.locator(tid(f"seat-{s}")).aria_snapshot() for s in (0, 1)}
    assert all(of_seven in x and "0/7" not in x for x in read.values()), read
    assert dealer in read[view["dealer"]] and dealer not in read[1 - view["dealer"]], read
    for s in (0, 1):
        assert page.inner_text(f"{tid(f'seat-{s}')} .score [aria-hidden='true']") == "0/7"
    assert page.inner_text(".badge.dealer [aria-hidden='true']") == mark
    assert page.js_errors == []
    page = new_page(locale=locale)
    start_game(page, live_server.url, "mil-club", name="Ana")
    mil = new_game("mil", "club", seed=1, players=MIL_PLAYERS).view(0)
    Feeder(page).show(mil)
    read_mil = page.locator(tid(f"seat-{mil['dealer']}")).aria_snapshot()
    assert dealer in read_mil and f"text: {mark}\n" not in read_mil, read_mil
    # Mil's score with its target (a bare "0"), and a marriage chip in words ("♥ 100")
    assert score in read_mil, read_mil
    Feeder(page).show({**mil, "marriages": [{"seat": 1, "suit": "H", "value": 100}]})
    read_chip = page.locator(f"{tid('seat-1')} .chip.marriage").aria_snapshot()
    assert marriage in read_chip and "♥ 100" not in read_chip, read_chip
    assert page.js_errors == []


def _last_play_of_a_deal(game: str, profile: str, players: list[str]) -> tuple[Any, Any]:
    """A seeded game one card before a deal ends with a trick, and that card's action."""
    for seed in range(200):
        g = new_game(game, profile, seed=seed, players=players)
        rng = random.Random(seed)
        for _ in range(200):
            if g.over:
                break
            acts = [a for a in g.legal_actions() if a.to_json()["type"] not in ("claim", "close")]
            acts = acts or g.legal_actions()
            for a in acts:
                if a.to_json()["type"] == "play":
                    st = g.state  # the deal: push/pop try the card without playing it
                    st.push(a)
                    ends = st.done
                    st.pop()
                    if ends:
                        return g, a
            g.apply(rng.choice(acts))
    raise AssertionError("no deal ending with a trick in 200 seeds")


def _one_card_before_a_deal_end(  # type: ignore[no-untyped-def]
    new_page, live_server, game: str, profile: str, players: list[str]
) -> tuple[Any, Any, Any, Feeder]:
    """A page (en) fed a seeded game one card before a deal ends with a trick: the page,
    the game, that card's action and the feeder."""
    page = new_page(locale="en-GB")
    start_game(
        page,
        live_server.url,
        "mil-club" if game == "mil" else "mariage",
        levels=("random",) * (len(players) - 1),
    )
    g, action = _last_play_of_a_deal(game, profile, players)
    feed = Feeder(page)
    feed.show(g.view(0))
    return page, g, action, feed


@pytest.mark.parametrize(
    ("game", "profile", "players"),
    [("mil", "club", MIL_PLAYERS), ("mariage", "mariage", ["Ana", "Bruno"])],
)
def test_events_of_a_deal_end(new_page, live_server, game, profile, players) -> None:  # type: ignore[no-untyped-def]
    """The engine's events of the card that ends a deal: the history says so, and the trick
    that ended it stays on the table (the view already shows the next deal)."""
    page, g, action, feed = _one_card_before_a_deal_end(
        new_page, live_server, game, profile, players
    )
    events = [e.for_viewer(0) for e in g.apply(action)]
    types = [e["type"] for e in events]
    assert "trick" in types and "deal_end" in types, types
    trick = next(e for e in events if e["type"] == "trick")
    row = next(e for e in events if e["type"] == "deal_end")["row"]
    # (what the history held before: the live table's computers may have moved before the
    # feeder took its socket over)
    before = page.locator(f"{tid('log')} li").count()
    feed.events(g.view(0), events)
    # the end of the deal is held with its last trick until the player goes on
    held = page.eval_on_selector_all(
        f"{tid('deal-end-trick')} .card", "els => els.map(e => e.dataset.card)"
    )
    assert held == [c["card"] for c in trick["cards"]]
    page.click(tid("next-deal"))
    final = page.eval_on_selector_all(
        f"{tid('last-trick')}.final .card", "els => els.map(e => e.dataset.card)"
    )
    assert sorted(final) == sorted(c["card"] for c in trick["cards"])
    log = page.locator(f"{tid('log')} li").all_inner_texts()[before:]
    # the deal's end, then the next deal's number on a line of its own
    assert log[1:] == ([] if g.over else [f"{'Deal' if game == 'mil' else 'Hand'} {g.deal_number}"])
    if game == "mil":
        assert "Deal over." in log[0] or "annulled" in log[0]
    elif row["winner"] is not None:
        assert f"{players[row['winner']]} wins the hand" in log[0]
    assert log[0] in page.inner_text(tid("status"))
    # the next message without events (a sync) keeps what was said
    feed.events(g.view(0), [])
    assert page.locator(f"{tid('log')} li").count() == before + len(log)
    # the status line says it again in another language
    page.click(tid("lang-es"))
    page.wait_for_function("() => document.documentElement.lang === 'es'")
    assert " echa " in page.inner_text(tid("status"))


@pytest.mark.parametrize(
    ("game", "profile", "players"),
    [("mil", "club", MIL_PLAYERS), ("mariage", "mariage", ["Ana", "Bruno"])],
)
def test_a_held_deal_end_says_its_own_end(new_page, live_server, game, profile, players) -> None:  # type: ignore[no-untyped-def]
    """While the end of a deal is held, the next deal's moves go on arriving (the server does
    not wait, and a second tab of the seat may play on): the history
    lists them under the next deal's number, and the status line keeps saying how the held
    deal ended (a newcomer read "Carla bids 100 — Deal over" as a move of the deal on screen)."""
    page, g, action, feed = _one_card_before_a_deal_end(
        new_page, live_server, game, profile, players
    )
    before = page.locator(f"{tid('log')} li").count()
    feed.events(g.view(0), [e.for_viewer(0) for e in g.apply(action)])
    ended = page.inner_text(tid("status"))
    moves = []  # three moves of the next deal (the person's own from another tab of theirs)
    while not g.over and len(moves) < 3:
        feed.events(g.view(0), [e.for_viewer(0) for e in g.apply(g.legal_actions()[0])])
        moves.append(page.locator(f"{tid('log')} li").last.inner_text())
    word = "Deal" if game == "mil" else "Hand"
    log = page.locator(f"{tid('log')} li").all_inner_texts()[before:]
    assert log[1] == f"{word} {g.deal_number}" and log[2:] == moves, log
    assert page.locator(tid("deal-end")).count() == 1
    status = page.inner_text(tid("status"))
    assert status == ended, (status, moves)
    page.click(tid("next-deal"))  # the table goes on: the status says the newest move
    assert moves[-1] in page.inner_text(tid("status"))
    assert page.js_errors == []


def test_events_hide_a_give_and_show_a_redeal_proof(mil_page) -> None:
    """A give seen by the third player names no card; a redeal's event carries its proof."""
    g = find("mil", "club", lambda g: "give" in legal_types(g), MIL_PLAYERS)
    feed = Feeder(mil_page)
    feed.show(g.view(1))
    give = next(
        a for a in g.legal_actions() if a.to_json()["type"] == "give" and a.to_json()["to"] == 2
    )
    events = [e.for_viewer(1) for e in g.apply(give)]
    assert events[0]["action"]["card"] is None
    feed.events(g.view(1), events)
    assert mil_page.locator(f"{tid('log')} li").last.inner_text() == "Ana da una carta a Carla"
    g = find("mil", "club", lambda g: "redeal" in legal_types(g), MIL_PLAYERS)
    redeal = next(a for a in g.legal_actions() if a.to_json()["type"] == "redeal")
    events = [e.for_viewer(1) for e in g.apply(redeal)]
    shown = next(e for e in events if e["type"] == "action")["shown"]
    feed.events(g.view(1), events)
    # the redeal ended the deal: its end is held with the cards, then the next deal shows them
    for where in ("deal-end-redeal", "redeal-shown"):
        cards = mil_page.eval_on_selector_all(
            f"{tid(where)} .card", "els => els.map(e => e.dataset.card)"
        )
        assert cards == shown and len(shown) >= 3, where
        assert "Ana pide otro reparto" in mil_page.inner_text(tid("log"))
        if where == "deal-end-redeal":
            mil_page.click(tid("next-deal"))


#: What happened in words, as the page shows it (its lines hold the events: history.js)
LOG_WORDS = """async () => { const { lineText } = await import('/static/js/history.js');
    return window.tapete.log.map(lineText); }"""


def test_a_reconnection_lists_the_missed_moves_in_their_place(mil_page) -> None:  # type: ignore[no-untyped-def]
    """Back after a lost connection, the connection's first view (sent on connecting) is
    already two versions on, a move arrives live, and only then the catch-up with the
    events since the version held: What happened lists the two missed moves before the
    live one, each once (the catch-up used to be dropped: its ``since`` was no longer the
    version the page held once that first view had come)."""
    g = find("mil", "club", lambda g: "bid" in legal_types(g), MIL_PLAYERS)
    feed = Feeder(mil_page)
    view = g.view(0)
    feed.show(view)
    held = feed.version
    before = mil_page.evaluate(LOG_WORDS)
    mil_page.evaluate("() => window.tapete.ws.onopen()")  # (connected again: it asks sync)
    assert mil_page.evaluate("() => window.__sent.at(-1)") == {"type": "sync", "since": held}

    def action(seat: int, **act: Any) -> dict[str, Any]:
        return {"type": "action", "seat": seat, "action": act}

    missed = [action(1, type="bid", value=105), action(2, type="bid", value=110)]
    feed.version += 1  # the first view of the connection: two versions on, with no events
    feed.show(view)
    assert feed.version == held + 2
    feed.events(view, [action(1, type="pass")])  # a move that came live since
    mil_page.evaluate(
        "([m]) => window.tapete.receive(m)",
        [
            {
                "type": "events",
                "since": held,
                "version": feed.version,
                "steps": [
                    {"version": held + 1, "events": [missed[0]]},
                    {"version": held + 2, "events": [missed[1]]},
                    {"version": held + 3, "events": [action(1, type="pass")]},
                ],
            }
        ],
    )
    lines = mil_page.evaluate(LOG_WORDS)
    assert lines[-3:] == ["Bruno puja 105", "Carla puja 110", "Bruno pasa"], lines
    assert lines[:-3] == before[len(before) + 3 - len(lines) :], (before, lines)


@pytest.mark.parametrize(
    ("locale", "said", "sheet", "not_twice"),
    [
        (
            "en-GB",
            "at the closing Bruno had no trick: that gives Bruno 3 game points",
            "the closing failed",
            "stock closed",
        ),
        (
            "es-ES",
            "al cerrar, Bruno no tenía ninguna baza: eso le da a Bruno 3 puntos",
            "falló el cierre",
            "mazo cerrado",
        ),
        (
            "pt-PT",
            "no fecho, Bruno não tinha nenhuma vaza: isso dá a Bruno 3 pontos",
            "o fecho falhou",
            "monte fechado",
        ),
    ],
)
def test_a_closed_hand_says_whose_points_counted(  # type: ignore[no-untyped-def]
    new_page, live_server, locale: str, said: str, sheet: str, not_twice: str
) -> None:
    """A closed hand's game points follow the opponent's tricks at the closing when the
    closing fails: seed 2's first hand, closed by Ann when Bruno had nothing, gives Bruno 3
    with 5 tricks ("+3", "Card points: 5–44" and nothing else looked like a wrong count).
    The held end says the closing's numbers, and the sheet's row that the stock was closed."""
    page = new_page(locale=locale)
    start_game(page, live_server.url, "mariage", levels=("random",))
    g = new_game("mariage", "mariage", seed=2, players=["Ann", "Bruno"])
    rng = random.Random(2)
    feed = Feeder(page)
    feed.show(g.view(0))
    while not g.view(0)["sheet"]:
        acts = g.legal_actions()
        close = [a for a in acts if a.to_json()["type"] == "close"]
        plain = [a for a in acts if a.to_json()["type"] != "claim"] or acts
        action = close[0] if close else rng.choice(plain)
        events = [e.for_viewer(0) for e in g.apply(action)]
        feed.events(g.view(0), events)
    row = g.view(0)["sheet"][0]
    assert (row["closed_by"], row["game_points"]) == (0, 3), row
    assert said in page.inner_text(tid("deal-end-closing"))
    shown = page.inner_text(f"{tid('sheet')} {tid('sheet-row')}")
    assert sheet in shown and not_twice not in shown, shown  # (its reason says the closing)
    page.click(tid("next-deal"))
    assert sheet in page.inner_text(f"{tid('sheet')} {tid('sheet-row')}")
    assert page.js_errors == []


#: closed hands' sheet rows: Ann (seat 0) closes when Bruno has 21 points and 2 tricks
CLOSED = {"closed_by": 0, "closed_points": 21, "closed_tricks": 2, "points": [70, 50]}
#: a script: [the deal's end line, the closing's note] of each sheet row, in a language
CLOSING_WORDS = """async ([lang, rows]) => {
    const i18n = await import('/static/js/i18n.js');
    const history = await import('/static/js/history.js');
    await i18n.loadLang(lang);
    const names = (s) => ['Ann', 'Bruno'][s];
    return rows.map((r) => [history.dealEndText(r, names), history.closingText(r, names)]);
}"""


@pytest.mark.parametrize(
    ("lang", "counted", "false_claim", "fixed", "failed"),
    [
        (
            "en",
            "Ann closed the stock when Bruno had 21 points and 2 tricks: those count",
            "Ann wins the hand: +2 (Bruno's false claim).",
            "Bruno's false claim gives Ann a fixed 2 game points",
            "at the closing Bruno had 2 tricks: that gives Bruno 2 game points",
        ),
        (
            "es",
            "Ann cerró el mazo cuando Bruno tenía 21 puntos y 2 bazas: eso cuenta",
            "Ann gana la mano: +2 (declaración falsa de Bruno).",
            "la declaración falsa de Bruno le da a Ann 2 puntos de partida fijos",
            "al cerrar, Bruno tenía 2 bazas: eso le da a Bruno 2 puntos de partida",
        ),
        (
            "pt",
            "Ann fechou o monte quando Bruno tinha 21 pontos e 2 vazas: é isso que conta",
            "Ann ganha a mão: +2 (declaração falsa de Bruno).",
            "a declaração falsa de Bruno dá a Ann 2 pontos de jogo fixos",
            "no fecho, Bruno tinha 2 vazas: isso dá a Bruno 2 pontos de jogo",
        ),
    ],
)
def test_a_closed_hand_says_the_closing_counted_only_where_it_did(  # type: ignore[no-untyped-def]
    new_page, live_server, lang: str, counted: str, false_claim: str, fixed: str, failed: str
) -> None:
    """The closing's position counts for the game points of the closer's claim (its points
    and tricks) and of a failed closing (its tricks: 2, or 3 without one), not for the
    opponent's false claim, a fixed 2 for the closer (docs/rules-mariage.md): after Rui's
    closing and Bruno's false claim the hand's end said "+2 (false claim)" and that Bruno's
    points and tricks at the closing counted. The false claim says whose it was, closed
    or not."""
    page = new_page(locale="en-GB")
    page.goto(live_server.url)
    rows = [
        {**CLOSED, "winner": 0, "reason": "claim", "game_points": 2},
        {**CLOSED, "winner": 0, "reason": "false_claim", "game_points": 2},
        {**CLOSED, "winner": 1, "reason": "closer_failed", "game_points": 2},
        {**CLOSED, "winner": 1, "reason": "opponent_claimed_after_close", "game_points": 2},
        {"winner": 0, "reason": "false_claim", "game_points": 2, "points": [20, 40]},
    ]
    said = page.evaluate(CLOSING_WORDS, [lang, rows])
    claim, false, failed_row, claimed_after, unclosed = said
    assert counted in claim[1], claim
    assert false[0] == false_claim and fixed in false[1], false
    assert counted not in false[1], false  # (nor anything of the closing's points)
    assert "21" not in false[1] and "21" not in failed_row[1], said
    assert failed in failed_row[1] and failed in claimed_after[1], said
    assert unclosed == [false_claim, ""], unclosed
    assert page.js_errors == []


def test_a_reason_that_says_the_closing_is_not_followed_by_stock_closed(  # type: ignore[no-untyped-def]
    new_page, live_server
) -> None:
    """'declaró tras el cierre · mazo cerrado' said the closing twice."""
    page = new_page(locale="es-ES")
    page.goto(live_server.url)
    rows = [
        {"winner": 1, "reason": "opponent_claimed_after_close", "game_points": 2,
         "match": [0, 2], "points": [40, 66], "closed_by": 0, "closed_points": 40,
         "closed_tricks": 2},
        {"winner": 0, "reason": "claim", "game_points": 1, "match": [1, 2],
         "points": [70, 40], "closed_by": 0, "closed_points": 40, "closed_tricks": 2},
    ]  # fmt: skip
    texts = page.evaluate(
        """async (rows) => {
            const i18n = await import('/static/js/i18n.js');
            const sheet = await import('/static/js/sheet.js');
            await i18n.loadLang('es');
            const names = (s) => ['Ana', 'Bruno'][s];
            const table = sheet.matchTable({ players: ['Ana', 'Bruno'] }, rows, names);
            const found = table.querySelectorAll('[data-testid="sheet-row"]');
            return [...found].map((r) => r.textContent);
        }""",
        rows,
    )
    assert "declaró tras el cierre" in texts[0] and "mazo cerrado" not in texts[0], texts
    assert "declaró 66" in texts[1] and "mazo cerrado" in texts[1], texts


def test_numbered_names_atop_the_sheet_keep_their_number_in_sight(mil_page, artifacts) -> None:
    """Two people who left the name empty sit as "Jugador" and "Jugador 2": the sheet's
    narrow columns cut both to "Jugad…", and nothing told them apart. A short last word now
    stays in sight ("Jug… 2") and the rest is cut."""
    g = find("mil", "club", lambda g: True, ["Jugador", "Jugador 2", "Carla"])
    Feeder(mil_page).show(g.view(0))
    heads = mil_page.locator(f"{tid('sheet')} thead th")
    assert heads.nth(3).get_attribute("title") == "Jugador 2"
    # the " 2" is inside its column, whole; the name before it is what the ellipsis cuts
    inside = heads.nth(3).evaluate(
        """th => { const tail = th.querySelector('.tail'); const a = th.getBoundingClientRect();
            const b = tail.getBoundingClientRect();
            return tail.textContent === ' 2' && b.width > 0 && b.right <= a.right + 0.5; }"""
    )
    assert inside
    # (read whole: the column's name for a screen reader)
    assert mil_page.get_by_role("columnheader", name="Jugador 2", exact=True).count() == 1
    shot(mil_page, artifacts, "views-sheet-numbered-names-es")
