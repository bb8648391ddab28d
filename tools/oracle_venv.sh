#!/usr/bin/env bash
# A CPU-only python in which a vLLM release's own config code runs: the
# differential tier's oracle (tests/upstream).  No GPU, no CUDA build of torch.
#
# usage: tools/oracle_venv.sh VERSION [ROOT]      -> prints ROOT/VERSION/bin/python
#   ROOT defaults to $KVG_ORACLE_ROOT or ~/.cache/kvguard-oracle.
#
# Built on tools/oracle_env.py (seconds per release once the release's base env
# exists): ROOT/VERSION/bin/python is a launcher that runs the shared base env of
# the release's transformers line with the release (and its overlay) on
# PYTHONPATH.  KVG_ORACLE_FULL_VENV=1 builds the former full venv per release
# instead (a few minutes and ~2 GB each): the release installed with --no-deps
# next to CPU torch, the transformers line kvguard models for that release
# (newest 4.x where the release accepts 4.x, else the newest 5.x it accepts),
# and the handful of modules its config code imports.
set -euo pipefail
V=${1:?usage: oracle_venv.sh VERSION [ROOT]}
ROOT=${2:-${KVG_ORACLE_ROOT:-$HOME/.cache/kvguard-oracle}}
VENV=$ROOT/$V
PY=${PYTHON:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -x "$VENV/bin/python" ] && [ -f "$VENV/.kvguard-oracle-ok" ] && [ ! -f "$VENV/.kvguard-launcher" ]; then
  echo "$VENV/bin/python"; exit 0
fi
if [ "${KVG_ORACLE_FULL_VENV:-0}" != 1 ]; then
  # idempotent: also brings the release's overlay up to date if its base changed
  line=$("$PY" "$HERE/oracle_env.py" ensure "$V" --root "$ROOT")
  read -r _ BASEPY PP <<<"$line"
  [ -f "$VENV/.kvguard-launcher" ] || rm -rf "$VENV"   # an unfinished full venv
  mkdir -p "$VENV/bin"
  cat >"$VENV/bin/python.tmp" <<EOF
#!/bin/sh
# written by tools/oracle_venv.sh: vLLM $V on its shared base env (tools/oracle_env.py)
PYTHONPATH='$PP'
export PYTHONPATH
exec '$BASEPY' "\$@"
EOF
  chmod +x "$VENV/bin/python.tmp"
  mv "$VENV/bin/python.tmp" "$VENV/bin/python"
  touch "$VENV/.kvguard-launcher" "$VENV/.kvguard-oracle-ok"
  echo "$VENV/bin/python"
  exit 0
fi
mkdir -p "$ROOT"
rm -rf "$VENV"
"$PY" -m venv "$VENV"
PIP=("$VENV/bin/python" -m pip install -q --disable-pip-version-check)
log=$VENV/.build.log
{
  "${PIP[@]}" torch==2.13.0 packaging
  "${PIP[@]}" --no-deps "vllm==$V"
  TF=$("$VENV/bin/python" - <<'PY'
from importlib.metadata import requires
from packaging.requirements import Requirement
from packaging.version import Version
req = next(Requirement(r.split(";")[0]) for r in requires("vllm") if r.startswith("transformers"))
print("transformers>=4.56,<5" if req.specifier.contains(Version("4.57.6")) else f"transformers{req.specifier}")
PY
)
  "${PIP[@]}" "$TF" huggingface_hub "pydantic>=2.12" regex cachetools psutil numpy requests tqdm blake3 \
      py-cpuinfo safetensors tokenizers msgspec pyyaml cloudpickle pyzmq filelock typing_extensions einops \
      pybase64 cbor2 sentencepiece aiohttp openai openai-harmony pillow uvloop prometheus_client fastapi \
      partial-json-parser loguru
  CT=$("$VENV/bin/python" -c "from importlib.metadata import requires; print(next((r.split(';')[0] for r in requires('vllm') if r.startswith('compressed-tensors')), ''))")
  if [ -n "$CT" ]; then "${PIP[@]}" --no-deps "$CT" frozendict gguf || true; fi
} >"$log" 2>&1 || { tail -20 "$log" >&2; exit 1; }
# import probe: add modules the config code needs until ModelConfig/ParallelConfig import
for _ in $(seq 1 12); do
  out=$("$VENV/bin/python" -c "from vllm.config import ModelConfig, ParallelConfig; ParallelConfig(tensor_parallel_size=2); print('KVG_ORACLE_OK')" 2>&1 || true)
  if grep -q KVG_ORACLE_OK <<<"$out"; then touch "$VENV/.kvguard-oracle-ok"; echo "$VENV/bin/python"; exit 0; fi
  mod=$(grep -o "No module named '[^']*'" <<<"$out" | head -1 | sed "s/No module named '//;s/'//;s/\..*//")
  if [ -z "$mod" ]; then echo "$out" | tail -5 >&2; exit 1; fi
  case $mod in PIL) mod=pillow;; cv2) mod=opencv-python-headless;; zmq) mod=pyzmq;; yaml) mod=pyyaml;; esac
  "${PIP[@]}" "$mod" >>"$log" 2>&1 || true
done
echo "oracle venv for vLLM $V did not become importable; see $log" >&2
exit 1
