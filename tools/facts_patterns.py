"""Statement shapes the facts extractor recognises in config classes, and the step each one names.

Used by tools/facts_extract.py inside an oracle environment.  A pattern is a small piece of
Python source with placeholders:

* ``V_a`` — a variable: a local name or ``self.<name>`` (recorded as ``"name"`` or ``"self.name"``);
* ``K_a`` — a literal value (number, string, None, bool, or a list/tuple/dict/set of literals);
* ``C_a`` — a config class: a class name, ``self.sub_configs["key"]`` or ``CONFIG_MAPPING[...]``
  (recorded as ``{"class": name}``, ``{"sub": key}`` or ``{"mapping": <literal or variable>}``).

A statement that matches a pattern becomes the step named beside it, with the placeholders'
values as its arguments: names and literal values only, never code.  kvguard implements each
step name in ``kvguard/facts/steps.py``; a statement that matches nothing becomes an ``opaque``
step that names what it reads and writes, and kvguard declines (Undecidable) where such a step
could change what it reports.
"""

from __future__ import annotations

# (step name, pattern source, ...): several sources may share a step name (spellings of one behaviour)
PATTERNS: list[tuple[str, str]] = [
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
    ("kwargs_get", "V_t = kwargs.get(K_k, K_v)"),
    ("kwargs_get", "V_t = kwargs.get(K_k, V_d)"),
    ("kwargs_setdefault", "kwargs.setdefault(K_k, K_v)"),
    ("kwargs_drop", "kwargs.pop(K_k, None)"),
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
    # -- sub-configs ------------------------------------------------------------------------------
    ("sub_config_from_dict_or_default",
     "if isinstance(V_p, dict):\n"
     "    V_p['model_type'] = V_p.get('model_type', K_default)\n"
     "    V_p = CONFIG_MAPPING[V_p['model_type']](**V_p)\n"
     "elif V_p is None:\n"
     "    V_p = C_cls()"),
    ("sub_config_from_dict_or_default_kw",
     "if isinstance(V_p, dict):\n"
     "    V_p['model_type'] = V_p.get('model_type', K_default)\n"
     "    V_p = CONFIG_MAPPING[V_p['model_type']](**V_p)\n"
     "elif V_p is None:\n"
     "    V_p = C_cls(**K_kw)"),
    ("sub_config_forced_type",
     "if isinstance(V_p, dict):\n"
     "    V_p['model_type'] = K_type\n"
     "    V_p = CONFIG_MAPPING[V_p['model_type']](**V_p)\n"
     "elif V_p is None:\n"
     "    V_p = C_cls()"),
    ("sub_config_class",
     "if isinstance(V_p, dict):\n    V_p = C_cls(**V_p)\nelif V_p is None:\n    V_p = C_cls()"),
    ("sub_config_class",
     "if V_p is None:\n    V_p = C_cls()\nelif isinstance(V_p, dict):\n    V_p = C_cls(**V_p)"),
    ("sub_config_class_set",
     "if isinstance(V_p, dict):\n    V_t = C_cls(**V_p)\nelif V_p is None:\n    V_t = C_cls()\n"
     "else:\n    V_t = V_p"),
    ("sub_config_class_set",
     "if V_p is None:\n    V_t = C_cls()\nelif isinstance(V_p, dict):\n    V_t = C_cls(**V_p)\n"
     "else:\n    V_t = V_p"),
    ("sub_config_class_set_if_dict",
     "if isinstance(V_p, dict):\n    V_t = C_cls(**V_p)\nelif V_p is None:\n    V_t = C_cls()"),
    ("empty_dict_if_none", "if V_p is None:\n    V_p = {}"),
    ("build", "V_t = C_cls(**V_p)"),
    ("build_default", "V_t = C_cls()"),
    ("build_mapping_get",
     "V_k = V_p.get('model_type', K_default)"),
]

# log calls and docstrings are no-ops wherever they appear (logger.info(...), logger.warning_once(...), ...)
LOG_OBJECTS = frozenset({"logger", "warnings", "logging"})
