"""The wording of a division by zero kvguard's own interpreter raises, as vLLM's host Python (3.12) words it
(kvguard.host_python).  The expected texts are CPython 3.11 / 3.12's, measured with each interpreter: an integer
modulo says "integer modulo by zero" (3.10: "integer division or modulo by zero"), a floor division and divmod()
"integer division or modulo by zero", a float modulo "float modulo" (3.13: "float modulo by zero")."""

from __future__ import annotations

import pytest

from kvguard.host_python import host_message


def _raised(operation) -> BaseException:
    try:
        operation()
    except ZeroDivisionError as exc:
        return exc
    raise AssertionError("no ZeroDivisionError")


ZERO = 0


@pytest.mark.parametrize("operation,expected", [
    (lambda: 8 % ZERO, "integer modulo by zero"),
    (lambda: 8 // ZERO, "integer division or modulo by zero"),
    (lambda: divmod(8, ZERO), "integer division or modulo by zero"),
    (lambda: 8.0 % ZERO, "float modulo"),
    (lambda: 8 / ZERO, "division by zero"),
])
def test_a_division_by_zero_is_worded_as_the_host_python_words_it(operation, expected):
    assert host_message(_raised(operation)) == expected


def test_other_exceptions_keep_their_text():
    assert host_message(ValueError("integer division or modulo by zero")) == "integer division or modulo by zero"


def test_a_raw_zero_dcp_reports_the_host_wording(serve_json):
    status, report = serve_json("0.20.0", "-tp", "8", "-dcp", "0")
    assert status == 1
    assert (report["exc_type"], report["message"], report["wrapped_by"]) == (
        "ZeroDivisionError", "integer modulo by zero", None)
