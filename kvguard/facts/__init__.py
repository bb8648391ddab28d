"""Model facts: what a vLLM release reads from a checkpoint's config.json.

``model`` derives :class:`ModelFacts` the way the release's ``ModelConfig`` does;
``vllm`` holds the per-release tables it reads through.
"""

from .model import Crash, ModelFacts, derive, mla_disabled

__all__ = ["Crash", "ModelFacts", "derive", "mla_disabled"]
