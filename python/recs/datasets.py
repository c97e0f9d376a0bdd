"""Registered datasets as pandas frames, read from disk (``data_dir``, ``RECS_DATA_DIR``
or the user cache, as ``recs data`` finds them; nothing is downloaded from Python).

>>> events = load("ml-100k")            # doctest: +SKIP
>>> list(events.columns)                # doctest: +SKIP
['user', 'item', 'rating', 'timestamp']
"""

from __future__ import annotations

import os
from typing import Optional, Union

import numpy as np

from . import _recs

__all__ = ["load"]


def _frame(events, value_name: str = "rating"):
    """A frame of an events tuple of the native module."""
    import pandas as pd

    user_ids, item_ids, users, items, values, timestamps = events
    users = np.frombuffer(users, dtype="<u4")
    items = np.frombuffer(items, dtype="<u4")
    columns = {
        "user": np.asarray(user_ids, dtype=object)[users],
        "item": np.asarray(item_ids, dtype=object)[items],
        value_name: np.frombuffer(values, dtype="<f4").copy(),
    }
    if timestamps is not None:
        columns["timestamp"] = np.frombuffer(timestamps, dtype="<i8").copy()
    return pd.DataFrame(columns)


def load(name: str, part: str = "events", data_dir: Optional[Union[str, "os.PathLike[str]"]] = None):
    """The events of dataset ``name`` (``ml-100k``, ``msweb``, ...) as a frame with
    columns ``user``, ``item``, ``rating`` (1 for implicit events) and, when the source
    records time, ``timestamp``. ``part="test"`` gives the test part a source ships
    (MS Web's ``.test`` file)."""
    parts = _recs.load_dataset(name, None if data_dir is None else os.fspath(data_dir))
    if part not in parts:
        from ._recs import RecsError

        raise RecsError(f"dataset `{name}` has no part `{part}` (parts: {', '.join(parts)})")
    return _frame(parts[part])
