"""The vocabulary embedding's shard, shared by every family that builds one.

Mirrors vllm/model_executor/layers/vocab_parallel_embedding.py (``VocabParallelEmbedding`` and ``ParallelLMHead``,
0.10.2-0.33.0): the vocabulary is rounded up to a multiple of ``DEFAULT_VOCAB_PADDING_SIZE`` (64 in every release)
before it is divided over the tensor-parallel ranks, so ``MI_divide`` names the padded size, not ``vocab_size``.
"""

from __future__ import annotations

__all__ = ["VOCAB_PADDING", "padded_vocabulary"]

#: vllm.model_executor.layers.vocab_parallel_embedding.DEFAULT_VOCAB_PADDING_SIZE
VOCAB_PADDING = 64


def padded_vocabulary(vocab_size: int) -> int:
    """``vocab_size`` rounded up to the next multiple of :data:`VOCAB_PADDING` (unchanged when already one)."""
    return -(-vocab_size // VOCAB_PADDING) * VOCAB_PADDING
