#!/usr/bin/env python3
"""Generate TREC-convention fixtures for `recs eval` from trec_eval's own code.

Writes, into the directory given as the only argument (default
crates/recs-cli/tests/fixtures/trec):

  qrels.txt       `qid 0 doc grade`: graded judgments (0-3), a few queries judged
                  non-relevant only, a few queries without run lines
  run.txt         `qid Q0 doc rank score tag`: many retrieved documents nobody judged,
                  many judged documents not retrieved, a few queries the qrels do not
                  judge; scores distinct within a query (trec_eval breaks ties by
                  document id, `recs eval` by expectation: ties are left out on purpose)
  expected.json   trec_eval's mean of each measure over the evaluated queries, keyed by
                  `recs eval`'s names

Oracle: pytrec_eval (the trec_eval 9 C code), measures P_5, P_10, recall_5, recall_10,
ndcg_cut_5, ndcg_cut_10, map and recip_rank. trec_eval evaluates the queries present in
both files and counts a query without relevant documents as 0, which `recs eval` does
by default for TREC runs (`--candidates run`, `--zero zero`).

Regenerate with:
    pip install pytrec_eval-terrier
    python3 tools/trec_oracle.py crates/recs-cli/tests/fixtures/trec
"""

import json
import os
import random
import sys

import pytrec_eval

SEED = 19920101
MEASURES = {
    "P_5": "p@5",
    "P_10": "p@10",
    "recall_5": "r@5",
    "recall_10": "r@10",
    "ndcg_cut_5": "ndcg@5",
    "ndcg_cut_10": "ndcg@10",
    "map": "map",
    "recip_rank": "mrr",
}


def generate(rng):
    """Returns (qrels, run) as nested dicts {qid: {doc: grade or score}}."""
    docs = [f"d{n}" for n in range(300)]
    qrels, run = {}, {}
    for q in range(60):
        qid = str(q + 1)
        judged = rng.sample(docs, rng.randint(3, 40))
        if q % 17 == 5:
            grades = {d: 0 for d in judged}  # judged, nothing relevant
        else:
            grades = {d: rng.choice([0, 0, 0, 1, 1, 2, 3]) for d in judged}
        if q % 23 != 7:  # a query without judgments: only in the run
            qrels[qid] = grades
        if q % 19 != 3:  # a judged query without run lines
            # Half of the retrieved documents from the judged ones, half from anywhere:
            # unjudged retrieved documents and unretrieved judged ones both abound.
            pool = rng.sample(judged, rng.randint(0, len(judged)))
            pool += rng.sample(docs, rng.randint(1, 40))
            retrieved = list(dict.fromkeys(pool))
            scores = rng.sample(range(1, 100_000), len(retrieved))
            run[qid] = {d: float(s) for d, s in zip(retrieved, scores)}
    return qrels, run


def write(out_dir, qrels, run, expected):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "qrels.txt"), "w") as f:
        for qid, grades in qrels.items():
            for doc, grade in grades.items():
                f.write(f"{qid} 0 {doc} {grade}\n")
    with open(os.path.join(out_dir, "run.txt"), "w") as f:
        for qid, scores in run.items():
            ranked = sorted(scores.items(), key=lambda kv: -kv[1])
            for rank, (doc, score) in enumerate(ranked, start=1):
                f.write(f"{qid} Q0 {doc} {rank} {score:g} oracle\n")
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump(expected, f, indent=2, sort_keys=True)
        f.write("\n")


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "crates/recs-cli/tests/fixtures/trec"
    rng = random.Random(SEED)
    qrels, run = generate(rng)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES))
    per_query = evaluator.evaluate(run)
    expected = {
        ours: sum(v[theirs] for v in per_query.values()) / len(per_query)
        for theirs, ours in MEASURES.items()
    }
    expected["n_users"] = len(per_query)
    write(out_dir, qrels, run, expected)
    print(f"{len(per_query)} queries evaluated; wrote {out_dir}")


if __name__ == "__main__":
    main()
