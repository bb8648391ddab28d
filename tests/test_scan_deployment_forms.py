"""Deployment files in forms real repositories use, read as the launch they make (kvguard.scan.containers,
kvguard.scan.configmaps).

Each expected launch is written by hand: the words the process is started with and the ``VLLM_*`` environment it
sees.  Sources: the Compose Specification (a list ``command``'s items are words as they are; ``entrypoint`` /
``command`` given to a shell with ``-c`` run as its script); bash(1) ("A non-quoted backslash … followed by a
newline … is treated as a line continuation"); the Kubernetes documentation ("Configure a Pod to Use a
ConfigMap": ``envFrom`` "define[s] all of the ConfigMap's data as container environment variables", each key
behind the source's ``prefix``; ``valueFrom.configMapKeyRef`` one key, ``optional: true`` leaves the variable
unset when the key is missing; "Define a Command and Arguments": ``$(VAR_NAME)`` in ``command`` / ``args`` is
expanded from the container's environment)."""

from __future__ import annotations

import pytest

from kvguard.scan import find_launches


def _scan(path):
    launches, skipped, _ = find_launches([str(path)])
    assert skipped == []
    return launches


# --------------------------------------------------------------------------- a shell script in a list item

COMPOSE_BLOCK_SCRIPT = """\
services:
  vllm:
    image: vllm/vllm-openai:v0.20.0
    entrypoint: {entrypoint}
    command:
      - |
        pip install foo && \\
        exec vllm serve Qwen/Qwen3-8B \\
          --tensor-parallel-size ${{TP:-2}} \\
          --max-model-len 8192
"""


@pytest.mark.parametrize("entrypoint", ["/bin/sh -c", '["/bin/sh", "-c"]', '["bash", "-ec"]'])
def test_compose_block_script_joins_its_continued_lines(tmp_path, entrypoint):
    # the shell reads `\`-newline as a continuation: one command line, not words holding a newline
    (tmp_path / "compose.yaml").write_text(COMPOSE_BLOCK_SCRIPT.format(entrypoint=entrypoint), encoding="utf-8")
    (tmp_path / ".env").write_text("TP=4\n", encoding="utf-8")
    [launch] = _scan(tmp_path / "compose.yaml")
    assert launch.tokens == ["exec", "vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "4",
                             "--max-model-len", "8192"]
    assert (launch.line, launch.unresolved) == (7, ())


def test_compose_block_script_reports_the_line_of_its_launch(tmp_path):
    text = ("services:\n  vllm:\n    image: vllm/vllm-openai:v0.20.0\n    entrypoint: [\"bash\", \"-c\"]\n"
            "    command:\n      - |\n        nvidia-smi\n        vllm serve Qwen/Qwen3-8B \\\n"
            "          -tp 2\n")
    (tmp_path / "compose.yaml").write_text(text, encoding="utf-8")
    [launch] = _scan(tmp_path / "compose.yaml")
    assert (launch.tokens, launch.line) == (["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"], 8)


# --------------------------------------------------------------------------- ConfigMaps of the same file

CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: vllm-config
data:
  MODEL_NAME: Qwen/Qwen3-8B
  TP: "2"
  VLLM_USE_DEEP_GEMM: "1"
  HOLDS: $(TP)
"""

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: vllm
spec:
  containers:
  - name: vllm
    image: vllm/vllm-openai:v0.20.0
{container}
"""


def _manifest(tmp_path, container: str, config_map: str = CONFIG_MAP, config_map_last: bool = False):
    docs = [config_map, POD.format(container=container)]
    if config_map_last:
        docs.reverse()
    path = tmp_path / "deploy.yaml"
    path.write_text("---\n".join(docs), encoding="utf-8")
    return _scan(path)


ENV_FROM = "    envFrom:\n    - configMapRef:\n        name: vllm-config\n"
SCRIPT = '    command: ["/bin/sh", "-c"]\n    args:\n    - |\n      exec vllm serve $(MODEL_NAME) \\\n        -tp $TP\n'


@pytest.mark.parametrize("config_map_last", [False, True])
def test_env_from_a_config_map_of_the_file(tmp_path, config_map_last):
    # the kubelet expands $(MODEL_NAME) from the environment envFrom made; the shell reads $TP from it
    [launch] = _manifest(tmp_path, SCRIPT + ENV_FROM, config_map_last=config_map_last)
    assert launch.tokens == ["VLLM_USE_DEEP_GEMM=1", "exec", "vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"]
    assert launch.unresolved == ()
    assert not any("envFrom" in note for note in launch.notes)


def test_env_from_prefix(tmp_path):
    container = ('    args: ["$(CFG_MODEL_NAME)", "-tp", "$(CFG_TP)"]\n    envFrom:\n    - prefix: CFG_\n'
                 "      configMapRef:\n        name: vllm-config\n")
    [launch] = _manifest(tmp_path, container)
    assert launch.tokens == ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"]


def test_config_map_values_are_not_expanded_by_the_kubelet(tmp_path):
    # `HOLDS: $(TP)` reaches the container as written; `env` values are expanded, ConfigMap ones are not
    container = '    args: ["Qwen/Qwen3-8B", "--served-model-name", "$(HOLDS)"]\n' + ENV_FROM
    [launch] = _manifest(tmp_path, container)
    assert launch.tokens == ["VLLM_USE_DEEP_GEMM=1", "vllm", "serve", "Qwen/Qwen3-8B", "--served-model-name",
                             "$(TP)"]


def test_env_entry_wins_over_env_from(tmp_path):
    container = '    args: ["$(MODEL_NAME)", "-tp", "$(TP)"]\n' + ENV_FROM + \
        '    env:\n    - name: TP\n      value: "4"\n'
    [launch] = _manifest(tmp_path, container)
    assert launch.tokens == ["VLLM_USE_DEEP_GEMM=1", "vllm", "serve", "Qwen/Qwen3-8B", "-tp", "4"]


def test_config_map_key_ref(tmp_path):
    container = ('    args: ["$(MODEL)", "-tp", "2"]\n    env:\n    - name: MODEL\n      valueFrom:\n'
                 "        configMapKeyRef:\n          name: vllm-config\n          key: MODEL_NAME\n"
                 "    - name: VLLM_ATTENTION_BACKEND\n      valueFrom:\n        configMapKeyRef:\n"
                 "          name: vllm-config\n          key: ABSENT\n          optional: true\n")
    [launch] = _manifest(tmp_path, container)
    # the optional key the ConfigMap lacks leaves VLLM_ATTENTION_BACKEND unset
    assert (launch.tokens, launch.unresolved) == (["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"], ())


def test_a_missing_required_key_stays_unknown(tmp_path):
    container = ('    args: ["Qwen/Qwen3-8B", "-tp", "2"]\n    env:\n    - name: VLLM_ATTENTION_BACKEND\n'
                 "      valueFrom:\n        configMapKeyRef:\n          name: vllm-config\n          key: ABSENT\n")
    [launch] = _manifest(tmp_path, container)
    assert launch.tokens == ["VLLM_ATTENTION_BACKEND=$VLLM_ATTENTION_BACKEND", "vllm", "serve", "Qwen/Qwen3-8B",
                             "-tp", "2"]
    assert launch.unresolved == ("VLLM_ATTENTION_BACKEND",)


@pytest.mark.parametrize("config_map", [
    CONFIG_MAP.replace("vllm-config", "other-config"),                          # another name
    CONFIG_MAP.replace("  name: vllm-config", "  name: vllm-config\n  namespace: b"),  # the pod's is `a`
    CONFIG_MAP.replace('TP: "2"', "TP: 2"),                                     # a number: the API refuses it
])
def test_a_config_map_the_container_cannot_read_gives_nothing(tmp_path, config_map):
    pod_namespace = "  namespace: a\n" if "namespace: b" in config_map else ""
    container = SCRIPT + ENV_FROM
    path = tmp_path / "deploy.yaml"
    path.write_text(config_map + "---\n" + POD.format(container=container).replace(
        "  name: vllm\nspec", "  name: vllm\n" + pod_namespace + "spec"), encoding="utf-8")
    [launch] = _scan(path)
    assert launch.tokens == ["exec", "vllm", "serve", "$(MODEL_NAME)", "-tp", "$TP"]
    assert set(launch.unresolved) >= {"TP"}
    assert any("envFrom" in note for note in launch.notes)


# --------------------------------------------------------------------------- a variable no release reads

def _check(tmp_path, script: str, version: str):
    from kvguard.front import examine
    from kvguard.scan import scan
    from kvguard.versions import resolve

    path = tmp_path / "run.sh"
    path.write_text(script, encoding="utf-8")
    [finding] = scan([str(path)], resolve(version), examine).findings
    return finding


# vLLM reads no VLLM_VERSION in any release (its envs list lacks it): whatever `$(curl …)` gives, only its presence
# counts, as --fail-on-environ-validation's "Unknown vLLM environment variable detected"
VERSION_FROM_CURL = "export VLLM_VERSION=$(curl -s https://example.invalid/latest)\n"


def test_an_unknown_value_of_a_variable_the_release_does_not_define_is_not_read(tmp_path):
    finding = _check(tmp_path, VERSION_FROM_CURL + "vllm serve Qwen/Qwen3-8B -tp 2\n", "0.33.0")
    assert finding.launch.unresolved == ("VLLM_VERSION",)
    assert finding.status == "accepted"


def test_its_presence_still_counts(tmp_path):
    finding = _check(tmp_path, VERSION_FROM_CURL + "vllm serve Qwen/Qwen3-8B -tp 2 --fail-on-environ-validation\n",
                     "0.33.0")
    assert finding.status == "refused"
    verdict = finding.report.verdict
    assert (verdict.exc_type, verdict.message) == ("ValueError", "Unknown vLLM environment variable detected: "
                                                                 "VLLM_VERSION")


@pytest.mark.parametrize(("version", "status"), [("0.23.0", "undecidable"), ("0.24.0", "accepted")])
def test_a_variable_is_read_by_the_releases_that_define_it(tmp_path, version, status):
    # VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8 is in vllm/envs.py up to 0.23.0 only
    finding = _check(tmp_path, "export VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=$(detect)\n"
                     "vllm serve Qwen/Qwen3-8B -tp 2\n", version)
    assert finding.status == status
    if status == "undecidable":
        assert finding.reason_kind == "unresolved-variable"


# --------------------------------------------------------------------------- a GitHub Actions job's container

WORKFLOW = """\
on: workflow_dispatch
env:
  VLLM_LOGGING_LEVEL: DEBUG
jobs:
  serve:
    runs-on: [self-hosted, gpu]
    container:
      image: vllm/vllm-openai:v0.20.0
      env:
        VLLM_USE_DEEP_GEMM: "1"
        VLLM_LOGGING_LEVEL: INFO
    steps:
      - run: vllm serve Qwen/Qwen3-8B --tensor-parallel-size ${{ inputs.tp }}
"""


def test_a_job_container_s_env_is_below_the_steps_env(tmp_path):
    # the container is created with its `env`; the step runs in it with the workflow's env over that
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "serve.yml").write_text(WORKFLOW, encoding="utf-8")
    [launch] = _scan(workflows / "serve.yml")
    env = {t.split("=", 1)[0]: t.split("=", 1)[1] for t in launch.tokens[:2]}
    assert env == {"VLLM_USE_DEEP_GEMM": "1", "VLLM_LOGGING_LEVEL": "DEBUG"}
    assert launch.tokens[2:] == ["vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "${{inputs.tp}}"]
    # GitHub substitutes the expression before any shell runs: it alone is what the launch lacks
    assert launch.unresolved == ("${{inputs.tp}}",)


# --------------------------------------------------------------------------- srun --export

@pytest.mark.parametrize(("line", "env"), [
    # ALL: the caller's environment and the variables named with a value
    ("srun --export=ALL,VLLM_USE_DEEP_GEMM=1", ["VLLM_LOGGING_LEVEL=DEBUG", "VLLM_USE_DEEP_GEMM=1"]),
    # NONE: none of the caller's
    ("srun --export=NONE", []),
    ("VLLM_USE_V2_MODEL_RUNNER=1 srun --export=NONE", []),
    # a list without ALL: exactly the listed ones (PATH is no VLLM_* one)
    ("srun -N1 --export VLLM_USE_DEEP_GEMM=1,PATH", ["VLLM_USE_DEEP_GEMM=1"]),
    ("srun --export=VLLM_LOGGING_LEVEL", ["VLLM_LOGGING_LEVEL=DEBUG"]),
    # no --export: ALL
    ("srun --ntasks=1", ["VLLM_LOGGING_LEVEL=DEBUG"]),
])
def test_srun_export_is_the_environment_of_what_it_runs(tmp_path, line, env):
    path = tmp_path / "job.sh"
    path.write_text(f"#!/bin/bash\nexport VLLM_LOGGING_LEVEL=DEBUG\n{line} vllm serve Qwen/Qwen3-8B -tp 2\n",
                    encoding="utf-8")
    [launch] = _scan(path)
    assert launch.tokens == env + ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"]


# --------------------------------------------------------------------------- KServe's own placeholders

SERVING_RUNTIME = """\
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: vllm-runtime
spec:
  containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.20.0
      command: ["python", "-m", "vllm.entrypoints.openai.api_server"]
      args: ["--model=Qwen/Qwen3-8B", "-tp", "{tp}", "--served-model-name={{{{.Name}}}}"]
"""


def test_a_serving_runtime_with_kserve_placeholders_is_read(tmp_path):
    # KServe fills {{.Name}} from the InferenceService when it makes the pod; no chart renders the file
    path = tmp_path / "runtime.yaml"
    path.write_text(SERVING_RUNTIME.format(tp="2"), encoding="utf-8")
    [launch] = _scan(path)
    assert launch.tokens == ["python", "-m", "vllm.entrypoints.openai.api_server", "--model=Qwen/Qwen3-8B", "-tp",
                             "2", "--served-model-name={{.Name}}"]


def test_a_helm_action_in_a_kserve_file_is_still_a_template(tmp_path):
    path = tmp_path / "runtime.yaml"
    path.write_text(SERVING_RUNTIME.format(tp="{{ .Values.tp }}"), encoding="utf-8")
    launches, skipped, _ = find_launches([str(path)])
    assert launches == [] and [s.reason.split(":")[0] for s in skipped] == ["Go template (Helm chart template)"]


# --------------------------------------------------------------------------- objects Kubernetes' API refuses
# core/v1 Container: `command` and `args` are lists of strings, EnvVar.value a string; the API server's decoder
# refuses any other type in the YAML, so the pod is never created and nothing vLLM would say applies

REFUSED_BY_THE_API = "Kubernetes' API refuses the object, so the container never starts: "


def _pod(tmp_path, container: str):
    text = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: vllm\nspec:\n  containers:\n  - name: vllm\n"
            "    image: vllm/vllm-openai:v0.20.0\n" + container)
    path = tmp_path / "pod.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("container", "tokens", "why"), [
    ('    args: ["Qwen/Qwen3-8B"]\n    env:\n    - name: VLLM_USE_DEEP_GEMM\n      value: 1\n',
     ["VLLM_USE_DEEP_GEMM=1", "vllm", "serve", "Qwen/Qwen3-8B"],
     "`env` VLLM_USE_DEEP_GEMM's `value` (1) is a number, not a string (quote it)"),
    ('    args: ["Qwen/Qwen3-8B"]\n    env:\n    - name: VLLM_USE_DEEP_GEMM\n      value: true\n',
     ["VLLM_USE_DEEP_GEMM=true", "vllm", "serve", "Qwen/Qwen3-8B"],
     "`env` VLLM_USE_DEEP_GEMM's `value` (True) is a boolean, not a string (quote it)"),
    ("    args: Qwen/Qwen3-8B --tensor-parallel-size 2\n",
     ["vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2"], "`args` is a string, not a list of strings"),
    ("    command: vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2\n",
     ["vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2"],
     "`command` is a string, not a list of strings"),
    ('    args: ["Qwen/Qwen3-8B", "--tensor-parallel-size", 2]\n',
     ["vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2"],
     "an item of `args` (2) is a number, not a string (quote it)"),
    ('    args: ["Qwen/Qwen3-8B"]\n    ports:\n    - containerPort: "8000"\n',
     ["vllm", "serve", "Qwen/Qwen3-8B"], "a `containerPort` ('8000') is not a whole number (write it unquoted)"),
])
def test_a_container_the_api_refuses_never_starts(tmp_path, container, tokens, why):
    [launch] = _scan(_pod(tmp_path, container))
    assert launch.tokens == tokens
    assert launch.not_started == REFUSED_BY_THE_API + why


def test_a_refused_container_is_undecidable_whatever_vllm_would_say(tmp_path):
    from kvguard.scan import scan
    from kvguard.versions import resolve

    def never(release, tokens, **_):
        raise AssertionError("a launch that never starts is not checked")

    path = _pod(tmp_path, '    args: ["Qwen/Qwen3-8B", "--no-such-flag"]\n    env:\n    - name: VLLM_USE_DEEP_GEMM\n'
                          '      value: 0\n')
    result = scan([str(path)], resolve("0.20.0"), never)
    [finding] = result.findings
    assert (finding.status, finding.reason_kind) == ("undecidable", "not-started")
    assert finding.reason == REFUSED_BY_THE_API + "`env` VLLM_USE_DEEP_GEMM's `value` (0) is a number, not a string " \
                                                  "(quote it)"
    assert result.exit_status == 2


@pytest.mark.parametrize("container", [
    '    args: ["Qwen/Qwen3-8B"]\n    env:\n    - name: VLLM_USE_DEEP_GEMM\n      value: "1"\n',
    '    command: ["vllm", "serve"]\n    args: ["Qwen/Qwen3-8B", "--port", "8000"]\n    ports:\n'
    '    - containerPort: 8000\n',
])
def test_a_container_of_strings_starts(tmp_path, container):
    [launch] = _scan(_pod(tmp_path, container))
    assert launch.not_started is None


def test_helm_values_are_no_api_object(tmp_path):
    # a chart's values are text its templates quote: no API server decodes this file as it is
    path = tmp_path / "values.yaml"
    path.write_text("containers:\n- name: vllm\n  image: vllm/vllm-openai:v0.20.0\n"
                    "  args: Qwen/Qwen3-8B --tensor-parallel-size 2\n", encoding="utf-8")
    [launch] = _scan(path)
    assert launch.not_started is None


# --------------------------------------------------------------------------- a compose string command after `sh -c`
# compose splits a string `command` into words (Compose Specification, "command": "The value can also be a
# string ... split"), so `bash -c` is given the first word as its script and the others as $0, $1, …

COMPOSE_STRING_COMMAND = """\
services:
  vllm:
    image: vllm/vllm-openai:v0.20.0
    entrypoint: {entrypoint}
    command: vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2
"""


@pytest.mark.parametrize(("entrypoint", "shell"), [('["/bin/bash", "-c"]', "/bin/bash -c"), ('["sh", "-c"]', "sh -c"),
                                                   ("bash -ec", "bash -ec")])
def test_a_string_command_given_to_sh_c_runs_its_first_word_only(tmp_path, entrypoint, shell):
    path = tmp_path / "compose.yaml"
    path.write_text(COMPOSE_STRING_COMMAND.format(entrypoint=entrypoint), encoding="utf-8")
    [launch] = _scan(path)
    assert (launch.tokens, launch.line) == (["vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2"], 5)
    assert launch.not_started == (
        f"compose splits a string `command` into words, so `{shell}` runs only the first, `vllm`, as its script "
        "(the others are its $0, $1, …): the launch never starts as written (give the script as one word: "
        "`command: [\"…\"]`, or a block scalar in a list item)")


@pytest.mark.parametrize("command", ['["vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2"]',
                                     "'\"vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2\"'"])
def test_a_command_of_one_word_is_the_script(tmp_path, command):
    path = tmp_path / "compose.yaml"
    path.write_text(COMPOSE_STRING_COMMAND.format(entrypoint='["/bin/bash", "-c"]').replace(
        "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2", command), encoding="utf-8")
    [launch] = _scan(path)
    assert launch.tokens == ["vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2"]
    assert launch.not_started is None


# --------------------------------------------------------------------------- a Dockerfile's script and its ENV
# Dockerfile reference: ENV "will be in the environment for all subsequent instructions in the build stage"
# and persists in the container; ARG values are the build's (RUN sees them, the running container does not);
# COPY of a directory copies its contents

def _image(tmp_path, dockerfile: str, scripts: "dict[str, str]"):
    (tmp_path / "Dockerfile").write_text(dockerfile, encoding="utf-8")
    for name, text in scripts.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    launches, skipped, _ = find_launches([str(tmp_path)])
    assert skipped == []
    return launches


def test_the_script_an_entrypoint_runs_sees_the_image_env(tmp_path):
    [launch] = _image(tmp_path, "FROM vllm/vllm-openai:v0.20.0\nENV VLLM_USE_DEEP_GEMM=1\n"
                                "COPY start.sh /start.sh\nENTRYPOINT [\"/bin/bash\", \"/start.sh\"]\n",
                      {"start.sh": "#!/bin/bash\nnvidia-smi\nvllm serve Qwen/Qwen3-8B -tp 2\n"})
    assert (launch.path, launch.line, launch.kind) == (str(tmp_path / "start.sh"), 3, "dockerfile")
    assert launch.tokens == ["VLLM_USE_DEEP_GEMM=1", "vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"]
    assert launch.pin.version == "0.20.0"


def test_a_directory_copied_under_workdir_and_the_cmd_as_arguments(tmp_path):
    dockerfile = ("FROM vllm/vllm-openai:v0.20.0\nARG TP=2\nENV VLLM_LOGGING_LEVEL=DEBUG\nWORKDIR /app\n"
                  "COPY scripts/ ./bin/\nRUN vllm serve Qwen/Qwen3-8B --tensor-parallel-size $TP\n"
                  "ENTRYPOINT [\"bash\", \"bin/serve.sh\"]\nCMD [\"Qwen/Qwen3-8B\"]\n")
    script, run = _image(tmp_path, dockerfile, {"scripts/serve.sh": 'MODEL=$1\n'
                                                "exec vllm serve \"$MODEL\" --tensor-parallel-size ${TP:-4}\n"})
    # RUN sees the ARG; the container does not (its script takes the default)
    assert (run.line, run.tokens[-2:]) == (6, ["--tensor-parallel-size", "2"])
    assert script.path == str(tmp_path / "scripts" / "serve.sh")
    assert script.tokens == ["VLLM_LOGGING_LEVEL=DEBUG", "exec", "vllm", "serve", "Qwen/Qwen3-8B",
                             "--tensor-parallel-size", "4"]


def test_an_arg_does_not_reach_the_cmd(tmp_path):
    [launch] = _image(tmp_path, "FROM vllm/vllm-openai:v0.20.0\nARG MODEL=Qwen/Qwen3-8B\nENTRYPOINT []\n"
                                "CMD vllm serve ${MODEL} -tp 2\n", {})
    assert launch.unresolved == ("MODEL",)


def test_a_script_the_image_does_not_copy_is_read_alone(tmp_path):
    [launch] = _image(tmp_path, "FROM vllm/vllm-openai:v0.20.0\nENV VLLM_USE_DEEP_GEMM=1\n"
                                "COPY --from=build /out/start.sh /start.sh\nENTRYPOINT [\"/start.sh\"]\n",
                      {"start.sh": "#!/bin/sh\nvllm serve Qwen/Qwen3-8B\n"})
    assert (launch.kind, launch.tokens) == ("shell", ["vllm", "serve", "Qwen/Qwen3-8B"])


# --------------------------------------------------------------------------- Markdown: Python blocks, quoted blocks

PYTHON_GUIDE = """\
# Serving

```python
import subprocess
subprocess.run(["vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2"])
```

```py
import os
os.system("vllm serve Qwen/Qwen3-8B --max-model-len 4096")
```

```python
client = OpenAI(base_url=...)  # a fragment that names vllm but is no script
>>> vllm.LLM(
```
"""


def test_python_blocks_are_read_as_python_scripts(tmp_path):
    path = tmp_path / "guide.md"
    path.write_text(PYTHON_GUIDE, encoding="utf-8")
    first, second = _scan(path)
    assert (first.line, first.tokens) == (5, ["vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2"])
    assert (second.line, second.tokens) == (10, ["vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len", "4096"])


QUOTED_GUIDE = """\
> [!NOTE]
> Start the server first:
> ```bash
> vllm serve microsoft/Phi-4-multimodal-instruct \\
>   --max-model-len 4000
> ```

> ```bash
> vllm serve Qwen/Qwen3-8B
not quoted: the quote, and the block, ended
```
"""


def test_a_block_in_a_block_quote(tmp_path):
    path = tmp_path / "guide.md"
    path.write_text(QUOTED_GUIDE, encoding="utf-8")
    first, second = _scan(path)
    assert (first.line, first.tokens) == (4, ["vllm", "serve", "microsoft/Phi-4-multimodal-instruct",
                                              "--max-model-len", "4000"])
    assert (second.line, second.tokens) == (9, ["vllm", "serve", "Qwen/Qwen3-8B"])


# --------------------------------------------------------------------------- a manifest a kustomization changes

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.20.0
        args: ["Qwen/Qwen3-8B", "--tensor-parallel-size", "2"]
"""

PATCHING = """\
resources:
- ./deployment.yaml
patches:
- target: {kind: Deployment, name: vllm}
  patch: |-
    - op: replace
      path: /spec/template/spec/containers/0/args/2
      value: "4"
images:
- name: vllm/vllm-openai
  newTag: v0.21.0
"""


@pytest.mark.parametrize(("kustomization", "note"), [
    (PATCHING, "kustomization.yaml beside this file lists it and changes it (patches, images): `kubectl apply -k` "
               "starts what kustomize renders, which kvguard does not render (this is the file as written)"),
    ("resources:\n- deployment.yaml\n", None),
    ("resources:\n- other.yaml\nimages:\n- name: vllm/vllm-openai\n  newTag: v0.21.0\n", None),
])
def test_a_manifest_a_kustomization_changes_is_read_as_written_and_said(tmp_path, kustomization, note):
    (tmp_path / "deployment.yaml").write_text(DEPLOYMENT, encoding="utf-8")
    (tmp_path / "kustomization.yaml").write_text(kustomization, encoding="utf-8")
    [launch] = _scan(tmp_path / "deployment.yaml")
    assert launch.tokens == ["vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2"]
    assert [n for n in launch.notes if "kustomiz" in n] == ([note] if note else [])


# --------------------------------------------------------------------------- a Helm chart's templates
# helm/helm#12195 (Helm 3.12): values are read through JSON, so `999999` prints as `999999`, `1000000` as `1e+06`
# and `| quote` as `"1e+06"`; `toYaml` keeps an integer's digits (JSON, then YAML); `helm template` names the
# release `release-name`

CHART = {
    "Chart.yaml": "apiVersion: v2\nname: vllm\nversion: 0.1.0\n",
    "values.yaml": ("image:\n  repository: vllm/vllm-openai\n  tag: v0.20.0\nmodel: Qwen/Qwen3-8B\n"
                    "tensorParallelSize: 2\nmaxModelLen: 1048576\nextraArgs:\n  - --max-num-seqs\n  - 1048576\n"),
}

DEPLOYMENT_TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-vllm
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
        args:
        - {{ .Values.model | quote }}
        - --tensor-parallel-size
        - {{ .Values.tensorParallelSize | quote }}
        - --max-model-len
        - {{ .Values.maxModelLen | quote }}
        {{- toYaml .Values.extraArgs | nindent 8 }}
"""


def _chart(tmp_path, templates: "dict[str, str]", more_values: str = ""):
    for name, text in CHART.items():
        (tmp_path / name).write_text(text + (more_values if name == "values.yaml" else ""), encoding="utf-8")
    (tmp_path / "templates").mkdir()
    for name, text in templates.items():
        (tmp_path / "templates" / name).write_text(text, encoding="utf-8")
    return find_launches([str(tmp_path / "templates")])


def test_a_template_is_rendered_with_the_chart_values(tmp_path):
    from kvguard.scan import GO_TEMPLATE_REASON

    launches, skipped, _ = _chart(tmp_path, {"deployment.yaml": DEPLOYMENT_TEMPLATE,
                                             "service.yaml": "kind: Service\nmetadata:\n"
                                                             "  name: {{ include \"vllm.fullname\" . }}\n"})
    [launch] = launches
    assert launch.tokens == ["vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2", "--max-model-len",
                             "1.048576e+06", "--max-num-seqs", "1048576"]
    assert (launch.line, launch.pin.version) == (12, "0.20.0")
    assert launch.notes[-1] == ("a Helm chart template, rendered with the chart's values.yaml (other values, "
                                "`--set` / `-f`, render another launch)")
    assert [(s.path, s.reason) for s in skipped] == [(str(tmp_path / "templates" / "service.yaml"),
                                                      GO_TEMPLATE_REASON)]


def test_the_rendering_stands_for_the_values_guess(tmp_path):
    # the values alone read as a chart's argument list (kvguard.scan.helm) when no template renders
    chart_values = "model: Qwen/Qwen3-8B\nvllmArgs: [\"--tensor-parallel-size\", \"2\"]\n"
    (tmp_path / "values.yaml").write_text(chart_values, encoding="utf-8")
    [guess], _, _ = find_launches([str(tmp_path)])
    assert guess.tokens == ["vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2"]
    (tmp_path / "Chart.yaml").write_text(CHART["Chart.yaml"], encoding="utf-8")
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "pod.yaml").write_text(
        "kind: Pod\napiVersion: v1\nspec:\n  containers:\n  - name: vllm\n    image: vllm/vllm-openai:v0.20.0\n"
        "    args:\n    - {{ .Values.model }}\n    {{- toYaml .Values.vllmArgs | nindent 4 }}\n", encoding="utf-8")
    [rendered], _, _ = find_launches([str(tmp_path)])
    assert (rendered.path, rendered.line) == (str(tmp_path / "templates" / "pod.yaml"), 8)


def test_lines_after_a_to_yaml_block_keep_their_template_line(tmp_path):
    template = ("kind: Pod\napiVersion: v1\nspec:\n  containers:\n  - name: vllm\n"
                "    image: vllm/vllm-openai:v0.20.0\n    env:\n    {{- toYaml .Values.env | nindent 4 }}\n"
                "    args:\n    - Qwen/Qwen3-8B\n    - -tp\n    - {{ .Values.tensorParallelSize | quote }}\n")
    [launch], _, _ = _chart(tmp_path, {"pod.yaml": template}, "env:\n- name: VLLM_USE_DEEP_GEMM\n  value: \"1\"\n")
    assert launch.tokens == ["VLLM_USE_DEEP_GEMM=1", "vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"]
    assert launch.line == 10


@pytest.mark.parametrize(("action", "word"), [
    ("{{ .Values.maxModelLen | int | quote }}", "1048576"),         # a Go int prints its digits
    ("{{ .Values.maxModelLen | toString }}", "1.048576e+06"),
    ('{{ .Values.notSet | default "32768" }}', "32768"),
    ('{{ .Values.empty | default "32768" | quote }}', "32768"),
    ('{{ .Values.tensorParallelSize | default "8" }}', "2"),
])
def test_value_pipelines(tmp_path, action, word):
    template = ("kind: Pod\napiVersion: v1\nspec:\n  containers:\n  - name: vllm\n"
                "    image: vllm/vllm-openai:v0.20.0\n    args:\n    - Qwen/Qwen3-8B\n    - --max-model-len\n"
                f"    - {action}\n")
    [launch], _, _ = _chart(tmp_path, {"pod.yaml": template}, 'empty: ""\n')
    assert launch.tokens == ["vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len", word]


@pytest.mark.parametrize("action", ["{{- if .Values.model }}\n{{- end }}", "{{ .Values.notSet }}",
                                    "{{ default \"x\" .Values.model }}", "{{ .Values.image }}",
                                    '{{ .Values.notSet | default "8" | int }}', "{{ .Values.notSet | quote }}"])
def test_a_template_with_anything_else_stays_a_template(tmp_path, action):
    launches, skipped, _ = _chart(tmp_path, {"deployment.yaml": DEPLOYMENT_TEMPLATE + "# " + action + "\n"})
    assert launches == []
    assert len(skipped) == 1


@pytest.mark.parametrize(("value", "printed"), [(999999, "999999"), (1000000, "1e+06"), (1048576, "1.048576e+06"),
                                                (0.9, "0.9"), (0.0001, "0.0001"), (0.00001, "1e-05"), (-2, "-2"),
                                                (123456.5, "123456.5"), (0, "0")])
def test_numbers_print_as_helm_prints_them(value, printed):
    from kvguard.scan.helmtemplates import go_number

    assert go_number(value) == printed
