"""`vllm serve` command lines as a release's parser reads the flags kvguard models."""

from __future__ import annotations

import pytest
from packaging.version import Version

import kvguard
from kvguard.errors import InputError
from kvguard.launch.argv import FLAGS, parse_serve
from kvguard.versions import Release


def R(v):
    return Release(Version(v))


@pytest.mark.parametrize("argv", [
    "vllm serve M -tp 8 -dcp 2",
    "vllm serve M --tensor-parallel-size 8 --decode-context-parallel-size 2",
    "vllm serve M --tensor-parallel-size=8 --decode-context-parallel-size=2",
    "vllm serve M --tensor_parallel_size 8 --decode_context_parallel_size=2",
    "vllm serve --model M -tp 8 -dcp 2",
    "python -m vllm.entrypoints.openai.api_server --model M -tp 8 -dcp 2",
    "/usr/local/bin/vllm serve M -tp 4 -tp 8 -dcp 2",
    "--model M -tp 8 -dcp 2",
])
def test_spellings(argv):
    cmd = parse_serve(argv, R("0.28.0"))
    assert cmd.model == "M"
    assert cmd.fields["tensor_parallel_size"] == 8
    assert cmd.fields["decode_context_parallel_size"] == 2


def test_env_assignments_and_unknown_flags():
    cmd = parse_serve("VLLM_MLA_DISABLE=1 HF_HOME=/x vllm serve M --max-model-len 4096 --disable-fastapi-docs "
                      "--compilation-config '{\"mode\": 3}' -tp 2", R("0.28.0"))
    assert cmd.env == {"VLLM_MLA_DISABLE": "1", "HF_HOME": "/x"}
    assert cmd.fields == {"tensor_parallel_size": 2, "max_model_len": 4096}
    assert "--disable-fastapi-docs" in cmd.passed_over


def test_boolean_optional_forms():
    assert parse_serve("vllm serve M --enable-expert-parallel", R("0.20.0")).fields == {"enable_expert_parallel": True}
    assert parse_serve("vllm serve M --no-enable-expert-parallel",
                       R("0.20.0")).fields == {"enable_expert_parallel": False}


@pytest.mark.parametrize("alias, release, ok", [
    ("-pcp 2", "0.11.2", False), ("-pcp 2", "0.12.0", True),
    ("-ep", "0.13.0", False), ("-ep", "0.14.0", True), ("-ep", "0.20.0", True),
    ("--dcp-comm-backend a2a", "0.17.1", False), ("--dcp-comm-backend a2a", "0.18.0", True),
])
def test_aliases_exist_only_in_their_releases(alias, release, ok):
    argv = f"vllm serve M {alias}"
    if ok:
        parse_serve(argv, R(release))
    else:
        with pytest.raises(InputError, match="unrecognized arguments"):
            parse_serve(argv, R(release))


def test_unterminated_quote_is_input_error():
    with pytest.raises(InputError):
        parse_serve("vllm serve M --x 'oops", R("0.28.0"))


# --- argparse as vLLM runs it (FlexibleArgumentParser; allow_abbrev is never turned off) ------------


def test_unambiguous_prefixes_are_the_flag():
    assert parse_serve("vllm serve M --tensor-par 8 --decode-context 2", R("0.28.0")).fields == \
        {"tensor_parallel_size": 8, "decode_context_parallel_size": 2}
    assert parse_serve("vllm serve M --tensor_par=4", R("0.20.0")).fields == {"tensor_parallel_size": 4}
    # a single-dash prefix of one option: -dc is -dcp in 0.20.0, but -dc is --diffusion-config in 0.28.0
    assert parse_serve("vllm serve M -dc 2", R("0.20.0")).fields == {"decode_context_parallel_size": 2}
    assert parse_serve("vllm serve M -dc '{}'", R("0.28.0")).fields == {}


@pytest.mark.parametrize("argv", ["vllm serve M --data-parallel 2", "vllm serve M -d 2"])
def test_ambiguous_prefix_is_an_error(argv):
    with pytest.raises(InputError, match="ambiguous option"):
        parse_serve(argv, R("0.28.0"))


def test_attached_value_of_one_letter_option():
    assert parse_serve("vllm serve M -n2 -r1", R("0.28.0")).fields == {"nnodes": 2, "node_rank": 1}


@pytest.mark.parametrize("argv", [
    "vllm serve M --no-such-option 3",          # vLLM does not know it
    "vllm serve M N -tp 2",                      # a second positional
    "vllm serve M -tp",                          # expected one argument
    "vllm serve M -tp x",                        # invalid int value
    "vllm serve M --enable-expert-parallel=1",   # ignored explicit argument
    "vllm serve M --help",
])
def test_argparse_errors(argv):
    with pytest.raises(InputError):
        parse_serve(argv, R("0.28.0"))


@pytest.mark.parametrize("argv, message", [
    ("vllm serve M --no-such-option 3", "vllm: error: unrecognized arguments: --no-such-option 3"),
    ("vllm serve M N -tp 2 --foo", "vllm: error: unrecognized arguments: N --foo"),   # in command-line order
    ("vllm serve M -tp", "vllm serve: error: argument --tensor-parallel-size/-tp: expected one argument"),
    ("vllm serve M -tp x -dcp", "vllm serve: error: argument --tensor-parallel-size/-tp: invalid int value: 'x'"),
    ("vllm serve M --enable-expert-parallel=1", "vllm serve: error: argument --enable-expert-parallel/"
                                                  "--no-enable-expert-parallel/-ep: ignored explicit argument '1'"),
    ("python -m vllm.entrypoints.openai.api_server --model M -tp x",
     "api_server.py: error: argument --tensor-parallel-size/-tp: invalid int value: 'x'"),
    ("vllm serve M --he", "vllm serve: error: ambiguous option: --he could match --help, --headless"),
])
def test_argparse_refusals_carry_the_message_vllm_prints(argv, message):
    from kvguard.errors import ArgparseRefusal

    with pytest.raises(ArgparseRefusal) as info:
        parse_serve(argv, R("0.28.0"))
    assert (info.value.exc_type, info.value.message, info.value.check) == ("SystemExit", message, "argparse")
    assert isinstance(info.value, InputError)


def test_help_is_no_refusal():
    from kvguard.errors import ArgparseRefusal

    with pytest.raises(InputError) as info:
        parse_serve("vllm serve M --help", R("0.28.0"))
    assert not isinstance(info.value, ArgparseRefusal)


def test_unmodeled_flags_take_their_own_arity():
    # --disable-fastapi-docs takes no value: M is the model, not its value
    cmd = parse_serve("vllm serve --disable-fastapi-docs M --max-num-seqs 64 --seed 3 -tp 2", R("0.28.0"))
    assert cmd.model == "M" and cmd.fields == {"tensor_parallel_size": 2, "max_num_seqs": 64}
    assert cmd.passed_over == ["--disable-fastapi-docs", "--seed", "3"]


def test_model_option_with_vllm_serve():
    with pytest.raises(InputError, match="--model"):
        parse_serve("vllm serve --model M -tp 2", R("0.10.2"))   # a ValueError before 0.11.1
    assert parse_serve("vllm serve -tp 2 --model M", R("0.20.0")).model == "M"
    assert parse_serve("python -m vllm.entrypoints.openai.api_server --model M -tp 2", R("0.10.2")).model == "M"


def test_served_model_name_needs_positional_model_from_0_17():
    argv = "vllm serve --served-model-name x --model M -tp 2"
    assert parse_serve(argv, R("0.16.0")).model == "M"
    with pytest.raises(InputError, match="positional"):
        parse_serve(argv.replace("--model M", "-tp 1"), R("0.17.0"))


def test_dotted_json_and_optimization_arguments_are_skipped():
    for v in ("0.10.2", "0.11.1", "0.12.0", "0.28.0", "0.33.0"):
        cmd = parse_serve("vllm serve M -O3 --compilation-config.mode 0 -tp 2 -O 3", R(v))
        assert cmd.fields == {"tensor_parallel_size": 2}, v
    cmd = parse_serve("vllm serve M -cc.cudagraph_mode=NONE -cc.pass_config.fuse_norm_quant true -tp 2", R("0.28.0"))
    assert cmd.fields == {"tensor_parallel_size": 2}


def test_boolean_forms_per_release():
    assert parse_serve("vllm serve M --no-enable-eplb", R("0.20.0")).fields == {"enable_eplb": False}
    assert parse_serve("vllm serve M --disable-expert-parallel", R("0.33.0")).fields == \
        {"enable_expert_parallel": False}
    with pytest.raises(InputError):
        parse_serve("vllm serve M --disable-expert-parallel", R("0.28.0"))


def test_config_file_precedence(tmp_path):
    pytest.importorskip("yaml")
    cfg = tmp_path / "c.yaml"
    cfg.write_text("tensor-parallel-size: 4\npipeline_parallel_size: 2\nenable-expert-parallel: false\n")
    cmd = parse_serve(f"vllm serve M --config {cfg} -tp 8", R("0.28.0"))
    assert cmd.fields == {"tensor_parallel_size": 8, "pipeline_parallel_size": 2}
    # `key: false` becomes --no-key from 0.28.0, but only where the parser parse_args runs on has it:
    # api_server's does, `vllm serve`'s top-level parser does not (the file's false is dropped)
    api = "python -m vllm.entrypoints.openai.api_server --model M --config"
    assert parse_serve(f"{api} {cfg}", R("0.28.0")).fields == \
        {"tensor_parallel_size": 4, "pipeline_parallel_size": 2, "enable_expert_parallel": False}
    assert parse_serve(f"{api} {cfg}", R("0.20.0")).fields == {"tensor_parallel_size": 4, "pipeline_parallel_size": 2}
    # --config=FILE is not the "--config" token FlexibleArgumentParser looks for: the file is ignored
    assert parse_serve(f"vllm serve M --config={cfg} -tp 2", R("0.28.0")).fields == {"tensor_parallel_size": 2}
    model_cfg = tmp_path / "m.yaml"
    model_cfg.write_text("model: MM\ntensor-parallel-size: 2\n")
    assert parse_serve(f"vllm serve --config {model_cfg}", R("0.28.0")).model == "MM"
    with pytest.raises(InputError, match="yaml"):
        parse_serve(f"vllm serve M --config {tmp_path / 'c.json'}", R("0.28.0"))


def test_flag_table_matches_generated_option_table():
    """FLAGS' release ranges agree with the option table generated from the real parsers."""
    from kvguard.launch.argv import option_table
    from kvguard.versions import SUPPORTED_VERSIONS, resolve

    for version in SUPPORTED_VERSIONS:
        release = resolve(version)
        table = option_table(release)
        for flag in FLAGS:
            assert (flag.names[0] in table) == release.within(flag.since, flag.until), (version, flag.names[0])
            assert table[flag.names[0]].dest == flag.field if flag.names[0] in table else True
            for alias in flag.names[1:]:
                want = release.within(flag.alias_since or flag.since, flag.until)
                assert (alias in table) == want, (version, alias)


@pytest.mark.parametrize("argv,bad", [
    (["--port", "abc"], True),                 # int option kvguard passes over: argparse refuses it
    (["--port", "$PORT"], False),              # unexpanded shell text is not what vLLM sees
    (["--port", "<PORT>"], False),             # a documentation placeholder
    (["--logprobs-mode", "bogus"], True),      # str option with choices
    (["--logprobs-mode", "raw_logits"], False),
])
def test_values_of_passed_over_options_are_type_checked(argv, bad):
    from kvguard.launch.argv import parse_serve
    from kvguard.versions import resolve

    command = ["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "2", *argv]
    if bad:
        with pytest.raises(InputError, match=argv[0]):
            parse_serve(command, resolve("0.28.0"))
    else:
        assert parse_serve(command, resolve("0.28.0")).fields == {"tensor_parallel_size": 2}


# --- where options are set on a command line (what kvguard.suggest edits) ----------------------


def test_launcher_and_arguments_split_the_launcher_words_from_the_server_arguments():
    from kvguard.launch.argv import launcher_and_arguments, split_command

    tokens = split_command("VLLM_MLA_DISABLE=1 vllm serve M -tp 8")
    assert launcher_and_arguments(tokens) == (["VLLM_MLA_DISABLE=1", "vllm", "serve"], ["M", "-tp", "8"])
    api = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "M"]
    assert launcher_and_arguments(api) == (api[:3], ["--model", "M"])
    assert launcher_and_arguments(["M", "-tp", "8"]) == ([], ["M", "-tp", "8"])


def test_option_spans_name_each_option_with_its_values():
    from kvguard.launch.argv import option_spans

    args = ["M", "--tensor_parallel_size=8", "-dcp", "2", "-cc.mode", "-tp", "--qu", "--enforce-eager",
            "-dcp", "4", "--", "-tp", "2"]
    spans, stop = option_spans(args, R("0.28.0"))
    assert stop == 10
    assert spans == {
        "tensor_parallel_size": [(1, 2, "--tensor-parallel-size")],    # `-tp` after -cc.mode is its value
        "decode_context_parallel_size": [(2, 4, "-dcp"), (8, 10, "-dcp")],
        "enforce_eager": [(7, 8, "--enforce-eager")],                  # the ambiguous `--qu` is passed over
    }


def test_a_plugin_option_is_undecidable_not_a_refusal():
    # vllm-omni adds --omni to `vllm serve`: plain vLLM refuses it, the plugin serves it, and kvguard cannot
    # tell which is installed
    from kvguard.cli import run

    with pytest.raises(kvguard.Undecidable, match=r"^--omni is an option of the vllm-omni plugin, which kvguard "
                                                  r"does not model \(plain vLLM refuses it as an unrecognized "
                                                  r"argument\)$"):
        kvguard.examine("0.33.0", ["vllm", "serve", "Qwen/Qwen3-32B", "--omni", "-tp", "2"])
    assert run(["check", "--vllm-version", "0.33.0", "--", "vllm", "serve", "Qwen/Qwen3-32B", "--omni"]) == 2
    # an option no plugin is known for stays vLLM's refusal
    assert run(["check", "--vllm-version", "0.33.0", "--", "vllm", "serve", "Qwen/Qwen3-32B", "--omnix"]) == 1


def test_dtype_is_read():
    from kvguard.launch.argv import parse_serve
    from kvguard.versions import resolve

    assert parse_serve(["vllm", "serve", "m", "--dtype", "half"], resolve("0.28.0")).fields == {"dtype": "half"}


@pytest.mark.parametrize("version,message", [
    # to 0.11.0 a %-template and the extension are the ValueError's two arguments (the argv differential's c256)
    ("0.10.2", "('Config file must be of a yaml/yml type.                              %s supplied', '1')"),
    ("0.11.0", "('Config file must be of a yaml/yml type.                              %s supplied', 'json')"),
    ("0.11.1", "Config file must be of a yaml/yml type. 1 supplied"),
    ("0.33.0", "Config file must be of a yaml/yml type. json supplied"),
])
def test_a_config_file_that_is_not_yaml(version, message):
    from kvguard.errors import ArgparseRefusal
    from kvguard.versions import resolve

    path = "127.0.0.1" if message.endswith(("'1')", " 1 supplied")) else "c.json"
    with pytest.raises(ArgparseRefusal) as info:
        parse_serve(f"vllm serve M --config {path}", resolve(version))
    assert (info.value.exc_type, info.value.message) == ("ValueError", message)
