"""Checking what was found: each launch against the release its deployment pins (or the one asked
for), through the front door (:func:`kvguard.front.examine`); a variable or placeholder that reaches
what kvguard reads makes a launch undecidable.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import replace
from typing import Any, Callable, Iterable, Mapping, Optional

from ..errors import ArgparseRefusal, InputError, KvguardError
from ..launch.pins import ReleaseChoice, choose_release, default_release
from .files import find_launches
from .result import Finding, Launch, ScanResult
from .undecidable import (
    BadArguments,
    NoRelease,
    NotStarted,
    Placeholder,
    UndecidableLaunch,
    UnresolvedVariable,
    mentions,
    variable_label,
)
from .variables import launch_reads

__all__ = ["check_launch", "release_for", "scan"]


def _quoted(exc: KvguardError) -> tuple[str, ...]:
    """The launch's own words an error about its arguments is about, as data (never its message):
    what vLLM's parser refused (:attr:`ArgparseRefusal.words`), else the file (``--config``) and
    option kvguard could not read (none for an Undecidable, e.g. a plugin's option)."""
    from ..launch.argv import PydanticRefusal

    if isinstance(exc, (ArgparseRefusal, PydanticRefusal)):
        return exc.words
    if not isinstance(exc, InputError):
        return ()
    return tuple(w for w in (exc.source, exc.key) if w and w != "<argv>")


def _variables_in(words: Iterable[str], unresolved: Iterable[str]) -> list[str]:
    """The unresolved variables (and placeholders) written in any of ``words``, in the order of
    ``unresolved``."""
    words = tuple(words)
    return [name for name in unresolved if any(mentions(word, (name,)) for word in words)]


#: fields whose value no modelled check reads (only whether they are given)
_VALUE_FREE = frozenset({"data_parallel_address"})


def _unresolved(hits: list[str]) -> UndecidableLaunch:
    """Placeholders only (``<MODEL>``, ``...``), else the unresolved variables among ``hits``."""
    if all(h.startswith(("<", ".", "…")) for h in hits):
        return Placeholder(hits)
    return UnresolvedVariable(hits)


#: a value for an option's value slot that its argparse ``type`` accepts (a typed slot holding an
#: unresolved variable); a slot of any other type keeps the variable as written
_VALID_VALUE = {"int": "1", "float": "1", "_optional_type": "1", "human_readable_int": "1",
                "human_readable_int_or_auto": "1", "loads": "{}"}

_ENV_PREFIX = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _probed(launch: Launch, release) -> Optional[tuple[list[str], list[tuple[str, str]]]]:
    """The launch's words with each unresolved variable in a typed value slot replaced by a value its type
    accepts, and the replaced words with the destination of their option; None when a variable stands
    anywhere else than where one value word goes.

    A variable is taken to stand for one word that is not an option (how ``-tp $TP`` and ``vllm serve
    $MODEL`` are written): a value of an option (not ``--config``, whose file could say anything), the model
    right after ``vllm serve``, or a ``VAR=value`` prefix.  A variable anywhere else (an extra word, an
    option's name, after ``--``) could add or remove arguments."""
    from ..launch.argv import launcher_and_arguments, option_spans, option_table

    unresolved = launch.unresolved
    prefix, args = launcher_and_arguments(launch.tokens)
    for word in prefix:
        if mentions(word, unresolved) and not (_ENV_PREFIX.match(word) and
                                                not mentions(word.split("=", 1)[0], unresolved)):
            return None
    table = option_table(release)
    spans, _ = option_spans(args, release)
    values: dict[int, Any] = {}      # index in args of an option's value -> the option's spec
    inline: dict[int, Any] = {}      # index in args of an `--option=value` word -> the option's spec
    for found in spans.values():
        for start, end, opt in found:
            for i in range(start + 1, end):
                values[i] = table[opt]
            if "=" in args[start]:
                inline[start] = table[opt]
    probed = list(args)
    replaced: list[tuple[str, str]] = []
    for i, word in enumerate(args):
        if not mentions(word, unresolved):
            continue
        if any(name.startswith("{") for name in mentions(word, unresolved)):
            return None             # a brace expansion (`{2,4}`) stands for several words
        if i in inline:
            name = word.split("=", 1)[0]
            spec = inline[i]
            if mentions(name, unresolved):
                return None
        elif i in values:
            name, spec = None, values[i]
        elif i == 0 and prefix[-1:] == ["serve"] and not word.startswith("-"):
            continue                 # the model, as `vllm serve MODEL` gives it
        else:
            return None
        if spec.dest == "config":
            return None
        valid = str(spec.choices[0]) if spec.choices else _VALID_VALUE.get(spec.type or "")
        if valid is not None:
            probed[i] = valid if name is None else f"{name}={valid}"
            replaced.append((word, spec.dest))
    return prefix + probed, replaced


def _refused_whatever_the_variables_hold(launch: Launch, release, build_report) -> Optional["Finding"]:
    """The refusal of vLLM's argument parser when it stands whatever the unresolved variables hold,
    else None: every variable stands where one value word goes (:func:`_probed`), and the command line
    still refuses with each typed value slot holding a value its type accepts — with a message that
    names no variable."""
    from ..launch.argv import PydanticRefusal, parse_serve

    probe = _probed(launch, release)
    if probe is None:
        return None
    tokens = probe[0]
    try:
        parse_serve(tokens, release)
    except (ArgparseRefusal, PydanticRefusal) as refusal:   # the latter worded with the host's pydantic below
        if _variables_in(refusal.words, launch.unresolved):
            return None
    except KvguardError:            # kvguard could not read the probe (or cannot decide it): not this case
        return None
    else:
        return None                 # the refusal was about a variable's value
    report = _build(build_report, release, tokens, launch)
    if report.verdict.ok or report.verdict.stage != "argparse":
        return None
    names = variable_label(mentions(" ".join(launch.tokens), launch.unresolved))
    report.verdict = report.verdict.with_notes(
        f"{names} unresolved: vLLM's argument parser refuses this command line whatever "
        f"{'it holds' if ', ' not in names else 'they hold'} (the refusal is about other arguments)")
    return Finding(launch, "refused", report=report)


def _value_read(name: str, release) -> bool:
    """Whether the value of the launch's environment variable ``name`` can change ``release``'s verdict: a
    ``VLLM_*`` name the release does not define (and does not read from ``os.environ`` itself) changes none of its
    choices, whatever it holds — only its presence counts (``--fail-on-environ-validation``): kvguard.rules.environ."""
    from ..rules.environ import READ_OUTSIDE_ENVS, defines
    from ..versions import resolve

    if not launch_reads(name):
        return False
    return not name.startswith("VLLM_") or name in READ_OUTSIDE_ENVS or defines(resolve(release), name)


def _read_variables(launch: Launch, cmd, release) -> list[str]:
    """The unresolved variables in what kvguard reads of a parsed launch: the model, the options' values,
    the values of the environment variables the release and the checks read."""
    relevant = [cmd.model or ""] + [str(v) for k, v in cmd.fields.items() if k not in _VALUE_FREE] + \
        [v for k, v in cmd.env.items() if _value_read(k, release)]
    return mentions(" ".join(relevant), launch.unresolved)


def _with_the_other_variables(launch: Launch, release, hits: list[str]) -> list[str]:
    """``hits`` (the variables vLLM's parser refused as values) and the other unresolved variables the launch
    reads once those hold values their types accept, in the launch's order: all that ``--set`` must give."""
    from ..launch.argv import parse_serve

    probe = _probed(launch, release)
    if probe is None:
        return hits
    tokens, replaced = probe
    try:
        others = _read_variables(launch, parse_serve(tokens, release), release)
    except KvguardError:
        return hits
    others += mentions(" ".join(word for word, dest in replaced if dest not in _VALUE_FREE), launch.unresolved)
    return [name for name in launch.unresolved if name in hits or name in others]


def _build(build_report: Callable[..., Any], release, tokens: list[str], launch: Launch):
    """``build_report(release, tokens)``, with ``gpus=`` when the launch's container is given a GPU count."""
    if launch.gpus is None:
        return build_report(release, tokens)
    return build_report(release, tokens, gpus=launch.gpus)


def check_launch(launch: Launch, release, build_report: Callable[[Any, list[str]], Any]) -> Finding:
    """Check one launch against ``release``: ``build_report(release, tokens)`` returns a LaunchReport
    (or raises KvguardError) — :func:`kvguard.front.examine` with the options bound; it is also given
    ``gpus=N`` for a launch whose container is given N GPUs (:attr:`Launch.gpus`)."""
    from ..launch.argv import PydanticRefusal, parse_serve

    if launch.not_started is not None:
        return Finding.undecided(launch, NotStarted(launch.not_started))
    launch = _with_release_entrypoint(launch, release)
    if launch.unresolved:
        try:
            cmd = parse_serve(launch.tokens, release)
        except KvguardError as exc:   # an argparse refusal, unreadable input, or a launch kvguard cannot decide
            if isinstance(exc, (ArgparseRefusal, PydanticRefusal)):
                refused = _refused_whatever_the_variables_hold(launch, release, build_report)
                if refused is not None:
                    return refused
            # a variable among the words the parser refused (or kvguard could not read) is why
            hits = _variables_in(_quoted(exc), launch.unresolved)
            if hits:
                hits = _with_the_other_variables(launch, release, hits)
            return Finding.undecided(launch, _unresolved(hits) if hits else exc)
        hits = _read_variables(launch, cmd, release)
        if hits:
            return Finding.undecided(launch, _unresolved(hits))
    try:
        report = _build(build_report, release, launch.tokens, launch)
    except KvguardError as exc:     # the kind follows from the exception's type (scan.undecidable)
        return Finding.undecided(launch, exc)
    except RecursionError:
        return Finding.undecided(launch, BadArguments("input nested too deeply"))
    return Finding(launch, "accepted" if report.verdict.ok else "refused", report=report)


def _with_release_entrypoint(launch: Launch, release) -> Launch:
    """``launch`` as ``release``'s image starts it: a launch whose launcher is the image's own
    entrypoint gets that release's (:mod:`kvguard.launch.images`), noted where it is not `vllm serve`."""
    from ..launch.images import IMAGE_SERVE_SINCE, image_entrypoint, with_image_entrypoint
    from ..versions import resolve

    if not launch.image_entrypoint:
        return launch
    release = resolve(release)
    notes: tuple[str, ...] = ()
    if launch.entrypoint_release is not None:
        try:
            release = resolve(launch.entrypoint_release)
        except KvguardError:
            pass    # a tag naming no release kvguard knows: the release checked is the best guess
        else:
            started = shlex.join(image_entrypoint(release))
            notes = (f"the image's ENTRYPOINT is its tag's ({launch.entrypoint_release}: `{started}`), whatever "
                     "vLLM is installed over it",)
    tokens = with_image_entrypoint(launch.tokens, release)
    if tokens != launch.tokens:
        notes += (f"vLLM's images before {IMAGE_SERVE_SINCE} start `{shlex.join(image_entrypoint(release))}`, "
                  "not `vllm serve`",)
    if not notes:
        return launch
    return replace(launch, tokens=tokens, notes=launch.notes + notes)


def release_for(launch: Launch, vllm_version=None, *, nearest: bool = False,
                source: str = "the release asked for", default: Optional[ReleaseChoice] = None) -> ReleaseChoice:
    """The release ``launch`` is checked against (:mod:`kvguard.launch.pins`): ``vllm_version`` when given
    (an override, described as ``source``), else the release its deployment pins, else ``default``
    (the installed vLLM, else the newest known).  Raises UnsupportedVersion for a bad ``vllm_version``."""
    from ..versions import resolve

    override = ReleaseChoice(resolve(vllm_version, nearest=nearest), source) if vllm_version is not None else None
    return choose_release(launch.pin, override, default or default_release(nearest), nearest)


def _check_choice(launch: Launch, choice: ReleaseChoice, build_report: Callable[[Any, list[str]], Any]) -> Finding:
    if choice.release is None:
        finding = Finding.undecided(launch, NoRelease(choice.reason))
    else:
        finding = check_launch(launch, choice.release, build_report)
    finding.vllm_version, finding.vllm_version_source = choice.key, choice.source
    finding.release_pinned = choice.pinned
    return finding


def scan(paths: Iterable[str], release=None, build_report: Optional[Callable[[Any, list[str]], Any]] = None,
         variables: Optional[Mapping[str, str]] = None, *, nearest: bool = False,
         release_source: str = "the release asked for", **find_options: Any) -> ScanResult:
    """Find the launches under ``paths`` and check each against its release.

    ``release`` (a version string or Release) overrides every pin, described as
    ``release_source``; without it each launch uses the release its deployment pins, else the
    default (:mod:`kvguard.launch.pins`).  ``build_report(release, tokens)`` checks one launch
    (default: :func:`kvguard.front.examine` on the standard host).  ``find_options`` go to
    :func:`find_launches` (``exclude``, ``exclude_root``, ``stdin_text``, ``stdin_kind``,
    ``stdin_filename``)."""
    from ..versions import resolve

    if build_report is None:
        from ..front import examine

        build_report = examine
    override = ReleaseChoice(resolve(release, nearest=nearest), release_source) if release is not None else None
    default = override or default_release(nearest)
    launches, skipped, files = find_launches(paths, variables, **find_options)
    result = ScanResult(skipped=skipped, files=files, vllm_version=default.key,
                        vllm_version_source=default.source if default.release is not None else default.reason)
    for launch in launches:
        choice = choose_release(launch.pin, override, default, nearest)
        result.findings.append(_check_choice(launch, choice, build_report))
    return result
