#!/usr/bin/env python3
"""Distil a sentence-transformer into asky's static (model2vec-style) embedder.

Every WordPiece vocabulary token is run through the real model on its own
("[CLS] token [SEP]", mean-pooled like the model's own pooling), the token
vectors are PCA-reduced, weighted by SIF over a Zipf frequency estimate from
the vocabulary rank, and quantised to int8 with one float32 scale per row.

The output directory (model2vec layout: tokenizer.json + model.safetensors
with an I8 "embeddings" [vocab, dim] tensor and F32 per-row "scales") is
what asky compiles in (go:embed); row i is token id i.

Also writes golden vectors (the reference implementation of the static
embedding, using the model's own HF tokenizer) that the Go test compares to.

Run through `make eval-semantic` or by hand:
  python convert.py --model DIR --out ../data --golden ../testdata/golden.json
"""
import argparse
import hashlib
import json
import os
import shutil
import sys

import numpy as np
import torch
from safetensors.numpy import save_file
from transformers import AutoModel, AutoTokenizer

GOLDEN_TEXTS = [
    "The weather is lovely today.",
    "I cycle to work every morning.",
    "how do I commute",
    "A data race is defined as a write to a memory location happening concurrently with another read or write.",
    "Errors like E4711-xq and don't-split words, naïve Café déjà vu; 数据 tokenisation!",
    "unbelievably tokenizationally supercalifragilisticexpialidocious",
]


def token_vectors(model, tok, pool="mean", batch=512):
    vocab = tok.get_vocab()
    n = len(vocab)
    cls, sep = tok.cls_token_id, tok.sep_token_id
    out = np.zeros((n, model.config.hidden_size), dtype=np.float32)
    model.eval()
    with torch.no_grad():
        for a in range(0, n, batch):
            ids = torch.arange(a, min(a + batch, n)).unsqueeze(1)
            inp = torch.cat([torch.full_like(ids, cls), ids, torch.full_like(ids, sep)], dim=1)
            h = model(input_ids=inp, attention_mask=torch.ones_like(inp)).last_hidden_state
            # "mean" pools [CLS] token [SEP] like the model's own pooling;
            # "token" keeps the token's own output position.
            out[a:a + len(ids)] = (h.mean(dim=1) if pool == "mean" else h[:, 1]).numpy()
            if a % (batch * 10) == 0:
                print(f"  tokens {a}/{n}", file=sys.stderr)
    return out


def pca(x, dim):
    mu = x.mean(axis=0, keepdims=True)
    xc = (x - mu).astype(np.float64)
    cov = xc.T @ xc / len(xc)
    w, v = np.linalg.eigh(cov)
    order = np.argsort(w)[::-1][:dim]
    comp = v[:, order]
    # Deterministic sign: the largest-magnitude loading of each component is positive.
    signs = np.sign(comp[np.abs(comp).argmax(axis=0), np.arange(comp.shape[1])])
    comp = comp * signs
    return (xc @ comp).astype(np.float32), float(w[order].sum() / w.sum())


def sif_weights(n, first_word, a):
    # Zipf estimate from vocabulary rank: BERT's vocab lists whole words
    # roughly by frequency after the single characters; p(rank) ~ 1/rank.
    rank = np.arange(n, dtype=np.float64) - first_word + 1
    rank = np.maximum(rank, 1)
    p = 1.0 / (rank * np.log(n))
    return a / (a + p)


def quantise(m):
    scale = np.abs(m).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.rint(m / scale[:, None]), -127, 127).astype(np.int8)
    return q, scale.astype(np.float32)


def reference_embed(tok, q, scale, text, skip):
    ids = [i for i in tok(text, add_special_tokens=False)["input_ids"] if i not in skip]
    v = np.zeros(q.shape[1], dtype=np.float64)
    for i in ids:
        v += q[i].astype(np.float64) * scale[i]
    nrm = np.linalg.norm(v)
    return ids, (v / nrm if nrm > 0 else v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True, help="sentence-transformers model directory")
    ap.add_argument("--out", required=True, help="output model directory")
    ap.add_argument("--golden", required=True)
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--sif", type=float, default=1e-3)
    ap.add_argument("--pool", choices=["mean", "token"], default="token")
    ap.add_argument("--cache", help="reuse (or save) the raw token vectors in this .npy file")
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(2)

    tok = AutoTokenizer.from_pretrained(args.model)
    model = AutoModel.from_pretrained(args.model)
    vocab = sorted(tok.get_vocab().items(), key=lambda kv: kv[1])
    assert [i for _, i in vocab] == list(range(len(vocab)))
    tokens = [t for t, _ in vocab]
    n = len(tokens)

    if args.cache and os.path.exists(args.cache):
        x = np.load(args.cache)
    else:
        x = token_vectors(model, tok, args.pool)
        if args.cache:
            np.save(args.cache, x)
    red, kept = pca(x, args.dim) if args.dim < x.shape[1] else (x - x.mean(axis=0, keepdims=True), 1.0)
    print(f"PCA {x.shape[1]} -> {args.dim} keeps {kept:.3f} of the variance", file=sys.stderr)
    first_word = tokens.index("the") if "the" in tokens else 0
    w = sif_weights(n, first_word, args.sif)
    special = {tok.cls_token_id, tok.sep_token_id, tok.pad_token_id, tok.mask_token_id}
    for i, t in enumerate(tokens):
        if i in special or (t.startswith("[") and t.endswith("]")):
            w[i] = 0.0
    q, scale = quantise(red * w[:, None].astype(np.float32))

    os.makedirs(args.out, exist_ok=True)
    shutil.copyfile(os.path.join(args.model, "tokenizer.json"), os.path.join(args.out, "tokenizer.json"))
    st_path = os.path.join(args.out, "model.safetensors")
    save_file({"embeddings": q, "scales": scale.astype(np.float32)}, st_path,
              metadata={"source": "all-MiniLM-L6-v2 static distillation", "dim": str(args.dim), "sif": str(args.sif)})
    h = hashlib.sha256()
    for name in ("tokenizer.json", "model.safetensors"):
        h.update(open(os.path.join(args.out, name), "rb").read())
    sha = h.hexdigest()

    golden = {"model_sha256": sha, "dim": args.dim, "vocab": n, "sif": args.sif, "texts": []}
    for t in GOLDEN_TEXTS:
        ids, v = reference_embed(tok, q, scale, t, set())
        golden["texts"].append({"text": t, "ids": ids, "vector": [round(float(z), 6) for z in v]})
    with open(args.golden, "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")
    print(f"wrote {args.out} ({os.path.getsize(st_path)} bytes of weights, sha256 {sha})", file=sys.stderr)


if __name__ == "__main__":
    main()
