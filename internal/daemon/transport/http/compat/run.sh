#!/usr/bin/env bash
# run.sh checks `asky daemon`'s OpenAI-compatible HTTP API against real
# clients, not our own tests: the official openai Python SDK, Simon
# Willison's llm CLI (extra-openai-models.yaml pointing at the daemon) and
# curl. A daemon runs in a throwaway ASKY_HOME in front of the scripted
# fake LLM (internal/llm/llmtest/fakellm). Needs python3 and, on the first
# run, PyPI; the venv is kept in $COMPAT_VENV. Run by `make
# compat-clients`, never by `make test`.
#
#   OPENAI_VERSION=3.54.0 LLM_VERSION=0.36  pinned client versions ("latest" for the newest)
#   COMPAT_VENV=/tmp/asky-compat-venv       where the clients are installed
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../../.." && pwd)
asky=${ASKY:-$root/bin/asky}
venv=${COMPAT_VENV:-/tmp/asky-compat-venv}
openai_version=${OPENAI_VERSION:-3.54.0}
llm_version=${LLM_VERSION:-0.36}

tmp=$(mktemp -d)
fake_pid="" flaky_pid=""
cleanup() {
	ASKY_HOME=$tmp/home "$asky" daemon stop >/dev/null 2>&1 || true
	for p in $fake_pid $flaky_pid; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

pin() { if [ "$2" = latest ]; then echo "$1"; else echo "$1==$2"; fi; }
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
"$venv/bin/pip" install -q --disable-pip-version-check "$(pin openai "$openai_version")" "$(pin llm "$llm_version")"

(cd "$root" && CGO_ENABLED=0 go build -o "$tmp/fakellm" ./internal/llm/llmtest/fakellm)
"$tmp/fakellm" -delay 20ms >"$tmp/fake.url" &
fake_pid=$!
# A second provider whose first answer breaks off mid-stream (then it
# answers normally): the error must reach the client as an SSE error event.
printf '[{"text": "# Partial\\n\\nThis answer breaks off in the middle", "pieces": 8, "truncate_after": 4}]' >"$tmp/flaky.json"
"$tmp/fakellm" -delay 5ms -script "$tmp/flaky.json" >"$tmp/flaky.url" &
flaky_pid=$!
for _ in $(seq 50); do [ -s "$tmp/fake.url" ] && [ -s "$tmp/flaky.url" ] && break; sleep 0.1; done
fake_url=$(head -n 1 "$tmp/fake.url")
flaky_url=$(head -n 1 "$tmp/flaky.url")

mkdir -p "$tmp/home"
cat >"$tmp/home/config.toml" <<TOML
[general]
default_model = "fake"

[api.fake]
base_url = "$fake_url"
api_key_env = "FAKE_KEY"

[models.fake]
api = "fake"
id = "fake-model"
context_size = 32000

[models.small]
api = "fake"
id = "small-model"
context_size = 6000

[api.flaky]
base_url = "$flaky_url"
api_key_env = "FAKE_KEY"

[models.flaky]
api = "flaky"
id = "flaky-model"
context_size = 32000

# A provider that is not there: the daemon answers 502 and tells the SDK
# not to retry.
[api.down]
base_url = "http://127.0.0.1:9/v1"
api_key_env = "FAKE_KEY"

[models.down]
api = "down"
id = "down-model"
context_size = 32000

[daemon.http]
listen = "127.0.0.1:0"
# The checks send many requests in a row; the limits are not under test.
rate = 50
burst = 200
TOML
export ASKY_HOME=$tmp/home FAKE_KEY=sk-fake ASKY_DAEMON_TOKEN=compat-token-0123456789
url=$("$asky" daemon start | sed -n 's/^url: //p')
echo "$("$asky" --version 2>/dev/null | head -n 1): daemon at $url, fake LLM at $fake_url"

fail=0
expect() { # expect NAME PATTERN CMD...: CMD's output (stdout+stderr) matches PATTERN
	local name=$1 pat=$2 out
	shift 2
	out=$("$@" 2>&1) || true
	if grep -qE -- "$pat" <<<"$out"; then echo "ok   $name"; else echo "FAIL $name: $out"; fail=1; fi
}

# curl: the documented SSE framing, byte for byte at the end. Failed
# authentications are rate limited per address, so the SDK's check of
# that limit runs last.
expect "curl: SSE ends with data: [DONE]" '^data: \[DONE\]$' sh -c \
	"curl -sN '$url/v1/chat/completions' -H 'Authorization: Bearer $ASKY_DAEMON_TOKEN' -H 'Content-Type: application/json' \
	-d '{\"model\":\"fake\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}' | tail -n 2 | head -n 1"
expect "curl: 401 without a token" '^401$' curl -s -o /dev/null -w '%{http_code}' "$url/v1/models"

# llm CLI: an extra OpenAI-compatible model per alias, the token as its key.
echo
export LLM_USER_PATH=$tmp/llm
mkdir -p "$LLM_USER_PATH"
cat >"$LLM_USER_PATH/extra-openai-models.yaml" <<YAML
- {model_id: asky-fake, model_name: fake, api_base: "$url/v1", api_key_name: asky}
- {model_id: asky-nope, model_name: nope, api_base: "$url/v1", api_key_name: asky}
- {model_id: asky-badkey, model_name: fake, api_base: "$url/v1", api_key_name: wrong}
YAML
printf '{"asky": "%s", "wrong": "not-the-token"}\n' "$ASKY_DAEMON_TOKEN" >"$LLM_USER_PATH/keys.json"
llm=$venv/bin/llm
"$llm" --version
expect "llm: streamed answer" 'Paris' "$llm" -m asky-fake "what is the capital of france"
expect "llm: --no-stream with a system prompt" 'Tokyo' "$llm" -m asky-fake --no-stream -s "Be terse." "capital of japan"
expect "llm -c: continues the conversation" 'Paris' "$llm" -c "and the capital of france?"
expect "llm: temperature and max_tokens accepted" 'Hello from the fake LLM' "$llm" -m asky-fake -o temperature 0.3 -o max_tokens 50 "hello"
expect "llm: token usage logged for streamed and plain answers" '^3$' sh -c \
	"'$llm' logs -n 3 --json | '$venv/bin/python' -c 'import json,sys; print(sum(1 for r in json.load(sys.stdin) if (r.get(\"input_tokens\") or 0) > 0 and (r.get(\"output_tokens\") or 0) > 0))'"
expect "llm: unknown model is a 404" 'Error code: 404.*unknown model alias' "$llm" -m asky-nope "hi"
expect "llm: wrong key is a 401" 'Error code: 401' "$llm" -m asky-badkey "hi"

echo
ASKY_URL=$url ASKY_TOKEN=$ASKY_DAEMON_TOKEN ASKY=$asky "$venv/bin/python" "$here/openai_sdk.py" || fail=1

echo
if [ "$fail" = 0 ]; then echo "compat-clients: all checks passed"; else echo "compat-clients: FAILED"; fi
exit "$fail"
