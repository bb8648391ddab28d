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


PYTHON_312 = ("the host runs vLLM on Python 3.12 (vLLM's official image), which words this error 'integer modulo by "
              "zero' ('integer division or modulo by zero' on 3.10)")


def test_the_host_python_is_listed_where_it_worded_the_message(serve_json):
    report = serve_json("0.20.0", "-tp", "2", "-dcp", "0")[1]
    assert report["message"] == "integer modulo by zero"
    assert PYTHON_312 in report["assumptions"]


def test_the_host_python_is_not_listed_where_no_message_depends_on_it(serve_json):
    assert not any("Python" in a for a in serve_json("0.20.0", "-tp", "3")[1].get("assumptions", ()))
    assert not any("Python" in a for a in serve_json("0.20.0", "-tp", "2")[1].get("assumptions", ()))
