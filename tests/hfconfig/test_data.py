"""The extracted data: every release and transformers line is there, the hand-ported loader code was reviewed."""

from __future__ import annotations

import os

import pytest
from packaging.version import Version

from kvguard.hfconfig import _load
from kvguard.versions import KNOWN_RELEASES, Release

DATA = os.path.dirname(_load.__file__)


def test_every_release_and_transformers_line_has_its_own_data():
    releases = _load.vllm_releases()
    lines = _load.tf_versions()
    for rel in KNOWN_RELEASES:
        assert rel in releases
        r = Release(Version(rel))
        assert _load.vllm_data_release(r) == rel
        assert _load.tf_data_version(r.transformers) == r.transformers
        assert r.transformers in lines


@pytest.mark.parametrize("rel", KNOWN_RELEASES)
def test_loader_code_of_every_release_was_reviewed(rel):
    """tools/hfconfig_extract.py fingerprints the vLLM code _load.py ports by hand; a new variant must be read
    and reflected in _load.FEATURES / REVIEWED before the release is modelled."""
    fps = _load._store("vllm")["releases"][rel]["fingerprints"]
    assert {"HFConfigParser", "get_config"} <= set(fps)
    for name, fp in fps.items():
        assert fp in _load.REVIEWED.get(name, {}), f"{rel}: unreviewed {name} variant {fp}"


def test_registry_tables():
    reg = _load._store("vllm")["releases"]
    assert "kimi_k2" not in reg["0.10.2"]["config_registry"]
    assert reg["0.11.1"]["config_registry"]["deepseek_v32"] == "DeepseekV3Config"
    assert "DeepseekV3Config" in reg["0.11.1"]["transformers_classes"]
    assert reg["0.25.0"]["config_registry"]["unlimited-ocr"] == "UnlimitedOCRConfig"
    assert "medusa" not in reg["0.33.0"]["config_registry"]


def test_modules_are_shared_and_the_data_is_small():
    total = 0
    for name in ("transformers.json", "transformers.bodies", "vllm.json", "vllm.bodies"):
        total += os.path.getsize(os.path.join(DATA, name))
    assert total < 15 * 1024 * 1024
    store = _load._store("vllm")
    refs = sum(len(e["modules"]) for e in store["releases"].values())
    assert len(store["bodies"]) < refs / 3  # each module body once, not once per release


def test_features_are_version_ranges_of_known_releases():
    for name, (first, last) in _load.FEATURES.items():
        assert first in KNOWN_RELEASES, name
        assert last is None or last in KNOWN_RELEASES, name
