"""ModelConfig's maximum length, per release: the length vLLM derives from a checkpoint and what it
does with ``--max-model-len``.

Mirrors ``_get_and_verify_max_len`` (vllm/config/model.py; vllm/config/__init__.py in 0.10.2) and the
statements of ``ModelConfig.__post_init__`` around it, as facts of each release:

* the keys read from the text config, smallest value wins, ``model_max_length`` overrides (from 0.14.0
  the same loop runs in the config convertor and reaches ModelConfig as a float,
  ``ModelArchitectureConfig.derived_max_model_len_and_key``);
* ``--disable-sliding-window`` caps the length at the sliding window (0.10.2/0.11.0: also the V0
  interleaved-attention switch, ``VLLM_USE_V1=0`` with ``VLLM_ATTENTION_BACKEND`` XFORMERS/FLASHINFER;
  0.19.0+: a ``sliding_window`` of 0 means none);
* a pooling model with absolute position embeddings also reads ``model_max_length`` from
  tokenizer_config.json, and a sentence-transformers config's ``max_seq_length`` replaces the length;
* RoPE scaling multiplies it by ``factor`` (``rope_scaling`` to 0.11.2, ``rope_parameters`` after;
  not for ``su``/``longrope``/``llama3``, nor Gemma 3; YaRN restarts from
  ``original_max_position_embeddings`` up to 0.29.0 and is not scaled from 0.30.0);
* without ``--max-model-len`` (or with -1, 0.14.0+) the default is ``int(derived)`` (LongRoPE:
  ``original_max_position_embeddings``, 0.11.1+);
* a larger ``--max-model-len`` is a ValueError (its message prints the derived length as vLLM holds
  it: ``40960.0`` where it is a float) unless ``VLLM_ALLOW_LONG_MAX_MODEL_LEN`` is 1/true, or the
  config's ``model_max_length`` allows it.

Every value is read from the config object as the release holds it (``ModelFacts.resolved``), never
from config.json.  The launch checks that use this are rows of :mod:`kvguard.rules.table` (section
"ModelConfig: maximum length"); :func:`max_model_len` is the public function.  The differential test
``tests/upstream/test_length.py`` runs the releases' own ModelConfig on generated inputs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from .record import Record
from .versions import Release

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["Derived", "LengthOutcome", "NotModelled", "Sidecar", "allow_long", "default_length", "derive",
           "find_sidecar", "max_model_len",
           "outcome", "parse_length", "read_sidecar", "resolve"]

#: ``derive_max_model_len_and_key`` / the inline loop: keys tried on the text config (smallest wins)
MAX_LEN_KEYS: tuple[str, ...] = (
    "max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
    "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len",
)

#: the RoPE types whose ``factor`` does not scale the length, per release range
_NOT_SCALED_OLD = ("su", "longrope", "llama3")
_NOT_SCALED_030 = ("su", "longrope", "llama3", "yarn", "deepseek_yarn", "deepseek_llama_scaling")

#: the layer types that make ``rope_parameters`` "nested" (keyed by layer type) — transformers'
#: ALLOWED_LAYER_TYPES as vLLM imports it (module-import value: vLLM's later extension for
#: glm_moe_dsa rebinds transformers' name, not vLLM's), measured in each oracle environment
#: (tools/length_tables.py)
_BASE4 = frozenset({"full_attention", "sliding_attention", "chunked_attention", "linear_attention"})
_BASE5 = frozenset({"full_attention", "sliding_attention", "chunked_attention", "window_attention",
                    "indexed_attention", "compressed_sparse_attention", "heavily_compressed_attention",
                    "minimax_m3_sparse", "conv", "moe", "hybrid", "hybrid_sliding", "reference_sliding_attention",
                    "linear_attention", "sparse", "dense"})
NESTED_LAYER_TYPES: tuple[tuple[frozenset, str, Optional[str]], ...] = (
    (_BASE4, "0.12.0", "0.23.0"),
    (_BASE5, "0.24.0", "0.30.0"),
    ((_BASE5 - {"indexed_attention", "reference_sliding_attention"})
     | {"deepseek_sparse_attention", "qwen_sparse_attention"}, "0.31.0", "0.31.0"),
    (_BASE5 - {"reference_sliding_attention"}, "0.32.0", "0.32.0"),
    (_BASE5 | {"main", "compress"}, "0.33.0", None),   # DeepSeek-V4 nests by rope type
)

#: the release ranges of ``_get_and_verify_max_len`` (each a variant of the function)
_RANGES = (
    ("0.10.2", "0.11.0"),  # rope_scaling; no LongRoPE default
    ("0.11.1", "0.11.2"),  # + LongRoPE default, platform hook
    ("0.12.0", "0.13.0"),  # rope_parameters (layer-type nesting), the NotImplementedErrors gone
    ("0.14.0", "0.17.1"),  # the length comes from ModelArchitectureConfig (a float); -1 = auto-fit
    ("0.18.0", "0.29.0"),  # a null factor falls back to 1.0
    ("0.30.0", "0.31.0"),  # layers without RoPE left out; YaRN no longer scaled
    ("0.32.0", None),      # iter_rope_parameters
)

_NIE_ROPE = ("Disabling sliding window is not supported for models with rope_scaling. Please raise an issue so "
             "we can investigate.")
_NIE_MML = ("Disabling sliding window is not supported for models model_max_length in the config. Please raise an "
            "issue so we can investigate.")
_TOO_LONG = ("User-specified max_model_len ({max_model_len}) is greater than the derived max_model_len ({key}="
             "{derived} or model_max_length={model_max_length} in model's config.json).")
_WARNING = ("VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution. If the model uses relative position "
            "encoding (RoPE), positions exceeding derived_max_model_len lead to nan. If the model uses absolute "
            "position encoding, positions exceeding derived_max_model_len will cause a CUDA array out-of-bounds "
            "error.")
#: the ValueError's template (a row of kvguard.rules.table fills it)
TOO_LONG_TEMPLATE = (_TOO_LONG + " To allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. "
                     + _WARNING).format(max_model_len="{max_model_len}", key="{len_key}", derived="{len_derived}",
                                        model_max_length="{len_model_max_length}")
NIE_ROPE = _NIE_ROPE
NIE_MML = _NIE_MML
#: ``validate_model_config_after`` (0.23.0+: also below 1)
POSITIVE_TEMPLATE = ("max_model_len must be a positive integer, got {len_final_type}: {len_final!r}. "
                     "Example: max_model_len=2048")

#: the fallback when the config has none of the keys
DEFAULT_MAX_LEN = 2048


def _variant(release: Release) -> int:
    for i, (first, last) in enumerate(_RANGES):
        if release.within(first, last):
            return i
    return len(_RANGES) - 1


def allow_long(env: Mapping[str, str]) -> bool:
    """``envs.VLLM_ALLOW_LONG_MAX_MODEL_LEN``: ``.strip().lower() in ("1", "true")`` (every release)."""
    value = env.get("VLLM_ALLOW_LONG_MAX_MODEL_LEN")
    return value is not None and value.strip().lower() in ("1", "true")


# ---------------------------------------------------------------------------------------------
# files beside config.json that vLLM reads for the length


class Sidecar(Record):
    """What a model directory holds beyond config.json that the length depends on.

    ``pooling``: modules.json names a sentence-transformers Pooling module (vLLM's default runner is
    then "pooling"); ``encoder``: the first sentence-transformers config (sentence_bert_config.json,
    …) found, as a dict; ``tokenizer``: tokenizer_config.json as a dict (None: none)."""

    pooling: bool = False
    encoder: Optional[dict] = None
    tokenizer: Optional[dict] = None


#: ``get_sentence_transformer_tokenizer_config``: the files tried, in order
ENCODER_FILES = ("sentence_bert_config.json", "sentence_roberta_config.json", "sentence_distilbert_config.json",
                 "sentence_camembert_config.json", "sentence_albert_config.json",
                 "sentence_xlm-roberta_config.json", "sentence_xlnet_config.json")


def _json_file(path: str) -> Any:
    try:
        with open(path, "rb") as fh:
            data = fh.read(4 << 20)
        return json.loads(data)
    except (OSError, ValueError):
        return None


def read_sidecar(directory: Optional[str]) -> Optional[Sidecar]:
    """The sentence-transformers and tokenizer files of a local model directory (None: no directory)."""
    if not directory or not os.path.isdir(directory):
        return None
    modules = _json_file(os.path.join(directory, "modules.json"))
    pooling = isinstance(modules, list) and any(
        isinstance(m, dict) and m.get("type") == "sentence_transformers.models.Pooling" for m in modules)
    encoder = None
    for name in ENCODER_FILES:
        data = _json_file(os.path.join(directory, name))
        if data:
            # get_sentence_transformer_tokenizer_config keeps it only with both keys
            if isinstance(data, dict) and "max_seq_length" in data and "do_lower_case" in data:
                encoder = data
            break
    tokenizer = _json_file(os.path.join(directory, "tokenizer_config.json"))
    return Sidecar(pooling=pooling, encoder=encoder, tokenizer=tokenizer if isinstance(tokenizer, dict) else None)


def find_sidecar(config: Any, model_dir: Optional[str], model_path: Optional[str]) -> Optional[Sidecar]:
    """The files beside config.json for a check: ``model_dir``, else the directory ``config`` names
    (a config.json path or its directory), else ``model_path`` when it is a local directory."""
    directory = model_dir
    if directory is None:
        if isinstance(config, (str, os.PathLike)):
            path = os.fspath(config)
            directory = path if os.path.isdir(path) else os.path.dirname(path)
        elif model_path is not None:
            directory = model_path
    return read_sidecar(directory)


# ---------------------------------------------------------------------------------------------
# the derivation


class NotModelled(Exception):
    """The length depends on something kvguard does not see (not a vLLM exception)."""


class Derived(Record):
    """The part of ``_get_and_verify_max_len`` that does not depend on ``--max-model-len``."""

    #: the derived length before RoPE scaling / the encoder override, and whether it was infinite
    #: (no key: then a user value is returned as it is)
    infinite: bool
    #: the derived length vLLM compares with (int or float, as vLLM holds it) and its key
    value: Any
    key: Any
    #: the config's ``model_max_length`` (None when absent)
    model_max_length: Any
    #: what ModelConfig ends with when no length is given (None when computing it raises: ``error``)
    default: Optional[int]
    #: the exception vLLM's statements raise on the way (a crash or a NotImplementedError), if any;
    #: raised only when that statement is reached (not for an infinite length with a user value)
    error: Optional[BaseException] = None
    #: raised for the default only (the LongRoPE / int() conversion of the no-length path)
    default_error: Optional[BaseException] = None
    #: the derivation reads files kvguard did not see (a pooling model without its directory)
    unread: Optional[str] = None
    #: disable_sliding_window as ModelConfig holds it after its own switches
    disable_sliding_window: bool = False


def _get(attrs: Mapping[str, Any], name: str, default: Any = None) -> Any:
    return attrs.get(name, default)


def _is_nested(params: Any, release: Release) -> bool:
    if not params:
        return False
    for types, first, last in NESTED_LAYER_TYPES:
        if release.within(first, last):
            return set(params.keys()).issubset(types)
    return False


def runner_is_pooling(facts: Any, release: Release, sidecar: Optional[Sidecar]) -> bool:
    """``_get_default_runner_type`` for ``--runner auto``: a sentence-transformers Pooling module in
    modules.json (when the directory was read), else the first architecture the registry knows
    (pooling / text generation), else the architecture-name suffix defaults."""
    from .archs import arch_flag, registered_arch, suffix_runner

    if sidecar is not None and sidecar.pooling:
        return True
    for arch in facts.architectures or ():
        if not isinstance(arch, str):
            continue
        if registered_arch([arch], release) == arch:
            if arch_flag(facts.architectures, "is_pooling_model", release):
                return True
            if arch_flag(facts.architectures, "is_text_generation_model", release):
                return False
        runner = suffix_runner(arch, release)
        if runner is not None:
            return runner == "pooling"
    return False


def derive(facts: Any, release: Release, *, disable_sliding_window: bool = False,
           env: Optional[Mapping[str, str]] = None, sidecar: Optional[Sidecar] = None) -> Derived:
    """The derived maximum length of ``facts`` (kvguard.ModelFacts) under ``release``.

    ``sidecar``: the model directory's files (None: not read; a pooling model's length then depends
    on files kvguard did not see, said in ``unread``).  Raises :class:`NotModelled` for a config
    kvguard cannot follow."""
    env = env or {}
    text = facts.resolved
    v = _variant(release)
    dsw = bool(disable_sliding_window)
    # ModelConfig.__post_init__ before the call
    sliding = _get(text, "sliding_window")
    if v == 0 and not dsw and _interleaved(text):
        if not _use_v1(env) and env.get("VLLM_ATTENTION_BACKEND") in ("XFORMERS", "FLASHINFER"):
            dsw = True
    if release.within("0.19.0") and sliding == 0:
        dsw = True
        sliding = None
    unread = None
    pooling = runner_is_pooling(facts, release, sidecar)
    tokenizer = None
    if pooling and _get(facts.resolved_top, "position_embedding_type", "") == "absolute":
        if sidecar is None:
            unread = "tokenizer_config.json (model_max_length) of a pooling model with absolute positions"
        else:
            tokenizer = sidecar.tokenizer
    if sidecar is None and pooling and unread is None:
        unread = "the sentence-transformers config (max_seq_length) of a pooling model"
    encoder = sidecar.encoder if sidecar is not None else None

    # 1. the keys
    if v >= 3:
        value, key = _arch_derived(facts, text)
    else:
        value, key = float("inf"), None
        for name in MAX_LEN_KEYS:
            got = _get(text, name)
            if got is not None:
                key = name if got < value else key
                value = min(value, got)
        tmp = _get(text, "model_max_length")
        if tmp:
            key, value = "model_max_length", tmp
    # 2. --disable-sliding-window
    if dsw and sliding is not None and sliding < value:
        key, value = "sliding_window", sliding
    # 3. tokenizer_config.json
    if tokenizer:
        value = min(value, tokenizer.get("model_max_length", value))
    infinite = value == float("inf")
    if infinite:
        value = DEFAULT_MAX_LEN
    mml = _get(text, "model_max_length")
    error = None
    rope = None
    try:
        value, rope = _rope(text, release, v, value, dsw)
    except (KeyError, TypeError, AttributeError, ValueError, NotImplementedError, ArithmeticError) as exc:
        error = exc
    if error is None and encoder and "max_seq_length" in encoder:
        value = encoder["max_seq_length"]
    default = default_error = None
    if error is None:
        try:
            default = _default(text, v, value, rope)
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            default_error = exc
    return Derived(infinite=infinite, value=value, key=key, model_max_length=mml, default=default,
                   error=error, default_error=default_error, unread=unread, disable_sliding_window=dsw)


def _interleaved(text: Mapping[str, Any]) -> bool:
    """``is_interleaved`` (0.10.2/0.11.0)."""
    layer_types = _get(text, "layer_types")
    if layer_types:
        return {"full_attention", "sliding_attention"}.issubset(layer_types)
    return False


def _use_v1(env: Mapping[str, str]) -> bool:
    """``envs.VLLM_USE_V1`` in 0.10.2/0.11.0: ``bool(int(os.getenv("VLLM_USE_V1", "1")))``."""
    return bool(int(env.get("VLLM_USE_V1", "1")))


def _arch_derived(facts: Any, text: Mapping[str, Any]) -> tuple[Any, Any]:
    """``ModelArchitectureConfig.derived_max_model_len_and_key`` (0.14.0+): the same loop in the
    convertor, validated as ``tuple[float, str | None]`` (an int length becomes a float)."""
    if facts.model_type == "moss_audio":
        raise NotModelled("the MOSS-Audio convertor reads language_config.max_position_embeddings")
    value, key = float("inf"), None
    for name in MAX_LEN_KEYS:
        got = _get(text, name)
        if got is not None:
            if got < value:
                key = name
            value = min(value, got)
    tmp = _get(text, "model_max_length")
    if tmp:
        key, value = "model_max_length", tmp
    if type(value) is bool or not isinstance(value, (int, float)):
        raise NotModelled(f"the derived length {value!r:.40} as pydantic's float")
    return float(value), key


def _rope_list(text: Mapping[str, Any], release: Release, v: int) -> Optional[list]:
    """The per-layer RoPE dicts the release loops over (None: no RoPE block at all)."""
    if v <= 1:
        return None
    params = _get(text, "rope_parameters")
    if v >= 6:   # iter_rope_parameters
        if not isinstance(params, dict):
            return []
        if _is_nested(params, release):
            return [p for p in params.values() if isinstance(p, dict) and p]
        return [params] if params else []
    if params and not _is_nested(params, release):
        params = {"": params}
    if params is None:
        return None
    if v >= 5:
        params = {k: p for k, p in params.items() if p is not None}
    return list(params.values())


def _rope(text: Mapping[str, Any], release: Release, v: int, value: Any, dsw: bool) -> tuple[Any, Any]:
    if v <= 1:
        scaling = _get(text, "rope_scaling")
        if scaling is not None and "gemma3" not in _model_type(text):
            rope_type = scaling["rope_type"]
            if rope_type not in _NOT_SCALED_OLD:
                if dsw:
                    raise NotImplementedError(_NIE_ROPE)
                factor = scaling.get("factor", 1.0)
                if rope_type == "yarn":
                    value = scaling["original_max_position_embeddings"]
                value *= factor
        return value, scaling
    rope = _rope_list(text, release, v)
    if (rope if v >= 6 else rope is not None) and "gemma3" not in _model_type(text):
        factor = 1.0
        not_scaled = _NOT_SCALED_030 if v >= 5 else _NOT_SCALED_OLD
        assert rope is not None  # the test above: truthy (v >= 6) or not None
        for rp in rope:
            rope_type = rp["rope_type"]
            if rope_type not in not_scaled:
                factor = rp.get("factor", factor)
                if v <= 4 and rope_type == "yarn":
                    value = rp["original_max_position_embeddings"]
        if v >= 4 and factor is None:
            factor = 1.0
        value *= factor
    return value, rope


def _model_type(text: Mapping[str, Any]) -> Any:
    """``hf_config.model_type`` (the text config's)."""
    if "model_type" not in text:
        raise NotModelled("a text config without model_type")
    return text["model_type"]


def _default(text: Mapping[str, Any], v: int, value: Any, rope: Any) -> int:
    """``max_model_len`` when none is given (or -1, 0.14.0+)."""
    if v == 1:
        longrope = rope is not None and rope["rope_type"] == "longrope"
    elif v >= 2:
        longrope = rope is not None and any(rp["rope_type"] == "longrope" for rp in rope)
    else:
        longrope = False
    if longrope:
        return int(_get(text, "original_max_position_embeddings", value))
    return int(value)


# ---------------------------------------------------------------------------------------------
# the user's value


class LengthOutcome(Record):
    """What ModelConfig does with one ``--max-model-len`` (``user``; None = not given)."""

    user: Optional[int]
    #: the max_model_len ModelConfig ends with (None when a statement refused)
    final: Optional[int]
    #: None, "disable_sw_mml" (NotImplementedError, 0.10.2–0.11.2), "too_long" (the ValueError),
    #: "warned" (too long, allowed by VLLM_ALLOW_LONG_MAX_MODEL_LEN), "error" (a crash: ``error``)
    fired: Optional[str]
    derived: Derived
    error: Optional[BaseException] = None


def outcome(derived: Derived, user: Optional[int], release: Release, env: Mapping[str, str]) -> LengthOutcome:
    """``_get_and_verify_max_len``'s end for a given ``--max-model-len``."""
    v = _variant(release)
    if derived.infinite and user is not None:
        return LengthOutcome(user, user, None, derived)
    if derived.error is not None:
        return LengthOutcome(user, None, "error", derived, derived.error)
    auto = user is None or (v >= 3 and user == -1)
    if auto:
        if derived.default_error is not None:
            return LengthOutcome(user, None, "error", derived, derived.default_error)
        return LengthOutcome(user, derived.default, None, derived)
    assert user is not None  # not auto
    if user > derived.value:
        mml = derived.model_max_length
        if v <= 1:
            if mml is not None and user <= mml:
                if derived.disable_sliding_window:
                    return LengthOutcome(user, None, "disable_sw_mml", derived)
                return LengthOutcome(user, int(user), None, derived)
        elif not (mml is None or user > mml):
            return LengthOutcome(user, int(user), None, derived)
        if allow_long(env):
            return LengthOutcome(user, int(user), "warned", derived)
        return LengthOutcome(user, None, "too_long", derived)
    return LengthOutcome(user, int(user), None, derived)


# ---------------------------------------------------------------------------------------------
# --max-model-len as the releases parse it


def parse_length(value: str, release: Release, *, or_auto: Optional[bool] = None) -> int:
    """``human_readable_int`` (to 0.13.0) / ``human_readable_int_or_auto`` (0.14.0+) on one value; ``or_auto``
    names the function (None: --max-model-len's, by release; --max-num-batched-tokens takes ``human_readable_int``).

    Raises ``ValueError`` (argparse then prints "invalid <type name> value: '…'") or
    ``argparse.ArgumentTypeError`` (printed as its message) exactly where the release's function does.
    """
    import argparse
    import re

    if release.within("0.14.0") if or_auto is None else or_auto:
        value = value.strip()
        if value == "-1" or value.lower() == "auto":
            return -1
    value = value.strip()
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmMgGtT])", value)
    if match:
        decimal = {"k": 10**3, "m": 10**6, "g": 10**9}
        binary = {"K": 2**10, "M": 2**20, "G": 2**30}
        if release.within("0.13.0"):
            decimal["t"] = 10**12
            binary["T"] = 2**40
        number, suffix = match.groups()
        if suffix in decimal:
            return int(float(number) * decimal[suffix])
        if suffix in binary:
            try:
                return int(number) * binary[suffix]
            except ValueError:
                raise argparse.ArgumentTypeError(
                    f"Decimals are not allowed with binary suffixes like {suffix}. Did you mean to use "
                    f"{number}{suffix.lower()} instead?") from None
    return int(value)


# ---------------------------------------------------------------------------------------------
# public


def resolve(facts: Any, release: Release, *, max_model_len: Optional[int] = None, disable_sliding_window: bool = False,
            env: Optional[Mapping[str, str]] = None, sidecar: Optional[Sidecar] = None) -> LengthOutcome:
    """:func:`derive` then :func:`outcome`: what ModelConfig does with ``max_model_len`` for ``facts``.
    Raises :class:`NotModelled`, or the exception vLLM's own statements raise on the way."""
    env = env or {}
    return outcome(derive(facts, release, disable_sliding_window=disable_sliding_window, env=env, sidecar=sidecar),
                   max_model_len, release, env)


def default_length(facts: Any, release: Release, *, env: Optional[Mapping[str, str]] = None,
                   disable_sliding_window: bool = False, sidecar: Optional[Sidecar] = None) -> Optional[Derived]:
    """The :class:`Derived` length of ``facts`` when ModelConfig takes it without raising and kvguard
    read everything it depends on (None otherwise): what ``audit``, ``plan`` and the capacity
    prediction use when no ``--max-model-len`` is given, as vLLM does."""
    try:
        derived = derive(facts, release, disable_sliding_window=disable_sliding_window, env=env or {},
                         sidecar=sidecar)
    except (NotModelled, ArithmeticError, AttributeError, KeyError, TypeError, ValueError, NotImplementedError):
        return None
    if derived.error is not None or derived.default_error is not None or derived.unread is not None:
        return None
    if not isinstance(derived.default, int) or derived.default < 1:
        return None
    return derived


def max_model_len(config: Any, *, vllm_version: Optional[str] = None, max_model_len: Optional[int] = None,
                  disable_sliding_window: bool = False, env: Optional[Mapping[str, str]] = None,
                  model_dir: Optional[str] = None, nearest: bool = False, trust_remote_code: bool = False) -> int:
    """The ``max_model_len`` vLLM's ModelConfig ends with for ``config`` (what its startup log calls
    "Using max model len"): the derived maximum when ``max_model_len`` is None (or -1, 0.14.0+),
    else the given length once ModelConfig accepts it.

    ``config`` as for :func:`kvguard.check`; ``model_dir``: the checkpoint directory, whose
    sentence-transformers / tokenizer files vLLM also reads.  Raises what vLLM raises when ModelConfig
    refuses (a pydantic ``ValidationError`` titled ModelConfig, or the raw exception — as
    :func:`kvguard.validate`), :class:`~kvguard.Undecidable` when the answer depends on what kvguard
    does not see."""
    from .errors import Undecidable
    from .rules.check import check, resolve_release, to_exception

    fields: dict[str, Any] = {"max_model_len": max_model_len, "disable_sliding_window": disable_sliding_window}
    if trust_remote_code:
        fields["trust_remote_code"] = True
    verdict = check(config, vllm_version=vllm_version, env=env, nearest=nearest, model_dir=model_dir, **fields)
    if not verdict.ok and verdict.stage == "model_config":
        raise to_exception(verdict)
    release = resolve_release(vllm_version, nearest)
    sidecar = find_sidecar(config, model_dir, None)
    try:
        out = resolve(verdict.facts, release, max_model_len=max_model_len,
                      disable_sliding_window=disable_sliding_window, env=env, sidecar=sidecar)
    except NotModelled as exc:
        raise Undecidable(f"the maximum length: {exc}") from None
    if out.derived.unread is not None:
        raise Undecidable(f"the maximum length also reads {out.derived.unread}; pass the model directory")
    if out.final is None:
        # ModelConfig's own refusal was raised above, so a missing length here is a gap between
        # kvguard's two readings, never vLLM's answer
        raise Undecidable(f"the maximum length: ModelConfig's outcome is {out.fired!r} with no length")
    return out.final
