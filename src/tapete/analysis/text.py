"""A deal report in the players' words (English), costliest decisions first."""

from __future__ import annotations

from tapete.cards import Suit, parse_card
from tapete.game import JSON

__all__ = ["action_words", "card_words", "render_report", "render_summary"]

_RANKS = {"T": "10"}
_PHASE_WORDS = {
    "bidding": "in the bidding",
    "talon": "with the talon",
    "give": "with the talon",
    "contract": "at the contract",
}


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


def _where(d: JSON, kind: str) -> str:
    if d.get("trick") and (kind == "mariage" or d["phase"] == "play"):
        return f"trick {d['trick']}"
    phase = str(d["phase"])
    return _PHASE_WORDS.get(phase, phase)


def _amount(x: float, kind: str) -> str:
    if kind == "mariage":
        return f"about {x:.1f} game point{'s' if round(x, 1) != 1 else ''}"
    return f"about {round(x):d} point{'s' if round(x) != 1 else ''}"


def decision_line(d: JSON, report: JSON) -> str:
    """``trick 5, Bruno played K♥: it cost the defence about 14 points; A♣ was better``."""
    kind = report["kind"]
    players = report["players"]
    who = players[d["seat"]]
    head = f"{_where(d, kind)}, {who} {action_words(d['action'], players)}"
    whom = "the defence" if d.get("side") == "defence" else who
    if d.get("side") == "declarer" and kind == "mil":
        whom = "the declarer"
    if d["expected_loss"] is not None:
        loss = f"it cost {whom} {_amount(d['expected_loss'], kind)}"
        if d["open_loss"] is not None:
            loss += f" ({_amount(d['open_loss'], kind)} with all cards open)"
    else:
        loss = f"with all cards open it cost {whom} {_amount(d['open_loss'] or 0, kind)}"
    better = ""
    if d["best"] is not None:
        better = f"; {action_words(d['best'], players, verb=False)} was better"
    label = f" [{d['label']}]" if d["label"] else ""
    return f"{head}: {loss}{better}{label}"


def _cost(d: JSON) -> float:
    x = d["expected_loss"] if d["expected_loss"] is not None else d["open_loss"]
    return float(x or 0.0)


def _headline(report: JSON) -> list[str]:
    players = report["players"]
    out = [f"game {report['game']}, deal {report['deal']} ({report['profile']})"]
    if report["kind"] == "mil":
        if report["annulled"]:
            out.append("  the deal was annulled (redeal): no card play")
            return out
        d = report["declarer"]
        if d is None:
            return out
        talon = " ".join(card_words(c) for c in report["talon"])
        line = f"  {players[d]} declared: bid {report['bid']}"
        if report["rospis"]:
            out.append(line + ", then conceded (rospis)")
        else:
            made = report["raw"][d] >= report["contract"]
            out.append(
                f"{line}, contract {report['contract']}, took {report['raw'][d]} "
                f"({'made' if made else 'failed'})"
            )
        best = report["best_contract"]
        makeable = "makeable" if report["bid_makeable"] else "not makeable"
        out.append(
            f"  talon {talon}; with all cards open the best contract was "
            f"{best if best is not None else 'none'} (the bid was {makeable})"
        )
        curve = report["open_values"]
        if curve:
            out.append("  open-hand value by trick: " + " ".join(str(v) for v in curve))
    else:
        r = report.get("result") or {}
        w = r.get("winner")
        who = "a tie" if w is None else f"{players[w]} won {r.get('game_points')} game point(s)"
        out.append(f"  {who} ({r.get('reason')}), points {r.get('points')}")
    return out


def render_report(report: JSON, *, seat: int | None = None, top: int = 8) -> str:
    """The readable report of one deal: a headline, the costliest decisions, the totals."""
    lines = _headline(report)
    decisions = [d for d in report["decisions"] if seat is None or d["seat"] == seat]
    # what rounds to nothing in the unit shown is not a loss worth a line
    least = 0.05 if report["kind"] == "mariage" else 0.5
    costly = sorted((d for d in decisions if _cost(d) >= least), key=lambda d: -_cost(d))
    for d in costly[:top]:
        lines.append("  " + decision_line(d, report))
    if not costly:
        lines.append("  no decision cost anything")
    elif len(costly) > top:
        lines.append(f"  ... and {len(costly) - top} smaller losses")
    unit = "game points" if report["kind"] == "mariage" else "points"
    for s, t in enumerate(report["seats"]):
        if seat is not None and s != seat:
            continue
        expected = "" if report.get("quick") else f"expected loss {t['expected_loss']:.1f} {unit}, "
        lines.append(
            f"  {report['players'][s]}: {t['decisions']} decisions, {expected}"
            f"open loss {t['open_loss']:.1f}, "
            f"{t['mistakes']} mistake(s), {t['blunders']} blunder(s)"
        )
    if not report.get("complete", True):
        lines.append("  (time budget reached: later decisions judged open-handed only)")
    return "\n".join(lines)


def render_summary(reports: list[JSON], seconds: float) -> str:
    """The closing lines over many deals: per player, the average loss per deal."""
    if not reports:
        return "no deal analysed"
    per: dict[str, list[float]] = {}
    counts: dict[str, list[int]] = {}
    for r in reports:
        for s, t in enumerate(r["seats"]):
            name = r["players"][s]
            acc = per.setdefault(name, [0.0, 0.0])
            acc[0] += t["expected_loss"]
            acc[1] += t["open_loss"]
            c = counts.setdefault(name, [0, 0, 0])
            c[0] += 1
            c[1] += t["mistakes"]
            c[2] += t["blunders"]
    quick = all(r.get("quick") for r in reports)
    how = " (open-hand only)" if quick else ""
    lines = [f"{len(reports)} deal(s) analysed{how} in {seconds:.1f} s"]
    for name, (e, o) in per.items():
        n, m, b = counts[name]
        loss = f"{o / n:.1f} open" if quick else f"{e / n:.1f} expected, {o / n:.1f} open"
        lines.append(f"  {name}: average loss per deal {loss}; {m} mistake(s), {b} blunder(s)")
    return "\n".join(lines)
