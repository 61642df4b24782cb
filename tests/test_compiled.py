"""The engine compiled with mypyc at install: in use, guarded against stale builds, and equal
to the pure Python sources.

``bash scripts/setup`` (and so ``bash scripts/test``) compiles the engine; these tests fail if
that build is missing or stale, unless ``TAPETE_PURE=1`` says the pure engine is tested.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tapete
from tapete import _compiled
from tapete._compiled import (
    COMPILED_MODULES,
    ENV_PURE,
    GROUP,
    MANIFEST,
    PureFinder,
    build_sources,
    decide,
    hash_sources,
    write_manifest,
)

PACKAGE = Path(tapete.__file__).resolve().parent
PURE_ONLY = os.environ.get(ENV_PURE, "") not in ("", "0")
needs_build = pytest.mark.skipif(PURE_ONLY, reason=f"{ENV_PURE} is set: pure Python only")


def run_python(code: str, pythonpath: Path | None = None, pure: bool = False) -> str:
    """Run ``code`` in a fresh interpreter; its stdout (stderr is checked by callers)."""
    env = {k: v for k, v in os.environ.items() if k not in (ENV_PURE, "PYTHONPATH")}
    if pure:
        env[ENV_PURE] = "1"
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    done = subprocess.run(
        [sys.executable, "-W", "default", "-c", code],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    return done.stdout + done.stderr


def test_the_build_in_use() -> None:
    status = _compiled.build_status()
    if PURE_ONLY:
        assert tapete.compiled_modules() == ()
        return
    assert tapete.compiled_modules() == COMPILED_MODULES, (
        f"the engine is not compiled ({status.reason}): run `bash scripts/setup`, "
        f"or set {ENV_PURE}=1 to test the pure Python engine only"
    )
    assert not status.pure


# --- the guard, on a fake package directory -----------------------------------------------


def fake_build(tmp_path: Path) -> Path:
    """A copy of the compiled sources with empty stand-ins for the extensions, and its
    manifest: what ``decide`` sees after a build."""
    pkg = tmp_path / "tapete"
    for rel in build_sources(PACKAGE):
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PACKAGE / rel, pkg / rel)
    suffix = _compiled.importlib.machinery.EXTENSION_SUFFIXES[0]
    for name in (*COMPILED_MODULES, GROUP + "__mypyc"):
        stem = pkg.joinpath(*name.split(".")[1:])
        stem.with_name(stem.name + suffix).touch()
    write_manifest(pkg, hash_sources(pkg))
    return pkg


def test_a_fresh_build_is_used(tmp_path: Path) -> None:
    pkg = fake_build(tmp_path)
    assert json.loads((pkg / MANIFEST).read_text())["modules"] == list(COMPILED_MODULES)
    assert decide(pkg, {}) == _compiled.BuildStatus(False, "compiled with mypyc")
    assert decide(pkg, {ENV_PURE: "0"}).pure is False
    forced = decide(pkg, {ENV_PURE: "1"})
    assert forced.pure and not forced.stale


@pytest.mark.parametrize("rel", ["mil/state.py", "cards.py", "mil/actions.py"])
def test_an_edited_source_falls_back_to_pure_python(tmp_path: Path, rel: str) -> None:
    """Also a module the compiled code imports (mil/actions.py), not only compiled ones."""
    pkg = fake_build(tmp_path)
    with (pkg / rel).open("a") as f:
        f.write("# edited\n")
    status = decide(pkg, {})
    assert status.pure and status.stale
    assert str(pkg / rel) in status.reason and "changed since it was compiled" in status.reason


def test_a_partial_or_foreign_build_falls_back(tmp_path: Path) -> None:
    pkg = fake_build(tmp_path)
    manifest = json.loads((pkg / MANIFEST).read_text())
    (pkg / MANIFEST).write_text(json.dumps({**manifest, "python": "cpython-399"}))
    assert decide(pkg, {}).stale
    write_manifest(pkg, hash_sources(pkg))
    next(pkg.glob("mil/state.*.so")).unlink()
    status = decide(pkg, {})
    assert status.stale and "tapete.mil.state not compiled" in status.reason
    (pkg / MANIFEST).unlink()
    assert decide(pkg, {}).stale  # extensions without a manifest
    for so in pkg.rglob("*.so"):
        so.unlink()
    quiet = decide(pkg, {})  # nothing built at all (no compiler at install): no warning
    assert quiet.pure and not quiet.stale


def test_the_finder_imports_sources_of_the_group_only() -> None:
    finder = PureFinder()
    spec = finder.find_spec("tapete.mil.state", [str(PACKAGE / "mil")])
    assert spec is not None and spec.origin == str(PACKAGE / "mil" / "state.py")
    assert finder.find_spec("tapete.mil.game", [str(PACKAGE / "mil")]) is None
    assert finder.find_spec("tapete.cards", None) is None


# --- the guard, end to end in a copy of the installed package -------------------------------

WHICH = "import tapete, tapete.mariage, tapete.mil; print(tapete.compiled_modules())"


@needs_build
def test_an_edited_copy_runs_pure_python_and_says_why(tmp_path: Path) -> None:
    shutil.copytree(PACKAGE, tmp_path / "tapete", ignore=shutil.ignore_patterns("__pycache__"))
    assert run_python(WHICH, tmp_path).strip() == str(COMPILED_MODULES)
    with (tmp_path / "tapete" / "mil" / "state.py").open("a") as f:
        f.write("# edited\n")
    out = run_python(WHICH, tmp_path)
    assert out.startswith("()\n")
    assert "RuntimeWarning" in out and "mil/state.py changed since it was compiled" in out
    assert "run `bash scripts/setup` to recompile" in out
    assert run_python(WHICH, tmp_path, pure=True) == "()\n"  # forced: no warning


# --- parity: the same games with both builds --------------------------------------------------

PARITY = r"""
import hashlib, json, random
import tapete
from tapete.cards import CardSet
from tapete.errors import IllegalActionError
from tapete.mariage import State as MariageState
from tapete.mil import PROFILES, Bid, Contract, Give, Pass, Play, State, deal_cards

out = ["compiled" if tapete.compiled_modules() else "pure"]
rng = random.Random(20261129)
tries = [Pass(), Bid(105), Bid(400), Contract(95), Give(31, 1), Play(8), Play(30, True), None]
for i in range(150):
    for name, profile in PROFILES.items():
        hands, talon = deal_cards(rng)
        st = State(profile, i % 3, hands, talon, (i % 5 == 0, False, i % 7 == 0))
        while not st.done:
            legal = st.legal_actions()
            bad = rng.choice(tries)
            out.append(str(st.can_apply(bad)))
            try:
                st.push(bad)
                st.pop()
            except IllegalActionError as e:
                out.append(str(e))
            if rng.random() < 0.2:
                for a in legal:
                    st.push(a)
                    st.pop()
            st.apply(legal[rng.randrange(len(legal))])
        out.append(json.dumps([[s, a.to_json()] for s, a in st.history]))
        out.append(repr((st.raw(), st.tricks, st.contract, st.redeal_reason, st.rospis)))
        out.append(repr((st.seat_knows(0), st.seat_knows(None), st)))
for i in range(300):
    st = MariageState.deal(rng, i & 1)
    while not st.done:
        legal = st.legal_actions()
        if rng.random() < 0.3:
            out.append(json.dumps(st.view(st.turn)))
        try:
            st.apply(rng.choice((Pass(), None, "claim")))  # not Mariage actions
        except IllegalActionError as e:
            out.append(str(e))
        a = legal[rng.randrange(len(legal))]
        st.apply(a)
        if rng.random() < 0.1:
            st.pop()
    out.append(json.dumps(st.result.to_json((0, 0))) + repr(st))
for i in range(200):
    cs = CardSet(rng.getrandbits(32))
    out.append(f"{cs} {cs.points()} {len(cs)} {CardSet.parse(str(cs)) == cs}")
print(out[0], len(out), hashlib.sha256("\n".join(out[1:]).encode()).hexdigest())
"""


def test_the_compiled_and_the_pure_engine_agree() -> None:
    """Seeded random Mil deals (with illegal tries, push/pop) and Mariage hands (with views and
    undo), in two fresh interpreters: the pure sources and the installed build."""
    pure = run_python(PARITY, pure=True).split()
    built = run_python(PARITY).split()
    assert pure[0] == "pure"
    if not PURE_ONLY:  # else the installed build, compiled or not
        assert built[0] == "compiled"
    assert pure[1:] == built[1:]
