"""Drive `asky daemon`'s OpenAI-compatible API with the official openai SDK
and raw HTTP (what curl sees), the way real clients do. Run by run.sh (make compat-clients);
never part of make test. Exits non-zero on the first failed check.

Environment: ASKY_URL (http://127.0.0.1:PORT), ASKY_TOKEN, ASKY (the binary),
ASKY_HOME (the daemon's home, for reading history back).
"""

import json
import os
import subprocess
import sys
import time

import http.client
import urllib.parse

import openai
from openai import OpenAI

URL = os.environ["ASKY_URL"]
TOKEN = os.environ["ASKY_TOKEN"]
ASKY = os.environ["ASKY"]
failures = []


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else f": {detail}"))
    if not cond:
        failures.append(name)


def expect_error(name, cls, status, fn):
    try:
        fn()
    except cls as e:
        check(f"{name}: {cls.__name__} {status}", e.status_code == status, f"status {e.status_code}")
        return e
    except Exception as e:  # noqa: BLE001
        check(f"{name}: {cls.__name__}", False, f"got {type(e).__name__}: {e}")
        return None
    check(f"{name}: {cls.__name__}", False, "no error raised")
    return None


def post_raw(body):
    """Opens a raw POST /v1/chat/completions (what curl does) and returns the
    connection and the response, unread."""
    u = urllib.parse.urlsplit(URL)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    conn.request("POST", "/v1/chat/completions", json.dumps(body),
                 {"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"})
    return conn, conn.getresponse()


def history():
    out = subprocess.run([ASKY, "history", "list", "--json", "50"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def settled_turns(before):
    """The turns recorded since the ids in before, once none is pending."""
    deadline, new = time.time() + 10, []
    while time.time() < deadline:
        new = [h for h in history() if h["id"] not in before]
        if new and new[0]["status"] != "pending":
            break
        time.sleep(0.2)
    return new


client = OpenAI(base_url=URL + "/v1", api_key=TOKEN, max_retries=0)
print(f"openai {openai.__version__}")

# models.list()
ids = [m.id for m in client.models.list()]
check("models.list() lists the aliases", "fake" in ids and "small" in ids, ids)

m = client.models.retrieve("small")
check("models.retrieve()", m.id == "small" and m.object == "model", m)
expect_error("models.retrieve(unknown)", openai.NotFoundError, 404, lambda: client.models.retrieve("nope"))

# Non-streaming completion with a multi-turn conversation.
raw = client.chat.completions.with_raw_response.create(
    model="fake",
    messages=[
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "Hello."},
        {"role": "user", "content": "what is the capital of france"},
    ],
)
c = raw.parse()
check("create(): answer", "Paris" in (c.choices[0].message.content or ""), c)
check("create(): object/id", c.object == "chat.completion" and c.id.startswith("chatcmpl-"), c.id)
check("create(): finish_reason stop", c.choices[0].finish_reason == "stop", c.choices[0].finish_reason)
check("create(): role assistant", c.choices[0].message.role == "assistant")
u = c.usage
check("create(): usage", u and u.prompt_tokens > 0 and u.completion_tokens > 0
      and u.total_tokens == u.prompt_tokens + u.completion_tokens, u)
check("create(): x-request-id (SDK _request_id)", bool(c._request_id), raw.headers)

# Content as a list of parts (newer SDK style).
c = client.chat.completions.create(model="fake", messages=[
    {"role": "developer", "content": "Be brief."},
    {"role": "user", "content": [{"type": "text", "text": "capital of japan"}]}])
check("create(): content parts + developer role", "Tokyo" in c.choices[0].message.content, c)

# Streaming without stream_options: no usage on any chunk (OpenAI's contract).
chunks = list(client.chat.completions.create(
    model="fake", stream=True, messages=[{"role": "user", "content": "capital of france"}]))
text = "".join(ch.choices[0].delta.content or "" for ch in chunks if ch.choices)
finals = [ch for ch in chunks if ch.choices and ch.choices[0].finish_reason]
check("stream: text", "Paris" in text, text)
check("stream: one final chunk with finish_reason stop",
      len(finals) == 1 and finals[0].choices[0].finish_reason == "stop" and chunks[-1] is finals[0],
      [ch.choices[0].finish_reason if ch.choices else None for ch in chunks])
check("stream: no usage without include_usage", all(ch.usage is None for ch in chunks),
      [ch.usage for ch in chunks if ch.usage])
check("stream: object/id", all(ch.object == "chat.completion.chunk" and ch.id == chunks[0].id for ch in chunks))
check("stream: first delta has the role", chunks[0].choices[0].delta.role == "assistant")

# Streaming with include_usage: a last chunk with empty choices and usage.
chunks = list(client.chat.completions.create(
    model="fake", stream=True, stream_options={"include_usage": True},
    messages=[{"role": "user", "content": "capital of france"}]))
last = chunks[-1]
check("include_usage: last chunk has choices [] and usage",
      last.choices == [] and last.usage is not None and last.usage.total_tokens > 0, last)
check("include_usage: usage only on the last chunk", all(ch.usage is None for ch in chunks[:-1]))
check("include_usage: finish_reason chunk before it",
      chunks[-2].choices and chunks[-2].choices[0].finish_reason == "stop")

# The SDK's stream helper (accumulates deltas into a final completion).
with client.chat.completions.stream(model="fake", messages=[{"role": "user", "content": "capital of japan"}],
                                    stream_options={"include_usage": True}) as s:
    for _ in s:
        pass
    final = s.get_final_completion()
check("stream helper: final completion", "Tokyo" in final.choices[0].message.content
      and final.usage and final.usage.total_tokens > 0, final)

# Raw SSE framing as curl sees it.
body = {"model": "fake", "stream": True, "messages": [{"role": "user", "content": "hello"}]}
conn, r = post_raw(body)
text = r.read().decode()
conn.close()
check("SSE: content-type", r.headers.get("content-type", "").startswith("text/event-stream"), r.headers)
events = text.split("\n\n")
check("SSE: ends with data: [DONE] and a blank line", text.endswith("data: [DONE]\n\n"), text[-80:])
check("SSE: every event is one data: line", all(e.startswith("data: ") and "\n" not in e for e in events[:-1]),
      [e for e in events[:-1] if not e.startswith("data: ")][:3])
check("SSE: x-request-id", bool(r.headers.get("x-request-id")), r.headers)

# Parameters: n>1 refused clearly, temperature/max_tokens/top_p/seed/stop
# applied (no X-Asky-Ignored-Parameters with an OpenAI-type model), an
# out-of-range temperature refused naming it.
e = expect_error("n=2", openai.BadRequestError, 400, lambda: client.chat.completions.create(
    model="fake", n=2, messages=[{"role": "user", "content": "hello"}]))
check("n=2: says n", e is not None and "n" in str(e.body), e and e.body)
raw = client.chat.completions.with_raw_response.create(model="fake", temperature=0.2, top_p=0.9, max_tokens=50, seed=1,
                                                       stop=["###"], messages=[{"role": "user", "content": "hello"}])
c = raw.parse()
check("temperature/top_p/max_tokens/seed/stop applied", c.choices[0].message.content
      and raw.headers.get("x-asky-ignored-parameters") is None, raw.headers)
e = expect_error("temperature=3", openai.BadRequestError, 400, lambda: client.chat.completions.create(
    model="fake", temperature=3, messages=[{"role": "user", "content": "hello"}]))
check("temperature=3: param temperature", e is not None and e.param == "temperature", e and e.body)
c = client.chat.completions.create(model="fake", max_completion_tokens=50, n=1,
                                   messages=[{"role": "user", "content": "hello"}])
check("max_completion_tokens and n=1 accepted", c.choices[0].message.content, c)
expect_error("tools refused", openai.BadRequestError, 400, lambda: client.chat.completions.create(
    model="fake", messages=[{"role": "user", "content": "hello"}],
    tools=[{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]))
expect_error("response_format json_schema refused", openai.BadRequestError, 400,
             lambda: client.chat.completions.create(
                 model="fake", messages=[{"role": "user", "content": "hello"}],
                 response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": {}}}))

# user names the conversation: two turns land in session http:compat-NNN.
conv = f"compat-{int(time.time())}"
client.chat.completions.create(model="fake", user=conv, messages=[{"role": "user", "content": "capital of france"}])
client.chat.completions.create(model="fake", user=conv, messages=[{"role": "user", "content": "and japan"}])
mine = [h for h in history() if h.get("session_name") == "http:" + conv]
check("user field: both turns in session http:" + conv, len(mine) == 2, mine)

# Errors map onto the SDK's classes.
bad = OpenAI(base_url=URL + "/v1", api_key="wrong", max_retries=0)
expect_error("wrong key", openai.AuthenticationError, 401,
             lambda: bad.chat.completions.create(model="fake", messages=[{"role": "user", "content": "hi"}]))
e = expect_error("unknown model", openai.NotFoundError, 404,
                 lambda: client.chat.completions.create(model="nope", messages=[{"role": "user", "content": "hi"}]))
check("unknown model: code model_not_found", e is not None and e.code == "model_not_found", e and e.body)
expect_error("unknown model (stream)", openai.NotFoundError, 404, lambda: list(client.chat.completions.create(
    model="nope", stream=True, messages=[{"role": "user", "content": "hi"}])))
expect_error("empty messages", openai.BadRequestError, 400,
             lambda: client.chat.completions.create(model="fake", messages=[]))
expect_error("last message not user", openai.BadRequestError, 400, lambda: client.chat.completions.create(
    model="fake", messages=[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"}]))
# The provider breaks off after some text has streamed: the status is
# already 200, so the error comes as an SSE error event the SDK raises.
got, err = "", None
try:
    for ch in client.chat.completions.create(model="flaky", stream=True, messages=[{"role": "user", "content": "hi"}]):
        got += ch.choices[0].delta.content or "" if ch.choices else ""
except openai.APIError as e:
    err = e
check("mid-stream failure: APIError after the partial text", err is not None and "truncated" in str(err) and got.startswith("# Partial"),
      (got, err))
check("mid-stream failure: turn recorded as an error", history()[0]["status"] == "error", history()[0])

# A provider that is down: 502, and the SDK (default max_retries=2) does
# not run the turn again because the daemon says X-Should-Retry: false.
log = os.path.join(os.environ["ASKY_HOME"], "daemon.log")
n502 = lambda: open(log).read().count("POST /v1/chat/completions 502")  # noqa: E731
before502 = n502()
e = expect_error("provider down", openai.InternalServerError, 502, lambda: OpenAI(
    base_url=URL + "/v1", api_key=TOKEN).chat.completions.create(model="down", messages=[{"role": "user", "content": "hi"}]))
check("provider down: the SDK did not retry the turn", n502() - before502 == 1, n502() - before502)

e = None
for _ in range(10):  # failed authentications are rate limited per address
    try:
        bad.models.list()
    except openai.RateLimitError as err:
        e = err
        break
    except openai.AuthenticationError:
        continue
check("repeated wrong key: RateLimitError 429", e is not None and e.status_code == 429, e)
check("429: Retry-After header", e is not None and e.response.headers.get("retry-after", "").isdigit(),
      e and e.response.headers)
check("errors: body has error.message and error.type", e is not None and e.body.get("message") and e.body.get("type"),
      e and e.body)

# Client disconnect mid-stream: the turn is saved as interrupted.
before = {h["id"] for h in history()}
conn, r = post_raw({"model": "fake", "stream": True, "user": conv + "-cut",
                    "messages": [{"role": "user", "content": "capital of france"}]})
check("disconnect: stream opened", r.status == 200, r.status)
while r.status == 200:
    line = r.fp.readline().decode()
    if not line or (line.startswith("data: ") and '"content":"' in line and '"content":""' not in line):
        break  # one real delta, then hang up
conn.sock.close()
conn.close()
new = settled_turns(before)
check("disconnect: turn saved as interrupted", len(new) == 1 and new[0]["status"] == "interrupted", new)
conn = http.client.HTTPConnection(urllib.parse.urlsplit(URL).hostname, urllib.parse.urlsplit(URL).port, timeout=10)
conn.request("GET", "/v1/health")
check("disconnect: daemon still healthy", conn.getresponse().status == 200)
conn.close()
c = client.chat.completions.create(model="fake", user=conv + "-cut",
                                   messages=[{"role": "user", "content": "capital of japan"}])
check("disconnect: the conversation is not stuck", "Tokyo" in c.choices[0].message.content)

# The same for a non-streaming request: the client times out and leaves.
before = {h["id"] for h in history()}
try:
    client.with_options(timeout=0.1).chat.completions.create(
        model="fake", user=conv + "-cut", messages=[{"role": "user", "content": "capital of france"}])
    check("non-stream disconnect: client timed out", False, "the answer came before the timeout")
except openai.APITimeoutError:
    pass
new = settled_turns(before)
check("non-stream disconnect: turn saved as interrupted", len(new) == 1 and new[0]["status"] == "interrupted", new)

print(f"\nopenai SDK: {len(failures)} failed" + (": " + ", ".join(failures) if failures else ""))
sys.exit(1 if failures else 0)
