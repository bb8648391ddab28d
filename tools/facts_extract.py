#!/usr/bin/env python3
"""Extract the model-facts tables kvguard reads, from a real transformers / vLLM installation.

Runs inside an oracle environment (tools/oracle_env.py): it imports the real library, reads
each configuration class — its attribute map, its parameters and their defaults, its sub-configs,
and the statements of its ``__init__`` / ``__post_init__`` — and writes what it finds as facts:
values, names and named steps from a small vocabulary (tools/facts_patterns.py).  No code is
written out: a statement that fits no step is recorded as ``opaque`` with the names it reads and
writes.  Measured facts (the attributes of a default-constructed instance) are recorded beside the
ones read from the source, so that the differential test can tell a recognised step from a
mis-recognised one.

usage:
  python tools/facts_extract.py regenerate [--releases 0.10.2,0.28.0|all] [--root ORACLE_ROOT]
        (host python) run the extraction in every release's oracle environment and write
        kvguard/data/facts/transformers-<line>.json (one per transformers line the releases use)
        and kvguard/data/facts/vllm.json (every release; class records shared between releases;
        the fingerprints of the loading code kvguard/facts/loader.py follows)
  python tools/facts_extract.py fingerprints [--releases ...] [--root ORACLE_ROOT]
        (host python) rewrite only those fingerprints in vllm.json
  python tools/facts_extract.py unmodelled [--releases ...]
        (host python) the served model types whose classes kvguard cannot follow
  python tools/facts_extract.py transformers OUT.json [--coverage MODEL_TYPES.json]   (inside an oracle)
  python tools/facts_extract.py vllm OUT.json                                          (inside an oracle)
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import os
import sys
import textwrap
import warnings

warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import facts_subconfigs  # noqa: E402
import facts_transformers5  # noqa: E402
from facts_patterns import LOG_OBJECTS, PATTERNS  # noqa: E402

_MISSING = object()
_BASE_NAMES = ("PretrainedConfig", "PreTrainedConfig")


# ---------------------------------------------------------------------------------------------
# pattern matching


def _compile(src: str) -> list[ast.stmt]:
    return ast.parse(src).body


#: more statement shapes (as in tools/facts_patterns.py; ``V_o.A_x``: attribute ``x`` of the object ``o``)
_MORE_PATTERNS: list[tuple] = [
    # HRM-Text (transformers 5): a scale defaulting to a constant over another attribute
    ("const_truediv_if_none", "if V_t is None:\n    V_t = K_n / V_a"),
    # HRM-Text (transformers 5): a product of two attributes and one more than a third
    ("product_with_increment", "V_t = V_a * V_b * (V_c + K_k)"),
    # vLLM's BeamConfig: a per-layer list of the right length over allowed names
    ("raise_unless_len_and_items_in",
     "if len(V_l) != V_n or any((V_i not in K_allowed for V_i in V_l)):\n    raise ValueError(F_msg)"),
    # vLLM's BeamConfig: per-layer-type RoPE parameters with exactly one non-None entry passed on as that entry
    ("kwargs_single_value_if_keys_within",
     "if set(V_r) <= K_kinds:\n    V_l = [V_p for V_p in V_r.values() if V_p is not None]\n"
     "    if len(V_l) != 1:\n        raise ValueError(F_msg)\n    kwargs[K_k] = V_l[0]"),
    # Granite Speech Plus (transformers 5): each index of a sub-config's list, when it has one, within
    # [K_lo, another attribute of it)
    ("raise_if_sub_items_outside_range",
     "if V_o.A_l is not None:\n    for V_i in V_o.A_l:\n        if V_i < K_lo or V_i >= V_o.A_n:\n"
     "            raise ValueError(F_msg)"),
    # Granite Speech Plus (transformers 5): when a sub-config has the list, its length plus K_k (a local) times
    # one of its attributes must equal an attribute of another sub-config
    ("raise_if_sub_count_product_differs",
     "if V_o.A_l is not None:\n    V_c = len(V_o.A_l) + K_k\n    if V_p.A_e != V_o.A_h * V_c:\n"
     "        raise ValueError(F_msg)"),
]

#: (step name, pattern, fixed arguments of the step: a pattern may name a variant of its step)
_COMPILED = [(entry[0], _compile(entry[1]), entry[2] if len(entry) > 2 else {})
             for entry in PATTERNS + _MORE_PATTERNS]


class _NoMatch(Exception):
    pass


def _literal(node):
    """A literal value; also a constant expression of literals joined by ``+`` / ``*`` (a default layer list
    written as ``["mamba"] * 5 + ["hybrid"]``), folded here."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult, ast.Pow)):
        left, right = _literal(node.left), _literal(node.right)
        try:
            if isinstance(node.op, ast.Pow):
                if not (isinstance(left, int) and isinstance(right, int) and 0 <= right <= 64):
                    raise _NoMatch
                return left ** right
            return left + right if isinstance(node.op, ast.Add) else left * right
        except TypeError:
            raise _NoMatch from None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("int", "float") \
            and len(node.args) == 1 and not node.keywords:
        inner = _literal(node.args[0])
        if not isinstance(inner, (int, float)) or isinstance(inner, bool):
            raise _NoMatch
        return int(inner) if node.func.id == "int" else float(inner)
    # containers whose items are such expressions (vLLM's MiniMaxM3TextConfig default sparse_attention_config
    # holds per-layer lists written as ``[0] * 3 + [1] * 57``), folded item by item
    if isinstance(node, (ast.List, ast.Tuple)) and any(isinstance(e, ast.BinOp) for e in node.elts):
        items = [_literal(e) for e in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Dict) and any(isinstance(v, ast.BinOp) for v in node.values) \
            and all(k is not None for k in node.keys):
        return {_literal(k): _literal(v) for k, v in zip(node.keys, node.values)}
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise _NoMatch from None


def _template(node) -> str:
    """An f-string whose parts are plain names (``{name}`` / ``{name!r}`` / ``{self.name}`` / ``{self.sub.name}``)
    -> a message template with the same placeholders; anything else is not a template."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.replace("{", "{{").replace("}", "}}")
    if not isinstance(node, ast.JoinedStr):
        raise _NoMatch
    out = []
    for part in node.values:
        if isinstance(part, ast.Constant):
            out.append(part.value.replace("{", "{{").replace("}", "}}"))
            continue
        if not isinstance(part, ast.FormattedValue) or part.format_spec is not None:
            raise _NoMatch
        value = part.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "len" \
                and len(value.args) == 1 and not value.keywords and part.conversion == -1:
            out.append("{len__" + _var(value.args[0]).replace("self.", "self__") + "}")
            continue
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult) and part.conversion == -1:
            # a product of two names (``{self.sub.size * count}``): ``{mul__<left>__by__<right>}``
            out.append("{mul__" + _template_name(value.left) + "__by__" + _template_name(value.right) + "}")
            continue
        conv = {-1: "", 114: "!r", 115: "!s", 97: "!a"}[part.conversion]
        out.append("{" + _template_name(value) + conv + "}")
    return "".join(out)


def _template_name(value) -> str:
    """A name as a message template writes it: ``name``, ``self__name`` or ``self__sub__name``."""
    name = _var(value) if not _is_sub_config_attribute(value) else f"self.{value.value.attr}__{value.attr}"
    return name.replace("self.", "self__")


def _is_sub_config_attribute(node) -> bool:
    """``self.<sub>.<name>``: an attribute of one of the object's own attributes (a message template writes it
    ``{self__sub__name}``)."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) \
        and isinstance(node.value.value, ast.Name) and node.value.value.id == "self"


def _var(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return "self." + node.attr
    raise _NoMatch


def _class_ref(node):
    if isinstance(node, ast.Name):
        return {"class": node.id}
    if isinstance(node, ast.Subscript):
        base = node.value
        key = node.slice
        if isinstance(base, ast.Attribute) and base.attr == "sub_configs" and isinstance(base.value, ast.Name) \
                and base.value.id == "self":
            return {"sub": _literal(key)}
        if isinstance(base, ast.Name) and base.id == "CONFIG_MAPPING":
            try:
                return {"mapping": _literal(key)}
            except _NoMatch:
                return {"mapping_of": _var(key) if not isinstance(key, ast.Subscript) else _subscript_var(key)}
    raise _NoMatch


def _subscript_var(node):
    if isinstance(node, ast.Subscript):
        return {"item": [_var(node.value), _literal(node.slice)]}
    raise _NoMatch


def _match(pat, node, env: dict) -> None:
    if isinstance(pat, ast.Name) and pat.id[:2] in ("V_", "K_", "C_", "F_"):
        kind, key = pat.id[:1], pat.id
        if kind == "V":
            value = _var(node)
        elif kind == "K":
            value = {"$literal": _literal(node)}
        elif kind == "F":
            value = {"$template": _template(node)}
        else:
            value = {"$class": _class_ref(node)}
        if key in env and env[key] != value:
            raise _NoMatch
        env[key] = value
        return
    if type(pat) is not type(node):
        raise _NoMatch
    if isinstance(pat, ast.AST):
        for field in pat._fields:
            if field in ("ctx", "type_comment", "kind"):
                continue
            _match(getattr(pat, field), getattr(node, field, None), env)
        return
    if isinstance(pat, list):
        if len(pat) != len(node):
            raise _NoMatch
        for a, b in zip(pat, node):
            _match(a, b, env)
        return
    if isinstance(pat, str) and pat.startswith("A_") and isinstance(node, str):
        key = pat
        if key in env and env[key] != node:
            raise _NoMatch
        env[key] = node
        return
    if pat != node:
        raise _NoMatch


def _plain(env: dict) -> dict:
    out = {}
    for key, value in env.items():
        name = key[2:]
        if isinstance(value, dict) and "$literal" in value:
            value = {"literal": _jsonable(value["$literal"])}
        elif isinstance(value, dict) and "$class" in value:
            value = value["$class"]
        elif isinstance(value, dict) and "$template" in value:
            value = {"template": value["$template"]}
        out[name] = value
    return out


def _jsonable(value):
    if isinstance(value, (set, frozenset)):
        return {"set": sorted(_jsonable(v) for v in value)}
    if isinstance(value, tuple):
        return {"tuple": [_jsonable(v) for v in value]}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        # the tables are written with sorted keys: a dict whose order is not sorted keeps it as a list of pairs
        if all(isinstance(k, str) for k in value) and list(value) == sorted(value):
            return {"dict": {k: _jsonable(v) for k, v in value.items()}}
        return {"dict_items": [[_jsonable(k), _jsonable(v)] for k, v in value.items()]}
    return value


def _is_noise(stmt: ast.stmt) -> bool:
    """Docstrings, ``pass`` and logging calls (also under a condition that cannot raise): nothing a config
    object keeps."""
    if isinstance(stmt, (ast.Pass, ast.FunctionDef)):
        return True  # a nested def only binds a local name
    if isinstance(stmt, ast.AnnAssign) and stmt.value is None:
        return True  # an annotation without a value
    if isinstance(stmt, ast.If) and _harmless_test(stmt.test):
        return all(_is_noise(s) for s in stmt.body + stmt.orelse)
    if isinstance(stmt, ast.Expr):
        value = stmt.value
        if isinstance(value, ast.Constant):
            return True
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            base = value.func.value
            if isinstance(base, ast.Name) and base.id in LOG_OBJECTS:
                # arguments of a log call are formatted: an f-string over plain names cannot raise
                return all(_harmless(arg) for arg in value.args)
    return False


def _harmless_test(node) -> bool:
    """``'key' in kwargs`` / ``x is None`` / ``not x``: tests that cannot raise."""
    if isinstance(node, ast.BoolOp):
        return all(_harmless_test(v) for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _harmless_test(node.operand)
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, right = node.left, node.comparators[0]
        if isinstance(node.ops[0], (ast.Is, ast.IsNot)):
            return _harmless(left) and _harmless(right)
        if isinstance(node.ops[0], (ast.In, ast.NotIn)) and isinstance(left, ast.Constant) \
                and isinstance(right, ast.Name) and right.id == "kwargs":
            return True
    return False


def _harmless(node) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, (ast.Call, ast.Subscript)):
            return False
    return True


def _names(node) -> tuple[list[str], list[str]]:
    reads, writes = set(), set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            (writes if isinstance(sub.ctx, ast.Store) else reads).add(sub.id)
        elif isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self":
            (writes if isinstance(sub.ctx, ast.Store) else reads).add("self." + sub.attr)
    return sorted(reads), sorted(writes)


#: validation methods a class calls on itself (``self._rope_scaling_validation()``), by the fingerprint of their
#: source (docstrings blanked): the step that does what they do
KNOWN_METHODS: dict[str, list] = {
    "6a6863664e87": ["rope_scaling_type_factor", {"typo": False}],   # Olmo, Olmo2, Fuyu
    "47afe9e2b6e8": ["rope_scaling_type_factor", {"typo": True}],    # Chameleon ("with with two fields")
    "982bb9102ef9": ["rope_validation", {}],                          # Olmo3: rope_config_validation(self)
    "fb55cdedfd0f": ["phi3_rope_type_adjustment", {}],
    "d8216d3daab3": ["phi3_rope_validation", {}],
    "342fe9f00962": ["layer_offset_below_period", {}],               # Jamba
    "26120ed1dc72": ["rope_parameters_type_factor", {}],             # vLLM Nemotron (0.23.0)
}


#: classes whose whole ``__init__`` fits no vocabulary step, by the fingerprint of its source: the derivation
#: kvguard implements for them in its own code (kvguard/facts/steps.py), with the variant's facts
KNOWN_INITS: dict[str, list] = {
    # vLLM's EAGLEConfig: the draft's target config nested as ``model``, its attributes copied onto the draft
    "1e6ce9043123": ["eagle_config", {"deepseek_targets": ["DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM"],
                                      "methods": ["eagle", "eagle3"],
                                      "supported": "eagle and eagle3"}],          # 0.10.2-0.11.0
    "2cc5d81cddbe": ["eagle_config", {"methods": ["eagle", "eagle3"], "supported": "eagle and eagle3"}],
    "2041bf4fee02": ["eagle_config", {"methods": ["eagle", "eagle3", "dflash"],
                                      "supported": "eagle, eagle3, and dflash"}],
    "aca71cb48e6d": ["eagle_config", {"methods": ["eagle", "eagle3", "dflash"],     # 0.31.0-: a DFlash draft
                                      "supported": "eagle, eagle3, and dflash",    # model kept by name
                                      "dflash_names": ["LiLiCorrDraftModel"]}],
}

#: ``from_pretrained`` overrides of vLLM's classes, by fingerprint: what they do before ``from_dict``
KNOWN_FROM_PRETRAINED: dict[str, str] = {
    "7298b49a969f": "plain", "325822c75ae8": "plain", "a61eeed5dffb": "plain",         # EAGLEConfig
    "6169990a2d32": "rename_num_keys", "4df3f1cf2f16": "rename_num_keys",
    "5127989a7110": "rename_num_keys",                                                  # MedusaConfig
}

#: ``from_dict`` overrides of transformers' classes, by fingerprint: what they do to the dict and the keywords
#: before PretrainedConfig.from_dict (kvguard/facts/loader.py)
KNOWN_FROM_DICT: dict[str, str] = {
    "d5aac7c89163": "timm_labels",      # TimmWrapperConfig, Gemma3nVisionConfig (4.57.6)
    "757bd3f3bb08": "timm_labels_copy",  # the same on a shallow copy of the dict (5.17.0-5.24.0)
    "2b8b6c544c58": "recurrent_loops_keyword",  # DoryConfig (5.24.0): n_recurrent_loops keyword into the dict
}

#: ``to_json_string`` overrides (by fingerprint) that print the whole config instead of its diff
JSON_WITHOUT_DIFF = frozenset({"e7f1f9002af1"})

#: attribute hooks a class overrides, by fingerprint: the behaviour they have
KNOWN_HOOKS: dict[str, str] = {
    "f87738af0680": "forward_to_text_config",   # Qwen2-VL, Qwen2.5-VL __getattribute__ (transformers 4.x)
    "e2d673dbf2ad": "forward_to_text_config",   # ... and __setattr__
    "f3a2c3e30460": "forward_to_text_config",   # vLLM's HunYuanVLConfig __setattr__ (its own list of names kept)
}

#: properties, by the fingerprint of their getter: the derivation they compute
KNOWN_PROPERTIES: dict[str, list] = {
    "434092cdaf86": ["floordiv", {"a": "hidden_size", "b": "num_attention_heads"}],   # Falcon head_dim
    "d5a8aa102b48": ["negation", {"a": "alibi"}],                                      # Falcon rotary
    "114dd440ce24": ["floordiv", {"a": "hidden_size", "b": "n_head"}],                 # vLLM RWConfig head_dim
    "de3fa94579ea": ["constant", {"value": 0}],                                        # vLLM Medusa heads
    "0773a80879ae": ["alias", {"a": "num_heads"}],                                      # Medusa lookahead tokens
    "c1fb799d84f2": ["kimi_is_mla", {}],                                                # vLLM KimiLinear
    "75df63a16e8f": ["not_none", {"a": "num_experts"}],
    "e5197973c443": ["kimi_is_linear_attn", {}],
    "f78bcc8cec00": ["sub_attribute", {"sub": "text_config", "a": "hidden_size"}],     # vLLM KimiK25
    "5535f6c42bed": ["sub_attribute", {"sub": "text_config", "a": "vocab_size"}],
    "1bf56263f135": ["sub_attribute", {"sub": "text_config", "a": "hidden_size"}],     # vLLM KimiK3 (-> int)
    "db2c8b3abf76": ["sub_attribute", {"sub": "text_config", "a": "vocab_size"}],
    "56559a07abf7": ["sub_attribute", {"sub": "llm_config", "a": "hidden_size"}],      # vLLM BagelConfig
    "976e966deea9": ["layers_by_period", {"period": "attn_layer_period", "offset": "attn_layer_offset",
                                          "hit": "attention", "miss": "mamba"}],        # Jamba layers_block_type
    "2d560dd7bdef": ["experts_by_period", {"period": "expert_layer_period", "offset": "expert_layer_offset"}],
    "58ef8584f012": ["layers_at_indices", {"indices": "attn_layer_indices", "hit": "attention", "miss": "mamba"}],
    "633b389f5c18": ["same_per_layer", {"value": "attention"}],                        # FalconH1
    "2ad97e96c1ad": ["layer_types_or_same", {"value": "mamba"}],                        # GraniteMoeHybrid
    "34fc2b650dbc": ["same_per_layer", {"value": "sliding_attention"}],
    # transformers 5 spellings: the same shapes over the line's layer-type names
    "eb15c8637adf": ["layers_at_indices", {"indices": "attn_layer_indices", "hit": "full_attention",
                                           "miss": "linear_attention"}],              # Bamba 5.x
    "ba6e8465f517": ["same_per_layer", {"value": "hybrid"}],                           # FalconH1 5.x
    "d39e6feb921d": ["length_of", {"a": "supported_aspect_ratios"}],                    # Mllama vision
    "bdd46b80f419": ["alias", {"a": "num_encoder_layers"}],                             # ProphetNet
    "76bc14477737": ["sum", {"a": "num_encoder_layers", "b": "num_decoder_layers"}],     # XLMProphetNet
    "981654c187ba": ["floordiv", {"a": "v_dim", "b": "num_heads"}],                     # xLSTM v_head_dim
    "e7f64941d42f": ["floordiv", {"a": "qk_dim", "b": "num_heads"}],                    # xLSTM qk_head_dim
    "f86240f7be70": ["round_up_mul", {"a": "hidden_size", "f": "v_dim_factor", "multiple": 64}],   # xLSTM v_dim
    "8daa0d3b0592": ["round_up_mul", {"a": "hidden_size", "f": "qk_dim_factor", "multiple": 64}],  # xLSTM qk_dim
    "094071a2891f": ["floordiv_const", {"a": "local_attention", "d": 2}],              # ModernBERT sliding_window
    "5fd9dec77a4b": ["int_product_of", {"a": "downsampling_ratios"}],                  # VibeVoice hop_length
    "dbfb228cec3e": ["ceil_quotient_by_sub_attribute", {"a": "acoustic_tokenizer_chunk_size",
                                                        "sub": "acoustic_tokenizer_encoder_config",
                                                        "b": "hop_length"}],           # VibeVoice-ASR positions
    "9309766c9701": ["alias", {"a": "_attn_implementation_internal"}],                # HRM-Text (transformers 5)
    # MiniCPM-V 4.6 / 4.7 vision window sizes (transformers 5): a size times both window kernel sides
    "e8e003f79ffb": ["mul_by_items", {"a": "hidden_size", "l": "window_kernel_size", "items": [0, 1]}],
    "8349c25aab40": ["mul_by_items", {"a": "intermediate_size", "l": "window_kernel_size", "items": [0, 1]}],
    "f5fb4f3be496": ["product", {"a": "patch_size", "b": "pooling_kernel_size"}],  # Gemma 4 unified vision
}

#: property setters, by fingerprint (tools/facts_transformers5.py ``fingerprint``): what assigning the
#: property does (a setter that only raises is recognised by its shape, ``_raising_setter``)
KNOWN_SETTERS: dict[str, list] = {
    "af5a6770fe71": ["floordiv_into", {"a": "num_layers", "d": 2}],              # LongcatFlash num_hidden_layers
    "3f7aaced9103": ["ignore", {}],                                              # NemotronH num_hidden_layers
    "bf81c12d9ce8": ["set_alias", {"a": "audio_embed_dim"}],                     # Gemma4UnifiedAudio
    "bf93b19fa3b8": ["set_alias", {"a": "num_heads"}],                           # vLLM Medusa lookahead tokens
    "30528827bb3a": ["set_alias", {"a": "_pad_token_id"}],                       # Idefics3, SmolVLM (5.20+)
    "b0a017a8c921": ["mul_into", {"a": "local_attention", "k": 2}],              # ModernBERT sliding_window
    "a9ee784b2b60": ["positive_times_sub_attribute_into", {                      # VibeVoice-ASR positions
        "a": "acoustic_tokenizer_chunk_size", "sub": "acoustic_tokenizer_encoder_config", "b": "hop_length",
        "msg": {"template": "Attempted to set `max_position_embeddings` to {value}; you need a positive value!"}}],
    # HRM-Text's _attn_implementation (transformers 5): a flash implementation refused while the attribute is
    # truthy, else PreTrainedConfig's setter; 5.17 strips a "paged|" prefix first (a method of str); the message
    # is measured from the setter (``_setter``)
    "8ef574c81900": ["refuse_flash_if_truthy", {"when": "prefix_lm", "paged_prefix": False}],
    "3d7107139df8": ["refuse_flash_if_truthy", {"when": "prefix_lm", "paged_prefix": True}],
    # Gemma 4 unified vision's model_patch_size (transformers 5): a value other than the product refused, the
    # product kept (nothing stored); the message is measured from the setter
    "86544db40208": ["raise_unless_product", {"a": "patch_size", "b": "pooling_kernel_size"}],
}

#: setter kinds whose message template is measured from the setter's one ``raise ValueError(...)``
_SETTER_MESSAGES = frozenset({"refuse_flash_if_truthy", "raise_unless_product"})


def _fingerprint_source(fn, strip_decorators: bool = False) -> "str | None":
    import hashlib
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            node.value.value = ""
    if strip_decorators:
        tree.body[0].name = "_"
        tree.body[0].decorator_list = []
    return hashlib.sha256(ast.unparse(tree).encode()).hexdigest()[:12]


def _hooks(cls) -> dict:
    out = {}
    for name in ("__getattribute__", "__setattr__", "__getattr__", "__getitem__", "__contains__", "__iter__",
                 "__delattr__"):
        fn = cls.__dict__.get(name)
        if fn is None:
            continue
        fp = _fingerprint_source(fn)
        kind = KNOWN_HOOKS.get(fp)
        entry: dict = {"kind": kind or "opaque", "fingerprint": fp}
        if kind == "forward_to_text_config":
            for node in ast.walk(ast.parse(textwrap.dedent(inspect.getsource(fn)))):
                if isinstance(node, ast.List) and all(isinstance(e, ast.Constant) for e in node.elts):
                    entry["except"] = [e.value for e in node.elts]
                    break
        out[name] = entry
    return out


def _properties(cls) -> dict:
    out = {}
    for name, value in cls.__dict__.items():
        if not isinstance(value, property):
            continue
        fp = _fingerprint_source(value.fget, strip_decorators=True)
        known = KNOWN_PROPERTIES.get(fp)
        entry = {"kind": known[0], **known[1]} if known else {"kind": "opaque", "fingerprint": fp}
        entry["setter"] = value.fset is not None
        if value.fset is not None:
            entry.update(_setter(value.fset))
        out[name] = entry
    return out


def _setter(fn) -> dict:
    """What assigning a property does: a known setter (by fingerprint), one that only raises, or opaque."""
    fp = facts_transformers5.fingerprint(fn)
    known = KNOWN_SETTERS.get(fp) or _raising_setter(fn)
    if known is None:
        return {"setter_kind": "opaque", "setter_fingerprint": fp}
    args = dict(known[1])
    if known[0] in _SETTER_MESSAGES:
        args["msg"] = {"template": _raised_message(fn)}
    return {"setter_kind": known[0], "setter_args": args}


def _raised_message(fn) -> str:
    """The message template of the one ``raise ValueError(<f-string>)`` in a method's source."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    raises = [node for node in ast.walk(tree) if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)]
    if len(raises) != 1 or len(raises[0].exc.args) != 1:
        raise SystemExit(f"facts_extract: {fn.__qualname__} should raise once")
    return _template(raises[0].exc.args[0])


def _raising_setter(fn) -> "list | None":
    """A setter whose body is only ``raise <BuiltinError>(<message>)`` -> ``["raise", {"type", "msg"}]``."""
    import builtins
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    except (OSError, TypeError, SyntaxError):
        return None
    body = [s for s in tree.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or not isinstance(body[0].exc, ast.Call):
        return None
    call = body[0].exc
    exc = getattr(builtins, call.func.id, None) if isinstance(call.func, ast.Name) else None
    if not (isinstance(exc, type) and issubclass(exc, Exception)) or len(call.args) != 1 or call.keywords:
        return None
    try:
        return ["raise", {"type": call.func.id, "msg": {"template": _template(call.args[0])}}]
    except _NoMatch:
        return None


def _fingerprint(fn) -> "str | None":
    import hashlib
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            node.value.value = ""
    tree.body[0].name = "_"
    return hashlib.sha256(ast.unparse(tree).encode()).hexdigest()[:12]


_CURRENT_CLASS: list = []


def _module_class_attribute(name: str, attr: str) -> "str | None":
    """A string class attribute of the config class a global name of the current class's module holds."""
    if not _CURRENT_CLASS:
        return None
    held = getattr(sys.modules.get(_CURRENT_CLASS[-1].__module__), name, None)
    value = held.__dict__.get(attr) if isinstance(held, type) else None
    return value if isinstance(value, str) else None


facts_subconfigs.class_attribute = _module_class_attribute


def _method_step(stmt) -> "list | None":
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    call = stmt.value
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"):
        return None
    if call.keywords or not _CURRENT_CLASS:
        return None
    method = getattr(_CURRENT_CLASS[-1], func.attr, None)
    fp = _fingerprint(method) if callable(method) else None
    known = KNOWN_METHODS.get(fp)
    if known is None and facts_transformers5.is_v5_config(_CURRENT_CLASS[-1]):
        # transformers 5: the method is looked up on the object when the step runs (the class records it)
        try:
            args = [{"literal": _jsonable(_literal(a))} if isinstance(a, ast.Constant) else _var(a) for a in call.args]
        except _NoMatch:
            return None
        return ["call_method", {"m": func.attr, "args": args}]
    if known is None:
        return ["opaque", {"reads": ["self." + func.attr], "writes": [], "method": func.attr, "fingerprint": fp}]
    try:
        args = [{"literal": _jsonable(_literal(a))} if isinstance(a, ast.Constant) else _var(a) for a in call.args]
    except _NoMatch:
        return None
    out = dict(known[1])
    if args:
        out["args"] = args
    return [known[0], out]


def _dict_of_locals_if_none(stmt) -> "list | None":
    """``if x is None: x = {"k": k, ...}`` (a sub-config's keywords gathered from the class's own parameters), or
    only those that are not None."""
    body = [b for b in getattr(stmt, "body", []) if not _is_noise(b)]
    if not (isinstance(stmt, ast.If) and not stmt.orelse and len(body) == 1 and isinstance(body[0], ast.Assign)):
        return None
    test, assign = stmt.test, body[0]
    if not (isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.Is)
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None):
        return None
    value = assign.value
    pairs = _given_pairs(value)
    if pairs is not None:
        step = "dict_of_given_locals_if_none"
    elif isinstance(value, ast.Dict):
        step, pairs = "dict_of_locals_if_none", list(zip(value.keys, value.values))
    else:
        return None
    if not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k, _ in pairs):
        return None
    try:
        target = _var(test.left)
        if _var(assign.targets[0]) != target:
            return None
        items = [[k.value, _var(v)] for k, v in pairs]
    except _NoMatch:
        return None
    return [step, {"t": target, "items": items}]


def _given_pairs(node) -> "list | None":
    """``{k: v for k, v in (("a", a), ("b", b)) if v is not None}``: the (key, name) pairs of a dict of the
    names that are not None (vLLM's Qwen3ASRConfig gathers its thinker config's keywords so)."""
    if not (isinstance(node, ast.DictComp) and len(node.generators) == 1):
        return None
    gen = node.generators[0]
    if not (isinstance(gen.target, ast.Tuple) and len(gen.target.elts) == 2
            and all(isinstance(e, ast.Name) for e in gen.target.elts) and not gen.is_async):
        return None
    key_name, value_name = (e.id for e in gen.target.elts)
    if not (isinstance(node.key, ast.Name) and node.key.id == key_name
            and isinstance(node.value, ast.Name) and node.value.id == value_name):
        return None
    if len(gen.ifs) != 1:
        return None
    cond = gen.ifs[0]
    if not (isinstance(cond, ast.Compare) and len(cond.ops) == 1 and isinstance(cond.ops[0], ast.IsNot)
            and isinstance(cond.left, ast.Name) and cond.left.id == value_name
            and isinstance(cond.comparators[0], ast.Constant) and cond.comparators[0].value is None):
        return None
    if not isinstance(gen.iter, (ast.Tuple, ast.List)):
        return None
    pairs = []
    for item in gen.iter.elts:
        if not (isinstance(item, ast.Tuple) and len(item.elts) == 2):
            return None
        pairs.append((item.elts[0], item.elts[1]))
    return pairs


def _truthy_chain(stmt) -> "list | None":
    """``t = a or kwargs.get("k") or 0.5``: the first truthy of names, keyword arguments and literals."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.BoolOp)
            and isinstance(stmt.value.op, ast.Or)):
        return None
    chain = []
    try:
        target = _var(stmt.targets[0])
        for item in stmt.value.values:
            if isinstance(item, ast.Call) and isinstance(item.func, ast.Attribute) and item.func.attr == "get" \
                    and isinstance(item.func.value, ast.Name) and item.func.value.id == "kwargs" \
                    and len(item.args) in (1, 2) and not item.keywords:
                entry = {"kwarg": _literal(item.args[0])}
                if len(item.args) == 2:
                    entry["default"] = _jsonable(_literal(item.args[1]))
                chain.append(entry)
            elif isinstance(item, (ast.Name, ast.Attribute)):
                chain.append(_var(item))
            else:
                chain.append({"literal": _jsonable(_literal(item))})
    except _NoMatch:
        return None
    return ["first_truthy", {"t": target, "chain": chain}]


def _kwargs_update(stmt) -> "list | None":
    """``kwargs.update(key=name, ...)`` (names only) -> ``["kwargs_update_from", {"pairs": [[key, name], ...]}]``."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    call = stmt.value
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "update"
            and isinstance(call.func.value, ast.Name) and call.func.value.id == "kwargs") or call.args:
        return None
    if not call.keywords or any(kw.arg is None for kw in call.keywords):
        return None
    try:
        return ["kwargs_update_from", {"pairs": [[kw.arg, _var(kw.value)] for kw in call.keywords]}]
    except _NoMatch:
        return None


_POPPED_KEY_BUILD = _compile("if isinstance(V_v, dict):\n    V_v.pop(K_k, None)\n    V_v = C_c(**V_v)\n"
                             "elif V_v is None:\n    V_v = C_c()")


def _sub_config_popped_key(stmt) -> "dict | None":
    """A sub-config given as a dict built from it less one key it pops first, built with no arguments when None,
    kept otherwise (MiniCPM-V 4.6 / 4.7's vision config on transformers 5.17 / 5.19): the ``sub_config`` cases
    of facts_subconfigs with the build ``without`` that key."""
    env: dict = {}
    try:
        _match(_POPPED_KEY_BUILD[0], stmt, env)
    except _NoMatch:
        return None
    plain = _plain(env)
    var, key, cls = plain["v"], plain["k"]["literal"], plain["c"]
    if not isinstance(key, str):
        return None
    return {"cases": [[["none"], [{"class": cls, "op": "build", "target": var}]],
                      [["empty_dict", "dict", "dict_mt"], [{"class": cls, "from": var, "op": "build", "target": var,
                                                            "without": [key]}]],
                      [["config", "falsy", "truthy"], []]], "var": var}


def recognise(stmt: ast.stmt) -> list:
    """One statement -> one step ``[name, {args}]``."""
    if _CURRENT_CLASS and facts_transformers5.is_v5_config(_CURRENT_CLASS[-1]):
        stmt = facts_transformers5.strip_logs(stmt, _is_noise)
    step = _method_step(stmt)
    if step is not None:
        return step
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        stmt = ast.Assign(targets=[stmt.target], value=stmt.value, lineno=stmt.lineno)
    for name, pattern, fixed in _COMPILED:
        if len(pattern) != 1:
            continue
        env: dict = {}
        try:
            _match(pattern[0], stmt, env)
        except _NoMatch:
            continue
        args = {**_plain(env), **fixed}
        measure = facts_transformers5.MEASURED_STEPS.get(name)
        if measure is not None:
            if not _CURRENT_CLASS:
                break
            args.update(measure(_CURRENT_CLASS[-1], args))
        return [name, args]
    chain = _truthy_chain(stmt) or _dict_of_locals_if_none(stmt) or _kwargs_update(stmt)
    if chain is not None:
        return chain
    sub = _sub_config_popped_key(stmt) or facts_subconfigs.recognise(stmt)
    if sub is not None:
        # ``if x is not None:`` over plain steps reads as a sub-config dispatch whose branch is unmodelled; it is a
        # guarded block (Step5Config's MTP-inclusive layer types, vLLM 0.33.0)
        block = _block_if_truthy(stmt) if _unmodelled_ops(sub) else None
        return block if block is not None else ["sub_config", sub]
    raised = _conditional_raise(stmt)
    if raised is not None:
        return raised
    block = _block_if_truthy(stmt)
    if block is not None:
        return block
    reads, writes = _names(stmt)
    rec = {"reads": reads, "writes": writes}
    guard = _only_when_none(stmt)
    if guard is not None:
        rec["only_when_none"] = guard
    popped = _only_when_popped(stmt)
    if popped is not None:
        rec["only_when_popped"] = popped
    if os.environ.get("KVG_FACTS_DEBUG"):
        rec["src"] = ast.unparse(stmt)
    return ["opaque", rec]


#: steps a block under ``if x:`` may not hold: they are followed only where they stand in a method (a super call),
#: or carry branches of their own that the unmodelled listing reads at the top level only
_NOT_IN_BLOCKS = frozenset({"opaque", "super", "sub_config"})


def _block_if_truthy(stmt: ast.stmt) -> "list | None":
    """``if x:`` (no ``else``) over statements each of which is a step -> ``["steps_if_truthy", {"c": x, "steps"}]``:
    a guard the vocabulary need not spell out once per statement it guards (Mellum's MTP layer defaults); the
    same under ``if x is None:`` -> ``["steps_if_none", {"v": x, "steps"}]`` (HRM-Text's per-stack layer count), under
    ``if x is not None:`` -> ``steps_if_not_none`` (Step5Config's serialised MTP layer types), and under any other test
    the condition vocabulary of ``raise_if`` spells -> ``["steps_if", {"cond", "steps"}]`` (CohereCompassTextConfig's
    RoPE keys dropped when its RoPE parameters are keyed by layer type)."""
    if not isinstance(stmt, ast.If) or stmt.orelse:
        return None
    if isinstance(stmt.test, (ast.Name, ast.Attribute)):
        name, key, test = "steps_if_truthy", "c", stmt.test
    elif _only_when_none(stmt) is not None:
        name, key, test = "steps_if_none", "v", stmt.test.left
    elif _is_not_none_test(stmt.test):
        name, key, test = "steps_if_not_none", "v", stmt.test.left
    else:
        name, key, test = "steps_if", "cond", stmt.test
    try:
        guard = _var(test) if name != "steps_if" else _condition(test)
    except _NoMatch:
        return None
    body = [inner for inner in stmt.body if not _is_noise(inner)]
    steps = [recognise(inner) for inner in body]
    if not steps or any(step[0] in _NOT_IN_BLOCKS for step in steps):
        return None
    return [name, {key: guard, "steps": steps}]


def _is_not_none_test(test: ast.expr) -> bool:
    """``x is not None``."""
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot) \
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None


#: the comparison operators a condition of ``raise_if`` may use, as the step names them
_CONDITION_OPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.In: "in",
                  ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not"}
#: the exceptions ``raise_if`` may raise (kvguard.facts.steps._RAISABLE)
_CONDITION_ERRORS = ("ValueError", "TypeError", "KeyError")


def _condition_operand(node):
    """A value a condition reads: a name, ``self.x``, a literal, ``kwargs``, ``len(x)``, ``list(x)``, ``set(x)``,
    ``x.keys()`` or ``x[:n]``."""
    if isinstance(node, ast.Name) and node.id == "kwargs":
        return {"kwargs": True}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("len", "list", "set") \
            and len(node.args) == 1 and not node.keywords:
        return {node.func.id: _condition_operand(node.args[0])}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "keys" \
            and not node.args and not node.keywords:
        return {"keys": _condition_operand(node.func.value)}
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and node.slice.lower is None \
            and node.slice.step is None and node.slice.upper is not None:
        return {"prefix": [_condition_operand(node.value), _condition_operand(node.slice.upper)]}
    try:
        return _var(node)
    except _NoMatch:
        return {"literal": _jsonable(_literal(node))}


def _condition(node) -> list:
    """A test -> a condition of ``raise_if`` / ``steps_if``: ``and`` / ``or`` / ``not`` over single comparisons,
    ``a.isdisjoint(b)`` and truth tests."""
    if isinstance(node, ast.BoolOp):
        return ["and" if isinstance(node.op, ast.And) else "or", [_condition(value) for value in node.values]]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return ["not", _condition(node.operand)]
    if isinstance(node, ast.Compare):
        op = _CONDITION_OPS.get(type(node.ops[0])) if len(node.ops) == 1 else None
        if op is None:
            raise _NoMatch
        if op in ("is", "is not") and not (isinstance(node.comparators[0], ast.Constant)
                                           and node.comparators[0].value is None):
            raise _NoMatch
        return ["cmp", op, _condition_operand(node.left), _condition_operand(node.comparators[0])]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "isdisjoint" \
            and len(node.args) == 1 and not node.keywords:
        return ["disjoint", _condition_operand(node.func.value), _condition_operand(node.args[0])]
    return ["truthy", _condition_operand(node)]


def _conditional_raise(stmt: ast.stmt) -> "list | None":
    """``if <test>: raise <Error>(<message>)`` (no ``else``) -> ``["raise_if", {"cond", "exc", "msg"}]``, the test in
    the step's condition vocabulary (Step5Config's refusals of its own keys)."""
    if not isinstance(stmt, ast.If) or stmt.orelse:
        return None
    body = [inner for inner in stmt.body if not _is_noise(inner)]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].cause is not None:
        return None
    exc = body[0].exc
    if not (isinstance(exc, ast.Call) and isinstance(exc.func, ast.Name) and exc.func.id in _CONDITION_ERRORS
            and len(exc.args) == 1 and not exc.keywords):
        return None
    try:
        return ["raise_if", {"cond": _condition(stmt.test), "exc": exc.func.id,
                             "msg": {"template": _template(exc.args[0])}}]
    except _NoMatch:
        return None


def _only_when_none(stmt: ast.stmt) -> "str | None":
    """The variable of ``if x is None: …`` (no ``else``): a statement that does nothing unless ``x`` is None, so
    an opaque body declines only the configs that leave ``x`` out."""
    if not (isinstance(stmt, ast.If) and not stmt.orelse and isinstance(stmt.test, ast.Compare)
            and len(stmt.test.ops) == 1 and isinstance(stmt.test.ops[0], ast.Is)
            and isinstance(stmt.test.comparators[0], ast.Constant) and stmt.test.comparators[0].value is None):
        return None
    try:
        return _var(stmt.test.left)
    except _NoMatch:
        return None


def _only_when_popped(stmt: ast.stmt) -> "str | None":
    """The key of ``if (x := kwargs.pop("key", None)) is not None: …`` (no ``else``; CLIP's legacy
    ``text_config_dict``): the key leaves the keyword arguments either way, and the body runs only for a value,
    so an opaque body declines only the configs that give one."""
    if not (isinstance(stmt, ast.If) and not stmt.orelse and isinstance(stmt.test, ast.Compare)
            and len(stmt.test.ops) == 1 and isinstance(stmt.test.ops[0], ast.IsNot)
            and isinstance(stmt.test.comparators[0], ast.Constant) and stmt.test.comparators[0].value is None
            and isinstance(stmt.test.left, ast.NamedExpr)):
        return None
    call = stmt.test.left.value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "pop"
            and isinstance(call.func.value, ast.Name) and call.func.value.id == "kwargs" and not call.keywords
            and len(call.args) == 2 and all(isinstance(arg, ast.Constant) for arg in call.args)
            and isinstance(call.args[0].value, str) and call.args[1].value is None):
        return None
    return call.args[0].value


def _super_call(stmt: ast.stmt):
    """``super().__init__(...)`` / ``super().__post_init__(...)`` -> its keywords, else None."""
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return None
    call = stmt.value
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr in ("__init__", "__post_init__")
            and isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name)
            and func.value.func.id == "super"):
        return None
    keywords = []
    for kw in call.keywords:
        if kw.arg is None:
            keywords.append(["**", _var(kw.value) if isinstance(kw.value, (ast.Name, ast.Attribute)) else None])
            continue
        try:
            keywords.append([kw.arg, _var(kw.value)])
        except _NoMatch:
            try:
                keywords.append([kw.arg, {"literal": _jsonable(_literal(kw.value))}])
            except _NoMatch:
                keywords.append([kw.arg, None])
    return {"method": func.attr, "keywords": keywords, "positional": len(call.args)}


def steps_of(fn) -> list:
    try:
        src = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return [["opaque", {"reads": [], "writes": [], "why": "no source"}]]
    tree = ast.parse(src).body[0]
    stmts = [stmt for stmt in tree.body if not _is_noise(stmt)]
    out = []
    i = 0
    while i < len(stmts):
        stmt = stmts[i]
        call = _super_call(stmt)
        if call is not None:
            out.append(["super", call])
            i += 1
            continue
        several = _recognise_several(stmts, i)
        if several is not None:
            step, used = several
            out.append(step)
            i += used
            continue
        out.append(recognise(stmt))
        i += 1
    return out


def _recognise_several(stmts: list, i: int) -> "tuple[list, int] | None":
    """A pattern of several statements matching ``stmts[i:]`` -> (its step, how many statements it took)."""
    for name, pattern, fixed in _COMPILED:
        if len(pattern) < 2 or i + len(pattern) > len(stmts):
            continue
        env: dict = {}
        try:
            _match(pattern, stmts[i:i + len(pattern)], env)
        except _NoMatch:
            continue
        args = {**_plain(env), **fixed}
        measure = facts_transformers5.MEASURED_STEPS.get(name)
        if measure is not None:
            if not _CURRENT_CLASS:
                continue
            args.update(measure(_CURRENT_CLASS[-1], args))
        return [name, args], len(pattern)
    return None


def _text_config_rule(fn) -> "dict | None":
    """``get_text_config`` overrides of the shapes ``return self.x``, ``return self.x.get_text_config(...)`` and
    ``if self.x is not None: return self.x`` + ``return self``."""
    try:
        body = [s for s in ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0].body if not _is_noise(s)]
    except (OSError, TypeError):
        return None
    if len(body) == 1 and isinstance(body[0], ast.Return):
        value = body[0].value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                and value.func.attr == "get_text_config":
            try:
                return {"attribute": _var(value.func.value).removeprefix("self."), "then_text_config": True}
            except _NoMatch:
                return None
        try:
            name = _var(value)
        except _NoMatch:
            return None
        return {"attribute": name.removeprefix("self.")} if name.startswith("self.") else None
    if len(body) == 2 and isinstance(body[0], ast.If) and isinstance(body[1], ast.Return):
        test, ret = body[0], body[1]
        src = ast.unparse(test)
        for attr in ("text_config",):
            if src == f"if self.{attr} is not None:\n    return self.{attr}" and ast.unparse(ret) == "return self":
                return {"attribute": attr, "self_if_none": True}
    return None


def params_of(fn) -> tuple[list, bool]:
    sig = inspect.signature(fn)
    params = []
    has_kwargs = False
    for p in list(sig.parameters.values())[1:]:
        if p.kind is p.VAR_KEYWORD:
            has_kwargs = True
            continue
        if p.kind is p.VAR_POSITIONAL:
            params.append([p.name, {"varargs": True}])
            continue
        if p.default is p.empty:
            params.append([p.name, {"required": True}])
            continue
        params.append([p.name, _default(p.default)])
    return params, has_kwargs


def _default(value):
    try:
        text = json.dumps(_jsonable(value))
    except (TypeError, ValueError):
        return {"opaque_default": type(value).__name__}
    return {"literal": json.loads(text)}


# ---------------------------------------------------------------------------------------------
# transformers


def _config_classes():
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING, CONFIG_MAPPING_NAMES
    seen: dict[str, type] = {}
    order = []

    def add(cls):
        if not isinstance(cls, type) or cls.__name__ in seen:
            return
        seen[cls.__name__] = cls
        order.append(cls)
        subs = cls.__dict__.get("sub_configs")
        if isinstance(subs, dict):
            for value in subs.values():
                if isinstance(value, type):
                    add(value)
                elif isinstance(value, str) and value in CONFIG_MAPPING_NAMES:
                    try:
                        add(CONFIG_MAPPING[value])
                    except Exception:  # noqa: BLE001 - a class whose module does not import here
                        pass
        for spec in (facts_transformers5.sub_configs_defaults(cls) or {}).values():  # transformers >= 5.20
            name = spec["class"] or CONFIG_MAPPING_NAMES.get(spec["model_type"] or "")
            found = next((k for k in _spec_classes(cls) if k.__name__ == name), None)
            if found is None and spec["model_type"] in CONFIG_MAPPING_NAMES:
                try:
                    found = CONFIG_MAPPING[spec["model_type"]]
                except Exception:  # noqa: BLE001
                    found = None
            if found is not None:
                add(found)
        for base in cls.__mro__[1:]:
            if isinstance(base, type) and base.__name__ not in _BASE_NAMES + ("object", "PushToHubMixin"):
                add(base)

    for mt in CONFIG_MAPPING_NAMES:
        try:
            add(CONFIG_MAPPING[mt])
        except Exception:  # noqa: BLE001
            continue
    return order


def _spec_classes(cls) -> list:
    """The config classes a transformers >= 5.20 class names in ``sub_configs_defaults``."""
    specs = cls.__dict__.get("sub_configs_defaults")
    return [s.config_class for s in specs.values() if isinstance(getattr(s, "config_class", None), type)] \
        if isinstance(specs, dict) else []


def describe_class(cls) -> dict:
    import transformers
    base_cls = getattr(transformers, "PreTrainedConfig", None) or transformers.PretrainedConfig
    rec: dict = {"model_type": cls.__dict__.get("model_type", getattr(cls, "model_type", "")),
                 "module": cls.__module__}
    parent = next((b for b in cls.__mro__[1:] if isinstance(b, type) and issubclass(b, base_cls)), None)
    if parent is not None and parent.__name__ not in _BASE_NAMES:
        rec["parent"] = parent.__name__
    amap = getattr(cls, "attribute_map", {})
    if amap:
        rec["attribute_map"] = dict(amap)
    subs = cls.__dict__.get("sub_configs")
    if isinstance(subs, dict):
        rec["sub_configs"] = {k: (v.__name__ if isinstance(v, type) else {"auto": v}) for k, v in subs.items()}
    elif isinstance(subs, property):
        rec["sub_configs"] = {"opaque_property": True}
    for attr in ("base_config_key", "has_no_defaults_at_init", "is_composition"):
        if attr in cls.__dict__:
            rec[attr] = cls.__dict__[attr]
    _CURRENT_CLASS.append(cls)
    v5 = facts_transformers5.is_v5_config(cls)
    init = cls.__dict__.get("__init__") if not v5 else facts_transformers5.custom_init(cls)
    if init is not None:
        rec["params"], rec["kwargs"] = params_of(init)
        known = KNOWN_INITS.get(_fingerprint_source(init))
        rec["init"] = [known] if known is not None else steps_of(init)
    if "to_json_string" in cls.__dict__ and _fingerprint_source(cls.__dict__["to_json_string"]) in JSON_WITHOUT_DIFF:
        rec["json_without_diff"] = True
    if "from_pretrained" in cls.__dict__:
        fp = _fingerprint_source(cls.__dict__["from_pretrained"].__func__)
        rec["from_pretrained"] = KNOWN_FROM_PRETRAINED.get(fp, "opaque")
    if "from_dict" in cls.__dict__ and cls.__name__ not in _BASE_NAMES:
        fn = cls.__dict__["from_dict"]
        fp = _fingerprint_source(getattr(fn, "__func__", fn))
        rec["from_dict"] = {"kind": KNOWN_FROM_DICT.get(fp or "", "opaque"), "fingerprint": fp}
    for meth in ("__post_init__",):
        fn = cls.__dict__.get(meth)
        if fn is not None:
            rec["post_init"] = (facts_transformers5.known_post_init(cls, fn) if v5 else None) or steps_of(fn)
    if "get_text_config" in cls.__dict__:
        rule = _text_config_rule(cls.__dict__["get_text_config"])
        if rule is not None:
            rec["text_config_rule"] = rule
        else:
            rec["get_text_config"] = steps_of(cls.__dict__["get_text_config"])
    _CURRENT_CLASS.pop()
    if not v5:
        read = _class_values_read(cls, rec)
        if read:
            rec["class_attrs"] = read
    try:
        cls()
    except Exception as exc:  # noqa: BLE001 - measured: what building the class with no arguments raises
        rec["default_error"] = [type(exc).__name__, str(exc)]
    props = _properties(cls)
    if props and facts_transformers5.is_v5_config(cls):
        props = facts_transformers5.known_properties(cls, props)
    if props:
        rec["properties"] = props
    hooks = _hooks(cls)
    if v5:
        hooks = {k: v for k, v in hooks.items() if not facts_transformers5.is_strict_hook(cls, k)}
        _CURRENT_CLASS.append(cls)
        facts_transformers5.describe(cls, rec, parent, _method_facts)
        _CURRENT_CLASS.pop()
    if hooks:
        rec["hooks"] = hooks
    return rec


def _method_facts(cls, name: str, fn) -> dict:
    """A method transformers' shared code calls on the object, as the class defines it: a named behaviour
    (by the fingerprint of its source) or its parameters and steps."""
    fn = getattr(fn, "__func__", fn)
    fp = facts_transformers5.fingerprint(fn)
    known = facts_transformers5.KNOWN_METHODS5.get(fp)
    if known is not None:
        return {"known": known[0], **facts_transformers5.resolve_args(cls, known[1])}
    try:
        params, kwargs = params_of(fn)
    except (TypeError, ValueError):
        return {"opaque": fp}
    return {"params": params, "kwargs": kwargs, "steps": steps_of(fn), "fingerprint": fp}


def _base_facts() -> dict:
    """What PretrainedConfig itself contributes: its keyword parameters with their defaults and the
    generation defaults it pops from the keyword arguments."""
    import transformers
    base_cls = getattr(transformers, "PreTrainedConfig", None) or transformers.PretrainedConfig
    params, _ = params_of(base_cls.__init__)
    out = {"params": [[name, d.get("literal")] for name, d in params]}
    gen = getattr(base_cls, "_get_global_generation_defaults", None)
    if gen is not None:
        out["generation_defaults"] = {k: _jsonable(v) for k, v in gen().items()}
    return out


def _rope_key_sets() -> dict:
    """Per RoPE type: the ``required_keys`` / ``optional_keys`` sets its validator names (read from its source)."""
    from transformers import modeling_rope_utils as mru
    table = getattr(mru, "ROPE_VALIDATION_FUNCTIONS", {})
    out = {}
    for rope_type, fn in table.items():
        entry = {"required": None, "optional": None}
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                target = node.targets[0].id
                if target in ("required_keys", "optional_keys"):
                    try:
                        entry[target.split("_")[0]] = sorted(ast.literal_eval(node.value))
                    except ValueError:
                        entry[target.split("_")[0]] = {"opaque": True}
        out[rope_type] = entry
    return out


def _model_mapping_names() -> dict:
    from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES
    return {k: _jsonable(v) for k, v in MODEL_MAPPING_NAMES.items()}


def _causal_lm_model_types() -> list[str]:
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
    return sorted(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES)


def transformers_tables(coverage: str | None) -> dict:
    import transformers
    import transformers.configuration_utils as cu
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES
    classes = _config_classes()
    out = {"kind": "kvguard-facts-transformers", "line": transformers.__version__,
           **({"allowed_attention_layer_types": list(cu.ALLOWED_ATTENTION_LAYER_TYPES)}
              if hasattr(cu, "ALLOWED_ATTENTION_LAYER_TYPES") else {}),
           "config_mapping": dict(CONFIG_MAPPING_NAMES),
           "config_mapping_order": list(CONFIG_MAPPING_NAMES),  # CONFIG_MAPPING.keys() (the file sorts keys)
           "base": _base_facts(),
           "allowed_layer_types": list(getattr(cu, "ALLOWED_LAYER_TYPES", ())),
           "model_mapping_names": _model_mapping_names(),
           "causal_lm_model_types": _causal_lm_model_types(),
           "rope": _rope_key_sets(),
           "classes": {cls.__name__: describe_class(cls) for cls in classes}}
    if facts_transformers5.is_v5_config(getattr(transformers, "PreTrainedConfig", None)):
        out["base5"] = facts_transformers5.base_facts()
        out["type_classes"] = facts_transformers5.type_classes()
    if coverage:
        _coverage(out, coverage)
    return out


def _coverage(out: dict, path: str) -> None:
    with open(path) as f:
        wanted = json.load(f)
    classes = out["classes"]
    names = {out["config_mapping"].get(mt) for mt in wanted}
    todo = list(names - {None})
    seen = set()
    while todo:
        name = todo.pop()
        if name in seen or name not in classes:
            continue
        seen.add(name)
        rec = classes[name]
        for v in (rec.get("sub_configs") or {}).values():
            if isinstance(v, str):
                todo.append(v)
        if "parent" in rec:
            todo.append(rec["parent"])
    total = opaque = 0
    by_class = {}
    for name in sorted(seen):
        rec = classes[name]
        steps = rec.get("init", []) + rec.get("post_init", [])
        n = sum(1 for s in steps if s[0] == "opaque")
        total += len(steps)
        opaque += n
        if n:
            by_class[name] = n
    print(f"{len(seen)} classes, {total} steps, {opaque} opaque", file=sys.stderr)
    for name, n in sorted(by_class.items(), key=lambda kv: -kv[1]):
        print(f"  {n:3} {name}", file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# vLLM (one release; tools/facts_extract.py merge-vllm joins the releases)

_VLLM_TABLES = ("_SPECULATIVE_DECODING_CONFIGS", "_AUTO_CONFIG_KWARGS_OVERRIDES", "_PATCH_HF_VALIDATE_ROPE",
                "_PATCH_HF_ALLOWED_LAYER_TYPES", "_PATCH_HF_NESTED_ROPE_VALIDATION", "_ARCHITECTURE_TO_MODEL_TYPE",
                "_CONFIG_ATTRS_MAPPING")


def _class_refs(value) -> list[str]:
    """Every ``{"class": name}`` inside a step list."""
    out = []
    if isinstance(value, dict):
        if isinstance(value.get("class"), str):
            out.append(value["class"])
        for item in value.values():
            out += _class_refs(item)
    elif isinstance(value, list):
        for item in value:
            out += _class_refs(item)
    return out


def _registered_model_types(registry: dict) -> list[str]:
    """Model types whose checkpoints this release can serve: transformers model types whose auto-model classes
    are in the release's model registry, and the types of vLLM's own config registry."""
    import transformers.models.auto.modeling_auto as auto
    from vllm.model_executor.models.registry import ModelRegistry
    archs = set(ModelRegistry.get_supported_archs())
    out = set(registry)
    for name in dir(auto):
        table = getattr(auto, name)
        if not (name.endswith("_MAPPING_NAMES") and isinstance(table, dict)):
            continue
        for model_type, classes in table.items():
            names = classes if isinstance(classes, (list, tuple)) else [classes]
            if any(c in archs for c in names):
                out.add(model_type)
    return sorted(out)


def vllm_tables() -> dict:
    import vllm
    import vllm.transformers_utils.config as vc
    registry = {}
    classes: dict[str, dict] = {}
    transformers_classes = set()

    def add(cls):
        if cls.__module__.startswith("transformers."):
            transformers_classes.add(cls.__name__)
            return cls.__name__
        key = "vllm:" + cls.__name__
        if key in classes:
            return key
        classes[key] = {}
        rec = describe_class(cls)
        for base in cls.__mro__[1:]:
            if isinstance(base, type) and base.__name__ not in _BASE_NAMES + ("object", "PushToHubMixin") \
                    and hasattr(base, "model_type"):
                rec["parent"] = add(base)
                break
        subs = cls.__dict__.get("sub_configs")
        if isinstance(subs, dict):
            rec["sub_configs"] = {k: add(v) if isinstance(v, type) else {"auto": v} for k, v in subs.items()}
        classes[key] = rec
        return key

    for model_type in list(dict.keys(vc._CONFIG_REGISTRY)):
        try:
            cls = vc._CONFIG_REGISTRY[model_type]
        except Exception as exc:  # noqa: BLE001 - a class whose module does not import here
            registry[model_type] = {"unavailable": f"{type(exc).__name__}: {exc}"}
            continue
        registry[model_type] = add(cls)
    # classes the registry classes build by name (``Foo(**kwargs)`` in their __init__) live beside them
    aliases: dict[str, str] = {}
    pending = True
    while pending:
        pending = False
        for rec in list(classes.values()):
            module = sys.modules.get(rec.get("module", ""))
            for ref in _class_refs(rec.get("init", []) + rec.get("post_init", [])):
                if module is None:
                    continue
                target = getattr(module, ref, None)
                if not isinstance(target, type):
                    continue
                if target.__module__.startswith("transformers."):
                    if target.__name__ != ref:   # a module-level alias of a transformers class
                        aliases[ref] = target.__name__
                    continue
                if "vllm:" + target.__name__ not in classes:
                    add(target)
                    pending = True
    tables = {}
    for name in _VLLM_TABLES:
        value = getattr(vc, name, _MISSING)
        if value is not _MISSING:
            tables[name] = _jsonable(value)
    out = {"kind": "kvguard-facts-vllm-release", "release": vllm.__version__, "registry": registry,
           "registered_model_types": _registered_model_types(registry),
           "class_aliases": aliases,
           "transformers_classes": sorted(transformers_classes), "tables": tables, "classes": classes}
    if facts_transformers5.TYPE_CLASSES:
        out["type_classes"] = facts_transformers5.type_classes()
    return out


# ---------------------------------------------------------------------------------------------
# what kvguard cannot follow (host python: reads the tables, not the libraries)


def _refs_in(value) -> list[str]:
    out = []
    if isinstance(value, dict):
        for key in ("class", "sub"):
            if isinstance(value.get(key), str) and key == "class":
                out.append(value[key])
        for item in value.values():
            out += _refs_in(item)
    elif isinstance(value, list):
        for item in value:
            out += _refs_in(item)
    return out


def _slot_model_types(value) -> list[str]:
    """The model types a record's sub-config steps fill a slot with by name (``CONFIG_MAPPING[...]``): a fixed
    mapping key, a ``model_type`` defaulted, read with a default or renamed to before the build.  A checkpoint may
    name another model type there; the listing follows the one the class itself would build."""
    out = []
    if isinstance(value, dict):
        if isinstance(value.get("mapping"), str):
            out.append(value["mapping"])
        op = value.get("op")
        if op in ("model_type", "model_type_default") and isinstance(value.get("value"), str):
            out.append(value["value"])
        elif op == "read_model_type" and isinstance(value.get("default"), str):
            out.append(value["default"])
        elif op == "model_type_rename" and isinstance(value.get("new"), str):
            out.append(value["new"])
        for item in value.values():
            out += _slot_model_types(item)
    elif isinstance(value, list):
        for item in value:
            out += _slot_model_types(item)
    return out


def _unmodelled_ops(value) -> bool:
    """Whether a sub_config step holds, at any depth, an ``unmodelled`` op (a guarded block kvguard declines)."""
    if isinstance(value, dict):
        return value.get("op") == "unmodelled" or any(_unmodelled_ops(v) for v in value.values())
    if isinstance(value, list):
        return any(_unmodelled_ops(v) for v in value)
    return False


def _with_nested(steps: list) -> list:
    """The steps and, after each block step, the steps it guards (their names must be known as well)."""
    out = []
    for step in steps:
        out.append(step)
        if step[0] in ("steps_if_truthy", "steps_if_none", "steps_if_not_none", "steps_if"):
            out += _with_nested(step[1]["steps"])
    return out


def _unmodelled_in(record: dict, known_steps: set) -> list[str]:
    """What in one class record the runtime cannot follow."""
    out = []
    for part in ("init", "post_init", "get_text_config"):
        for step in _with_nested(record.get(part, [])):
            if step[0] == "opaque" or (step[0] != "super" and step[0] not in known_steps):
                detail = step[1].get("method") or ",".join(step[1].get("writes", [])) or ",".join(
                    step[1].get("reads", [])[:3])
                out.append(f"{part}: {step[0]} ({detail})")
            elif step[0] == "sub_config" and _unmodelled_ops(step[1]):
                out.append(f"{part}: sub_config ({step[1].get('var')}: a branch kvguard does not model)")
    for name, method in (record.get("methods") or {}).items():
        # the methods every load runs: @strict's validators and the RoPE conversion of transformers 5's __init__
        if not (name.startswith("validate") or name == "convert_rope_params_to_dict") or not isinstance(method, dict):
            continue
        for step in _with_nested(method.get("steps") or []):
            if step[0] == "opaque" or (step[0] != "super" and step[0] not in known_steps):
                out.append(f"method {name}: {step[0]}")
                break
    for name, prop in (record.get("properties") or {}).items():
        if prop.get("kind") == "opaque":
            out.append(f"property {name}")
    for name, hook in (record.get("hooks") or {}).items():
        if hook.get("kind") == "opaque":
            out.append(f"hook {name}")
    if record.get("from_pretrained") == "opaque":
        out.append("from_pretrained")
    if isinstance(record.get("sub_configs"), dict) and "opaque_property" in record["sub_configs"]:
        out.append("sub_configs property")
    return out


def unmodelled(release: str) -> dict[str, dict[str, list[str]]]:
    """For every model type the release can serve: class name -> what kvguard cannot follow in it (only classes
    with something), over the class, its parents, its sub-config classes, the classes its steps build and the
    classes its sub-config slots filled by model type default to (sub_configs_defaults, CONFIG_MAPPING keys)."""
    sys.path.insert(0, ROOT)
    from packaging.version import Version

    from kvguard.facts.steps import STEPS
    from kvguard.facts.tables import transformers_tables, vllm_release_tables
    from kvguard.versions import Release
    line = Release(Version(release)).transformers
    ttables = transformers_tables(line)
    vtables = vllm_release_tables(release)
    known = set(STEPS)

    def record_of(name: str):
        if name.startswith("vllm:"):
            return vtables["classes"].get(name)
        return ttables["classes"].get(name)

    out: dict[str, dict[str, list[str]]] = {}
    for model_type in vtables.get("registered_model_types", []):
        entry = vtables["registry"].get(model_type) or ttables["config_mapping"].get(model_type)
        if not isinstance(entry, str):
            continue
        todo, seen, found = [entry], set(), {}
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            if name == "AutoConfig":
                continue  # a sub-config slot filled by model type (CONFIG_MAPPING), never built as a class
            record = record_of(name)
            if record is None:
                if not name.startswith("vllm:") and "vllm:" + name in vtables["classes"]:
                    todo.append("vllm:" + name)
                continue
            items = _unmodelled_in(record, known)
            if items:
                found[name] = items
            if record.get("parent"):
                todo.append(record["parent"])
            for sub in (record.get("sub_configs") or {}).values():
                if isinstance(sub, str):
                    todo.append(sub)
            for ref in _refs_in(record.get("init", []) + record.get("post_init", [])):
                todo.append(ref if not name.startswith("vllm:") else (
                    "vllm:" + ref if "vllm:" + ref in vtables["classes"] else
                    vtables.get("class_aliases", {}).get(ref, ref)))
            # sub-config slots filled by model type: transformers 5.20+ records keep them in
            # sub_configs_defaults (a class, or AutoConfig with a default model_type), earlier lines in the
            # steps that default, read or rename the slot's model_type before CONFIG_MAPPING builds it
            slot_types = _slot_model_types(record.get("init", []) + record.get("post_init", []))
            for default in (record.get("sub_configs_defaults") or {}).values():
                if not isinstance(default, dict):
                    continue
                if isinstance(default.get("class"), str):
                    todo.append(default["class"])
                elif isinstance(default.get("model_type"), str):
                    slot_types.append(default["model_type"])
            for slot_type in slot_types:
                by_type = vtables["registry"].get(slot_type) or ttables["config_mapping"].get(slot_type)
                if isinstance(by_type, str):
                    todo.append(by_type)
        if found:
            out[model_type] = found
    return out


# ---------------------------------------------------------------------------------------------
# the driver (host python)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT_DIR = os.path.join(ROOT, "kvguard", "data", "facts")


def _oracle(release: str, root: "str | None"):
    import subprocess
    cmd = [sys.executable, os.path.join(HERE, "oracle_env.py"), "python", release, "--json"]
    if root:
        cmd += ["--root", root]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"facts_extract: no oracle environment for vLLM {release} ({r.stderr.strip()})")
    info = json.loads(r.stdout)
    return info["python"], info.get("env", {})


def _run_in(release: str, root: "str | None", what: str, out: str) -> dict:
    import subprocess
    python, extra = _oracle(release, root)
    env = dict(os.environ, HF_HUB_OFFLINE="1", VLLM_LOGGING_LEVEL="ERROR")
    env.pop("PYTHONPATH", None)
    env.update(extra)
    subprocess.run([python, os.path.abspath(__file__), what, out], check=True, env=env)
    with open(out) as f:
        return json.load(f)


def _digest(record) -> str:
    import hashlib
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()[:12]


#: class-level values kvguard never reads (tensor/pipeline/expert-parallel plans of transformers' own models)
UNREAD_CLASS_VALUES = ("base_model_pp_plan", "base_model_ep_plan")
#: class-level values whose presence only is read: transformers 5.17-5.20 ``__post_init__`` copies a class's
#: tensor-parallel plan (when not None) onto the instance when embeddings are tied, so the plan is kept as ``{}``
PRESENCE_CLASS_VALUES = ("base_model_tp_plan",)


def _pool(records: dict, pool_dir: str) -> dict:
    """Write each class record to ``classes/<name>-<digest>.json`` (shared by lines and releases); -> name -> id."""
    index = {}
    for name, record in records.items():
        values = record.get("class_attrs")
        if isinstance(values, dict):
            for key in UNREAD_CLASS_VALUES:
                values.pop(key, None)
            for key in PRESENCE_CLASS_VALUES:
                value = values.get(key)
                if isinstance(value, dict) and value.get("literal") is not None:
                    values[key] = {"literal": {"dict": {}}}
        file_id = f"{name.removeprefix('vllm:')}-{_digest(record)}"
        path = os.path.join(pool_dir, file_id + ".json")
        if not os.path.exists(path):
            with open(path, "w") as f:
                json.dump(record, f, separators=(",", ":"), sort_keys=True)
                f.write("\n")
        index[name] = file_id
    return index


#: vLLM's loading code that kvguard/facts/loader.py follows (by release, through its FEATURES): its
#: normalised source is fingerprinted per release, and a fingerprint missing from loader.REVIEWED
#: fails tests/facts: a new variant must be read and reflected in FEATURES before the release is modelled
LOADER_CODE = {
    "vllm/transformers_utils/config.py": (
        "HFConfigParser", "get_config", "LazyConfigDict", "_register_config_class",
        "_patch_hf_transformers_validate_rope", "_patch_hf_transformers_nested_rope_validation",
        "_patch_hf_transformers_allowed_layer_types", "_install_hf_config_validator"),
    "vllm/transformers_utils/repo_utils.py": ("with_retry",),
}


def _source_fingerprint(node: ast.AST) -> str:
    """sha256 of the unparsed source without docstrings (transformers 5's class rename folded in)."""
    import hashlib
    tree = ast.parse(ast.unparse(node))
    for sub in ast.walk(tree):
        body = getattr(sub, "body", None)
        if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)) and body \
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            sub.body = body[1:] or [ast.Pass()]
    text = ast.unparse(tree).replace("PreTrainedConfig", "PretrainedConfig")
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def loader_fingerprints(release: str, root: "str | None") -> dict[str, str]:
    """Fingerprints of LOADER_CODE in ``release``'s sources (read from its oracle environment, not imported)."""
    _, env = _oracle(release, root)
    source_root = env["PYTHONPATH"].split(os.pathsep)[0]
    out = {}
    for rel_path, names in LOADER_CODE.items():
        path = os.path.join(source_root, rel_path)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) and stmt.name in names:
                out[stmt.name] = _source_fingerprint(stmt)
    return out


def refresh_fingerprints(releases: list[str], root: "str | None") -> None:
    """Rewrite only the loader fingerprints of ``releases`` in vllm.json."""
    vllm_path = os.path.join(OUT_DIR, "vllm.json")
    with open(vllm_path) as f:
        merged = json.load(f)
    for release in releases:
        merged["releases"][release]["loader_fingerprints"] = loader_fingerprints(release, root)
    with open(vllm_path, "w") as f:
        json.dump(merged, f, separators=(",", ":"), sort_keys=True)


def _class_values_read(cls, rec: dict) -> dict:
    """transformers 4.x: the class-level values (not methods or descriptors) the class's own steps read through
    ``self.<name>`` — e.g. a table of default sub-config keywords; the 5.x records keep every class value."""
    import re
    text = json.dumps([rec.get(part) for part in ("init", "post_init", "get_text_config")])
    names = set(re.findall(r'"self\.(\w+)"', text)) | set(re.findall(r'"under_class_value": "(\w+)"', text))
    out = {}
    for name in sorted(names):
        if name not in cls.__dict__ or name in ("model_type", "attribute_map", "sub_configs"):
            continue
        value = cls.__dict__[name]
        if callable(value) or isinstance(value, (property, classmethod, staticmethod)):
            continue
        out[name] = facts_transformers5._class_attr_value(value)
    return out


def regenerate(releases: list[str], root: "str | None", vllm_only: bool = False,
               classes: "set[str] | None" = None) -> None:
    """Run the extraction in each release's oracle environment; tables for the releases given are replaced,
    the others kept; class records no table names any more are removed.  ``vllm_only``: the releases' own
    tables only, their transformers lines' kept.  ``classes``: only these classes' records are replaced (vLLM's
    named with or without ``vllm:``), every other entry kept as stored — a vocabulary extension proven on the
    classes it was made for, before the rest of a line is regenerated and proven."""
    import tempfile
    sys.path.insert(0, ROOT)
    from packaging.version import Version

    from kvguard.versions import Release
    pool_dir = os.path.join(OUT_DIR, "classes")
    os.makedirs(pool_dir, exist_ok=True)
    vllm_path = os.path.join(OUT_DIR, "vllm.json")
    merged = {"kind": "kvguard-facts-vllm", "generator": "tools/facts_extract.py", "releases": {}}
    if os.path.exists(vllm_path):
        with open(vllm_path) as f:
            merged["releases"] = json.load(f)["releases"]
    lines_done = set()
    with tempfile.TemporaryDirectory() as tmp:
        for release in releases:
            line = Release(Version(release)).transformers
            if line not in lines_done and not vllm_only:
                data = _run_in(release, root, "transformers", os.path.join(tmp, f"t-{line}.json"))
                data["generator"] = "tools/facts_extract.py"
                data["classes"] = _pool(data["classes"], pool_dir)
                if classes is not None:
                    with open(os.path.join(OUT_DIR, f"transformers-{line}.json")) as f:
                        data = _only_classes(json.load(f), data, classes)
                with open(os.path.join(OUT_DIR, f"transformers-{line}.json"), "w") as f:
                    json.dump(data, f, indent=None, separators=(",", ":"), sort_keys=True)
                lines_done.add(line)
            data = _run_in(release, root, "vllm", os.path.join(tmp, f"v-{release}.json"))
            data["classes"] = _pool(data["classes"], pool_dir)
            data["loader_fingerprints"] = loader_fingerprints(release, root)
            if classes is not None and release in merged["releases"]:
                data = _only_classes(merged["releases"][release], data, classes)
            merged["releases"][release] = data
            print(f"vLLM {release}: {len(data['classes'])} classes (transformers {line})", file=sys.stderr)
    order = sorted(merged["releases"], key=lambda v: tuple(int(x) for x in v.split(".")))
    merged["releases"] = {k: merged["releases"][k] for k in order}
    with open(vllm_path, "w") as f:
        json.dump(merged, f, separators=(",", ":"), sort_keys=True)
    _prune(pool_dir)


def _only_classes(stored: dict, fresh: dict, classes: "set[str]") -> dict:
    """The stored tables with the named classes' records taken from the fresh extraction (a class the fresh one
    lacks is dropped)."""
    out = dict(stored)
    out["classes"] = dict(stored["classes"])
    for name in set(stored["classes"]) | set(fresh["classes"]):
        if name.removeprefix("vllm:") in classes:
            if name in fresh["classes"]:
                out["classes"][name] = fresh["classes"][name]
            else:
                out["classes"].pop(name, None)
    return out


def _prune(pool_dir: str) -> None:
    used = set()
    for name in os.listdir(OUT_DIR):
        if name.endswith(".json"):
            with open(os.path.join(OUT_DIR, name)) as f:
                data = json.load(f)
            if "releases" in data:
                for entry in data["releases"].values():
                    used |= set(entry["classes"].values())
            elif "classes" in data:
                used |= set(data["classes"].values())
    for name in os.listdir(pool_dir):
        if name.endswith(".json") and name[:-5] not in used:
            os.unlink(os.path.join(pool_dir, name))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("transformers", "vllm", "regenerate", "unmodelled", "fingerprints"))
    ap.add_argument("out", nargs="?")
    ap.add_argument("--coverage", help="JSON list of model types whose classes to report opaque steps for")
    ap.add_argument("--releases", default="all")
    ap.add_argument("--root", default=None, help="tools/oracle_env.py root")
    ap.add_argument("--vllm-only", action="store_true",
                    help="regenerate: the releases' own tables only, their transformers lines' tables kept")
    ap.add_argument("--classes", default=None,
                    help="regenerate: replace only these classes' records (comma-separated), keep every other entry")
    args = ap.parse_args(argv)
    if args.what == "unmodelled":
        sys.path.insert(0, ROOT)
        from kvguard.versions import KNOWN_RELEASES
        releases = list(KNOWN_RELEASES) if args.releases == "all" else args.releases.split(",")
        for release in releases:
            for model_type, classes in sorted(unmodelled(release).items()):
                for name, items in classes.items():
                    print(f"{release}  {model_type:28} {name}: {'; '.join(items)}")
        return 0
    if args.what in ("regenerate", "fingerprints"):
        sys.path.insert(0, ROOT)
        from kvguard.versions import KNOWN_RELEASES
        releases = list(KNOWN_RELEASES) if args.releases == "all" else args.releases.split(",")
        if args.what == "regenerate":
            regenerate(releases, args.root, vllm_only=args.vllm_only,
                       classes=set(args.classes.split(",")) if args.classes else None)
        else:
            refresh_fingerprints(releases, args.root)
        return 0
    data = transformers_tables(args.coverage) if args.what == "transformers" else vllm_tables()
    with open(args.out, "w") as f:
        json.dump(data, f, indent=None, separators=(",", ":"), sort_keys=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
