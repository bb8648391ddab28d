"""The measured class tables: complete for every release, and nothing in them the vocabulary cannot express.

The tables are written by tools/facts_extract.py from the real libraries.  A new release (or transformers line)
can bring a configuration class that does something kvguard's derivation vocabulary does not name; the
extractor then records it as ``opaque`` and kvguard declines such configs.  These tests make that visible:
every model type a release can serve is checked, and what kvguard cannot follow must be listed, with a reason,
in ``data/unmodelled_allowed.json`` — so a new behaviour cannot slip in unnoticed.
"""

from __future__ import annotations

import json
import os
import sys

import pytest
from packaging.version import Version

from kvguard.facts.steps import STEPS
from kvguard.facts.tables import transformers_tables, vllm_release_tables, vllm_releases
from kvguard.versions import KNOWN_RELEASES, Release

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools")
if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)

import facts_extract  # noqa: E402

with open(os.path.join(HERE, "data", "unmodelled_allowed.json"), encoding="utf-8") as _fh:
    ALLOWED: dict[str, str] = json.load(_fh)["classes"]

#: every release has measured tables (and served model types)
ALL_TABLED = list(KNOWN_RELEASES)
#: the releases whose unfollowed classes the allow-list covers
TABLED = list(KNOWN_RELEASES)


def test_every_release_has_tables():
    have = set(vllm_releases())
    for release in ALL_TABLED:
        assert release in have
        tables = vllm_release_tables(release)
        assert tables["registered_model_types"], release
        assert transformers_tables(Release(Version(release)).transformers)["classes"]


def _steps(record: dict):
    for part in ("init", "post_init"):
        for step in record.get(part, []):
            yield step


@pytest.mark.parametrize("line", sorted({Release(Version(r)).transformers for r in ALL_TABLED}))
def test_every_step_of_a_transformers_line_is_in_the_vocabulary(line):
    unknown = {step[0] for record in transformers_tables(line)["classes"].values() for step in _steps(record)}
    assert unknown - set(STEPS) - {"super"} == set()


@pytest.mark.parametrize("release", ALL_TABLED)
def test_every_step_of_vllms_classes_is_in_the_vocabulary(release):
    classes = vllm_release_tables(release)["classes"]
    unknown = {step[0] for record in classes.values() for step in _steps(record)}
    assert unknown - set(STEPS) - {"super"} == set()


@pytest.mark.parametrize("release", TABLED)
def test_what_kvguard_cannot_follow_is_listed(release):
    """Every class a served model type reaches that kvguard cannot follow is in the allow-list with a reason."""
    found = facts_extract.unmodelled(release)
    surprising = {f"{model_type}: {name}: {'; '.join(items)}"
                  for model_type, classes in found.items() for name, items in classes.items()
                  if name.removeprefix("vllm:") not in ALLOWED}
    assert not surprising, "\n".join(sorted(surprising))


def test_the_listing_walks_sub_config_slots_filled_by_model_type():
    """A sub-config slot is reached whether the record names its class (transformers 5.20+'s
    sub_configs_defaults) or only the model type CONFIG_MAPPING builds it from (5.17's AutoConfig slots)."""
    # EmbeddingGemma2's text config is reached through its slot; CohereCompass's, reached the same way, is followed
    # since its RoPE conversion's guarded key removal is a steps_if, so the type is no longer listed at all
    on_033 = facts_extract.unmodelled("0.33.0")
    assert "EmbeddingGemma2TextConfig" in on_033["embedding_gemma2"]
    assert "cohere_compass" not in on_033
    # VibeVoice-ASR on 5.17.0 (vLLM 0.31.0): the acoustic tokenizer slot is AutoConfig, its default model type
    # vibevoice_acoustic_tokenizer_encoder; on 5.24.0 (0.30.0) the same slot through sub_configs_defaults
    for release in ("0.31.0", "0.30.0"):
        assert "VibeVoiceAcousticTokenizerEncoderConfig" in facts_extract.unmodelled(release)["vibevoice_asr"]


def test_the_allow_list_names_only_classes_that_exist():
    names = set()
    for release in TABLED:
        names |= {n.removeprefix("vllm:") for n in vllm_release_tables(release)["classes"]}
    for line in {Release(Version(r)).transformers for r in TABLED}:
        names |= set(transformers_tables(line)["classes"])
    assert set(ALLOWED) <= names


def test_the_allow_list_names_only_classes_kvguard_still_cannot_follow():
    """A class that became modelled leaves the allow-list, so that a later regression in it is not excused."""
    still = {name.removeprefix("vllm:") for release in TABLED
             for classes in facts_extract.unmodelled(release).values() for name in classes}
    assert set(ALLOWED) - still == set()


@pytest.mark.parametrize("release", KNOWN_RELEASES)
def test_the_loading_code_of_every_release_was_reviewed(release):
    """A release whose get_config / HFConfigParser / patch helpers differ from every variant kvguard's
    loader was checked against cannot be modelled until the variant is read and reflected in FEATURES."""
    from kvguard.facts.loader import REVIEWED

    fingerprints = vllm_release_tables(release)["loader_fingerprints"]
    assert {"HFConfigParser", "get_config"} <= set(fingerprints)
    for name, fingerprint in fingerprints.items():
        assert fingerprint in REVIEWED.get(name, {}), f"vLLM {release}: unreviewed {name} variant {fingerprint}"


def test_loader_features_are_ranges_of_known_releases():
    from kvguard.facts.loader import FEATURES

    for name, (first, last) in FEATURES.items():
        assert first in KNOWN_RELEASES, name
        assert last is None or last in KNOWN_RELEASES, name


def test_vllm_registries_as_the_releases_hold_them():
    # recorded from the releases' own _CONFIG_REGISTRY: kimi_k2 arrived after 0.10.2, deepseek_v32 is
    # transformers' DeepseekV3Config from 0.11.1, medusa left before 0.33.0
    assert "kimi_k2" not in vllm_release_tables("0.10.2")["registry"]
    assert vllm_release_tables("0.11.1")["registry"]["deepseek_v32"] == "DeepseekV3Config"
    assert "DeepseekV3Config" in vllm_release_tables("0.11.1")["transformers_classes"]
    assert vllm_release_tables("0.25.0")["registry"]["unlimited-ocr"] == "vllm:UnlimitedOCRConfig"
    assert "medusa" not in vllm_release_tables("0.33.0")["registry"]


def test_one_release_entry_is_the_whole_files_entry():
    """vllm_release_entry decodes one release's value out of vllm.json; it is the same value as
    the whole file's, for every release, and an unknown release is None."""
    from kvguard.facts import tables

    with open(os.path.join(tables._DIR, "vllm.json"), encoding="utf-8") as fh:
        whole = json.load(fh)["releases"]
    for release, entry in whole.items():
        assert tables.vllm_release_entry(release) == entry
    assert tables.vllm_release_entry("0.0.1") is None
