"""What a check reads per release, kept once per release (kvguard.rules.engine.per_release, session 57): the
``within`` answers the rows read as ``state.since[bound]``, the programs, the release key, the registry's answer by
architectures.  Expected values written by hand from the release numbers."""

from __future__ import annotations

import pytest

import kvguard
from kvguard.errors import Undecidable
from kvguard.rules import engine
from kvguard.rules.check import require_registered_architecture, resolve_release
from kvguard.versions import resolve

# (release, bound, answer): a bound is a lower one, or a (lower, upper) pair (None: open)
SINCE = [
    ("0.10.2", "0.11.1", False), ("0.11.1", "0.11.1", True), ("0.20.0", "0.17.0", True), ("0.14.1", "0.17.0", False),
    ("0.33.0", "0.24.0", True), ("0.23.0", "0.24.0", False),
    ("0.18.0", ("0.18.0", "0.28.0"), True), ("0.28.0", ("0.18.0", "0.28.0"), True),
    ("0.29.0", ("0.18.0", "0.28.0"), False), ("0.17.0", ("0.18.0", "0.28.0"), False),
    ("0.11.1", (None, "0.11.1"), True), ("0.12.0", (None, "0.11.1"), False),
    ("0.28.0+pr55030", "0.28.0", True), ("0.28.0+pr55030", "0.29.0", False),
]


@pytest.mark.parametrize(("version", "bound", "answer"), SINCE)
def test_since_answers_as_within(version, bound, answer):
    release = resolve(version)
    since = engine.per_release(release).since
    assert since[bound] is answer
    assert since[bound] is answer  # the kept answer
    assert (release.within(*bound) if isinstance(bound, tuple) else release.within(bound)) is answer


def test_the_per_release_values_are_found_by_the_release_object():
    release = resolve_release("0.20.0")
    kept = engine.per_release(release)
    assert engine.per_release(resolve_release("0.20.0")) is kept
    assert kept.key == "0.20.0"
    assert engine.release_key(release) == "0.20.0"
    other = resolve("0.20.0")  # an equal Release, another object: its own entry, the same answers
    assert engine.per_release(other) is not kept
    assert engine.per_release(other).since["0.17.0"] is True
    assert engine.per_release(resolve("0.28.0+pr55030")).key == "0.28.0+pr55030"


def test_the_state_reads_the_release_defaults_it_depends_on():
    lay = kvguard.Layout(tensor_parallel_size=2)
    facts = kvguard.model_facts("Qwen/Qwen3-32B", vllm_version="0.24.0")
    for version, eplb_async, dcp_backend in (("0.23.0", False, "ag_rs"), ("0.24.0", True, "ag_rs"),
                                             ("0.17.0", False, None), ("0.29.0", True, None)):
        state = engine.State(resolve_release(version), lay, facts, {}, kvguard.Host())
        assert (state.eplb_async, state.dcp_comm_backend) == (eplb_async, dcp_backend)


def test_the_registry_answer_is_kept_per_release_and_architectures():
    known = kvguard.model_facts("Qwen/Qwen3-32B", vllm_version="0.20.0")
    require_registered_architecture(known, resolve_release("0.20.0"))
    assert engine.per_release(resolve_release("0.20.0")).registered[known.architectures] is True
    unknown = known.__class__.__new__(known.__class__)
    unknown.__dict__.update(known.__dict__, architectures=("NoSuchModelForCausalLM",))
    for _ in range(2):  # asked, then kept
        with pytest.raises(Undecidable, match=r"architectures \[NoSuchModelForCausalLM\] are not in vLLM 0.20.0's"):
            require_registered_architecture(unknown, resolve_release("0.20.0"))
    unlisted = known.__class__.__new__(known.__class__)
    unlisted.__dict__.update(known.__dict__, architectures=["NoSuchModelForCausalLM"])  # unhashable: asked each time
    with pytest.raises(Undecidable):
        require_registered_architecture(unlisted, resolve_release("0.20.0"))
