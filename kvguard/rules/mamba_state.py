"""The Mamba state sizing of hybrid models in VllmConfig (0.10.2 – 0.19.x).

Mirrors the page sizing of ``HybridAttentionMambaModelConfig.verify_and_update_config``
(vllm/model_executor/models/config.py), which ``VllmConfig.try_verify_and_update_config`` (vllm/config/vllm.py;
vllm/config/__init__.py on 0.10.2) runs for every hybrid model (``ModelConfig.is_hybrid``) right after the Mamba
cache set-up (:mod:`kvguard.rules.mamba_cache`) and before ``ModelConfig.verify_with_parallel_config``.  It asks
the model class for its Mamba state shapes (``get_mamba_state_shape_from_config``), which read the config's
Mamba sizes and shard them over the tensor-parallel ranks with ``divide`` (vllm/distributed/utils.py), whose
``ensure_divisibility`` asserts ``"{numerator} is not divisible by {denominator}"``.  From 0.20.0 the sizing
runs after the model is built, so these rows stop at 0.19.x.

Decided exactly (the shape functions and calculators read the same keys and divide the same sizes on every
release of the range; vllm/model_executor/layers/mamba/mamba_utils.py's ``MambaStateShapeCalculator``):

* gated delta net — Qwen3-Next, Qwen3.5: the convolution width ``2 * linear_key_head_dim * linear_num_key_heads
  + linear_value_head_dim * linear_num_value_heads``, then ``linear_num_value_heads``;
* Mamba1 — Jamba: ``mamba_expand * hidden_size``;
* Mamba2 — Nemotron-H, GraniteMoeHybrid (Granite 4), Bamba, Zamba2, Falcon-H1: the convolution width
  ``intermediate + 2 * groups * state size`` (groups that do not divide by tp are replicated up to tp groups),
  then the Mamba heads; the intermediate size is the heads times the head size (Nemotron-H),
  ``mamba_d_ssm`` or ``int(mamba_expand * hidden_size)`` (Falcon-H1), else ``mamba_expand * hidden_size``;
* short convolution — LFM2 (``conv_dim``), LFM2-MoE (``hidden_size``);
* linear attention — MiniMax-Text-01 / M1: the heads are floored by tp, nothing is divided.

A key the shape function reads but the config lacks raises AttributeError naming the config class there
(``'Lfm2Config' object has no attribute 'conv_dim'``): undecidable, as the class name is not a model fact.
Every other hybrid architecture's shape function (Plamo2, whose reads change within the range, …) is not modelled: at tp > 1,
where a Mamba size may not divide, the launch is undecidable rather than guessed.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["STATE_FAMILIES", "STATE_KEYS", "indivisible_state", "state_bind"]

#: the Mamba state families: architecture -> (calculator, the config keys its shape function reads, in order)
#: (the same on 0.10.2 – 0.19.x; all read the top-level config but Qwen3.5's, which reads the text config)
STATE_FAMILIES: dict[str, tuple[str, tuple[str, ...]]] = {}
_GATED_DELTA_NET = ("linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
                    "linear_value_head_dim", "linear_conv_kernel_dim")
for _name in ("Qwen3NextForCausalLM", "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration"):
    STATE_FAMILIES[_name] = ("gated_delta_net", _GATED_DELTA_NET)
for _name in ("JambaForCausalLM", "JambaForSequenceClassification"):
    STATE_FAMILIES[_name] = ("mamba1", ("hidden_size", "mamba_expand", "mamba_d_state", "mamba_d_conv"))
# Mamba2: (intermediate-size keys, n_groups, num_heads, head_dim, state_size, conv_kernel)
for _name in ("NemotronHForCausalLM", "NemotronHPuzzleForCausalLM"):
    STATE_FAMILIES[_name] = ("mamba2_heads", ("mamba_num_heads", "mamba_head_dim", "n_groups", "mamba_num_heads",
                                              "mamba_head_dim", "ssm_state_size", "conv_kernel"))
for _name in ("GraniteMoeHybridForCausalLM", "BambaForCausalLM"):
    STATE_FAMILIES[_name] = ("mamba2_expand", ("mamba_expand", "hidden_size", "mamba_n_groups", "mamba_n_heads",
                                               "mamba_d_head", "mamba_d_state", "mamba_d_conv"))
STATE_FAMILIES["Zamba2ForCausalLM"] = ("mamba2_expand", ("mamba_expand", "hidden_size", "mamba_ngroups",
                                                         "n_mamba_heads", "mamba_headdim", "mamba_d_state",
                                                         "mamba_d_conv"))
STATE_FAMILIES["FalconH1ForCausalLM"] = ("mamba2_falcon", ("mamba_d_ssm", "mamba_n_groups", "mamba_n_heads",
                                                           "mamba_d_head", "mamba_d_state", "mamba_d_conv"))
# linear attention: num_attention_heads // tp (a floor, no divide) by head_dim twice
for _name in ("MiniMaxText01ForCausalLM", "MiniMaxForCausalLM", "MiniMaxM1ForCausalLM"):
    STATE_FAMILIES[_name] = ("linear_attention", ("num_attention_heads", "head_dim"))
STATE_FAMILIES["Lfm2ForCausalLM"] = ("short_conv", ("conv_dim", "conv_L_cache"))
STATE_FAMILIES["Lfm2MoeForCausalLM"] = ("short_conv", ("hidden_size", "conv_L_cache"))
del _name

#: every config key some family reads (kvguard.facts.model.RESOLVED_ATTRIBUTES holds them)
STATE_KEYS = tuple(dict.fromkeys(key for _calc, keys in STATE_FAMILIES.values() for key in keys))


def _mamba2_divisions(intermediate_size: int, n_groups: int, num_heads: int, state_size: int,
                      tp: int) -> tuple[int, int]:
    """What ``mamba2_state_shape`` divides by tp: the convolution width (groups a head shard needs are
    replicated up to tp when they do not divide), then the heads."""
    if n_groups % tp != 0:
        n_groups = tp  # n_groups + (tp - n_groups): the groups replicated so each head shard has its own
    return intermediate_size + 2 * n_groups * state_size, num_heads


def _divisions(calculator: str, values: dict[str, Any], keys: tuple[str, ...], tp: int) -> tuple[int, ...]:
    """The numerators the release's shape function passes to ``divide(numerator, tp)``, in order."""
    if calculator == "gated_delta_net":
        num_key_heads, num_value_heads, key_head_dim, value_head_dim, _kernel = (values[k] for k in keys)
        return key_head_dim * num_key_heads * 2 + value_head_dim * num_value_heads, num_value_heads
    if calculator == "mamba1":
        intermediate_size = values["mamba_expand"] * values["hidden_size"]
        return intermediate_size, intermediate_size
    if calculator == "linear_attention":
        return ()
    if calculator == "short_conv":
        return (values[keys[0]],)
    if calculator == "mamba2_heads":
        heads, head_dim, n_groups, _heads, _head_dim, state_size, _kernel = (values[k] for k in keys)
        return _mamba2_divisions(heads * head_dim, n_groups, heads, state_size, tp)
    if calculator == "mamba2_expand":
        expand, hidden, n_groups, heads, _head_dim, state_size, _kernel = (values[k] for k in keys)
        return _mamba2_divisions(expand * hidden, n_groups, heads, state_size, tp)
    # Falcon-H1: mamba_d_ssm, else int(mamba_expand * hidden_size)
    d_ssm, n_groups, heads, _head_dim, state_size, _kernel = (values[k] for k in keys)
    intermediate_size = d_ssm if d_ssm is not None else int(values["mamba_expand"] * values["hidden_size"])
    return _mamba2_divisions(intermediate_size, n_groups, heads, state_size, tp)


def _v1_engine(state: Any) -> bool:
    """``envs.VLLM_USE_V1`` (``bool(int(...))``, default on)."""
    value = state.env.get("VLLM_USE_V1")
    if value is None:
        return True
    try:
        return bool(int(value))
    except ValueError:
        state.undecided(f"VLLM_USE_V1={value!r} is no integer")
        raise


def _first_indivisible(state: Any) -> Optional[tuple[int, int]]:
    """The (numerator, tp) of the first ``divide`` the release's shape function fails, else None; undecidable
    where the architecture's shape function is not modelled and could refuse."""
    from ..archs import registered_arch
    from .mamba_cache import is_hybrid

    if not is_hybrid(state):
        return None
    if not state.release.within("0.11.0") and not _v1_engine(state):
        return None  # 0.10.2 sizes the pages for the V1 engine only
    tp = state.tp
    architecture = registered_arch(state.facts.architectures, state.release)
    family = STATE_FAMILIES.get(architecture or "")
    if family is None:
        if tp > 1:
            state.undecided(f"the Mamba state shapes of {architecture} (get_mamba_state_shape_from_config, sharded "
                            f"over tp {tp}) are not modelled")
        return None
    calculator, keys = family
    if tp == 0:
        # the shape functions' first division by zero is a floor division or a modulo, per family and release:
        # Python words the two differently
        state.undecided(f"-tp 0 reaches the Mamba state shapes of {architecture}, whose first division by zero "
                        "kvguard does not model")
    config = state.facts.resolved
    needed = keys + (("mamba_expand", "hidden_size") if calculator == "mamba2_falcon"
                     and config.get("mamba_d_ssm") is None else ())
    # a key the config lacks raises AttributeError naming the config class, which kvguard does not model
    missing = [key for key in dict.fromkeys(needed)
               if not isinstance(config.get(key), (int, float)) and not (key == "mamba_d_ssm" and key in config)]
    if missing:
        state.undecided(f"the Mamba state shapes of {architecture} read {', '.join(missing)}, which the config "
                        "lacks or holds as no number")
    for numerator in _divisions(calculator, config, keys, tp):
        if not isinstance(numerator, int):
            state.undecided(f"the Mamba state shapes of {architecture} divide a size that is no integer "
                            f"({numerator!r}) by tp")
        if numerator % tp != 0:
            return numerator, tp
    return None


def indivisible_state(state: Any) -> bool:
    """Whether a Mamba state size of this hybrid model does not divide by tp (``ensure_divisibility`` asserts)."""
    return _first_indivisible(state) is not None


def state_bind(state: Any) -> dict[str, Any]:
    found = _first_indivisible(state)
    assert found is not None
    return {"numerator": found[0], "denominator": found[1]}
