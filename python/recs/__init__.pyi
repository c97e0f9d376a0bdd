"""Type stubs of the recs package."""

import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Type, TypeVar, Union

import numpy as np
import pandas as pd

_Ids = Mapping[Any, Mapping[Any, float]]
_Path = Union[str, os.PathLike[str]]
_Metrics = Union[str, Sequence[str]]

class RecsError(ValueError): ...
class RecsWarning(UserWarning): ...

_P = TypeVar("_P", bound="_Pairs")

class _Pairs:
    def __init__(self, data: Optional[_Ids] = ...) -> None: ...
    @classmethod
    def from_dict(cls: Type[_P], data: _Ids) -> _P: ...
    def to_dict(self) -> Dict[str, Dict[str, float]]: ...

class Qrels(_Pairs):
    @classmethod
    def from_df(cls, frame: Any, user_col: str = ..., item_col: str = ..., grade_col: str = ...) -> Qrels: ...
    @classmethod
    def from_arrow(cls, table: Any, user_col: str = ..., item_col: str = ..., grade_col: str = ...) -> Qrels: ...
    @classmethod
    def from_file(cls, path: _Path) -> Qrels: ...
    @property
    def n_users(self) -> int: ...
    @property
    def n_pairs(self) -> int: ...
    def to_df(self) -> pd.DataFrame: ...

class Run(_Pairs):
    @classmethod
    def from_df(cls, frame: Any, user_col: str = ..., item_col: str = ..., score_col: str = ...) -> Run: ...
    @classmethod
    def from_arrow(cls, table: Any, user_col: str = ..., item_col: str = ..., score_col: str = ...) -> Run: ...
    @classmethod
    def from_file(cls, path: _Path, format: str = ...) -> Run: ...
    @property
    def n_rows(self) -> Optional[int]: ...

def evaluate(
    qrels: Qrels,
    run: Union[Run, _Ids],
    metrics: _Metrics = ...,
    ties: str = ...,
    candidates: Optional[str] = ...,
    train: Any = ...,
    return_per_user: bool = ...,
    *,
    threshold: float = ...,
    zero: Optional[str] = ...,
    max_fpr: float = ...,
    details: bool = ...,
    seed: int = ...,
    head_share: Optional[float] = ...,
    head_items: Optional[int] = ...,
    attributes: Any = ...,
    similarity: str = ...,
    user_groups: Any = ...,
    resamples: int = ...,
    calibration_alpha: float = ...,
) -> Any: ...
def evaluate_factors(
    user_factors: Any,
    item_factors: Any,
    train: Any,
    qrels: Any,
    metrics: _Metrics = ...,
    *,
    users: Any = ...,
    items: Any = ...,
    ties: str = ...,
    threshold: float = ...,
    zero: Optional[str] = ...,
    max_fpr: float = ...,
    memory_budget_mib: int = ...,
    progress: bool = ...,
    details: bool = ...,
    device: str = ...,
    device_memory_mib: int = ...,
    head_share: Optional[float] = ...,
    head_items: Optional[int] = ...,
    attributes: Any = ...,
    similarity: str = ...,
    calibration_alpha: float = ...,
) -> Any: ...
def evaluate_scorer(
    score_block: Any,
    n_users: int,
    train: Any,
    qrels: Any,
    metrics: _Metrics = ...,
    *,
    n_items: Optional[int] = ...,
    users: Any = ...,
    items: Any = ...,
    block_users: Optional[int] = ...,
    ties: str = ...,
    threshold: float = ...,
    zero: Optional[str] = ...,
    max_fpr: float = ...,
    memory_budget_mib: int = ...,
    progress: bool = ...,
    details: bool = ...,
    device: str = ...,
    device_memory_mib: int = ...,
    head_share: Optional[float] = ...,
    head_items: Optional[int] = ...,
    attributes: Any = ...,
    similarity: str = ...,
    calibration_alpha: float = ...,
) -> Any: ...
def curves(
    qrels: Qrels,
    run: Union[Run, _Ids],
    candidates: Optional[str] = ...,
    train: Any = ...,
    *,
    threshold: float = ...,
    max_fpr: float = ...,
) -> Dict[str, Dict[str, Any]]: ...
def compare(
    qrels: Any,
    runs: Union[Mapping[str, Union[Run, _Ids]], Sequence[Union[Run, _Ids]]],
    metrics: _Metrics = ...,
    tests: Union[str, Sequence[str], None] = ...,
    ties: str = ...,
    candidates: Optional[str] = ...,
    train: Any = ...,
    *,
    adjust: str = ...,
    pairs: Optional[str] = ...,
    baseline: Optional[str] = ...,
    tukey: bool = ...,
    permutations: int = ...,
    resamples: int = ...,
    seed: int = ...,
    alpha: float = ...,
    missing: str = ...,
    threshold: float = ...,
    zero: Optional[str] = ...,
    test: Optional[str] = ...,
    head_share: Optional[float] = ...,
    head_items: Optional[int] = ...,
    attributes: Any = ...,
    similarity: str = ...,
    calibration_alpha: float = ...,
) -> pd.DataFrame: ...

def sampled_vs_exact(
    qrels: Any,
    runs: Union[Mapping[str, Union[Run, _Ids]], Sequence[Union[Run, _Ids]]],
    train: Any,
    negatives: int = ...,
    *,
    by: str = ...,
    seeds: int = ...,
    seed: int = ...,
    metrics: _Metrics = ...,
    corrections: Union[str, Sequence[str]] = ...,
    threshold: float = ...,
) -> Dict[str, Any]: ...

def sampled_vs_exact_factors(
    qrels: Any,
    user_factors: Any,
    item_factors: Any,
    train: Any,
    negatives: int = ...,
    *,
    users: Any = ...,
    items: Any = ...,
    name: str = ...,
    by: str = ...,
    seeds: int = ...,
    seed: int = ...,
    metrics: _Metrics = ...,
    corrections: Union[str, Sequence[str]] = ...,
    threshold: float = ...,
    memory_budget_mib: int = ...,
    progress: bool = ...,
) -> Dict[str, Any]: ...

class Accumulator:
    def __init__(
        self,
        metrics: _Metrics,
        qrels: Optional[Qrels] = ...,
        ties: str = ...,
        candidates: str = ...,
        train: Any = ...,
        *,
        threshold: float = ...,
        zero: Optional[str] = ...,
        max_fpr: float = ...,
    ) -> None: ...
    def update(self, batch: Any, user_col: str = ..., item_col: str = ..., score_col: str = ...) -> None: ...
    def merge(self, other: Accumulator) -> Accumulator: ...
    def __bytes__(self) -> bytes: ...
    @classmethod
    def from_bytes(cls, data: bytes, qrels: Optional[Qrels] = ..., train: Any = ...) -> Accumulator: ...
    @property
    def n_users(self) -> int: ...
    def result(self, details: bool = ...) -> Dict[str, Any]: ...

DEFAULT_SEED: int

def split(
    events: Any,
    protocol: str = ...,
    seed: int = ...,
    repetition: int = ...,
    fold: int = ...,
    *,
    user_col: str = ...,
    item_col: str = ...,
    rating_col: str = ...,
    timestamp_col: Optional[str] = ...,
    **keys: Any,
) -> Dict[str, pd.DataFrame]: ...

from . import datasets as datasets
