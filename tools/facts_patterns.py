"""Statement shapes the facts extractor recognises in config classes, and the step each one names.

Used by tools/facts_extract.py inside an oracle environment.  A pattern is a small piece of
Python source with placeholders:

* ``V_a`` — a variable: a local name or ``self.<name>`` (recorded as ``"name"`` or ``"self.name"``);
* ``K_a`` — a literal value (number, string, None, bool, or a list/tuple/dict/set of literals);
* ``A_m`` — an attribute or method name (recorded as the name);
* ``F_msg`` — an f-string over plain names (recorded as a message template);
* ``C_a`` — a config class: a class name, ``self.sub_configs["key"]`` or ``CONFIG_MAPPING[...]``
  (recorded as ``{"class": name}``, ``{"sub": key}`` or ``{"mapping": <literal or variable>}``).

A statement that matches a pattern becomes the step named beside it, with the placeholders'
values as its arguments: names and literal values only, never code.  kvguard implements each
step name in ``kvguard/facts/steps.py``; a statement that matches nothing becomes an ``opaque``
step that names what it reads and writes, and kvguard declines (Undecidable) where such a step
could change what it reports.
"""

from __future__ import annotations

# (step name, pattern source[, fixed arguments]): several sources may share a step name (spellings of one
# behaviour); the fixed arguments name a variant of the step
PATTERNS: list[tuple] = [
    # -- plain stores and defaults --------------------------------------------------------------
    ("set", "V_a = V_b"),
    ("set_const", "V_a = K_v"),
    ("default_if_none", "if V_a is None:\n    V_a = V_b"),
    ("default_if_none", "V_a = V_b if V_a is None else V_a"),
    ("default_if_none", "V_a = V_a if V_a is not None else V_b"),
    ("set_default_if_none", "V_t = V_a if V_a is not None else V_b"),
    ("set_default_if_none", "V_t = V_b if V_a is None else V_a"),
    ("const_if_none", "if V_a is None:\n    V_a = K_v"),
    ("const_if_none", "V_a = K_v if V_a is None else V_a"),
    ("set_const_if_none", "V_t = V_a if V_a is not None else K_v"),
    ("set_const_if_none", "V_t = K_v if V_a is None else V_a"),
    ("set_const_if_none", "if V_a is not None:\n    V_t = V_a\nelse:\n    V_t = K_v"),
    ("set_const_if_none", "if V_a is None:\n    V_t = K_v\nelse:\n    V_t = V_a"),
    ("set_or", "V_t = V_a or V_b"),
    ("set_or_const", "V_t = V_a or K_v"),
    ("set_if_else", "V_t = V_a if V_c else V_b"),
    ("set_if_else_const", "V_t = V_a if V_c else K_v"),
    ("set_b_if_none_else_a", "V_t = V_a if V_c is None else V_b"),
    ("kwargs_pop", "V_t = kwargs.pop(K_k, K_v)"),
    ("kwargs_pop", "V_t = kwargs.pop(K_k)"),
    ("kwargs_pop_or", "V_t = kwargs.pop(K_k, K_v) or V_b"),        # vLLM's FunAudioChat audio encoder
    ("kwargs_get", "V_t = kwargs.get(K_k, K_v)"),
    ("kwargs_get", "V_t = kwargs.get(K_k, V_d)"),
    ("kwargs_setdefault", "kwargs.setdefault(K_k, K_v)"),
    ("kwargs_drop", "kwargs.pop(K_k, None)"),
    ("kwargs_set", "kwargs[K_k] = K_v"),
    # vLLM's Step5Config / Step5VLConfig (0.33.0): a list's prefix unless it is empty or None; the text config's
    # quantization config passed on unless given; the class's architectures unless given
    ("prefix_if_truthy", "V_t = list(V_a[:V_n]) if V_a else None", {"as_list": True}),
    ("prefix_if_truthy", "V_t = V_a[:V_n] if V_a else None"),
    ("kwargs_set_attr_of_if_missing",
     "if K_k not in kwargs and (V_t := getattr(V_o, K_attr, K_d)) is not None:\n    kwargs[K_k] = V_t"),
    ("kwargs_set_if_none", "if kwargs.get(K_k) is None:\n    kwargs[K_k] = list(type(self).A_attr)"),
    # -- arithmetic derivations -------------------------------------------------------------------
    ("floordiv", "V_t = V_a // V_b"),
    ("floordiv_if_none", "V_t = V_t if V_t is not None else V_a // V_b"),
    ("floordiv_if_none", "V_t = V_a // V_b if V_t is None else V_t"),
    ("floordiv_if_none", "if V_t is None:\n    V_t = V_a // V_b"),
    ("floordiv_if_none_from", "V_t = V_s if V_s is not None else V_a // V_b"),
    ("floordiv_or", "V_t = V_s or V_a // V_b"),
    ("floordiv_or", "V_t = V_t or V_a // V_b"),
    ("add", "V_t = V_a + V_b"),
    ("mul_const", "V_t = V_a * K_k"),
    ("mul_const", "V_t = K_k * V_a"),
    ("mul", "V_t = V_a * V_b"),
    # -- more derivations -------------------------------------------------------------------------
    ("set_attr_of", "V_t = V_s.A_attr"),
    ("set_if_else_const_first", "V_t = K_a if V_c else V_b"),
    ("minus_one_is_last_layer", "V_t = self.num_hidden_layers - 1 if V_a == -1 else V_a"),
    ("mul_const_if_none", "if V_a is None:\n    V_t = V_b * K_k\nelse:\n    V_t = V_a"),
    ("const_mul_if_none", "if V_a is None:\n    V_t = K_k * V_b\nelse:\n    V_t = V_a"),
    ("int_mul", "V_t = int(V_a * V_b)"),
    ("int_mul_if_kwarg_none", "V_t = int(V_a * V_b) if kwargs.get(K_k) is None else kwargs.get(K_k)"),
    ("int_mul_floordiv", "V_t = int(V_a * V_b) // V_c"),
    ("const_mul_floordiv", "V_t = K_k * V_a // V_b"),
    ("ceil_div_if_auto", "V_t = math.ceil(V_a / K_d) if V_s == K_auto else V_s"),
    ("floordiv_add_if", "if V_c:\n    V_t = V_t // K_d + K_p"),
    ("none_if_empty_list", "if V_a == []:\n    V_a = None"),
    ("add_if_none", "if V_t is None:\n    V_t = V_a + V_b"),
    ("const_if", "if V_c:\n    V_t = K_v"),
    ("one_of", "if V_a not in K_allowed:\n    raise ValueError(F_msg)"),
    ("raise_if_truthy", "if V_c:\n    raise ValueError(F_msg)"),
    ("drop_kwargs", "for k in K_keys:\n    if k in kwargs:\n        kwargs.pop(k)"),
    ("no_extra_kwargs", "if len(kwargs) != 0:\n    raise ValueError(f'Found unknown kwargs={kwargs!r}')"),
    ("indices_of", "V_t = [index for index, type in enumerate(V_s) if type == K_v]"),
    ("const_if_none_else_set", "if V_a is None:\n    V_t = K_v\nelse:\n    V_t = V_a"),
    ("const_if_eq", "if V_a == K_v:\n    V_t = K_w"),
    ("to_float", "V_t = float(V_a)"),
    ("dict_set_if_missing", "if K_k not in V_d:\n    V_d[K_k] = V_v"),
    ("kwargs_set_if_missing", "if K_k not in kwargs:\n    kwargs[K_k] = K_v"),
    ("assert_in", "assert V_a in K_allowed"),
    ("assert_not_none", "assert V_a is not None"),
    ("assert_keys_not_none", "if V_a is not None:\n    assert V_a[K_k1] is not None\n    assert V_a[K_k2] is not None"),
    ("copy_attr_if_set", "if getattr(V_s, K_attr, None) is not None:\n    V_t = V_s.A_name"),
    ("mul_if_none_else", "if V_a is None:\n    V_t = V_b * V_c\nelse:\n    V_t = V_a"),
    ("truncate_to_layers", "if V_a is not None:\n    V_a = V_a[:self.num_hidden_layers]"),
    ("raise_if_value_missing", "if K_v not in V_a:\n    raise ValueError(F_msg)"),
    ("raise_if_all_equal", "if all((t == K_v for t in V_a)):\n    raise ValueError(F_msg)"),
    ("int_scaled_div_if_none", "if V_t is None:\n    V_t = int(K_k * V_a / V_b)"),
    ("const_mul_if_none_here", "if V_t is None:\n    V_t = K_k * V_a"),
    ("kwargs_setdefault_to", "V_t = kwargs.setdefault(K_k, K_v)"),
    ("list_if_int", "if V_a is not None and isinstance(V_a, int):\n    V_a = [V_a]"),
    # Mamba-hybrid configs of transformers 5 (Bamba, FalconH1, GraniteMoeHybrid): a pair kept as a tuple, and the
    # Mamba head size derived from the inner width when given as "auto"
    ("tuple_unless_none", "V_t = tuple(V_a) if V_a is not None else None"),
    ("mul_floordiv_if_eq_const", "if V_t == K_v:\n    V_t = V_a * V_b // V_c"),
    # vLLM's KimiK3VisionConfig: a pair kept as a tuple whatever the checkpoint stored
    ("set_tuple", "V_t = tuple(V_a)"),
    # vLLM's DeepseekVLV2Config: the OCR checkpoints take their own model type (spellings over releases)
    ("deepseek_ocr_model_type",
     "if 'DeepseekOCRForCausalLM' in V_a:\n    kwargs['model_type'] = 'deepseek_ocr'\n"
     "elif 'DeepseekOCR2ForCausalLM' in V_a:\n    kwargs['model_type'] = 'deepseek_ocr2'"),
    ("deepseek_ocr_model_type_attr",
     "if 'DeepseekOCRForCausalLM' in V_a:\n    self.model_type = 'deepseek_ocr'\n"
     "elif 'DeepseekOCR2ForCausalLM' in V_a:\n    self.model_type = 'deepseek_ocr2'"),
    ("deepseek_ocr_model_type_attr_kwargs",
     "if 'DeepseekOCRForCausalLM' in kwargs['architectures']:\n    self.model_type = 'deepseek_ocr'\n"
     "elif 'DeepseekOCR2ForCausalLM' in kwargs['architectures']:\n    self.model_type = 'deepseek_ocr2'"),
    ("deepseek_ocr1_model_type_attr",
     "if 'DeepseekOCRForCausalLM' in (self.architectures or kwargs.get('architectures', [])):\n"
     "    self.model_type = 'deepseek_ocr'"),
    ("layer_types_validation_local", "layer_type_validation(layer_types, num_hidden_layers)"),
    ("kimi_k25_mm_hidden_size",
     "if self.vision_config.mm_hidden_size == self.vision_config.hidden_size:\n"
     "    self.vision_config.mm_hidden_size = self.text_config.hidden_size"),
    ("olmo_hybrid_layer_types",
     "if layer_types is None:\n    layer_types = ['linear_attention'] * int(num_hidden_layers)\n"
     "    for i in range(int(num_hidden_layers)):\n        if i % 4 == 3:\n            layer_types[i] = 'full_attention'\n"
     "    if 'full_attention' not in layer_types:\n        layer_types[-1] = 'full_attention'"),
    ("laguna_rope_parameters",
     "if rope_parameters is not None:\n    rp = dict(rope_parameters)\n"
     "    rope_theta = float(rp.pop('rope_theta', rope_theta))\n    rt = rp.pop('rope_type', None)\n"
     "    if rt is not None and rt != 'default':\n        rope_scaling = {'rope_type': rt, **rp}\n"
     "    elif rp and rope_scaling is None:\n        rope_scaling = {'rope_type': 'default', **rp}"),
    ("validate_layer_types_either",
     "if hasattr(self, 'validate_layer_type'):\n    self.validate_layer_type()\nelse:\n"
     "    from transformers.configuration_utils import layer_type_validation\n    layer_type_validation(self.layer_types)"),
    ("validate_layer_types_either_counted",
     "if hasattr(self, 'validate_layer_type'):\n    self.validate_layer_type()\nelse:\n"
     "    from transformers.configuration_utils import layer_type_validation\n"
     "    layer_type_validation(self.layer_types, self.num_hidden_layers)"),
    ("validate_layer_types_either_counted",
     "if hasattr(self, 'validate_layer_type'):\n    kwargs['ignore_keys_at_rope_validation'] = K_ignore\n"
     "    self.validate_layer_type()\nelse:\n"
     "    from transformers.configuration_utils import layer_type_validation\n"
     "    layer_type_validation(self.layer_types, self.num_hidden_layers)"),
    ("validate_local_layer_types_either",
     "if hasattr(self, 'validate_layer_type'):\n    self.layer_types = layer_types\n    self.validate_layer_type()\n"
     "else:\n    from transformers.configuration_utils import layer_type_validation\n"
     "    layer_type_validation(layer_types, num_hidden_layers)"),
    ("rope_parameters_default_theta",
     "if V_p is None:\n    V_p = {'rope_type': 'default', 'rope_theta': V_t}"),
    ("rope_parameters_or_default_theta",   # vLLM's FlintConfig
     "V_p = V_a or {'rope_type': 'default', 'rope_theta': V_t}"),
    ("rope_params_type_from_type",
     "if self.rope_parameters is not None and 'type' in self.rope_parameters:\n"
     "    self.rope_parameters['rope_type'] = self.rope_parameters['type']"),
    ("raise_if_not_divisible", "if V_a % V_b != 0:\n    raise ValueError(F_msg)"),
    ("raise_if_not_multiple_of", "if V_a % K_k != 0:\n    raise ValueError(K_msg)"),
    ("halve_log2_times",   # Phi4MultimodalAudioConfig: the feature length after each stride-2 reduction
     "for _ in range(int(math.log2(V_n))):\n    V_t = math.floor((V_t - 1) / 2 + 1)"),
    ("mllama_aspect_ratios",
     "if supported_aspect_ratios is None:\n    if max_num_tiles != 4:\n"
     "        raise ValueError('max_num_tiles must be 4 for default supported aspect ratios')\n"
     "    supported_aspect_ratios = K_default"),
    ("layer_types_all_sliding_or_full",
     "if self.layer_types is None:\n"
     "    self.layer_types = ['sliding_attention' if self.sliding_window is not None else 'full_attention'] * V_n"),
    # -- served model types of transformers 4.x --------------------------------------------------
    ("get_if_not_none", "V_t = V_m.get(K_k) if V_m is not None else None"),
    ("set_const_if_none_other", "if V_a is None:\n    V_t = K_v"),
    ("const_if_contains", "if K_v in V_a:\n    V_t = K_w"),
    ("mul_if_none_else", "V_t = V_b * V_c if V_a is None else V_a"),
    ("floordiv_if_eq_const", "if V_t == K_v:\n    V_t = V_a // V_b"),
    ("raise_if_product_differs", "if V_a * V_b != V_c:\n    raise ValueError(F_msg)"),
    ("rope_validation_if_eq", "if V_a == K_v:\n    rope_config_validation(self)"),
    ("pair_unless_sequence", "V_t = V_a if isinstance(V_a, (list, tuple)) else (V_a, V_a)"),
    ("to_list", "V_t = list(V_a)"),
    ("exaone4_layer_types",
     "if self.layer_types is None:\n"
     "    self.layer_types = ['sliding_attention' if (i + 1) % sliding_window_pattern != 0 and i < self.num_hidden_layers"
     " else 'full_attention' for i in range(self.num_hidden_layers)]"),
    ("layer_types_full_every_else_linear",
     "if self.layer_types is None:\n"
     "    self.layer_types = ['full_attention' if bool((i + 1) % K_n) else 'linear_attention'"
     " for i in range(self.num_hidden_layers)]"),
    # ModernBERT (transformers 5): ``a`` on layers whose index leaves a remainder by ``n`` (a local), ``b`` on the others
    ("layer_types_by_remainder_if_none",
     "if self.layer_types is None:\n"
     "    self.layer_types = [K_a if bool(i % V_n) else K_b for i in range(self.num_hidden_layers)]"),
    # ModernBERT (transformers 5): the legacy rope_scaling merged into both attention kinds' RoPE parameters
    ("dict_items_update_if_given", "if V_r is not None:\n    V_d[K_a].update(V_r)\n    V_d[K_b].update(V_r)"),
    ("list_default_or_replace",
     "if K_k not in V_d:\n    V_d[K_k] = K_v\nelif K_o in V_d[K_k]:\n    V_d[K_k].remove(K_o)\n"
     "    V_d[K_k].append(K_n)"),
    ("layer_types_sliding_except_every",
     "if self.layer_types is None:\n"
     "    self.layer_types = ['sliding_attention' if (i + 1) % K_n != 0 else 'full_attention'"
     " for i in range(self.num_hidden_layers)]"),
    ("layer_types_full_every_else_sliding",
     "if layer_types is None:\n"
     "    self.layer_types = ['full_attention' if (i + 1) % K_n == 0 else 'sliding_attention'"
     " for i in range(self.num_hidden_layers)]\nelse:\n    self.layer_types = layer_types"),
    ("lfm2_layer_types",
     "if self.layer_types is None:\n"
     "    full_attn_idxs = full_attn_idxs if full_attn_idxs is not None else list(range(num_hidden_layers))\n"
     "    self.layer_types = ['full_attention' if i in full_attn_idxs else 'conv' for i in range(num_hidden_layers)]"),
    ("smollm3_no_rope_layers",
     "if no_rope_layers is None:\n"
     "    self.no_rope_layers = [int((layer_idx + 1) % no_rope_layer_interval != 0)"
     " for layer_idx in range(num_hidden_layers)]\nelse:\n    self.no_rope_layers = no_rope_layers"),
    ("smollm3_layer_types",
     "if layer_types is None:\n    layer_types = []\n    for layer_idx in range(num_hidden_layers):\n"
     "        has_rope = self.no_rope_layers[layer_idx]\n"
     "        if use_sliding_window and sliding_window is not None and (not has_rope):\n"
     "            layer_types.append('sliding_attention')\n        else:\n"
     "            layer_types.append('full_attention')"),
    ("gemma3n_intermediate_sizes",
     "if isinstance(intermediate_size, Sequence) and (intsize_len := len(intermediate_size)) != num_hidden_layers:\n"
     "    raise ValueError(F_msg)\n"
     "elif not isinstance(intermediate_size, Sequence):\n    intermediate_size = [intermediate_size] * num_hidden_layers"),
    ("gemma3n_sparsity_default",
     "if activation_sparsity_pattern is None:\n    num_sparse_layers = 10 if num_hidden_layers > 10 else 0\n"
     "    activation_sparsity_pattern = [0.95] * num_sparse_layers + [0.0] * (num_hidden_layers - num_sparse_layers)"),
    ("gemma3n_sparsity_check",
     "if (len_asp := len(activation_sparsity_pattern)) != num_hidden_layers:\n    raise ValueError(F_msg)"),
    ("mamba2_head_check",
     "if hidden_size * expand != num_heads * head_dim:\n"
     "    raise ValueError(f'Inconsistent configuration: hidden_size * expand ({hidden_size * expand}) must equal "
     "num_heads * head_dim ({num_heads * head_dim}).')"),
    # transformers 5's Mamba2Config.validate_architecture: the same check over the object's attributes
    ("mamba2_head_check",
     "if self.hidden_size * self.expand != self.num_heads * self.head_dim:\n"
     "    raise ValueError(f'Inconsistent configuration: hidden_size * expand ({self.hidden_size * self.expand}) must "
     "equal num_heads * head_dim ({self.num_heads * self.head_dim}).')", {"on_self": True}),
    ("granite_layer_types_check",
     "if layer_types is not None and any((layer_type not in ['mamba', 'attention'] for layer_type in layer_types)):\n"
     "    raise ValueError('layer_types must be a list strings in  [`mamba` `attention`]')"),
    ("int_keys_and_values", "V_t = {int(k): int(v) for k, v in V_a.items()}"),
    ("max_of_values", "V_t = max(V_a.values())"),
    ("bart_forced_bos",
     "if self.forced_bos_token_id is None and kwargs.get('force_bos_token_to_be_generated', False):\n"
     "    self.forced_bos_token_id = self.bos_token_id\n"
     "    warnings.warn(f'Please make sure the config includes `forced_bos_token_id={self.bos_token_id}` in future "
     "versions. The config can simply be saved and uploaded again to be fixed.')"),
    ("set_nested_attr", "V_o.A_name = V_s.A_attr"),
    ("causal_lm_type_check", "V_t = V_s.model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES"),
    ("paligemma_image_tokens",
     "self.text_config.num_image_tokens = (self.vision_config.image_size // self.vision_config.patch_size) ** 2"),
    # -- RoPE (more) ------------------------------------------------------------------------------
    ("rope_floats",
     "if self.rope_scaling is not None:\n    for key in K_keys:\n        if key in self.rope_scaling:\n"
     "            self.rope_scaling[key] = float(self.rope_scaling[key])"),
    ("rope_mrope_type",
     "if self.rope_scaling is not None and 'type' in self.rope_scaling:\n"
     "    if self.rope_scaling['type'] == 'mrope':\n        self.rope_scaling['type'] = 'default'\n"
     "    self.rope_scaling['rope_type'] = self.rope_scaling['type']"),
    ("phimoe_rope_scaling",
     "if isinstance(self.rope_scaling, dict):\n"
     "    if 'rope_type' not in self.rope_scaling:\n"
     "        self.rope_scaling['rope_type'] = self.rope_scaling.get('type', None)\n"
     "    if 'original_max_position_embeddings' in self.rope_scaling:\n"
     "        self.original_max_position_embeddings = self.rope_scaling['original_max_position_embeddings']\n"
     "    rope_scaling_short_mscale = self.rope_scaling.get('short_mscale', None)\n"
     "    rope_scaling_long_mscale = self.rope_scaling.get('long_mscale', None)\n"
     "    if not isinstance(rope_scaling_short_mscale, (int, float)):\n"
     "        raise TypeError(f\"`rope_scaling`'s short_mscale field must be a number, got {rope_scaling_short_mscale}\")\n"
     "    if not isinstance(rope_scaling_long_mscale, (int, float)):\n"
     "        raise TypeError(f\"`rope_scaling`'s long_mscale field must be a number, got {rope_scaling_long_mscale}\")"),
    ("zamba2_long_context_rope_theta",
     "if use_mem_rope and use_long_context:\n    a = 8\n"
     "    rope_theta = rope_theta * a ** (self.attention_head_dim / (self.attention_head_dim - 2))"),
    # -- layer types (more) -----------------------------------------------------------------------
    ("layer_types_sliding_every_attr",
     "if self.layer_types is None:\n"
     "    self._sliding_window_pattern = getattr(self, K_attr, K_default)\n"
     "    self.layer_types = ['sliding_attention' if bool((i + 1) % self._sliding_window_pattern) else "
     "'full_attention' for i in range(self.num_hidden_layers)]"),
    ("layer_types_linear_every_kwarg",
     "if self.layer_types is None:\n    interval_pattern = kwargs.get(K_k, K_default)\n"
     "    self.layer_types = ['linear_attention' if bool((i + 1) % interval_pattern) else 'full_attention'"
     " for i in range(self.num_hidden_layers)]"),
    ("layer_types_linear_every_const",
     "if self.layer_types is None:\n"
     "    self.layer_types = ['linear_attention' if bool((i + 1) % K_n) else 'full_attention'"
     " for i in range(self.num_hidden_layers)]"),
    ("no_rope_layers_default",
     "V_t = [int((layer_idx + 1) % V_n != 0) for layer_idx in range(self.num_hidden_layers)]"),
    ("moe_layers_default",
     "V_t = V_a if V_a is not None else list(range(V_s - 1, V_n, V_s))"),
    ("layer_types_chunked_from_no_rope",
     "if V_l is None:\n    self.layer_types = ['chunked_attention' if no_rope else 'full_attention'"
     " for no_rope in self.no_rope_layers]"),
    # -- RoPE -------------------------------------------------------------------------------------
    ("rope_type_from_type",
     "if self.rope_scaling is not None and 'type' in self.rope_scaling:\n"
     "    self.rope_scaling['rope_type'] = self.rope_scaling['type']"),
    ("rope_validation", "rope_config_validation(self)"),
    ("rope_validation", "rope_config_validation(self, ignore_keys=K_ignore)"),
    # -- layer types ------------------------------------------------------------------------------
    ("layer_types_validation", "layer_type_validation(self.layer_types, self.num_hidden_layers)"),
    ("layer_types_validation_any_length", "layer_type_validation(self.layer_types)"),
    ("layer_types_sliding_after",
     "if self.layer_types is None:\n"
     "    self.layer_types = ['sliding_attention' if self.sliding_window is not None and i >= self.max_window_layers"
     " else 'full_attention' for i in range(self.num_hidden_layers)]"),
    ("layer_types_sliding_every",
     "if self.layer_types is None:\n"
     "    self.layer_types = ['sliding_attention' if bool((i + 1) % V_n) else 'full_attention'"
     " for i in range(self.num_hidden_layers)]"),
    ("layer_types_sliding_every_const",
     "if self.layer_types is None:\n"
     "    self.layer_types = ['sliding_attention' if bool((i + 1) % K_n) else 'full_attention'"
     " for i in range(self.num_hidden_layers)]"),
    ("layer_types_all_full",
     "if self.layer_types is None:\n    self.layer_types = ['full_attention'] * self.num_hidden_layers"),
    # -- transformers 5 --
    # a statement that does nothing to the object (what is left of a log-only branch)
    ("noop", "pass"),
    # methods: what they return, calls up the class chain
    ("return_value", "return V_a"),
    ("return_value", "return K_v"),
    ("super_method", "super().A_m()"),
    ("return_super_method_kwargs", "return super().A_m(**V_k)"),
    ("set_super_method", "V_t = super().A_m()"),
    # class validators (``validate_*``): a condition, then ValueError with the class's message
    ("raise_if_not_multiple", "if V_a % V_b != 0:\n    raise ValueError(F_msg)"),
    ("raise_if_ge", "if V_a >= V_b:\n    raise ValueError(F_msg)"),
    ("raise_if_not_dict", "if not isinstance(V_a, dict):\n    raise ValueError(F_msg)"),
    ("raise_if_not_instance", "if not isinstance(V_a, list):\n    raise TypeError(F_msg)", {"types": ["list"]}),
    # T5's ``feed_forward_proj`` ("gated-gelu" / "relu"): the activation and whether it is gated, in four
    # statements (a pattern of several statements matches consecutive statements of a method)
    ("gated_act_split",
     'V_s = V_a.split("-")\nV_d = V_s[-1]\nV_g = V_s[0] == "gated"\n'
     'if len(V_s) > 1 and V_s[0] != "gated" or len(V_s) > 2:\n    raise ValueError(F_msg)'),
    # layer-type lists a class derives (period from the keyword arguments, a local constant, a window)
    ("layer_types_every",
     "if self.layer_types is None:\n    V_p = kwargs.pop(K_k, K_default)\n"
     "    self.layer_types = [K_hit if bool((i + 1) % V_p) else K_miss for i in range(self.num_hidden_layers)]"),
    ("layer_types_every_else_remap",
     "if self.layer_types is None:\n    V_p = kwargs.pop(K_k, K_default)\n"
     "    self.layer_types = [K_hit if bool((i + 1) % V_p) else K_miss for i in range(self.num_hidden_layers)]\n"
     "else:\n    self.layer_types = remap_legacy_layer_types(self.layer_types)"),
    ("layer_types_every",
     "if self.layer_types is None:\n    V_p = K_n\n"
     "    self.layer_types = [K_hit if bool((i + 1) % V_p) else K_miss for i in range(self.num_hidden_layers)]"),
    ("layer_types_first_and_every",   # MiMoV2FlashConfig (transformers 5)
     "if self.layer_types is None:\n"
     "    self.layer_types = [K_hit if i == 0 or not (i + 1) % K_n else K_miss for i in range(self.num_hidden_layers)]"),
    ("layer_types_every_within_window",
     "if self.layer_types is None:\n"
     "    self.layer_types = [K_hit if bool((i + 1) % K_n) and i < V_w and V_u else K_miss"
     " for i in range(self.num_hidden_layers)]"),
    ("layer_types_chunked_if_size",
     "if self.layer_types is None:\n"
     "    self.layer_types = [K_hit if no_rope and V_c is not None else K_miss for no_rope in V_s]"),
    ("per_layer_const_if_none", "if V_t is None:\n    V_t = [K_v] * self.num_hidden_layers"),
    ("first_then_rest_if_none", "if V_t is None:\n    V_t = K_first + K_rest * (self.num_hidden_layers - 1)"),
    ("first_k_then_rest_if_none",
     "if V_t is None:\n    V_n = min(V_k, self.num_hidden_layers)\n"
     "    V_t = K_first * V_n + K_rest * (self.num_hidden_layers - V_n)"),
    ("const_if_none_else_remap", "if V_t is None:\n    V_t = K_v\nelse:\n    V_t = remap_legacy_layer_types(V_t)"),
    ("const_mul_if_none_else_remap",   # GraniteMoeHybrid (transformers 5.17)
     "if V_t is None:\n    V_t = K_k * V_a\nelse:\n    V_t = remap_legacy_layer_types(V_t)"),
    ("last_layer_type_forced",
     "if self.layer_types and (V_l := self.layer_types[-1]) != K_v:\n    self.layer_types[-1] = K_v"),
    # plain derivations
    ("set_attr_on", "V_o.A_attr = V_v"),
    ("set_attr_on", "V_o.A_attr = K_v"),   # vLLM's MiDashengLMConfig: the text config's rope_parameters = None
    # vLLM's KimiK3Config: one sub-config's attribute made to follow another's (its log call stripped)
    ("copy_attr_across_if_differs", "if V_o.A_x != V_s.A_y:\n    V_o.A_x = V_s.A_y"),
    ("mul_const_if_none_set", "if V_t is None:\n    V_t = V_b * K_k"),
    ("set_or_const_mul", "V_t = V_a or K_k * V_b"),
    ("set_attr_of_if_none", "if V_t is None:\n    V_t = V_s.A_attr"),
    ("list_if_tuple", "if isinstance(V_a, tuple):\n    V_a = list(V_a)"),
    ("set_from_kwarg_if_not_none", "if (V_l := kwargs.get(K_k)) is not None:\n    V_t = V_l"),
    ("set_kwarg_plus_if_not_none", "if kwargs.get(K_k) is not None:\n    V_t = kwargs[K_k] + K_d"),
    ("kwarg_pop_if_present_else", "V_t = kwargs.pop(K_k) if K_k in kwargs else V_a"),
    ("const_if_false_and_attr",
     "if not V_a and getattr(V_s, K_k, K_d):\n    V_a = K_v"),
    # Gemma 4: the full-attention layers' overrides (their own head size, and KV heads with attention_k_eq_v)
    ("per_layer_overrides_by_type",
     "if K_k not in kwargs:\n    layer_overrides: dict[str, Any] = {K_hk: V_g}\n"
     "    V_n = V_ng if getattr(self, K_eq, K_eqd) else None\n"
     "    if V_n is not None:\n        layer_overrides[K_nk] = V_n\n"
     "    kwargs[K_k] = {layer_idx: layer_overrides for layer_idx, layer_type in enumerate(self.layer_types) "
     "if layer_type == K_hit}"),
    ("bidirectional_window",
     "if V_c == K_v:\n    V_a = K_w\n    V_s = V_s // K_d + K_p"),
    # dictionaries (rope_parameters, sub-config dicts)
    ("dict_model_type_rename",
     "if isinstance(V_a, dict) and V_a.get('model_type', K_d) == K_old:\n    V_a['model_type'] = K_new"),
    ("dict_model_type_rename",
     "if isinstance(V_a, dict) and V_a.get('model_type') == K_old:\n    V_a['model_type'] = K_new"),
    ("dict_item_update_if_not_none", "if V_s is not None:\n    V_d[K_k].update(V_s)"),
    ("dict_item_const_if_none", "if V_d.get(K_k) is None:\n    V_d[K_k] = K_v"),
    ("dict_item_setdefault_kwarg_pop_item", "V_d[K_k].setdefault(K_key, kwargs.pop(K_kw, V_m[K_mk]))"),
    ("dict_item_setdefault_kwarg_pop_item", "V_d[K_k].setdefault(K_key, kwargs.pop(K_kw, V_m))"),
    ("dict_setdefault_kwarg_pop", "V_d.setdefault(K_k, kwargs.pop(K_kw, V_v))"),
    ("dict_setdefault_kwarg_get", "V_d.setdefault(K_k, kwargs.get(K_kw, K_v))"),
    ("dict_setdefault_div", "V_d.setdefault(K_k, V_a / V_b)"),
    ("set_dict_get", "V_t = V_d.get(K_k, K_v)"),
    ("dict_item_const_if_in", "if V_a is not None and V_a in K_vals:\n    V_d[K_k] = K_v"),
    ("dict_item_const_if_get_eq", "if V_d.get(K_k, V_d.get(K_k2)) == K_v:\n    V_d[K_k] = K_w"),
    ("kwargs_get_or_attr", "V_t = kwargs.get(K_k, getattr(self, K_a, K_d))"),
    ("kwargs_setdefault_div_if_not_none", "if V_r is not None:\n    kwargs.setdefault(K_k, V_r / V_d)"),
    # to_dict overrides: a printed value recomputed
    ("item_scaled_if_attr", "if getattr(self, K_a, K_d):\n    V_o[K_k] = (V_x - K_m) * K_f"),
    ("item_scaled_if_attr_eq", "if getattr(self, K_a, K_d) == K_v:\n    V_o[K_k] = (V_x - K_m) * K_f"),
    # Hub configs stored flat: the text model's keyword arguments picked out of the top level
    ("flat_sub_config_kwargs",
     "if V_t is None:\n"
     "    text_params = inspect.signature(self.sub_configs_defaults[K_key].config_class.__init__).parameters.keys()\n"
     "    text_params = list(text_params) + K_extra\n"
     "    V_t = {key: kwargs.pop(key) for key in text_params if key in kwargs}\n"
     "    V_t['dtype'] = kwargs.get('torch_dtype', kwargs.get('dtype'))"),
    # HunYuan-VL (transformers 5.20+): a flat checkpoint's text keys (the sub-config class's dataclass fields,
    # its attribute-map aliases and ``extra``) moved out of the keyword arguments, in their order; the extractor
    # measures the class's names into ``names`` (tools/facts_transformers5.py MEASURED_STEPS)
    ("fold_kwargs_into_sub_config_if_none",
     "if V_t is None:\n"
     "    V_c = self.sub_configs_defaults[K_key].config_class\n"
     "    V_k = set(V_c.__dataclass_fields__) | set(V_c.attribute_map) | K_extra\n"
     "    V_t = {key: kwargs.pop(key) for key in list(kwargs) if key in V_k}"),
    # ... and (transformers 5.17 / 5.19) always, the class held in a local for the sub-config's build
    ("fold_kwargs_for_sub_config",
     "V_c = self.sub_configs[K_key]\n"
     "V_k = set(V_c.__dataclass_fields__) | set(V_c.attribute_map) | K_extra\n"
     "V_t = {key: kwargs.pop(key) for key in list(kwargs) if key in V_k}"),
    ("kwargs_setdefault_attr_of", "kwargs.setdefault(K_k, V_o.A_attr)"),
    # vLLM's OpenVLAConfig: the text config built from a copy of the given dict with a default key, or from the
    # class's defaults and one keyword when none is given (anything else kept as given)
    ("sub_config_or_default_with_key",
     "if V_t is None:\n"
     "    V_t = C_c(A_kw=K_d)\n"
     "elif isinstance(V_t, dict):\n"
     "    V_t = V_t.copy()\n"
     "    V_t.setdefault(K_k, K_v)\n"
     "    V_t = C_c(**V_t)"),
    ("sub_config_init_params", "V_t = inspect.signature(self.sub_configs[K_key].__init__).parameters.keys()"),
    ("list_plus_const", "V_t = list(V_a) + K_b"),
    ("kwargs_pop_keys", "V_t = {key: kwargs.pop(key) for key in V_k if key in kwargs}"),
    # checkpoints in an older or a sibling model's format, translated
    ("append_if_differs", "if V_a is not None and V_a != V_b:\n    V_l.append(K_v)"),
    ("kwargs_get_or_const", "V_t = kwargs.get(K_k) or K_v"),
    ("legacy_rope_type_renamed",
     "if K_legacy in (V_s.get('type'), V_s.get('rope_type')):\n    del kwargs[K_k]\n"
     "    V_t = {k: v for k, v in V_s.items() if k != 'type'} | {'rope_type': K_new}\n    V_l.append(K_note)"),
    ("mistral4_rope_defaults",
     "if V_t is None:\n    V_t = {'type': K_type, 'rope_theta': K_theta, 'factor': K_factor, "
     "'original_max_position_embeddings': K_original, 'max_position_embeddings': V_m, 'beta_fast': K_beta_fast, "
     "'beta_slow': K_beta_slow, 'mscale_all_dim': K_mscale_all_dim, 'mscale': K_mscale, "
     "'llama_4_scaling_beta': K_llama_4_scaling_beta, 'partial_rotary_factor': V_r / (V_n + V_r)}"),
    # layer-type lists from a pattern string (one character per layer, e.g. Nemotron-H's "M-M-*-")
    ("layer_types_from_pattern_kwarg",
     "if K_k in kwargs:\n    pattern = kwargs.pop(K_k)\n    if V_t is None:\n        V_t = self.A_m(pattern)\n"
     "elif V_t is None:\n    V_t = K_default"),
    ("layer_types_from_pattern_kwarg_else_remap",
     "if K_k in kwargs:\n    pattern = kwargs.pop(K_k)\n    if V_t is None:\n        V_t = self.A_m(pattern)\n"
     "elif V_t is None:\n    V_t = K_default\nelse:\n    V_t = remap_legacy_layer_types(V_t)"),
    ("from_pattern_kwarg_if_eq",
     "if K_k in kwargs:\n    pattern = kwargs.pop(K_k)\n    if V_t == K_v:\n        V_t = self.A_m(pattern)"),
    ("return_mapped_items", "return [V_m[V_x] for V_x in V_s]"),
    ("return_joined_mapped", "return ''.join((V_m[V_x] for V_x in V_s))"),
    ("dict_drop_if_dict", "if isinstance(V_a, dict):\n    V_a.pop(K_k, None)"),
    ("dict_setdefault_kwarg_pop", "V_d.setdefault(K_k, kwargs.pop(K_kw, K_v))"),
    # Llava and kin (transformers 5): tied embeddings taken over from the text config
    ("set_sub_attr_if_false", "if not V_a and V_s.A_x:\n    V_a = V_s.A_x"),
    # Mllama vision (transformers 5): the default aspect ratios exist only for 4 tiles
    ("raise_if_eq_and_ne", "if V_a == K_v and V_b != K_n:\n    raise ValueError(F_msg)"),
    ("set_gt_const", "V_t = V_a > K_k"),
    ("set_const_if_gt_const", "V_t = K_a if V_c > K_k else K_b"),
    ("kwargs_pop", "V_t = kwargs.pop(K_k, V_v)"),
    # HY-V3: one dense layer first (none without layers), the rest sparse
    ("first_then_rest_clamped_if_none",
     "if V_t is None:\n    V_t = K_first * (1 if self.num_hidden_layers > 0 else 0) + "
     "K_rest * max(self.num_hidden_layers - 1, 0)"),
    # OLMo-hybrid (transformers' class; vLLM's own spelling above): every fourth layer full attention
    ("olmo_hybrid_layer_types",
     "if V_t is None:\n    V_t = ['linear_attention'] * int(V_n)\n"
     "    for i in range(int(V_n)):\n        if i % 4 == 3:\n            V_t[i] = 'full_attention'\n"
     "    if 'full_attention' not in V_t:\n        V_t[-1] = 'full_attention'"),
    # EXAONE 4 / EXAONE-MoE (transformers 5): sliding attention except every ``V_p``-th layer (a field)
    ("layer_types_except_every_field",
     "if self.layer_types is None:\n"
     "    self.layer_types = [K_hit if (i + 1) % V_p != 0 and i < self.num_hidden_layers else K_miss"
     " for i in range(self.num_hidden_layers)]"),
    ("per_layer_first_k_if_none",
     "if V_t is None:\n    V_t = [K_first if i < V_k else K_rest for i in range(self.num_hidden_layers)]"),
    # LFM2 (transformers 5): attention on the listed layers (default: all), short convolutions elsewhere
    ("layer_types_at_indices",
     "if V_t is None:\n    V_i = V_i if V_i is not None else list(range(V_n))\n"
     "    V_t = [K_hit if i in V_i else K_miss for i in range(V_n)]"),
    # SmolLM3 (transformers 5): RoPE on all but every ``V_p``-th layer; sliding attention on the others
    ("flags_except_every_if_none",
     "if V_t is None:\n    V_t = [int((layer_idx + 1) % V_p != 0) for layer_idx in range(V_n)]"),
    ("layer_types_sliding_without_rope",
     "if V_t is None:\n    V_t = []\n    for layer_idx in range(V_n):\n        has_rope = V_r[layer_idx]\n"
     "        if V_u and V_w is not None and (not has_rope):\n            V_t.append(K_hit)\n"
     "        else:\n            V_t.append(K_miss)"),
    # Ministral 3 (transformers 5): Mistral-4's YaRN defaults without the partial rotary factor
    ("mistral4_rope_defaults",
     "if V_t is None:\n    V_t = {'type': K_type, 'rope_theta': K_theta, 'factor': K_factor, "
     "'original_max_position_embeddings': K_original, 'max_position_embeddings': V_m, 'beta_fast': K_beta_fast, "
     "'beta_slow': K_beta_slow, 'mscale_all_dim': K_mscale_all_dim, 'mscale': K_mscale, "
     "'llama_4_scaling_beta': K_llama_4_scaling_beta}", {"no_partial_factor": True}),
    # MiniCPM3 (transformers 5): the depth scale defaults to the square root of the layer count
    ("sqrt_if_none", "if V_t is None:\n    V_t = math.sqrt(V_a)"),
    # Gemma 3n (transformers 5): the transformers 4 steps over the object's fields
    ("gemma3n_intermediate_sizes",
     "if isinstance(self.intermediate_size, Sequence) and "
     "(intsize_len := len(self.intermediate_size)) != self.num_hidden_layers:\n"
     "    raise ValueError(F_msg)\n"
     "elif not isinstance(self.intermediate_size, Sequence):\n"
     "    self.intermediate_size = [self.intermediate_size] * self.num_hidden_layers", {"on_self": True}),
    ("gemma3n_sparsity_default",
     "if self.activation_sparsity_pattern is None:\n"
     "    num_sparse_layers = 10 if self.num_hidden_layers > 10 else 0\n"
     "    self.activation_sparsity_pattern = [0.95] * num_sparse_layers + [0.0] * "
     "(self.num_hidden_layers - num_sparse_layers)", {"on_self": True}),
    ("gemma3n_sparsity_check",
     "if (len_asp := len(self.activation_sparsity_pattern)) != self.num_hidden_layers:\n"
     "    raise ValueError(F_msg)", {"on_self": True}),
    ("layer_types_hit_every",
     "if self.layer_types is None:\n"
     "    self.layer_types = [K_hit if (i + 1) % K_n == 0 else K_miss for i in range(self.num_hidden_layers)]"),
    # Granite SWA / CWM (transformers 5): ``hit`` on layer 0 and every ``n``-th after it (the period may be a
    # local constant first)
    ("layer_types_hit_every_from_zero",
     "if self.layer_types is None:\n"
     "    self.layer_types = [K_hit if i % K_n == 0 else K_miss for i in range(self.num_hidden_layers)]"),
    ("layer_types_hit_every_from_zero",
     "if self.layer_types is None:\n    V_p = K_n\n"
     "    self.layer_types = [K_hit if i % V_p == 0 else K_miss for i in range(self.num_hidden_layers)]"),
    ("per_layer_item_if_none", "if V_t is None:\n    V_t = [V_d[K_k]] * self.num_hidden_layers"),
    ("int_if_truthy_else_none", "V_t = int(V_t) if V_t else None"),
    # Cohere2-MoE (transformers 5): the first ``V_k`` (dense) layers on their own sliding pattern, the rest on
    # the model's
    ("layer_types_prefix_and_rest",
     "if self.layer_types is None:\n"
     "    prefix_layers = [K_hit if (i + 1) % V_pp != 0 else K_miss for i in range(V_k)]\n"
     "    rest_layers = [K_hit if (i + 1) % V_p != 0 else K_miss for i in range(self.num_hidden_layers - V_k)]\n"
     "    self.layer_types = prefix_layers + rest_layers"),
    # timm-style to_dict (TimmWrapper, Gemma 3n vision): the label map written as timm's keys
    ("dict_setdefault_var", "V_d.setdefault(K_k, V_v)"),
    ("dict_setdefault_values_list", "V_d.setdefault(K_k, list(V_m.values()))"),
    ("dict_pop_key", "V_d.pop(K_k, None)"),
    # vLLM's DeepseekV41Config: the nested text config flattened onto the object (properties of the class
    # skipped), the expert dtype taken from the quantization config
    ("dict_copy_or_empty", "V_t = dict(V_t or {})"),
    ("set_dict_pop", "V_t = V_d.pop(K_k, K_v)"),
    ("set_dict_get_or_none", "V_t = V_d.get(K_k)"),
    ("set_attrs_from_dict_except_properties",
     "for key, value in V_d.items():\n    if key == K_skip:\n        continue\n"
     "    if isinstance(getattr(type(self), key, None), property):\n        continue\n    setattr(self, key, value)"),
    ("set_getattr_or_const", "V_t = getattr(self, K_k, K_d) or K_v"),
    ("set_getattr", "V_t = getattr(self, K_k, K_d)"),
    ("set_item_if_no_attr_and_in", "if not hasattr(self, K_a) and K_k in V_d:\n    V_t = V_d[K_k]"),
    # PaliGemma (transformers 5): a sub-config's attribute defaulted
    ("attr_of_const_if_none", "if V_o.A_x is None:\n    V_o.A_x = K_v"),
    # vLLM's IsaacConfig: a sub-config's attribute kept when it has one, else set from a local
    ("attr_of_getattr_default", "V_o.A_x = getattr(V_o, K_k, V_d)"),
    # Molmo2 (transformers 5.20+): a sub-config given under its legacy key stands in for a missing one; with the legacy
    # key, the feature layers counted from the end wrapped into the vision tower's depth and the tower cut after the
    # deepest one; the text config's RoPE scaling on every layer unless listed, its extra vocabulary not negative; the
    # vision config's position count from the patch grid; the validator's check that every feature layer indexes the
    # tower
    ("default_if_none", "if V_a is None and V_b is not None:\n    V_a = V_b"),
    ("wrap_layer_indices_and_trim_depth_if_given",
     "if V_g is not None:\n    V_n = V_d.A_depth\n    V_o.A_ids = [layer % V_n for layer in V_o.A_ids]\n"
     "    V_d.A_depth = max(V_o.A_ids) + 1"),
    ("every_layer_index_if_none", "if V_t is None:\n    V_t = list(range(V_n))"),
    ("raise_if_lt_const", "if V_a < K_v:\n    raise ValueError(F_msg)"),
    ("patch_grid_cells_if_none", "if V_t is None:\n    V_t = (V_s[0] // V_p) * (V_s[1] // V_p)"),
    ("raise_unless_layer_indices_in_depth",
     "if not all(-V_n <= layer < V_n for layer in V_o.A_ids):\n    raise ValueError(F_msg)"),
    # vLLM's FunAudioChatConfig: the hidden size given, else the text config's, as an int
    ("int_of_attr_if_none_else_int", "V_t = int(V_s.A_a) if V_h is None else int(V_h)"),
    # Mellum (transformers 5.20+): a count that may be None refused above a limit
    ("raise_if_not_none_and_gt_const", "if V_a is not None and V_a > K_v:\n    raise ValueError(F_msg)"),
    # HyperCLOVAX (transformers 5): the attention multiplier defaults to head_dim ** -0.5
    ("pow_if_none", "if V_t is None:\n    V_t = V_a ** K_e"),
    # vLLM's own HyperCLOVAXConfig (0.22.1-0.31.0): the same default written as a conditional expression over the
    # given value, and vLLM's RoPE parameters derived, when not given, from a copy of rope_scaling (its legacy
    # ``type`` moved to ``rope_type`` unless that is set) or the default rope type, with rope_theta added if absent
    ("pow_if_none_from", "V_t = V_s if V_s is not None else V_a ** K_e"),
    # ShieldGemma 2 (transformers 5.17 / 5.19): tie_word_embeddings read off the text config (a default when it has
    # none) unless a keyword gives it
    ("getattr_of_if_kwarg_none", "if kwargs.get(K_k) is None:\n    V_t = getattr(V_o, K_a, K_d)"),
    ("rope_parameters_from_scaling_if_none",
     "if V_t is None:\n    if V_s is not None:\n        V_t = dict(V_s)\n        if K_old in V_t:\n"
     "            V_t.setdefault(K_new, V_t.pop(K_old))\n    else:\n        V_t = K_default\n"
     "    if K_key not in V_t:\n        V_t[K_key] = V_theta"),
    # Qwen4-Exp (transformers 5): sorted PLE layer ids, the number of convolution states, linear attention but on
    # every ``interval``-th layer (a keyword argument), checkpoints' "full_attention" renamed
    ("sorted_unique_or_empty_if_none", "V_t = [] if V_t is None else sorted(set(V_t))"),
    ("const_if_truthy_else", "V_t = K_a if V_c else K_b"),
    ("layer_types_every_kwarg_else_rename",
     "if self.layer_types is None:\n    V_p = kwargs.pop(K_k, K_default)\n"
     "    self.layer_types = [K_miss if (i + 1) % V_p else K_hit for i in range(self.num_hidden_layers)]\n"
     "elif K_old in self.layer_types:\n"
     "    self.layer_types = [K_new if layer == K_old else layer for layer in self.layer_types]"),
    # AXK1 (transformers 5): MoE layers from ``first_k_dense_replace`` on, every ``moe_layer_freq``-th
    ("mlp_layer_types_from_kwargs",
     "if self.mlp_layer_types is None:\n    V_f = kwargs.pop(K_fk, K_fd)\n    V_m = kwargs.pop(K_mk, K_md)\n"
     "    self.mlp_layer_types = [K_hit if i >= V_f and i % V_m == 0 else K_miss for i in range(self.num_hidden_layers)]"),
    # EXAONE 4.5 (transformers 5): the text config's old model type renamed (a missing key is a KeyError)
    ("dict_model_type_rename",
     "if isinstance(V_a, dict) and V_a['model_type'] == K_old:\n    V_a['model_type'] = K_new", {"subscript": True}),
    # Voxtral, GLM-ASR (transformers 5.20+): a sub-config dict completed with its spec's default keywords
    ("dict_under_sub_config_defaults",
     "if isinstance(V_t, dict):\n    V_t = {**self.sub_configs_defaults[K_k].init_kwargs, **V_t}"),
    # vLLM's HYV4Config: one dense layer first, the indexer computed on layer 0 and every ``n``-th after layer 1,
    # DSA layer-type spellings folded into the allowed one, an fp32 LM head's dtype
    ("first_one_then_rest_if_none",
     "if V_t is None:\n    V_t = [K_first] * min(1, self.num_hidden_layers) + [K_rest] * max(self.num_hidden_layers - 1, 0)"),
    ("first_and_every_after_if_none",
     "if V_t is None:\n    V_t = [K_hit if layer_idx == 0 or (layer_idx - 1) % K_n == 0 else K_miss"
     " for layer_idx in range(self.num_hidden_layers)]"),
    ("names_folded_if_given",
     "if V_t is not None:\n    V_t = [K_new if lt in K_olds else lt for lt in V_t]"),
    ("const_if_flag_and_attr_none",
     "if V_c and getattr(self, K_a, K_d) is None:\n    V_t = K_v"),
    # validate_architecture checks (InternLM3, IQuestCoder, Kolibri-1; transformers 5)
    ("raise_if_ne", "if V_a != V_b:\n    raise ValueError(F_msg)"),
    ("raise_if_attr_not_none", "if getattr(self, K_a, K_d) is not None:\n    raise ValueError(F_msg)"),
    ("raise_if_attr_truthy", "if getattr(self, K_a, K_d):\n    raise ValueError(F_msg)"),
    ("raise_if_in_and_not_positive",
     "if K_v in V_l and (V_w is None or V_w <= K_z):\n    raise ValueError(F_msg)"),
    ("raise_if_len_ne", "if len(V_l) != V_n:\n    raise ValueError(F_msg)"),
    ("raise_if_len_ne", "if V_l is not None and len(V_l) != V_n:\n    raise ValueError(F_msg)", {"none_ok": True}),
    ("per_layer_attr_if_none", "if V_t is None:\n    V_t = [V_a] * self.num_hidden_layers"),
    ("len_compare_if_not_none", "if V_n is not None:\n    if len(V_l) != V_n:\n        pass"),
    # GLM-MoE-DSA: which layers compute the indexer's top-k ("full") and which reuse it ("shared")
    ("indexer_types_default",
     "if V_t is None:\n    pattern = kwargs.get(K_pattern_key)\n    if pattern is not None:\n"
     "        V_t = [K_letters[c] for c in pattern] if isinstance(pattern, str) else list(pattern)\n"
     "    else:\n        freq = max(kwargs.get(K_freq_key, K_freq), 1)\n"
     "        offset = kwargs.get(K_offset_key, K_offset)\n"
     "        V_t = [K_hit if max(i - offset + 1, 0) % freq == 0 else K_miss for i in range(self.num_hidden_layers)]"),
]

# log calls and docstrings are no-ops wherever they appear (logger.info(...), logger.warning_once(...), ...)
LOG_OBJECTS = frozenset({"logger", "warnings", "logging"})
