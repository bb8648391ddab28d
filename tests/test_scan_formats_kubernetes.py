"""Kubernetes containers read as the kubelet starts them (kvguard.scan.containers, kubernetes).

Expected launches are written by hand from the Kubernetes documentation ("Define a Command and Arguments for a
Container": "If you supply only args for a Container, the default Entrypoint defined in the Docker image is run
with the args that you supplied"; ``$(VAR_NAME)`` is expanded from the container's environment, ``$$(VAR_NAME)``
escapes it) and the ``vllm/vllm-openai`` image's ``ENTRYPOINT ["vllm", "serve"]``; bash(1) for ``bash -c string [name [arg …]]``
("the first argument after the string is assigned to $0 and any remaining arguments are assigned to the positional
parameters")."""

from __future__ import annotations

import pytest

from kvguard.scan import find_launches

CASES = [
    # args only: the image's `vllm serve` runs and is given `sh -c …` as arguments, no shell
    ('args: ["sh", "-c", "vllm serve Qwen/Qwen3-8B -tp 2"]',
     ["vllm", "serve", "sh", "-c", "vllm serve Qwen/Qwen3-8B -tp 2"], True),
    # a command replaces the entrypoint: the shell runs the script
    ('command: ["sh", "-c"]\n    args: ["vllm serve Qwen/Qwen3-8B -tp 2"]',
     ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"], False),
    # `bash -c SCRIPT NAME ARGS…`: the args are the script's "$@"
    ('command: ["/bin/bash", "-c", "vllm serve \\"$@\\"", "--"]\n    args: ["Qwen/Qwen3-8B", "-tp", "2"]',
     ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"], False),
    # $(TP) from the container's env, in args given to the image's entrypoint
    ('env:\n    - name: TP\n      value: "2"\n    args: ["Qwen/Qwen3-8B", "-tp", "$(TP)"]',
     ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"], True),
]


@pytest.mark.parametrize(("container", "tokens", "image_entrypoint"), CASES)
def test_container_as_the_kubelet_starts_it(tmp_path, container, tokens, image_entrypoint):
    manifest = tmp_path / "pod.yaml"
    manifest.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: vllm\nspec:\n  containers:\n"
                        "  - name: vllm\n    image: vllm/vllm-openai:v0.20.0\n    " + container + "\n", encoding="utf-8")
    launches, skipped, _ = find_launches([str(manifest)])
    assert skipped == [] and len(launches) == 1
    assert (launches[0].tokens, launches[0].image_entrypoint, launches[0].unresolved) == (tokens, image_entrypoint, ())


_SHELL_OPTIONS_POD = """apiVersion: v1
kind: Pod
metadata: {name: vllm}
spec:
  containers:
    - name: vllm
      image: vllm/vllm-openai:v0.11.1
      command: ["/bin/bash", "%s"]
      args:
        - |
          false
          vllm serve Qwen/Qwen3-8B -tp 2
"""


@pytest.mark.parametrize("option, runs", [
    ("-c", [["serve", "Qwen/Qwen3-8B", "-tp", "2"]]),
    ("-lc", [["serve", "Qwen/Qwen3-8B", "-tp", "2"]]),
    ("-ec", []),            # bash -e: `false` ends the script before the launch
    ("-euxc", []),
])
def test_a_container_shell_s_options_are_set_from_its_option_word(tmp_path, option, runs):
    path = tmp_path / "pod.yaml"
    path.write_text(_SHELL_OPTIONS_POD % option)
    assert [launch.tokens[1:] for launch in find_launches([str(path)])[0]] == runs
