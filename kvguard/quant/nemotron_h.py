"""Nemotron-H (``NemotronHForCausalLM``): the model construction up to its first Mamba-2 mixer, and past it for a
ModelOpt NVFP4 export, vLLM 0.24.0 – 0.33.0.

Mirrors vllm/model_executor/models/nemotron_h.py (``NemotronHModel.__init__``: the vocabulary embedding, then the
decoder layers in ``hybrid_override_pattern`` order, ``M`` a ``NemotronHMambaDecoderLayer`` that builds its
``MambaMixer2`` first) and vllm/model_executor/layers/mamba/mamba_mixer2.py (``MambaMixer2.__init__``), read in
0.10.2, 0.11.0, 0.11.1, 0.14.1, 0.15.1, 0.16.0, 0.20.0, 0.24.0, 0.26.0, 0.28.0, 0.29.0, 0.31.0, 0.32.0 and
0.33.0.  The mixer asserts, before it builds any weight, in this order (bare ``assert`` with a message, on the TP size):

1. ``mamba_num_heads`` divides by tp: "Tensor parallel world size must divide num heads.";
2. ``n_groups`` divides by tp, or is 1: "If tensor parallel world size does not divide num_groups, then num_groups
   must equal 1." (0.11.0+; 0.10.2 says "num_heads" in its first clause).

(0.10.2 – 0.15.x add a third with a quantization config, on tp and n_groups; 0.16.0 dropped it.)  The released
Nemotron-H checkpoints start with a Mamba layer (Nemotron-3-Nano: ``MEMEM*E…``, 8 groups), so at ``-tp 16`` the first
mixer refuses before any attention, MoE or quantized weight is built, BF16 and NVFP4 alike.

Decided here: the embedding's division and layer 0's mixer asserts, with one pipeline stage (with more, another
stage's first layer may refuse first, and which worker's error the launch reports is not modelled), from 0.24.0, the
first release whose ModelConfig reads a ``nemotron_h`` config.json without the checkpoint's remote code (transformers
5; before, the checkpoint's own configuration code builds the config, which the oracle cannot run, so those releases
stay as they were).  What the model builds after the first mixer:

- a ModelOpt NVFP4 export (:func:`past_first_mixer`, one pipeline stage, tp only): the layers built with the NVFP4
  linear method, in construction order (``NemotronHMambaDecoderLayer``: the mixer's ``in_proj`` on the full hidden
  size, its ``out_proj`` on ``mamba_num_heads * mamba_head_dim / tp``; ``NemotronHAttention``: its head asserts, then
  ``qkv_proj`` and ``o_proj``; ``NemotronHMoE``: the shared experts' ``up_proj`` / ``down_proj``
  (``NemotronHMLP``), the router a ``GateLinear`` without the quantization config, then with ``moe_latent_size``
  (Nemotron-3 Super / Ultra: the latent MoE, whose experts work on that width) the ``ReplicatedLinear``
  ``fc1_latent_proj`` (input: the hidden size) and ``fc2_latent_proj`` (input: the latent width), whole on every
  rank; the ``-`` layers' MLP; the LM head), each refusing a per-rank input that is not a multiple of 16, unless
  the export's ``exclude_modules`` (its ``backbone.`` names, mapped to ``model.`` by the model's
  ``hf_to_vllm_mapper``) leave it unquantized.  The experts
  (``relu2`` without a gate) take FP4 Marlin on the default host, compute capability 9.0 (the FlashInfer and CUTLASS
  FP4 entries need SM100; ``MarlinExperts`` takes ``relu2_no_mul`` in 0.24.0 – 0.33.0), which checks no size while
  built.  A ModelOpt FP8 export (per-tensor ``FP8``) is walked the same way: ``ModelOptFp8LinearMethod`` checks no
  size, the experts take Triton on the default host (which takes ``relu2_no_mul``), so only the model's own asserts
  and divisions and a fused ``qkv_proj`` named in part refuse.  A ModelOpt MIXED_PRECISION export (the catalog's
  Nemotron-3-Super NVFP4: config.json's per-layer ``quantized_layers`` table) is walked the same way, each layer with
  the method its algorithm names (kvguard.quant.modelopt_mixed: FP8, NVFP4, W4A16_NVFP4 or unquantized; the experts
  on Triton / FP4 Marlin, no size checked).  Data / expert / context parallelism, a named MoE or all2all backend,
  ``--dtype``, ModelOpt FP8_PER_CHANNEL_PER_TOKEN and MIXED_PRECISION layers of other algorithms stay skipped with
  their reason;
- an unquantized checkpoint keeps the general "no quantization: no construction check" (its experts take Triton,
  which takes ``relu2_no_mul``).
"""

from __future__ import annotations

from collections.abc import Mapping

from . import modelopt as _modelopt
from . import modelopt_mixed as _mixed
from . import modelopt_shards as _mo_shards
from .embedding import padded_vocabulary
from .names import NEMOTRON_H_ARCH

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

ARCH = NEMOTRON_H_ARCH

#: the first release decided here (before: the checkpoint's remote configuration code builds the config)
SINCE = "0.24.0"


def _positive_int(value: Any) -> bool:
    return type(value) is int and value >= 1


def first_mixer(resolved: Mapping[str, Any], tp: int, pp: int, release) -> tuple:
    """What the construction up to layer 0's mixer answers: ``("refused", check, values, layer)``, ``("passes",)``
    (no mixer assert refuses: what follows is not decided here) or ``("unmodelled", reason)`` (a launch this module
    does not follow in which some Mamba layer's mixer would refuse tp)."""
    answer = _first_mixer(resolved, tp, pp, release)
    if answer[0] == "unmodelled" and not _some_mixer_refuses(resolved, tp):
        return ("passes",)  # every mixer asserts the same on tp: none refuses wherever it sits
    return answer


def _first_mixer(resolved: Mapping[str, Any], tp: int, pp: int, release) -> tuple:
    if not release.within(SINCE):
        return ("unmodelled", f"the model construction of {ARCH} before vLLM {SINCE} (the config built by the "
                              f"checkpoint's remote code) is not modelled")
    pattern = resolved.get("hybrid_override_pattern")
    if not isinstance(pattern, str) or not pattern:
        return ("unmodelled", f"the model construction of {ARCH} without a hybrid_override_pattern string is not "
                              f"modelled")
    vocab, heads, groups = (resolved.get(k) for k in ("vocab_size", "mamba_num_heads", "n_groups"))
    if not (isinstance(vocab, int) and isinstance(heads, int) and isinstance(groups, int)) or not all(
            _positive_int(v) for v in (vocab, heads, groups)):
        return ("unmodelled", f"the model construction of {ARCH} with vocab_size={vocab!r}, mamba_num_heads={heads!r}, "
                              f"n_groups={groups!r} is not modelled")
    if pp != 1:
        return ("unmodelled", f"the model construction of {ARCH} with {pp} pipeline stages (which stage's first "
                              f"layer refuses first) is not modelled")
    padded = padded_vocabulary(vocab)
    if padded % tp:
        return ("refused", "MI_divide", {"numerator": padded, "denominator": tp}, "model.embed_tokens")
    if pattern[0] != "M":
        return ("unmodelled", f"the model construction of {ARCH} whose first layer is {pattern[0]!r} (not a Mamba "
                              f"layer) is not modelled")
    mixer = "model.layers.0.mixer"
    if heads % tp:
        return ("refused", "MI_mamba2_heads", {}, mixer)
    if groups % tp and groups != 1:
        return ("refused", "MI_mamba2_groups", {}, mixer)
    return ("passes",)


def _some_mixer_refuses(resolved: Mapping[str, Any], tp: int) -> bool:
    """Whether a Mamba layer's mixer asserts would refuse ``tp`` wherever the layer sits (every ``MambaMixer2``
    asserts the same on tp, mamba_num_heads and n_groups).  An unreadable config counts as refusing."""
    pattern = resolved.get("hybrid_override_pattern")
    if not isinstance(pattern, str):
        return True
    if "M" not in pattern:
        return False
    heads, groups = resolved.get("mamba_num_heads"), resolved.get("n_groups")
    if not (isinstance(heads, int) and isinstance(groups, int) and _positive_int(heads) and _positive_int(groups)) \
            or type(tp) is not int or tp < 1:
        return True
    return bool(heads % tp or (groups % tp and groups != 1))



# ---------------------------------------------------------------------------
# past the first mixer: the layers a ModelOpt NVFP4 export builds quantized (0.24.0 - 0.33.0)

#: the hybrid_override_pattern letters NemotronHModel builds: a Mamba-2 mixer, attention, the MoE block, the MLP
_LETTERS = "M*E-"
#: NemotronHForCausalLM's checkpoint-name mapper (hf_to_vllm_mapper's orig_to_new_prefix, 0.24.0+), which the ModelOpt
#: config applies to its exclusion list: the export's ``backbone.`` names become the model's ``model.`` ones
_MAPPED_PREFIX = ("backbone", "model")
#: from this release the mapper also drops the names under ``mtp`` (the multi-token-prediction head)
_MTP_DROPPED_SINCE = "0.29.0"
#: NemotronHForCausalLM.packed_modules_mapping, which the MIXED_PRECISION lookup reads for the fused qkv_proj
_PACKED = {"qkv_proj": ("q_proj", "k_proj", "v_proj")}
#: the ModelOpt FP8 form decided: per-tensor static FP8 (ModelOptFp8LinearMethod checks no size while built; the
#: experts take Triton on the default host, which takes the non-gated relu2)
_FP8_PER_TENSOR = "FP8"


def exclusion_names(names: list[str], release) -> list[str]:
    """The model's mapper on the exclusion list (after kvguard.quant.modelopt_shards split its ``a*`` entries): the
    ``backbone`` prefix renamed ``model`` and (0.29.0+) the ``mtp`` names dropped."""
    old, new = _MAPPED_PREFIX
    return [new + name[len(old):] if name.startswith(old) else name for name in names
            if not (release.within(_MTP_DROPPED_SINCE) and name.startswith("mtp"))]


def _int_fields(resolved: Mapping[str, Any], *names: str) -> "dict[str, int] | str":
    """The positive integer sizes ``names`` of the config, or the text naming those that are not."""
    bad = [f"{n}={resolved.get(n)!r}" for n in names if not _positive_int(resolved.get(n))]
    if bad:
        return ", ".join(bad)
    return {n: int(resolved[n]) for n in names}


def nvfp4_layers(resolved: Mapping[str, Any], tp: int) -> "list[tuple] | str":
    """The layers NemotronHModel builds with the quantization config after the vocabulary embedding, in construction
    order: ``(prefix, shards, per-rank input, check)`` where ``check`` is None (a linear layer whose NVFP4 method
    reads the per-rank input), ``("MI_divide", values)`` (a size vLLM's ``divide`` refuses first) or
    ``("MI_attn_assert", {})`` (the attention's head asserts).  A reason string when the config is not followed.
    The Mamba mixer's conv1d, the MoE router (GateLinear) and the experts (NVFP4 on the default host: FP4 Marlin,
    which takes the non-gated relu2 activation and checks no size while built) take no part."""
    pattern = resolved.get("hybrid_override_pattern")
    if not isinstance(pattern, str) or not pattern or set(pattern) - set(_LETTERS):
        return f"hybrid_override_pattern {pattern!r} (letters other than {_LETTERS!r})"
    latent = resolved.get("moe_latent_size")
    if latent is not None and not _positive_int(latent):
        return f"moe_latent_size={latent!r}"
    sizes = _int_fields(resolved, "hidden_size", "mamba_num_heads", "mamba_head_dim", "num_attention_heads",
                        "num_key_value_heads", "intermediate_size")
    if isinstance(sizes, str):
        return sizes
    head_dim = resolved.get("head_dim")
    if head_dim is None:
        head_dim = sizes["hidden_size"] // sizes["num_attention_heads"]
    if not _positive_int(head_dim):
        return f"head_dim={head_dim!r}"
    hidden = sizes["hidden_size"]
    layers: list[tuple] = []
    for i, letter in enumerate(pattern):
        pre = f"model.layers.{i}.mixer"
        if letter == "M":
            # MambaMixer2: in_proj (column: the full hidden size per rank), out_proj (row: the heads' width)
            layers.append((f"{pre}.in_proj", (), hidden, None))
            layers.append((f"{pre}.out_proj", (), sizes["mamba_num_heads"] * sizes["mamba_head_dim"] // tp, None))
        elif letter == "*":
            heads, kv = sizes["num_attention_heads"], sizes["num_key_value_heads"]
            if heads % tp or (kv % tp if kv >= tp else tp % kv):
                layers.append((pre, (), 0, ("MI_attn_assert", {})))
                return layers
            layers.append((f"{pre}.qkv_proj", ("q_proj", "k_proj", "v_proj"), hidden, None))
            layers.append((f"{pre}.o_proj", (), heads * head_dim // tp, None))
        elif letter == "E":
            shared = resolved.get("n_shared_experts")
            if shared:
                width = resolved.get("moe_shared_expert_intermediate_size")
                if not (_positive_int(shared) and _positive_int(width)):
                    return f"n_shared_experts={shared!r}, moe_shared_expert_intermediate_size={width!r}"
                if not _mlp(layers, f"{pre}.shared_experts", hidden, width * shared, tp):
                    return layers
            if latent is not None:
                # the latent MoE (Nemotron-3 Super / Ultra): two ReplicatedLinear projections around the experts,
                # built after the shared experts, each reading its whole input on every rank
                layers.append((f"{pre}.fc1_latent_proj", (), hidden, None))
                layers.append((f"{pre}.fc2_latent_proj", (), latent, None))
            for name in ("n_routed_experts", "moe_intermediate_size", "num_experts_per_tok"):
                if not _positive_int(resolved.get(name)):
                    return f"{name}={resolved.get(name)!r}"
        else:
            if not _mlp(layers, pre, hidden, sizes["intermediate_size"], tp):
                return layers
    return layers


def _mlp(layers: list, pre: str, hidden: int, width: int, tp: int) -> bool:
    """NemotronHMLP: up_proj (column: ``divide`` of its output), down_proj (row: ``divide`` of its input); False
    when a division refuses (the refusal appended)."""
    if width % tp:
        layers.append((f"{pre}.up_proj", (), hidden, ("MI_divide", {"numerator": width, "denominator": tp})))
        return False
    layers.append((f"{pre}.up_proj", (), hidden, None))
    layers.append((f"{pre}.down_proj", (), width // tp, None))
    return True


def past_first_mixer(resolved: Mapping[str, Any], quant_cfg: Mapping[str, Any], launch, release,
                     architectures: tuple[str, ...]) -> tuple:
    """A ModelOpt NVFP4 or FP8 export past layer 0's mixer (which :func:`first_mixer` let pass): ``("refused", check,
    values, layer)``, ``("passes",)`` or ``("unmodelled", reason)``.  Decided on the default host (FP4 Marlin for the
    NVFP4 linear layers and experts, Triton for the FP8 experts) for a tensor-parallel launch (no DP, PCP or expert parallelism, the default MoE
    and all2all backends, the checkpoint's dtype)."""
    if not release.within(SINCE):
        return ("unmodelled", f"the model construction of {ARCH} before vLLM {SINCE} (the config built by the "
                              f"checkpoint's remote code) is not modelled")
    if launch.pp != 1:
        return ("unmodelled", f"the model construction of {ARCH} with {launch.pp} pipeline stages (which stage's "
                              f"layer refuses first) is not modelled")
    method, why = _mo_shards.read(quant_cfg, release, mixed=True)
    if why is not None or method is None:  # read names a method exactly when it gives no reason
        return ("unmodelled", str(why))
    nested = quant_cfg.get("quantization")
    algo = nested.get("quant_algo") if isinstance(nested, Mapping) else quant_cfg.get("quant_algo")
    fp4 = method == "modelopt_fp4"
    table: "dict[str, str] | None" = None
    if method == _mixed.METHOD:
        read_table = _mixed_table(quant_cfg, resolved, release)
        if isinstance(read_table, str):
            return ("unmodelled", read_table)
        table = read_table
    elif not fp4 and algo != _FP8_PER_TENSOR:
        return ("unmodelled", f"the {method} weight-shard checks of {ARCH} with quant_algo {algo!r} are not modelled")
    if "moe" in quant_cfg or isinstance(nested, Mapping) and "moe" in nested:
        return ("unmodelled", "the ModelOpt checkpoint's MoE section (the NVFP4 MoE activation override) is not "
                              "modelled")
    if launch.dp != 1 or launch.pcp != 1 or launch.ep or launch.eplb:
        return ("unmodelled", f"the model construction of {ARCH} with data, prefill-context or expert parallelism "
                              f"(the MoE layer's parallel sizes, the sequence-parallel MoE) is not modelled")
    if launch.moe_backend != "auto" or launch.all2all_backend is not None or launch.quantization is not None:
        return ("unmodelled", f"the model construction of {ARCH} with --moe-backend, --all2all-backend or "
                              f"--quantization given is not modelled")
    if launch.dtype != "auto":
        return ("unmodelled", f"the ModelOpt construction of {ARCH} with --dtype {launch.dtype} is not modelled")
    built = nvfp4_layers(resolved, launch.tp)
    if isinstance(built, str):
        return ("unmodelled", f"the model construction of {ARCH} with {built} is not modelled")
    names, why = _mo_shards.exclusions(quant_cfg, "nemotron_h", method, release, architectures)
    if why is not None:
        return ("unmodelled", why)
    check: "str | None" = ("MI_nvfp4a16_input" if fp4 and _mo_shards.weight_only_linear(quant_cfg, release)
                           else "MI_nvfp4_input")
    for prefix, shards, size, refusal in built:
        if refusal is not None:
            return ("refused", refusal[0], refusal[1], prefix)
        state = _mo_shards.layer_state(prefix, shards, "linear", names, method, release)
        if state == "fused_error":
            # ModelOpt's is_layer_excluded, after the sharding and before create_weights
            return ("refused", "MI_fused_shards", {"prefix": prefix}, prefix)
        if table is not None and state == "quantized":
            layer_check = _mixed_check(prefix, table, release)
            if layer_check[0] == "unmodelled":
                return layer_check
            if layer_check[1] is not None and size % _mo_shards.INPUT_MULTIPLE:
                return ("refused", layer_check[1], {"size": size}, prefix)
        elif fp4 and state == "quantized" and size % _mo_shards.INPUT_MULTIPLE:
            return ("refused", check, {"size": size}, prefix)
    head, tie = _mo_shards.lm_head(architectures, resolved, release)
    if head is None:
        return ("unmodelled", tie)
    if tie:
        return ("unmodelled", f"the tied LM head of a ModelOpt export of {ARCH} is not modelled")
    if head:
        # the ParallelLMHead (0.23.0+), after the decoder: the NVFP4 method unless the list excludes lm_head
        state = _mo_shards.layer_state("lm_head", (), "linear", names, method, release)
        if table is not None and state == "quantized":
            layer_check = _mixed_check("lm_head", table, release)
            if layer_check[0] == "unmodelled":
                return layer_check
            check = layer_check[1]
        elif not (fp4 and state == "quantized"):
            check = None
        if check is not None and resolved["hidden_size"] % _mo_shards.INPUT_MULTIPLE:
            return ("refused", check, {"size": resolved["hidden_size"]}, "lm_head")
    return ("passes",)


def _mixed_table(quant_cfg: Mapping[str, Any], resolved: Mapping[str, Any], release) -> "dict[str, str] | str":
    """A MIXED_PRECISION export's quantized_layers through the model's checkpoint-name mapper (its keys in the export's
    ``backbone.`` names), or why it is not followed: the config kvguard does not build, the experts of an algorithm
    whose MoE method is not decided (checked for every MoE layer up front, wherever it is built)."""
    why = _modelopt.config_unread(quant_cfg, _mixed.METHOD, release)
    if why is not None:
        return why
    table = _mixed.layer_table(quant_cfg, lambda key: next(iter(exclusion_names([key], release)), None))
    if isinstance(table, str):
        return f"{table} is not modelled"
    pattern = resolved.get("hybrid_override_pattern") or ""
    for i, letter in enumerate(pattern):
        if letter == "E":
            why = _mixed.experts_unmodelled(_mixed.resolve(f"model.layers.{i}.mixer.experts", table, {}, release))
            if why is not None:
                return why
    return table


def _mixed_check(prefix: str, table: Mapping[str, str], release) -> tuple:
    """``("check", check id or None)`` for a layer the MIXED_PRECISION export leaves quantized, or ``("unmodelled",
    reason)``."""
    try:
        algo = _mixed.resolve(prefix, table, _PACKED, release)
    except _mixed.ShardsDisagree as exc:
        return ("unmodelled", f"the MIXED_PRECISION shards of {prefix} with quant_algo {exc.args[0]!r} (vLLM refuses "
                              f"a fused layer of mixed algorithms) are not modelled")
    check, why = _mixed.linear_check(algo, release)
    if why is not None:
        return ("unmodelled", why)
    return ("check", check)
