"""PyYAML, optional (``pip install 'kvguard[yaml]'``), and the composed YAML nodes every YAML kind
is read from (with their line numbers).
"""

from __future__ import annotations

from typing import Any

__all__ = ["child", "load_yaml", "scalar_text", "to_python"]


def load_yaml():
    try:
        import yaml  # noqa: PLC0415 - optional dependency
    except ImportError:
        return None
    return yaml


def child(node, *path: Any, key: bool = False):
    """The node at ``path`` below ``node`` (mapping keys, list indexes), or None.  ``key``: when the
    last step is a mapping key, its key node (the line a reader looks at) instead of its value."""
    import yaml
    found = None
    for step in path:
        if isinstance(step, int):
            if not isinstance(node, yaml.SequenceNode) or not 0 <= step < len(node.value):
                return None
            node = found = node.value[step]
            continue
        if not isinstance(node, yaml.MappingNode):
            return None
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == step:
                found, node = k, v
                break
        else:
            return None
    return found if key and path and isinstance(path[-1], str) else node


def scalar_text(node) -> str:
    value = getattr(node, "value", "")
    return value if isinstance(value, str) else ""


def to_python(node) -> Any:
    """A composed node as plain Python (safe constructor)."""
    import yaml
    try:
        return yaml.SafeLoader(" ").construct_document(node)
    except Exception:  # noqa: BLE001 - anything odd: not a recipe
        return None
