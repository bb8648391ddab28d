"""Hand tests of LoRAConfig's refusals with --enable-lora (kvguard.rules.lora_config): --max-cpu-loras below
--max-loras (every release; a final period from 0.14.0), and 0.10.2 - 0.11.0's __post_init__ checks of
--max-lora-rank, --lora-extra-vocab-size and --max-loras, in that order; 0.11.1+'s field bounds; 0.20.0+'s
dual-stream switch off CUDA / ROCm; 0.10.2's V0 CPU-offload check and where the class check sits.
Expected values written by hand from
vllm/config/lora.py of those releases, as the 0.10.2 / 0.11.0 / 0.13.0 / 0.14.0 / 0.20.0 / 0.33.0 oracles answered."""

from __future__ import annotations

import json

import pytest

CPU_BELOW = "max_cpu_loras (1) must be >= max_loras (2)"


def _refusal(data: dict) -> tuple:
    return data["stage"], data["check"], data["exc_type"], data["wrapped_by"], data["message"]


@pytest.mark.parametrize(("version", "check", "message"), [
    ("0.10.2", "LORA_max_cpu_loras_0_10", CPU_BELOW),
    ("0.13.0", "LORA_max_cpu_loras_0_10", CPU_BELOW),
    ("0.14.0", "LORA_max_cpu_loras", CPU_BELOW + "."),
    ("0.20.0", "LORA_max_cpu_loras", CPU_BELOW + "."),
    ("0.33.0", "LORA_max_cpu_loras", CPU_BELOW + "."),
])
def test_cpu_loras_below_max_loras_is_refused_by_lora_config(serve_json, version, check, message):
    status, data = serve_json(version, "--enable-lora", "--max-cpu-loras", "1", "--max-loras", "2")
    assert (status, *_refusal(data)) == (1, "lora", check, "ValueError", "LoRAConfig", message)


@pytest.mark.parametrize("version", ["0.10.2", "0.33.0"])
@pytest.mark.parametrize("args", [
    ("--max-cpu-loras", "1", "--max-loras", "2"),                          # no --enable-lora: no LoRAConfig
    ("--enable-lora", "--max-cpu-loras", "0", "--max-loras", "2"),         # 0: handed over as None
    ("--enable-lora", "--max-cpu-loras", "-3", "--max-loras", "2"),
    ("--enable-lora", "--max-cpu-loras", "None", "--max-loras", "2"),
    ("--enable-lora", "--max-cpu-loras", "2", "--max-loras", "2"),
    ("--enable-lora", "--max-cpu-loras", "1", "--max-cpu-loras", "4", "--max-loras", "2"),   # the last value counts
    ("--enable-lora", "--max-cpu-loras", "1"),                             # max_loras' default is 1
])
def test_cpu_loras_lora_config_accepts(serve_json, version, args):
    status, data = serve_json(version, *args)
    assert status == 0 and data["ok"] is True


def test_the_cpu_loras_check_follows_the_scheduler(serve_json):
    status, data = serve_json("0.33.0", "--enable-lora", "--max-cpu-loras", "1", "--max-loras", "2",
                              "--max-num-batched-tokens", "8", "--max-model-len", "4096", "--max-num-seqs", "16")
    assert status == 1 and data["stage"] == "scheduler"


@pytest.mark.parametrize("version", ["0.10.2", "0.11.0"])
def test_0_10_rank_is_checked_before_max_loras(serve_json, version):
    status, data = serve_json(version, "--enable-lora", "--max-lora-rank", "7", "--max-loras", "0")
    assert (status, *_refusal(data)) == (1, "lora", "LORA_max_lora_rank", "ValueError", "LoRAConfig",
                                         "max_lora_rank (7) must be one of (8, 16, 32, 64, 128, 256, 320, 512).")


@pytest.mark.parametrize("version", ["0.10.2", "0.11.0"])
def test_0_10_max_loras_below_one_comes_before_cpu_loras(serve_json, version):
    status, data = serve_json(version, "--enable-lora", "--max-loras", "0", "--max-cpu-loras", "1")
    assert (status, *_refusal(data)) == (1, "lora", "LORA_max_loras", "ValueError", "LoRAConfig",
                                         "max_loras (0) must be >= 1.")


def test_0_10_extra_vocab_size_is_refused(serve_json):
    status, data = serve_json("0.10.2", "--enable-lora", "--lora-extra-vocab-size", "300", "--max-loras", "0")
    assert (status, *_refusal(data)) == (1, "lora", "LORA_extra_vocab_size", "ValueError", "LoRAConfig",
                                         "lora_extra_vocab_size (300) must be one of (256, 512).")


def test_0_10_lora_numbers_without_enable_lora_are_never_checked(serve_json):
    status, data = serve_json("0.10.2", "--max-lora-rank", "7", "--max-loras", "0", "--lora-extra-vocab-size", "3")
    assert status == 0 and data["ok"] is True


# 0.11.1+: LoRAConfig's field bounds (max_loras Field(ge=1); 0.31.0+ max_lora_cls_labels Field(default=None, ge=1)),
# one ValidationError for LoRAConfig with an entry per field, before the model validator (the 0.11.1 / 0.20.0 / 0.31.0
# / 0.33.0 oracles answered so)
GE_1 = {"type": "greater_than_equal", "msg": "Input should be greater than or equal to 1"}


@pytest.mark.parametrize(("version", "args", "fields"), [
    ("0.11.1", ("--max-loras", "0", "--max-cpu-loras", "1"), ["max_loras"]),
    ("0.20.0", ("--max-loras", "-1"), ["max_loras"]),
    ("0.31.0", ("--max-lora-cls-labels", "0"), ["max_lora_cls_labels"]),
    ("0.33.0", ("--max-lora-cls-labels", "-2", "--max-loras", "0"), ["max_loras", "max_lora_cls_labels"]),
    # the bound comes before the model validator's max_cpu_loras check
    ("0.33.0", ("--max-lora-cls-labels", "0", "--max-cpu-loras", "1", "--max-loras", "2"), ["max_lora_cls_labels"]),
    # the last value given counts
    ("0.33.0", ("--max-loras", "2", "--max-loras", "0"), ["max_loras"]),
])
def test_lora_field_bounds_are_refused_by_lora_config(serve_json, version, args, fields):
    status, data = serve_json(version, "--enable-lora", *args)
    assert (status, data["stage"], data["exc_type"], data["wrapped_by"]) == (1, "lora", "ValidationError",
                                                                             "LoRAConfig")
    assert data["errors"] == [{**GE_1, "loc": [field]} for field in fields]


@pytest.mark.parametrize(("version", "args"), [
    ("0.33.0", ("--max-loras", "0")),                                    # no --enable-lora: no LoRAConfig
    ("0.33.0", ("--max-lora-cls-labels", "-1")),
    ("0.33.0", ("--enable-lora", "--max-loras", "0", "--max-loras", "3")),
    ("0.33.0", ("--enable-lora", "--max-lora-cls-labels", "None")),
    ("0.31.0", ("--enable-lora", "--max-lora-cls-labels", "1")),
])
def test_lora_field_bounds_accepted(serve_json, version, args):
    status, data = serve_json(version, *args)
    assert status == 0 and data["ok"] is True


def test_max_lora_cls_labels_is_no_option_before_0_31(serve_json):
    status, data = serve_json("0.30.0", "--enable-lora", "--max-lora-cls-labels", "0")
    assert (status, data["stage"]) == (1, "argparse")


# 0.10.2: LoRAConfig.verify_with_cache_config in VllmConfig refuses CPU offload on the V0 engine (the oracle answered so)
V0_OFFLOAD = "V0 LoRA does not support CPU offload, please use V1."


@pytest.mark.parametrize(("env", "args"), [
    (("VLLM_USE_V1=0",), ("--cpu-offload-gb", "1")),
    ((), ("--cpu-offload-gb", "2.5", "--preemption-mode", "swap")),    # the V1 oracle's fallback to V0
])
def test_0_10_v0_lora_with_cpu_offload_is_refused(serve_json, env, args):
    status, data = serve_json("0.10.2", "--enable-lora", *args, env=env)
    assert (status, *_refusal(data)) == (1, "verify", "VC_lora_v0_cpu_offload", "ValueError", "VllmConfig",
                                         V0_OFFLOAD)


@pytest.mark.parametrize(("version", "env", "args"), [
    ("0.10.2", ("VLLM_USE_V1=1",), ("--enable-lora", "--cpu-offload-gb", "1")),
    ("0.10.2", ("VLLM_USE_V1=0",), ("--enable-lora", "--cpu-offload-gb", "0")),
    ("0.10.2", ("VLLM_USE_V1=0",), ("--cpu-offload-gb", "1")),
    ("0.11.1", (), ("--enable-lora", "--cpu-offload-gb", "1")),
])
def test_v0_cpu_offload_accepted(serve_json, version, env, args):
    status, data = serve_json(version, *args, env=env)
    assert status == 0 and data["ok"] is True


DUAL = "Dual CUDA streams are only supported on CUDA platforms."


def _check(capsys, version: str, *args: str, platform: str, env: tuple[str, ...]) -> tuple[int, dict]:
    """``kvguard check`` on a stated platform: the exit status and the JSON report."""
    from kvguard.cli import run

    status = run(["check", "--vllm-version", version, "--platform", platform, "--format", "json", "--", *env, "vllm",
                  "serve", "Qwen/Qwen3-8B", *args])
    return status, json.loads(capsys.readouterr().out or "{}")


@pytest.mark.parametrize("version", ["0.20.0", "0.33.0"])
@pytest.mark.parametrize("platform", ["cpu", "xpu"])
def test_dual_stream_off_cuda_is_refused_by_lora_config(capsys, version, platform):
    status, data = _check(capsys, version, "--enable-lora", platform=platform, env=("VLLM_LORA_ENABLE_DUAL_STREAM=1",))
    assert (status, *_refusal(data)) == (1, "lora", "LORA_dual_stream_platform", "ValueError", "LoRAConfig", DUAL)


@pytest.mark.parametrize(("version", "platform", "value", "args"), [
    ("0.33.0", "cuda", "1", ("--enable-lora",)),
    ("0.33.0", "rocm", "1", ("--enable-lora",)),
    ("0.33.0", "cpu", "0", ("--enable-lora",)),
    ("0.33.0", "cpu", "1", ()),                  # no LoRAConfig without --enable-lora
    ("0.19.1", "cpu", "1", ("--enable-lora",)),  # the switch arrived in 0.20.0
])
def test_dual_stream_accepted(capsys, version, platform, value, args):
    status, data = _check(capsys, version, *args, platform=platform, env=(f"VLLM_LORA_ENABLE_DUAL_STREAM={value}",))
    assert status == 0 and data["ok"] is True


def test_dual_stream_comes_after_the_cpu_loras(capsys):
    status, data = _check(capsys, "0.33.0", "--enable-lora", "--max-cpu-loras", "1", "--max-loras", "2",
                          platform="cpu", env=("VLLM_LORA_ENABLE_DUAL_STREAM=1",))
    assert (status, data["check"]) == (1, "LORA_max_cpu_loras")


def test_dual_stream_on_tpu_is_undecidable(capsys):
    status, data = _check(capsys, "0.33.0", "--enable-lora", platform="tpu", env=("VLLM_LORA_ENABLE_DUAL_STREAM=1",))
    assert status == 2 and "tpu_inference" in data["reason"]


def _inkling_dir(tmp_path) -> str:
    config = {"architectures": ["InklingForCausalLM"], "model_type": "qwen3", "hidden_size": 1024,
              "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 64, "num_hidden_layers": 4,
              "vocab_size": 32000, "max_position_embeddings": 4096, "intermediate_size": 2048,
              "torch_dtype": "bfloat16"}
    (tmp_path / "config.json").write_text(json.dumps(config))
    return str(tmp_path)


@pytest.mark.parametrize("version", ["0.26.0", "0.33.0"])
def test_inkling_with_lora_is_undecidable(serve_json, tmp_path, version):
    status, data = serve_json(version, "--enable-lora", model=_inkling_dir(tmp_path))
    assert status == 2 and "INKLING_MULTIMEM_AR" in data["reason"]


def test_inkling_without_lora_is_not_held_back(serve_json, tmp_path):
    status, data = serve_json("0.33.0", model=_inkling_dir(tmp_path))
    assert status == 0 and data["ok"] is True


# 0.33.0's LoRAConfig.verify_with_kernel_config (VllmConfig, before the class check and before KernelConfig's own
# model checks): the name as KernelConfig's field validator normalises it (the 0.33.0 oracle answered so, for a MoE
# model, a dense one and a class without SupportsLoRA alike)
def _mega_moe(backend: str) -> str:
    return f"LoRA is not supported with moe_backend='{backend}'. Disable LoRA or select a MoE backend that supports LoRA."


@pytest.mark.parametrize(("model", "backend", "shown"), [
    ("Qwen/Qwen3-30B-A3B", "deep_gemm_mega_moe", "deep_gemm_mega_moe"),
    ("Qwen/Qwen3-30B-A3B", "Flashinfer-MoE-EP-CuteDSL", "flashinfer_moe_ep_cutedsl"),
    ("Qwen/Qwen3-8B", "aiter_mega_moe", "aiter_mega_moe"),
    ("tiiuae/falcon-mamba-7b", "flashinfer_moe_ep_mega_deep_gemm", "flashinfer_moe_ep_mega_deep_gemm"),
])
def test_mega_moe_backend_with_lora_is_refused(serve_json, model, backend, shown):
    status, data = serve_json("0.33.0", "--enable-lora", "--moe-backend", backend, model=model)
    assert (status, *_refusal(data)) == (1, "verify", "LC_lora_mega_moe", "ValueError", "VllmConfig",
                                         _mega_moe(shown))


@pytest.mark.parametrize(("version", "args"), [
    ("0.33.0", ("--enable-lora", "--moe-backend", "triton")),
    ("0.33.0", ("--moe-backend", "deep_gemm_mega_moe")),   # no LoRAConfig: the MoE checks of a dense model pass
    ("0.32.0", ("--enable-lora", "--moe-backend", "deep_gemm_mega_moe")),  # verify_with_kernel_config: 0.33.0
])
def test_mega_moe_backend_accepted(serve_json, version, args):
    status, data = serve_json(version, *args, model="Qwen/Qwen3-30B-A3B")
    assert status == 0 and data["ok"] is True


# The registry's supports_lora (kvguard/data/archs.json, tools/extract_registry.py): FalconMambaForCausalLM lacks the
# SupportsLoRA interface in every release, Qwen3ForCausalLM has it; the registry's BertModel (BertEmbeddingModel)
# gains it in 0.32.0 (the 0.10.2 / 0.20.0 / 0.28.0 / 0.31.0 / 0.32.0 / 0.33.0 oracles' interfaces.supports_lora(cls)
# agreed on every class they imported).
@pytest.mark.parametrize(("version", "where"), [
    ("0.10.2", "when the worker loads the LoRA model"),
    ("0.32.0", "when the worker loads the LoRA model"),
    ("0.33.0", "LoRAConfig.verify_with_model_config, in VllmConfig"),
])
def test_lora_for_a_class_without_supports_lora_is_undecidable(serve_json, version, where):
    status, data = serve_json(version, "--enable-lora", model="tiiuae/falcon-mamba-7b")
    assert status == 2
    assert "without the SupportsLoRA interface (['FalconMambaForCausalLM']; " + where + ")" in data["reason"]


@pytest.mark.parametrize("version", ["0.10.2", "0.33.0"])
def test_a_class_without_supports_lora_is_not_held_back_without_lora(serve_json, version):
    status, data = serve_json(version, model="tiiuae/falcon-mamba-7b")
    assert status == 0 and data["ok"] is True


@pytest.mark.parametrize("version", ["0.10.2", "0.33.0"])
def test_lora_for_a_class_with_supports_lora_is_accepted(serve_json, version):
    status, data = serve_json(version, "--enable-lora", model="Qwen/Qwen3-8B")
    assert status == 0 and data["ok"] is True


def test_lora_config_refusals_come_before_the_class_check(serve_json):
    status, data = serve_json("0.33.0", "--enable-lora", "--max-cpu-loras", "1", "--max-loras", "2",
                              model="tiiuae/falcon-mamba-7b")
    assert (status, data["check"]) == (1, "LORA_max_cpu_loras")


# the class check sits where vLLM runs it: 0.33.0 in VllmConfig after the configs built later than LoRAConfig
# (LoadConfig) and before the stochastic-rounding check; 0.10.2 - 0.32.0 in the worker, after every VllmConfig check
# (the 0.20.0 / 0.33.0 oracles answered so)
def test_later_config_refusals_come_before_the_class_check(serve_json):
    status, data = serve_json("0.33.0", "--enable-lora", "--safetensors-prefetch-num-threads", "0",
                              model="tiiuae/falcon-mamba-7b")
    assert (status, data["stage"], data["exc_type"], data["wrapped_by"]) == (1, "load", "ValidationError",
                                                                             "LoadConfig")


@pytest.mark.parametrize(("version", "status", "check"), [
    ("0.20.0", 1, "VC_mamba_stochastic_rounding"),     # the worker's class check comes later
    ("0.32.0", 1, "VC_mamba_stochastic_rounding"),
    ("0.33.0", 2, None),                                # VllmConfig's class check comes first
])
def test_the_class_check_and_stochastic_rounding(serve_json, version, status, check):
    got, data = serve_json(version, "--enable-lora", "--enable-mamba-cache-stochastic-rounding",
                           model="tiiuae/falcon-mamba-7b")
    assert (got, data.get("check")) == (status, check)


class _Undecided(Exception):
    pass


class _StubState:
    """What lora_class_unmodelled reads: the launch's switch, the config's architectures, the release."""

    def __init__(self, architectures, version):
        from types import SimpleNamespace

        from packaging.version import Version

        from kvguard.versions import Release

        self.layout = SimpleNamespace(enable_lora=True)
        self.facts = SimpleNamespace(architectures=architectures)
        self.release = Release(Version(version))

    def undecided(self, reason):
        raise _Undecided(reason)


@pytest.mark.parametrize(("architectures", "version", "decided"), [
    (["BertModel"], "0.31.0", False),        # no SupportsLoRA before 0.32.0
    (["BertModel"], "0.32.0", True),
    (["AcmeForCausalLM"], "0.33.0", False),  # a class kvguard cannot name
    (None, "0.33.0", False),
])
def test_lora_class_flag_per_release(architectures, version, decided):
    from kvguard.rules.lora_config import lora_class_unmodelled

    state = _StubState(architectures, version)
    if decided:
        assert lora_class_unmodelled(state) is None
    else:
        with pytest.raises(_Undecided):
            lora_class_unmodelled(state)
