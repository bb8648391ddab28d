"""The host-fact options (kvguard.rules.host_options) through the CLI: sleep mode and the cumem allocator per platform,
--device-ids, the logging config file.  Expected verdicts are written out by hand from the releases' source
(tests/upstream/test_host_options.py checks the CPU platform's branch against the releases themselves)."""

from __future__ import annotations

import json

import pytest

from kvguard.cli import run

SLEEP = "Sleep mode is not supported on current platform."
CUMEM = "cumem allocator is not supported on current platform."


@pytest.fixture
def check(capsys):
    def go(version: str, *args: str, host: tuple[str, ...] = (), env: tuple[str, ...] = ()) -> dict:
        run(["check", "--vllm-version", version, "--format", "json", *host, "--", *env, "vllm", "serve",
             "Qwen/Qwen3-8B", *args])
        return json.loads(capsys.readouterr().out)
    return go


def _answer(data: dict) -> tuple:
    return (data["ok"], data["exc_type"], data["message"], data["wrapped_by"], data["check"])


@pytest.mark.parametrize(("version", "platform", "refused"), [
    ("0.10.2", "cuda", False), ("0.10.2", "rocm", True), ("0.11.0", "rocm", True), ("0.10.2", "tpu", True),
    ("0.11.1", "rocm", False), ("0.22.1", "xpu", True), ("0.23.0", "xpu", False), ("0.33.0", "xpu", False),
    ("0.33.0", "cpu", True), ("0.17.1", "cpu", True),
])
def test_sleep_mode_by_platform(check, version, platform, refused):
    data = check(version, "--enable-sleep-mode", host=("--platform", platform))
    want = (False, "ValueError", SLEEP, "ModelConfig", "MC_sleep_mode_platform") if refused else \
        (True, None, None, None, None)
    assert _answer(data) == want


def test_sleep_mode_on_the_assumed_cuda_node_lists_the_assumption(check):
    data = check("0.24.0", "--enable-sleep-mode")
    assert data["ok"] and "platform='cuda'" in data["assumptions"]


def test_sleep_mode_on_an_unknown_host_is_skipped(check):
    data = check("0.24.0", "--enable-sleep-mode", host=("--unknown-host",))
    assert data["ok"]
    assert {"MC_sleep_mode_platform", "MC_cumem_platform"} <= {s["check"] for s in data["skipped"]}


def test_sleep_mode_on_tpu_from_0_11_1_is_tpu_inference_s(check):
    data = check("0.24.0", "--enable-sleep-mode", host=("--platform", "tpu"))
    assert data["ok"] and [s["check"] for s in data["skipped"] if s["check"].startswith("MC_")] == [
        "MC_sleep_mode_platform", "MC_cumem_platform"]


@pytest.mark.parametrize(("version", "args", "platform", "refused"), [
    ("0.22.0", ("--enable-cumem-allocator",), "cuda", False),
    ("0.22.0", ("--enable-cumem-allocator",), "rocm", False),
    ("0.22.0", ("--enable-cumem-allocator",), "cpu", True),
    ("0.33.0", ("--enable-cumem-allocator",), "xpu", True),
    ("0.33.0", ("--enable-sleep-mode",), "xpu", False),      # 0.23.0+: sleep mode turns the allocator on for CUDA / ROCm only
    ("0.33.0", ("--enable-sleep-mode", "--enable-cumem-allocator"), "xpu", True),
    ("0.33.0", ("--disable-cumem-allocator",), "cpu", False),
])
def test_cumem_allocator_by_platform(check, version, args, platform, refused):
    data = check(version, *args, host=("--platform", platform))
    want = (False, "ValueError", CUMEM, "ModelConfig", "MC_cumem_platform") if refused else \
        (True, None, None, None, None)
    assert _answer(data) == want


def test_sleep_mode_comes_before_the_config_format(check):
    data = check("0.24.0", "--config-format", "x", "--enable-sleep-mode", host=("--platform", "cpu"))
    assert data["message"] == SLEEP


@pytest.mark.parametrize(("args", "platform", "env", "want"), [
    (("--device-ids", "0,0"), "cuda", (), "--device-ids must not contain duplicates: [0, 0]"),
    (("--device-ids", "1, 01"), "cuda", (), "--device-ids must not contain duplicates: [1, 1]"),
    (("--device-ids", ","), "cuda", (), "--device-ids must not contain duplicates: ['', '']"),
    (("--device-ids", "0,GPU-1"), "cuda", (), "--device-ids must not mix integer IDs and UUIDs"),
    (("--device-ids=-1,2",), "cuda", (), "--device-ids must not mix integer IDs and UUIDs"),
    (("--device-ids", "GPU-1"), "rocm", (), "Non-integer device ID 'GPU-1' is not supported by rocm."),
    (("--device-ids=-1,x",), "xpu", (), "Non-integer device ID 'x' is not supported by xpu."),
    (("--device-ids", "0,3"), "cuda", ("CUDA_VISIBLE_DEVICES=4,5",),
     "--device-ids index 3 is out of range for CUDA_VISIBLE_DEVICES=4,5 (2 devices visible)"),
    (("--device-ids", "0"), "cpu", ("CPU_VISIBLE_MEMORY_NODES=x",), "Non-integer device ID 'x' is not supported by cpu."),
])
def test_device_ids_refused(check, args, platform, env, want):
    data = check("0.24.0", *args, host=("--platform", platform), env=env)
    assert (data["ok"], data["exc_type"], data["message"], data["wrapped_by"], data["stage"]) == (
        False, "ValueError", want, None, "engine_args")


@pytest.mark.parametrize(("args", "env"), [
    (("--device-ids", "-1"), ()),                              # a string int() takes: accepted
    (("--device-ids", "2,3,5,7"), ()),
    (("--device-ids", "0,1"), ("CUDA_VISIBLE_DEVICES=4,5",)),
])
def test_device_ids_accepted(check, args, env):
    assert check("0.33.0", *args, env=env)["ok"]


@pytest.mark.parametrize(("args", "env", "listed"), [
    # integer ids index the devices CUDA_VISIBLE_DEVICES lists when it is set: its absence decided the answer
    (("--device-ids", "0,1"), (), True),
    (("--device-ids", "7"), (), True),
    (("--device-ids", "0,1"), ("CUDA_VISIBLE_DEVICES=4,5",), False),
    (("--device-ids", "0"), ("CUDA_VISIBLE_DEVICES=",), False),     # set, empty: no index range, but not unset
    (("--device-ids", "GPU-1a2b"), (), False),                    # UUIDs never read it
    (("--device-ids", "0,0"), (), False),                         # refused before it is read
    ((), (), False),
])
def test_cuda_visible_devices_unset_is_listed_where_it_decided(check, args, env, listed):
    data = check("0.33.0", *args, env=env)
    assert ("CUDA_VISIBLE_DEVICES unset" in data.get("assumptions", ())) is listed


def test_a_device_uuid_on_cuda_is_the_host_s(check):
    data = check("0.33.0", "--device-ids", "GPU-1a2b")
    assert data["ok"] and "EA_device_ids_not_int" in {s["check"] for s in data["skipped"]}


@pytest.mark.parametrize(("version", "args", "env", "skipped"), [
    ("0.33.0", ("--logging-config.pylogging_config_file", "/srv/log.json"), (), True),
    ("0.31.0", ("--logging-config", '{"pylogging_config_file": "/srv/log.json"}'), (), True),
    ("0.33.0", ("--logging-config.log_level", "DEBUG"), (), False),
    ("0.33.0", (), ("VLLM_LOGGING_CONFIG_PATH=/srv/log.json",), True),
    ("0.20.0", (), ("VLLM_LOGGING_CONFIG_PATH=/srv/log.json",), True),
    ("0.20.0", (), ("VLLM_LOGGING_CONFIG_PATH=",), False),
    # --log-config-file names the file instead (FE_log_config_file's skip)
    ("0.33.0", ("--log-config-file", "/srv/a.json"), ("VLLM_LOGGING_CONFIG_PATH=/srv/log.json",), False),
])
def test_a_logging_config_file_is_the_host_s(check, version, args, env, skipped):
    data = check(version, *args, env=env)
    assert data["ok"]
    assert ("FE_logging_config_file" in {s["check"] for s in data["skipped"]}) is skipped


LOGGING_OFF_ENV = ("VLLM_CONFIGURE_LOGGING evaluated to false, but VLLM_LOGGING_CONFIG_PATH was given. "
                   "VLLM_LOGGING_CONFIG_PATH implies VLLM_CONFIGURE_LOGGING. Please enable VLLM_CONFIGURE_LOGGING or "
                   "unset VLLM_LOGGING_CONFIG_PATH.")
LOGGING_OFF = ("Logging configuration is disabled, but a Python logging config file was given. pylogging_config_file "
               "requires configure_logging to be enabled.")
_OFF = ("VLLM_CONFIGURE_LOGGING=0", "VLLM_LOGGING_CONFIG_PATH=/srv/log.json")


@pytest.mark.parametrize(("version", "args", "env", "want"), [
    ("0.10.2", (), _OFF, LOGGING_OFF_ENV),
    ("0.30.0", ("-tp", "3"), ("VLLM_CONFIGURE_LOGGING=-0", "VLLM_LOGGING_CONFIG_PATH=/srv/log.json"), LOGGING_OFF_ENV),
    # to 0.30.0 vLLM refuses while it is imported, before its parser sees an option it lacks
    ("0.24.0", ("--no-such-option",), _OFF, LOGGING_OFF_ENV),
    ("0.31.0", (), _OFF, LOGGING_OFF),
    ("0.33.0", ("--enable-sleep-mode",), _OFF, LOGGING_OFF),
    ("0.33.0", ("--logging-config.configure_logging", "false", "--logging-config.pylogging_config_file", "/a.json"),
     (), LOGGING_OFF),
    ("0.33.0", ("--logging-config", '{"configure_logging": "off"}', "--log-config-file", "/a.json"), (), LOGGING_OFF),
    ("0.33.0", ("--logging-config", '{"configure_logging": 0}'), ("VLLM_LOGGING_CONFIG_PATH=/srv/log.json",),
     LOGGING_OFF),
])
def test_a_logging_file_with_logging_off_is_refused(check, version, args, env, want):
    assert _answer(check(version, *args, env=env)) == (False, "RuntimeError", want, None, "FE_logging_disabled")


@pytest.mark.parametrize(("version", "args", "env"), [
    ("0.20.0", (), ("VLLM_CONFIGURE_LOGGING=0",)),
    ("0.20.0", (), ("VLLM_CONFIGURE_LOGGING=0", "VLLM_LOGGING_CONFIG_PATH=")),
    # null replaces the variable's default: no file at all
    ("0.33.0", ("--logging-config", '{"pylogging_config_file": null}'), _OFF),
    ("0.31.0", ("--log-config-file", ""), _OFF),
    # --logging-config's configure_logging outranks the variable (then the file is the host's: skipped)
    ("0.33.0", ("--logging-config.configure_logging", "yes"), _OFF),
    # from 0.31.0 the parser runs first
    ("0.33.0", ("--no-such-option",), _OFF),
])
def test_logging_off_without_a_file_or_overridden(check, version, args, env):
    data = check(version, *args, env=env)
    assert data["check"] != "FE_logging_disabled"


def _launch(capsys, version: str, model: str, *env: str) -> tuple[int, dict]:
    status = run(["check", "--vllm-version", version, "--format", "json", "--", *env, "vllm", "serve", model])
    out = capsys.readouterr().out
    return status, json.loads(out) if out.strip() else {}


@pytest.mark.parametrize(("version", "model"), [
    ("0.24.0", "no-org/no-such-model"),     # kvguard cannot find the model: vLLM refuses before it looks
    ("0.10.2", "no-org/no-such-model"),
    ("0.13.0", "moonshotai/Kimi-K2.5"),     # ModelConfig would refuse it (its own code): the import comes first
    ("0.30.0", "moonshotai/Kimi-K2.5"),
])
def test_to_0_30_the_import_time_refusal_comes_before_the_model(capsys, version, model):
    status, data = _launch(capsys, version, model, *_OFF)
    assert status == 1 and _answer(data) == (False, "RuntimeError", LOGGING_OFF_ENV, None, "FE_logging_disabled")


def test_without_the_logging_file_the_model_is_read(capsys):
    status, data = _launch(capsys, "0.13.0", "moonshotai/Kimi-K2.5", "VLLM_CONFIGURE_LOGGING=0")
    assert status == 1 and (data["check"], data["wrapped_by"]) == ("model_config", "ModelConfig")


def test_the_library_check_refuses_at_import_before_a_config_refusal():
    import kvguard

    config = {e.id: e.config for e in kvguard.catalog.entries()}["moonshotai/Kimi-K2.5"]
    env = dict(item.split("=", 1) for item in _OFF)
    verdict = kvguard.check(config, vllm_version="0.13.0", env=env)
    assert (verdict.check, verdict.exc_type, verdict.message) == ("FE_logging_disabled", "RuntimeError",
                                                                  LOGGING_OFF_ENV)
    assert kvguard.check(config, vllm_version="0.13.0").check == "model_config"


@pytest.mark.parametrize(("version", "want"), [("0.24.0", LOGGING_OFF_ENV), ("0.31.0", LOGGING_OFF),
                                               ("0.33.0", LOGGING_OFF)])
def test_the_logging_refusal_comes_before_the_model_registry(version, want):
    # 0.31.0+: LoggingConfig is applied right after the parser, before ModelConfig looks the architecture up
    import kvguard

    config = dict({e.id: e.config for e in kvguard.catalog.entries()}["Qwen/Qwen3-8B"],
                  architectures=["NoSuchModelForCausalLM"])
    env = dict(item.split("=", 1) for item in _OFF)
    verdict = kvguard.check(config, vllm_version=version, env=env)
    assert (verdict.check, verdict.exc_type, verdict.message) == ("FE_logging_disabled", "RuntimeError", want)
    assert kvguard.check(config, vllm_version=version, env={"VLLM_CONFIGURE_LOGGING": "0"}).check != \
        "FE_logging_disabled"


@pytest.mark.parametrize("version", ["0.10.2", "0.24.0", "0.30.0", "0.33.0"])
def test_configure_logging_unset_is_an_assumption_when_only_the_variable_names_the_file(capsys, version):
    status, data = _launch(capsys, version, "Qwen/Qwen3-8B", "VLLM_LOGGING_CONFIG_PATH=/srv/log.json")
    assert status == 0 and data["ok"]
    assumed = {a["name"]: a for a in data.get("env_assumptions", [])}
    assert assumed["VLLM_CONFIGURE_LOGGING"]["value"] == "0"
    assert assumed["VLLM_CONFIGURE_LOGGING"]["verdict"]["check"] == "FE_logging_disabled"
    # no file named: the variable decides nothing
    status, data = _launch(capsys, version, "Qwen/Qwen3-8B")
    assert "VLLM_CONFIGURE_LOGGING" not in {a["name"] for a in data.get("env_assumptions", [])}


def test_a_null_logging_file_does_not_fall_back_to_the_variable(check):
    data = check("0.33.0", "--logging-config", '{"pylogging_config_file": null}',
                 env=("VLLM_LOGGING_CONFIG_PATH=/srv/log.json",))
    assert data["ok"] and "FE_logging_config_file" not in {s["check"] for s in data["skipped"]}


@pytest.mark.parametrize("version", ["0.20.0", "0.33.0"])
def test_a_configure_logging_variable_that_is_no_integer_is_undecidable(capsys, version):
    status = run(["check", "--vllm-version", version, "--format", "json", "--", "VLLM_CONFIGURE_LOGGING=false",
                  "vllm", "serve", "Qwen/Qwen3-8B"])
    out = capsys.readouterr()
    assert status != 0 and "VLLM_CONFIGURE_LOGGING='false' is no integer" in out.out + out.err


@pytest.mark.parametrize(("version", "backend", "platform", "want"), [
    ("0.33.0", "flashkda", "cuda", None),
    ("0.33.0", "flashkda", "rocm", "--kda-prefill-backend=flashkda is only available on CUDA."),
    ("0.30.0", "fused", "cuda", "--kda-prefill-backend=fused is only available on ROCm."),
    ("0.30.0", "fused", "rocm", None),
    ("0.33.0", "triton", "cpu", None),
    ("0.29.0", "flashkda", "cpu", None),        # the platform check arrives in 0.30.0
])
def test_kda_prefill_kernel_by_platform(check, version, backend, platform, want):
    data = check(version, "--kda-prefill-backend", backend, host=("--platform", platform))
    if want is None:
        assert data["ok"]
    else:
        assert (data["ok"], data["exc_type"], data["message"], data["wrapped_by"], data["check"]) == (
            False, "ValueError", want, None, "EA_kda_prefill_platform")
