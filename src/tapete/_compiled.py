"""Which build of the engine runs: the modules compiled with mypyc at install, or pure Python.

``pip install`` (``bash scripts/setup``) compiles :data:`COMPILED_MODULES` with mypyc into one
group (see ``setup.py``) and writes the build manifest ``tapete/_compiled.json``: the SHA-256
of every source the compiler read (the compiled modules and the tapete modules they import).
An editable install puts each compiled module next to its ``.py`` file, where it shadows the
source, so editing a source would silently run the old compiled code. Hence, when ``tapete``
is imported, :func:`install` checks the manifest and imports the pure Python sources of the
whole group instead (never a mix: compiled modules call each other natively) when

* the environment variable ``TAPETE_PURE`` is set (to anything but ``0`` or empty), or
* a source no longer matches its hash, a compiled module is missing, or compiled modules lie
  there without a manifest: then it warns once, naming the file, and the fix is to rerun
  ``bash scripts/setup``.

Without a build (no C compiler at install) the pure sources run, without a warning.

This module uses the standard library only: ``setup.py`` loads it by path to share the module
list and the hashing.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Any, Final

__all__ = [
    "COMPILED_MODULES",
    "ENV_PURE",
    "GROUP",
    "MANIFEST",
    "BuildStatus",
    "build_status",
    "compiled_modules",
    "import_copy",
    "install",
    "slot_names",
]

#: The modules compiled with mypyc, as one group (one shared library).
COMPILED_MODULES: Final = (
    "tapete.cards",
    "tapete.mariage.state",
    "tapete.mil.actions",
    "tapete.mil.profiles",
    "tapete.mil.state",
)
#: The name of the group's shared library is ``GROUP + "__mypyc"`` (inside the package).
GROUP: Final = "tapete._engine"
#: The build manifest, in the package directory (generated at install, not in git).
MANIFEST: Final = "_compiled.json"
#: Set to force the pure Python engine (``TAPETE_PURE=1``).
ENV_PURE: Final = "TAPETE_PURE"
_PACKAGE_DIR: Final = Path(__file__).resolve().parent
_SETUP_HINT: Final = "run `bash scripts/setup` to recompile"


def relative_source(name: str) -> str:
    """``tapete.mil.state`` -> ``mil/state.py`` (a plain module, not a package)."""
    return "/".join(name.split(".")[1:]) + ".py"


def source_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _imported_tapete_modules(path: Path, name: str) -> set[str]:
    """The ``tapete`` modules that the source ``path`` of module ``name`` imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = name.rsplit(".", node.level)[0]
            found.add(f"{base}.{node.module}" if node.module else base)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m.split(".")[0] == "tapete"}


def build_sources(package_dir: Path = _PACKAGE_DIR) -> list[str]:
    """The sources the compiled code depends on (relative to the package, sorted): the
    compiled modules and the tapete modules they import, transitively."""
    todo = list(COMPILED_MODULES)
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        path = package_dir / relative_source(name)
        if name not in seen and path.is_file():
            seen.add(name)
            todo.extend(_imported_tapete_modules(path, name))
    return sorted(relative_source(name) for name in seen)


def write_manifest(target_dir: Path, hashes: dict[str, str]) -> None:
    """Record the hashes of the compiled sources in ``target_dir/_compiled.json``."""
    data = {
        "group": GROUP,
        "modules": list(COMPILED_MODULES),
        "python": sys.implementation.cache_tag,
        "sources": hashes,
    }
    (target_dir / MANIFEST).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def hash_sources(package_dir: Path = _PACKAGE_DIR) -> dict[str, str]:
    return {rel: source_hash(package_dir / rel) for rel in build_sources(package_dir)}


def _extension_file(package_dir: Path, name: str) -> Path | None:
    stem = package_dir.joinpath(*name.split(".")[1:])
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = stem.with_name(stem.name + suffix)
        if path.is_file():
            return path
    return None


def remove_extensions(package_dir: Path) -> None:
    """Delete the compiled modules of the group (a failed or skipped build)."""
    for name in (*COMPILED_MODULES, GROUP + "__mypyc"):
        path = _extension_file(package_dir, name)
        if path is not None:
            path.unlink()


@dataclass(frozen=True)
class BuildStatus:
    """The decision :func:`install` took: ``pure`` and why (``reason``), or compiled."""

    pure: bool
    reason: str
    #: true when the reason deserves a warning (a stale or broken build)
    stale: bool = False


def decide(package_dir: Path = _PACKAGE_DIR, environ: Any = os.environ) -> BuildStatus:
    """Compiled or pure, from the environment, the manifest and the files on disk."""
    if environ.get(ENV_PURE, "") not in ("", "0"):
        return BuildStatus(True, f"{ENV_PURE}={environ[ENV_PURE]} is set")
    built = [n for n in (*COMPILED_MODULES, GROUP + "__mypyc") if _extension_file(package_dir, n)]
    try:
        manifest = json.loads((package_dir / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        if built:
            return BuildStatus(
                True, f"compiled modules without a build manifest ({MANIFEST})", stale=True
            )
        return BuildStatus(True, "not compiled (no build: e.g. no C compiler at install)")
    if (
        manifest.get("modules") != list(COMPILED_MODULES)
        or manifest.get("group") != GROUP
        or manifest.get("python") != sys.implementation.cache_tag
    ):
        return BuildStatus(True, "the build was made for another module set or Python", True)
    missing = [n for n in (*COMPILED_MODULES, GROUP + "__mypyc") if n not in built]
    if missing:
        return BuildStatus(True, f"{', '.join(missing)} not compiled", stale=True)
    sources: dict[str, str] = manifest.get("sources", {})
    for rel, digest in sorted(sources.items()):
        path = package_dir / rel
        if not path.is_file() or source_hash(path) != digest:
            return BuildStatus(True, f"{path} changed since it was compiled", stale=True)
    return BuildStatus(False, "compiled with mypyc")


class PureFinder(importlib.abc.MetaPathFinder):
    """Imports the ``.py`` source of each compiled module, not the extension beside it."""

    tapete_pure_finder = True

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in COMPILED_MODULES or path is None:
            return None
        for entry in path:
            source = os.path.join(entry, fullname.rpartition(".")[2] + ".py")
            if os.path.isfile(source):
                return importlib.util.spec_from_file_location(fullname, source)
        return None


_status: BuildStatus | None = None


def _use_finder(pure: bool) -> None:
    """One :class:`PureFinder` first in ``sys.meta_path`` if ``pure``, else none."""
    sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "tapete_pure_finder", False)]
    if pure:
        sys.meta_path.insert(0, PureFinder())


def install() -> BuildStatus:
    """Decide which build runs in this process and set up the imports for it.

    Called by ``tapete/__init__.py`` before any compiled module is imported. Warns (once per
    process) when a compiled build is stale.
    """
    global _status
    status = decide()
    _use_finder(status.pure)
    if status.stale and (_status is None or not _status.stale):
        warnings.warn(
            f"tapete: {status.reason}; running the pure Python engine (about half the speed) "
            f"for {', '.join(COMPILED_MODULES)}: {_SETUP_HINT}",
            RuntimeWarning,
            stacklevel=2,
        )
    _status = status
    return status


def build_status() -> BuildStatus:
    """The decision taken when ``tapete`` was imported."""
    return _status if _status is not None else install()


def compiled_modules() -> tuple[str, ...]:
    """The engine modules that run compiled in this process (empty: pure Python)."""
    out = []
    for name in COMPILED_MODULES:
        module = importlib.import_module(name)
        if not (module.__file__ or "").endswith(".py"):
            out.append(name)
    return tuple(out)


def slot_names(cls: type) -> tuple[str, ...]:
    """The instance attributes of a class with ``__slots__``, compiled or not (a mypyc native
    class lists them in ``__mypyc_attrs__`` and has no ``__slots__``)."""
    names: tuple[str, ...] = getattr(cls, "__slots__", ()) or getattr(cls, "__mypyc_attrs__", ())
    return names


@contextmanager
def _environ(name: str, value: str | None) -> Iterator[None]:
    saved = os.environ.get(name)
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = saved


def import_copy(name: str, prefix: str, *, pure: bool = False, src: str | None = None) -> Any:
    """Import a second copy of the tapete module ``name`` (and the tapete modules it imports)
    for side-by-side benchmarks; the copies are kept as ``prefix + name`` in ``sys.modules``.

    ``pure``: the pure Python sources of this tree; ``src``: the tree whose ``tapete`` package
    is in that directory (e.g. an older commit's ``src``). The modules imported before stay
    as they were.
    """
    saved = {k: v for k, v in sys.modules.items() if k == "tapete" or k.startswith("tapete.")}
    for k in saved:
        del sys.modules[k]
    if src is not None:
        sys.path.insert(0, src)
    try:
        with _environ(ENV_PURE, "1" if pure else None):
            module = importlib.import_module(name)
    finally:
        if src is not None:
            sys.path.remove(src)
        for k in [k for k in sys.modules if k == "tapete" or k.startswith("tapete.")]:
            sys.modules[prefix + k] = sys.modules.pop(k)
        sys.modules.update(saved)
        # the copy's tapete/__init__ set the import hook for itself: back to this process's
        _use_finder(build_status().pure)
    return module
