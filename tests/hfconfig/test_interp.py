"""The interpreter's own guarantees: safe, lazy, no heavy imports."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kvguard.hfconfig._interp import Frame, Interp, ModuleNS, Unsupported


def _interp():
    return Interp([{"modules": {}}], transformers_major=5)


@pytest.mark.parametrize("src", [
    "().__class__.__bases__[0].__subclasses__()",
    "(1).__class__.__mro__[-1].__subclasses__()",
    "len.__self__",
    "__import__('os')",
    "eval('1')",
    "open('/etc/passwd')",
    "[].append.__self__.__class__.__init__.__globals__",
    "'{0.__class__}'.format(1)",
])
def test_expressions_cannot_escape(src):
    it = _interp()
    frame = Frame(ModuleNS(it, "m", []))
    with pytest.raises((Unsupported, NameError, AttributeError)):
        it.ev(src, frame)


def test_plain_python_semantics():
    it = _interp()
    frame = Frame(ModuleNS(it, "m", []))
    frame.locals.update(a=4096, b=32, d={"x": 1})
    assert it.ev("a // b", frame) == 128
    assert it.ev("{k: v for k, v in d.items()}", frame) == {"x": 1}
    assert it.ev("f'{a:,}'", frame) == "4,096"
    with pytest.raises(ZeroDivisionError, match="^integer division or modulo by zero$"):
        it.ev("a // 0", frame)
    with pytest.raises(TypeError, match=r"^unsupported operand type\(s\) for //: 'int' and 'str'$"):
        it.ev("a // 'x'", frame)


def test_import_is_light_and_lazy():
    code = ("import sys, time; t = time.perf_counter(); import kvguard.hfconfig; "
            "dt = time.perf_counter() - t; "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('torch', 'transformers', 'vllm', 'numpy')]; "
            "lazy = 'kvguard.hfconfig._interp' not in sys.modules; print(bad, lazy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[] True"
