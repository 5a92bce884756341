#!/usr/bin/env bash
# eval-semantic: the measurements behind the builtin static embedder (issue
# 13), reproducible on a machine that reaches the Python package index.
# Not part of make test: it needs Python, a network for the first install
# and several minutes of CPU.
#
#   1. verify the packaged all-MiniLM-L6-v2 against published figures and a
#      NumPy BERT written from scratch;
#   2. re-run the conversion and check it reproduces the compiled-in table;
#   3. the anchor: the original Python asky (asky-cli) on the eval set;
#   4. the provider path: a local OpenAI-compatible /v1/embeddings server
#      over the real model, asky's corpus built through it, recall@5;
#   5. the embedded default (make eval).
#
# Environment: VENV (default ~/.cache/asky/venv-semantic), EVAL_DIR,
# SKIP_ANCHOR=1 to skip step 3 (about 15 minutes on 2 cores).
set -euo pipefail
PORT=${PORT:-18099}
. "$(dirname "$0")/common.sh"

echo "== 1. the packaged model is all-MiniLM-L6-v2"
"$py" "$here/verify.py" --model "$model" 2>&1 | grep -v '^Loading\|it/s'

echo "== 2. the conversion reproduces the compiled-in table"
"$py" "$here/convert.py" --model "$model" --out "$work/static" --golden "$work/golden.json" 2>&1 | grep -v '^Loading\|it/s\|tokens '
"$py" "$here/compare.py" "$here/../data" "$work/static" || true

if [ "${SKIP_ANCHOR:-}" != 1 ]; then
  echo "== 3. the anchor: the original asky (asky-cli) with its in-process MiniLM"
  mkdir -p "$work/pyhome"
  HOME="$work/pyhome" "$py" "$here/anchor.py" --eval-dir "$EVAL_DIR" --model "$model" 2>&1 | grep '^original asky'
  s=$(date +%s%N); HOME="$work/pyhome" "$VENV/bin/asky" --help >/dev/null 2>&1; e=$(date +%s%N)
  echo "original asky --help: $(( (e - s) / 1000000 )) ms"
fi

echo "== 4. the provider path: asky through a local /v1/embeddings server over the real model"
start_server
h="$work/asky-provider"; mkdir -p "$h"
printf '[research.embedding]\nprovider = "openai"\nmodel = "all-minilm-l6-v2"\nbase_url = "http://127.0.0.1:%s/v1"\n[research.deep]\nprovider = "off"\n' "$PORT" > "$h/config.toml"
s=$(date +%s)
ASKY_HOME="$h" "$root/bin/asky" corpus ingest "$EVAL_DIR/corpus/go-docs" "$EVAL_DIR/corpus/licenses" >/dev/null
echo "ingest through the server: $(( $(date +%s) - s )) s"
for c in go-docs licenses; do
  ASKY_HOME="$h" "$root/bin/asky" corpus eval --source "$EVAL_DIR/corpus/$c" "$EVAL_DIR/queries-$c.jsonl" | grep recall@ | sed 's/^/provider all-MiniLM-L6-v2: /'
done
kill "$server"; server=""

echo "== 5. the embedded default"
make -s -C "$root" eval EVAL_DIR="$EVAL_DIR" | grep -v '^  miss'
