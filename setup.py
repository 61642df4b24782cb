"""Build hook for the optional C core of the Mil solver (everything else is in pyproject.toml).

``optional=True``: if the extension cannot be compiled, the install goes on and
``tapete.solver`` falls back to its pure Python search (same results, slower).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "tapete.solver._core",
            sources=["src/tapete/solver/_core.c"],
            extra_compile_args=["-O3", "-std=c99"],
            optional=True,
        )
    ]
)
