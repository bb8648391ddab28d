"""The tool-call and reasoning parser names a release registers; runs INSIDE an oracle venv.

usage: VLLM_TARGET_DEVICE=cpu python parser_names_runner.py IGNORED.json OUT.json

Asks the release's own code, with a name no release registers:

- ``tool``: the API server's ``validate_api_server_args`` (with ``--enable-auto-tool-choice``), whose KeyError
  lists the names ("... (chose from { A,B,... })"), read back in that order;
- ``reasoning`` (0.11.1+): 0.11.1 - 0.12.0 ``StructuredOutputsConfig``'s validator (ValueError, the same listing),
  later ``ReasoningParserManager.get_reasoning_parser`` ("... Available parsers: A, B, ...");
  0.10.2 / 0.11.0 list them as the option's argparse choices instead (None here).

Writes ``{"tool": [...], "tool_message": str, "reasoning": [...] | None, "reasoning_message": str | None}``.
This file must not import kvguard.
"""

import argparse
import importlib
import json
import logging
import os
import sys
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

PROBE = "kvg_no_such_parser"


class _Anything:
    """Any attribute, call or decorator of a server package the oracle does not install (uvicorn, SageMaker's
    standards): the API server module imports them at the top, ``validate_api_server_args`` never uses them."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything()

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return _Anything()

    def __mro_entries__(self, bases):
        return (object,)


def _module_attr(name):
    """A stand-in module's attributes: anything but the dunders that module walkers (inspect) read."""
    if name.startswith("__"):
        raise AttributeError(name)
    return _Anything()


def stub_server_modules():
    """Stand-ins for the API server's imports the oracle lacks (only when they do not import)."""
    import importlib.util
    import types

    for name in ("uvicorn", "model_hosting_container_standards"):
        if importlib.util.find_spec(name) is not None:
            continue
        for sub in (name, f"{name}.sagemaker", f"{name}.common", f"{name}.sagemaker.sagemaker_router"):
            module = types.ModuleType(sub)
            module.__getattr__ = _module_attr  # type: ignore[method-assign]
            module.__path__ = []
            sys.modules.setdefault(sub, module)
    try:  # some bases hold an xgrammar whose binding loader does not match (the API server imports it, unused here)
        import xgrammar  # noqa: F401
    except Exception:  # noqa: BLE001
        for sub in ("xgrammar", "xgrammar.testing", "xgrammar.exception", "xgrammar.structural_tag"):
            module = types.ModuleType(sub)
            module.__getattr__ = _module_attr  # type: ignore[method-assign]
            module.__path__ = []
            sys.modules[sub] = module
    if importlib.util.find_spec("python_multipart") is None and importlib.util.find_spec("multipart") is None:
        module = types.ModuleType("python_multipart")  # fastapi's form routes only ask for its version
        module.__version__ = "0.0.20"
        sys.modules["python_multipart"] = module


def validate_api_server_args():
    """The release's ``validate_api_server_args`` (its module moved twice)."""
    for name in ("vllm.entrypoints.common.cli_args", "vllm.entrypoints.launchers.launcher",
                 "vllm.entrypoints.openai.api_server"):
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if not (exc.name or "").startswith("vllm"):
                raise
            continue
        if hasattr(module, "validate_api_server_args"):
            return module.validate_api_server_args
    raise SystemExit("no validate_api_server_args")


def _listed(message, opener, closer, sep):
    start = message.index(opener) + len(opener)
    end = message.rindex(closer) if closer else len(message)
    return message[start:end].split(sep)


def main(_cases, out_path):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from argv_runner import _imports
    from oracle_runner import stub_torchvision, torch_compat

    torch_compat()
    if os.environ.get("KVG_ORACLE_TORCHVISION") == "stub":
        stub_torchvision()
    _imports()  # the CPU platform
    stub_server_modules()
    validate = validate_api_server_args()
    args = argparse.Namespace(enable_auto_tool_choice=True, tool_call_parser=PROBE, reasoning_parser="",
                              structured_outputs_config=argparse.Namespace(reasoning_parser=""))
    try:
        validate(args)
        raise SystemExit("validate_api_server_args took an unregistered tool parser")
    except KeyError as exc:
        tool_message = exc.args[0]
    out = {"tool": _listed(tool_message, "(chose from { ", " })", ","), "tool_message": tool_message,
           "reasoning": None, "reasoning_message": None}
    try:
        from vllm.config.structured_outputs import StructuredOutputsConfig
    except ImportError:
        StructuredOutputsConfig = None
    if StructuredOutputsConfig is not None and hasattr(StructuredOutputsConfig, "__dataclass_fields__") \
            and "reasoning_parser" in StructuredOutputsConfig.__dataclass_fields__:
        message = None
        try:
            StructuredOutputsConfig(reasoning_parser=PROBE)
        except Exception as exc:  # noqa: BLE001  (pydantic's ValidationError around the validator's ValueError)
            errors = getattr(exc, "errors", None)
            message = errors()[0]["ctx"]["error"].args[0] if errors else str(exc)
        if message is not None:
            out["reasoning"] = _listed(message, "(chose from { ", " })", ",")
            out["reasoning_message"] = message
        else:
            from vllm.reasoning import ReasoningParserManager

            try:
                ReasoningParserManager.get_reasoning_parser(PROBE)
                raise SystemExit("get_reasoning_parser took an unregistered name")
            except KeyError as exc:
                message = exc.args[0]
            if "Available parsers: " in message:  # 0.11.0's lookup says otherwise: its argparse choices list them
                out["reasoning"] = _listed(message, "Available parsers: ", None, ", ")
                out["reasoning_message"] = message
    with open(out_path, "w") as fh:
        json.dump([out], fh)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
