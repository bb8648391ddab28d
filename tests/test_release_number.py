"""kvguard.versions.ReleaseNumber (plain release numbers without importing packaging) orders,
compares and prints as ``packaging.version.Version`` does, with itself and with packaging's."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from packaging.version import Version

from kvguard.versions import ReleaseNumber, parse_version, resolve

plain = st.lists(st.integers(0, 40), min_size=1, max_size=4).map(lambda parts: ".".join(map(str, parts)))
spelled = st.one_of(plain, st.sampled_from(["0.28.0rc1", "0.28.0.post1", "0.28.0+cu130", "1!0.1", "0.28.0.dev3"]))


@given(plain, spelled)
def test_like_packaging(a, b):
    mine, theirs = parse_version(a), Version(a)
    assert isinstance(mine, ReleaseNumber)
    assert str(mine) == str(theirs) and repr(mine) == repr(theirs)
    assert (mine.release, mine.major, mine.minor, mine.micro, mine.base_version, mine.local) == \
        (theirs.release, theirs.major, theirs.minor, theirs.micro, theirs.base_version, theirs.local)
    other, other_theirs = parse_version(b), Version(b)
    for op in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
        want = getattr(theirs, op)(other_theirs)
        assert getattr(mine, op)(other) == want              # kvguard's with kvguard's (or packaging's)
        assert getattr(mine, op)(other_theirs) == want       # with packaging's
    if mine == other and isinstance(other, ReleaseNumber):
        assert hash(mine) == hash(other)


def test_release_keys_are_plain_numbers():
    for key in ("0.28.0", "v0.28.0", "0.28.0.post1", "0.28.0+cu130", "0.28.0+pr55030", "pr55030"):
        assert isinstance(resolve(key).version, ReleaseNumber)
    assert sorted([parse_version("0.28.0"), Version("0.27.1"), parse_version("0.10.2")]) == \
        [Version("0.10.2"), Version("0.27.1"), Version("0.28.0")]


@given(spelled, st.one_of(st.none(), spelled), st.one_of(st.none(), spelled))
def test_within_is_packagings_order(release, since, until):
    """Release.within compares plain bounds by their ordering keys and any other bound as packaging does: the same
    answer as packaging's comparisons either way."""
    from kvguard.record import replace
    from kvguard.versions import resolve

    mine = replace(resolve("0.28.0"), version=parse_version(release))
    want = ((since is None or Version(release) >= Version(since))
            and (until is None or Version(release) <= Version(until)))
    assert mine.within(since, until) == want
