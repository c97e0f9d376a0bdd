"""A run partitioned by Spark (local[2], applyInArrow) and evaluated with accumulators
gives exactly the single-process result."""

import os
import sys

import numpy as np
import pytest

import recs
from conftest import make_case

pyspark = pytest.importorskip("pyspark")

METRICS = "roc,croc,p@5,r@5,ndcg@10,map,mrr"


@pytest.fixture(scope="module")
def spark():
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("recs-accumulators")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )
    yield session
    session.stop()


def test_partitions_evaluated_in_spark_merge_to_the_single_process_result(spark):
    import pyarrow as pa

    qrels_frame, run_frame = make_case(7, n_users=200, n_items=60, ties=True)
    qrels = recs.Qrels.from_df(qrels_frame)
    single = recs.evaluate(qrels, recs.Run.from_df(run_frame), METRICS, details=True)

    frame = spark.createDataFrame(run_frame.assign(score=run_frame.score.astype(np.float64)))
    # Every row of a user in one group: groups by a hash of the user.
    frame = frame.withColumn("part", pyspark.sql.functions.abs(pyspark.sql.functions.hash("user")) % 5)

    def evaluate_group(table: pa.Table) -> pa.Table:
        acc = recs.Accumulator(METRICS, qrels)
        acc.update(table)
        return pa.table({"state": pa.array([bytes(acc)], pa.binary())})

    states = frame.groupBy("part").applyInArrow(evaluate_group, "state binary").collect()
    assert len(states) > 1
    merged = recs.Accumulator.from_bytes(states[0].state)
    for row in states[1:]:
        merged.merge(recs.Accumulator.from_bytes(row.state))
    result = merged.result(details=True)
    for key, value in single.items():
        assert result[key] == value, key
