"""ModelConfig's quantization checks: ``ModelConfig._verify_quantization``, 0.10.2 – 0.33.0.

Mirrors vllm/config/__init__.py (0.10.2) and vllm/config/model.py (0.11.0+), ``_verify_quantization``,
which runs at the end of ``ModelConfig.__post_init__`` (after the maximum length): the checkpoint's
quantization method (``quantization_config``, else ``compression_config``, else the text config's;
``quant_method`` lower-cased, ``compressed_tensors`` spelled ``compressed-tensors``; from 0.11.0 an
empty method reads as None), the override loop (a method whose ``override_quantization_method``
claims the checkpoint becomes the method, so it never mismatches), then three refusals, each a
``ValueError`` that pydantic wraps (``ModelConfig``):

- the checkpoint's method differs from ``--quantization``;
- the method is not one of the release's ``QUANTIZATION_METHODS`` (``--quantization`` takes any string:
  argparse has no choices for it), the list printed in the message (kvguard/data/quant_methods.json);
- 0.14.0+: a deprecated method without ``--allow-deprecated-quantization`` (vLLM passes the format string
  and the method as two arguments to ``ValueError``: the message is the tuple's repr).

The platform's own ``verify_quantization`` accepts every method on CUDA (no list of supported methods).

What is decided: checkpoints without quantization, those whose method no override claims for the
``--quantization`` given on CUDA, ``humming`` (0.20.0+) / ``gguf`` (0.20.0 – 0.23.0), whose overrides claim
any checkpoint, DeepSeek-V4's FP8 override (0.20.0+, :mod:`kvguard.quant.dsv4_fp8`), and MXFP4 checkpoints
(``quant_method`` ``mxfp4``, vllm/model_executor/layers/quantization/mxfp4.py): no override claims one up to 0.19.1;
from 0.20.0 ``GptOssMxfp4Config`` claims a ``gpt_oss`` model's whatever ``--quantization`` names, an unknown name
included (no mismatch, no unknown-method refusal), except ``humming``: humming's override, asked first when named,
claims it on 0.20.x and refuses it from 0.21.0 (mxfp4.py, humming.py); another model's MXFP4 checkpoint no override
claims (the plain checks); Kimi-K3's compressed-tensors mxfp4-pack-quantized checkpoint, which its model-config hook
rewrites to ``mxfp4`` first (0.27.0+, :func:`kvguard.quant.kimi_k3.rewritten_method`); ModelOpt checkpoints
(:mod:`kvguard.quant.modelopt`: the normalization of the nested
export, its "Unknown ModelOpt quant algo" refusal, the four ModelOpt overrides, 0.24.0's unlisted ``mxfp8``).  The
overrides kvguard leaves open (reported as not modelled): auto-round checkpoints, the BitBLAS / Marlin-24
checkpoint formats (up to 0.15.1), DeepSeek-V4's override of a Quark checkpoint or of another DeepSeek-V4 model
type, ``moe_wna16`` requested for an AWQ / GPTQ checkpoint, the Marlin conversion of an AWQ / GPTQ checkpoint that
does not plainly fit Marlin (before the unified methods of 0.24.0 / 0.22.0) and
GPTQ's BitBLAS conversion (up to 0.15.1, a host fact).  An AWQ / GPTQ checkpoint an override claims (or
named as it is) goes on to :mod:`kvguard.quant`'s kernel path (``deferred``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from functools import lru_cache

from ..record import Record, field, replace
from . import dsv4_fp8 as _dsv4
from . import kimi_k3 as _kimi_k3
from . import modelopt as _modelopt

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["VerifyOutcome", "checkpoint_method", "methods", "verify"]

# os.path, not pathlib: pathlib (and the urllib it imports) costs a cold check a few milliseconds
_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "quant_methods.json")


@lru_cache(maxsize=1)
def _ranges() -> list[dict]:
    with open(_DATA, encoding="utf-8") as fh:
        return json.load(fh)["ranges"]


def methods(release) -> tuple[list[str], list[str]]:
    """(QUANTIZATION_METHODS, DEPRECATED_QUANTIZATION_METHODS) of a release."""
    for row in _ranges():
        if release.within(row["since"], row["until"]):
            return row["methods"], row["deprecated"]
    raise LookupError(f"no quantization methods for vLLM {release.version}")


class VerifyOutcome(Record):
    """``check`` (a rule id of the model_config stage) and ``values`` of the refusal, or ``check=None``;
    ``quantization``: the method ModelConfig ends with (when known); ``deferred``: an AWQ / GPTQ override
    decides it (kvguard.quant's kernel path); ``unmodelled``: why kvguard cannot decide."""

    check: Optional[str] = None
    values: Mapping[str, Any] = field(default_factory=dict)
    quantization: Optional[str] = None
    deferred: bool = False
    unmodelled: Optional[str] = None
    #: the answer holds for CUDA only: it read an AWQ / GPTQ override (CPU / XPU methods of their own claim
    #: those checkpoints) or passed the platform's verify_quantization (other platforms list their methods)
    reads_platform: bool = False


class _NotModelled(Exception):
    pass


def _read_config(top: Mapping[str, Any], release) -> Optional[Mapping[str, Any]]:
    """``quantization_config``, else ``compression_config`` of one config level (None: neither), a
    ``quantization_config`` with the ``quant_method`` the ModelOpt normalization writes (kvguard.quant.modelopt;
    raises its UnknownAlgo)."""
    for key in ("quantization_config", "compression_config"):
        if key in top:
            value = top[key]
            if not isinstance(value, Mapping):
                raise _NotModelled(f"a {key} that is not a mapping ({type(value).__name__}) is not modelled")
            if key == "quantization_config":
                try:
                    written = _modelopt.normalize(value, release)
                except _modelopt.NotRead as exc:
                    raise _NotModelled(str(exc)) from None
                if written is not None:
                    value = {**value, "quant_method": written}
            return value
    return None


def checkpoint_method(resolved_top: Mapping[str, Any], resolved: Mapping[str, Any], release
                      ) -> tuple[Optional[Mapping[str, Any]], Optional[str]]:
    """(the checkpoint's quantization config, its method as ``_verify_quantization`` reads it); (None, None)
    without one.  Raises _NotModelled for what kvguard does not read, kvguard.quant.modelopt.UnknownAlgo for the
    ModelOpt normalization's refusal."""
    cfg = _read_config(resolved_top, release)
    if cfg is None and isinstance(resolved_top.get("text_config"), Mapping):
        cfg = _read_config(resolved_top["text_config"], release)
    elif cfg is None and resolved is not resolved_top and _read_config(resolved, release) is not None:
        # a text config kvguard resolved from another key: vLLM reads only ``text_config``
        raise _NotModelled("a quantization config in a sub-config other than text_config is not modelled")
    if cfg is None:
        return None, None
    raw = cfg.get("quant_method", "")
    if not isinstance(raw, str):
        raise _NotModelled(f"a quant_method that is not a string ({raw!r}) is not modelled")
    method = raw.lower().replace("compressed_tensors", "compressed-tensors")
    # (0.27.0+) Kimi-K3's model-config hook rewrites its MXFP4 compressed-tensors config before the checks read it
    method = _kimi_k3.rewritten_method(resolved_top, cfg, release) or method
    return {**cfg, "quant_method": method}, method


#: the check id of the ModelOpt normalization's refusal of a quant_algo it does not list
MODELOPT_ALGO = "MC_quant_modelopt_algo"


def modelopt_algo_refusal(resolved_top: Mapping[str, Any], resolved: Mapping[str, Any], release
                          ) -> tuple[Optional[str], Optional[str]]:
    """(the algorithm the ModelOpt normalization refuses, why kvguard cannot tell): what
    ``_normalize_quantization_config`` does when ModelConfig builds its model_arch_config (0.14.0+, before the
    dtype and the maximum length), reading only the quantization config (kvguard.quant.modelopt)."""
    try:
        checkpoint_method(resolved_top, resolved, release)
    except _modelopt.UnknownAlgo as exc:
        return str(exc.args[0]), None
    except _NotModelled as exc:
        return None, str(exc)
    return None, None


#: the keys ModelOpt's and auto-round's overrides read besides ``quant_method``: an MXFP4 config with none of
#: them is claimed by no override up to 0.19.1, by the gpt-oss one only from 0.20.0
_OTHER_OVERRIDE_KEYS = ("quantization", "quant_algo", "producer", "checkpoint_format", "is_bitblas_format")


#: the check id of humming's refusal of a gpt-oss MXFP4 checkpoint (0.21.0+), as gpt_oss_mxfp4 returns it
GPT_OSS_HUMMING = "MC_quant_gpt_oss_humming"


def gpt_oss_mxfp4(cfg: Mapping[str, Any], method: str, user: Optional[str], model_type: Any,
                  release) -> "str | None | bool":
    """What the override loop does with an MXFP4 checkpoint (``quant_method`` ``mxfp4``): False when kvguard
    does not decide it, None when no override claims it (the plain checks and the humming / gguf overrides that
    claim any checkpoint follow), :data:`GPT_OSS_HUMMING` for humming's refusal, else the method ModelConfig ends
    with.  No override claims an MXFP4 checkpoint up to 0.19.1.  From 0.20.0 ``GptOssMxfp4Config`` claims the
    checkpoint of a ``gpt_oss`` model (its ``model_type``) whatever --quantization names, an unknown name
    included (the loop replaces it before the name is looked up); the overrides asked before it (the AWQ / GPTQ
    ones, inc, moe_wna16, the ModelOpt ones, mxfp8, cpu_awq) read other ``quant_method`` values, so only humming,
    asked first when named, comes before it: it claims the checkpoint on 0.20.x and refuses a gpt-oss one from
    0.21.0.  Other model types: nothing claims it (gguf's override, asked after the gpt-oss one, 0.20.0 – 0.23.0,
    and humming's take theirs when named)."""
    if method != "mxfp4" or any(key in cfg for key in _OTHER_OVERRIDE_KEYS):
        return False
    if not release.within("0.20.0") or model_type != "gpt_oss":
        return None
    if user == "humming":
        return GPT_OSS_HUMMING if release.within("0.21.0") else "humming"
    return "gpt_oss_mxfp4"


def _override_left_open(cfg: Mapping[str, Any], method: str, user: Optional[str], model_type: Any,
                        release) -> Optional[str]:
    """Why an override might claim the checkpoint (kvguard leaves it open), else None."""
    if method == "mxfp4" and gpt_oss_mxfp4(cfg, method, user, model_type, release) is not False:
        return None
    if method in ("auto-round", "mxfp4", "gpt_oss_mxfp4"):
        return f"a {method} checkpoint (its override_quantization_method) is not modelled"
    if not release.within("0.16.0") and ("checkpoint_format" in cfg or "is_bitblas_format" in cfg):
        return "a checkpoint_format / is_bitblas_format key (the BitBLAS and Marlin-24 overrides) is not modelled"
    if user == "moe_wna16" and method in ("awq", "gptq"):
        return f"--quantization moe_wna16 with a {method} checkpoint (its override) is not modelled"
    return None


#: the Marlin group sizes every release's check_marlin_supported takes (an AWQ or GPTQ checkpoint with one of
#: these, 4-bit with zero points (AWQ) or 4/8-bit symmetric (GPTQ), converts on compute capability 9.0)
_MARLIN_GROUPS = (32, 64, 128)


def _wna16_override(cfg: Mapping[str, Any], method: str, user: Optional[str], release) -> Optional[bool]:
    """Whether an override claims an AWQ / GPTQ checkpoint for ``--quantization user`` (another name than the
    checkpoint's) on CUDA, compute capability 9.0; None: kvguard cannot tell.  0.24.0+ (AWQ) / 0.22.0+ (GPTQ):
    one unified method claims every checkpoint of the family for the family's names; before, the Marlin
    method claims it for ``marlin`` and its own name when the checkpoint fits Marlin, and (up to 0.15.1) the
    GPTQ BitBLAS method for ``bitblas`` / ``gptq_bitblas`` when the BitBLAS package takes it (a host fact)."""
    if method == "awq":
        if release.within("0.24.0"):
            return user in ("awq_marlin", "auto_awq", "marlin")
        if user not in ("awq_marlin", "marlin"):
            return False
        fits = (cfg.get("bits") == 4 and cfg.get("zero_point") is True and cfg.get("group_size") in _MARLIN_GROUPS)
        return True if fits else None
    if release.within("0.22.0"):
        return user in ("gptq_marlin", "auto_gptq", "marlin")
    if user in ("bitblas", "gptq_bitblas") and not release.within("0.16.0"):
        return None
    if user not in ("gptq_marlin", "marlin"):
        return False
    fits = (cfg.get("bits") in (4, 8) and cfg.get("sym") is True and type(cfg.get("desc_act")) is bool
            and cfg.get("group_size") in (-1, *_MARLIN_GROUPS))
    return True if fits else None


def verify(resolved_top: Mapping[str, Any], resolved: Mapping[str, Any], release, user: Optional[str],
           allow_deprecated: bool = False) -> VerifyOutcome:
    """``_verify_quantization`` on CUDA for ``--quantization user`` (lower-cased first, as ModelConfig's field
    validator does)."""
    try:
        cfg, method = checkpoint_method(resolved_top, resolved, release)
    except _NotModelled as exc:
        return VerifyOutcome(unmodelled=str(exc))
    except _modelopt.UnknownAlgo as exc:
        return VerifyOutcome(MODELOPT_ALGO, {"algo": exc.args[0]})
    if isinstance(user, str):
        user = user.lower()  # ModelConfig's field validator (validate_quantization_before)
    out = _verify_read(cfg, method, resolved_top, release, user, allow_deprecated)
    if method is not None and method.startswith("modelopt") and not out.reads_platform:
        # ROCm's petit_nvfp4 override claims ModelOpt checkpoints, and other platforms list their methods
        out = replace(out, reads_platform=True)
    return out


def _verify_read(cfg: Optional[Mapping[str, Any]], method: Optional[str], resolved_top: Mapping[str, Any], release,
                 user: Optional[str], allow_deprecated: bool) -> VerifyOutcome:
    """``_verify_quantization`` after the checkpoint's config was read (and normalized)."""
    quantization = user
    if cfg is not None and method is not None:
        try:
            unlisted = _modelopt.unlisted_claim(cfg, method, release)
        except _modelopt.NotRead as exc:
            return VerifyOutcome(unmodelled=str(exc))
        if unlisted is not None:
            return VerifyOutcome(_modelopt.UNLISTED, {"name": unlisted})
        dsv4 = _dsv4.claim(method, user, resolved_top.get("model_type"), release)
        if isinstance(dsv4, str):
            return VerifyOutcome(unmodelled=dsv4)
        if dsv4:
            return _known(_dsv4.METHOD, release, allow_deprecated)
        why = _override_left_open(cfg, method, user, resolved_top.get("model_type"), release)
        if why is not None:
            known, deprecated = methods(release)
            if user is None and method in known and method not in deprecated:
                # without --quantization nothing can mismatch, and every override names a current method
                return VerifyOutcome(deferred=True)
            return VerifyOutcome(unmodelled=why)
        if not (user == "humming" and release.within("0.20.0")):
            # the ModelOpt overrides, asked after the AWQ / GPTQ, inc and moe_wna16 ones (which read other methods)
            # and before gguf's; humming's, when named, comes first of all
            try:
                modelopt = _modelopt.claim(cfg, method, release)
            except _modelopt.NotRead as exc:
                return VerifyOutcome(unmodelled=str(exc))
            if modelopt is not None:
                return _known(modelopt, release, allow_deprecated)
        claimed_by = gpt_oss_mxfp4(cfg, method, user, resolved_top.get("model_type"), release)
        if claimed_by == GPT_OSS_HUMMING:
            # raised by humming's override, asked first of all when named: no platform method comes before it
            return VerifyOutcome(GPT_OSS_HUMMING)
        if isinstance(claimed_by, str):
            return _known(claimed_by, release, allow_deprecated)
        if (user == "humming" and release.within("0.20.0")) or (user == "gguf" and release.within("0.20.0", "0.23.0")):
            # these methods' overrides claim any checkpoint when named (humming first of all from 0.20.0; its
            # refusal of a gpt-oss MXFP4 checkpoint, 0.21.0+, is gpt_oss_mxfp4's)
            return VerifyOutcome(quantization=user)
        if method in ("awq", "gptq") and (user is None or user == method):
            # the method as named or the Marlin conversion (an override): kvguard.quant's kernel path
            return VerifyOutcome(quantization=user, deferred=True)
        if method in ("awq", "gptq"):
            claimed = _wna16_override(cfg, method, user, release)
            if claimed is None:
                return VerifyOutcome(unmodelled=f"whether an override claims the {method} checkpoint for "
                                                f"--quantization {user} (its Marlin / BitBLAS compatibility) is not "
                                                f"modelled")
            if claimed:
                return VerifyOutcome(quantization=user, deferred=True)
            return VerifyOutcome("MC_quant_mismatch", {"checkpoint": method, "user": user}, reads_platform=True)
        read: Optional[str] = method
        if method == "" and release.within("0.11.0"):
            read = None
        if user is None:
            quantization = read
        elif user != read:
            return VerifyOutcome("MC_quant_mismatch", {"checkpoint": read, "user": user})
    return _known(quantization, release, allow_deprecated)


def _known(quantization: Optional[str], release, allow_deprecated: bool) -> VerifyOutcome:
    """The method ModelConfig ends with against the release's lists (unknown, then deprecated)."""
    if quantization is not None:
        known, deprecated = methods(release)
        if quantization not in known:
            return VerifyOutcome("MC_quant_unknown", {"method": quantization, "known": known})
        if release.within("0.14.0") and quantization in deprecated and not allow_deprecated:
            return VerifyOutcome("MC_quant_deprecated", {"method": quantization}, reads_platform=True)
    return VerifyOutcome(quantization=quantization, reads_platform=quantization is not None)


# ---------------------------------------------------------------------------
# VllmConfig._get_quantization_config (vllm/config/vllm.py; 0.10.2: vllm/config/__init__.py), run by
# VllmConfig.__post_init__ after ModelConfig.verify_with_parallel_config: the method's minimum GPU capability,
# then the model's dtype against the method's activation dtypes

#: get_supported_act_dtypes() of the methods kvguard names, as vLLM prints them (the same in every release that
#: has the method: awq 0.10.2 – 0.23.0, gptq 0.10.2 – 0.21.0, auto_awq 0.24.0+, auto_gptq 0.22.0+)
_ACT_DTYPES = {
    "fp8": ("bfloat16", "float16"),
    "awq": ("float16",),
    "gptq": ("float16",),
    "awq_marlin": ("float16", "bfloat16"),
    "gptq_marlin": ("float16", "bfloat16"),
    "auto_awq": ("float16", "bfloat16"),
    "auto_gptq": ("float16", "bfloat16"),
    "compressed-tensors": ("float32", "float16", "bfloat16"),
    "mxfp4": ("bfloat16",),
    "gpt_oss_mxfp4": ("bfloat16",),
    _dsv4.METHOD: _dsv4.ACT_DTYPES,
    **_modelopt.ACT_DTYPES,
}
#: get_min_capability() of those methods is at most 80 in every release (kvguard.rules.table reads the host's), but
#: the ModelOpt methods' (min_capability; VC_quant_capability decides theirs: capability_refusal)


def min_capability(method: str, release) -> int:
    """The minimum compute capability VllmConfig checks before the activation dtypes (a bound of at most 80 for the
    methods other than ModelOpt's: 80)."""
    if method in _modelopt.ACT_DTYPES:
        return max(80, _modelopt.min_capability(method, release))
    return 80

#: --dtype as ModelConfig maps an explicit value (_STR_DTYPE_TO_TORCH_DTYPE)
_EXPLICIT_DTYPES = {"half": "float16", "float16": "float16", "float": "float32", "float32": "float32",
                    "bfloat16": "bfloat16"}

def _method_built(cfg_top: Mapping[str, Any], resolved: Mapping[str, Any], release, user: Optional[str],
                  out: VerifyOutcome) -> "str | None":
    """The ``quantization`` VllmConfig builds the config of (None: none); raises _NotModelled when kvguard
    cannot tell which method an AWQ / GPTQ override chose."""
    if not out.deferred:
        return out.quantization
    cfg, method = checkpoint_method(cfg_top, resolved, release)
    if cfg is None or method not in ("awq", "gptq"):
        raise _NotModelled("the method an override chose for this checkpoint is not modelled")
    if user is not None:
        user = user.lower()
    unified = "0.24.0" if method == "awq" else "0.22.0"
    if release.within(unified):
        return f"auto_{method}"
    if user == method:
        return method  # the method as named (the Marlin override does not take its plain name)
    if user is None:
        # the Marlin override claims a checkpoint that fits Marlin (when it plainly does)
        user = "marlin"
    if _wna16_override(cfg, method, user, release):
        return f"{method}_marlin"
    raise _NotModelled(f"whether the Marlin conversion claims the {method} checkpoint is not modelled")


def _model_dtype(top: Mapping[str, Any], model_type: Any, dtype: str,
                 weights: tuple[Optional[str], Optional[str]] = (None, None)) -> str:
    """The model's dtype as ModelConfig resolves it on CUDA, compute capability 9.0 (bfloat16 and float16
    both supported): an explicit --dtype as it maps, else the checkpoint's bfloat16 / float16 (``weights``: the
    dtype the release reads from the weights when the config names none, else None and why:
    kvguard.facts.weights_dtype)."""
    dtype = str(dtype).lower()
    if dtype in _EXPLICIT_DTYPES:
        return _EXPLICIT_DTYPES[dtype]
    if dtype != "auto":
        raise _NotModelled(f"--dtype {dtype} is not modelled")
    config = top.get("dtype") or top.get("torch_dtype")
    read_from = "a checkpoint of dtype"
    if config is None:
        config, why = weights
        if config is None:
            # vLLM then reads the text / vision / encoder config's dtype, else the weights' safetensors metadata
            raise _NotModelled(why or "the model dtype of a checkpoint whose config.json has no dtype (vLLM reads "
                                      "the weights' safetensors metadata) is not modelled")
        read_from = "a checkpoint whose weights give the dtype"
    if config == "bfloat16":
        return "bfloat16"
    if config == "float16" and model_type not in ("gemma2", "gemma3", "gemma3_text", "glm4", "plamo2"):
        return "float16"
    raise _NotModelled(f"the dtype --dtype auto resolves for {read_from} {config!r} (the platform's "
                       f"preferred dtype, the pooling runner) is not modelled")


#: methods whose config ignores the checkpoint's quantization_config (``Mxfp4Config.from_config`` builds the
#: config without reading it, every release; ``GptOssMxfp4Config`` inherits it)
_CONFIG_TAKES_ANY = ("mxfp4", "gpt_oss_mxfp4")


def _config_unread(resolved_top: Mapping[str, Any], resolved: Mapping[str, Any], method: str, release
                   ) -> Optional[str]:
    """Why the method's config (built from the checkpoint's quantization config before the checks) may refuse
    the checkpoint first, or None."""
    from kvguard.quant import scheme_of

    if method in _CONFIG_TAKES_ANY:
        return None
    if method in _modelopt.ACT_DTYPES:
        try:
            cfg, _ = checkpoint_method(resolved_top, resolved, release)
        except (_NotModelled, _modelopt.UnknownAlgo):
            return f"building the {method} config from this quantization_config is not modelled"
        return _modelopt.config_unread(cfg or {}, method, release)
    if method == _dsv4.METHOD:
        # DeepseekV4FP8Config.from_config hands an fp8 / deepseek_v4_fp8 config to Fp8Config's as it is
        cfg = resolved_top.get("quantization_config")
        if not isinstance(cfg, Mapping) or str(cfg.get("quant_method", "")).lower() not in ("fp8", _dsv4.METHOD):
            return f"building the {method} config from this quantization_config is not modelled"
        return _fp8_config_unread(cfg)
    scheme = scheme_of(resolved_top, resolved)
    if scheme is None or not scheme.modelled:
        return f"building the {method} config from this quantization_config is not modelled"
    if scheme.method == "fp8":
        return _fp8_config_unread(resolved_top.get("quantization_config") or {})
    return None


def _fp8_config_unread(cfg: Mapping[str, Any]) -> Optional[str]:
    """Why ``Fp8Config.from_config`` / ``__init__`` may refuse the checkpoint's config (kvguard leaves those
    refusals open), or None: a static / dynamic activation scheme, and a well-formed weight_block_size only
    with the dynamic one."""
    scheme = cfg.get("activation_scheme")
    if scheme not in ("static", "dynamic"):
        return "an FP8 quantization_config without a static / dynamic activation_scheme is not modelled"
    block = cfg.get("weight_block_size")
    if block is None:
        return None
    if not (isinstance(block, (list, tuple)) and len(block) == 2 and all(type(b) is int and b > 0 for b in block)):
        return f"an FP8 weight_block_size of {block!r} is not modelled"
    if scheme != "dynamic":
        return "a block-wise FP8 quantization_config with a static activation_scheme (Fp8Config refuses it) is " \
               "not modelled"
    return None


#: the methods whose online quantization (``--quantization`` of a checkpoint without a quantization config)
#: kvguard models: the config VllmConfig builds takes bfloat16 / float16 activations, minimum capability at most
#: 80 (``fp8``: ``Fp8Config()`` built without a checkpoint config up to 0.30.x, the online config of the
#: fp8_per_tensor shorthand from 0.31.0; kvguard.quant.online)
ONLINE_METHODS = ("fp8",)


def is_online(resolved_top: Mapping[str, Any], resolved: Mapping[str, Any], release, user: Optional[str],
              out: VerifyOutcome) -> bool:
    """Whether ModelConfig accepted ``--quantization user`` for a checkpoint without a quantization config (the
    release then quantizes the weights as it loads them)."""
    if user is None or out.quantization is None or out.deferred or out.quantization != user.lower():
        return False
    try:
        cfg, _ = checkpoint_method(resolved_top, resolved, release)
    except (_NotModelled, _modelopt.UnknownAlgo):
        return False
    return cfg is None


#: the online-quantization names of 0.20.0 – 0.21.0 (``OnlineQuantScheme`` and ``online``, vllm/config/quantization.py):
#: EngineArgs turns them into a quantization_config, which ``get_quant_config`` refuses for a checkpoint with a
#: quantization config of its own before the activation dtypes are read (0.22.0+ builds the checkpoint's config)
_ONLINE_NAMES_0_20 = ("fp8_per_tensor", "fp8_per_block", "int8_per_channel_weight_only", "online")


#: act_dtype_refusal's second value when the answer (no refusal) holds for CUDA with compute capability 8.0+
AUTO_PASSES = "auto-passes-on-cuda-80"


def act_dtype_refusal(resolved_top: Mapping[str, Any], resolved: Mapping[str, Any], release, user: Optional[str],
                      dtype: str, out: VerifyOutcome,
                      weights: tuple[Optional[str], Optional[str]] = (None, None)) -> tuple[Optional[dict], Optional[str]]:
    """(template values of the activation-dtype refusal or None, why kvguard cannot decide or None) for a
    launch ModelConfig accepted (``out``: its quantization outcome; ``weights``: the dtype read from the weights,
    see _model_dtype); the second value is :data:`AUTO_PASSES` when no refusal follows on CUDA with compute
    capability 8.0 or more (bfloat16 and float16 supported)."""
    if out.unmodelled:
        return None, f"the method VllmConfig builds depends on ModelConfig's quantization check ({out.unmodelled})"
    try:
        method = _method_built(resolved_top, resolved, release, user, out)
        if method is None:
            return None, None  # no quantization: no quantization config is built
        if (user is not None and user.lower() != method and user.lower() in _ONLINE_NAMES_0_20
                and release.within("0.20.0", "0.21.0")):
            return None, (f"--quantization {user.lower()} (an online-quantization name) of a checkpoint an override "
                          f"claimed for {method}: get_quant_config's refusal of the online quantization_config is not "
                          f"modelled")
        if method in _ACT_DTYPES and {"float32", "float16", "bfloat16"} <= set(_ACT_DTYPES[method]):
            return None, None  # every dtype a model can have (compressed-tensors)
        if method not in _ACT_DTYPES:
            return None, f"VllmConfig's capability and activation-dtype checks of quantization method {method} are " \
                         f"not modelled"
        if is_online(resolved_top, resolved, release, user, out):
            if method not in ONLINE_METHODS:
                return None, (f"online quantization (--quantization {method} of an unquantized checkpoint): the "
                              f"method's config and its activation dtypes are not modelled")
            # online FP8: Fp8Config() up to 0.30.x, the online config of fp8_per_tensor from 0.31.0 (see
            # ONLINE_METHODS): the same activation dtypes and a minimum capability of at most 80 in every release
        else:
            why = _config_unread(resolved_top, resolved, method, release)
            if why is not None:
                return None, why
        if str(dtype).lower() == "auto" and {"bfloat16", "float16"} <= set(_ACT_DTYPES[method]):
            # --dtype auto ends with bfloat16 or float16 on CUDA 8.0+ (a float32 or unsupported checkpoint dtype
            # becomes the platform's preferred one): a method taking both passes, whatever the checkpoint's
            return None, AUTO_PASSES
        model = _model_dtype(resolved_top, resolved_top.get("model_type"), dtype, weights)
    except _NotModelled as exc:
        return None, str(exc)
    except _modelopt.UnknownAlgo:
        return None, "the ModelOpt normalization refuses the checkpoint's quant_algo (ModelConfig)"
    supported = _ACT_DTYPES[method]
    if model in supported:
        return None, None
    return {"dtype": model, "method": method,
            "supported": "[" + ", ".join(f"torch.{d}" for d in supported) + "]"}, None


def capability_refusal(resolved_top: Mapping[str, Any], resolved: Mapping[str, Any], release, user: Optional[str],
                       out: VerifyOutcome, capability: int) -> tuple[Optional[dict], Optional[str]]:
    """(template values, why kvguard cannot tell) of VllmConfig's minimum-capability refusal of the ModelOpt config
    it built (after ``from_config``, before the activation dtypes) on a CUDA GPU of compute capability
    ``capability`` (``major * 10 + minor``), for a launch ModelConfig accepted.  Only the ModelOpt methods, whose
    minimum kvguard knows per release (kvguard.quant.modelopt.min_capability); the others' is at most 80, which
    VC_quant_act_dtype reads."""
    if out.unmodelled or out.deferred or out.quantization not in _modelopt.ACT_DTYPES:
        return None, None
    method = out.quantization
    minimum = _modelopt.min_capability(method, release)
    if capability >= minimum:
        return None, None  # whatever config VllmConfig builds, this check passes
    if (user is not None and user.lower() in _ONLINE_NAMES_0_20 and user.lower() != method
            and release.within("0.20.0", "0.21.0")):
        return None, f"--quantization {user.lower()} (an online-quantization name): get_quant_config's refusal is not " \
                     f"modelled"
    if is_online(resolved_top, resolved, release, user, out):
        return None, f"online quantization with {method} (get_quant_config without a checkpoint config) is not modelled"
    why = _config_unread(resolved_top, resolved, method, release)
    if why is not None:
        return None, why
    return {"method": method, "minimum": minimum, "current": capability}, None


def modelopt_config_refusal(resolved_top: Mapping[str, Any], resolved: Mapping[str, Any], release,
                            user: Optional[str], out: VerifyOutcome) -> tuple[Optional[dict], Optional[str]]:
    """(template values, why kvguard cannot tell) of the ModelOpt FP8 / NVFP4 config's refusal of the checkpoint's
    quant_algo while VllmConfig builds it (``from_config``, before the capability and the activation dtypes), for a
    launch ModelConfig accepted with ``modelopt`` / ``modelopt_fp4``."""
    if out.unmodelled or out.deferred or out.quantization not in _modelopt.ACT_DTYPES:
        return None, None
    if (user is not None and user.lower() in _ONLINE_NAMES_0_20 and user.lower() != out.quantization
            and release.within("0.20.0", "0.21.0")):
        return None, f"--quantization {user.lower()} (an online-quantization name): get_quant_config's refusal is not " \
                     f"modelled"
    try:
        cfg, _ = checkpoint_method(resolved_top, resolved, release)
    except (_NotModelled, _modelopt.UnknownAlgo):
        return None, "the checkpoint's quantization config is not read"
    if cfg is None:
        return None, None  # online quantization: no checkpoint config to refuse
    algos, why = _modelopt.from_config_refusal(cfg, out.quantization, release)
    if algos is None:
        return None, why
    return {"algos": repr(algos)}, None


def _modelopt_built_cfg(resolved_top: Mapping[str, Any], resolved: Mapping[str, Any], release, user: Optional[str],
                        out: VerifyOutcome) -> Optional[Mapping[str, Any]]:
    """The (normalized) checkpoint config VllmConfig builds a ModelOpt config from, or None (not a ModelOpt method,
    no checkpoint config, not read, or a 0.20.x - 0.21.x online-quantization name whose refusal comes first)."""
    if out.unmodelled or out.deferred or out.quantization not in _modelopt.ACT_DTYPES:
        return None
    if (user is not None and user.lower() in _ONLINE_NAMES_0_20 and user.lower() != out.quantization
            and release.within("0.20.0", "0.21.0")):
        return None
    try:
        cfg, _ = checkpoint_method(resolved_top, resolved, release)
    except (_NotModelled, _modelopt.UnknownAlgo):
        return None
    return cfg


def modelopt_no_algo_refusal(resolved_top: Mapping[str, Any], resolved: Mapping[str, Any], release,
                             user: Optional[str], out: VerifyOutcome) -> bool:
    """Whether the shared ModelOpt from_config (0.12.0+) refuses the checkpoint config for lack of a quant_algo."""
    cfg = _modelopt_built_cfg(resolved_top, resolved, release, user, out)
    return cfg is not None and _modelopt.algo_missing(cfg, str(out.quantization), release)


def modelopt_fields_refusal(resolved_top: Mapping[str, Any], resolved: Mapping[str, Any], release,
                            user: Optional[str], out: VerifyOutcome) -> Optional[dict]:
    """Template values of the ``_from_config`` refusals that follow from_config's checks: the NVFP4 (0.12.0+) /
    MXFP8 config's of a nested mapping without its required fields (``algo``, ``missing``), MIXED_PRECISION's of an
    empty quantized_layers (``{"mixed": True}``); None otherwise (kvguard.quant.modelopt.missing_fields /
    mixed_layers_empty: only configs otherwise decided; the rest stays with VC_quant_act_dtype's reason)."""
    cfg = _modelopt_built_cfg(resolved_top, resolved, release, user, out)
    if cfg is None:
        return None
    method = str(out.quantization)
    if _modelopt.mixed_layers_empty(cfg, method, release):
        return {"mixed": True}
    found = _modelopt.missing_fields(cfg, method, release)
    if found is None:
        return None
    return {"algo": found[0], "missing": repr(found[1])}


def modelopt_init_refusal(resolved_top: Mapping[str, Any], resolved: Mapping[str, Any], release,
                          user: Optional[str], out: VerifyOutcome) -> Optional[tuple[str, dict]]:
    """(the check id, its template values) of the ModelOpt FP8 (0.14.0+) / NVFP4 (0.21.0+) / MXFP8 config's
    ``__init__`` refusal of an algorithm of another class, after from_config's checks and _from_config's
    (kvguard.quant.modelopt.init_refusal); None otherwise."""
    cfg = _modelopt_built_cfg(resolved_top, resolved, release, user, out)
    if cfg is None:
        return None
    found = _modelopt.init_refusal(cfg, str(out.quantization), release)
    if found is None:
        return None
    return found[0], {"algo": found[1]}
