"""Emulated transformers / vLLM config objects, built from a raw ``config.json``.

vLLM never reads config.json directly: it reads attributes of the
``PretrainedConfig`` object that transformers (or vLLM's own registry of
config classes) builds from it, so class defaults, ``attribute_map`` aliases
and ``__init__``/``__post_init__`` derivations are part of every model fact.
This package reproduces those objects, per transformers line, without
importing transformers.

Interface used by :mod:`kvguard.facts` (keep it stable):

* :func:`load_config` ``(raw, release) -> ConfigView`` — raises
  :class:`LoadCrash` when transformers / vLLM would raise while loading, and
  :class:`~kvguard.Undecidable` for a ``model_type`` neither knows (or remote
  code; ``exc.load_crash`` then holds what vLLM raises without
  ``--trust-remote-code`` when that is known).
* :class:`ConfigView` — attributes through ``getattr``/``hasattr`` exactly as
  the real object answers them; ``in`` and iteration as the real object;
  :meth:`ConfigView.get_text_config` as ``PretrainedConfig.get_text_config()``
  with no arguments; ``view.kvg_raw`` is the raw mapping it was built from,
  ``view.kvg_emulation`` is ``"exact"`` or ``"generic"``, ``view.kvg_class``
  the config class name.
* :func:`hf_text_config` ``(view) -> ConfigView`` — vLLM's
  ``get_hf_text_config`` (raises :class:`LoadCrash` like vLLM).

How it works: ``tools/hfconfig_extract.py`` translates the sources of
transformers' configuration modules (4.57.6, 5.17.0, 5.19.0, 5.20.2, 5.24.0) and
of every vLLM release's own config classes and config-object helpers
(0.10.2–0.33.0) into a JSON statement language (``transformers.json`` /
``vllm.json`` beside the code, module bodies shared between versions);
:mod:`._interp` evaluates it safely; :mod:`._load` ports vLLM's loading order,
per release.  See ``README.md`` in this folder.  Importing this package is
cheap: the interpreter and the data load on first use.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._errors import LoadCrash

__all__ = ["ConfigView", "LoadCrash", "TorchDtype", "load_config", "hf_text_config", "EXACT", "EXACT_MODEL_TYPES",
           "DEFAULT_PATH", "emulation_level", "construct"]

DEFAULT_PATH = "/model"


def __getattr__(name: str):
    if name == "ConfigView":
        from ._interp import Inst
        return Inst
    if name == "TorchDtype":
        from ._interp import TorchDtype
        return TorchDtype
    if name in ("EXACT", "EXACT_MODEL_TYPES", "emulation_level"):
        from . import _exact
        return getattr(_exact, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_config(raw: Mapping[str, Any], release, *, path: str | None = None,
                trust_remote_code: bool | None = None):
    """Build the config object ``release`` would build from ``raw`` (vLLM's ``get_config``).

    ``path`` is the model directory vLLM was given (it only appears in a few
    error messages and in ``name_or_path``; default ``"/model"``).
    ``trust_remote_code`` (vLLM's ``--trust-remote-code``): a config whose
    ``auto_map`` names an ``AutoConfig`` while transformers / vLLM's registry do
    not know its ``model_type`` is Undecidable for None (unknown) and True
    (kvguard does not run repository code); False reproduces vLLM's refusal
    (ValueError "The repository ... contains custom code ...").  When the
    model_type *is* known, None and False load the library class (as vLLM
    without the flag does); True is Undecidable unless vLLM's registry owns
    the type (vLLM then ignores the flag).
    """
    from ._exact import emulation_level
    from ._load import load
    view = load(raw, release, path=path, trust_remote_code=trust_remote_code)
    level = emulation_level(raw, release)
    _mark(view, raw, level, set())
    return view


def hf_text_config(view, release=None):
    """vLLM's ``get_hf_text_config(hf_config)`` on an emulated config.

    Runs the ``get_hf_text_config`` of the release ``view`` was loaded for
    (``release`` is accepted for compatibility and not needed).  Raises
    :class:`LoadCrash` like vLLM: ValueError (0.13.0+) or a bare
    AssertionError (0.10.2–0.12.0), both wrapped by ModelConfig, when the
    text sub-config has no ``num_attention_heads``.
    """
    from ..errors import Undecidable
    from ._interp import UNBOUNDED, Unsupported
    from ._load import load_crash_of
    from ._load import hf_text_config as _htc
    it = view._k.interp
    try:
        it.bounded()
        return _htc(it, view, release)
    except Unsupported as e:
        raise Undecidable(f"kvguard cannot emulate get_text_config(): {e}") from None
    except LoadCrash:
        raise
    except Exception as e:  # noqa: BLE001 - an emulated exception
        raise load_crash_of(e) from None
    finally:
        it.steps = UNBOUNDED


def _mark(view, raw, level, seen):
    from ._interp import Inst
    if id(view) in seen:
        return
    seen.add(id(view))
    object.__setattr__(view, "kvg_raw", dict(raw) if isinstance(raw, Mapping) else raw)
    object.__setattr__(view, "kvg_emulation", level)
    for key, value in list(view._d.items()):
        if isinstance(value, Inst):
            sub_raw = raw.get(key) if isinstance(raw, Mapping) else None
            _mark(value, sub_raw if isinstance(sub_raw, Mapping) else {}, level, seen)


def construct(view, module: str, name: str, args: list, kwargs: dict):
    """``module.name(*args, **kwargs)`` in the interpreter that built ``view`` (a vLLM config class called on an
    emulated config, e.g. ``EAGLEConfig(draft_config, method=…)``); None when ``view`` is no emulated config
    or the class is not in the data.  Raises :class:`LoadCrash` for what the emulated call raises."""
    from ..errors import Undecidable
    from ._interp import Inst, Klass, Unsupported
    from ._load import load_crash_of
    if not isinstance(view, Inst):
        return None
    it = view._k.interp
    cls = it.import_from(module, name)
    if not isinstance(cls, Klass):
        return None
    try:
        return it.call(cls, list(args), dict(kwargs))
    except Unsupported as e:
        raise Undecidable(f"kvguard cannot emulate {name}: {e}") from None
    except LoadCrash:
        raise
    except Exception as e:  # noqa: BLE001 - an emulated exception
        raise load_crash_of(e) from None
