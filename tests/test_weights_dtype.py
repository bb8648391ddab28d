"""The dtype read from a checkpoint's safetensors headers (kvguard.facts.weights_dtype), by hand.

Expected values from the releases' sources: common_broadcastable_dtype keeps the dtype most others cast to without
loss (integers cast to any floating type, float16 and bfloat16 not to each other, both to float32); no mapped dtype
gives float32; up to 0.17.1 only the Hub's metadata is asked for (a local path that is no repo id gets none), from
0.18.0 a local directory's ``*.safetensors`` headers are read.
"""

from __future__ import annotations

import json
import os
import struct

from hypothesis import given
from hypothesis import strategies as st

import kvguard
from kvguard.facts.weights_dtype import common_dtype, local_dtypes, weights_dtype
from kvguard.launch.layout import Host
from kvguard.rules.check import resolve_release


def _write(path: str, header: dict) -> None:
    blob = json.dumps(header).encode()
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(blob)) + blob + b"\0" * 16)


def _tensor(dtype: str) -> dict:
    return {"dtype": dtype, "shape": [1], "data_offsets": [0, 2]}


def test_common_dtype_of_gpt_oss_and_awq_weights():
    assert common_dtype({"BF16", "U8"}) == ("bfloat16", None)
    assert common_dtype({"F16", "I32"}) == ("float16", None)
    assert common_dtype({"F32", "BF16"}) == ("float32", None)
    assert common_dtype({"F8_E4M3", "BF16"}) == ("bfloat16", None)
    assert common_dtype({"I32", "U8", "BOOL"}) == ("int32", None)
    assert common_dtype(set()) == ("float32", None)


def test_a_tie_or_an_unmapped_name_stays_open():
    dtype, why = common_dtype({"F16", "BF16"})
    assert dtype is None and "tie" in why
    dtype, why = common_dtype({"BF16", "F8_E8M0"})
    assert dtype is None and "F8_E8M0" in why


@given(st.sets(st.sampled_from(["BOOL", "U8", "I8", "I16", "I32", "I64", "F8_E4M3", "F8_E5M2", "F16", "BF16",
                                "F32", "F64"]), min_size=1))
def test_a_decided_dtype_is_one_of_the_weights_and_adding_it_again_changes_nothing(names):
    dtype, why = common_dtype(names)
    assert (dtype is None) != (why is None)
    if dtype is not None:
        assert common_dtype(sorted(names, reverse=True)) == (dtype, None)
        if "F64" in names:
            assert dtype == "float64"   # every dtype casts to float64 without loss


def test_local_headers_are_read_from_the_directory_only(tmp_path):
    _write(tmp_path / "model-00001-of-00002.safetensors", {"__metadata__": {"format": "pt"}, "a": _tensor("BF16")})
    _write(tmp_path / "model-00002-of-00002.safetensors", {"b": _tensor("U8")})
    os.mkdir(tmp_path / "original")
    _write(tmp_path / "original" / "model.safetensors", {"a": _tensor("F32")})
    _write(tmp_path / "model.safetensors.bak", {"a": _tensor("F32")})
    assert local_dtypes(str(tmp_path)) == (frozenset({"BF16", "U8"}), None)


def test_a_tensor_in_two_files_with_two_dtypes_stays_open(tmp_path):
    _write(tmp_path / "a.safetensors", {"w": _tensor("F16")})
    _write(tmp_path / "b.safetensors", {"w": _tensor("BF16")})
    names, why = local_dtypes(str(tmp_path))
    assert names is None and "'w'" in why


def test_where_each_release_reads_the_dtypes(tmp_path):
    _write(tmp_path / "model.safetensors", {"a": _tensor("F16")})
    assert weights_dtype(None, str(tmp_path), resolve_release("0.18.0")) == ("float16", None)
    assert weights_dtype(None, str(tmp_path), resolve_release("0.33.0")) == ("float16", None)
    # up to 0.17.1 the Hub client refuses an absolute path as a repo id: no metadata, float32
    assert weights_dtype(None, str(tmp_path), resolve_release("0.17.1")) == ("float32", None)
    assert weights_dtype(None, str(tmp_path), resolve_release("0.10.2")) == ("float32", None)
    # a catalog checkpoint: the Hub's dtypes, in every release
    assert weights_dtype(["BF16", "U8"], "openai/gpt-oss-20b", resolve_release("0.10.2")) == ("bfloat16", None)
    dtype, why = weights_dtype(None, "org/unknown-model", resolve_release("0.24.0"))
    assert dtype is None and "safetensors metadata" in why


def test_a_relative_local_path_that_is_a_repo_id_stays_open_up_to_0_17(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkdir("mymodel")
    _write(os.path.join("mymodel", "model.safetensors"), {"a": _tensor("BF16")})
    dtype, why = weights_dtype(None, "mymodel", resolve_release("0.17.1"))
    assert dtype is None and "Hugging Face Hub" in why
    assert weights_dtype(None, "mymodel", resolve_release("0.18.0")) == ("bfloat16", None)


def test_gpt_oss_from_the_catalog_decides_the_activation_dtype():
    # --dtype auto: the weights' bfloat16, which the MXFP4 method takes (the check was skipped before)
    verdict = kvguard.check("openai/gpt-oss-120b", vllm_version="0.24.0", host=Host.standard(), tp=8)
    assert verdict.ok
    assert not [s for s in verdict.skipped if s.check == "VC_quant_act_dtype"]


def test_a_local_gpt_oss_directory_with_float16_weights_is_refused(tmp_path):
    config = {e.id: e.config for e in kvguard.catalog.entries()}["openai/gpt-oss-20b"]
    (tmp_path / "config.json").write_text(json.dumps(config))
    _write(tmp_path / "model.safetensors", {"a": _tensor("F16"), "b": _tensor("U8")})
    verdict = kvguard.check(str(tmp_path), vllm_version="0.20.0", host=Host.standard(), model_path=str(tmp_path))
    assert (verdict.check, verdict.exc_type, verdict.wrapped_by) == ("VC_quant_act_dtype", "ValueError", "VllmConfig")
    assert verdict.message == ("torch.float16 is not supported for quantization method gpt_oss_mxfp4. Supported "
                               "dtypes: [torch.bfloat16]")
    # 0.17.1 asks the Hub about the path and gets nothing: float32, which --dtype auto turns into the preferred
    # bfloat16 (kvguard leaves that resolution open)
    older = kvguard.check(str(tmp_path), vllm_version="0.17.1", host=Host.standard(), model_path=str(tmp_path))
    assert older.ok and [s for s in older.skipped if s.check == "VC_quant_act_dtype"]
