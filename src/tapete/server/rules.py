"""Rules pages: static HTML per profile and language, or one template shared by the
profiles of a family, with the profile's numbers filled in from its engine ``Profile`` (so
that a number such as the target or the barrel threshold lives in one place).

Template syntax (kept tiny on purpose): ``{{name}}`` is a field of the profile (``target``,
``barrel_from``, ``defender_cap``, ``step``, ``low_points_below``) or ``profile`` (its name);
``{{current:NAME}}`` becomes `` aria-current="page"`` on the page of profile NAME and nothing
elsewhere; ``<!--short-->...<!--/short-->`` is kept only for a family's short game (a lower
target than the family's first profile) and removed otherwise.
"""

from __future__ import annotations

import re
from pathlib import Path

from tapete.mil.profiles import Profile, get_profile

__all__ = ["TEMPLATES", "render_rules", "rules_page"]

#: profile -> the template its page is made from (``rules/{template}.{lang}.template.html``)
TEMPLATES: dict[str, str] = {"casa": "casa", "casa-500": "casa"}

_FIELDS = ("target", "barrel_from", "defender_cap", "step", "low_points_below")
_FIELD = re.compile(r"\{\{(\w+)\}\}")
_CURRENT = re.compile(r"\{\{current:([\w-]+)\}\}")
_SHORT = re.compile(r"<!--short-->(.*?)<!--/short-->", re.S)


def render_rules(template: str, profile: Profile, family: Profile) -> str:
    """The page of ``profile`` from ``template`` (``family``: the family's full game)."""
    short = profile.target < family.target
    text = _SHORT.sub(lambda m: m.group(1) if short else "", template)
    current = ' aria-current="page"'
    text = _CURRENT.sub(lambda m: current if m.group(1) == profile.name else "", text)

    def field(m: re.Match[str]) -> str:
        name = m.group(1)
        if name == "profile":
            return profile.name
        if name not in _FIELDS:
            raise ValueError(f"unknown field {{{{{name}}}}} in a rules template")
        return str(getattr(profile, name))

    return _FIELD.sub(field, text)


def rules_page(rules_dir: Path, profile: str, lang: str) -> str | None:
    """The HTML of a rules page, or None when it is not written: the page's own file
    (``{profile}.{lang}.html``), else its family's template filled in."""
    path = rules_dir / f"{profile}.{lang}.html"
    if path.is_file():
        return path.read_text(encoding="utf-8")
    name = TEMPLATES.get(profile)
    if name is None:
        return None
    template = rules_dir / f"{name}.{lang}.template.html"
    if not template.is_file():
        return None
    return render_rules(
        template.read_text(encoding="utf-8"), get_profile(profile), get_profile(name)
    )
