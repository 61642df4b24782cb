"""Build hook for the compiled parts of Tapete (everything else is in pyproject.toml).

Two optional builds; if either cannot be compiled (no C compiler, no mypy), the install goes
on and the pure Python code runs (same results, slower):

* ``tapete.solver._core``: the C core of the Mil solver (``tapete.solver`` falls back to its
  Python search);
* the engine modules listed in ``tapete._compiled.COMPILED_MODULES``, compiled with mypyc into
  one group, with the build manifest ``tapete/_compiled.json`` (the hashes of the sources it
  was compiled from; ``tapete`` imports the pure sources when they no longer match). When the
  manifest of an editable install already matches the sources, the mypyc step is skipped.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import time
from pathlib import Path
from types import ModuleType

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
PACKAGE = ROOT / "src" / "tapete"


def _load_compiled_helper() -> ModuleType:
    """``src/tapete/_compiled.py`` on its own (stdlib only; tapete's dependencies may be
    missing at build time)."""
    spec = importlib.util.spec_from_file_location("_tapete_compiled", PACKAGE / "_compiled.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _log(message: str) -> None:
    print(f"tapete build: {message}", file=sys.stderr, flush=True)


class GroupBuildExt(build_ext):
    """Builds the mypyc extensions (optional ones: a compiler error is reported, not fatal)."""

    def output_path(self, ext: Extension) -> str:
        if self.inplace:  # an editable install: the file copied next to the sources
            fullname = self.get_ext_fullname(ext.name)
            package_dir = self.get_finalized_command("build_py").get_package_dir(
                fullname.rpartition(".")[0]
            )
            return os.path.join(package_dir, os.path.basename(self.get_ext_filename(fullname)))
        return str(self.get_ext_fullpath(ext.name))


class BuildExt(build_ext):
    """build_ext plus the mypyc group: all of it or none of it, and its manifest."""

    def run(self) -> None:
        super().run()  # the C core of the solver
        # mypyc runs here, not when the command is configured: egg_info and build_py configure
        # build_ext too, and each would type-check the engine again
        helper = _load_compiled_helper()
        hashes = helper.hash_sources(PACKAGE)
        if self.inplace and not self.force and not helper.decide(PACKAGE, {}).pure:
            _log("the compiled engine matches its sources: mypyc skipped")
            return
        # a wheel's build directory, or the sources of an editable install
        target = PACKAGE if self.inplace else Path(self.build_lib) / "tapete"
        (target / helper.MANIFEST).unlink(missing_ok=True)
        exts = self._mypycify(helper)
        if not exts:
            if self.inplace:  # no new build, and no stale one beside the sources either
                helper.remove_extensions(PACKAGE)
            return
        start = time.perf_counter()
        group = self._group_command(exts)
        group.run()
        built = [Path(group.output_path(ext)) for ext in exts]
        if all(path.is_file() for path in built):
            helper.write_manifest(target, hashes)
            _log(f"compiled the engine in {time.perf_counter() - start:.0f} s")
        else:
            for path in built:  # never leave part of a group: the pure sources run
                path.unlink(missing_ok=True)
            _log("the mypyc build failed: the pure Python engine will run")

    def _group_command(self, exts: list[Extension]) -> GroupBuildExt:
        """A build_ext of its own for the mypyc extensions, configured like this one."""
        saved = self.distribution.ext_modules
        self.distribution.ext_modules = exts
        try:
            group = GroupBuildExt(self.distribution)
            group.inplace = self.inplace
            group.force = self.force
            if hasattr(self, "editable_mode"):
                group.editable_mode = self.editable_mode
            group.ensure_finalized()
        finally:
            self.distribution.ext_modules = saved
        return group

    def _mypycify(self, helper: ModuleType) -> list[Extension]:
        try:
            from mypyc.build import mypycify
        except ImportError as exc:
            _log(f"mypyc is not available ({exc}): the pure Python engine will run")
            return []
        sources = [f"src/tapete/{helper.relative_source(name)}" for name in helper.COMPILED_MODULES]
        start = time.perf_counter()
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            exts = mypycify(
                sources, group_name=helper.GROUP, target_dir=str(Path("build") / "mypyc")
            )
        except (Exception, SystemExit) as exc:  # mypy reports errors by SystemExit
            _log(f"mypyc failed ({exc!r}): the pure Python engine will run")
            shutil.rmtree(ROOT / "build" / "mypyc", ignore_errors=True)
            return []
        finally:
            os.chdir(cwd)
        _log(f"mypyc generated C for {len(sources)} modules in {time.perf_counter() - start:.0f} s")
        for ext in exts:
            ext.optional = True  # a compiler error is reported and the pure engine runs
        return exts


setup(
    ext_modules=[
        Extension(
            "tapete.solver._core",
            sources=["src/tapete/solver/_core.c"],
            extra_compile_args=["-O3", "-std=c99"],
            optional=True,
        )
    ],
    cmdclass={"build_ext": BuildExt},
)
