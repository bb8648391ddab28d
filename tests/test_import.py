"""`import kvguard` stays light: launch scripts import it on every start."""

from __future__ import annotations

import subprocess
import sys


def test_import_pulls_in_no_heavy_module():
    code = ("import sys, kvguard\n"
            "heavy = [m for m in ('torch', 'transformers', 'vllm', 'numpy') if m in sys.modules]\n"
            "print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_a_check_pulls_in_no_heavy_module():
    code = ("import sys, kvguard\n"
            "kvguard.check({'architectures': ['LlamaForCausalLM'], 'model_type': 'llama', 'num_attention_heads': 32,"
            " 'num_key_value_heads': 8, 'hidden_size': 4096, 'num_hidden_layers': 2, 'vocab_size': 1000},"
            " vllm_version='0.28.0', tp=8, dcp=2)\n"
            "heavy = [m for m in ('torch', 'transformers', 'vllm', 'numpy') if m in sys.modules]\n"
            "print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_an_accepted_cli_check_does_not_import_pydantic():
    """pydantic (~40 ms to import) is only needed to report a bad value or a refusal it wraps."""
    code = ("import sys\n"
            "from kvguard.cli import run\n"
            "rc = run(['check', '--vllm-version', '0.28.0', '--', 'vllm', 'serve', 'deepseek-ai/DeepSeek-R1',"
            " '-tp', '8', '-dcp', '8'])\n"
            "print(rc, 'pydantic' in sys.modules, file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stderr.strip().splitlines()[-1] == "0 False"


def test_every_exported_name_resolves_and_the_economics_load_on_first_use():
    code = ("import sys, kvguard\n"
            "lazy = sorted(m for m in ('kvguard.kv.economics', 'kvguard.kv.capacity') if m in sys.modules)\n"
            "missing = [n for n in kvguard.__all__ if not hasattr(kvguard, n)]\n"
            "print(lazy, missing, callable(kvguard.plan), callable(kvguard.audit), 'kvguard.kv.economics' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] [] True True True"
