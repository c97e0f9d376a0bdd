"""The Python module's GPU path against its CPU path, on prepared cases:

    python3 tools/gpu_python.py DIR[:THRESHOLD] ...   # DIR holds U.npy, V.npy, train.tsv, test.tsv

For each case (train.tsv: user, item; test.tsv: user, item, grade; ids are factor rows):
1. `evaluate_factors` with `device="cpu"` and `device="cuda"`: the same result, per-user
   values included (`details=True`);
2. `evaluate_scorer` given the scores of U·Vᵀ (computed once by torch on the GPU) as torch
   tensors left on the GPU (`device="cuda"`), and as numpy arrays copied to the host
   (`device="cpu"`): the same result.
Prints one line per evaluation (seconds, whole call) and `identical` or `DIFFERENT` per
pair; exits 1 when a pair differs. Needs torch with a GPU and the module built
(`python/recs/_recs.abi3.so`) on PYTHONPATH.
"""

import sys
import time

import numpy as np
import pandas as pd
import torch

import recs

METRICS = "roc,croc,ndcg@10,r@20,map"


def timed(label, call):
    start = time.perf_counter()
    result = call()
    print(f"{label}: {time.perf_counter() - start:.3f} s", flush=True)
    return result


def same(a, b, what):
    if a == b:
        print(f"== identical: {what}", flush=True)
        return True
    differing = [k for k in a if a.get(k) != b.get(k)][:5]
    print(f"== DIFFERENT: {what} (first keys that differ: {differing})", flush=True)
    return False


def check(case, threshold):
    U, V = np.load(f"{case}/U.npy"), np.load(f"{case}/V.npy")
    read = dict(sep="\t", header=None, dtype=np.int64, engine="pyarrow")
    train = pd.read_csv(f"{case}/train.tsv", usecols=[0, 1], names=["user", "item"], **read)
    qrels = pd.read_csv(f"{case}/test.tsv", names=["user", "item", "grade"], **read)
    qrels["grade"] = qrels["grade"].astype(np.float64)
    options = dict(details=True, threshold=threshold)
    ok = True
    cpu = timed(f"{case} evaluate_factors cpu",
                lambda: recs.evaluate_factors(U, V, train, qrels, METRICS, **options))
    gpu = timed(f"{case} evaluate_factors cuda",
                lambda: recs.evaluate_factors(U, V, train, qrels, METRICS, device="cuda", **options))
    ok &= same(cpu, gpu, f"{case} evaluate_factors")

    scores = torch.from_numpy(U).cuda() @ torch.from_numpy(V).cuda().T
    torch.cuda.synchronize()
    n_users, n_items = scores.shape
    host = timed(f"{case} evaluate_scorer, numpy blocks, cpu", lambda: recs.evaluate_scorer(
        lambda rows: scores[torch.from_numpy(rows).cuda()].cpu().numpy(),
        n_users, train, qrels, METRICS, n_items=n_items, **options))
    device = timed(f"{case} evaluate_scorer, torch blocks on the GPU, cuda", lambda: recs.evaluate_scorer(
        lambda rows: scores[torch.from_numpy(rows).cuda()],
        n_users, train, qrels, METRICS, n_items=n_items, device="cuda", **options))
    ok &= same(host, device, f"{case} evaluate_scorer")
    del scores
    torch.cuda.empty_cache()
    return ok


def main():
    print(f"torch {torch.__version__}, GPU: {torch.cuda.get_device_name()}", flush=True)
    ok = True
    for arg in sys.argv[1:]:
        case, _, threshold = arg.partition(":")
        ok &= check(case, float(threshold or 1.0))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
