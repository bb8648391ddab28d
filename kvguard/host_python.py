"""The text of an arithmetic error as the Python on vLLM's host words it.

Where vLLM's own statement divides by zero (``tp % dcp`` with ``-dcp 0`` in ParallelConfig up to 0.22.x, a config
class dividing by a zero size), kvguard evaluates the same operation and reports the exception its interpreter
raises.  Two wordings depend on the Python version, and kvguard's interpreter (3.10+) need not be the one vLLM runs
on: an integer modulo says "integer division or modulo by zero" on 3.10 and "integer modulo by zero" from 3.11, a
float modulo says "float modulo by zero" from 3.13 and "float modulo" before.  The host kvguard assumes runs vLLM's
official image, built with Python 3.12 (vLLM's docker/Dockerfile, ``ARG PYTHON_VERSION=3.12``); 3.11 and 3.12 word
both the same, and that is the wording reported whatever Python kvguard itself runs on.
"""

from __future__ import annotations

import sys

__all__ = ["HOST_PYTHON", "host_message", "python_assumption"]

#: the Python of vLLM's official image (docker/Dockerfile)
HOST_PYTHON = (3, 12)

_INTEGER_MODULO = "integer modulo by zero"
_EITHER = "integer division or modulo by zero"
_FLOAT_MODULO = "float modulo"
_FLOAT_MODULO_313 = "float modulo by zero"
#: the opcodes of a modulo in Python 3.10's bytecode (3.11+ say "integer modulo by zero" themselves)
_MODULO_OPCODES = ("BINARY_MODULO", "INPLACE_MODULO")


def host_message(exc: BaseException) -> str:
    """``str(exc)``, with a ZeroDivisionError's wording made the host Python's."""
    message = str(exc)
    if not isinstance(exc, ZeroDivisionError):
        return message
    if message == _FLOAT_MODULO_313:
        return _FLOAT_MODULO
    if message == _EITHER and sys.version_info < (3, 11) and _raised_by_modulo(exc):
        return _INTEGER_MODULO
    return message


#: the messages whose wording is the host Python's (3.10 and 3.13 word them otherwise)
_DEPENDENT = (_INTEGER_MODULO, _FLOAT_MODULO)


def python_assumption(exc_type: "str | None", message: "str | None") -> "str | None":
    """The assumption a verdict rests on when its message is worded by the host's Python (None otherwise)."""
    if exc_type != "ZeroDivisionError" or message not in _DEPENDENT:
        return None
    other = "'integer division or modulo by zero' on 3.10" if message == _INTEGER_MODULO else \
        "'float modulo by zero' on 3.13"
    return (f"the host runs vLLM on Python {HOST_PYTHON[0]}.{HOST_PYTHON[1]} (vLLM's official image), which words "
            f"this error {message!r} ({other})")


def _raised_by_modulo(exc: BaseException) -> bool:
    """Whether the instruction that raised ``exc`` is a modulo (Python 3.10: one message for ``%``, ``//`` and
    ``divmod``; the traceback's last frame and instruction tell them apart)."""
    import dis

    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code.co_code
    return 0 <= tb.tb_lasti < len(code) and dis.opname[code[tb.tb_lasti]] in _MODULO_OPCODES
