"""The front door for one launch: a ``vllm serve`` command line (or a parsed one) → the resolved
model → the verdict, the model facts and the KV economics, as a :class:`LaunchReport`.

The command line (``kvguard check``, ``diff``, ``scan``), the scanner and the pytest plugin all
check a launch through :func:`examine` (and :func:`examine_command`, which also finds the
release a ``docker run`` image tag names); the reporters in :mod:`kvguard.report` print what it
returns.  Model names resolve as :func:`kvguard.launch.resolve.resolve_model` finds them, the
same way as ``kvguard.check``, ``audit`` and ``plan`` do.
"""

from __future__ import annotations

import os

from .errors import InputError, Undecidable
from .facts import ModelFacts
from .launch.layout import Host
from .record import Record, field
from .verdict import Verdict

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)

if TYPE_CHECKING:
    from typing import Any, Optional, Sequence, Union

    from .launch.argv import ServeCommand
    from .launch.pins import ReleaseChoice
    from .versions import Release

__all__ = ["JSON_SCHEMA_VERSION", "LaunchReport", "NotAnImageLaunch", "argparse_verdict", "command_release",
           "examine", "examine_command", "image_launch", "launch_gpus"]

#: the ``schema`` every JSON document kvguard prints carries (check, scan, audit, plan, diff, and
#: the document of an undecided run)
JSON_SCHEMA_VERSION = 1


class NotAnImageLaunch(InputError):
    """A ``docker run`` / ``podman run`` command line that is not a vllm/vllm-openai image followed by
    the server's arguments: there is no ``vllm serve`` launch in it to check."""


class LaunchReport(Record, frozen=False):
    """Everything the CLI says about one launch."""

    verdict: Verdict
    model: Optional[str] = None
    source: Optional[str] = None
    location: Optional[str] = None
    layout: dict[str, Any] = field(default_factory=dict)
    legal_dcp_sizes: Optional[list[int]] = None
    #: why ``legal_dcp_sizes`` is empty: the refusal that stands at this layout even with -dcp 1
    #: (``{"check", "exc_type", "message"}``)
    legal_dcp_reason: Optional[dict[str, Any]] = None
    kv_cache_dtype: str = "auto"
    #: for a refused launch, the nearest launches the release accepts (kvguard.suggest); None when
    #: not searched (an accepted launch, ``scan``, ``diff``)
    suggestions: Optional[list] = None
    #: the host the suggestions were searched for (set when ``check`` searches)
    suggestion_host: Optional[Any] = None
    #: where the release came from when not the default (e.g. the image tag of `docker run …`)
    release_source: Optional[str] = None
    #: unset VLLM_* variables whose default decided the verdict (kvguard.envdefaults.EnvAssumption)
    env_assumptions: list = field(default_factory=list)
    #: the maximum length: derived, its key, the default, the given --max-model-len and what ModelConfig
    #: ends with (:func:`_length_facts`); None when kvguard cannot tell
    length: Optional[dict] = None

    @property
    def facts(self) -> Optional[ModelFacts]:
        return self.verdict.facts if isinstance(self.verdict.facts, ModelFacts) else None

    def kv_facts(self) -> dict[str, Any]:
        f = self.facts
        if f is None:
            return {}
        tp = self.layout.get("tensor_parallel_size", 1)
        dcp = self.layout.get("decode_context_parallel_size", 1)
        out = f.to_dict()
        if self.length is not None:
            out["max_model_len"] = self.length["effective"]
            out["max_model_len_derived"] = {"value": self.length["derived"], "key": self.length["key"],
                                            "default": self.length["default"]}
        if f.use_mla is None or f.total_num_kv_heads is None or not isinstance(tp, int) or tp < 1:
            return out
        from .kv.kvsize import KV_CACHE_DTYPE_BYTES, kv_cache_dtype_bytes

        if self.kv_cache_dtype not in KV_CACHE_DTYPE_BYTES and self.kv_cache_dtype != "auto":
            return out   # a packed cache (NVFP4 from the checkpoint): its bytes are not modelled
        _, b = kv_cache_dtype_bytes(self.kv_cache_dtype)   # "auto": bfloat16 on a CUDA node
        if self.kv_cache_dtype == "auto" and self.layout.get("dtype") in ("float", "float32"):
            b = 4   # the "auto" KV cache takes the model's dtype, which --dtype float32 makes 4 bytes wide
        out.update(
            tp=tp,
            cache_kv_heads=f.cache_kv_heads,
            num_kv_heads_per_rank=f.num_kv_heads(tp),
            duplication_factor=f.duplication_factor(tp),
            residual_duplication=max(1, f.duplication_factor(tp) // max(1, dcp)) if isinstance(dcp, int) else None,
            kv_cache_dtype=self.kv_cache_dtype,
            kv_bytes_per_token_per_rank=f.kv_bytes_per_token(tp, dcp=max(1, dcp) if isinstance(dcp, int) else 1,
                                                              dtype_bytes=b),
        )
        from .kv.kvsize import kv_cache_groups_reason

        # one figure per token is right only for one full-attention / MLA KV-cache group; for the others
        # (sliding windows, hybrid or compressed layers) it would be a made-up size
        groups = kv_cache_groups_reason(None, f)
        if groups is not None:
            full_bound = out["kv_bytes_per_token_per_rank"]
            out.update(kv_bytes_per_token_per_rank=None, kv_bytes_not_modelled=groups)
            split = self._sliding_split(f)
            if split is not None and not split.sliding and full_bound is not None:
                # the layers vLLM builds are all full attention (--disable-sliding-window): one group, exact
                out.update(kv_bytes_per_token_per_rank=full_bound)
                del out["kv_bytes_not_modelled"]
            elif split is not None and full_bound is not None:
                # every layer counted as full attention (audit prints the same figure): approximate, the
                # sliding-window layers hold only their window (plus the tokens in flight)
                shards = max(1, dcp) if isinstance(dcp, int) else 1
                full_part = f.kv_bytes_per_token(tp, dcp=shards, dtype_bytes=b, layers=split.full) if split.full else 0
                out.update(kv_bytes_per_token_per_rank_all_full=full_bound,
                           kv_bytes_per_token_per_rank_full_layers=full_part,
                           kv_bytes_per_token_per_rank_sliding_layers=f.kv_bytes_per_token(
                               tp, dcp=shards, dtype_bytes=b, layers=split.sliding),
                           sliding_window_layers=split.sliding, sliding_windows=list(split.windows))
        if self.legal_dcp_sizes is not None:
            out["legal_dcp_sizes"] = self.legal_dcp_sizes
            if not self.legal_dcp_sizes and self.legal_dcp_reason:
                out["legal_dcp_sizes_reason"] = self.legal_dcp_reason
        return out

    def _sliding_split(self, facts: ModelFacts):
        """The sliding-window layers the release builds for this launch (None: none, or not known)."""
        from .errors import KvguardError
        from .kv.sliding import sliding_split
        from .versions import resolve

        try:
            release = resolve(self.verdict.vllm_version)
        except KvguardError:
            return None
        return sliding_split(facts, release, disable_sliding_window=bool(self.layout.get("disable_sliding_window")))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"schema": JSON_SCHEMA_VERSION}
        out.update(self.verdict.to_dict())
        out.update(model=self.model, source=self.source, location=self.location, layout=self.layout,
                   facts=self.kv_facts())
        if self.suggestion_host is not None:  # `check`: a list for a refused launch, null for an accepted one
            out["suggestions"] = None if self.suggestions is None else [s.to_dict() for s in self.suggestions]
            if self.suggestions is not None:
                h = self.suggestion_host
                out["suggestions_host"] = {"platform": h.platform, "gpus_per_node": h.gpus_per_node, "ray": h.ray,
                                           "assumed": sorted(k for k in ("platform", "gpus_per_node", "ray")
                                                             if k in h.assumed)}
        if self.release_source is not None:
            out["vllm_version_source"] = self.release_source
        if self.env_assumptions:
            out["env_assumptions"] = [a.to_dict() for a in self.env_assumptions]
        return out


def argparse_verdict(release, refusal, host: Optional[Host] = None) -> Verdict:
    """The verdict when vLLM's own argument parser refuses the command line
    (:class:`~kvguard.errors.ArgparseRefusal`): stage ``argparse``, vLLM's printed error as the
    message, kvguard's hints as notes; the host's pydantic version among the assumptions when the
    message names it and ``host`` assumes it."""
    assumed: tuple[str, ...] = ()
    if refusal.pydantic is not None and (host is None or "pydantic" in host.assumed):
        assumed = (f"pydantic={refusal.pydantic!r}",)
    return Verdict(ok=False, vllm_version=release.key, stage="argparse", check=refusal.check,
                   exc_type=refusal.exc_type, message=refusal.message, notes=refusal.hints, assumptions=assumed)


def _host_pydantic(host: Host, env: Optional[dict]) -> Optional[str]:
    """The pydantic version the text of a pydantic refusal names on ``host``; None when a variable given to vLLM
    drops pydantic's documentation link (the launch's own prefixes are read by parse_serve)."""
    from .launch.pydantic_text import URL_VARIABLES

    if env and any(name in env for name in URL_VARIABLES):
        return None
    return host.pydantic


#: the options with which vLLM changes the model's config after loading it (EngineArgs -> ModelConfig's
#: ``hf_overrides``; ``--rope-scaling`` / ``--rope-theta`` in 0.10.2 - 0.11.0, folded into the same overrides): the
#: argument parser takes them, kvguard passes them over (``--hf-config-path`` is kvguard.rules.engine_options')
CONFIG_OVERRIDES = ("--hf-overrides", "--rope-scaling", "--rope-theta")


def _config_override(passed_over: list) -> Optional[str]:
    """The first option of :data:`CONFIG_OVERRIDES` among the passed-over words that changes the config (an empty
    ``--hf-overrides`` JSON object changes nothing), as written; else None."""
    import json

    for i, word in enumerate(passed_over):
        if not isinstance(word, str) or not word.startswith("--"):
            continue
        name, eq, inline = word.partition("=")
        name = name.replace("_", "-")
        if name not in CONFIG_OVERRIDES:
            continue
        value = inline if eq else (passed_over[i + 1] if i + 1 < len(passed_over) else None)
        if name == "--hf-overrides" and isinstance(value, str):
            try:
                if json.loads(value) == {}:
                    continue
            except ValueError:
                pass
        return f"{name} {value}" if value is not None else name
    return None


def _rows_before(row_id: str) -> frozenset:
    """The checks vLLM runs before ``row_id``'s (kvguard.rules.table's order), with the reading of the checkpoint's
    config itself (``model_config``), which comes before every row from ModelConfig's parser lookup on."""
    from .rules.table import RULES

    ids = [row.id for row in RULES]
    return frozenset(ids[:ids.index(row_id)]) | {"model_config"}


def _undecided_from(verdict: Verdict, row_id: str, reason: Optional[str]) -> None:
    """Raise Undecidable with ``reason`` (None: nothing to raise) unless ``verdict`` is a refusal vLLM gives before
    ``row_id``'s check, where what kvguard does not model starts to count."""
    if reason is None or (not verdict.ok and verdict.check in _rows_before(row_id)):
        return
    raise Undecidable(reason)


def _decided_before_overrides(verdict: Verdict, overridden: Optional[str]) -> None:
    """Undecidable when the launch changes the model's config (``overridden``, from :func:`_config_override`) and
    ``verdict`` is not a refusal vLLM gives before get_config applies the change."""
    _undecided_from(verdict, "mc_config_read", None if overridden is None else (
        f"{overridden} changes the model's config before vLLM reads it (ModelConfig applies it to the loaded config: "
        "the maximum length, heads, layers, quantization …); kvguard reads config.json as written and does not "
        "model the override"))


#: options kvguard passes over that make VllmConfig resolve an encoder-only instance from 0.29.0, first thing in its
#: __post_init__: an encoder-cache producer's ``--ec-transfer-config`` (refused without a multimodal model:
#: VC_ec_producer_text_model), and ``--mm-encoder-only``, which turns prefix caching off for a multimodal model (read
#: by the Mamba cache set-up and validate_mamba_block_size, among others)
ENCODER_ONLY_OPTIONS = ("--mm-encoder-only", "--ec-transfer-config")


def _encoder_only_instance(release, cmd, verdict: Verdict) -> Optional[str]:
    """Why VllmConfig's checks cannot be decided (0.29.0+, an option of :data:`ENCODER_ONLY_OPTIONS` given), else
    None.  Decided: ``--mm-encoder-only`` for a model whose class takes no multimodal input (a MultiModalConfig field:
    without that config it does nothing), and an EC producer-only ``--ec-transfer-config`` for such a model (refused by
    VC_ec_producer_text_model).  Not modelled: an encoder-only multimodal model (prefix caching turned off later in
    VllmConfig) and the encoder-cache consumer roles' effects."""
    if not release.within("0.29.0") or verdict.check == "VC_ec_producer_text_model":
        return None
    from .archs import arch_flag

    facts = verdict.facts
    multimodal = (arch_flag(facts.architectures, "supports_multimodal", release)
                  if isinstance(facts, ModelFacts) else None)
    for word in cmd.passed_over:
        name = word.partition("=")[0].replace("_", "-") if isinstance(word, str) else None
        if name not in ENCODER_ONLY_OPTIONS:
            continue
        if multimodal is False and (name == "--mm-encoder-only" or cmd.fields.get("ec_producer_only")):
            continue
        if name == "--ec-transfer-config" and multimodal is False:
            return (f"{name}: vLLM {release.version}'s VllmConfig reads an encoder-cache consumer's (or a config "
                    "without a producer-only role's) --ec-transfer-config in checks kvguard does not model")
        return (f"{name}: vLLM {release.version} resolves an encoder-only instance first thing in VllmConfig (an "
                "encoder-only multimodal model runs without prefix caching, which the checks after it read), which "
                "kvguard does not model")
    return None


def _first_row(stage: str) -> str:
    from .rules.table import RULES

    return next(row.id for row in RULES if row.stage == stage)


def _import_refusal(release, launch, env: Optional[dict], env_from_os: bool) -> Optional[Verdict]:
    """What vLLM refuses when it is imported, before its argument parser runs and the model is resolved (to 0.30.0, a
    logging config file with logging configuration off, or a log level Python's logging lacks:
    kvguard.rules.host_options.import_refusal), from the launch's variables; Undecidable where 0.13.0 - 0.14.1 would
    refuse VLLM_ATTENTION_BACKEND while building the parser (kvguard.rules.attention_env)."""
    from .launch.argv import ServeCommand, launcher_and_arguments, split_command
    from .rules.host_options import import_refusal_verdict

    if release.within("0.31.0"):
        return None
    variables = {k: v for k, v in os.environ.items() if k.startswith("VLLM_")} if env_from_os else {}
    if isinstance(launch, ServeCommand):
        variables.update(launch.env)
    else:
        for word in launcher_and_arguments(split_command(launch))[0]:
            if "=" in word and not word.startswith("-"):
                name, value = word.split("=", 1)
                variables[name] = value
    variables.update(env or {})
    refused = import_refusal_verdict(release, variables)
    if refused is None:
        from .rules.attention_env import parser_refusal_undecidable

        parser_refusal_undecidable(release, variables)      # 0.13.0 - 0.14.1: before argparse
    return refused


def examine(release: "Release | str", launch: "Union[Sequence[str], str, ServeCommand]", *, host: Optional[Host] = None,
            env: Optional[dict] = None, model_config: Optional[str] = None, env_from_os: bool = False,
            allow_download: bool = False, suggest: bool = False, gpus: Optional[int] = None) -> LaunchReport:
    """Parse ``launch`` as ``release`` does, resolve the model, check it: a :class:`LaunchReport`.

    ``launch`` is a command line (a string or its tokens) or a
    :class:`~kvguard.launch.argv.ServeCommand` already parsed for ``release``.  ``host``
    defaults to :meth:`Host.standard` (the command line's assumption); ``env`` holds extra
    variables vLLM would see (the launch's own ``VAR=value`` prefixes are read from it).
    ``gpus``: the GPUs the launch's container is given (a deployment's allocation): vLLM's device
    count on a CUDA host, whatever ``host`` says of the node (``CUDA_VISIBLE_DEVICES`` then applies
    within them).  ``suggest``: for a refused launch, also find the nearest launches the release
    accepts (:func:`kvguard.suggest`)."""
    from .errors import ArgparseRefusal
    from .host_python import python_assumption
    from .launch.argv import DEFAULT_MODEL, ServeCommand, parse_serve
    from .launch.resolve import resolve_model
    from .rules.check import check, legal_dcp_sizes
    from .versions import Release, resolve

    if not isinstance(release, Release):
        release = resolve(release)      # a version string, as kvguard.check takes it
    imported = _import_refusal(release, launch, env, env_from_os)
    if imported is not None:    # to 0.30.0: before the parser, the model's resolution and any config
        return LaunchReport(imported)
    host = Host.standard() if host is None else host
    if isinstance(launch, ServeCommand):
        cmd, argv = launch, None
    else:
        try:
            cmd = parse_serve(launch if isinstance(launch, str) else list(launch), release,
                              pydantic=_host_pydantic(host, env))
        except ArgparseRefusal as parse_refusal:  # vLLM's own parser refuses the command line: that is the verdict
            return LaunchReport(argparse_verdict(release, parse_refusal, host))
        argv = launch
    vllm_env = {}
    if env_from_os:
        vllm_env.update({k: v for k, v in os.environ.items() if k.startswith("VLLM_")})
    vllm_env.update(cmd.env)
    vllm_env.update(env or {})
    from .rules.env_values import refusal_undecidable

    # after the refusals of vLLM's import and argparse: a value a getter kvguard does not model refuses
    refusal_undecidable(release, vllm_env, cmd.fields.get("grpc_port"), host.platform)
    lookup_env = dict(os.environ)
    lookup_env.update(cmd.env)
    overridden = _config_override(cmd.passed_over)
    if cmd.model is None and cmd.ignored_model is not None and not model_config:
        raise Undecidable(f"`python -m vllm.entrypoints.openai.api_server` does not read a positional model "
                          f"({cmd.ignored_model!r}): it serves --model, by default {DEFAULT_MODEL}; give the model "
                          "as --model")
    model = resolve_model(cmd.model, model_config=model_config, revision=cmd.revision, env=lookup_env,
                          allow_download=allow_download)
    from .speculative.launch import speculative_for_launch

    model, spec, refusal = speculative_for_launch(cmd, model, release, lookup_env=lookup_env,
                                                  allow_download=allow_download, model_config=model_config)
    if refusal is not None:
        _decided_before_overrides(refusal, overridden)
        return LaunchReport(refusal, model=model.name, source=model.source, location=model.location,
                            layout=dict(cmd.fields))
    if gpus is not None and host.platform == "cuda":
        from .record import replace

        # a container given N GPUs: vLLM counts those, whatever the node holds
        host = replace(host, gpus_per_node=gpus, assumed=host.assumed - {"gpus_per_node"})
    host, visible_note = _visible_gpus(host, {**cmd.env, **(env or {})})
    model_dir = _model_dir(model)
    verdict = check(model.config, vllm_version=release, env=vllm_env, host=host, model_path=model.name,
                    model_dir=model_dir, speculative_config=spec, **cmd.fields)
    _decided_before_overrides(verdict, overridden)
    _undecided_from(verdict, _first_row("verify"), _encoder_only_instance(release, cmd, verdict))
    verdict, env_assumed = _env_assumptions(verdict, release, vllm_env, host, model, model_dir, cmd.fields, spec)
    python = python_assumption(verdict.exc_type, verdict.message)
    if python is not None:      # the message's wording is the host Python's
        from .record import replace

        verdict = replace(verdict, assumptions=verdict.assumptions + (python,))
    layout = verdict.layout.model_dump() if verdict.layout is not None else dict(cmd.fields)
    legal = legal_reason = None
    if verdict.facts is not None:
        fields = {k: v for k, v in cmd.fields.items()
                  if k not in ("tensor_parallel_size", "prefill_context_parallel_size",
                               "decode_context_parallel_size")}
        try:
            legal = legal_dcp_sizes(verdict.facts, layout["tensor_parallel_size"],
                                    layout["prefill_context_parallel_size"], vllm_version=release, env=vllm_env,
                                    host=host, **fields)
        except Undecidable as exc:   # a layout too large to enumerate: the verdict stands without them
            verdict = verdict.with_notes(f"legal -dcp sizes not listed: {exc}")
        if legal is not None and not legal:
            legal_reason = _no_dcp_reason(verdict, release, vllm_env, host, model.name, cmd.fields)
    length = _length_facts(verdict, release, vllm_env, model_dir)
    if not verdict.ok and verdict.check == "MC_max_len" and length is not None:
        verdict = verdict.with_notes(*_shorter_length_note(verdict, release, length, vllm_env, host, model,
                                                           model_dir, cmd.fields))
    if not env_from_os:
        verdict = verdict.with_notes(*_unapplied_env_notes(vllm_env))
    if visible_note:
        verdict = verdict.with_notes(visible_note)
    kv_cache_dtype = layout.get("kv_cache_dtype", "auto")
    if kv_cache_dtype == "auto" and isinstance(verdict.facts, ModelFacts):
        from .quant.kv_cache import checkpoint_cache_dtype

        named = checkpoint_cache_dtype(verdict.facts.resolved_top or {}, release)
        if named not in (None, "auto"):
            kv_cache_dtype = named
            verdict = verdict.with_notes(f"KV cache: --kv-cache-dtype auto is {named} for this checkpoint (vLLM "
                                         f"{release.key} takes the KV-cache quantization its quantization_config "
                                         f"names)")
    report = LaunchReport(verdict, model=model.name, source=model.source, location=model.location,
                          layout=layout, legal_dcp_sizes=legal, legal_dcp_reason=legal_reason,
                          env_assumptions=env_assumed, length=length,
                          kv_cache_dtype=_sized_kv_cache_dtype(kv_cache_dtype))
    if suggest:
        report.suggestion_host = host
        if not verdict.ok:
            from .kv.suggestions import suggest as nearest_accepted

            if verdict.facts is None:
                report.suggestions = []
            elif argv is not None:
                report.suggestions = nearest_accepted(verdict.facts, argv=argv, vllm_version=release, env=vllm_env,
                                                      host=host, model_path=model.name, speculative_config=spec)
            else:
                report.suggestions = nearest_accepted(verdict.facts, vllm_version=release, env=vllm_env, host=host,
                                                      model_path=model.name, speculative_config=spec, **cmd.fields)
    return report


def image_launch(launch: Sequence[str], *, pinned: bool, nearest: bool = False) \
        -> "tuple[list[str], Optional[ReleaseChoice], bool]":
    """``docker run … vllm/vllm-openai:TAG ARGS`` as ``kvguard scan`` reads it: the launch, the
    release its image tag names (None when ``pinned``: a release given by the caller decides), and
    whether the launch's ``vllm serve`` stands for the image's own entrypoint (which the release
    decides: :func:`kvguard.launch.images.with_image_entrypoint`).
    Raises :class:`NotAnImageLaunch` when there is no server launch to check, and Undecidable when
    the tag names no release kvguard knows."""
    from .launch.pins import choose_release, default_release, image_pin
    from .scan import launch_and_image

    tokens, image, image_entrypoint = launch_and_image(list(launch))[:3]
    if tokens is None:
        raise NotAnImageLaunch("`docker run` is checked only with a vllm/vllm-openai image followed by the "
                               "server's arguments (or `--entrypoint vllm … serve …`)")
    if pinned:
        return tokens, None, image_entrypoint
    choice = choose_release(image_pin(image, "the command line"), None, default_release(nearest), nearest)
    if choice.release is None:
        raise Undecidable(choice.reason or f"no vLLM release for {image}")
    return tokens, choice, image_entrypoint


def command_release(launch: Sequence[str], vllm_version: Optional[str] = None, *, nearest: bool = False) \
        -> "tuple[list[str], Release, Optional[str]]":
    """The release a command line is checked against: ``vllm_version``, else the one its
    ``docker run`` / ``podman run`` image tag names, else the installed vLLM, else the newest
    supported.  Returns the launch (the server's arguments of an image launch, after the command
    that release's image starts), the release, and where it came from (``"--vllm-version"``, the
    image tag; None for the default)."""
    from .launch.images import with_image_entrypoint
    from .versions import resolve

    tokens = list(launch)
    release, source = None, "--vllm-version" if vllm_version is not None else None
    image_entrypoint = False
    if _names_a_container_cli(tokens) and _container_run(tokens):
        tokens, choice, image_entrypoint = image_launch(tokens, pinned=vllm_version is not None, nearest=nearest)
        if choice is not None:          # the image tag names the release, unless vllm_version did
            release, source = choice.release, choice.source
    if release is None:
        release = resolve(vllm_version, nearest=nearest)
    if image_entrypoint:
        tokens = with_image_entrypoint(tokens, release)
    return tokens, release, source


def launch_gpus(launch: Sequence[str]) -> Optional[int]:
    """The GPUs a ``docker run`` / ``podman run`` command line gives its container (``--gpus N``,
    ``"device=0,1"``, …: :func:`kvguard.scan.shell.container_gpus_given`); None for any other command line,
    or ``--gpus all``."""
    words = [str(word) for word in launch]
    if not _names_a_container_cli(words):
        return None
    from .scan.shell import container_gpus

    return container_gpus(words)


def _names_a_container_cli(words: Sequence[str]) -> bool:
    """A cheap first look (a plain ``vllm serve`` check imports nothing of kvguard.scan): a container CLI among
    the first words."""
    from .launch.images import CONTAINER_CLIS

    return any(str(word).rsplit("/", 1)[-1] in CONTAINER_CLIS for word in words[:8])


def _container_run(words: Sequence[str]) -> bool:
    from .scan.shell import is_container_run

    return is_container_run(list(words))


def examine_command(launch: Sequence[str], vllm_version: Optional[str] = None, *, nearest: bool = False,
                    **options: Any) -> LaunchReport:
    """:func:`examine` against :func:`command_release`'s release (``report.release_source`` says
    where it came from when not the default).  ``options`` are :func:`examine`'s."""
    tokens, release, source = command_release(launch, vllm_version, nearest=nearest)
    if "gpus" not in options:
        options = dict(options, gpus=launch_gpus(launch))
    report = examine(release, tokens, **options)
    report.release_source = source
    return report


def _model_dir(model) -> Optional[str]:
    """The local directory of the checkpoint (its files beside config.json), if there is one."""
    if model.source in ("directory", "file", "hf-cache", "hf-hub") and model.location:
        directory = model.location if os.path.isdir(model.location) else os.path.dirname(model.location)
        return directory or None
    return None


def _env_assumptions(verdict, release, env: dict, host, model, model_dir, fields: dict, spec=None):
    """The unset VLLM_* variables whose default decided ``verdict`` (kvguard.envdefaults), added to its
    assumptions as ``NAME unset``; each is checked by checking the launch again with the other value."""
    from .envdefaults import deciding_defaults
    from .record import replace
    from .rules.check import check

    if verdict.facts is None:
        return verdict, []

    def recheck(other_env: dict):
        # the facts depend on the environment only through VLLM_MLA_DISABLE
        config = model.config if "VLLM_MLA_DISABLE" in other_env and "VLLM_MLA_DISABLE" not in env \
            else verdict.facts
        return check(config, vllm_version=release, env=other_env, host=host, model_path=model.name,
                     model_dir=model_dir, speculative_config=spec, **fields)

    found = deciding_defaults(verdict, release, env, host, recheck)
    if not found:
        return verdict, []
    return replace(verdict, assumptions=verdict.assumptions + tuple(f"{a.name} unset" for a in found)), found


def _length_facts(verdict, release, env: dict, model_dir) -> Optional[dict]:
    """The maximum length of the launch for the report (kvguard.length), or None."""
    if verdict.facts is None or verdict.layout is None:
        return None
    from .length import NotModelled, find_sidecar, resolve

    lay = verdict.layout
    try:
        out = resolve(verdict.facts, release, max_model_len=lay.max_model_len,
                      disable_sliding_window=lay.disable_sliding_window, env=env,
                      sidecar=find_sidecar(None, model_dir, None))
    except (NotModelled, ArithmeticError, AttributeError, KeyError, TypeError, ValueError, NotImplementedError):
        return None
    d = out.derived
    if d.error is not None or d.default_error is not None:
        return None
    return {"derived": d.value, "key": d.key, "model_max_length": d.model_max_length, "default": d.default,
            "given": lay.max_model_len, "effective": out.final, "unread": d.unread}


def _shorter_length_note(verdict, release, length: dict, env: dict, host, model, model_dir,
                         fields: dict) -> list[str]:
    """For a --max-model-len above the derived maximum: the longest length this release accepts, once
    checked (the launch as given, that length in its place)."""
    from .rules.check import check

    longest = length.get("default")
    if not isinstance(longest, int) or longest < 1:
        return []
    again = check(verdict.facts, vllm_version=release, env=env, host=host, model_path=model.name,
                  model_dir=model_dir, **dict(fields, max_model_len=longest))
    if again.stage == "model_config" and not again.ok:
        return []
    then = "the launch with it is accepted" if again.ok else \
        f"with it the launch passes ModelConfig, then {again.check} refuses it"
    return [f"the longest --max-model-len vLLM {verdict.vllm_version} takes for this model is {longest}, the derived "
            f"maximum ({then}); VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 lets a longer one through at your own risk"]


def _sized_kv_cache_dtype(value: str) -> str:
    """The launch's KV-cache dtype when kvguard sizes it (kvguard.kv.kvsize), "auto" for an unsized value the
    command line gave, the value itself for a packed one a checkpoint names (``nvfp4``: no bytes reported)."""
    from .kv.kvsize import KV_CACHE_DTYPE_BYTES

    return value if value in KV_CACHE_DTYPE_BYTES or value == "nvfp4" else "auto"


def _visible_gpus(host: Host, env: dict) -> "tuple[Host, Optional[str]]":
    """The host as the launch sees it: ``CUDA_VISIBLE_DEVICES`` in its environment sets the GPU count vLLM
    reads (kvguard.launch.devices), with a note; a value that leaves no GPU visible is undecidable."""
    value = env.get("CUDA_VISIBLE_DEVICES")
    if value is None or host.platform != "cuda" or host.gpus_per_node is None:
        return host, None
    from .launch.devices import visible_gpu_count
    from .record import replace

    try:
        count = visible_gpu_count(str(value), host.gpus_per_node)
    except ValueError:
        raise Undecidable(f"CUDA_VISIBLE_DEVICES={value!r}: torch fails to read it (an entry that is a sign "
                          "alone), an error kvguard does not model") from None
    if count == 0:
        raise Undecidable(f"CUDA_VISIBLE_DEVICES={value!r} leaves none of the node's GPUs visible: what vLLM "
                          "does without a GPU is not modelled")
    if count is None:
        return replace(host, gpus_per_node=None), (
            f"CUDA_VISIBLE_DEVICES={value} names GPUs by UUID: how many the node matches is not known, so the "
            "checks that count GPUs are skipped")
    visible = replace(host, gpus_per_node=count, assumed=host.assumed - {"gpus_per_node"})
    return visible, (f"CUDA_VISIBLE_DEVICES={value}: vLLM counts {count} GPU{'s' if count != 1 else ''} (the "
                     f"ordinals it lists, on a node that has them)")


def _unapplied_env_notes(applied: dict) -> "list[str]":
    """kvguard's own environment is not the launch's: a VLLM_* variable set here but not given to
    the check may be what the real launch sees (it inherits the shell's), so say it was left out."""
    missing = sorted(k for k in os.environ if k.startswith("VLLM_") and k not in applied)
    if not missing:
        return []
    shown = ", ".join(missing[:8]) + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
    return [f"{shown} {'is' if len(missing) == 1 else 'are'} set in kvguard's environment but not applied to "
            "this launch; to apply them pass --env-from-os (all VLLM_* variables), --env K=V, or put "
            "K=V before `vllm serve`"]


def _no_dcp_reason(verdict, release, env, host, model_path, fields) -> Optional[dict]:
    """Why no -dcp size passes at this layout: the refusal that stands with -dcp 1 (its first
    sentence: the GPU-count message goes on over several lines)."""
    from .rules.check import check

    at_one = check(verdict.facts, vllm_version=release, env=env, host=host, model_path=model_path,
                   **dict(fields, decode_context_parallel_size=1))
    if at_one.ok:
        return None
    message = (at_one.message or "").split("\n")[0]
    if message.endswith(":") and ". " in message:
        message = message[:message.rindex(". ") + 1]
    return {"check": at_one.check, "exc_type": at_one.exc_type, "message": message}
