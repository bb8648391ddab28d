"""Kubernetes ConfigMaps written in the same file as the containers that read them (a multi-document manifest:
``kubectl apply -f`` creates them together).  The kubelet builds a container's environment from its ``envFrom``
sources in order (a ConfigMap's ``data`` keys, each behind the source's ``prefix``), then its ``env`` entries,
which win; an ``env`` entry's ``valueFrom.configMapKeyRef`` takes one key of a ConfigMap.  A ConfigMap the file
does not hold (or a Secret, whose values kvguard does not read) leaves what it gives unknown.

Mirrors the Kubernetes API's ConfigMap / EnvFromSource / ConfigMapKeySelector (core/v1) and the kubelet's
environment assembly (pkg/kubelet/kubelet_pods.go, makeEnvironmentVariables); no vLLM code is involved."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["ConfigMaps", "config_maps_of"]


class ConfigMaps:
    """The ConfigMaps of one file: each one's namespace (None: not written, the one it is applied in), name and
    ``data`` (string values only)."""

    def __init__(self, maps: "list[tuple[Optional[str], str, dict[str, str]]]"):
        self.maps = maps

    def data(self, name: "Any", namespace: "Optional[str]") -> "Optional[dict[str, str]]":
        """The ``data`` of the ConfigMap named ``name`` that a workload of ``namespace`` reads (None: not in the
        file, or two of that name that could both be it)."""
        if not isinstance(name, str):
            return None
        found = [data for ns, n, data in self.maps
                 if n == name and (ns is None or namespace is None or ns == namespace)]
        return found[0] if len(found) == 1 else None


def config_maps_of(documents: "list[Any]") -> ConfigMaps:
    """The ConfigMaps among a file's documents (plain Python values); one with a ``data`` value that is not a
    string (which the API refuses) is left out."""
    maps: list[tuple[Optional[str], str, dict[str, str]]] = []
    for doc in documents:
        if not (isinstance(doc, dict) and doc.get("kind") == "ConfigMap" and doc.get("apiVersion") == "v1"):
            continue
        meta = doc.get("metadata")
        if not isinstance(meta, dict) or not isinstance(meta.get("name"), str):
            continue
        name = meta["name"]
        namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
        data = doc.get("data", {})
        if data is None:
            data = {}
        if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
            continue        # the API refuses it (`TP: 2` is no string): nothing it would give is known
        maps.append((namespace, name, dict(data)))
    return ConfigMaps(maps)
