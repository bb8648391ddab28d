"""Encoder-only instances (0.29.0+): ``--ec-transfer-config`` as an encoder-cache producer only and
``--mm-encoder-only``, against the releases' own serve path (tests/upstream/serve_runner.py).

vLLM 0.29.0 - 0.33.0 resolve the instance first thing in ``VllmConfig.__post_init__``
(``_resolve_mm_encoder_only``, vllm/config/vllm.py): an EC producer-only config without MultiModalConfig (a model
whose class takes no multimodal input) is refused; ``--mm-encoder-only`` is a MultiModalConfig field, so a text-only
model never reads it.  kvguard renders those; a multimodal encoder-only instance and the consumer roles stay
undecidable.  Each case's verdict must agree with the oracle's (the runner's stage "engine" for every refusal of
create_engine_config; exception type, message, pydantic wrapper), or kvguard must say it cannot decide.
"""

from __future__ import annotations

import json
import os

import pytest

from kvguard import catalog

from ._oracle import oracle_or_skip, release_sample, serve_kvguard_answer, serve_oracle_answer, serve_records

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.28.0 0.29.0 0.33.0").split()
#: CI's sample of KVG_ORACLE_VERSIONS (~20 s a release): the last release without the check, the first with it, the
#: last
SAMPLE = release_sample(VERSIONS, "0.28.0", also=("0.29.0",))

_ROLE = '{{"ec_connector": "ECExampleConnector", "ec_role": "{role}"}}'
PRODUCER = _ROLE.format(role="ec_producer")
TEXT, VISION = "Qwen/Qwen3-8B", "Qwen/Qwen2.5-VL-7B-Instruct"
#: (id, model, arguments after the model)
CASES = (
    ("text-producer", TEXT, ["--ec-transfer-config", PRODUCER]),
    ("text-producer-tp3", TEXT, ["--ec-transfer-config", PRODUCER, "-tp", "3"]),
    ("text-producer-len0", TEXT, ["--ec-transfer-config", PRODUCER, "--max-model-len", "0"]),
    ("text-producer-dotted", TEXT, ["--ec-transfer-config.ec_connector", "ECExampleConnector",
                                    "--ec-transfer-config.ec_role", "ec_producer"]),
    ("text-mm-encoder-only", TEXT, ["--mm-encoder-only"]),
    ("text-mm-encoder-only-tp3", TEXT, ["--mm-encoder-only", "-tp", "3"]),
    ("text-both", TEXT, ["--ec-transfer-config", _ROLE.format(role="ec_both")]),
    ("text-consumer", TEXT, ["--ec-transfer-config", _ROLE.format(role="ec_consumer")]),
    ("text-no-connector", TEXT, ["--ec-transfer-config", '{"ec_role": "ec_producer"}']),
    ("vision-producer", VISION, ["--ec-transfer-config", PRODUCER]),
    ("vision-mm-encoder-only", VISION, ["--mm-encoder-only"]),
    ("vision-producer-tp3", VISION, ["--ec-transfer-config", PRODUCER, "-tp", "3"]),
)


@pytest.mark.parametrize("version", SAMPLE)
def test_encoder_only_instances_agree(version, tmp_path):
    python, python_env = oracle_or_skip(version)
    configs = {e.id: e.config for e in catalog.entries()}
    cases = []
    for case_id, model, args in CASES:
        model_dir = tmp_path / case_id
        model_dir.mkdir()
        cases.append({"id": case_id, "args": args, "config": configs[model], "model_dir": str(model_dir)})
    records = serve_records(python, python_env, cases)
    counts = {"agree": 0, "undecided": 0}
    disagree = []
    for case_id, model, args in CASES:
        want = serve_oracle_answer(records[case_id])
        got = serve_kvguard_answer(version, ["vllm", "serve", model, *args])
        if got == ("undecidable",):
            counts["undecided"] += 1
        elif got == want:
            counts["agree"] += 1
        else:
            disagree.append((case_id, got, want))
    print(f"encoder-only instances on {version}: agree {counts['agree']} / undecided {counts['undecided']} / "
          f"disagree {len(disagree)}")
    assert not disagree, json.dumps(disagree, indent=1)
    assert counts["agree"] >= 6      # the EC producer refusals and the text-only acceptances are compared
