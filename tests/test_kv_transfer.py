"""The KV connector checks (kvguard.rules.kv_transfer), by hand: the messages are the releases' own text."""

from __future__ import annotations

import json

import pytest

import kvguard
from kvguard.front import examine

H100 = kvguard.Host.cuda_node()

NIXL = json.dumps({"kv_connector": "NixlConnector", "kv_role": "kv_both"})
EXPANDABLE = {"PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:128,expandable_segments:True"}
MESSAGE_0_21 = ("KV connector NixlConnector is incompatible with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
                "unless enable_sleep_mode is also enabled. PyTorch's CUDA VMM allocator can remap KV cache virtual "
                "addresses to different physical pages, invalidating any pinned/registered KV memory (e.g. IB memory "
                "regions registered by NIXL or Mooncake). Either unset expandable_segments:True or enable sleep mode "
                "(which routes KV allocations through CuMemAllocator's pool, where expandable_segments is "
                "automatically disabled).")
MESSAGE_0_22 = ("KV connector NixlConnector is incompatible with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
                "unless enable_cumem_allocator is also enabled. PyTorch's CUDA VMM allocator can remap KV cache "
                "virtual addresses to different physical pages, invalidating any pinned/registered KV memory (e.g. IB "
                "memory regions registered by NIXL or Mooncake). Either unset expandable_segments:True or enable the "
                "cumem allocator (sleep mode does this automatically and also routes KV allocations through "
                "CuMemAllocator's pool, where expandable_segments is automatically disabled).")


def _check(version: str, *args: str, env=None):
    return examine(version, ["vllm", "serve", "Qwen/Qwen3-8B", *args], host=H100, env=env or {}).verdict


@pytest.mark.parametrize("version,message", [("0.21.0", MESSAGE_0_21), ("0.22.0", MESSAGE_0_22),
                                             ("0.33.0", MESSAGE_0_22)])
def test_expandable_segments_with_a_connector_is_refused(version, message):
    v = _check(version, "--kv-transfer-config", NIXL, env=EXPANDABLE)
    assert (v.ok, v.check, v.exc_type, v.wrapped_by, v.message) == (
        False, "VC_kv_expandable_segments", "ValueError", "VllmConfig", message)


def test_no_check_before_0_21_0():
    assert _check("0.20.0", "--kv-transfer-config", NIXL, env=EXPANDABLE).ok


@pytest.mark.parametrize("version,args,ok", [
    ("0.21.0", ["--enable-sleep-mode"], True), ("0.21.0", [], False),
    ("0.24.0", ["--enable-cumem-allocator"], True), ("0.24.0", ["--enable-sleep-mode"], True)])
def test_sleep_mode_or_the_cumem_allocator_exempt(version, args, ok):
    assert _check(version, "--kv-transfer-config", NIXL, *args, env=EXPANDABLE).ok is ok


def test_the_variable_unset_is_an_assumption_and_other_settings_pass():
    v = _check("0.24.0", "--kv-transfer-config", NIXL)
    assert v.ok and "PYTORCH_CUDA_ALLOC_CONF unset" in v.assumptions
    assert _check("0.24.0", "--kv-transfer-config", NIXL, env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:False"}).ok
    assert "PYTORCH_CUDA_ALLOC_CONF unset" not in _check("0.24.0").assumptions


@pytest.mark.parametrize("connector,extra,refused", [
    ("NixlPushConnector", {}, True), ("NixlConnector", {"backends": ["UCX", "LIBFABRIC"]}, True),
    ("NixlConnector", {}, False), ("NixlPullConnector", {"backends": ["UCX"]}, False),
    ("ExampleConnector", {}, False)])
def test_sleep_mode_with_a_connector_on_0_33_0(connector, extra, refused):
    config = json.dumps({"kv_connector": connector, "kv_role": "kv_both", "kv_connector_extra_config": extra})
    v = _check("0.33.0", "--enable-sleep-mode", "--kv-transfer-config", config)
    if refused:
        assert (v.check, v.exc_type, v.wrapped_by, v.message) == (
            "VC_kv_sleep_mode", "ValueError", "VllmConfig", f"{connector} does not support sleep mode.")
    else:
        assert v.ok
    # 0.32.0 has no such check
    assert _check("0.32.0", "--enable-sleep-mode", "--kv-transfer-config", config).ok


@pytest.mark.parametrize("value,reason", [
    ('{"kv_connector": "NixlConnector"}', "without kv_role"),
    ('{"kv_connector": "MooncakeConnector", "kv_role": "kv_both"}', "MooncakeConnector's own checks"),
    ('{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_connector_module_path": "my.mod"}',
     "kv_connector_module_path"),
    ('{"kv_connector": "NixlConnector", "kv_role": "both"}', "kv_role='both'"),
    ("NixlConnector", "as a JSON object")])
def test_what_kvguard_does_not_read_is_undecidable(value, reason):
    with pytest.raises(kvguard.Undecidable) as caught:
        _check("0.33.0", "--kv-transfer-config", value)
    assert reason in str(caught.value)


NO_SUCH = json.dumps({"kv_connector": "NoSuchConnector", "kv_role": "kv_both"})


@pytest.mark.parametrize("version,connector", [
    ("0.22.0", "NoSuchConnector"), ("0.28.0", "NoSuchConnector"), ("0.33.0", "NoSuchConnector"),
    # registered up to 0.12.0 / 0.23.0 only
    ("0.22.1", "SharedStorageConnector"), ("0.24.0", "P2pNcclConnector")])
def test_an_unregistered_connector_is_refused_by_the_hybrid_kv_cache_manager_default(version, connector):
    # VllmConfig.__post_init__ asks the factory for the class to decide the hybrid KV cache manager's default
    v = _check(version, "--kv-transfer-config", json.dumps({"kv_connector": connector, "kv_role": "kv_producer"}))
    assert (v.ok, v.stage, v.check, v.exc_type, v.wrapped_by, v.message) == (
        False, "verify", "VC_kv_connector_unregistered", "ValueError", "VllmConfig",
        f"Unsupported connector type: {connector}")


@pytest.mark.parametrize("version", ["0.10.2", "0.16.0", "0.17.0", "0.21.0"])
@pytest.mark.parametrize("eager", [[], ["--enforce-eager"]])
def test_an_unregistered_connector_before_0_22_0_reaching_the_engine_is_undecidable(version, eager):
    # no hybrid-manager lookup yet: the CUDA graph lookup (0.17.0+, full graphs) or the engine's start refuses it
    with pytest.raises(kvguard.Undecidable, match="registers no KV connector 'NoSuchConnector'.* when the engine "
                       "starts"):
        _check(version, "--kv-transfer-config", NO_SUCH, *eager)


@pytest.mark.parametrize("flag", ["--disable-hybrid-kv-cache-manager", "--enable-hybrid-kv-cache-manager"])
def test_an_unregistered_connector_with_the_hybrid_manager_chosen_is_undecidable(flag):
    # the user's choice skips the hybrid-manager lookup: the CUDA graph lookup or the engine's start decides
    with pytest.raises(kvguard.Undecidable, match="when the engine starts"):
        _check("0.33.0", "--kv-transfer-config", NO_SUCH, flag)


@pytest.mark.parametrize("version", ["0.10.2", "0.14.0", "0.21.0"])
def test_an_unregistered_connector_before_0_22_0_after_an_earlier_refusal(version):
    # the factory is asked no earlier than where VllmConfig resolves the CUDA graph mode (0.17.0+)
    v = _check(version, "--kv-transfer-config", NO_SUCH, "-tp", "3")
    assert (v.check, v.exc_type, v.wrapped_by, v.message) == (
        "MC_heads_tp", "ValueError", "VllmConfig",
        "Total number of attention heads (32) must be divisible by tensor parallel size (3).")


DBO_0_21 = ("Microbatching currently only supports the deepep_low_latency and deepep_high_throughput all2all backend. "
            "allgather_reducescatter is not supported. To fix use --all2all-backend=deepep_low_latency or "
            "--all2all-backend=deepep_high_throughput and install the DeepEP kernels.")


@pytest.mark.parametrize("version,hybrid", [
    ("0.16.0", []), ("0.21.0", []), ("0.22.0", []), ("0.22.0", ["--disable-hybrid-kv-cache-manager"])])
def test_a_refusal_after_the_cuda_graph_point_with_an_unregistered_connector(version, hybrid):
    args = ("--kv-transfer-config", NO_SUCH, "--enable-dbo", *hybrid)
    # with full CUDA graphs (0.17.0+, a mode kvguard does not resolve) the factory may refuse first
    if version != "0.16.0":
        with pytest.raises(kvguard.Undecidable, match="CUDA graph mode has full graphs"):
            _check(version, *args)
    # --enforce-eager sets the mode NONE before that point, and 0.16.0 has no such lookup
    v = _check(version, *args, "--enforce-eager")
    assert (v.check, v.exc_type, v.wrapped_by, v.message) == ("VC_ubatch_all2all", "AssertionError", "VllmConfig",
                                                              DBO_0_21)


def test_no_cuda_graph_lookup_on_a_cpu_host():
    # CpuPlatform.support_static_graph_mode() is False: the refusal between the two lookups is decided
    cpu = kvguard.Host(platform="cpu", gpus_per_node=0, cpu_memory_bytes=64 << 30, ray=False, triton=False,
                       nixl=False, ipex=False)
    v = examine("0.33.0", ["vllm", "serve", "Qwen/Qwen3-8B", "--kv-transfer-config", NO_SUCH, "-tp", "3"],
                host=cpu, env={}).verdict
    assert v.check == "MC_heads_tp"
    v = examine("0.22.0", ["vllm", "serve", "Qwen/Qwen3-8B", "--kv-transfer-config", NO_SUCH], host=cpu,
                env={}).verdict
    assert (v.check, v.message) == ("VC_kv_connector_unregistered", "Unsupported connector type: NoSuchConnector")


def test_an_unregistered_connector_after_an_earlier_refusal():
    # verify_with_parallel_config comes before any lookup: 32 heads over tp 3
    v = _check("0.33.0", "--kv-transfer-config", NO_SUCH, "-tp", "3")
    assert (v.check, v.message) == (
        "MC_heads_tp", "Total number of attention heads (32) must be divisible by tensor parallel size (3).")
    # microbatching's all2all check sits between the CUDA graph lookup and the hybrid-manager one: which comes
    # first depends on the CUDA graph mode
    with pytest.raises(kvguard.Undecidable, match="CUDA graph mode has full graphs"):
        _check("0.33.0", "--kv-transfer-config", NO_SUCH, "--enable-dbo")


ROUTED_EXPERTS_KV = "--enable-return-routed-experts is incompatible with KV connectors (PD disaggregation, KV cache offload)."


@pytest.mark.parametrize("version,check,message", [
    ("0.21.0", None, None), ("0.22.0", "VC_routed_experts_kv_connector", ROUTED_EXPERTS_KV),
    ("0.30.0", "VC_routed_experts_kv_connector", ROUTED_EXPERTS_KV),
    ("0.31.0", "VC_aux_moe", "AuxOutput Connector only supports MoE models.")])
@pytest.mark.parametrize("role", ["kv_producer", "kv_consumer", "kv_both"])
def test_routed_experts_with_a_connector(version, check, message, role):
    # 0.22.0 - 0.30.0 refuse any role, right after the routed experts' parallelism checks (the model need not be MoE
    # there); 0.31.0 moved the routed experts' checks to _verify_aux_output_compatibility, without this one
    config = json.dumps({"kv_connector": "NixlConnector", "kv_role": role})
    v = _check(version, "--kv-transfer-config", config, "--enable-return-routed-experts")
    assert (v.ok, v.check, v.message) == (check is None, check, message)
    if check is not None:
        assert (v.exc_type, v.wrapped_by) == ("ValueError", "VllmConfig")


def test_routed_experts_with_an_unregistered_connector_come_first():
    # before either lookup of the connector class
    v = _check("0.24.0", "--kv-transfer-config", NO_SUCH, "--enable-return-routed-experts")
    assert (v.check, v.message) == ("VC_routed_experts_kv_connector", ROUTED_EXPERTS_KV)


def test_the_connector_start_is_listed_as_skipped():
    v = _check("0.33.0", "--kv-transfer-config", NIXL)
    assert v.ok and [s.check for s in v.skipped if s.check.startswith("W_kv")] == ["W_kv_connector_start"]


def test_kv_offloading_with_expandable_segments_is_undecidable():
    with pytest.raises(kvguard.Undecidable):
        _check("0.24.0", "--kv-offloading-size", "4", "--kv-offloading-backend", "native", env=EXPANDABLE)

