"""Kustomize (``kustomization.yaml``): a manifest a kustomization beside it lists under ``resources`` and then
changes (``patches``, ``patchesStrategicMerge``, ``patchesJson6902``, ``images``, ``replacements``) starts, under
``kubectl apply -k``, what kustomize renders, not what the file says.  kvguard does not render kustomizations: the
manifest's launches are read as written, with a note naming what the kustomization changes (kubernetes-sigs/
kustomize, "kustomization" reference: ``resources``, ``patches``, ``images``)."""

from __future__ import annotations

import os
import posixpath

from .beside import read_beside

__all__ = ["KUSTOMIZATION_NAMES", "kustomized_note"]

#: the names kustomize looks for in a directory
KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")

#: the fields of a kustomization that change the resources it lists
_CHANGES = ("patches", "patchesStrategicMerge", "patchesJson6902", "images", "replacements")


def kustomized_note(path: str) -> "str | None":
    """The note for the launches of the manifest ``path`` when a kustomization beside it lists it and changes the
    resources it lists; None otherwise (no such kustomization, or one that only gathers files)."""
    from .yamlnodes import load_yaml

    yaml = load_yaml()
    if yaml is None:
        return None
    name = os.path.basename(path)
    for candidate in KUSTOMIZATION_NAMES:
        text = read_beside(path, candidate)
        if text is None:
            continue
        try:
            plain = yaml.safe_load(text)
        except (yaml.YAMLError, RecursionError):
            return None
        if not isinstance(plain, dict):
            return None
        listed = [posixpath.normpath(r) for r in plain.get("resources") or [] if isinstance(r, str)] \
            if isinstance(plain.get("resources"), list) else []
        changes = [field for field in _CHANGES if plain.get(field)]
        if name not in listed or not changes:
            return None
        return (f"{candidate} beside this file lists it and changes it ({', '.join(changes)}): `kubectl apply -k` "
                "starts what kustomize renders, which kvguard does not render (this is the file as written)")
    return None
