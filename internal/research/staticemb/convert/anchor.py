#!/usr/bin/env python3
"""The anchor: the original Python asky's own corpus retrieval on the shared
eval set. Run inside a venv with asky-cli installed and HOME pointing at a
throwaway directory (make eval-semantic does both).

For each query file: ingest its corpus with the original's local ingestion
(-r), then run the retrieval behind its no-model --query-corpus
(execute_get_relevant_content, 5 chunks per source) and keep the 5 best
chunks over all sources by the original's own relevance score. A hit is
scored as asky's `corpus eval` does (case-insensitive, whitespace collapsed,
curly quotes straightened)."""
import argparse
import glob
import json
import os
import re
import sys
import time


def norm(s):
    s = s.replace("\u2018", "'").replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')
    return re.sub(r"\s+", " ", s).strip().lower()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eval-dir", required=True)
    ap.add_argument("--model", required=True, help="local all-MiniLM-L6-v2 directory")
    ap.add_argument("--only", help="only the query file whose name contains this")
    a = ap.parse_args()
    home = os.environ["HOME"]
    cfgdir = os.path.join(home, ".config", "asky")
    import subprocess
    subprocess.run([sys.executable, "-m", "asky", "--help"], capture_output=True, check=True)
    p = os.path.join(cfgdir, "research.toml")
    s = open(p).read()
    # The original's local adapter skips files without an extension (the
    # license texts): mirror the corpora, naming those *.txt.
    corpus_root = os.path.join(home, "corpus")
    import shutil
    src_root = os.path.join(os.path.abspath(a.eval_dir), "corpus")
    for d, _, files in os.walk(src_root):
        for f in files:
            dst = os.path.join(corpus_root, os.path.relpath(d, src_root), f if "." in f else f + ".txt")
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(os.path.join(d, f), dst)
    s = s.replace("local_document_roots = []", f'local_document_roots = ["{corpus_root}"]')
    s = s.replace('model = "all-MiniLM-L6-v2"', f'model = "{a.model}"')
    s = s.replace("local_files_only = false", "local_files_only = true")
    open(p, "w").write(s)

    from asky.api.preload import preload_local_research_sources
    from asky.research.tools import execute_get_relevant_content

    hits_all = n_all = 0
    for qf in sorted(glob.glob(os.path.join(a.eval_dir, "queries-*.jsonl"))):
        if a.only and a.only not in qf:
            continue
        qs = [json.loads(l) for l in open(qf) if l.strip()]
        corpus = qs[0]["corpus"]
        t0 = time.time()
        payload = preload_local_research_sources(user_prompt="", explicit_targets=[os.path.join(corpus_root, corpus)])
        ids = [str(i.get("source_handle", "")).strip() for i in payload.get("ingested") or []]
        ids = [i for i in ids if i]
        for w in (payload.get("warnings") or [])[:5]:
            print("  warning:", w, file=sys.stderr)
        t_ing = time.time() - t0
        hits = 0
        t0 = time.time()
        for q in qs:
            res = execute_get_relevant_content({"query": q["query"], "corpus_urls": ids, "max_chunks": 5})
            chunks = []
            for v in res.values():
                if isinstance(v, dict):
                    chunks += v.get("chunks") or []
            chunks.sort(key=lambda c: -c["relevance"])
            top = [norm(c["text"]) for c in chunks[:5]]
            ok = any(norm(g) in t for g in q["gold_any"] for t in top)
            hits += ok
        t_q = time.time() - t0
        print(f"original asky {os.path.basename(qf)}: recall@5 {hits/len(qs):.3f} ({hits}/{len(qs)}) "
              f"[{len(ids)} sources; ingest+embed {t_ing:.1f}s; {1000*t_q/len(qs):.0f} ms/query]")
        hits_all += hits
        n_all += len(qs)
    print(f"original asky pooled: recall@5 {hits_all/n_all:.3f} ({hits_all}/{n_all})")


if __name__ == "__main__":
    main()
