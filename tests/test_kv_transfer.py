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
    ('{"kv_connector": "NoSuchConnector", "kv_role": "kv_both"}', "registers no KV connector 'NoSuchConnector'"),
    ('{"kv_connector": "MooncakeConnector", "kv_role": "kv_both"}', "MooncakeConnector's own checks"),
    ('{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_connector_module_path": "my.mod"}',
     "kv_connector_module_path"),
    ('{"kv_connector": "NixlConnector", "kv_role": "both"}', "kv_role='both'"),
    ("NixlConnector", "as a JSON object")])
def test_what_kvguard_does_not_read_is_undecidable(value, reason):
    with pytest.raises(kvguard.Undecidable) as caught:
        _check("0.33.0", "--kv-transfer-config", value)
    assert reason in str(caught.value)


def test_the_connector_start_is_listed_as_skipped():
    v = _check("0.33.0", "--kv-transfer-config", NIXL)
    assert v.ok and [s.check for s in v.skipped if s.check.startswith("W_kv")] == ["W_kv_connector_start"]


def test_kv_offloading_with_expandable_segments_is_undecidable():
    with pytest.raises(kvguard.Undecidable):
        _check("0.24.0", "--kv-offloading-size", "4", "--kv-offloading-backend", "native", env=EXPANDABLE)

