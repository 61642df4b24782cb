"""Tapete: Mil (Thousand) and Mariage (66), an exact engine, records, bots and a browser table."""

from tapete._compiled import compiled_modules, install

__all__ = ["__version__", "compiled_modules"]

__version__ = "0.1.0"

# Before any engine module is imported: the mypyc build, or the pure sources when that build
# is missing, stale or TAPETE_PURE is set (see tapete/_compiled.py).
install()
