"""Accounts in the browser: sign up from the top bar, see your player page (its rating plot
and the leaderboard tab), start a game while signed in (the page sends the CSRF token), and
sign out. The session cookie is HttpOnly: the page's script never sees it."""

from __future__ import annotations

from browser_helpers import TABLE, open_lobby, shot, sign_up, tid
from sqlalchemy.orm import sessionmaker

from tapete.server import ratings
from tapete.server.accounts import UserRow
from tapete.server.db import make_engine, utcnow


def _rate_two_games(db_path: object, user_id: int) -> None:
    """Two rated Mil games of the new user against two accounts made here: 1st, then 2nd."""
    engine = make_engine(f"sqlite:///{db_path}")
    sessions = sessionmaker(engine, expire_on_commit=False)
    with sessions.begin() as s:
        others = [
            UserRow(name=n, name_key=n.lower(), password_hash="-", created_at=utcnow())
            for n in ("Rui_browser", "Sol_browser")
        ]
        s.add_all(others)
        s.flush()
        ratings.rate_game(s, "mil-1000", [user_id, others[0].id, others[1].id])
        ratings.rate_game(s, "mil-1000", [others[1].id, user_id, others[0].id])
    engine.dispose()


def _send_account_form(page, url: str, name: str, password: str, signing_up: bool) -> None:  # type: ignore[no-untyped-def]
    """Open the page, close its Games window and send the account window's form (to sign up,
    or to sign in) with ``name`` and ``password``."""
    page.goto(url)
    page.wait_for_selector(f"{tid('newgame')}[open]")
    page.keyboard.press("Escape")
    page.click(tid("open-account"))
    if signing_up:
        page.click(tid("account-switch"))
    page.fill(tid("account-name"), name)
    page.fill(tid("account-password"), password)
    page.click(tid("account-submit"))


def _account_error(page) -> str:  # type: ignore[no-untyped-def]
    """The account window's refusal, once it says one."""
    page.wait_for_function(
        "() => document.querySelector('[data-testid=\"account-error\"]').textContent !== ''"
    )
    return str(page.inner_text(tid("account-error")))


def _lobby_error(page, starting: str = "") -> None:  # type: ignore[no-untyped-def]
    """Wait until the Lobby says why it refused (a line starting with ``starting``)."""
    page.wait_for_function(
        "(s) => { const t = document.querySelector('[data-testid=\"lobby-error\"]')"
        ".textContent; return t !== '' && t.startsWith(s); }",
        arg=starting,
    )


def test_sign_up_see_your_page_play_and_sign_out(new_page, live_server, artifacts) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="pt-PT")
    page.goto(live_server.url)
    page.wait_for_selector(f"{tid('newgame')}[open]")
    page.keyboard.press("Escape")
    page.wait_for_selector(f"{tid('newgame')}:not([open])", state="attached")
    # Entrar -> "Sou novo": the sign-up form, by keyboard
    page.click(tid("open-account"))
    page.wait_for_selector(f"{tid('account')}[open]")
    shot(page, artifacts, "account-sign-in")
    assert page.evaluate("() => document.activeElement.id") == "account-name"
    page.click(tid("account-switch"))
    assert page.inner_text("#account-title") == "Criar uma conta"
    assert page.get_attribute(tid("account-password"), "autocomplete") == "new-password"
    page.fill(tid("account-name"), "Iná_browser")
    page.fill(tid("account-password"), "short")
    page.click(tid("account-submit"))  # the browser's own check (minlength) holds it back
    assert page.is_visible(f"{tid('account')}[open]")
    page.fill(tid("account-password"), "uma frase longa")
    page.press(tid("account-password"), "Enter")
    page.wait_for_selector(tid("my-page"))
    assert page.inner_text(tid("my-page")) == "Iná_browser"
    assert page.get_attribute(tid("my-page"), "aria-label") == "Página de Iná_browser"
    assert "tapete_session" not in page.evaluate("() => document.cookie")  # HttpOnly
    me = page.evaluate("() => fetch('/api/me').then((r) => r.json())")
    assert me["user"]["name"] == "Iná_browser"
    assert page.evaluate("() => window.tapete.csrf") == me["csrf"]

    # two rated games, then the player page: rating, its plot, no finished games yet
    _rate_two_games(live_server.db_path, me["user"]["id"])
    page.click(tid("my-page"))
    page.wait_for_selector(f"{tid('player')}[open] {tid('player-kind')}")
    assert page.inner_text("#player-title") == "Iná_browser"
    assert page.inner_text(tid("player-kind")) == "Jogador com conta."
    chart = page.locator(f"{tid('rating-mil-1000')} {tid('rating-chart')}")
    assert chart.get_attribute("role") == "img" and "2 jogos" in (
        chart.get_attribute("aria-label") or ""
    )
    assert page.locator(f"{tid('rating-mil-1000')} polyline").get_attribute("data-points") == "3"
    assert "provisória" in page.inner_text(tid("rating-mil-1000"))
    assert page.inner_text(tid("player-abandonments")) == "Jogos abandonados: 0"
    shot(page, artifacts, "account-player-page")
    page.click(tid("close-player"))

    # the leaderboard, a tab beside the Ranking; a name opens that player's page
    page.click(tid("open-ranking"))
    page.click(tid("rating-mil-1000"))
    page.wait_for_selector(tid("leaderboard"))
    names = page.locator(f"{tid('leaderboard')} tbody td:nth-child(2)").all_inner_texts()
    assert set(names) == {"Iná_browser", "Rui_browser", "Sol_browser"}
    shot(page, artifacts, "account-leaderboard")
    page.click(tid("leader-Sol_browser"))
    page.wait_for_selector(f"{tid('player')}[open] {tid('player-kind')}")
    assert page.inner_text("#player-title") == "Sol_browser"
    page.click(tid("close-player"))
    page.click(tid("close-ranking"))

    # a new table while signed in: the POST carries X-CSRF-Token, so it is accepted
    page.click(tid("open-newgame"))
    page.click(tid("choose-mariage"))
    # (the name field holds the account's name, read-only: test_games_window_names_...)
    assert page.input_value(tid("name")) == "Iná_browser"
    with page.expect_request("**/api/tables") as sent:
        page.click(tid("start"))
    assert sent.value.headers.get("x-csrf-token") == me["csrf"]
    page.wait_for_selector(f"{TABLE}[data-version]")

    # sign out: the top bar offers Entrar again and the server forgets the session
    page.click(tid("sign-out"))
    page.wait_for_selector(tid("open-account"))
    assert page.evaluate("() => fetch('/api/me').then((r) => r.json())") == {
        "user": None,
        "csrf": None,
    }
    assert page.js_errors == []


def test_a_wrong_password_says_so_in_the_language(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="es-ES")
    _send_account_form(page, live_server.url, "Nadie_aqui", "no es esta", signing_up=False)
    assert _account_error(page) == "Nombre de usuario o contraseña incorrectos."
    assert page.is_visible(f"{tid('account')}[open]") and page.locator(tid("my-page")).count() == 0


def test_a_too_short_name_is_told_in_the_pages_language(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """The browser's own check spoke its language in a bubble and left the form's line empty;
    the page says the rules in its language and puts the focus on the field."""
    page = new_page(locale="pt-PT")
    _send_account_form(page, live_server.url, "ab", "uma frase longa", signing_up=True)
    rules = page.inner_text(tid("account-rules"))
    assert rules.startswith("Nome de utilizador: de 3 a 24")
    assert page.inner_text(tid("account-error")) == rules
    assert page.evaluate("() => document.activeElement.id") == "account-name"
    assert page.locator(tid("my-page")).count() == 0 and page.js_errors == []


def test_a_guest_refused_a_rated_table_reads_why_in_the_language(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """The server's refusals that a person meets in normal use come with a ``code``; the page
    words them in its language (they used to show the server's English sentence): a guest
    asking for a rated table, a public table with no open seat."""
    page = new_page(locale="es-ES")
    open_lobby(page, live_server.url, "Invitada")
    # three seats: the form says who sits left and right of whom; two face each other
    page.click(tid("lobby-choose-mil-club"))
    assert page.inner_text(tid("seats-order-note")).startswith("El turno pasa de cada asiento")
    page.click(tid("lobby-choose-mariage-mariage"))
    assert page.locator(tid("seats-order-note")).count() == 0
    page.check(tid("opt-rated"))
    page.click(tid("create-table"))
    _lobby_error(page)
    assert page.inner_text(tid("lobby-error")) == (
        "Las mesas puntuables son para jugadores con cuenta: entra primero."
    )
    page.uncheck(tid("opt-rated"))
    page.select_option(tid("seat-choice-1"), "invited")
    page.check(tid("opt-public"))
    page.click(tid("create-table"))
    _lobby_error(page, "Una mesa pública")
    # no seat "Yo" (it read 'exactly one seat must be yours: {"kind": "me"}')
    page.uncheck(tid("opt-public"))
    page.select_option(tid("seat-choice-0"), "invited")
    page.click(tid("create-table"))
    _lobby_error(page, "Exactamente un asiento")
    # a delay typed past its bounds comes back inside them when the field is left
    page.fill(tid("opt-delay"), "999")
    page.dispatch_event(tid("opt-delay"), "change")
    assert page.input_value(tid("opt-delay")) == "100"
    page.fill(tid("opt-delay"), "-5")
    page.dispatch_event(tid("opt-delay"), "change")
    assert page.input_value(tid("opt-delay")) == "0"
    assert page.js_errors == []


def test_a_rated_table_with_a_computer_is_refused_in_the_language(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """Signed in, a table ticked Rated with a computer seat is refused: the page said the
    server's English sentence ("a rated table has people at every seat, no computer") on a
    Spanish page; its code (rated_computer) has words in every language."""
    page = new_page(locale="es-ES")
    sign_up(page, live_server.url, "Rita_sin_ordenador")
    open_lobby(page, None, "Rita_sin_ordenador")
    page.click(tid("lobby-choose-mil-club"))
    page.select_option(tid("seat-choice-1"), "invited")
    page.select_option(tid("seat-choice-2"), "computer:rules")
    page.check(tid("opt-rated"))
    page.click(tid("create-table"))
    _lobby_error(page)
    assert page.inner_text(tid("lobby-error")) == (
        "Una mesa puntuable es solo para personas: no elijas ningún asiento de"
        " ordenador, o desmarca «Puntuable»."
    )
    # untick Rated: the same seats make a table
    page.uncheck(tid("opt-rated"))
    page.click(tid("create-table"))
    page.wait_for_selector(tid("waiting"))


def test_a_name_in_two_alphabets_is_refused_in_the_language(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """ "Аna" with a Cyrillic А could pass for someone's "Ana": refused at sign-up and as a
    guest's name in the Lobby, and the page says why in its language (the server's code,
    name_scripts; docs/server.md, "Names that look alike")."""
    page = new_page(locale="pt-PT")
    _send_account_form(page, live_server.url, "\u0410na_pt", "uma frase longa", signing_up=True)
    alphabet = "Escreva o nome num só alfabeto (latino, cirílico, grego…)"
    assert _account_error(page).startswith(alphabet)
    page.click(tid("account-cancel"))
    open_lobby(page, None, "\u0410na")
    page.click(tid("quick-game"))
    _lobby_error(page, alphabet)
    assert page.locator(tid("my-page")).count() == 0 and page.js_errors == []


def test_games_window_names_a_signed_in_person_by_the_account(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """Signed in, the Games window's name field holds the account's name, read-only, as the
    Lobby's does: the server seats the account under that name (it showed an empty field, or
    the guest's last name, and a name typed there was silently replaced). Signed out, it is
    the guest's field again, with the guest's last name (the account's is not kept as it)."""
    page = new_page(locale="es-ES")
    page.goto(live_server.url)
    page.wait_for_selector(f"{tid('newgame')}[open]")
    page.fill(tid("name"), "Invitada")
    page.click(tid("start"))
    page.wait_for_selector(f"{TABLE}[data-version]")
    page.click(tid("open-account"))
    page.wait_for_selector(f"{tid('account')}[open]")
    page.click(tid("account-switch"))
    page.fill(tid("account-name"), "Gwin_browser")
    page.fill(tid("account-password"), "una frase larga")
    page.click(tid("account-submit"))
    page.wait_for_selector(tid("my-page"))

    page.click(tid("open-newgame"))
    page.wait_for_selector(f"{tid('newgame')}[open]")
    field = page.locator(tid("name"))
    assert field.input_value() == "Gwin_browser"
    assert field.evaluate("(e) => e.readOnly")
    assert (
        field.get_attribute("title")
        == "El nombre de tu cuenta (sal de ella para jugar como invitado con otro)"
    )
    page.click(tid("start"))
    page.wait_for_function("() => window.tapete.view?.players?.[0] === 'Gwin_browser'")
    assert page.evaluate("() => localStorage.getItem('tapete.name')") == "Invitada"

    page.click(tid("sign-out"))
    page.wait_for_selector(tid("open-account"))
    page.click(tid("open-newgame"))
    page.wait_for_selector(f"{tid('newgame')}[open]")
    assert page.input_value(tid("name")) == "Invitada"
    assert not page.locator(tid("name")).evaluate("(e) => e.readOnly")
    assert page.js_errors == []
