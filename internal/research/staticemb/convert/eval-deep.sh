#!/usr/bin/env bash
# eval-deep: the measurement behind the deep tier's fusion ([research.deep],
# internal/research/deep.go). The real all-MiniLM-L6-v2 serves as the deep
# embedder through a local /v1/embeddings server (serve.py) until the
# pure-Go encoder is compiled in. Prints every candidate fusion per corpus
# and pooled (weights chosen on go-docs alone), then the product path:
# corpus ingest, corpus embed, corpus eval. Not part of make test: it needs
# Python and several minutes of CPU.
#
# Environment: VENV (default ~/.cache/asky/venv-semantic), EVAL_DIR.
set -euo pipefail
PORT=${PORT:-18098}
. "$(dirname "$0")/common.sh"
start_server
url="http://127.0.0.1:$PORT/v1"

echo "== candidate fusions (deep = all-MiniLM-L6-v2 through serve.py)"
(cd "$root" && DEEP_EVAL_DB="$work/fusions.db" DEEP_EVAL_DIR="$EVAL_DIR" DEEP_URL="$url" \
  go test -tags deepeval -count=1 -run TestDeepEval -v ./internal/research | grep -v '^=== \|^--- \|^PASS\|^ok ')

echo "== candidate fusions (deep = the compiled-in minilm-l6, the default to be)"
(cd "$root" && DEEP_EVAL_DIR="$EVAL_DIR" DEEP_URL=builtin \
  go test -tags deepeval -count=1 -run TestDeepEval -v ./internal/research | grep -v '^=== \|^--- \|^PASS\|^ok ')

echo "== the product path: corpus ingest, corpus embed, corpus eval"
h="$work/home"; mkdir -p "$h"
printf '[research.deep]\nprovider = "openai"\nmodel = "all-minilm-l6-v2"\nbase_url = "%s"\n' "$url" > "$h/config.toml"
ASKY_HOME="$h" "$root/bin/asky" corpus ingest "$EVAL_DIR/corpus/go-docs" "$EVAL_DIR/corpus/licenses" 2>/dev/null
ASKY_HOME="$h" "$root/bin/asky" corpus embed
for c in go-docs licenses; do
  ASKY_HOME="$h" "$root/bin/asky" corpus eval --source "$EVAL_DIR/corpus/$c" "$EVAL_DIR/queries-$c.jsonl" | grep recall@
done | tee "$work/scoped.txt"
awk '/recall@/ {s=$0; sub(/.*\(/, "", s); sub(/\).*/, "", s); split(s, a, "/"); h+=a[1]; n+=a[2]} END {printf "pooled with the deep tier: recall@5 %.3f (%d/%d); target >= 0.80\n", h/n, h, n}' "$work/scoped.txt"
