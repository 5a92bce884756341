#!/usr/bin/env python3
"""Check that a packaged model is the all-MiniLM-L6-v2 it claims to be.

Three independent checks:
 1. sentence-transformers' similarities on the library's quick-start
    sentences equal the figures published for all-MiniLM-L6-v2
    (0.6660, 0.1046, 0.1411);
 2. a from-scratch NumPy BERT forward pass over the safetensors weights
    gives the same sentence vectors as sentence-transformers (cos > 0.9999);
 3. optionally, a second package's weights give the same vectors.
"""
import argparse
import json
import sys

import numpy as np
from safetensors.numpy import load_file
from sentence_transformers import SentenceTransformer
from transformers import AutoTokenizer

QUICKSTART = ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
PUBLISHED = {(0, 1): 0.6660, (0, 2): 0.1046, (1, 2): 0.1411}



def numpy_bert(model_dir, texts):
    w = load_file(f"{model_dir}/model.safetensors")
    cfg = json.load(open(f"{model_dir}/config.json"))
    tok = AutoTokenizer.from_pretrained(model_dir)
    pre = "" if "embeddings.word_embeddings.weight" in w else "bert."
    g = lambda k: w[pre + k].astype(np.float64)
    H, nh = cfg["hidden_size"], cfg["num_attention_heads"]
    hd = H // nh
    eps = cfg.get("layer_norm_eps", 1e-12)

    def ln(x, p):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + eps) * g(p + ".weight") + g(p + ".bias")

    def lin(x, p):
        return x @ g(p + ".weight").T + g(p + ".bias")

    out = []
    for t in texts:
        ids = tok(t)["input_ids"]
        n = len(ids)
        x = g("embeddings.word_embeddings.weight")[ids] + g("embeddings.position_embeddings.weight")[:n] \
            + g("embeddings.token_type_embeddings.weight")[0]
        x = ln(x, "embeddings.LayerNorm")
        for L in range(cfg["num_hidden_layers"]):
            p = f"encoder.layer.{L}."
            q = lin(x, p + "attention.self.query").reshape(n, nh, hd).transpose(1, 0, 2)
            k = lin(x, p + "attention.self.key").reshape(n, nh, hd).transpose(1, 0, 2)
            v = lin(x, p + "attention.self.value").reshape(n, nh, hd).transpose(1, 0, 2)
            a = q @ k.transpose(0, 2, 1) / np.sqrt(hd)
            a = np.exp(a - a.max(-1, keepdims=True))
            a /= a.sum(-1, keepdims=True)
            c = (a @ v).transpose(1, 0, 2).reshape(n, H)
            x = ln(x + lin(c, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            h = lin(x, p + "intermediate.dense")
            from scipy.special import erf
            h = 0.5 * h * (1 + erf(h / np.sqrt(2)))
            x = ln(x + lin(h, p + "output.dense"), p + "output.LayerNorm")
        v = x.mean(0)
        out.append(v / np.linalg.norm(v))
    return np.array(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--other", help="a second package's model directory to compare")
    a = ap.parse_args()
    st = SentenceTransformer(a.model, device="cpu")
    e = st.encode(QUICKSTART, normalize_embeddings=True)
    ok = True
    for (i, j), want in PUBLISHED.items():
        got = float(e[i] @ e[j])
        good = abs(got - want) < 5e-4
        ok &= good
        print(f"quick-start cos({i},{j}) = {got:.4f} (published {want:.4f}) {'ok' if good else 'MISMATCH'}")
    texts = QUICKSTART + ["A data race is defined as a write to a memory location concurrently with another access."]
    ref = st.encode(texts, normalize_embeddings=True)
    nb = numpy_bert(a.model, texts)
    cos = (ref * nb).sum(1)
    print("numpy BERT vs sentence-transformers cos:", " ".join(f"{c:.6f}" for c in cos))
    ok &= bool((cos > 0.9999).all())
    if a.other:
        o = SentenceTransformer(a.other, device="cpu").encode(texts, normalize_embeddings=True)
        c2 = (ref * o).sum(1)
        print("second package vs first cos:", " ".join(f"{c:.6f}" for c in c2))
        ok &= bool((c2 > 0.9999).all())
    print("verified: all-MiniLM-L6-v2" if ok else "NOT VERIFIED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
