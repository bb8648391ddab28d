"""The tool-call and reasoning parsers a launch names (``--tool-call-parser``, ``--reasoning-parser``).

A name the release does not register is refused, at a point that moved between releases:

- ``--enable-auto-tool-choice`` without ``--tool-call-parser`` (every release): the CLI's
  ``validate_parsed_serve_args`` (vllm/entrypoints/openai/cli_args.py; 0.29.0+ launchers/, 0.33.0+ common/), right
  after argparse: TypeError.
- ``--tool-call-parser`` with ``--enable-auto-tool-choice`` (every release; without the switch the name is never
  looked up): the API server's ``validate_api_server_args``, from ``setup_server`` before the engine config is built
  (not in headless mode, which starts no API server): KeyError listing the release's names joined by ``,``.
- ``--reasoning-parser``: 0.10.2 / 0.11.0 argparse choices (kvguard.launch.argv); 0.11.1 - 0.12.0
  ``StructuredOutputsConfig``'s validator when VllmConfig takes the config create_engine_config filled in (ValueError
  wrapped by VllmConfig, names joined by ``,``); 0.13.0 - 0.19.1 only the engine core's ``StructuredOutputManager``,
  after the KV cache is set up (KeyError from ``ReasoningParserManager.get_reasoning_parser``, names joined by
  ``, ``); 0.20.0+ ``ReasoningConfig.initialize_token_ids`` late in ``VllmConfig.__post_init__`` (the same
  KeyError).  0.33.0's parser reads ``none`` (any case) as no parser.

- a reasoning parser a ``--structured-outputs-config`` JSON names (``{"reasoning_parser": …}``; 0.11.0+): the API
  server's ``validate_api_server_args`` reads ``args.structured_outputs_config.reasoning_parser`` -- this JSON's name,
  never ``--reasoning-parser``, which create_engine_config copies into that config only later -- right after the
  tool-call parser: KeyError ``invalid reasoning parser: NAME (chose from { A,B,… })``.  Without an API server the
  engine's own lookup of that name is not modelled (undecidable, unless ``--reasoning-parser`` replaces it).

The API server's checks run only where ``vllm serve`` starts one (vllm/entrypoints/cli/serve.py): not with
``--headless`` nor with ``--api-server-count`` below 1 (run_headless, every release), and not with ``--grpc``
(0.20.0+), which runs the gRPC server of the optional smg-grpc-servicer package (``vllm[grpc]``) instead: whether the
host has it (an ImportError before any config) and what it checks are not modelled, so a ``--grpc`` launch is
undecidable once ``validate_parsed_serve_args`` has passed it.

A plugin (``--tool-parser-plugin`` / ``--reasoning-parser-plugin`` longer than 3 characters) may register the name:
undecidable.  The names are measured per release (kvguard/data/parser_names.json, written by
tools/measure_parser_names.py from each release's own code).
"""

from __future__ import annotations

import json
import os
from functools import lru_cache

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["AUTO_TOOL_MESSAGE", "REASONING_CONFIG_MESSAGE", "auto_tool_without_parser", "grpc_server",
           "reasoning_bind", "reasoning_config_bind", "reasoning_parser_package", "registered", "structured_reasoning_bind",
           "structured_reasoning_in_engine", "unknown_reasoning_parser", "unknown_structured_reasoning_parser",
           "unknown_tool_parser", "tool_bind"]

AUTO_TOOL_MESSAGE = "Error: --enable-auto-tool-choice requires --tool-call-parser"
#: 0.11.1 - 0.12.0: StructuredOutputsConfig's validator (the message as it is, wrapped by VllmConfig)
REASONING_CONFIG_MESSAGE = "invalid reasoning parser: {reasoning_parser} (chose from {{ {names} }})"
_TOOL_TEXT = "invalid tool call parser: {} (chose from {{ {} }})"
_API_REASONING_TEXT = "invalid reasoning parser: {} (chose from {{ {} }})"
_LOOKUP_TEXT = "Reasoning parser '{}' not found. Available parsers: {}"
#: a plugin path the release imports (``len(plugin) > 3``) before it asks for the name
_PLUGIN_MIN = 4
_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "parser_names.json")


@lru_cache(maxsize=None)
def _measured() -> dict:
    with open(_DATA, encoding="utf-8") as fh:
        return json.load(fh)["releases"]


def registered(version: str, kind: str) -> "Optional[list[str]]":
    """The ``kind`` ("tool" / "reasoning") parser names ``version`` registers, in its order (None: not measured)."""
    found = _measured().get(version)
    return None if found is None else found[kind]


def _names(state: Any, kind: str) -> list[str]:
    names = registered(str(state.release.version), kind)
    if names is None:
        state.undecided(f"the {kind} parser names of vLLM {state.release.version} are not measured")
        return []
    return names


def _plugin(value: "Optional[str]") -> bool:
    return value is not None and len(value) >= _PLUGIN_MIN


def auto_tool_without_parser(state: Any) -> bool:
    return state.layout.enable_auto_tool_choice and not state.layout.tool_call_parser


def _unregistered(state: Any, name: str, names: list[str], plugin: "Optional[str]", may_register: str) -> bool:
    """Whether ``name`` is not among the registered ``names``; a parser plugin that may register it makes the
    answer undecidable (``may_register`` says which option may name what)."""
    if name in names:
        return False
    if _plugin(plugin):
        state.undecided(f"{may_register} (the plugin is not read)")
    return True


def _api_server(state: Any) -> bool:
    """Whether ``vllm serve`` starts an API server, whose validate_api_server_args checks the parsers: not with
    --headless nor fewer than one API server (State.headless: run_headless); --grpc is undecidable before."""
    return not state.headless


def grpc_server(state: Any) -> None:
    """0.20.0+: ``--grpc`` runs the gRPC server of an optional package instead of the API server."""
    if state.layout.grpc:
        state.undecided(f"vllm serve --grpc runs vLLM {state.release.version}'s gRPC server, which imports the "
                        "optional smg-grpc-servicer package (vllm[grpc]) before any config is built: whether the host "
                        "has it, and what it checks, is not modelled")


def unknown_tool_parser(state: Any) -> bool:
    """``--enable-auto-tool-choice`` with a ``--tool-call-parser`` the release does not register (the API server)."""
    lay = state.layout
    if not _api_server(state) or not lay.enable_auto_tool_choice or not lay.tool_call_parser:
        return False
    return _unregistered(state, lay.tool_call_parser, _names(state, "tool"), lay.tool_parser_plugin,
                         "--tool-parser-plugin may register the tool-call parser --tool-call-parser names")


def tool_bind(state: Any) -> dict:
    text = _TOOL_TEXT.format(state.layout.tool_call_parser, ",".join(_names(state, "tool")))
    return {"quoted": repr(text)}   # str(KeyError(text))


def unknown_reasoning_parser(state: Any) -> bool:
    """A ``--reasoning-parser`` the release does not register (0.11.1+; 0.10.2 / 0.11.0: argparse)."""
    lay = state.layout
    if not lay.reasoning_parser:
        return False
    return _unregistered(state, lay.reasoning_parser, _names(state, "reasoning"), lay.reasoning_parser_plugin,
                         "--reasoning-parser-plugin may register the reasoning parser --reasoning-parser names")


def unknown_reasoning_parser_at_config(state: Any) -> bool:
    """0.20.0+: VllmConfig asks for the parser unless ``--reasoning-config`` gives both its strings."""
    if not unknown_reasoning_parser(state):
        return False
    if state.layout.reasoning_config:
        state.undecided("--reasoning-config may give the reasoning start and end strings, and then VllmConfig does "
                        "not look --reasoning-parser up (the engine core does, later; not modelled)")
    return True


def unknown_reasoning_parser_in_engine(state: Any) -> bool:
    """0.13.0 - 0.19.1: the engine core's StructuredOutputManager asks for the parser, with the tokenizer only."""
    if not unknown_reasoning_parser(state):
        return False
    if state.layout.skip_tokenizer_init:
        state.undecided("with --skip-tokenizer-init the engine core does not look --reasoning-parser up; the API "
                        "server's chat serving does, after the engine starts (not modelled)")
    return True


def reasoning_config_bind(state: Any) -> dict:
    return {"reasoning_parser": state.layout.reasoning_parser, "names": ",".join(_names(state, "reasoning"))}


def reasoning_bind(state: Any) -> dict:
    text = _LOOKUP_TEXT.format(state.layout.reasoning_parser, ", ".join(_names(state, "reasoning")))
    return {"quoted": repr(text)}   # str(KeyError(text))


def _reasoning_names(state: Any) -> list[str]:
    """The reasoning parsers the API server knows: the measured names (0.11.0: --reasoning-parser's argparse
    choices, the registry's keys; not measured: undecidable)."""
    names = registered(str(state.release.version), "reasoning")
    if names is None:
        state.undecided(f"the reasoning parser names of vLLM {state.release.version} are not measured")
        return []
    return names


def unknown_structured_reasoning_parser(state: Any) -> bool:
    """The API server's check of the reasoning parser a ``--structured-outputs-config`` JSON names (0.11.0+)."""
    lay = state.layout
    if not lay.structured_reasoning_parser or not _api_server(state):
        return False
    return _unregistered(state, lay.structured_reasoning_parser, _reasoning_names(state), lay.reasoning_parser_plugin,
                         "--reasoning-parser-plugin may register the reasoning parser --structured-outputs-config "
                         "names")


def structured_reasoning_bind(state: Any) -> dict:
    text = _API_REASONING_TEXT.format(state.layout.structured_reasoning_parser, ",".join(_reasoning_names(state)))
    return {"quoted": repr(text)}   # str(KeyError(text))


def structured_reasoning_in_engine(state: Any) -> None:
    """Without an API server, a --structured-outputs-config reasoning parser the release does not register reaches
    the engine (unless --reasoning-parser replaces it in create_engine_config, 0.11.1+): not modelled."""
    lay = state.layout
    name = lay.structured_reasoning_parser
    if not name or _api_server(state) or (lay.reasoning_parser and state.release.within("0.11.1")):
        return
    if name in _reasoning_names(state):
        return
    state.undecided(f"the reasoning parser {name!r} --structured-outputs-config names is not one vLLM "
                    f"{state.release.version} registers; without an API server (--headless, --api-server-count 0) "
                    "only the engine looks it up, which kvguard does not model for this option")


#: reasoning parsers whose module imports an optional package (vllm/reasoning/cohere_command_reasoning_parser.py,
#: 0.21.0-0.29.0: cohere_melody, an ImportError when the engine builds the parser)
_OPTIONAL_PACKAGE = {"cohere_command3": "cohere_melody", "cohere_command4": "cohere_melody"}


def reasoning_parser_package(state: Any) -> None:
    """0.21.0-0.29.0: a named reasoning parser whose module needs an optional package the host may lack."""
    lay = state.layout
    for name in (lay.reasoning_parser, lay.structured_reasoning_parser):
        package = _OPTIONAL_PACKAGE.get(name or "")
        if package is not None:
            state.undecided(f"vLLM {state.release.version}'s reasoning parser {name!r} imports the optional package "
                            f"{package} when the engine builds it: whether the host has it is not modelled")
