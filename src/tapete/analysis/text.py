"""A deal report in the players' words (English), costliest decisions first.

What differs between games (the unit of a loss, the headline of a deal, the words for a
phase) comes from the game's analysis module, ``kind(report["kind"]).analysis``."""

from __future__ import annotations

from tapete.analysis.core import GameAnalysis, game_analysis
from tapete.cards import Suit, parse_card
from tapete.game import JSON

__all__ = ["action_words", "card_words", "render_report", "render_summary"]

_RANKS = {"T": "10"}
#: how a decision's ``side`` is named as the one who paid for it
_SIDE_WORDS = {"declarer": "the declarer", "defence": "the defence"}


def card_words(name: str) -> str:
    """``KH`` -> ``K♥``, ``TS`` -> ``10♠``."""
    c = parse_card(name)
    return _RANKS.get(name[0], name[0]) + Suit(c >> 3).symbol


def _suit(letter: str) -> str:
    return Suit("SCDH".index(letter)).symbol


def action_words(a: JSON, players: list[str], *, verb: bool = True) -> str:
    """An action as a phrase: ``played K♥``, ``bid 120`` (``verb`` False: ``K♥``,
    ``bidding 120``, for "... was better")."""
    t = a["type"]
    if t == "play":
        card = card_words(a["card"])
        if a.get("marriage"):
            return f"{'led ' if verb else ''}{card} announcing the marriage"
        return f"played {card}" if verb else card
    if t == "bid":
        return f"bid {a['value']}" if verb else f"bidding {a['value']}"
    if t == "pass":
        return "passed" if verb else "passing"
    if t == "give":
        who = players[a["to"]]
        card = card_words(a["card"])
        return f"gave {card} to {who}" if verb else f"giving {card} to {who}"
    if t == "contract":
        return f"fixed the contract at {a['value']}" if verb else f"a contract of {a['value']}"
    if t == "rospis":
        return "conceded (rospis)" if verb else "conceding (rospis)"
    if t == "redeal":
        return "asked for a redeal" if verb else "a redeal"
    if t == "exchange":
        return "exchanged the trump seven" if verb else "exchanging the trump seven"
    if t == "marriage":
        s = _suit(a["suit"])
        return f"announced the {s} marriage" if verb else f"announcing the {s} marriage"
    if t == "close":
        return "closed the stock" if verb else "closing the stock"
    if t == "claim":
        return "claimed 66" if verb else "claiming 66"
    if t == "decline":
        return "did not claim" if verb else "not claiming"
    return str(t)


def _where(d: JSON, game: GameAnalysis) -> str:
    # a decision of the card play has its trick number (from 1), the others none
    if d.get("trick"):
        return f"trick {d['trick']}"
    phase = str(d["phase"])
    return game.PHASE_WORDS.get(phase, phase)


def decision_line(d: JSON, report: JSON) -> str:
    """``trick 5, Bruno played K♥: it cost the defence about 14 points; A♣ was better``."""
    game = game_analysis(report["kind"])
    players = report["players"]
    who = players[d["seat"]]
    head = f"{_where(d, game)}, {who} {action_words(d['action'], players)}"
    whom = _SIDE_WORDS.get(d.get("side") or "", who)
    if d["expected_loss"] is not None:
        loss = f"it cost {whom} {game.amount(d['expected_loss'])}"
        if d["open_loss"] is not None:
            loss += f" ({game.amount(d['open_loss'])} with all cards open)"
    else:
        loss = f"with all cards open it cost {whom} {game.amount(d['open_loss'] or 0)}"
    better = ""
    if d["best"] is not None:
        better = f"; {action_words(d['best'], players, verb=False)} was better"
    label = f" [{d['label']}]" if d["label"] else ""
    return f"{head}: {loss}{better}{label}"


def _cost(d: JSON) -> float:
    x = d["expected_loss"] if d["expected_loss"] is not None else d["open_loss"]
    return float(x or 0.0)


def render_report(report: JSON, *, seat: int | None = None, top: int = 8) -> str:
    """The readable report of one deal: a headline, the costliest decisions, the totals."""
    game = game_analysis(report["kind"])
    lines = [f"game {report['game']}, deal {report['deal']} ({report['profile']})"]
    lines += game.headline(report)
    decisions = [d for d in report["decisions"] if seat is None or d["seat"] == seat]
    # what rounds to nothing in the unit shown is not a loss worth a line
    costly = sorted((d for d in decisions if _cost(d) >= game.LEAST), key=lambda d: -_cost(d))
    for d in costly[:top]:
        lines.append("  " + decision_line(d, report))
    if not costly:
        lines.append("  no decision cost anything")
    elif len(costly) > top:
        lines.append(f"  ... and {len(costly) - top} smaller losses")
    unit = game.UNIT
    for s, t in enumerate(report["seats"]):
        if seat is not None and s != seat:
            continue
        judged = [f"{t['decisions']} decision(s) judged"]
        if t["expected_loss"] is not None and not report.get("quick"):
            judged.append(f"expected loss {t['expected_loss']:.1f} {unit}")
        if t["open_loss"] is not None:
            judged.append(f"open loss {t['open_loss']:.1f}")
        lines.append(
            f"  {report['players'][s]}: {', '.join(judged)}, "
            f"{t['mistakes']} mistake(s), {t['blunders']} blunder(s)"
        )
    if not report.get("complete", True):
        lines.append("  (time budget reached: later decisions judged open-handed only)")
    return "\n".join(lines)


def render_summary(reports: list[JSON], seconds: float, *, seat: int | None = None) -> str:
    """The closing lines over many deals: per player, the average loss per deal (only the
    player at ``seat`` when the analysis was of that seat's decisions alone)."""
    if not reports:
        return "no deal analysed"
    # per player: [expected total, its deals, open total, its deals] (a deal whose
    # decisions were not judged one way counts in neither of that way's figures)
    per: dict[str, list[float]] = {}
    counts: dict[str, list[int]] = {}
    for r in reports:
        for s, t in enumerate(r["seats"]):
            if seat is not None and s != seat:
                continue  # (not judged: their zero loss would read as perfect play)
            name = r["players"][s]
            acc = per.setdefault(name, [0.0, 0, 0.0, 0])
            for at, key in ((0, "expected_loss"), (2, "open_loss")):
                if t[key] is not None:
                    acc[at] += t[key]
                    acc[at + 1] += 1
            c = counts.setdefault(name, [0, 0])
            c[0] += t["mistakes"]
            c[1] += t["blunders"]
    quick = all(r.get("quick") for r in reports)
    how = " (open-hand only)" if quick else ""
    lines = [f"{len(reports)} deal(s) analysed{how} in {seconds:.1f} s"]
    for name, (e, en, o, on) in per.items():
        m, b = counts[name]
        losses = [] if quick else [f"{e / en:.1f} expected" if en else "expected not judged"]
        losses.append(f"{o / on:.1f} open" if on else "open not judged")
        said = f"average loss per deal {', '.join(losses)}" if en or on else "no loss judged"
        lines.append(f"  {name}: {said}; {m} mistake(s), {b} blunder(s)")
    return "\n".join(lines)
