#!/usr/bin/env python3
"""A tiny local OpenAI-compatible /v1/embeddings server over a real
sentence-transformer, to measure asky's provider path (make eval-semantic).
Listens on 127.0.0.1 only."""
import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from sentence_transformers import SentenceTransformer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--name", default="all-minilm-l6-v2")
    ap.add_argument("--port", type=int, default=18099)
    a = ap.parse_args()
    st = SentenceTransformer(a.model, device="cpu")

    class H(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            if not self.path.rstrip("/").endswith("/embeddings"):
                self.send_error(404)
                return
            req = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            inp = req["input"]
            if isinstance(inp, str):
                inp = [inp]
            vecs = st.encode(inp, normalize_embeddings=True, batch_size=32)
            body = json.dumps({"object": "list", "model": a.name, "data": [
                {"object": "embedding", "index": i, "embedding": [float(x) for x in v]} for i, v in enumerate(vecs)],
                "usage": {"prompt_tokens": 0, "total_tokens": 0}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    print(f"serving {a.name} on http://127.0.0.1:{a.port}/v1", flush=True)
    ThreadingHTTPServer(("127.0.0.1", a.port), H).serve_forever()


if __name__ == "__main__":
    main()
