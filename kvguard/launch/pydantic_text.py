"""The text of a pydantic ``ValidationError`` as ``str()`` / ``repr()`` prints it, written without importing pydantic.

vLLM's ``parse_dataclass`` (``vllm/engine/arg_utils.py``, 0.10.2-0.33.0) turns a config option's ValidationError into
argparse's error with ``repr(e)``: a count line titled with the config class, then per error its location, its
message and ``[type=…, input_value=…, input_type=…]``, and a link to pydantic's documentation of the error type.
The link names the installed pydantic's major.minor version (pydantic_core asks ``pydantic.version``), so the text
is the host's: the version is the host fact ``pydantic`` (:class:`kvguard.launch.layout.Host`).  The releases
require pydantic>=2.11.7 (0.10.2, 0.11.0) or >=2.12.0 (0.11.1-0.33.0) with no upper bound; the official image
installs the newest at its build, and a fresh install resolves 2.14 today (the oracles: pydantic 2.14.4,
pydantic_core 2.50.5).  pydantic 2.11.7, 2.12.5 and 2.14.4 word these errors alike (3000 random inputs each), as this
module reproduces them, the link aside: ``input_value`` is Python's ``repr`` of the value
pydantic read from the JSON, cut to its first 25 and last 24 UTF-8 bytes around ``...`` when longer than 50 bytes
(a cut inside a character moves to the character's edge, keeping fewer bytes); ``input_type`` the value's class.

The environment variables ``PYDANTIC_ERRORS_INCLUDE_URL`` / ``PYDANTIC_ERRORS_OMIT_URL`` drop the link: a launch
that sets either is not rendered (:data:`URL_VARIABLES`).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterable

__all__ = ["DEFAULT_PYDANTIC", "URL_VARIABLES", "input_value_text", "pydantic_version", "validation_error_text"]

#: the pydantic (major.minor) a fresh install of any release resolves today, as the standard host assumes it
DEFAULT_PYDANTIC = "2.14"
#: the variables with which pydantic_core prints no documentation link
URL_VARIABLES = ("PYDANTIC_ERRORS_INCLUDE_URL", "PYDANTIC_ERRORS_OMIT_URL")
#: pydantic's message per error type kvguard renders
_MESSAGES = {"unexpected_keyword_argument": "Unexpected keyword argument"}
_LONGEST = 50
_HEAD = 25
_TAIL = 24


def pydantic_version(text: str) -> str:
    """The major.minor a version string names (``2.12`` or ``2.12.5``: ``2.12``); ValueError for anything but a
    pydantic 2 version."""
    parts = text.strip().split(".")
    if len(parts) not in (2, 3) or not all(part.isdigit() for part in parts[:2]) or parts[0] != "2":
        raise ValueError(text)
    return f"{int(parts[0])}.{int(parts[1])}"


def input_value_text(value: Any) -> str:
    """``input_value=`` as pydantic prints it: the value's repr, its middle cut out past 50 bytes."""
    text = repr(value)
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= _LONGEST:
        return text
    head = data[:_HEAD]
    tail = data[len(data) - _TAIL:]
    # a cut through a character drops that character
    return head.decode("utf-8", "ignore") + "..." + tail.decode("utf-8", "ignore")


def _type_name(value: Any) -> str:
    return type(value).__name__


def validation_error_text(title: str, errors: Iterable[tuple[tuple[str, ...], str, Any]], version: str) -> str:
    """``repr()`` of the ValidationError titled ``title`` holding ``errors`` ((location, error type, input) each, in
    pydantic's order) as pydantic ``version`` (major.minor) prints it."""
    errors = list(errors)
    lines = [f"{len(errors)} validation error{'s' if len(errors) != 1 else ''} for {title}"]
    for loc, kind, value in errors:
        lines += [".".join(loc),
                  f"  {_MESSAGES[kind]} [type={kind}, input_value={input_value_text(value)}, "
                  f"input_type={_type_name(value)}]",
                  f"    For further information visit https://errors.pydantic.dev/{version}/v/{kind}"]
    return "\n".join(lines)
