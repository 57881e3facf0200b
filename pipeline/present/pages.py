"""Every page war makes is rendered one way: a Jinja2 template from templates/, autoescaped, with
the one style sheet (static/style.css) inlined, so a page is one self-contained file that needs
nothing from the network. The replay page also inlines its script (static/replay_game.js and replay_view.js).

templates/base.html is the page every template extends: the style sheet, and the layout of the
report and the server's pages (a title bar, a bar of links, the content). The style sheet's
rules for that layout apply under `body.report`, those of the replay page under `body.replay`.
Templates and static files are package files, read with importlib.resources.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

import jinja2
from markupsafe import Markup, escape

from .numbers import column_formats, exact, exact_flags, shown

STYLE = "style.css"


def static(name: str) -> str:
    """The text of a static file (static/NAME)."""
    return files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def inline(text: str, tag: str) -> Markup:
    """`text` to put as it is between <TAG> and </TAG>; refused if it would close the element."""
    if f"</{tag}" in text.lower():
        raise ValueError(f"the text for a <{tag}> element holds </{tag}")
    return Markup(text)


def breakable(name: str) -> Markup:
    """A column name that may wrap after its underscores (`decided_<wbr>games`), so a table of
    many columns fits its card."""
    return Markup(str(escape(name)).replace("_", "_<wbr>"))


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader(__package__, "templates"), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    env.filters.update(shown=shown, exact=exact, breakable=breakable)
    env.globals["style"] = inline(static(STYLE), "style")
    env.globals["column_formats"] = column_formats
    env.globals["exact_flags"] = exact_flags
    return env


def render(template: str, **context) -> str:
    """The page of templates/TEMPLATE with `context`, as HTML text."""
    return environment().get_template(template).render(**context)
