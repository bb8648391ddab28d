"""The oracle's ``flashinfer`` stand-in (tests/upstream/quant_runner.py ``_FlashinferForTheImportOnly``): present for
an unguarded ``import flashinfer`` (0.17.0-0.19.x's FlashInfer TRT-LLM NVFP4 experts module), unable to answer
anything - every use raises, so it can make the import succeed but never change what the release decides."""

from __future__ import annotations

import importlib
import importlib.util
import sys

import pytest

from tests.upstream.quant_runner import _FlashinferForTheImportOnly, _imports_flashinfer_at_module_level


@pytest.fixture
def present():
    assert "flashinfer" not in sys.modules
    sys.modules["flashinfer"] = _FlashinferForTheImportOnly("flashinfer")
    try:
        yield sys.modules["flashinfer"]
    finally:
        del sys.modules["flashinfer"]


def test_the_import_succeeds(present):
    import flashinfer  # noqa: F401  (the statement the release runs)

    assert sys.modules["flashinfer"] is present


@pytest.mark.parametrize("name", ["fused_moe", "trtllm_fp4_block_scale_moe", "__version__", "__path__", "__all__"])
def test_every_attribute_raises(present, name):
    with pytest.raises(AttributeError, match="present for the import only"):
        getattr(present, name)
    assert not hasattr(present, name)


def test_no_submodule_imports(present):
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("flashinfer.fused_moe")
    with pytest.raises(ImportError):
        exec("from flashinfer.fused_moe.core import ActivationType", {})


def test_presence_queries_raise_instead_of_answering(present):
    # vllm.utils.flashinfer.has_flashinfer asks importlib.util.find_spec: with the stand-in it cannot say yes
    with pytest.raises(ValueError):
        importlib.util.find_spec("flashinfer")


def test_the_source_test_reads_the_top_level_statement(tmp_path, monkeypatch):
    pkg = tmp_path / "kvg_probe_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "top.py").write_text("import flashinfer\nimport torch\n")
    (pkg / "lazy.py").write_text("def f():\n    import flashinfer\n")
    (pkg / "guarded.py").write_text("try:\n    import flashinfer\nexcept ImportError:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _imports_flashinfer_at_module_level("kvg_probe_pkg.top")
    assert not _imports_flashinfer_at_module_level("kvg_probe_pkg.lazy")
    assert not _imports_flashinfer_at_module_level("kvg_probe_pkg.guarded")
    assert not _imports_flashinfer_at_module_level("kvg_probe_pkg.absent")
