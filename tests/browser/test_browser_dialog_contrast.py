"""A score sheet in a window (the replay's) is read on the window's paper, not on the table's
felt: every text of it, the barrel and bolt marks and a deal's loss included, has a contrast
of at least 4.5:1 there (WCAG 1.4.3). The felt's pale colours read at 1.2:1 (the marks) and
1.6:1 (a loss) on the paper; a walkthrough found the barrel's state invisible in the replay."""

from __future__ import annotations

from browser_helpers import LOCALES, contrast, shot, tid
from test_browser_replay import REPLAY, finished_table

#: per element of ``root`` with text of its own: the text, its colour and the opacity of it
#: and its parents up to the window, and the window's paper
TEXTS = """(root) => {
  const paper = getComputedStyle(root.closest('dialog')).backgroundColor;
  const out = [];
  for (const el of root.querySelectorAll('*')) {
    const own = [...el.childNodes].filter((n) => n.nodeType === 3)
      .map((n) => n.data).join('').trim();
    if (!own || !el.getClientRects().length) continue;
    let opacity = 1;
    for (let e = el; e && e.tagName !== 'DIALOG'; e = e.parentElement) {
      opacity *= parseFloat(getComputedStyle(e).opacity);
    }
    out.push({text: own, cls: el.className, color: getComputedStyle(el).color, opacity, paper});
  }
  return out;
}"""


def test_the_replays_score_sheet_reads_on_the_windows_paper(  # type: ignore[no-untyped-def]
    new_page, live_server, artifacts
) -> None:
    # two deals from the barrel's edge: marks (B0, bolts) and a deal's loss in the sheet
    start = {"scores": [860, 840, 870], "bolts": [0, 2, 1]}
    table_id, _ = finished_table(live_server.db_path, "mil", 11, 2, start)
    page = new_page(locale=LOCALES["es"])
    page.goto(f"{live_server.url}/?replay={table_id}")
    page.wait_for_selector(f"{REPLAY}[open] {tid('replay-position')}")
    page.keyboard.press("End")  # (the game's end: the sheet holds every deal)
    page.wait_for_selector(f"{REPLAY} .replaysheet .marks")
    sheet = page.locator(f"{REPLAY} .replaysheet")
    texts = sheet.evaluate(TEXTS)
    kinds = " ".join(t["cls"] for t in texts)
    assert "marks" in kinds and "neg" in kinds, texts  # (else: choose another seed)
    low = [
        (t["text"], t["cls"], round(contrast(t["color"], t["opacity"], t["paper"]), 2))
        for t in texts
        if contrast(t["color"], t["opacity"], t["paper"]) < 4.5
    ]
    assert low == [], low
    shot(page, artifacts, "replay-sheet-contrast")
    assert page.js_errors == []
