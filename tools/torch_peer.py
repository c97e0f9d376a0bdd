"""The PyTorch peer of `recs eval --user-factors --device cuda`, timed on the same files.

    python3 tools/torch_peer.py DIR    # DIR holds U.npy, V.npy, train.tsv, test.tsv

Two evaluations of the full catalog on the GPU, each timed from factors already there:
1. top-K only, RecBole's full-sort kind: scores = U·Vᵀ per batch of users, training items
   masked, torch.topk; NDCG@10 and recall@20, ties broken arbitrarily;
2. as 1, and every positive's expected rank (candidates scored higher, plus half the
   others tied with it), AP from those ranks, and the pooled ROC AUC (each negative's
   place among the sorted positive scores by searchsorted).
Neither is exact under ties the way recs is, nor computes CROC; the times are what a
researcher evaluating on the GPU would wait.
"""

import sys
import time

import numpy as np
import pandas as pd
import torch

# The GPU when there is one; the CPU rehearses the script.
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def synchronize():
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def load(d):
    U = torch.from_numpy(np.load(f"{d}/U.npy")).to(DEVICE)
    V = torch.from_numpy(np.load(f"{d}/V.npy")).to(DEVICE)
    train, test = (
        pd.read_csv(f"{d}/{name}.tsv", sep="\t", header=None, usecols=[0, 1], dtype=np.int64)
        .to_numpy()
        for name in ["train", "test"]
    )
    return U, V, torch.from_numpy(train).to(DEVICE), torch.from_numpy(test).to(DEVICE)


def csr(pairs, n_users):
    """Offsets per user and the items, sorted by (user, item)."""
    pairs = pairs[torch.argsort(pairs[:, 0] * (1 << 32) + pairs[:, 1])]
    offsets = torch.zeros(n_users + 1, dtype=torch.int64, device=pairs.device)
    offsets[1:] = torch.cumsum(torch.bincount(pairs[:, 0], minlength=n_users), 0)
    return offsets, pairs


def block_pairs(offsets, pairs, u0, u1):
    """(row within the block, item) of the users u0..u1."""
    part = pairs[offsets[u0]:offsets[u1]]
    return part[:, 0] - u0, part[:, 1]


def places(scores, rows, positives, budget=1 << 30):
    """For each positive (a score of row `rows[k]`), how many candidates of its row score
    higher, and how many others tie with it; in chunks of pairs whose rows together hold
    about `budget` bytes (a block's users can have millions of positives between them)."""
    chunk = max(1, budget // (4 * scores.shape[1]))
    above = torch.empty(len(positives), dtype=torch.float64, device=scores.device)
    tied = torch.empty_like(above)
    for s in range(0, len(positives), chunk):
        these = scores[rows[s:s + chunk]]
        p = positives[s:s + chunk, None]
        above[s:s + chunk] = (these > p).sum(1)
        tied[s:s + chunk] = (these == p).sum(1) - 1
    return above, tied


def evaluate(U, V, train, test, full, batch=4096):
    n_users = U.shape[0]
    tr_off, tr = csr(train, n_users)
    te_off, te = csr(test, n_users)
    ndcg = recall = ap = 0.0
    n_judged = int((te_off[1:] > te_off[:-1]).sum())
    discounts = 1.0 / torch.log2(torch.arange(2, 12, device=U.device, dtype=torch.float64))
    ideal = torch.cumsum(discounts, 0)
    positives, negatives = [], []
    for u0 in range(0, n_users, batch):
        u1 = min(u0 + batch, n_users)
        scores = U[u0:u1] @ V.T
        rows, cols = block_pairs(tr_off, tr, u0, u1)
        scores[rows, cols] = -torch.inf
        trows, tcols = block_pairs(te_off, te, u0, u1)
        relevant = torch.zeros_like(scores, dtype=torch.bool)
        relevant[trows, tcols] = True
        n_rel = relevant.sum(1)
        judged = n_rel > 0
        hits = torch.gather(relevant, 1, torch.topk(scores, 20, dim=1).indices)
        dcg = (hits[:, :10].double() * discounts).sum(1)
        ndcg += (dcg[judged] / ideal[n_rel[judged].clamp(max=10) - 1]).sum().item()
        recall += (hits.sum(1)[judged].double() / n_rel[judged].double()).sum().item()
        if full:
            ps = scores[trows, tcols]
            above, tied = places(scores, trows, ps)
            rank = above + tied / 2 + 1  # expected rank under random tie order
            order = torch.argsort(trows.double() * 1e9 + rank)
            first = te_off[u0:u1] - te_off[u0]
            position = torch.arange(len(order), device=U.device) - first[trows[order]] + 1
            per_user = torch.zeros(u1 - u0, device=U.device, dtype=torch.float64)
            per_user.index_add_(0, trows[order], position.double() / rank[order])
            ap += (per_user[judged] / n_rel[judged].double()).sum().item()
            positives.append(ps)
            negatives.append(scores[~relevant & (scores > -torch.inf)])
    result = {"ndcg@10": ndcg / n_judged, "r@20": recall / n_judged}
    if full:
        sorted_pos = torch.sort(torch.cat(positives)).values
        n_pos, n_neg, wins = len(sorted_pos), 0, 0.0
        for neg in negatives:
            lo = torch.searchsorted(sorted_pos, neg, right=False)
            hi = torch.searchsorted(sorted_pos, neg, right=True)
            # Positives above each negative win; tied ones count half.
            wins += ((n_pos - hi).double() + (hi - lo).double() / 2).sum().item()
            n_neg += len(neg)
        result["roc_auc"] = wins / (n_pos * n_neg)
        result["map"] = ap / n_judged
    synchronize()
    return result


def main():
    d = sys.argv[1]
    U, V, train, test = load(d)
    for full in [False, True]:
        evaluate(U, V, train, test, full)  # warm-up
        synchronize()
        start = time.perf_counter()
        result = evaluate(U, V, train, test, full)
        seconds = time.perf_counter() - start
        kind = "top-K, expected ranks, AP, pooled AUC" if full else "top-K only"
        where = torch.cuda.get_device_name() if DEVICE == "cuda" else "the CPU"
        print(f"torch {torch.__version__} on {where}: {kind}: "
              f"{seconds:.3f} s  {result}")


if __name__ == "__main__":
    main()
