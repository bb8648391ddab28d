"""The optional real backend: transformers itself, for classes the tables do not model.

With ``pip install 'kvguard[transformers]'`` and the very transformers version a release runs with, a
transformers configuration class kvguard's tables cannot follow is built by transformers instead (only that
class and its sub-configs: vLLM's loading order stays kvguard's).  It is used only then, never imported
otherwise (``import kvguard`` stays light), and the verdict says so.  vLLM's own config classes are never
built this way.
"""

from __future__ import annotations

from importlib import metadata
from typing import Any, Optional

__all__ = ["from_dict", "installed_line"]


def installed_line() -> Optional[str]:
    """The installed transformers version, without importing it (None: not installed)."""
    try:
        return metadata.version("transformers")
    except metadata.PackageNotFoundError:
        return None


def from_dict(line: str, model_type: Any, config_dict: dict, kwargs: dict) -> Optional[Any]:
    """``CONFIG_MAPPING[model_type].from_dict(config_dict, **kwargs)`` of the installed transformers when it is
    exactly ``line``; None when it is not installed or another version."""
    if installed_line() != line or not isinstance(model_type, str):
        return None
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING  # the extra, on purpose

    if model_type not in CONFIG_MAPPING:
        return None
    return CONFIG_MAPPING[model_type].from_dict(config_dict, **kwargs)
