"""Find ``vllm serve`` launches in files: shell scripts, Markdown, Dockerfiles, YAML.

:func:`find_launches` walks paths and returns every launch it finds as a
:class:`Launch` (file, 1-based line, the command's tokens); :func:`check_launch`
checks one with the same machinery as ``kvguard check`` and returns a
:class:`Finding`.

One module per kind of file: :mod:`~kvguard.scan.shell`, :mod:`~kvguard.scan.markdown`,
:mod:`~kvguard.scan.dockerfile`, and for YAML (:mod:`~kvguard.scan.yamlfiles`, which walks the
documents) :mod:`~kvguard.scan.kubernetes`, :mod:`~kvguard.scan.compose` (and what their
containers share, :mod:`~kvguard.scan.containers`),
:mod:`~kvguard.scan.helm` (Helm values), :mod:`~kvguard.scan.charts` (the deployers' charts) and
:mod:`~kvguard.scan.recipes` (vLLM recipes).  :mod:`~kvguard.scan.files` says which files are
read and as what, :mod:`~kvguard.scan.check` checks what was found, :mod:`~kvguard.scan.result`
holds what a scan returns, and :mod:`~kvguard.scan.undecidable` names why a launch cannot be
decided (one exception type per reason).  Nothing here imports PyYAML at module level: YAML files are
read with ``yaml.compose_all(..., Loader=yaml.SafeLoader)`` (safe loading, with
line numbers) when PyYAML is installed (``pip install kvguard[yaml]``), and are
reported as skipped otherwise.

What is recognised
------------------
- Shell (``*.sh``, ``*.bash``, ``*.zsh``, files with a shell ``#!``): logical lines
  (``\\`` continuations joined), split into commands at ``;``, ``&&``, ``||``,
  ``|``, ``&``; a command is a launch when it runs ``vllm serve``,
  ``python -m vllm.entrypoints.openai.api_server`` or ``docker run … IMAGE``
  with a ``vllm/vllm-openai`` image (the arguments after the image, after the
  image's entrypoint or the ``--entrypoint`` when one is given).  Simple
  assignments earlier in the same file or block (``TP=8``, ``export TP=8``)
  resolve later ``$TP`` / ``${TP}``; ``${TP:-8}`` uses its default.
- Markdown (``*.md``, ``*.markdown``): fenced code blocks only (``bash``, ``sh``,
  ``shell``, ``console``, ``zsh``, untyped, ``text``: shell; ``dockerfile``;
  ``yaml``/``yml``); inline code and prose are not read.  A shell block with
  prompts (``$ ``, ``% ``, ``(venv) $ ``, ``user@host:~$ ``) is a terminal transcript:
  only prompted lines start commands, ``> `` continuation prompts and unclosed quotes
  continue them, and every other line is output.  ``python`` / ``py`` blocks are read as Python
  launcher scripts are (``subprocess.run([...])``, ``os.system("...")``; a fragment that does not
  parse starts nothing).  A block inside a block quote (``> ```bash``) is read without the ``>``.
- Slurm batch scripts (``*.sbatch``, ``*.slurm``, or any shell script with ``#SBATCH`` lines):
  the header's GPUs per node (:mod:`kvguard.scan.slurm`).
- Dockerfiles (``Dockerfile*``, ``*.dockerfile``, ``Containerfile``): ``RUN``,
  ``CMD``, ``ENTRYPOINT`` in shell and exec (JSON) form; ``ENTRYPOINT`` +
  ``CMD`` are combined; a ``vllm/vllm-openai`` base image supplies
  ``vllm serve`` to a bare ``CMD``; ``ENV``/``ARG`` defaults resolve the shell
  form's variables (the exec form runs no shell: ``$TP`` reaches vLLM as written); ``ARG`` values reach
  ``RUN`` only, never the running container.  A script the container runs (``ENTRYPOINT ["/start.sh"]``)
  that the image ``COPY``s from the build context beside the Dockerfile is read there with the image's
  ``ENV``, and that reading replaces the script's own.
- YAML (``*.yaml``, ``*.yml``): Kubernetes containers (``command`` replaces the
  image's entrypoint, ``args`` follow; including ``sh -c`` scripts), docker-compose
  services (``entrypoint`` + ``command``, each a list or a string split as compose
  splits it; an ``entrypoint`` drops the image's default command; a ``command``
  alone follows the image's entrypoint: for ``vllm/vllm-openai``, ``vllm serve`` from
  v0.11.1 and ``python3 -m vllm.entrypoints.openai.api_server`` before, per the release
  the launch is checked against, :mod:`kvguard.launch.images`),
  ``VLLM_*`` entries of ``env`` / ``environment`` (and the environment a container's
  ``$(NAME)`` / script reads, :mod:`kvguard.scan.containers`), GitHub Actions
  workflows (each ``run:`` step per matrix combination, :mod:`kvguard.scan.workflows`),
  GitLab CI pipelines (each job's script per ``parallel:matrix`` combination,
  :mod:`kvguard.scan.gitlab`), SkyPilot tasks (:mod:`kvguard.scan.skypilot`) and dstack runs
  (:mod:`kvguard.scan.dstack`) with the GPUs they ask for, LeaderWorkerSets (the ``LWS_*``
  variables their pods get),
  the production-stack chart's
  ``servingEngineSpec.modelSpec[]`` and KServe ``LLMInferenceService`` documents
  (rendered as :mod:`kvguard.scan.charts` describes),
  an object for Kubernetes' API (``apiVersion`` + ``kind``) whose container the API refuses (a
  string ``command`` / ``args``, a number or boolean as an ``env`` ``value`` or an ``args`` item: the
  container never starts) and a compose service whose string ``command`` follows an ``sh -c``
  ``entrypoint`` (compose splits it into words: the shell runs the first alone) have launches that
  never start as written: undecidable, ``reason_kind`` ``not-started``, with the reason (exit
  status 2 unless another launch is refused); a manifest a ``kustomization.yaml`` beside it lists and
  changes (``patches``, ``images``, …) is read as written, noted (:mod:`kvguard.scan.kustomize`);
  Helm-values-like argument lists (``args``/``extraArgs``/``vllmArgs``… with a
  parallel flag, the model from ``--model`` or a sibling ``model``/``modelName``
  key), and any string holding a launch (scripts, Markdown guides).
- vLLM recipe YAMLs (``model.model_id`` + ``model.base_args``): besides the
  guide's code blocks, the commands the recipes site renders, one per variant × offered
  strategy, for the hardware profile ``--set HARDWARE=ID`` names or the one the site opens the
  variant on (:mod:`kvguard.scan.recipes` gives the rules); multi-node strategies use
  ``$TOTAL_GPUS`` (default ``$NODES`` × ``$GPUS_PER_NODE``, the profile's GPU count) and are
  undecidable until ``--set NODES=2`` states the node count.  ``pd_cluster`` (prefill/decode
  roles) is not synthesised; only the head node (rank 0) of a multi-node launch is checked.

Go templates (Helm chart ``templates/``, helmfile ``*.gotmpl``: any non-Markdown file
with ``{{ .Values… }}``-style actions) are not deployment files until rendered: they are
listed as skipped, never fatal — except a chart's template (``CHART/templates/*.yaml`` beside the
chart's ``Chart.yaml`` and ``values.yaml``) whose actions are all ones kvguard renders as Helm does
(``.Values`` paths, ``quote`` / ``toString`` / ``int`` / ``default "TEXT"``, ``toYaml … | nindent N``, ``.Release.Name``,
``.Chart.*``; numbers print as Helm's float64 do, ``1048576`` as ``1.048576e+06``): it is read rendered
with the chart's ``values.yaml``, at the template's lines, noted (:mod:`kvguard.scan.helmtemplates`).  A KServe manifest whose only actions are KServe's own metadata
placeholders (``{{.Name}}`` in a ServingRuntime's ``args``, filled in by its controller) is read as written.  ``-`` reads standard input (:func:`find_launches`).

Releases
--------
Each launch carries the release its deployment pins (:mod:`kvguard.launch.pins`: image tag,
``pip install vllm==X``, requirements / pyproject beside the file); :func:`scan` checks it
against that release unless one is given.

Variables
---------
``--set NAME=VALUE`` values win over assignments found in the file.  ``$(NAME)``
(Kubernetes' dependent-variable syntax in ``command``/``args``) is the variable
NAME, expanded from the container's ``env`` (:mod:`~kvguard.scan.containers`, which
also gives a ``sh -c`` script the container's environment); other command
substitutions (``$(nproc)``, backticks, ``$((…))``) stay unresolved, and so does a
variable assigned from one.  A variable
that stays unresolved makes the launch undecidable only when it reaches
something kvguard reads (the model, a parallel flag, a ``VLLM_*`` variable):
``--port $PORT`` does not matter.  Single quotes are not honoured ('$TP' is
treated like $TP).  A launch that vLLM's argument parser refuses whatever its
variables hold (``-tp $TP --no-such-flag``: each variable a value of an option
or the model) is a refusal.
"""

from ..launch.pins import ReleaseChoice, ReleasePin
from .check import check_launch, release_for, scan
from .files import GO_TEMPLATE_REASON, KINDS, MAX_FILE_BYTES, SKIP_DIRS, STDIN, find_launches
from .result import Finding, Launch, ScanResult, Skip, summarize
from .shell import launch_and_image

__all__ = ["Finding", "GO_TEMPLATE_REASON", "KINDS", "Launch", "MAX_FILE_BYTES", "ReleaseChoice", "ReleasePin",
           "SKIP_DIRS", "STDIN", "ScanResult", "Skip", "check_launch", "find_launches", "launch_and_image",
           "release_for", "scan", "summarize"]
