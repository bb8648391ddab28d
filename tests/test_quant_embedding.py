"""The vocabulary embedding's padding (vllm/model_executor/layers/vocab_parallel_embedding.py, pad_vocab_size with
DEFAULT_VOCAB_PADDING_SIZE = 64 in 0.10.2 and 0.33.0)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvguard.quant.embedding import padded_vocabulary


@pytest.mark.parametrize(("vocab_size", "padded"), [
    (1, 64),
    (64, 64),
    (65, 128),
    (32000, 32000),       # Llama 2
    (151936, 151936),     # Qwen2.5 / Qwen3
    (163840, 163840),     # Kimi-K2
    (163842, 163904),     # two tokens past a multiple of 64
    (131072, 131072),     # Nemotron-H
    (129280, 129280),     # DeepSeek-V3
    (248320, 248320),     # Qwen3.5
    (50257, 50304),       # GPT-2
])
def test_padded_vocabulary(vocab_size: int, padded: int) -> None:
    assert padded_vocabulary(vocab_size) == padded


@given(st.integers(min_value=1, max_value=10**7))
def test_padded_vocabulary_is_the_least_multiple_of_64_not_below(vocab_size: int) -> None:
    padded = padded_vocabulary(vocab_size)
    assert padded % 64 == 0
    assert vocab_size <= padded < vocab_size + 64
