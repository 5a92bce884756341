#!/usr/bin/env python3
"""Compare two static model directories row by row: a rebuilt table matches
the compiled-in one when every token's dequantised vector points the same
way (torch's float sums differ in the last bits between runs, so the int8
files are not byte-identical)."""
import sys

import numpy as np
from safetensors.numpy import load_file


def rows(d):
    t = load_file(f"{d}/model.safetensors")
    return t["embeddings"].astype(np.float64) * t["scales"].astype(np.float64)[:, None]


a, b = rows(sys.argv[1]), rows(sys.argv[2])
if a.shape != b.shape:
    print(f"DIFFERS: shapes {a.shape} and {b.shape}")
    sys.exit(1)
na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
live = (na > 0) & (nb > 0)
cos = (a[live] * b[live]).sum(1) / (na[live] * nb[live])
ok = cos.min() > 0.999 and (live == ((na > 0) | (nb > 0))).all()
print(f"{'reproduced' if ok else 'DIFFERS'}: {live.sum()} token rows, cosine with the committed table min {cos.min():.5f}, mean {cos.mean():.6f}")
sys.exit(0 if ok else 1)
