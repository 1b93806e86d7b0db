"""A linear pass over TOML text that refuses what ``tomllib`` does badly, before it parses.

``tomllib`` (Python's TOML 1.0 parser) is linear on most text, but not on three shapes a
pull request can write into lint's configuration:

- a dotted key of many parts (``a.a.a. ... .b = 1``): each prefix of the key is built and
  looked up again, quadratic in its parts (64,000 parts cost about 67 s of CPU);
- nesting (``[[[[...`` or ``{a={a={...``): one recursion per level, a ``RecursionError``
  near 330 levels;
- a long run of digits (``a = 1111...``): ``int()`` refuses more than 4,300 decimal digits
  with a ``ValueError`` and is quadratic below that.

:func:`check_toml` reads the text once, as ``tomllib`` tokenizes it (strings and comments
are skipped exactly as it skips them, so nothing inside a string counts), and raises
:class:`TomlLimit` at the first key of more than :data:`KEY_PARTS_MAX` parts, the first
bracket deeper than :data:`DEPTH_MAX`, or the first run of more than :data:`DIGITS_MAX`
digits outside a string. Text it passes is parsed by ``tomllib`` in time linear in its
length, and ``tomllib`` raises nothing but ``TOMLDecodeError`` on it
(``fuzz/fuzz_lint_config.py`` checks both). Grammar of what it tells apart::

    token   = span | "." | string | comment | bracket | newline
    span    = (any but ".", quotes, "#", brackets, braces, newline)+
    string  = '"' basic-chars '"' | '\"\"\"' ml-basic '\"\"\"' ['"' ['"']]
            | "'" literal-chars "'" | "'''" ml-literal "'''" ["'" ["'"]]
    comment = "#" (any but newline)*
    key run = (span of blanks and bare-key characters | "." | one-line string)*
              # what a dotted key is made of; anything else ends it

Where ``tomllib`` would reject the text the two may part ways, but only after the point
where ``tomllib`` stops: on every prefix it accepts they tokenize alike.
"""

from __future__ import annotations

import re

__all__ = ["DEPTH_MAX", "DIGITS_MAX", "KEY_PARTS_MAX", "TomlLimit", "check_toml"]

# 32 parts: the deepest table a configuration tool documents has about six
# (tool.hatch.envs.default.scripts); each part costs tomllib work per part of the key.
KEY_PARTS_MAX = 32
# 32 levels of arrays and inline tables: lint's own table needs two; tomllib recurses
# about three frames per level and fails with RecursionError near 330 levels.
DEPTH_MAX = 32
# 128 digits and underscores: TOML's integers are 64-bit (19 digits); Python refuses to
# convert more than 4,300 decimal digits and is quadratic below that.
DIGITS_MAX = 128

_TOKEN = re.compile(
    r"""
    (?P<span>[^.\"'#\[\]{}\n]+)
    | (?P<dot>\.)
    | (?P<mlbasic>\"\"\")
    | (?P<basic>\"(?:[^\"\\\n]+|\\[^\n])*\"?)
    | (?P<mlliteral>''')
    | (?P<literal>'[^'\n]*'?)
    | (?P<comment>\#[^\n]*)
    | (?P<open>[\[{])
    | (?P<close>[\]}])
    """,
    re.VERBOSE,
)
# What a span outside strings holds besides a key's parts and blanks: it ends a key.
_NOT_KEY = re.compile(r"[^ \tA-Za-z0-9_-]")
# Strings end where tomllib ends them: an escape is a backslash and one more character
# (the rest of any valid escape holds no quote or backslash).
_ML_BASIC_BODY = re.compile(r'(?:[^"\\]+|\\[\s\S]|"(?!""))*')
# A run is tried from its first character only (the look-behind), so each is read once.
_DIGITS = re.compile(rf"(?<![0-9_])[0-9_]{{{DIGITS_MAX + 1}}}")
_KEY_RUN = frozenset({"span", "dot", "basic", "literal"})


class TomlLimit(ValueError):
    """Text past one of the limits, at ``position`` (an index into the text)."""

    def __init__(self, position: int, message: str) -> None:
        super().__init__(message)
        self.position = position
        self.message = message


def _end(pattern: re.Pattern[str], text: str, start: int) -> int:
    """Where ``pattern`` (which matches the empty string too) stops matching from ``start``."""
    found = pattern.match(text, start)
    return start if found is None else found.end()


def _string_end(text: str, kind: str, start: int) -> int:
    """Where the multi-line string whose opening delimiter ends at ``start`` ends (past its
    closing delimiter and up to two more quotes, which belong to the string)."""
    if kind == "mlbasic":
        end = _end(_ML_BASIC_BODY, text, start)
        quote = '"'
        if not text.startswith('"""', end):
            return len(text)  # unterminated: tomllib stops here
    else:
        quote = "'"
        found = text.find("'''", start)
        if found < 0:
            return len(text)
        end = found
    end += 3
    for _ in range(2):
        if text.startswith(quote, end):
            end += 1
    return end


def check_toml(text: str) -> None:
    """Raise :class:`TomlLimit` where ``text`` passes a limit (module docstring); else nothing.

    One pass, linear in ``len(text)``: each token is matched once, and each regular
    expression above consumes without backtracking (its alternatives start differently).
    """
    position = 0
    length = len(text)
    depth = 0
    parts = 1  # parts of the key being read
    match = _TOKEN.match
    while position < length:
        token = match(text, position)
        if token is None:  # a newline (the one character no alternative takes): ends a key
            parts = 1
            position += 1
            continue
        kind = token.lastgroup
        end = token.end()
        if kind in ("mlbasic", "mlliteral"):  # one-line strings are whole tokens
            end = _string_end(text, str(kind), end)
        elif kind == "span":
            long = _DIGITS.search(text, position, end)
            if long is not None:
                raise TomlLimit(
                    long.start(), f"a number of more than {DIGITS_MAX} digits (and underscores)"
                )
            if _NOT_KEY.search(text, position, end):
                parts = 1
        elif kind == "dot":
            parts += 1
            if parts > KEY_PARTS_MAX:
                raise TomlLimit(position, f"a dotted key of more than {KEY_PARTS_MAX} parts")
        elif kind == "open":
            depth += 1
            if depth > DEPTH_MAX:
                raise TomlLimit(
                    position, f"arrays and tables nested more than {DEPTH_MAX} levels deep"
                )
        elif kind == "close":
            depth = max(depth - 1, 0)
        if kind not in _KEY_RUN:
            parts = 1
        position = end
