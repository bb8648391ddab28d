"""Files a deployment file names beside it — a ``docker run --env-file``, a compose service's ``env_file``, the
compose project's ``.env``: found from the scanned file's directory (an absolute name as written), read when
small enough to be a settings file.
"""

from __future__ import annotations

import os
from typing import Optional

__all__ = ["MAX_BESIDE_BYTES", "not_beside", "read_beside"]

#: a file named beside a deployment larger than this is not read (not a settings file)
MAX_BESIDE_BYTES = 1 << 20


def read_beside(scanned: str, name: str) -> Optional[str]:
    """The text of the file ``name`` names beside the scanned file ``scanned``; None when it is not there,
    cannot be read, or is larger than :data:`MAX_BESIDE_BYTES`."""
    full = name if os.path.isabs(name) else os.path.join(os.path.dirname(os.path.abspath(scanned)), name)
    try:
        if os.path.getsize(full) > MAX_BESIDE_BYTES:
            return None
        with open(full, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def not_beside(option: str, name: str) -> str:
    """The note on a launch whose deployment names a settings file (``option name``) that is not beside it."""
    return (f"{option} {name}: not found beside this file, its variables are not read (a VLLM_* one would change "
            "what vLLM does)")
