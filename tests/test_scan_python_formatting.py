"""Python launch lines built with printf-style formatting (``"… %s -tp %d" % (MODEL, TP)``), f-string format
specs and text joined with a call kvguard cannot read (kvguard.scan.python).

Expected lines are written from Python's own rules ("printf-style String Formatting" in the standard library's
documentation): a conversion that raises, or arguments left over or missing, run no command.
"""

from __future__ import annotations

import json
import os

from kvguard.cli import EXIT_REFUSE, run

SCRIPT = os.path.join(os.path.dirname(__file__), "data", "scan", "deploy", "python", "printf.py")


def test_printf_style_and_format_specs_are_read_as_python_formats_them(capsys):
    status = run(["scan", "--format", "json", "--vllm-version", "0.28.0", SCRIPT])
    found = [(f["line"], f["status"], f["command"].split(" serve ", 1)[1])
             for f in json.loads(capsys.readouterr().out)["findings"]]
    assert status == EXIT_REFUSE
    assert found == [
        (9, "refused", "Qwen/Qwen3-8B -tp 3"),
        (10, "accepted", "Qwen/Qwen3-8B -tp 2"),
        (11, "refused", "Qwen/Qwen3-8B -tp 3 --max-model-len 4096"),
        (12, "refused", "Qwen/Qwen3-8B -tp 3 --gpu-memory-utilization 0.90"),
        # joined with a call kvguard does not run: that part unresolved, the launch still found
        (13, "undecidable", "'${model_of_os_environ}' -tp 2"),
        # lines 14 and 15 raise TypeError in Python: nothing is launched
        (16, "refused", "Qwen/Qwen3-8B -tp 3 100%"),
    ]
