"""The server command vLLM's own container images start: their ``ENTRYPOINT``.

A ``docker run vllm/vllm-openai:TAG ARGS`` (a compose service's or Kubernetes container's
``command`` / ``args`` without an entrypoint of their own, a Dockerfile ``FROM`` the image with
only a ``CMD``) runs ARGS after the image's entrypoint.  That entrypoint is read from the
``vllm-openai`` target of ``docker/Dockerfile`` in each release's source distribution (the CPU,
XPU, ppc64le and s390x Dockerfiles agree): ``python3 -m vllm.entrypoints.openai.api_server`` up
to 0.11.0, ``vllm serve`` from 0.11.1.  It matters: the same ``--model X`` is the api_server's
model option on a v0.11.0 image and a ValueError of ``vllm serve`` on 0.10.2's command line.

The scanners write such a launch with ``vllm serve`` as its launcher and mark it
(:attr:`kvguard.scan.result.Launch.image_entrypoint`); the release it is checked against then
decides the launcher (:func:`with_image_entrypoint`).
"""

from __future__ import annotations

import re

from ..versions import Release

__all__ = ["CONTAINER_CLIS", "IMAGE_SERVE_SINCE", "image_entrypoint", "with_image_entrypoint"]

#: the container CLIs whose ``run`` starts an image
CONTAINER_CLIS = frozenset({"docker", "podman", "nerdctl"})

#: the first release whose images start ``vllm serve`` (earlier ones, the api_server module)
IMAGE_SERVE_SINCE = "0.11.1"

_SERVE = ("vllm", "serve")
_API_SERVER = ("python3", "-m", "vllm.entrypoints.openai.api_server")

_ENV_WORD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def image_entrypoint(release: Release) -> list[str]:
    """The command ``release``'s ``vllm/vllm-openai`` image starts."""
    return list(_SERVE if release.within(IMAGE_SERVE_SINCE) else _API_SERVER)


def with_image_entrypoint(tokens: list[str], release: Release) -> list[str]:
    """``tokens`` (``NAME=value`` words, then ``vllm serve`` standing for the image's entrypoint,
    then its arguments) with ``release``'s entrypoint in place of ``vllm serve``."""
    words = list(tokens)
    start = 0
    while start < len(words) and _ENV_WORD.match(words[start]):
        start += 1
    if tuple(words[start:start + 2]) != _SERVE:
        raise ValueError(f"not an image launch written with `vllm serve`: {words!r}")
    return words[:start] + image_entrypoint(release) + words[start + 2:]
