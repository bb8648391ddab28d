"""A KV connector named by ``--kv-transfer-config``, vLLM 0.10.2 – 0.33.0.

Mirrors vllm/config/kv_transfer.py (``KVTransferConfig``: its fields and ``__post_init__``),
vllm/distributed/kv_transfer/kv_connector/factory.py (the connector names each release registers) and
vllm/config/vllm.py ``VllmConfig._verify_kv_transfer_compat`` (0.21.0+), read in 0.10.2, 0.11.0, 0.11.1, 0.13.0,
0.14.0, 0.17.0 – 0.21.0, 0.22.0, 0.24.0, 0.30.0 and 0.33.0.

What kvguard reads of the JSON value (whose keys and field types kvguard.launch.argv has checked against the
release's KVTransferConfig) is :func:`read_connector`: a ``kv_role`` whenever a connector is named
(``__post_init__`` refuses a connector without a role, through pydantic, inside argparse's type conversion: its
text is not modelled), a connector the release registers among :data:`DECIDED` (the others have checks of their own
or import packages vLLM does not require while VllmConfig is built), and no ``kv_connector_module_path`` (a module
on the host). Anything else is :class:`~kvguard.errors.Undecidable` with the reason, but a connector the release
does not register (read in 0.10.2, 0.14.0, 0.16.0, 0.17.0, 0.21.0, 0.22.0, 0.24.0, 0.28.0, 0.31.0 – 0.33.0), which
the factory refuses (``ValueError: Unsupported connector type: NAME``) wherever the class is first looked up:

- 0.22.0+: VllmConfig.__post_init__ asks for it to set the hybrid KV cache manager's default, unless
  ``--disable-hybrid-kv-cache-manager`` or its negation is given (``VC_kv_connector_unregistered``, after
  ``_post_init_kv_transfer_config`` / ``_verify_aux_output_compatibility``);
- 0.17.0+: VllmConfig asks earlier, where the CUDA graph mode is resolved, if that mode has full graphs: never on a
  platform without static graphs (CPU, TPU) nor with ``--enforce-eager`` (whose mode NONE is set before), else a mode
  kvguard does not resolve: a refusal of another row after that point is undecidable (``vc_kv_connector_lookup``
  sets ``State.refusal_pending``);
- otherwise (before 0.17.0 always) the engine's start looks it up (the workers' and the scheduler's connector, from
  0.14.0 after the model is built): that launch is undecidable (``w_kv_connector_lookup``), as is where the engine's
  other refusals stand against it;
- refusals before the first lookup (the parallel layout, ModelConfig's checks) come first, as for any launch.

Then VllmConfig, at the end of ``__post_init__``:

- 0.21.0+: ``PYTORCH_CUDA_ALLOC_CONF`` containing ``expandable_segments:True`` with a connector is refused
  (``VC_kv_expandable_segments``) unless sleep mode (0.21.x) or the cumem allocator (0.22.0+, which sleep mode
  turns on) is enabled; the variable unset is listed as an assumption.
- 0.33.0: with sleep mode, a connector whose class says it cannot follow sleep mode's KV cache remap is refused
  (``VC_kv_sleep_mode``): of the decided ones NixlPushConnector, and NixlConnector / NixlPullConnector unless their
  ``backends`` setting is ``["UCX"]`` (the default).

The connector's own start on the workers (its package on the host, its ``kv_connector_extra_config``) is not
modelled: listed as skipped (``W_kv_connector_start``).
"""

from __future__ import annotations

import json

from ..errors import Undecidable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Optional

    from ..versions import Release

__all__ = ["ALLOC_CONF", "DECIDED", "EXPANDABLE", "GRAPH_LOOKUP_SINCE", "HMA_LOOKUP_SINCE", "REGISTERED",
           "UNSUPPORTED", "connector_bind", "expandable_segments_refused", "read_connector", "registered",
           "sleep_mode_refused", "unregistered_engine_lookup", "unregistered_lookup_pending", "unregistered_refused",
           "worker_start_unmodelled"]

#: the connector names the factory registers: (name, first release, last release or None)
REGISTERED: tuple[tuple[str, str, Optional[str]], ...] = (
    ("SharedStorageConnector", "0.10.2", "0.12.0"),
    ("P2pNcclConnector", "0.10.2", "0.23.0"),
    ("LMCacheConnectorV1", "0.10.2", None),
    ("NixlConnector", "0.10.2", None),
    ("MultiConnector", "0.10.2", None),
    ("OffloadingConnector", "0.11.0", None),
    ("LMCacheMPConnector", "0.11.1", None),
    ("DecodeBenchConnector", "0.11.1", None),
    ("ExampleConnector", "0.13.0", None),
    ("MooncakeConnector", "0.13.0", None),
    ("MoRIIOConnector", "0.14.0", None),
    ("ExampleHiddenStatesConnector", "0.17.0", None),
    ("FlexKVConnectorV1", "0.18.0", None),
    ("SimpleCPUOffloadConnector", "0.19.0", None),
    ("HF3FSKVConnector", "0.20.0", None),
    ("MooncakeStoreConnector", "0.21.0", None),
    ("NixlPullConnector", "0.24.0", None),
    ("NixlPushConnector", "0.24.0", None),
    ("HiSparseConnector", "0.30.0", None),
)

#: the connectors whose launch kvguard decides: none has a check of its own while VllmConfig is built, and their
#: modules import nothing beyond vLLM's requirements at that point (others: Mooncake imports httpx, the Mooncake
#: store uvicorn, P2pNccl and MoRIIO msgpack, the LMCache connectors lmcache, the CPU offloading connectors a kernel
#: library, ExampleHiddenStatesConnector refuses chunked prefill, HF3FS loads a library, MultiConnector builds its
#: children)
DECIDED = ("NixlConnector", "NixlPullConnector", "NixlPushConnector", "ExampleConnector", "SharedStorageConnector",
           "DecodeBenchConnector", "FlexKVConnectorV1")

#: the first release whose VllmConfig looks the connector class up for the hybrid KV cache manager's default
HMA_LOOKUP_SINCE = "0.22.0"
#: the first release whose VllmConfig looks it up where the CUDA graph mode is resolved (full graphs only)
GRAPH_LOOKUP_SINCE = "0.17.0"
#: the platforms whose ``support_static_graph_mode`` is False: no CUDA graph mode to resolve, no lookup there
_NO_STATIC_GRAPHS = ("cpu", "tpu")
UNSUPPORTED = "Unsupported connector type: {connector}"

ALLOC_CONF = "PYTORCH_CUDA_ALLOC_CONF"
EXPANDABLE = "expandable_segments:True"


def registered(name: str, release: "Release") -> bool:
    return any(entry == name and release.within(since, until) for entry, since, until in REGISTERED)


def read_connector(value: str, release: "Release", option: str) -> tuple[Optional[str], bool]:
    """The connector a ``--kv-transfer-config`` value names (None: none) and whether its class says it follows sleep
    mode (0.33.0's ``supports_sleep_mode``), or Undecidable where kvguard would guess.  The value's keys and field
    types have passed kvguard.launch.argv's check of the release's KVTransferConfig fields."""
    data = json.loads(value)
    connector = data.get("kv_connector")
    if connector is None:
        return None, True
    if data.get("kv_role") is None:
        raise Undecidable(f"{option}: a connector without kv_role (KVTransferConfig refuses it through pydantic "
                          "inside argparse's type conversion) is not modelled")
    if data.get("kv_connector_module_path") is not None:
        raise Undecidable(f"{option}: a connector loaded from kv_connector_module_path (a module on the host) is not "
                          "modelled")
    if not registered(connector, release):
        # the factory's refusal, where the class is first looked up: the rows vc_kv_connector_lookup,
        # VC_kv_connector_unregistered and w_kv_connector_lookup
        return connector, True
    if connector not in DECIDED:
        raise Undecidable(f"{option}: {connector}'s own checks and the packages its module imports (read while "
                          f"VllmConfig is built or the workers start) are not modelled (decided: "
                          f"{', '.join(DECIDED)})")
    return connector, _follows_sleep_mode(connector, data.get("kv_connector_extra_config") or {})


def _follows_sleep_mode(connector: str, extra: dict) -> bool:
    """0.33.0's ``supports_sleep_mode`` of a decided connector: NixlConnector (an alias of NixlPullConnector) only with
    the UCX backend (the default), NixlPushConnector never, the others the base class's True."""
    if connector in ("NixlConnector", "NixlPullConnector"):
        return extra.get("backends", ["UCX"]) == ["UCX"]
    return connector != "NixlPushConnector"


def expandable_segments_refused(state: Any) -> bool:
    """``_verify_kv_transfer_compat``'s allocator check (0.21.0+); the variable unset is recorded as assumed."""
    offloading = state.layout.kv_offloading_size is not None and state.release.within("0.14.0")
    if state.layout.kv_connector is None and not offloading:
        return False
    exempt = state.layout.enable_sleep_mode if not state.release.within("0.22.0") else (
        state.layout.enable_cumem_allocator or state.layout.enable_sleep_mode)
    if exempt:
        return False
    alloc = state.env.get(ALLOC_CONF)
    if alloc is None:
        state.assumed_unset.add(ALLOC_CONF)
        return False
    if EXPANDABLE not in alloc:
        return False
    if state.layout.kv_connector is None:
        # --kv-offloading-size configures the connector of its backend (native: OffloadingConnector), which this
        # check then meets: which connector, and whether its module imports, is not modelled
        state.undecided("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True with the KV connector --kv-offloading-size "
                        "configures is not modelled")
    return True


def connector_bind(state: Any) -> dict:
    return {"connector": state.layout.kv_connector}


def sleep_mode_refused(state: Any) -> bool:
    """0.33.0: sleep mode with a connector that cannot follow it."""
    return (state.layout.kv_connector is not None and state.layout.enable_sleep_mode
            and not state.layout.kv_connector_sleep_mode)


def _unregistered(state: Any) -> bool:
    connector = state.layout.kv_connector
    return connector is not None and not registered(connector, state.release)


def _refusal_text(state: Any) -> str:
    connector = state.layout.kv_connector
    return (f"vLLM {state.release.version} registers no KV connector {connector!r}; its factory refuses it "
            f"(ValueError: {UNSUPPORTED.format(connector=connector)})")


def unregistered_lookup_pending(state: Any) -> None:
    """Where VllmConfig (0.17.0+) resolves the CUDA graph mode, with a connector the release does not register: the
    class is looked up here if the mode has full graphs, which kvguard does not resolve but on a platform without
    static graphs or with --enforce-eager (mode NONE): any later refusal of another row is then undecidable
    (State.refusal_pending; the hybrid KV cache manager's lookup, VC_kv_connector_unregistered, is the refusal
    itself).  0.33.0's sleep-mode check looks it up too when neither earlier lookup does."""
    if not _unregistered(state):
        return
    layout = state.layout
    # (an unknown platform may have static graphs)
    graphs = not layout.enforce_eager and (state.host.platform is None
                                           or state.need("platform") not in _NO_STATIC_GRAPHS)
    if graphs:
        state.refusal_pending = ("VC_kv_connector_unregistered" if unregistered_refused(state)
                                 else "w_kv_connector_lookup",
                                 f"{_refusal_text(state)} in VllmConfig where the CUDA graph mode has full graphs (a "
                                 "mode kvguard does not resolve without --enforce-eager), before this refusal")
    elif layout.enable_sleep_mode and state.release.within("0.33.0") and not unregistered_refused(state):
        state.refusal_pending = ("w_kv_connector_lookup",
                                 f"{_refusal_text(state)} in VllmConfig's sleep-mode check (not modelled), before "
                                 "this refusal")


def unregistered_refused(state: Any) -> bool:
    """The hybrid KV cache manager's default (0.22.0+) looks the connector class up."""
    return (state.release.within(HMA_LOOKUP_SINCE) and _unregistered(state)
            and state.layout.disable_hybrid_kv_cache_manager is None)


def unregistered_engine_lookup(state: Any) -> None:
    """The engine's start with a connector the release does not register (VllmConfig did not look it up): the
    workers' or the scheduler's connector refuses it; where that stands among the engine's own refusals (and the
    model's construction, from 0.14.0 before the workers' connector) is not modelled."""
    if _unregistered(state):
        state.undecided(f"{_refusal_text(state)} when the engine starts, whose order against the engine's other "
                        "checks kvguard does not model")


def worker_start_unmodelled(state: Any) -> bool:
    from .engine import SkipCheck

    if state.layout.kv_connector is not None:
        raise SkipCheck(f"the start of {state.layout.kv_connector} on the workers (its package on the host, its "
                        "kv_connector_extra_config)")
    return False
