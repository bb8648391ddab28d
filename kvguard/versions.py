"""vLLM release keys: parsing, aliases, the transformers line each release runs with.

A *release key* names the vLLM code kvguard reproduces: a public release
("0.28.0", "v0.28.0", "0.28.0.post1", "0.28.0+cu130" all mean 0.28.0) or a
release with a proposed upstream patch applied ("0.28.0+pr55030",
"0.33.0+pr55030"; the alias "pr55030" names the newest base).  Rules elsewhere in the package
carry version bounds and are selected with :meth:`Release.within`.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache

from .errors import UnsupportedVersion
from .record import Record, field

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = [
    "KNOWN_RELEASES",
    "PATCHES",
    "RELEASES",
    "SUPPORTED_VERSIONS",
    "Release",
    "ReleaseNumber",
    "ReleaseInfo",
    "default_version",
    "resolve",
    "parse_version",
]


class ReleaseNumber:
    """A plain release number (``0.28.0``), as ``packaging.version.Version`` holds one.

    Every release key kvguard knows is one, and importing ``packaging.version`` costs a cold check
    ~20M instructions (its module and its regular expression: ~8% of the check), so plain numbers
    get this class and only other spellings (``0.28.0.post1``, ``0.28.0+cu130``, ``v0.28.0``) are
    parsed by packaging.  It offers the part of Version's surface kvguard uses (``release``,
    ``major``/``minor``/``micro``, ``base_version``, ``local``, ``str()``), orders and compares
    with itself by the numbers (``0.28 == 0.28.0``, as packaging), and compares with a
    ``packaging.version.Version`` as packaging does (it is not hashed alike: do not mix the two
    as keys of one dict).
    """

    __slots__ = ("release", "_key", "_hash", "_within")

    epoch = 0
    pre = post = dev = local = None
    is_prerelease = is_postrelease = is_devrelease = False

    def __init__(self, release: tuple[int, ...]):
        self.release = release
        key = list(release)
        while len(key) > 1 and key[-1] == 0:
            key.pop()
        self._key = tuple(key)
        # hashed once: the per-model answers of a check are keyed by the release (kvguard.rules.table._per_model)
        self._hash = hash(self._key)
        #: (since, until) -> Release.within's answer for this number (the rows ask the same bounds on every check)
        self._within: dict[tuple[Optional[str], Optional[str]], bool] = {}

    @property
    def major(self) -> int:
        return self.release[0]

    @property
    def minor(self) -> int:
        return self.release[1] if len(self.release) > 1 else 0

    @property
    def micro(self) -> int:
        return self.release[2] if len(self.release) > 2 else 0

    @property
    def base_version(self) -> str:
        return str(self)

    public = base_version

    def __str__(self) -> str:
        return ".".join(map(str, self.release))

    def __repr__(self) -> str:
        return f"<Version({str(self)!r})>"

    def __hash__(self) -> int:
        return self._hash

    def _mixed(self, other: object, op: str) -> Any:
        if type(other).__module__ == "packaging.version":   # packaging is imported already
            from packaging.version import Version
            if isinstance(other, Version):
                return getattr(Version(str(self)), op)(other)
        return NotImplemented

    def __eq__(self, other: object) -> Any:
        if type(other) is ReleaseNumber:
            return self._key == other._key
        return self._mixed(other, "__eq__")

    def __ne__(self, other: object) -> Any:
        if type(other) is ReleaseNumber:
            return self._key != other._key
        return self._mixed(other, "__ne__")

    def __lt__(self, other: object) -> Any:
        if type(other) is ReleaseNumber:
            return self._key < other._key
        return self._mixed(other, "__lt__")

    def __le__(self, other: object) -> Any:
        if type(other) is ReleaseNumber:
            return self._key <= other._key
        return self._mixed(other, "__le__")

    def __gt__(self, other: object) -> Any:
        if type(other) is ReleaseNumber:
            return self._key > other._key
        return self._mixed(other, "__gt__")

    def __ge__(self, other: object) -> Any:
        if type(other) is ReleaseNumber:
            return self._key >= other._key
        return self._mixed(other, "__ge__")


def _plain(text: str) -> Optional[ReleaseNumber]:
    parts = text.split(".")
    if all(p.isascii() and p.isdigit() for p in parts):
        return ReleaseNumber(tuple(int(p) for p in parts))
    return None


def parse_version(text: str) -> Any:
    """``text`` as a version: a :class:`ReleaseNumber` when it is a plain release number, else
    ``packaging.version.Version(text)`` (which raises ``InvalidVersion`` for what is no version)."""
    found = _plain(text)
    if found is not None:
        return found
    from packaging.version import Version
    return Version(text)

class ReleaseInfo(Record):
    """One row of the release manifest (``kvguard/data/releases.json``)."""

    version: str
    #: the transformers version whose configuration classes the release reads through
    transformers: str
    #: the release's own requirement on transformers (from its wheel's METADATA)
    transformers_requirement: str
    #: the group of releases whose parallel-layout launch checks are identical (V01, V02, ...)
    launch_checks: str
    #: the group's representative, for which .ci/run builds an oracle
    ci: bool


def _read_manifest() -> tuple[tuple[ReleaseInfo, ...], dict[str, tuple[tuple[str, ...], str, str]]]:
    # plain file I/O: importlib.resources would cost more to import than the read
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "releases.json")
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    rows = tuple(ReleaseInfo(**row) for row in doc["releases"])
    patches = {label: (tuple(p["bases"]), p["title"], p["url"]) for label, p in doc["patches"].items()}
    return rows, patches


#: The release manifest: every vLLM release from the first with decode context
#: parallel to the newest one whose sources were read, oldest first.
RELEASES, PATCHES = _read_manifest()

#: Their versions.
KNOWN_RELEASES: tuple[str, ...] = tuple(row.version for row in RELEASES)

#: Proposed upstream changes kvguard can apply on top of a release:
#: patch label -> (base releases, oldest first; title; URL).  The bare label
#: (``"pr55030"``) is an alias for the newest base.  For pr55030, 0.28.0 is the
#: release the PR was written against and 0.33.0 the newest, where the model
#: runner no longer refuses PCP for non-MLA models, so the PR's effect shows end
#: to end under ``vllm serve``.

#: Releases whose rules are checked against the real release by the differential
#: tier (tests/upstream) and the golden cases.
VERIFIED_RELEASES: tuple[str, ...] = KNOWN_RELEASES

SUPPORTED_VERSIONS: tuple[str, ...] = VERIFIED_RELEASES + tuple(
    f"{base}+{label}" for label, (bases, _, _) in PATCHES.items()
    for base in bases if base in VERIFIED_RELEASES
)

_BY_VERSION: dict[Any, ReleaseInfo] = {parse_version(row.version): row for row in RELEASES}


class Release(Record, order=True):
    """A resolved release key."""

    #: a :class:`ReleaseNumber` (``packaging.version.Version`` is accepted too)
    version: Any
    patches: frozenset[str] = field(default_factory=frozenset, compare=False)
    #: set when ``nearest=True`` mapped an unknown version onto this one
    requested: str | None = field(default=None, compare=False)

    @property
    def key(self) -> str:
        base = str(self.version)
        return base + "".join(f"+{p}" for p in sorted(self.patches))

    @property
    def info(self) -> ReleaseInfo:
        """This release's row in the release manifest."""
        v = self.version
        return _BY_VERSION[v if type(v) is ReleaseNumber else parse_version(str(v))]

    @property
    def transformers(self) -> str:
        """The transformers version whose config classes this release reads through (a release the manifest
        does not list, e.g. a newer one, reads through the line of the newest listed release before it)."""
        row = _BY_VERSION.get(self.version)
        if row is None:
            older = [v for v in _BY_VERSION if v <= self.version]
            row = _BY_VERSION[max(older) if older else min(_BY_VERSION)]
        return row.transformers

    @property
    def transformers_major(self) -> int:
        return parse_version(self.transformers).major

    def within(self, since: str | None, until: str | None = None) -> bool:
        """True when ``since <= release <= until`` (either bound may be open)."""
        version = self.version
        if type(version) is ReleaseNumber:
            answers = version._within
            answer = answers.get((since, until))
            if answer is not None:
                return answer
            # ordering keys compared as tuples: no Python comparison method per bound (a cached check asks ~20 times)
            low = None if since is None else _order_key(since)
            high = None if until is None else _order_key(until)
            if (low is not None or since is None) and (high is not None or until is None):
                key = version._key
                answer = (low is None or key >= low) and (high is None or key <= high)
                if len(answers) < 1024:  # the tables' bounds; a caller's own bounds do not grow it without end
                    answers[(since, until)] = answer
                return answer
        return ((since is None or version >= _v(since))
                and (until is None or version <= _v(until)))

    def __str__(self) -> str:
        return self.key


@lru_cache(maxsize=None)
def _v(text: str) -> Any:
    return parse_version(text)


@lru_cache(maxsize=None)
def _order_key(text: str) -> "tuple[int, ...] | None":
    """A bound's ordering key when it is a plain release number (every bound of kvguard's tables), else None."""
    version = _v(text)
    return version._key if type(version) is ReleaseNumber else None


def _parse(text: str) -> tuple[Any, frozenset[str]]:
    raw = text.strip()
    if raw.lower() in PATCHES:
        bases, _, _ = PATCHES[raw.lower()]
        return parse_version(bases[-1]), frozenset({raw.lower()})
    plain = _plain(raw) if len(raw) <= 200 else None
    if plain is not None:   # the common spelling: no packaging import
        return plain, frozenset()
    from packaging.version import InvalidVersion, Version
    try:
        if len(raw) > 200:  # no release key is that long; keeps packaging's int() within its limits
            raise InvalidVersion(raw)
        ver = Version(raw)
    except InvalidVersion:
        raise UnsupportedVersion(
            f"{text[:80]!r} is not a vLLM version (expected e.g. 0.28.0); "
            f"supported: {', '.join(SUPPORTED_VERSIONS)}"
        ) from None
    patches: frozenset[str] = frozenset()
    if ver.local:
        labels = {part for part in ver.local.split(".")}
        known = labels & set(PATCHES)
        # a local label that is not a patch (cu130, cpu, …) names a build, not a change
        patches = frozenset(known)
    base = parse_version(ver.base_version)  # drops post/dev/local parts
    return base, patches


def resolve(version: str | Release | None = None, *, nearest: bool = False,
            verified_only: bool = True) -> Release:
    """Turn a version string into a :class:`Release`.

    ``None`` picks :func:`default_version`.  An unknown version raises
    :class:`~kvguard.UnsupportedVersion` naming the supported range, unless
    ``nearest`` is true: then the closest older supported release is used and
    ``Release.requested`` records what was asked for.
    """
    if isinstance(version, Release):
        return version
    if version is None:
        version = default_version()
    if not isinstance(version, str):
        raise UnsupportedVersion(f"vLLM version must be a string, not {type(version).__name__}")
    base, patches = _parse(version)
    pool = SUPPORTED_VERSIONS if verified_only else KNOWN_RELEASES
    releases = sorted({parse_version(k.split("+")[0]) for k in pool})
    for label in patches:
        bases = PATCHES[label][0]
        if base not in {parse_version(b) for b in bases}:
            raise UnsupportedVersion(
                f"patch {label} applies to vLLM {', '.join(bases)}, not {base}"
            )
    if base in releases:
        return Release(base, patches)
    if nearest:
        older = [r for r in releases if r <= base]
        if not older:
            raise UnsupportedVersion(
                f"vLLM {version} is older than every supported release "
                f"({releases[0]}); decode context parallel appeared in 0.10.2"
            )
        return Release(older[-1], frozenset(), requested=version)
    raise UnsupportedVersion(
        f"vLLM {version} is not supported; supported: {', '.join(SUPPORTED_VERSIONS)} "
        "(use --nearest / nearest=True for the closest older ruleset)"
    )


def default_version() -> str:
    """The installed vLLM's version when importlib.metadata finds one, else the newest supported.

    vLLM itself is never imported.
    """
    try:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as _dist_version

        try:
            return _dist_version("vllm")
        except PackageNotFoundError:
            pass
    except Exception:  # pragma: no cover - broken metadata
        pass
    return SUPPORTED_VERSIONS[len(VERIFIED_RELEASES) - 1]
