"""Hints (issue 5): one suggesting bot per table, and structured reasons a client can translate."""

from __future__ import annotations

import ast
import json
import random
import re
from pathlib import Path

import pytest
from bots_helpers import STEADY, fitting, random_positions

from tapete.bots import make_bot, registry, suggest
from tapete.bots.mil.search import PLAY_REASONS
from tapete.bots.reasons import REASONS, SAMPLED_AVG, SAMPLED_AVG_WHY, WHYS, Reason, placeholders
from tapete.cards import parse_card
from tapete.games import PROFILES

SRC = Path(__file__).resolve().parents[2] / "src" / "tapete"
I18N = {lang: SRC / "web" / "i18n" / f"{lang}.json" for lang in ("es", "pt", "en")}
#: the modules that build reasons (reasons.py itself is left out)
MAKERS = [
    *(p for p in sorted((SRC / "bots").rglob("*.py")) if p.name != "reasons.py"),
    SRC / "server" / "app.py",
]
SYMBOLS = {"S": "♠", "C": "♣", "D": "♦", "H": "♥"}
SUIT_NAMES = {"S": "spades", "C": "clubs", "D": "diamonds", "H": "hearts"}
#: the profiles that may have their own words for a reason (web/js/i18n.js tOwn)
OWNERS = tuple(p for profiles in PROFILES.values() for p in profiles)


def _mariage_view() -> dict:
    g = random_positions("mariage", "mariage", 1, seed=12)[0]
    return dict(g.view(g.turn))


def test_two_tables_with_the_same_names_get_separate_suggesters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(registry, "_SUGGESTERS", type(registry._SUGGESTERS)())
    view = _mariage_view()
    a1, _ = suggest("mariage", view, key=101)
    a2, _ = suggest("mariage", view, key=102)
    assert a1.to_json() in view["legal"] and a2.to_json() in view["legal"]
    bots = list(registry._SUGGESTERS.values())
    assert len(bots) == 2 and bots[0] is not bots[1]
    # the same table asking again gets the same bot (its memory of the tricks)
    suggest("mariage", view, key=101)
    assert len(registry._SUGGESTERS) == 2
    assert registry._suggester("mariage", view, 101) is bots[0]


def test_the_suggester_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_SUGGESTERS", type(registry._SUGGESTERS)())
    monkeypatch.setattr(registry, "_SUGGESTERS_MAX", 3)
    view = _mariage_view()
    first = registry._suggester("mariage", view, "t0")
    for i in range(1, 6):
        registry._suggester("mariage", view, f"t{i}")
        if i == 2:
            assert registry._suggester("mariage", view, "t0") is first  # recently used
    assert len(registry._SUGGESTERS) == 3
    assert registry._suggester("mariage", view, "t0") is not first  # evicted, rebuilt


def test_en_json_holds_the_reason_templates() -> None:
    en = json.loads(I18N["en"].read_text(encoding="utf-8"))
    for key, text in REASONS.items():
        assert en[f"hint_reason_{key}"] == text, key
    assert en["hint_reason_sampled_avg"] == SAMPLED_AVG


def _with_own_words(strings: dict[str, str], prefix: str) -> dict[str, list[str]]:
    """The keys of ``strings`` that start with ``prefix``, each with its text and a profile's
    own words for it (es: ``hint_reason_announce_marriage_casa`` sings a "cante" where the
    club announces a "matrimonio"; web/js/i18n.js tOwn)."""
    keys = [k for k in strings if k.startswith(prefix)]
    texts = {k: [strings[k]] for k in keys}
    for k in keys:
        base = next((b for o in OWNERS if (b := k.removesuffix(f"_{o}")) != k), None)
        if base in texts:
            texts[base].append(texts.pop(k)[0])
    return texts


@pytest.mark.parametrize("lang", sorted(I18N))
def test_every_reason_is_translated_with_the_same_placeholders(lang: str) -> None:
    strings = json.loads(I18N[lang].read_text(encoding="utf-8"))
    wanted = {f"hint_reason_{k}": t for k, t in [*REASONS.items(), ("sampled_avg", SAMPLED_AVG)]}
    texts = _with_own_words(strings, "hint_reason_")
    assert set(texts) == set(wanted)
    for k, template in wanted.items():
        for text in texts[k]:
            assert placeholders(text) == placeholders(template), (lang, k, text)


#: the reasons that do not say the move: their why is the whole sentence
GENERIC = ("only_legal", "first_legal", "safe_legal", "no_suggestion")
#: the reasons that are only their move: no why
MOVE_ONLY = {"keep", "exchange", "lead_card", "play_on_lead"}


def test_the_whys_are_the_reasons_without_their_move() -> None:
    assert set(WHYS) <= set(REASONS)
    assert set(REASONS) - set(WHYS) == MOVE_ONLY
    for key in GENERIC:
        assert WHYS[key] == REASONS[key], key
    for key, why in WHYS.items():
        # (the arguments the client gets are those of the reason's template)
        assert placeholders(why) <= placeholders(REASONS[key]), key
    assert placeholders(SAMPLED_AVG_WHY) == {"sampled_avg"}


def test_en_json_holds_the_whys() -> None:
    en = json.loads(I18N["en"].read_text(encoding="utf-8"))
    whys = {k: v for k, v in en.items() if k.startswith("hint_why_")}
    assert whys == {
        f"hint_why_{k}": t for k, t in [*WHYS.items(), ("sampled_avg", SAMPLED_AVG_WHY)]
    }


@pytest.mark.parametrize("lang", sorted(I18N))
def test_every_why_is_translated_as_a_whole_sentence(lang: str) -> None:
    strings = json.loads(I18N[lang].read_text(encoding="utf-8"))
    wanted = {f"hint_why_{k}": t for k, t in [*WHYS.items(), ("sampled_avg", SAMPLED_AVG_WHY)]}
    texts = _with_own_words(strings, "hint_why_")
    assert set(texts) == set(wanted)
    for k, english in wanted.items():
        for why in texts[k]:
            # said after the move ("Hint: pass. Your hand is too weak…"): a sentence of its own
            assert why[0].isupper() and why.endswith(".") and not why.endswith(".."), (lang, k)
            assert placeholders(why) == placeholders(english), (lang, k)
    for key in GENERIC:
        assert strings[f"hint_why_{key}"] == strings[f"hint_reason_{key}"], (lang, key)


def test_the_protocol_lists_the_reason_keys() -> None:
    text = (SRC.parents[1] / "docs" / "dev" / "protocol.md").read_text(encoding="utf-8")
    start = text.index("`web/i18n/en.json`): ")
    listed = re.findall(r"`(\w+)`", text[start : text.index("Example:", start)])
    assert listed == list(REASONS)


def _reason_calls() -> list[tuple[str, ast.Call]]:
    calls = []
    for path in MAKERS:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Reason":
                calls.append((f"{path.name}:{node.lineno}", node))
    return calls


def test_every_reason_in_the_code_has_a_template_with_its_placeholders() -> None:
    calls = _reason_calls()
    assert len(calls) > 60
    for where, call in calls:
        first = call.args[0]
        if isinstance(first, ast.Subscript):
            # the Mil search player's card plays: the keys are in PLAY_REASONS
            assert ast.unparse(first).startswith("PLAY_REASONS["), where
            continue
        assert isinstance(first, ast.Constant) and isinstance(first.value, str), where
        assert first.value in REASONS, where
        args = call.args[1] if len(call.args) > 1 else None
        if args is None:
            assert placeholders(REASONS[first.value]) == set(), where
        elif isinstance(args, ast.Dict):
            names = {k.value for k in args.keys if isinstance(k, ast.Constant)}
            assert names == placeholders(REASONS[first.value]), where
    for keys in PLAY_REASONS.values():
        for key in keys:
            assert placeholders(REASONS[key]) <= {"card", "pct"}, key
            assert "card" in placeholders(REASONS[key]), key


def test_reason_examples() -> None:
    r = Reason("bid_justifies", {"value": 120, "ceiling": 140})
    assert str(r) == "Bid 120: your hand justifies up to 140."
    assert r.wire_args() == {"value": "120", "ceiling": "140"}
    assert str(Reason("give_spare", {"card": "TC"})) == "Give the 10♣: a card you can spare."
    r = Reason("announce_marriage", {"suit": "H", "value": 100, "card": "QH", "suit_name": "H"})
    assert str(r) == "Announce the ♥ marriage (+100) by leading the Q♥: hearts become trump."
    r = Reason("bid_likely", {"value": 120, "pct": 0.856})
    assert str(r) == "Bid 120: you make it in about 86% of the likely deals."
    assert r.wire_args() == {"value": "120", "pct": "86%"}
    r = Reason("play_on_lead", {"card": "9D", "lead": "AD"}).with_sampled_avg(-0.4)
    assert str(r) == "Play the 9♦ on the A♦ (-0.4 game points on average over sampled deals)."
    assert r.wire_args() == {"card": "9D", "lead": "AD", "sampled_avg": "-0.4"}
    assert r == Reason("play_on_lead", {"card": "9D", "lead": "AD"}, sampled_avg=-0.4)
    assert hash(r) == hash(Reason("play_on_lead", {"lead": "AD", "card": "9D"}, sampled_avg=-0.4))


def test_why_examples() -> None:
    assert Reason("pass_weak", {"value": 105}).why() == "Your hand is too weak to play for 105."
    r = Reason("take_points", {"card": "QS", "points": 13})
    assert r.why() == "It takes the trick and its 13 points."
    assert Reason("give_any").why() == "A card you can spare."
    r = Reason("give_likely", {"card": "QS", "value": 120, "pct": 0.8})
    assert r.why() == "With it gone you make 120 in 80% of the likely deals."
    assert Reason("trump_lead", {"card": "9H", "lead": "AS"}).why() == "It trumps the A♠."
    assert Reason("only_legal").why() == "The only legal move."
    assert Reason("keep").why() is None
    r = Reason("close_reach").with_sampled_avg(0.8)
    assert (
        r.why()
        == "You can reach 66 with your cards (+0.8 game points on average over sampled deals)."
    )
    r = Reason("lead_card", {"card": "TS"}, sampled_avg=-0.4)
    assert r.why() == "It averages -0.4 game points over sampled deals."


def test_a_reason_without_its_template_cannot_be_built() -> None:
    with pytest.raises(ValueError, match="no hint reason template"):
        Reason("not_a_key")
    with pytest.raises(ValueError, match="takes"):
        Reason("lead_master")  # {card} is missing
    with pytest.raises(ValueError, match="takes"):
        Reason("keep", {"card": "AH"})
    args = {"card": "AH"}
    r = Reason("lead_master", args)
    args["card"] = "KH"
    assert str(r) == "Lead the A♥: it wins the trick and keeps the lead."  # args are copied
    with pytest.raises(TypeError):
        r.args["card"] = "KH"  # type: ignore[index]


def _client_text(
    strings: dict[str, str], key: str, args: dict[str, str], which: str = "reason"
) -> str | None:
    """What web/js/hints.js shows for ``reason_key`` and ``reason_args``: the reason
    (``hintReason``), or with ``which="why"`` the why after the move (``hintWhy``; ``None``
    for nothing)."""
    shown = {}

    def pick(name: str, card: str) -> str:  # hints.js: the rank's own string, else the plain one
        return strings.get(f"{name}_{card[0]}", strings[name])

    for k, v in args.items():
        if k in ("card", "lead"):
            shown[k] = ("10" if v[0] == "T" else v[0]) + SYMBOLS[v[1]]
            # the card with its article and its pronouns (web/js/hints.js gendered())
            shown[f"{k}_the"] = pick("card_the", v).replace("{card}", shown[k])
            shown[f"{k}_it"] = pick("card_it", v)
            shown[f"{k}_lo"] = pick("card_lo", v)
        elif k == "suit":
            shown[k] = SYMBOLS[v]
        elif k == "suit_name":
            shown[k] = SUIT_NAMES[v]  # the client's suit_<letter> string; English here
        else:
            shown[k] = v

    def fill(template: str, values: dict[str, str]) -> str:
        return re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], template)

    template = strings.get(f"hint_{which}_{key}")
    if template is None:  # (a why) a reason that is only its move: its average, if any
        assert which == "why", key
        if "sampled_avg" not in args:
            return None
        return fill(strings["hint_why_sampled_avg"], {"sampled_avg": args["sampled_avg"]})
    text = fill(template, shown)
    if "sampled_avg" in args:
        text = fill(
            strings["hint_reason_sampled_avg"],
            {"text": text.removesuffix("."), "sampled_avg": args["sampled_avg"]},
        )
    return text


@pytest.mark.parametrize("game,profile", [("mil", "club"), ("mil", "casa"), ("mariage", "mariage")])
@pytest.mark.parametrize("name", ["rules", "search"])
def test_the_bots_explain_with_reasons_a_client_renders_back(
    game: str, profile: str, name: str
) -> None:
    en = json.loads(I18N["en"].read_text(encoding="utf-8"))
    opts = fitting(game, name, STEADY) if name == "search" else {}
    bot = make_bot(game, name, profile=None if game == "mariage" else profile, **opts)
    keys = set()
    for g in random_positions(game, profile, 25, seed=33):
        view = g.view(g.turn)
        action, reason = bot.explain(view, random.Random(1))  # type: ignore[attr-defined]
        assert action.to_json() in view["legal"]
        assert isinstance(reason, Reason), reason
        wire = reason.wire_args()
        assert all(isinstance(v, str) for v in wire.values()), wire
        for k in ("card", "lead"):
            if k in wire:
                parse_card(wire[k])
        # the server sends str(reason) and (key, wire args): the client shows the same sentence
        assert _client_text(en, reason.key, wire) == str(reason)
        assert "{" not in str(reason) and str(reason).endswith(".")
        # and the why alone, said after the move
        why = reason.why()
        assert _client_text(en, reason.key, wire, "why") == why
        assert why is None or ("{" not in why and why.endswith(".") and why[0].isupper())
        keys.add(reason.key)
    assert len(keys) > 3


def test_too_weak_names_the_lowest_bid_open_to_the_seat() -> None:
    # "too weak to play for 100" was said also when the lowest bid was 105 or more
    from tapete.bots.mil.rules import rules_decision
    from tapete.games import new_game

    seen: set[int] = set()
    for seed in range(60):
        game = new_game("mil", "club", seed=seed)
        rng = random.Random(seed)
        while game.phase in ("redeal_offer", "nines_offer", "bidding") and not game.over:
            view = game.view(game.turn)
            action, reason = rules_decision(view, rng)
            bids = [a["value"] for a in view["legal"] if a["type"] == "bid"]
            if reason.key == "pass_weak":
                lowest = max(min(bids), 120 if view["in_barrel"][view["seat"]] else 0)
                assert reason.args["value"] == lowest
                assert str(reason) == f"Pass: your hand is too weak to play for {lowest}."
                seen.add(lowest)
            if reason.key == "pass_justifies":
                assert reason.args["ceiling"] >= 100
            if not bids:
                assert reason.key != "pass_weak"
            game.apply(action if rng.random() < 0.5 else rng.choice(game.legal_actions()))
    assert any(v > 100 for v in seen), seen
