"""Exact, tie-aware evaluation of recommender systems.

``Qrels`` (judgments: per user, graded items) and ``Run`` (scores of user-item pairs)
come from dicts ``{user: {item: value}}``, pandas data frames, pyarrow tables or the
files ``recs eval`` reads. ``evaluate`` gives the numbers of ``recs eval --json`` under
the same keys (``roc_auc``, ``croc_pauc@0.3``, ``ndcg@10``, ...); ties count at their
expected value under a random order unless ``ties`` says otherwise. ``Accumulator``
evaluates partitions of a run anywhere (Spark, Ray, Dask) and merges them exactly.

Grades and scores are read as 32-bit floats, as the file readers of ``recs eval`` read
them: two float64 scores that round to the same float32 are a tie.
"""

from __future__ import annotations

import warnings as _warnings
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _recs
from ._recs import RecsError

__all__ = [
    "Qrels",
    "Run",
    "evaluate",
    "evaluate_factors",
    "evaluate_scorer",
    "compare",
    "sampled_vs_exact",
    "sampled_vs_exact_factors",
    "curves",
    "Accumulator",
    "RecsError",
    "RecsWarning",
    "split",
    "datasets",
    "DEFAULT_SEED",
]

#: The seed of ``split`` when none is given (the workspace-wide default).
DEFAULT_SEED: int = _recs.DEFAULT_SEED

#: Keys of an evaluation dict that are not metric values.
_COUNT_KEYS = (
    "candidates",
    "zero",
    "n_users",
    "n_candidates",
    "n_positives",
    "n_users_without_relevant",
    "n_missing",
    "n_ignored",
    "sampling_seed",
    "warnings",
    "popularity",
    "groups",
)


class RecsWarning(UserWarning):
    """Something was left out of an evaluation (ignored lines, unscored candidates)."""


def _ids(uniques: Any) -> List[str]:
    """Distinct ids as text; integral floats (integer ids pandas stored as floats) are
    written as integers."""
    out = []
    for u in uniques:
        if isinstance(u, (float, np.floating)) and float(u).is_integer():
            u = int(u)
        out.append(str(u))
    return out


def _codes(codes: np.ndarray, source: str, column: str) -> bytes:
    codes = np.asarray(codes)
    if codes.size and codes.min() < 0:
        row = int(np.argmax(codes < 0)) + 1
        raise RecsError(f"{source}:{row}: no {column} id")
    return codes.astype("<u4", copy=False).tobytes()


def _values(values: Any, source: str, column: str) -> bytes:
    try:
        array = np.asarray(values, dtype="<f4")
    except (TypeError, ValueError) as e:
        raise RecsError(f"{source}: column `{column}` is not numeric: {e}") from None
    return array.tobytes()


def _columns_of_frame(frame: Any, user_col: str, item_col: str, value_col: str, source: str):
    if type(frame).__module__.partition(".")[0] == "polars":
        # A polars frame is Arrow columns underneath: read it as an Arrow table.
        return _columns_of_arrow(frame.to_arrow(), user_col, item_col, value_col, source)
    import pandas as pd

    for col in (user_col, item_col, value_col):
        if col not in frame.columns:
            raise RecsError(f"{source}: no column `{col}` (columns: {list(frame.columns)})")
    user_codes, users = pd.factorize(frame[user_col], sort=False)
    item_codes, items = pd.factorize(frame[item_col], sort=False)
    return (
        _ids(users),
        _codes(user_codes, source, "user"),
        _ids(items),
        _codes(item_codes, source, "item"),
        _values(frame[value_col].to_numpy(), source, value_col),
    )


def _columns_of_arrow(table: Any, user_col: str, item_col: str, value_col: str, source: str):
    import pyarrow as pa
    import pyarrow.compute as pc

    names = table.schema.names
    for col in (user_col, item_col, value_col):
        if col not in names:
            raise RecsError(f"{source}: no column `{col}` (columns: {names})")

    def encode(name: str):
        column = table.column(name)
        if column.null_count:
            raise RecsError(f"{source}: column `{name}` has {column.null_count} null ids")
        encoded = pc.dictionary_encode(column).combine_chunks()
        if isinstance(encoded, pa.ChunkedArray):
            encoded = encoded.chunk(0) if encoded.num_chunks else pa.array([], pa.dictionary(pa.int32(), pa.string()))
        codes = encoded.indices.to_numpy(zero_copy_only=False)
        return _ids(encoded.dictionary.to_pylist()), _codes(codes, source, name)

    users, user_codes = encode(user_col)
    items, item_codes = encode(item_col)
    values = table.column(value_col)
    if values.null_count:
        raise RecsError(f"{source}: column `{value_col}` has {values.null_count} nulls")
    return users, user_codes, items, item_codes, _values(values.to_numpy(), source, value_col)


def _columns_of_dict(data: Mapping[Any, Mapping[Any, float]], source: str):
    users: List[Any] = []
    items: List[Any] = []
    values: List[float] = []
    for user, row in data.items():
        if not isinstance(row, Mapping):
            raise RecsError(f"{source}: the value of user {user!r} is not a dict of items")
        for item, value in row.items():
            users.append(user)
            items.append(item)
            values.append(value)
    import pandas as pd

    user_codes, user_ids = pd.factorize(pd.Series(users, dtype=object), sort=False)
    item_codes, item_ids = pd.factorize(pd.Series(items, dtype=object), sort=False)
    return (
        [str(u) for u in user_ids],
        _codes(user_codes, source, "user"),
        [str(i) for i in item_ids],
        _codes(item_codes, source, "item"),
        _values(values, source, "value"),
    )


def _columns(data: Any, user_col: str, item_col: str, value_col: str, source: str):
    """Factorised columns of a dict, a pandas frame or a pyarrow table."""
    if isinstance(data, Mapping):
        return _columns_of_dict(data, source)
    module = type(data).__module__
    if module.startswith("pyarrow"):
        return _columns_of_arrow(data, user_col, item_col, value_col, source)
    if hasattr(data, "columns") and hasattr(data, "to_numpy"):
        return _columns_of_frame(data, user_col, item_col, value_col, source)
    raise RecsError(
        f"{source}: expected a dict {{user: {{item: value}}}}, a pandas DataFrame or a "
        f"pyarrow Table, not {type(data).__name__}"
    )


class _Pairs:
    """What qrels and runs share: (user, item, value) rows held by a native object."""

    _native_type: Any = None

    def __init__(self, data: Optional[Mapping[Any, Mapping[Any, float]]] = None, *, _native=None):
        if _native is None:
            _native = self._native_type.from_rows(*_columns_of_dict(data or {}, "dict"), "dict")
        self._native = _native

    @classmethod
    def from_dict(cls, data: Mapping[Any, Mapping[Any, float]]):
        """From ``{user: {item: value}}`` (a grade for qrels, a score for runs)."""
        return cls(data)

    @classmethod
    def _from_frame(cls, frame: Any, user_col: str, item_col: str, value_col: str):
        columns = _columns_of_frame(frame, user_col, item_col, value_col, "DataFrame")
        return cls(_native=cls._native_type.from_rows(*columns, "DataFrame"))

    @classmethod
    def _from_table(cls, table: Any, user_col: str, item_col: str, value_col: str):
        columns = _columns_of_arrow(table, user_col, item_col, value_col, "Table")
        return cls(_native=cls._native_type.from_rows(*columns, "Table"))

    def to_dict(self) -> Dict[str, Dict[str, float]]:
        """``{user: {item: value}}`` with ids as text."""
        out: Dict[str, Dict[str, float]] = {}
        for u, i, v in zip(*self._native.rows()):
            out.setdefault(u, {})[i] = v
        return out


class Qrels(_Pairs):
    """Judgments: per user, items with a grade (0 = not relevant).

    Under the ``qrels`` candidate policy every candidate of a user is listed (grade 0
    for the non-relevant ones); under ``run`` (TREC) and ``catalog`` only the graded
    items need be.

    >>> qrels = Qrels({"u1": {"a": 1, "b": 0}, "u2": {"a": 2}})
    >>> qrels.n_users, qrels.n_pairs
    (2, 3)
    """

    _native_type = _recs.NativeQrels

    @classmethod
    def from_df(
        cls, frame: Any, user_col: str = "user", item_col: str = "item", grade_col: str = "grade"
    ) -> "Qrels":
        """Qrels from a pandas or polars data frame with user, item and grade columns."""
        return cls._from_frame(frame, user_col, item_col, grade_col)

    @classmethod
    def from_arrow(
        cls, table: Any, user_col: str = "user", item_col: str = "item", grade_col: str = "grade"
    ) -> "Qrels":
        """Qrels from a pyarrow table (ids dictionary-encoded by Arrow)."""
        return cls._from_table(table, user_col, item_col, grade_col)

    @classmethod
    def from_file(cls, path: Union[str, "os.PathLike[str]"]) -> "Qrels":
        """Qrels from a file, read as ``recs eval --qrels`` reads it:
        ``user<TAB>item<TAB>grade`` or TREC ``qid iter doc grade``."""
        import os

        return cls(_native=_recs.NativeQrels.from_file(os.fspath(path)))

    @property
    def n_users(self) -> int:
        """Users with at least one judged item."""
        return self._native.n_users

    @property
    def n_pairs(self) -> int:
        """Judged (user, item) pairs."""
        return self._native.n_pairs

    def to_df(self):
        """A pandas frame with columns ``user``, ``item``, ``grade``."""
        import pandas as pd

        users, items, grades = self._native.rows()
        return pd.DataFrame({"user": users, "item": items, "grade": np.asarray(grades, dtype=np.float32)})

    def __reduce__(self):
        users, items, grades = self._native.rows()
        return (_qrels_from_rows, (users, items, grades))

    def __repr__(self) -> str:
        return f"Qrels(n_users={self.n_users}, n_pairs={self.n_pairs})"


def _qrels_from_rows(users: List[str], items: List[str], grades: List[float]) -> Qrels:
    """Rebuilds pickled qrels."""
    n = len(users)
    codes = np.arange(n, dtype="<u4").tobytes()
    native = _recs.NativeQrels.from_rows(
        users, codes, items, codes, np.asarray(grades, dtype="<f4").tobytes(), "qrels"
    )
    return Qrels(_native=native)


class Run(_Pairs):
    """Scores of (user, item) pairs; a higher score ranks first.

    >>> run = Run({"u1": {"a": 0.9, "b": 0.1}})
    >>> run.n_rows
    2
    """

    _native_type = _recs.NativeRun

    @classmethod
    def from_df(
        cls, frame: Any, user_col: str = "user", item_col: str = "item", score_col: str = "score"
    ) -> "Run":
        """A run from a pandas or polars data frame with user, item and score columns."""
        return cls._from_frame(frame, user_col, item_col, score_col)

    @classmethod
    def from_arrow(
        cls, table: Any, user_col: str = "user", item_col: str = "item", score_col: str = "score"
    ) -> "Run":
        """A run from a pyarrow table (ids dictionary-encoded by Arrow)."""
        return cls._from_table(table, user_col, item_col, score_col)

    @classmethod
    def from_file(cls, path: Union[str, "os.PathLike[str]"], format: str = "auto") -> "Run":
        """A run file as ``recs eval --run`` reads it: ``user<TAB>item<TAB>score`` or
        TREC ``qid Q0 doc rank score tag`` (``format``: ``auto``, ``tsv``, ``trec``)."""
        import os

        return cls(_native=_recs.NativeRun.from_file(os.fspath(path), format))

    @property
    def n_rows(self) -> Optional[int]:
        """Rows held (``None`` for a file, read when evaluated)."""
        return self._native.n_rows

    def __repr__(self) -> str:
        return f"Run(n_rows={self.n_rows})"


def _as_run(data: Any, what: str) -> Run:
    if isinstance(data, Run):
        return data
    if isinstance(data, Mapping):
        return Run(data)
    raise RecsError(f"{what} must be a recs.Run or a dict, not {type(data).__name__}")


def _named_runs(runs: Union[Mapping[str, Any], Sequence[Any]]):
    """``{name: run}`` or a sequence (named ``"0"``, ``"1"``, ...) as names and runs."""
    if isinstance(runs, Mapping):
        return [str(k) for k in runs.keys()], [_as_run(r, f"run {k}") for k, r in runs.items()]
    run_list = [_as_run(r, f"run {i}") for i, r in enumerate(runs)]
    return [str(i) for i in range(len(run_list))], run_list


def _train(train: Any) -> Any:
    """Training events (a dict, a frame or a table of user and item) as a native run."""
    if train is None:
        return None
    if isinstance(train, Run):
        return train._native
    if isinstance(train, Mapping):
        data = {u: {i: 1.0 for i in (row if not isinstance(row, Mapping) else row.keys())} for u, row in train.items()}
        return Run(data)._native
    frame = train
    if type(train).__module__.startswith("pyarrow"):
        frame = train.select(["user", "item"]).to_pandas()
    frame = frame[["user", "item"]].assign(_one=1.0)
    return _recs.NativeRun.from_rows(*_columns_of_frame(frame, "user", "item", "_one", "train"), "train")


def _attribute_pairs(attributes: Any) -> Any:
    """Item attributes (a dict of item to attributes, or a frame of item and attribute)
    as two lists of ids."""
    if attributes is None:
        return None
    if isinstance(attributes, Mapping):
        pairs = [(str(i), str(a)) for i, names in attributes.items() for a in names]
    else:
        frame = attributes
        if type(attributes).__module__.startswith("pyarrow"):
            frame = attributes.select(["item", "attribute"]).to_pandas()
        pairs = [(str(i), str(a)) for i, a in zip(frame["item"], frame["attribute"])]
    return [i for i, _ in pairs], [a for _, a in pairs]


def _group_pairs(groups: Any, key: str = "user") -> Any:
    """User (or item, ``key``) groups, a dict of id to group or a frame of ``key`` and
    ``group``, as two lists of ids."""
    if groups is None:
        return None
    if isinstance(groups, Mapping):
        pairs = [(str(u), str(g)) for u, g in groups.items()]
    else:
        frame = groups
        if type(groups).__module__.startswith("pyarrow"):
            frame = groups.select([key, "group"]).to_pandas()
        pairs = [(str(u), str(g)) for u, g in zip(frame[key], frame["group"])]
    return [u for u, _ in pairs], [g for _, g in pairs]


def _metric_list(metrics: Union[str, Sequence[str]]) -> str:
    if isinstance(metrics, str):
        return metrics
    return ",".join(metrics)


def _policy(candidates: Optional[str], run: Run) -> str:
    if candidates is not None:
        return candidates
    return "run" if run._native.is_trec else "qrels"


def _warn(report: Mapping[str, Any]) -> None:
    for w in report.get("warnings", []):
        _warnings.warn(w, RecsWarning, stacklevel=3)


def _metric_values(report: Mapping[str, Any]) -> Dict[str, float]:
    return {
        k: (float("nan") if v is None else float(v))
        for k, v in report.items()
        if k not in _COUNT_KEYS
    }


def evaluate(
    qrels: Qrels,
    run: Union[Run, Mapping[Any, Mapping[Any, float]]],
    metrics: Union[str, Sequence[str]] = "roc,croc,p@10,r@10,ndcg@10,map,mrr",
    ties: str = "expected",
    candidates: Optional[str] = None,
    train: Any = None,
    return_per_user: bool = False,
    *,
    threshold: float = 1.0,
    zero: Optional[str] = None,
    max_fpr: float = 0.3,
    details: bool = False,
    seed: int = 0,
    head_share: Optional[float] = None,
    head_items: Optional[int] = None,
    attributes: Any = None,
    similarity: str = "cosine",
    user_groups: Any = None,
    resamples: int = 1000,
    calibration_alpha: float = 0.01,
    item_groups: Any = None,
):
    """Evaluates ``run`` against ``qrels``, as ``recs eval`` does.

    - ``metrics``: names as in ``recs eval --metrics`` (``roc``, ``croc``, ``user_auc``,
      ``p@N``, ``r@N``, ``f1@N``, ``hit@N``, ``ndcg@K``, ``ndcg_exp@K``, ``ap@K``,
      ``map``, ``mrr``, ``half_life@A``, ``coverage@N``, and with ``train`` the
      popularity, novelty and exposure of the lists: ``arp@N``, ``aplt@N``, ``aclt@N``,
      ``epc@N``, ``epc_flat@N``, ``efd@N``, ``efd_flat@N``, ``miuf@N``,
      ``serendipity@N``, ``gini@N``, ``entropy@N``, ``poprsp@N``, ``popreo@N``; with
      ``attributes``, ``ild@N``, ``ild_disc@N``; with both, ``miscal@N``), a list or a comma-separated
      string. With
      ``candidates="sampled:N"`` (uniform), also corrected sampled metrics ``M~E`` such as ``ndcg@10~bv:0.1``: the estimator ``E`` (``sampled``,
      ``rank-estimate``, ``minimal-bias``, ``monotone``, ``bv:γ``) of the metric ``M`` of
      one relevant item's rank (``auc``, ``r@k``, ``hit@k``, ``p@k``, ``ap``, ``mrr``,
      ``ndcg``, ``ndcg@k``), as ``recs eval --metrics`` computes them.
    - ``ties``: ``expected`` (expected value over random orders of equal scores),
      ``item-ascending`` or ``item-descending``.
    - ``candidates``: ``qrels`` (the qrels list every candidate), ``run`` (TREC: the
      run's items, unjudged ones not relevant), ``catalog`` (every item of the qrels
      and of ``train`` that the user has no training event with), or ``sampled:N``
      (``sampled:N:uniform``, ``sampled:N:popularity``: each user's relevant items and N
      of its other catalog items drawn by ``seed``, the draw of ``recs eval --candidates
      sampled:N --seed``); default ``run`` for a TREC run file, ``qrels`` otherwise.
    - ``train``: the training events of ``catalog`` and ``sampled:N``, and the items'
      popularity of the popularity metrics (a dict, or a frame/table with ``user`` and
      ``item`` columns).
    - ``head_share``, ``head_items``: the popularity head of ``aplt@N`` and ``aclt@N``
      (default: the most popular items holding half of the training events), as ``recs
      eval --head-share`` and ``--head-items``; ``details`` reports it under
      ``popularity``.
    - ``attributes``: the items' attributes of ``ild@N`` and ``ild_disc@N`` (intra-list diversity), a dict
      ``{item: [attribute, ...]}`` or a frame with ``item`` and ``attribute`` columns
      (weights 1; items without attributes have none); ``similarity``: ``cosine`` or
      ``jaccard``, as ``recs eval --attributes`` and ``--similarity``. With ``train``,
      they are also the attributes of the calibration ``miscal@N`` (Steck 2018: the KL
      divergence of the list's attribute distribution from the user's training items',
      smoothed by ``calibration_alpha``, 0.01 by default, as ``recs eval
      --calibration-alpha``).
    - ``user_groups``: a dict ``{user: group}`` or a frame with ``user`` and ``group``
      columns: with ``details``, ``groups`` holds every per-user mean by group with the
      gap between groups and its bootstrap interval (``resamples``, seeded by ``seed``),
      as ``recs eval --user-groups``.
    - ``item_groups``: a dict ``{item: group}`` or a frame with ``item`` and ``group``
      columns: with ``details``, ``item_groups`` holds every per-user mean that reads
      relevance computed again per group with only the group's items relevant, with the
      gap between groups and its bootstrap interval over users, as ``recs eval
      --item-groups``.
    - ``seed``: the seed of the negatives ``sampled:N`` draws (each user's come from its
      id's stream, whatever the order of the rows); 0 by default, as ``recs eval
      --seed``.
    - ``threshold``: a candidate is relevant when its grade is at least this.
    - ``zero``: users without a relevant candidate: ``exclude``, ``zero`` or
      ``ignatov`` (default ``zero`` under ``run``, ``exclude`` otherwise).

    Returns ``{key: value}`` with the keys of ``recs eval --json`` (``roc_auc``,
    ``roc_pauc@0.3``, ``croc_auc``, ``ndcg@10``, ...; NaN when undefined); with
    ``details`` the whole ``recs eval --json`` dict (counts, policy, warnings); with
    ``return_per_user`` a pandas frame of per-user values indexed by user (NaN where a
    user is left out of a metric). What was left out is reported as ``RecsWarning``.

    >>> q = Qrels({"u": {"a": 1, "b": 0, "c": 0}})
    >>> r = Run({"u": {"a": 0.5, "b": 0.5, "c": 0.1}})
    >>> evaluate(q, r, "roc,p@1")
    {'roc_auc': 0.75, 'roc_pauc@0.3': 0.09, 'p@1': 0.5}
    """
    run = _as_run(run, "run")
    policy = _policy(candidates, run)
    report, per_user = _recs.evaluate(
        qrels._native,
        run._native,
        _metric_list(metrics),
        ties,
        policy,
        _train(train),
        float(threshold),
        zero,
        float(max_fpr),
        bool(return_per_user),
        int(seed),
        None if head_share is None else float(head_share),
        None if head_items is None else int(head_items),
        _attribute_pairs(attributes),
        similarity,
        _group_pairs(user_groups),
        int(resamples),
        float(calibration_alpha),
        _group_pairs(item_groups, "item"),
    )
    _warn(report)
    if return_per_user:
        import pandas as pd

        if per_user is None:
            raise RecsError("return_per_user needs a per-user metric (p@N, ndcg@K, map, ...)")
        users, names, flat = per_user
        values = np.frombuffer(flat, dtype="<f8").reshape(len(users), len(names))
        frame = pd.DataFrame(values, columns=names, index=pd.Index(users, name="user"))
        return frame
    if details:
        return dict(report)
    return _metric_values(report)


def sampled_vs_exact(
    qrels: Any,
    runs: Union[Mapping[str, Run], Sequence[Run]],
    train: Any,
    negatives: int = 100,
    *,
    by: str = "uniform",
    seeds: int = 5,
    seed: int = 0,
    metrics: Union[str, Sequence[str]] = "auc,r@10,ndcg@10,ap",
    corrections: Union[str, Sequence[str]] = "sampled,rank-estimate,minimal-bias,monotone,bv:0.1",
    threshold: float = 1.0,
) -> Dict[str, Any]:
    """Sampled metrics against exact ones, side by side, as ``recs eval --sampled-vs-exact
    N --json`` reports them (the same code, ``recs_sampled::versus``; the same dict).

    Every relevant item (grade at least ``threshold``) of a user of ``qrels`` is an
    instance. Its exact rank is among the user's full-catalog negatives (the catalog: the
    items of ``qrels`` and ``train``, less the user's training events); its sampled rank is
    among the ``negatives`` that each of ``seeds`` draws takes from them (``by``
    ``"uniform"`` or ``"popularity"``; draw ``s`` uses seed ``seed + s``, so draw 0 is the
    draw of ``candidates="sampled:N"`` with that seed). The user's other relevant items
    are in neither list.

    - ``runs``: ``{name: run}`` (a ``Run`` or a dict), or a sequence named ``"0"``, ...;
      each must score the user's full-catalog candidates.
    - ``metrics``: metrics of one relevant item's rank: ``auc``, ``r@K`` (``hit@K``),
      ``p@K``, ``ap`` (``mrr``), ``ndcg``, ``ndcg@K``.
    - ``corrections``: ``sampled`` (none), ``rank-estimate``, ``minimal-bias``,
      ``monotone``, ``bv:γ`` (``docs/metrics.md``, "Sampled metrics").

    Returns ``{"mode", "negatives", "sampling", "seeds", "metrics", "corrections",
    "n_users", "n_instances", "n_catalog_sizes", "runs", "orders", "warnings"}``: per run
    and metric the ``exact`` mean and per estimator ``per_seed``, ``mean``, ``sd`` (None
    for one seed), ``error`` (mean − exact) and ``rmse``; with two runs or more, per metric
    and estimator Kendall's τ against the exact order per seed (``kendall_tau``, and its
    mean) and each pair's share of seeds that reverse it. Warnings are also issued as
    ``RecsWarning``.

    >>> q = Qrels({"u": {"a": 1}, "v": {"b": 1}})
    >>> train = {"u": ["c"], "v": ["d"], "w": ["e", "f", "g", "h"]}
    >>> def scores(relevant, known):  # the relevant item 4th of the 7 candidates
    ...     rest = [i for i in "abcdefgh" if i not in (relevant, known)]
    ...     return {i: float(len(rest) - k) for k, i in enumerate(rest[:3] + [relevant] + rest[3:])}
    >>> run = Run({"u": scores("a", "c"), "v": scores("b", "d")})
    >>> out = sampled_vs_exact(q, {"mid": run}, train, negatives=6, seeds=1, metrics="r@4")
    >>> r4 = out["runs"][0]["metrics"]["r@4"]
    >>> r4["exact"], r4["sampled"]["mean"]  # 6 negatives of 6 drawn: sampled is exact
    (1.0, 1.0)
    """
    names, run_list = _named_runs(runs)
    for i, name in enumerate(names):
        if name in names[:i]:
            raise RecsError(f"two runs are named {name!r}: each run needs its own name")
    native_train = _train(train)
    if native_train is None:
        raise RecsError("sampled_vs_exact needs train: the training events")
    out = _recs.sampled_vs_exact(
        _as_qrels(qrels)._native,
        [r._native for r in run_list],
        names,
        native_train,
        _versus_options(negatives, by, seed, seeds, metrics, corrections, threshold),
    )
    _warn(out)
    return out


def sampled_vs_exact_factors(
    qrels: Any,
    user_factors: Any,
    item_factors: Any,
    train: Any,
    negatives: int = 100,
    *,
    users: Any = None,
    items: Any = None,
    name: str = "factors",
    by: str = "uniform",
    seeds: int = 5,
    seed: int = 0,
    metrics: Union[str, Sequence[str]] = "auc,r@10,ndcg@10,ap",
    corrections: Union[str, Sequence[str]] = "sampled,rank-estimate,minimal-bias,monotone,bv:0.1",
    threshold: float = 1.0,
    memory_budget_mib: int = 1024,
    progress: bool = True,
) -> Dict[str, Any]:
    """``sampled_vs_exact`` for a factor model, streamed: the score of (user, item) is the
    dot product of their rows (the kernel of ``evaluate_factors``), every item row but a
    user's training items is a candidate, and each user's relevant items are placed among
    its negatives and among each seed's draw without listing a score, as ``recs eval
    --sampled-vs-exact N --user-factors U --item-factors V --json`` does. The same dict
    as ``sampled_vs_exact``, with one run named ``name``; its numbers are those of
    ``sampled_vs_exact`` on the same scores listed as a run (when every item row is an
    item of ``train`` or ``qrels``).

    - ``user_factors``, ``item_factors``, ``users``, ``items``: as in
      ``evaluate_factors``; ``train`` and ``qrels`` as there.
    - ``negatives``, ``by``, ``seeds``, ``seed``, ``metrics``, ``corrections``,
      ``threshold``: as in ``sampled_vs_exact`` (draw ``s`` uses seed ``seed + s`` and
      each user's id, as ``candidates="sampled:N"`` draws).
    - ``memory_budget_mib``: the score blocks held at once; ``progress``: a progress bar
      on a terminal.

    >>> import numpy as np
    >>> U = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    >>> V = np.array([[0.9, 0.1], [0.2, 0.8], [0.5, 0.5], [0.1, 0.9]], dtype=np.float32)
    >>> out = sampled_vs_exact_factors({0: {2: 1}, 1: {2: 1}}, U, V, {0: [0], 1: [1]}, 2,
    ...                                seeds=1, metrics="r@1", corrections="sampled", progress=False)
    >>> out["runs"][0]["metrics"]["r@1"]["exact"]  # user 0 ranks item 2 first, user 1 second
    0.5
    """
    U, V = _factor_pair(user_factors, item_factors)
    native_train = _train(train)
    if native_train is None:
        raise RecsError("sampled_vs_exact_factors needs train: the training events")
    out = _recs.sampled_vs_exact_factors(
        U.tobytes(),
        V.tobytes(),
        int(U.shape[1]),
        _as_qrels(qrels)._native,
        native_train,
        _row_ids(users, U.shape[0], "users", "user_factors"),
        _row_ids(items, V.shape[0], "items", "item_factors"),
        str(name),
        _versus_options(negatives, by, seed, seeds, metrics, corrections, threshold),
        int(memory_budget_mib),
        bool(progress),
    )
    _warn(out)
    return out


def curves(
    qrels: Qrels,
    run: Union[Run, Mapping[Any, Mapping[Any, float]]],
    candidates: Optional[str] = None,
    train: Any = None,
    *,
    threshold: float = 1.0,
    max_fpr: float = 0.3,
    seed: int = 0,
) -> Dict[str, Dict[str, Any]]:
    """The pooled ROC and the CROC curves at full resolution (ties at their expected
    value): ``{"roc": {"x": fpr, "y": tpr, "auc": ..., "pauc": ...}, "croc": {...}}``
    with numpy arrays from (0, 0) to (1, 1); ``pauc`` is the area up to ``max_fpr``.
    For the CROC, ``x`` is the share of each user's candidates recommended."""
    run = _as_run(run, "run")
    out = _recs.curves(
        qrels._native,
        run._native,
        _policy(candidates, run),
        _train(train),
        float(threshold),
        float(max_fpr),
        int(seed),
    )
    result = {}
    for name, (x, y, auc, pauc) in out.items():
        result[name] = {
            "x": np.frombuffer(x, dtype="<f8"),
            "y": np.frombuffer(y, dtype="<f8"),
            "auc": auc,
            "pauc": pauc,
        }
    return result


def _as_qrels(qrels: Any) -> Qrels:
    if isinstance(qrels, Qrels):
        return qrels
    if isinstance(qrels, Mapping):
        return Qrels(qrels)
    import os

    if isinstance(qrels, (str, os.PathLike)):
        return Qrels.from_file(qrels)
    if hasattr(qrels, "columns"):
        return Qrels.from_df(qrels)
    raise RecsError(f"qrels must be a recs.Qrels, a dict, a frame or a path, not {type(qrels).__name__}")


def _as_array(data: Any, name: str) -> np.ndarray:
    """A numpy view of a numpy, torch or JAX array (through ``__array__``, else DLPack),
    without a copy where the layout allows."""
    if hasattr(data, "detach"):  # a torch tensor that may require gradients
        data = data.detach()
    try:
        return np.asarray(data)
    except Exception as first:  # noqa: BLE001  (any array library's refusal)
        if hasattr(data, "__dlpack__"):
            try:
                return np.from_dlpack(data)
            except Exception:  # noqa: BLE001
                pass
        raise RecsError(
            f"{name}: cannot be read as a host array ({first}); move it to the CPU first"
        ) from None


def _float_rows(data: Any, name: str) -> np.ndarray:
    """A 2-D float32 or float64 array as contiguous little-endian float32 rows."""
    array = _as_array(data, name)
    if array.ndim != 2:
        raise RecsError(f"{name}: expected a 2-D array (rows × dimensions), got shape {array.shape}")
    if array.dtype.kind != "f" or array.dtype.itemsize not in (4, 8):
        raise RecsError(f"{name}: expected float32 or float64 values, got {array.dtype}")
    return np.ascontiguousarray(array, dtype="<f4")


def _row_ids(ids: Any, n_rows: int, name: str, rows: str) -> List[str]:
    """The ids naming ``n_rows`` rows: row numbers by default."""
    if ids is None:
        return [str(i) for i in range(n_rows)]
    ids = _ids(np.asarray(ids).ravel().tolist())
    if len(ids) != n_rows:
        raise RecsError(f"{name}: {len(ids)} ids for the {n_rows} rows of {rows}")
    return ids


def _stream_options(metrics, ties, threshold, zero, max_fpr, memory_budget_mib, progress):
    """The options of a streamed evaluation as the native side takes them."""
    return (
        _metric_list(metrics),
        ties,
        float(threshold),
        zero,
        float(max_fpr),
        int(memory_budget_mib),
        bool(progress),
    )


def _fact_options(head_share, head_items, attributes, similarity, calibration_alpha):
    """The options of the list metrics' facts as the native side takes them."""
    return (
        None if head_share is None else float(head_share),
        None if head_items is None else int(head_items),
        _attribute_pairs(attributes),
        similarity,
        float(calibration_alpha),
    )


def evaluate_factors(
    user_factors: Any,
    item_factors: Any,
    train: Any,
    qrels: Any,
    metrics: Union[str, Sequence[str]] = "roc,croc,ndcg@10,r@20,map",
    *,
    users: Any = None,
    items: Any = None,
    ties: str = "expected",
    threshold: float = 1.0,
    zero: Optional[str] = None,
    max_fpr: float = 0.3,
    memory_budget_mib: int = 1024,
    progress: bool = True,
    details: bool = False,
    device: str = "cpu",
    device_memory_mib: int = 2048,
    head_share: Optional[float] = None,
    head_items: Optional[int] = None,
    attributes: Any = None,
    similarity: str = "cosine",
    calibration_alpha: float = 0.01,
):
    """Evaluates a factor model on the full catalog, exactly and without listing its
    scores: the score of (user, item) is the dot product of row ``u`` of
    ``user_factors`` and row ``i`` of ``item_factors``, computed by the kernel ``recs
    run`` scores its factor models with (float32 products summed in float64 in a fixed
    order), and every item row but a user's training items is a candidate.

    - ``user_factors`` (users × rank), ``item_factors`` (items × rank): numpy arrays of
      float32 or float64, C or Fortran order, or torch/JAX arrays on the CPU (read
      through ``__array__`` or DLPack). float64 factors are rounded to float32.
    - ``users``, ``items``: the ids naming the rows (default: the row numbers
      ``0, 1, ...``); every user and item of ``train`` and ``qrels`` must name a row.
    - ``train``: the training events (a dict, or a frame/table with ``user`` and
      ``item`` columns); ``qrels``: the graded test items (a ``Qrels``, a dict, a frame
      or a file); users of the qrels are judged, a user without a relevant item needs a
      row of grade 0.
    - ``metrics``, ``ties``, ``threshold``, ``zero``, ``max_fpr``: as in ``evaluate``,
      the metrics of the lists' items included (``coverage@N``, ``arp@N``, ``ild@N``,
      ``miscal@N``, ``gini@N``, ...): each user's top N is selected from the streamed
      catalog, its popularity read from ``train``, so they equal ``evaluate``'s on the
      listed scores, bit for bit; ``head_share``, ``head_items``, ``attributes``,
      ``similarity`` and ``calibration_alpha`` as in ``evaluate``. ``device="cuda"``
      counts without selecting lists and refuses them.
    - ``memory_budget_mib``: the block buffers of the evaluation together (as ``recs
      run --memory-budget-mib``); ``progress``: a progress bar on a terminal.
    - ``device``: ``"cpu"``, or ``"cuda"`` to score and count the catalog on the first
      NVIDIA GPU (the same arithmetic: the result is the CPU's, bit for bit), holding at
      most ``device_memory_mib`` MiB there; without a GPU or its driver, a ``RecsError``
      says why. Factors that are torch tensors on a GPU are copied to the host first (a
      model's factors are small; the scores are never listed). ``"cuda-emulator"`` runs
      the GPU path with its kernels compiled for the CPU by the machine's C++ compiler:
      the same result without a GPU, slowly, to check that path.

    Memory grows with users + items + graded pairs, never users × items; the GIL is
    released while it runs. The result equals ``evaluate(qrels, run, metrics,
    candidates="catalog", train=train)`` on the run listing every score, bit for bit
    (when every item row is an item of ``train`` or ``qrels``).

    >>> import numpy as np
    >>> U = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    >>> V = np.array([[0.9, 0.1], [0.2, 0.8], [0.5, 0.5]], dtype=np.float32)
    >>> evaluate_factors(U, V, {0: [0], 1: [0]}, {0: {2: 1}, 1: {2: 1}}, "p@1,mrr")
    {'p@1': 0.5, 'mrr': 0.75}
    """
    if device not in _DEVICES:
        raise RecsError(f'device: {device!r}; expected "cpu", "cuda" or "cuda-emulator"')
    U, V = _factor_pair(user_factors, item_factors)
    user_ids = _row_ids(users, U.shape[0], "users", "user_factors")
    item_ids = _row_ids(items, V.shape[0], "items", "item_factors")
    report = _recs.evaluate_factors(
        U.tobytes(),
        V.tobytes(),
        int(U.shape[1]),
        _as_qrels(qrels)._native,
        _train(train),
        user_ids,
        item_ids,
        _stream_options(metrics, ties, threshold, zero, max_fpr, memory_budget_mib, progress),
        _fact_options(head_share, head_items, attributes, similarity, calibration_alpha),
        device,
        int(device_memory_mib),
    )
    _warn(report)
    return dict(report) if details else _metric_values(report)


def _versus_options(negatives, by, seed, seeds, metrics, corrections, threshold) -> tuple:
    """The options of ``sampled_vs_exact`` and ``sampled_vs_exact_factors``, as the
    native module takes them."""
    return (
        int(negatives),
        str(by),
        int(seed),
        int(seeds),
        _metric_list(metrics),
        _metric_list(corrections),
        float(threshold),
    )


def _factor_pair(user_factors: Any, item_factors: Any) -> Any:
    """Both factor matrices as float32 rows on the host, of one rank."""
    U = _float_rows(_on_host(user_factors), "user_factors")
    V = _float_rows(_on_host(item_factors), "item_factors")
    if U.shape[1] != V.shape[1]:
        raise RecsError(
            f"user_factors and item_factors: {U.shape[1]} and {V.shape[1]} dimensions; "
            "the factors of one model have the same rank"
        )
    return U, V


def _on_host(data: Any) -> Any:
    """A torch tensor on a GPU copied to the host; anything else as it is."""
    if getattr(data, "is_cuda", False) and hasattr(data, "cpu"):
        return data.detach().cpu()
    return data


_DEVICES = ("cpu", "cuda", "cuda-emulator")


def _not_finite(block, user_rows, user_ids, item_ids):
    """The error naming the first non-finite score of a block (rows × items)."""
    r, c = (int(x) for x in np.argwhere(~np.isfinite(np.asarray(block)))[0])
    return RecsError(
        f"scores: user `{user_ids[int(user_rows[r])]}`, item `{item_ids[c]}`: "
        f"{float(np.asarray(block)[r, c])} is not a finite score"
    )


def _emulated_block_scorer(score_block: Any, n_items: int, user_ids, item_ids):
    """``score_block`` for ``device="cuda-emulator"``: the GPU path with its kernels
    compiled for the CPU, whose "device" memory is the host's, so a block's address is
    its float32 array's."""

    def call(rows: bytes):
        user_rows = np.frombuffer(rows, dtype="<u4").astype(np.int64)
        block = _as_array(score_block(user_rows), "score_block")
        if block.shape != (len(user_rows), n_items):
            raise RecsError(
                f"score_block returned shape {tuple(block.shape)}; expected ({len(user_rows)}, {n_items})"
            )
        block = np.ascontiguousarray(block, dtype="<f4")
        if not np.isfinite(block).all():
            raise _not_finite(block, user_rows, user_ids, item_ids)
        return (int(block.ctypes.data), block)

    return call


def _device_block_scorer(score_block: Any, n_items: int, user_ids, item_ids):
    """``score_block`` for scores left on the GPU, as the native side calls it: user
    rows as little-endian uint32 bytes in, ``(address, tensor)`` out, the device address
    of the block's contiguous float32 scores and the tensor that owns them; device,
    shape, dtype and finiteness checked there."""
    try:
        import torch
    except ImportError:
        raise RecsError('device="cuda" reads the scorer\'s blocks through torch, which is not installed') from None

    def call(rows: bytes):
        user_rows = np.frombuffer(rows, dtype="<u4").astype(np.int64)
        block = score_block(user_rows)
        if not isinstance(block, torch.Tensor):
            try:
                block = torch.as_tensor(block, device="cuda")
            except Exception as e:  # noqa: BLE001  (any array the GPU cannot read)
                raise RecsError(
                    f'score_block: device="cuda" needs scores on the GPU (a torch tensor or an array '
                    f"with __cuda_array_interface__), got {type(block).__name__} ({e})"
                ) from None
        if not block.is_cuda:
            raise RecsError('score_block: device="cuda" needs scores on the GPU, got a tensor on the CPU')
        if block.dim() != 2 or tuple(block.shape) != (len(user_rows), n_items):
            raise RecsError(
                f"score_block returned shape {tuple(block.shape)}; expected ({len(user_rows)}, {n_items})"
            )
        block = block.detach().to(torch.float32).contiguous()
        bad = torch.nonzero(~torch.isfinite(block))
        if len(bad):
            r, c = (int(x) for x in bad[0])
            raise RecsError(
                f"scores: user `{user_ids[int(user_rows[r])]}`, item `{item_ids[c]}`: "
                f"{float(block[r, c])} is not a finite score"
            )
        return (int(block.data_ptr()), block)

    return call


def _block_scorer(score_block: Any, n_items: int):
    """``score_block`` as the native side calls it: user rows as little-endian uint32
    bytes in, the block's float32 scores as bytes out, shape and dtype checked."""

    def call(rows: bytes) -> bytes:
        user_rows = np.frombuffer(rows, dtype="<u4").astype(np.int64)
        scores = _as_array(score_block(user_rows), "score_block")
        if scores.ndim != 2 or scores.shape != (len(user_rows), n_items):
            raise RecsError(
                f"score_block returned shape {tuple(scores.shape)} for {len(user_rows)} "
                f"user rows; expected ({len(user_rows)}, {n_items}): one row per user, one "
                "column per item"
            )
        if scores.dtype.kind != "f":
            raise RecsError(f"score_block returned {scores.dtype} scores; expected float32 or float64")
        return np.ascontiguousarray(scores, dtype="<f4").tobytes()

    return call


def evaluate_scorer(
    score_block: Any,
    n_users: int,
    train: Any,
    qrels: Any,
    metrics: Union[str, Sequence[str]] = "roc,croc,ndcg@10,r@20,map",
    *,
    n_items: Optional[int] = None,
    users: Any = None,
    items: Any = None,
    block_users: Optional[int] = None,
    ties: str = "expected",
    threshold: float = 1.0,
    zero: Optional[str] = None,
    max_fpr: float = 0.3,
    memory_budget_mib: int = 1024,
    progress: bool = True,
    details: bool = False,
    device: str = "cpu",
    device_memory_mib: int = 2048,
    head_share: Optional[float] = None,
    head_items: Optional[int] = None,
    attributes: Any = None,
    similarity: str = "cosine",
    calibration_alpha: float = 0.01,
):
    """Evaluates any model on the full catalog from the scores it gives blocks of users:
    ``score_block(user_rows)`` gets an int64 array of user rows (``0 .. n_users - 1``)
    and returns a ``len(user_rows) × n_items`` array of float32 or float64 scores (numpy,
    or torch/JAX on the CPU), one column per item row. Each block is evaluated and
    dropped, so memory holds a few blocks, never users × items.

    - ``users``, ``items``: the ids naming the user and item rows (default: row
      numbers); ``n_items`` defaults to ``len(items)``, else to the width of one block
      the scorer is asked for first.
    - ``block_users``: users per call (default: up to 64, fewer on a large catalog;
      the memory budget may lower it); the result does not depend on it.
    - The pooled ROC (``roc``) needs every positive before the negatives: the scorer is
      then called twice for every block and must give the same scores both times (a
      difference is an error naming the user and item); other metrics take one pass.
    - ``train``, ``qrels``, ``metrics`` and the options: as in ``evaluate_factors``.
    - ``device="cuda"``: the scorer returns torch tensors on the GPU (or arrays torch
      reads there through ``__cuda_array_interface__``), which are counted where they
      are, without a copy to the host, on the first NVIDIA GPU: the same result, bit for
      bit. ``device_memory_mib`` bounds what the evaluation holds there besides the
      scorer's blocks; ``n_items`` (or ``items``) must then be given.
      ``"cuda-emulator"``: the GPU path with its kernels compiled for the CPU, the
      scorer's blocks host arrays (as on the CPU).

    The scorer is called with the GIL held, one call at a time, while the blocks already
    scored are evaluated in parallel. Non-finite scores are an error naming the user and
    the item.

    >>> import numpy as np
    >>> scores = np.array([[0.9, 0.2, 0.5], [0.1, 0.8, 0.5]], dtype=np.float32)
    >>> evaluate_scorer(lambda rows: scores[rows], 2, {0: [0], 1: [0]}, {0: {2: 1}, 1: {2: 1}}, "p@1,mrr")
    {'p@1': 0.5, 'mrr': 0.75}
    """
    if not callable(score_block):
        raise RecsError(f"score_block must be callable, not {type(score_block).__name__}")
    n_users = int(n_users)
    if n_users < 1:
        raise RecsError(f"n_users: {n_users}; expected at least one user row")
    if device not in _DEVICES:
        raise RecsError(f'device: {device!r}; expected "cpu", "cuda" or "cuda-emulator"')
    if n_items is None and items is not None:
        n_items = len(np.asarray(items).ravel())
    if n_items is None and device != "cpu":
        raise RecsError(f'device="{device}": give n_items (or items), the width of a block')
    if n_items is None:
        first = _as_array(score_block(np.zeros(1, dtype=np.int64)), "score_block")
        if first.ndim != 2:
            raise RecsError(f"score_block returned shape {tuple(first.shape)}; expected (users, items)")
        n_items = int(first.shape[1])
    user_ids = _row_ids(users, n_users, "users", "the scorer's user rows")
    item_ids = _row_ids(items, int(n_items), "items", "the scorer's columns")
    if device == "cuda":
        scorer = _device_block_scorer(score_block, int(n_items), user_ids, item_ids)
    elif device == "cuda-emulator":
        scorer = _emulated_block_scorer(score_block, int(n_items), user_ids, item_ids)
    else:
        scorer = _block_scorer(score_block, int(n_items))
    report = _recs.evaluate_scorer(
        scorer,
        _as_qrels(qrels)._native,
        _train(train),
        user_ids,
        item_ids,
        None if block_users is None else int(block_users),
        _stream_options(metrics, ties, threshold, zero, max_fpr, memory_budget_mib, progress),
        _fact_options(head_share, head_items, attributes, similarity, calibration_alpha),
        device,
        int(device_memory_mib),
    )
    _warn(report)
    return dict(report) if details else _metric_values(report)


def compare(
    qrels: Any,
    runs: Union[Mapping[str, Run], Sequence[Run]],
    metrics: Union[str, Sequence[str]] = "p@10,r@10,ndcg@10,map,mrr",
    tests: Union[str, Sequence[str], None] = None,
    ties: str = "expected",
    candidates: Optional[str] = None,
    train: Any = None,
    *,
    adjust: str = "holm",
    pairs: Optional[str] = None,
    baseline: Optional[str] = None,
    tukey: bool = False,
    permutations: int = 10_000,
    resamples: int = 10_000,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
    missing: str = "error",
    threshold: float = 1.0,
    zero: Optional[str] = None,
    test: Optional[str] = None,
    head_share: Optional[float] = None,
    head_items: Optional[int] = None,
    attributes: Any = None,
    similarity: str = "cosine",
    calibration_alpha: float = 0.01,
):
    """Compares several runs on the same qrels as ``recs compare`` does: paired tests
    over users, effect sizes with 95% intervals, every test's p-values adjusted over the
    family of (pair, metric) comparisons, and the run each comparison finds better. The
    statistics are those of ``recs compare``, number for number (the same code,
    ``recs_stats::family``).

    - ``runs``: ``{name: run}`` (a ``Run`` or a dict), or a sequence of runs named
      ``"0"``, ``"1"``, ...; at least two.
    - ``metrics``: per-user metrics (``p@N``, ``r@N``, ``f1@N``, ``hit@N``, ``ndcg@K``,
      ``ndcg_exp@K``, ``ap@K``, ``map``, ``mrr``), each enlarging the family.
    - ``tests``: a list or a comma-separated string of ``t`` (paired Student t),
      ``wilcoxon`` (signed-rank), ``sign``, ``fisher`` (randomisation, ``permutations``),
      ``bootstrap`` (paired, ``resamples``); default ``"t,fisher"``. The first one marks
      significance (``better``) unless ``tukey``. ``test=`` is accepted for one test.
      ``better`` is the higher run, except for ``miscal@N`` and ``arp@N``, where it is
      the lower one, as ``recs compare`` marks them.
    - ``adjust``: ``holm``, ``bonferroni``, ``bh`` (Benjamini–Hochberg) or ``none``.
    - ``pairs``: ``"all"`` (every pair of runs) or ``"baseline"`` (each run against
      ``baseline``, the first run when none is named); by default ``"baseline"`` when
      ``baseline`` is given, else ``"all"``. A comparison is of ``a − b``.
    - ``tukey``: the randomised Tukey HSD of each metric (all pairs only), which then
      marks significance; ``seed`` seeds it, every randomised test and the negatives of
      ``candidates="sampled:N"``.
    - ``alpha``: the level of ``better``; ``missing``: a user of the qrels that a run does
      not score at all is an ``"error"``, or scored 0 on every metric (``"zero"``).
    - ``ties``, ``candidates``, ``train``, ``threshold``, ``zero``: as in ``evaluate``;
      so are ``head_share``, ``head_items``, ``attributes``, ``similarity`` and
      ``calibration_alpha`` for the per-user metrics of the lists' items (``arp@N``,
      ``epc@N``, ``ild@N``, ``miscal@N``, ...), whose popularity and histories come from
      ``train``, as ``recs compare --train --attributes`` reads them.

    Returns a pandas frame with one row per (metric, pair), the columns of ``recs compare
    --format csv``: ``metric``, ``run_a``, ``run_b``, ``n_users``, ``mean_a``,
    ``mean_b``, ``difference``, ``difference_lower``, ``difference_upper``, ``d_z``,
    ``d_z_lower``, ``d_z_upper`` (NaN when undefined), then per test ``<test>_statistic``,
    ``<test>_p``, ``<test>_p_adjusted`` (and ``bootstrap_lower``, ``bootstrap_upper``),
    ``tukey_p`` with ``tukey``, ``adjustment`` and ``better`` (the run name, or None).
    ``frame.attrs`` holds ``family`` ("6 comparisons: 3 pairs × 2 metrics, Holm"),
    ``marks`` (what decided ``better``), ``missing`` (per run, the users it does not
    score, scored 0 under ``missing="zero"``) and ``warnings`` (also issued as
    ``RecsWarning``).

    >>> q = Qrels({u: {"a": 1, "b": 0, "c": 0} for u in "uvwxyz"})
    >>> good = Run({u: {"a": 2.5 - r, "b": 2, "c": 1} for u, r in zip("uvwxyz", [0, 0, 1, 0, 0, 1])})
    >>> bad = Run({u: {"a": 2.5 - r, "b": 2, "c": 1} for u, r in zip("uvwxyz", [2, 1, 2, 2, 1, 2])})
    >>> table = compare(q, {"good": good, "bad": bad}, "mrr", tests="t")
    >>> table[["run_a", "run_b", "mean_a", "mean_b", "t_p", "better"]].round(4)
      run_a run_b  mean_a  mean_b    t_p better
    0  good   bad  0.8333  0.3889  0.005   good
    >>> table.attrs["family"]
    '1 comparison: 1 pair × 1 metric, Holm'
    """
    import pandas as pd

    if test is not None:
        if tests is not None:
            raise RecsError("give tests= or its one-test form test=, not both")
        tests = test
    if tests is None:
        tests = "t,fisher"
    test_list = [t.strip() for t in tests.split(",")] if isinstance(tests, str) else [str(t) for t in tests]
    names, run_list = _named_runs(runs)
    if len(run_list) < 2:
        raise RecsError(f"compare needs at least two runs, found {len(run_list)}")
    for i, name in enumerate(names):
        if name in names[:i]:
            raise RecsError(f"two runs are named {name!r}: each run needs its own name")
    if pairs is None:
        pairs = "all" if baseline is None else "baseline"
    if pairs == "all":
        if baseline is not None:
            raise RecsError('pairs="all" compares every pair: a baseline is for pairs="baseline"')
        base = None
    elif pairs == "baseline":
        if baseline is None:
            base = 0
        elif str(baseline) in names:
            base = names.index(str(baseline))
        else:
            raise RecsError(f"baseline {str(baseline)!r} is not a run; the runs are {', '.join(names)}")
    else:
        raise RecsError(f"unknown pairs `{pairs}` (allowed: all, baseline)")
    if candidates is None:
        policies = [_policy(None, r) for r in run_list]
        for name, policy in zip(names[1:], policies[1:]):
            if policy != policies[0]:
                raise RecsError(
                    f"runs {names[0]} and {name} are read under different candidate policies "
                    f"({policies[0]} and {policy}: one is a TREC run); give candidates"
                )
        candidates = policies[0]
    out = _recs.compare(
        _as_qrels(qrels)._native,
        [r._native for r in run_list],
        names,
        _metric_list(metrics),
        test_list,
        adjust,
        base,
        bool(tukey),
        int(permutations),
        int(resamples),
        int(seed),
        float(alpha),
        missing,
        ties,
        candidates,
        _train(train),
        float(threshold),
        zero,
        _fact_options(head_share, head_items, attributes, similarity, calibration_alpha),
    )
    _warn(out)
    frame = pd.DataFrame(out["rows"], columns=out["columns"])
    # None where no run is found better (not the NaN of a string column).
    at = out["columns"].index("better")
    frame["better"] = pd.Series([row[at] for row in out["rows"]], dtype=object, index=frame.index)
    frame.attrs["family"] = out["family"]
    frame.attrs["marks"] = out["marks"]
    frame.attrs["missing"] = dict(zip(names, out["missing"]))
    frame.attrs["warnings"] = list(out["warnings"])
    return frame


class Accumulator:
    """A mergeable partial evaluation, for runs split into partitions by user.

    Each partition feeds its rows (``update``) into its own accumulator; accumulators
    travel as bytes (``bytes(acc)``, ``Accumulator.from_bytes``) and merge exactly:
    the result is the same, bit for bit, whatever the partitioning, and equals
    ``evaluate(qrels, run, metrics, candidates="qrels")`` when the run has rows for every
    user of the qrels. With ``candidates="catalog"`` and ``train``, the candidates are
    those of ``evaluate(..., candidates="catalog", train=train)``, listed once per
    accumulator (a few bytes per candidate). Every row of a user must come in one batch;
    a user seen twice is an error. Every metric of ``evaluate`` but ``coverage@N`` (which needs every user's
    full ranking) is accepted; the pooled ROC (``roc``) keeps one 4-byte key per
    candidate, so its accumulators grow with the candidates they saw.

    >>> q = Qrels({"u": {"a": 1, "b": 0}, "v": {"a": 0, "b": 1}})
    >>> left, right = Accumulator("p@1", q), Accumulator("p@1", q)
    >>> left.update(Run({"u": {"a": 0.9, "b": 0.1}}))
    >>> right.update(Run({"v": {"a": 0.9, "b": 0.1}}))
    >>> Accumulator.from_bytes(bytes(left), q).merge(right).result()
    {'p@1': 0.5}
    """

    def __init__(
        self,
        metrics: Union[str, Sequence[str]],
        qrels: Optional[Qrels] = None,
        ties: str = "expected",
        candidates: str = "qrels",
        train: Any = None,
        *,
        threshold: float = 1.0,
        zero: Optional[str] = None,
        max_fpr: float = 0.3,
        _native=None,
    ):
        if candidates not in ("qrels", "catalog"):
            raise RecsError(f"accumulators take candidates \"qrels\" or \"catalog\", not {candidates!r}")
        if (candidates == "catalog") != (train is not None):
            raise RecsError("candidates=\"catalog\" and train go together")
        if qrels is not None and train is not None:
            qrels = Qrels(_native=qrels._native.catalog(_train(train)))
        if _native is None:
            if qrels is None:
                raise RecsError("an accumulator needs the qrels")
            _native = _recs.NativeAccumulator(
                _metric_list(metrics), qrels._native, ties, candidates, float(threshold), zero, float(max_fpr)
            )
        self._native = _native
        self._qrels = qrels

    def update(
        self,
        batch: Any,
        user_col: str = "user",
        item_col: str = "item",
        score_col: str = "score",
    ) -> None:
        """Evaluates the users of ``batch`` (a ``Run``, a dict, a pandas frame or a
        pyarrow table or record batch of user, item, score rows)."""
        if self._qrels is None:
            raise RecsError("this accumulator was read from bytes without qrels: pass qrels to from_bytes")
        if isinstance(batch, Run):
            native = batch._native
        elif isinstance(batch, Mapping):
            native = Run(batch)._native
        else:
            if type(batch).__name__ == "RecordBatch":
                import pyarrow as pa

                batch = pa.Table.from_batches([batch])
            columns = _columns(batch, user_col, item_col, score_col, "batch")
            native = _recs.NativeRun.from_rows(*columns, "batch")
        self._native.update(self._qrels._native, native)

    def merge(self, other: "Accumulator") -> "Accumulator":
        """Adds the users of ``other`` (none may be in both); returns ``self``."""
        self._native.merge(other._native)
        return self

    def __bytes__(self) -> bytes:
        return bytes(self._native.to_bytes())

    @classmethod
    def from_bytes(cls, data: bytes, qrels: Optional[Qrels] = None, train: Any = None) -> "Accumulator":
        """An accumulator from ``bytes(acc)``; ``qrels`` (and ``train`` for the catalog)
        are needed only to ``update``."""
        candidates = "qrels" if train is None else "catalog"
        return cls("", qrels, candidates=candidates, train=train, _native=_recs.NativeAccumulator.from_bytes(bytes(data)))

    @property
    def n_users(self) -> int:
        """Users evaluated so far."""
        return self._native.n_users

    def result(self, details: bool = False) -> Dict[str, Any]:
        """The values of the users seen, with the keys of ``evaluate``."""
        report = dict(self._native.result())
        _warn(report)
        return report if details else _metric_values(report)


def split(
    events: Any,
    protocol: str = "holdout",
    seed: int = DEFAULT_SEED,
    repetition: int = 0,
    fold: int = 0,
    *,
    user_col: str = "user",
    item_col: str = "item",
    rating_col: str = "rating",
    timestamp_col: Optional[str] = None,
    **keys: Any,
) -> Dict[str, Any]:
    """Splits events (a pandas frame or pyarrow table) with a protocol of ``recs split``:
    ``holdout``, ``leave-k-out``, ``leave-one-out``, ``kfold-events``, ``kfold-users``,
    ``hidden-items``, ``cold-start-items``, ``strong``, ``given-l``, ``temporal``,
    ``temporal-last-n``; ``keys`` are the protocol's parameters as ``recs split`` takes
    them (``test_fraction=0.2``, ``k="20%"``, ``folds=5``, ``cut="fraction:0.8"``, ...).
    ``repetition`` and ``fold`` choose the split of a repeated or folded protocol.
    Returns ``{"train": frame, "test": frame}`` (and ``"history"``, the fold-in events of
    strong generalization) with columns ``user``, ``item``, ``rating`` (and
    ``timestamp``). The split is a pure function of the events, protocol, seed and split
    id; users and items are indexed in canonical order of their ids.

    >>> import pandas as pd
    >>> events = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 1, 3], "rating": [5, 3, 4, 2, 1]})
    >>> parts = split(events, "leave-one-out")
    >>> len(parts["train"]), len(parts["test"])
    (3, 2)
    """
    from .datasets import _frame

    if type(events).__module__.startswith("pyarrow"):
        events = events.to_pandas()
    users, user_codes, items, item_codes, values = _columns_of_frame(
        events, user_col, item_col, rating_col, "DataFrame"
    )
    timestamps = None
    if timestamp_col is not None:
        if timestamp_col not in events.columns:
            raise RecsError(f"DataFrame: no column `{timestamp_col}`")
        timestamps = np.asarray(events[timestamp_col], dtype="<i8").tobytes()
    parts = _recs.split(
        users,
        user_codes,
        items,
        item_codes,
        values,
        timestamps,
        protocol,
        [(str(k), str(v)) for k, v in keys.items()],
        int(seed),
        int(repetition),
        int(fold),
    )
    return {name: _frame(part) for name, part in parts.items()}


from . import datasets  # noqa: E402  (the module uses the native module above)
