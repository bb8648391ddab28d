"""DeepSeek-V4's FP8 override in ``ModelConfig._verify_quantization``, 0.20.0 – 0.33.0.

Mirrors ``DeepseekV4FP8Config.override_quantization_method`` (vllm/model_executor/models/deepseek_v4.py in
0.20.0 – 0.21.0, vllm/models/deepseek_v4/quant_config.py from 0.22.0, and the CUDA class of
vllm/models/deepseek_v41/quant_config.py from 0.30.0) and its place in the override loop of
vllm/config/model.py:

- the override claims a checkpoint whose (lower-cased) ``quant_method`` is ``fp8`` or ``deepseek_v4_fp8`` when
  the config's ``model_type`` is ``deepseek_v4`` or ``--quantization deepseek_v4_fp8`` is given; ModelConfig then
  ends with ``deepseek_v4_fp8`` whatever ``--quantization`` named (an override never mismatches);
- ``--quantization humming`` puts Humming's override first (it claims any checkpoint when named);
- ``--quantization gguf`` (0.20.0 – 0.23.0): GGUF's override claims any checkpoint when named, but every one
  of those releases lists ``gguf`` after ``deepseek_v4_fp8`` among the overrides: DeepSeek-V4's claim comes
  first.

What stays open (reported as not modelled): a ``quark`` checkpoint (0.27.0 – 0.30.0 claim Quark MXFP4 exports of
DeepSeek-V4; 0.31.0 and later never claim Quark) and from 0.30.0 the other model types DeepSeek-V4.1's class claims on CUDA
(``deepseek_v4_text``, ``deepseek_v41``, ``deepseek_v41_text``), which the CPU class does not claim (the oracle
host cannot show the CUDA answer); before 0.30.0 no release claims them.

The config vLLM builds is ``DeepseekV4FP8Config``, a subclass of ``Fp8Config`` that keeps its activation
dtypes (bfloat16, float16) and minimum capability (75) in every release.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Optional


__all__ = ["METHOD", "ACT_DTYPES", "claim"]

#: the method name ModelConfig ends with when the override claims the checkpoint
METHOD = "deepseek_v4_fp8"
#: DeepseekV4FP8Config.get_supported_act_dtypes() (Fp8Config's), as vLLM prints them
ACT_DTYPES = ("bfloat16", "float16")

#: the model type every release's override claims
_MODEL_TYPE = "deepseek_v4"
#: from 0.30.0 CUDA builds DeepSeek-V4.1's config class, whose override claims these model types too
_V41_SINCE = "0.30.0"
_V41_MODEL_TYPES = ("deepseek_v4_text", "deepseek_v41", "deepseek_v41_text")


def claim(method: str, user: Optional[str], model_type, release) -> "bool | str":
    """Whether DeepSeek-V4's override ends ModelConfig's loop for a checkpoint of ``method`` (lower case) with
    ``--quantization user`` (lower-cased); a string: why kvguard leaves it open."""
    if not release.within("0.20.0"):
        return False
    v4_type = isinstance(model_type, str) and model_type.startswith("deepseek_v4")
    if method == "quark":
        return (f"the DeepSeek-V4 FP8 override of a {method} checkpoint is not modelled"
                if v4_type or user == METHOD else False)
    if method not in ("fp8", METHOD):
        return False
    if user == "humming":
        return False  # Humming's override is asked first and claims the checkpoint
    if model_type == _MODEL_TYPE or user == METHOD:
        return True
    if model_type in _V41_MODEL_TYPES and release.within(_V41_SINCE):
        return (f"the DeepSeek-V4 FP8 override of a {model_type} checkpoint (the CUDA config class of DeepSeek-V4.1 "
                f"claims it, the CPU one does not) is not modelled")
    return False
