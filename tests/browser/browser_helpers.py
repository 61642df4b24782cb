"""Driving the Tapete page like a person: only clicks on enabled buttons, never the API."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any, Literal

from playwright.sync_api import Page

from tapete.games import kind
from tapete.server.db import make_engine
from tapete.server.tables import TableManager

TABLE = "#table"

# aria-label of a card in each language (the seeds' words)
RANKS = {
    "es": {
        "A": "As",
        "T": "Diez",
        "K": "Rey",
        "Q": "Reina",
        "J": "Jota",
        "9": "Nueve",
        "8": "Ocho",
        "7": "Siete",
    },
    "pt": {
        "A": "Ás",
        "T": "Dez",
        "K": "Rei",
        "Q": "Dama",
        "J": "Valete",
        "9": "Nove",
        "8": "Oito",
        "7": "Sete",
    },
    "en": {
        "A": "Ace",
        "T": "Ten",
        "K": "King",
        "Q": "Queen",
        "J": "Jack",
        "9": "Nine",
        "8": "Eight",
        "7": "Seven",
    },
}
SUITS = {
    "es": {"S": "picas", "C": "tréboles", "D": "diamantes", "H": "corazones"},
    "pt": {"S": "espadas", "C": "paus", "D": "ouros", "H": "copas"},
    "en": {"S": "spades", "C": "clubs", "D": "diamonds", "H": "hearts"},
}
OF = {"es": "de", "pt": "de", "en": "of"}
LOCALES = {"es": "es-ES", "pt": "pt-PT", "en": "en-GB"}


def card_label(card: str, lang: str) -> str:
    return f"{RANKS[lang][card[0]]} {OF[lang]} {SUITS[lang][card[1]]}"


def tid(name: str) -> str:
    return f'[data-testid="{name}"]'


def state(page: Page) -> dict[str, str]:
    return page.eval_on_selector(TABLE, "m => ({...m.dataset})")


def start_game(
    page: Page,
    url: str,
    choice: str,
    name: str = "Ana",
    levels: tuple[str, ...] = ("random", "random"),
    seed: int | None = None,
) -> None:
    """Open the page, fill the Juegos window and start: choice is e.g. "mil-club", "mariage"."""
    page.goto(url)
    page.wait_for_selector(f"{tid('newgame')}[open]")
    page.click(tid(f"choose-{choice}"))
    for i, level in enumerate(levels):
        page.click(tid(f"level-{i}-{level}"))
    page.fill(tid("name"), name)
    if seed is not None:  # "More options": the game number deals the same cards again
        page.click("details.more summary")
        page.fill(tid("seed"), str(seed))
    page.click(tid("start"))
    page.wait_for_selector(f"{TABLE}[data-version]")


def admin_table(db_path: Path, **options: Any) -> tuple[int, str]:
    """A table made by a second manager on the live server's database (``db_path``), as an
    administrator would, never through the HTTP API (a start position, ``max_deals``): the
    live server reads it from there when a page connects. ``options`` go to
    ``TableManager.create``; returns the table's id and its token."""
    engine = make_engine(f"sqlite:///{db_path}")
    try:
        table = TableManager(engine).create(**options)
    finally:
        engine.dispose()
    return table.id, table.token


def ana_table(
    db_path: Path,
    game: str = "mil",
    *,
    seed: int,
    level: str = "random",
    language: str = "en",
    **options: Any,
) -> tuple[int, str]:
    """:func:`admin_table`: Ana at seat 0 against computers of ``level`` at every other seat,
    the game's first profile (Mil: club) unless ``options`` name one."""
    seats = kind(game).seats
    return admin_table(
        db_path,
        **{
            "game": game,
            "profile": kind(game).profiles[0],
            "name": "Ana",
            "language": language,
            "levels": [level] * (seats - 1),
            "seed": seed,
            **options,
        },
    )


def keep_seat(page: Page, table: int, token: str, seat: int = 0) -> None:
    """Make the page's origin hold ``seat`` of ``table`` as its own (as after creating or
    joining it): the next load of the page resumes it."""
    page.evaluate(
        "(b) => localStorage.setItem('tapete.table', JSON.stringify(b))",
        {"table": table, "token": token, "seat": seat},
    )


def open_seat(
    page: Page,
    url: str,
    table: int,
    token: str,
    ready: str = "#table[data-version]",
    state: Literal["attached", "visible"] = "visible",
) -> None:
    """Open the page at ``url`` as the browser holding seat 0 of ``table``; wait for ``ready``
    in ``state``."""
    page.goto(url)
    keep_seat(page, table, token)
    page.reload()
    page.wait_for_selector(ready, state=state)


def wait_turn(page: Page, deals_before: int | None = None, timeout: float = 20_000) -> str:
    """Wait until it is our turn (and no action is in flight), a deal ends, or the game ends.

    The end of a deal is held on the table until the player goes on: when a deal that is not
    the one we wait for has ended, press "Next deal" and keep waiting."""
    while True:
        page.wait_for_function(
            """([d]) => { const m = document.querySelector('#table');
                if (!m || !m.dataset.version) return false;
                if (m.dataset.over === 'true') return true;
                if (d !== null && Number(m.dataset.deals) > d) return true;
                if (m.dataset.paused === 'true') return true;
                return m.dataset.myTurn === 'true' && m.dataset.pending === 'false'; }""",
            arg=[deals_before],
            timeout=timeout,
        )
        st = state(page)
        if st["over"] == "true":
            return "over"
        if deals_before is not None and int(st["deals"]) > deals_before:
            return "deal"
        if st.get("paused") == "true":
            page.click(tid("next-deal"))
            continue
        return "turn"


def wait_version_after(page: Page, before: str, timeout: float = 15_000) -> None:
    """Wait for the view that follows our move (or for an error message about it)."""
    page.wait_for_function(
        """([v]) => { const m = document.querySelector('#table');
            return m.dataset.version !== v || Boolean(window.tapete && window.tapete.error); }""",
        arg=[before],
        timeout=timeout,
    )


def wait_version(page: Page, v: int) -> None:
    """Wait until the page holds version ``v`` or a later one."""
    page.wait_for_function(
        "([v]) => Number(document.querySelector('#table').dataset.version) >= v", arg=[v]
    )


def enabled_cards(page: Page) -> list[str]:
    return page.eval_on_selector_all(
        '[data-testid="hand"] .card:not([disabled])', "els => els.map(e => e.dataset.card)"
    )


def view(page: Page) -> dict[str, Any]:
    return page.evaluate("() => window.tapete.view")


def click_card(page: Page, card: str) -> None:
    page.click(f'[data-testid="hand"] [data-card="{card}"]')


def take_turn(page: Page, rng: random.Random, log: list[str], bid_more: bool = True) -> None:
    """Make one move through the page with whatever the view offers."""
    before = state(page)["version"]
    exists = lambda name: page.locator(tid(name)).count() > 0  # noqa: E731
    v = view(page)
    types = {a["type"] for a in v["legal"]}
    if exists("keep"):
        page.click(tid("keep"))
        log.append("keep")
    elif exists("bid") or exists("pass"):
        if exists("bid") and (bid_more or not exists("pass")):
            # raise with + as far as the view allows, so the computers rarely outbid us
            for _ in range(30):
                if not page.is_enabled(tid("bid-plus")):
                    break
                page.click(tid("bid-plus"))
            page.click(tid("bid"))
            log.append("bid")
        else:
            page.click(tid("pass"))
            log.append("pass")
    elif exists("contract"):
        if exists("contract-plus") and page.is_enabled(tid("contract-plus")) and rng.random() < 0.3:
            page.click(tid("contract-plus"))
        page.click(tid("contract"))
        log.append("contract")
    elif "give" in types:
        card = rng.choice(enabled_cards(page))
        click_card(page, card)
        target = page.locator('[data-testid^="give-to-"]:not([disabled])').first
        target.click()
        log.append("give")
    elif exists("claim") and v.get("points", [0, 0])[v["seat"]] >= 66:
        page.click(tid("claim"))
        if exists("claim-confirm"):  # the page asks when it cannot tell the claim is right
            page.click(tid("claim-confirm"))
        log.append("claim")
    elif exists("decline"):
        page.click(tid("decline"))
        log.append("decline")
    elif "play" in types:
        if exists("exchange") and rng.random() < 0.5:
            page.click(tid("exchange"))
            log.append("exchange")
        else:
            if exists("sing") and rng.random() < 0.3:
                page.click(tid("sing"))  # sometimes lead the pair without announcing
            card = rng.choice(enabled_cards(page))
            click_card(page, card)
            log.append("play")
    else:  # anything else the view offers (e.g. a lone claim): its first button
        page.locator('[data-testid="actions"] button:not([disabled])').first.click()
        log.append("other")
    wait_version_after(page, before)


def play_until_deal_ends(
    page: Page, rng: random.Random, log: list[str], bid_more: bool = True, max_moves: int = 80
) -> None:
    deals = int(state(page)["deals"])
    for _ in range(max_moves):
        what = wait_turn(page, deals)
        if what != "turn":
            return
        take_turn(page, rng, log, bid_more=bid_more)
    raise AssertionError(f"the deal did not end after {max_moves} moves: {log}")


def shot(page: Page, folder: Path, name: str) -> Path:
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def open_lobby(page, url: str | None, name: str) -> None:  # type: ignore[no-untyped-def]
    """Open the Lobby window and type ``name`` as the person's (signed in: check that the
    field holds the account's name instead, read-only). ``url``: the page to open
    first, the Lobby from its Games window (None: the page is open with no window, e.g.
    after signing in: the Lobby from the top bar)."""
    if url is not None:
        page.goto(url)
        page.wait_for_selector(f"{tid('newgame')}[open]")
        page.click(tid("newgame-lobby"))
    else:
        page.click(tid("open-lobby"))
    page.wait_for_selector(f"{tid('lobby')}[open]")
    field = page.locator(tid("lobby-name"))
    signed_in = page.evaluate("() => window.tapete.user?.name ?? null")
    assert field.evaluate("(e) => e.readOnly") == (signed_in is not None)
    if signed_in is not None:
        # the field shows the account's name, which the server seats (a name typed there
        # was silently replaced by it)
        assert field.input_value() == signed_in
    else:
        field.fill(name)


def create_invited_table(  # type: ignore[no-untyped-def]
    page,
    url: str | None,
    choice: str,
    seats: list[str],
    name: str = "Ana",
    options: tuple[str, ...] = (),
) -> str:
    """Through the Lobby (``open_lobby``): a table of ``choice`` (``mil-club``,
    ``mariage-mariage``...) with ``seats`` (per seat ``me``, ``invited``, ``open`` or
    ``computer:LEVEL``) and the options ticked (``rated``, ``public``...); the invitation
    link the page then shows."""
    open_lobby(page, url, name)
    page.click(tid(f"lobby-choose-{choice}"))
    for seat, what in enumerate(seats):
        page.select_option(tid(f"seat-choice-{seat}"), what)
    for option in options:
        page.check(tid(f"opt-{option}"))
    page.click(tid("create-table"))
    page.wait_for_selector(tid("waiting"))
    link: str = page.input_value(tid("invite-link"))
    assert "/?join=" in link, link
    return link


def fill_sign_up(page, url: str, name: str, password: str = "uma frase longa") -> None:  # type: ignore[no-untyped-def]
    """Open the page, close its Games window and fill the top bar's sign-up form."""
    page.goto(url)
    page.wait_for_selector(f"{tid('newgame')}[open]")
    page.keyboard.press("Escape")
    page.wait_for_selector(f"{tid('newgame')}:not([open])", state="attached")
    page.click(tid("open-account"))
    page.wait_for_selector(f"{tid('account')}[open]")
    page.click(tid("account-switch"))
    page.fill(tid("account-name"), name)
    page.fill(tid("account-password"), password)


def sign_up(page, url: str, name: str, password: str = "uma frase longa") -> None:  # type: ignore[no-untyped-def]
    """Open the page, close its Games window and create an account from the top bar."""
    fill_sign_up(page, url, name, password)
    page.click(tid("account-submit"))
    page.wait_for_selector(tid("my-page"))


def sit_down(page, link: str, name: str | None = None, host: str | None = None) -> None:  # type: ignore[no-untyped-def]
    """Open an invitation ``link``, (see ``host`` among the seated) and sit down as ``name``
    (None: the name the page offers, e.g. a signed-in person's)."""
    page.goto(link)
    page.wait_for_selector(f"{tid('join')}[open]")
    if host is not None:
        assert host in page.inner_text(tid("join-seats"))
    if name is not None:
        page.fill(tid("join-name"), name)
    page.click(tid("sit-down"))


HOLDS_HAND = "() => Boolean(document.querySelector('[data-testid=\"hand\"] .card'))"
#: the player page is open with its finished games
PLAYER_GAMES = (
    "() => Boolean(document.querySelector('#player[open] [data-testid=\"player-games\"]'))"
)


def wait_playing(*pages, seconds: float = 30) -> None:  # type: ignore[no-untyped-def]
    """Every page holds its hand and knows the game has begun (every seat taken)."""
    named = {f"page {n}": page for n, page in enumerate(pages)}
    wait_until(named, "the hands", HOLDS_HAND, seconds)
    wait_until(
        named,
        "the game's beginning",
        "() => window.tapete.presence && window.tapete.presence.status === 'playing'",
        seconds,
    )


def play_until(  # type: ignore[no-untyped-def]
    pages, rng, logs, done, seconds: float = 120, deal: int = 0, *, settle: bool = False
) -> None:
    """At a table of several people (``pages`` by name): whoever's turn it is clicks a move
    (``take_turn``, logged per name in ``logs``) in deal ``deal`` (0: the first) until
    ``done()``; a page holding the end of an earlier deal goes on ("Next deal"), a page whose
    deal ``deal`` is over waits. With ``settle`` every page shows the mover's version before
    ``done()`` is asked again (one move at a time)."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, {"logs": logs, **table_states(pages)}
        moved = False
        for who, page in pages.items():
            s = state(page)
            if int(s["deals"]) > deal or s["over"] == "true":
                continue
            if s["paused"] == "true":
                page.click(tid("next-deal"))
                moved = True
            elif s["myTurn"] == "true" and s["pending"] == "false":
                take_turn(page, rng, logs.setdefault(who, []))
                moved = True
                if settle:
                    version = int(state(page)["version"])
                    for other in pages.values():
                        wait_version(other, version)
                    break
        if not moved:
            time.sleep(0.1)


def deals_over(n: int, *pages) -> bool:  # type: ignore[no-untyped-def]
    """Every page has seen ``n`` deals end (or the game's end)."""
    return all(int(state(p)["deals"]) >= n or state(p)["over"] == "true" for p in pages)


def first_deal_over(*pages) -> bool:  # type: ignore[no-untyped-def]
    return deals_over(1, *pages)


def wait_until(pages, what: str, script: str, seconds: float = 20, report=None) -> None:  # type: ignore[no-untyped-def]
    """Wait (bounded) until ``script`` (a page function) is true on every page of ``pages``
    (by name); on a timeout say ``what`` was awaited and what each page of ``report``
    (default: ``pages``) showed (``table_states``)."""
    for who, page in pages.items():
        try:
            page.wait_for_function(script, timeout=seconds * 1000, polling=100)
        except Exception as exc:
            shown = table_states(report or pages)
            raise AssertionError(
                {"waiting for": what, "page": who, "error": str(exc)[:200], **shown}
            ) from None


def table_states(pages) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """What each page shows (for a failing assertion's message): the table's data marks, and
    the view's turn, version and phase, the presence and the clocks the page holds."""
    script = """() => { const t = window.tapete || {}; const v = t.view || {};
      return {turn: v.turn, version: t.version, phase: v.phase, over: v.over,
              presence: t.presence, clocks: t.clocks}; }"""
    out: dict[str, object] = {}
    for who, page in pages.items():
        try:
            out[who] = {"marks": state(page), "page": page.evaluate(script)}
        except Exception as exc:  # (a closed page)
            out[who] = repr(exc)
    return out


def _rgba(css: str) -> tuple[float, float, float, float]:
    parts = [float(x) for x in css[css.index("(") + 1 : css.index(")")].split(",")]
    return parts[0], parts[1], parts[2], parts[3] if len(parts) > 3 else 1.0


def _luminance(rgb: tuple[float, float, float]) -> float:
    lin = [
        c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (x / 255 for x in rgb)
    ]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(color: str, opacity: float, paper: str) -> float:
    """The contrast (WCAG) of ``color`` drawn at ``opacity`` on ``paper``, CSS ``rgb()`` or
    ``rgba()`` colours (the colour blended onto the paper as the browser draws it): a text's,
    a focus ring's."""
    r, g, b, a = _rgba(color)
    pr, pg, pb, _ = _rgba(paper)
    a *= opacity
    text = (r * a + pr * (1 - a), g * a + pg * (1 - a), b * a + pb * (1 - a))
    hi, lo = sorted((_luminance(text), _luminance((pr, pg, pb))), reverse=True)
    return (hi + 0.05) / (lo + 0.05)
