"""A command line's speculative decoding: what the command-line tools hand to :func:`kvguard.check`.

``speculative_for_launch`` follows ``EngineArgs.create_engine_config`` before the target's ModelConfig: a
served speculators checkpoint is replaced by its verifier (``maybe_override_with_speculators``, 0.11.0+),
and the draft a speculative config names is found like the target (local directory, Hugging Face cache,
the Hub only with ``--allow-download``, the catalog).
"""

from __future__ import annotations

from ..errors import Undecidable
from ..verdict import Verdict
from ..versions import Release
from . import SpeculativeInput

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["speculative_for_launch", "input_from_command"]


def _resolver(lookup_env, allow_download: bool):
    def resolve(name: str, revision: Optional[str]):
        from ..launch.resolve import resolve_model

        found = resolve_model(name, revision=revision, env=lookup_env, allow_download=allow_download)
        return found.config, f"{found.source}: {found.location}"
    return resolve


def input_from_command(cmd: Any, config: Any, *, model_path: Optional[str] = None,
                       lookup_env: Optional[dict] = None, allow_download: bool = False) -> Optional[SpeculativeInput]:
    """The SpeculativeInput of a parsed command line (None when it enables no speculative decoding)."""
    from ..facts import ModelFacts

    spec = cmd.speculative or {}
    conf = spec.get("speculative_config")
    flags = {k: v for k, v in spec.items() if k != "speculative_config"}
    if conf is None and not any(v is not None for v in flags.values()):
        return None
    if conf is not None and not isinstance(conf, dict):
        raise Undecidable(f"--speculative-config {conf!r:.60} is not a JSON object: what vLLM does with it is not "
                          "modelled")
    target_raw = None if isinstance(config, ModelFacts) else config
    return SpeculativeInput(config=conf, flags=flags, target_model=model_path or cmd.model or "/model",
                            target_raw=target_raw if isinstance(target_raw, dict) else None,
                            resolve=_resolver(lookup_env or {}, allow_download),
                            trust_remote_code=bool(cmd.fields.get("trust_remote_code", False)))


def speculative_for_launch(cmd: Any, model: Any, release: Release, *, lookup_env: dict, allow_download: bool,
                           model_config: Optional[str] = None) -> tuple[Any, Optional[SpeculativeInput],
                                                                         Optional[Verdict]]:
    """(the model vLLM serves, the launch's SpeculativeInput or None, a Verdict when vLLM refuses the launch
    before its ModelConfig — a malformed speculators checkpoint)."""
    from ..launch.resolve import ResolvedModel, resolve_model
    from . import speculators

    notes: tuple[str, ...] = ()
    conf = (cmd.speculative or {}).get("speculative_config")
    if model_config is None and speculators.is_speculators(model.config) or (
            model_config is None and isinstance(model.config, dict) and model.config.get("speculators_config")):
        try:
            found = speculators.served_override(model.name, model.config, conf, release)
        except speculators.SpeculatorsError as exc:
            verdict = Verdict(ok=False, vllm_version=release.key, stage="engine_args", check="EA_speculators",
                              exc_type=exc.exc_type, message=exc.message)
            return model, None, verdict
        if found is not None:
            verifier, new_conf, notes = found
            speculators_model = model.name
            model = resolve_model(verifier, env=lookup_env, allow_download=allow_download)
            model = ResolvedModel(verifier, model.config, model.source, model.location)
            cmd.speculative = dict(cmd.speculative or {})
            cmd.speculative["speculative_config"] = new_conf
            del speculators_model
    spec = input_from_command(cmd, model.config, model_path=model.name, lookup_env=lookup_env,
                              allow_download=allow_download)
    if spec is not None and notes:
        spec = SpeculativeInput(config=spec.config, flags=spec.flags, target_model=spec.target_model,
                                target_raw=spec.target_raw, resolve=spec.resolve,
                                trust_remote_code=spec.trust_remote_code, origin="speculators checkpoint",
                                notes=notes)
    elif spec is None and notes:
        # 0.10.2: the verifier is served without speculative decoding; the note still says why
        spec = None
    return model, spec, None
