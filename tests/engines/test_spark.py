"""The wide step runs where the data is: one parity matrix over every engine.

Polars (eager, lazy, streaming), DuckDB and Spark (classic ``local[1]`` and Spark
Connect) give the same tidy frames, to 1e-12, over the main operators, the
conventions, masks, folds, targets and ``by=``; validation errors have the same
class and message on Spark; one test runs on ``local-cluster[2,1,1024]`` (two
executor JVMs, so the shuffles cross processes).

Spark binds to loopback only: ``SPARK_LOCAL_IP``, the driver host and bind
address and the Connect server's address are 127.0.0.1, the UI is off, and a
test reads the JVM's sockets from ``/proc`` to check that nothing listens on, or
talks to, another address. One JVM serves both the classic session and the
Connect server (a plugin of that session), shared by the whole test session.

The Spark tests skip (with the reason) when pyspark or a Java runtime is missing;
CI installs both (``.ci/run``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from tests.spark_session import LOOPBACK, SPARK_CONF, spark_missing
from tests.strategies import CONVENTIONS, MEASURES, OPERATORS, dense_long

#: a JVM per session: minutes, not seconds (the quick loop, -m "not slow", leaves them out)
pytestmark = [pytest.mark.engines, pytest.mark.slow]

EXAMPLES = Path(__file__).parent.parent.parent / "examples"
PREDICTIONS = EXAMPLES / "predictions.parquet"


@pytest.fixture(scope="module")
def duck() -> Iterator[Any]:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    yield con
    con.close()


ENGINES = ("polars", "lazy", "streaming", "duckdb", "spark", "spark_connect")


def _native(engine: str, frame: pl.DataFrame, request: pytest.FixtureRequest) -> Any:
    """``frame`` as the engine's own frame (Spark and DuckDB get it through Arrow)."""
    if engine == "polars":
        return frame
    if engine in ("lazy", "streaming"):
        return frame.lazy()
    if engine == "duckdb":
        return request.getfixturevalue("duck").from_arrow(frame.to_arrow())
    session = request.getfixturevalue(engine)
    return session.createDataFrame(frame.to_arrow())


def _parquet(engine: str, path: Path, request: pytest.FixtureRequest) -> Any:
    """A scan of a Parquet file on the engine (the rows are never read into Python)."""
    if engine == "polars":
        return pl.read_parquet(path)
    if engine in ("lazy", "streaming"):
        return pl.scan_parquet(path)
    if engine == "duckdb":
        return request.getfixturevalue("duck").sql(f"select * from read_parquet('{path}')")
    return request.getfixturevalue(engine).read.parquet(str(path))


def _sort(df: pl.DataFrame) -> pl.DataFrame:
    return df.sort(pl.all(), nulls_last=True)


def _same(got: pl.DataFrame, expected: pl.DataFrame) -> None:
    assert_frame_equal(_sort(got), _sort(expected), abs_tol=1e-12, rel_tol=0.0)


# ---------------------------------------------------------------------------
# The cases: each builds predictions from a frame (or a Parquet path) and evaluates


def _labels_by(get: Callable[[Any], Any]) -> Any:
    """Label form read from Parquet, by model and day, every measure, operator and convention."""
    pr = af.from_labels(get(PREDICTIONS), example="example")
    return pr, {
        "measures": MEASURES,
        "operators": OPERATORS,
        "by": ["model", "day"],
        "convention": CONVENTIONS,
    }


def _labels_mixed(get: Callable[[Any], Any]) -> Any:
    """Cell operators and multiclass in one call (the undefined pairs listed), with n_examples."""
    pr = af.from_labels(get(PREDICTIONS))
    return pr, {
        "measures": ["f1", "mcc", "accuracy", "kappa_quadratic"],
        "operators": ["micro", "macro", "multiclass"],
        "by": ["model"],
        "grouping_sets": "rollup",
    }


def _masks_folds_data() -> pl.DataFrame:
    rng = np.random.default_rng(8)
    Y, P, M = (rng.integers(0, 2, (24, 4)) for _ in range(3))
    frame = dense_long(Y, P, M).with_columns(
        (pl.col("example") % 3).alias("fold"), (pl.col("example") % 2).alias("repeat")
    )
    # sparse: drop observed y = p = 0 entries (the universe is declared)
    return frame.filter(
        ~((pl.col("y") == 0) & (pl.col("p") == 0) & (pl.col("mask") == 1) & (pl.col("class") > 0))
    )


def _long_masks_folds(get: Callable[[Any], Any]) -> Any:
    """Sparse long form with a mask, repeated folds and every pooling."""
    pr = af.from_long(get(_masks_folds_data()), mask="mask", fold="fold", repeat="repeat", n_classes=4)
    pooling = ["pooled", "averaged", "fold", "min", "max", "std"]
    return pr, {
        "measures": MEASURES,
        "operators": OPERATORS,
        "pooling": pooling,
        "convention": ["exclude", "zero"],
    }


def _label_targets_data() -> pl.DataFrame:
    rng = np.random.default_rng(3)
    return pl.concat(
        [
            pl.DataFrame(
                {
                    "g": np.arange(16) % 2,
                    "example": np.arange(16),
                    "target": t,
                    "y_true": rng.integers(0, m, 16),
                    "y_pred": rng.integers(0, m, 16),
                }
            )
            for t, m in (("a", 2), ("b", 3))
        ]
    )


def _label_targets(get: Callable[[Any], Any]) -> Any:
    """Label form with two targets of different classes, by a group column."""
    pr = af.from_labels(get(_label_targets_data()), example="example", target="target")
    ops = ["micro", "macro", "weighted", "exemplar", "target"]
    return pr, {"operators": ops, "within": ["micro", "macro"], "by": "g", "convention": ["exclude", "one"]}


def _long_targets(get: Callable[[Any], Any]) -> Any:
    """Sparse long form with two targets and a class universe per target."""
    rng = np.random.default_rng(5)
    parts = []
    for t, m in (("a", 3), ("b", 5)):
        Y, P = rng.integers(0, 2, (12, m)), rng.integers(0, 2, (12, m))
        parts.append(dense_long(Y, P).with_columns(pl.lit(t).alias("target")))
    frame = pl.concat(parts).filter((pl.col("y") == 1) | (pl.col("p") == 1) | (pl.col("class") == 0))
    pr = af.from_long(get(frame), target="target", n_classes={"a": 3, "b": 5})
    ops = ["micro", "macro", "exemplar", "target"]
    return pr, {"operators": ops, "within": ["macro"], "convention": list(CONVENTIONS)}


def _soft_conventions(get: Callable[[Any], Any]) -> Any:
    """Soft labels under a t-norm, with rare classes (undefined entries), by group, every convention."""
    rng = np.random.default_rng(11)
    grid = np.array([0.0, 0.0, 0.0, 0.25, 0.5, 1.0])
    Y, P = rng.choice(grid, (20, 5)), rng.choice(grid, (20, 5))
    Y[:, 4] = P[:, 4] = 0.0  # a class never seen: undefined per-class values
    frame = dense_long(Y, P).with_columns((pl.col("example") % 2).cast(pl.String).alias("g"))
    pr = af.from_long(get(frame), tnorm="lukasiewicz", n_classes=5)
    return pr, {"measures": MEASURES, "operators": OPERATORS, "by": "g", "convention": list(CONVENTIONS)}


CASES: dict[str, Callable[[Callable[[Any], Any]], Any]] = {
    "labels_by": _labels_by,
    "labels_mixed": _labels_mixed,
    "long_masks_folds": _long_masks_folds,
    "label_targets": _label_targets,
    "long_targets": _long_targets,
    "soft_conventions": _soft_conventions,
}


def _run(case: str, engine: str, request: pytest.FixtureRequest | None) -> pl.DataFrame:
    def get(data: Any) -> Any:
        if engine == "polars":
            return pl.read_parquet(data) if isinstance(data, Path) else data
        assert request is not None
        return _parquet(engine, data, request) if isinstance(data, Path) else _native(engine, data, request)

    pr, kwargs = CASES[case](get)
    out = pr.evaluate(**kwargs, engine="streaming" if engine == "streaming" else "auto")
    assert isinstance(out, pl.DataFrame)
    return out


@pytest.mark.parametrize("engine", ENGINES[1:])
@pytest.mark.parametrize("case", list(CASES))
def test_parity(case: str, engine: str, request: pytest.FixtureRequest) -> None:
    expected = _run(case, "polars", None)
    got = _run(case, engine, request)
    _same(got, expected)


@pytest.mark.parametrize("engine", ["spark", "spark_connect"])
def test_diagnose_on_spark(engine: str, request: pytest.FixtureRequest) -> None:
    measures = ["precision", "recall", "f1", "mcc", "specificity"]
    expected = af.diagnose(af.from_labels(pl.read_parquet(PREDICTIONS)), measures, by=["model", "day"])
    got = af.diagnose(af.from_labels(_parquet(engine, PREDICTIONS, request)), measures, by=["model", "day"])
    assert expected.height > 0
    _same(got, expected)


def test_confusion_counts_and_cells_on_spark(spark: Any) -> None:
    frame = pl.read_parquet(PREDICTIONS)
    expected, got = af.from_labels(frame), af.from_labels(spark.read.parquet(str(PREDICTIONS)))
    _same(got.confusion_counts(by="model"), expected.confusion_counts(by="model"))
    _same(got.cells("profiles", by=["model", "day"]), expected.cells("profiles", by=["model", "day"]))
    one_hot = dense_long(np.eye(4)[[0, 1, 2, 3, 1]], np.eye(4)[[0, 2, 2, 3, 0]])
    _same(
        af.from_long(spark.createDataFrame(one_hot.to_arrow())).confusion_counts(),
        af.from_long(one_hot).confusion_counts(),
    )


def test_multiclass_operator_and_confusion_matrix_on_spark(spark: Any) -> None:
    # the label form's counts come from its one Spark job; the long form's from one more
    frame = pl.read_parquet(PREDICTIONS)
    expected, got = af.from_labels(frame), af.from_labels(spark.read.parquet(str(PREDICTIONS)))
    kw: dict[str, Any] = {"by": "model", "convention": ["exclude", "zero"]}
    _same(
        got.evaluate(None, ["micro", "multiclass"], **kw),
        expected.evaluate(None, ["micro", "multiclass"], **kw),
    )
    _same(
        got.confusion_matrix(by="model", normalize="true"),
        expected.confusion_matrix(by="model", normalize="true"),
    )
    one_hot = dense_long(np.eye(4)[[0, 1, 2, 3, 1]], np.eye(4)[[0, 2, 2, 3, 0]])
    long = af.from_long(spark.createDataFrame(one_hot.to_arrow()))
    _same(long.evaluate(None, "multiclass"), af.from_long(one_hot).evaluate(None, "multiclass"))


def _scores_frame() -> pl.DataFrame:
    rng = np.random.default_rng(14)
    n, m = 40, 3
    y = rng.integers(0, m, n)
    counts = np.array([rng.multinomial(10, rng.dirichlet(np.ones(m) + 2.0 * (np.arange(m) == t))) for t in y])
    return pl.DataFrame(
        {
            "example": np.repeat(np.arange(n), m),
            "class": np.tile(np.arange(m), n),
            "score": (counts / 10.0).ravel(),  # a grid: ties inside and across examples
            "y": np.eye(m, dtype=np.int64)[y].ravel(),
            "g": [None if e % 3 == 0 else str(e % 2) for e in np.repeat(np.arange(n), m)],
        }
    )


def _scores_everything(pr: af.Predictions) -> list[pl.DataFrame]:
    measures = ["auroc", "average_precision", "log_loss", "brier", "ece", "f1", "mcc"]
    return [
        pr.evaluate(measures, ["micro", "macro", "weighted"], by="g", convention=["exclude", "one"]),
        pr.evaluate(["auroc", "average_precision", "log_loss", "f1"], "exemplar", by="g"),
        pr.curve("roc", by="g"),
        pr.curve("pr", "macro", by="g"),
        pr.calibration(bins=4, strategy="quantile", by="g"),
        pr.best_threshold("f1", "macro", by="g"),
    ]


@pytest.mark.parametrize("engine", ["spark", "spark_connect"])
@pytest.mark.parametrize(("decision", "bins"), [("argmax", None), ("top_k", 4)])
def test_scores_on_spark(
    engine: str, decision: str, bins: int | None, request: pytest.FixtureRequest
) -> None:
    """from_scores on Spark: the decisions (windows), the measures on scores, curves, calibration, thresholds."""
    frame = _scores_frame()
    k = 2 if decision == "top_k" else None
    expected = _scores_everything(af.from_scores(frame, decision=decision, k=k, bins=bins))
    got = _scores_everything(
        af.from_scores(_native(engine, frame, request), decision=decision, k=k, bins=bins)
    )
    for g, e in zip(got, expected, strict=True):
        _same(g, e)


# ---------------------------------------------------------------------------
# Validation errors: the same class and message as on Polars

_LONG = {"example": [0, 0, 1, 1], "class": [0, 1, 0, 1], "y": [1, 0, 0, 1], "p": [1, 0, 1, 1]}
BAD: dict[str, tuple[str, dict[str, list[Any]], dict[str, Any]]] = {
    "null_y": ("long", {**_LONG, "y": [1, None, 0, 1]}, {}),
    "outside_unit_interval": ("long", {**_LONG, "p": [1, 0, 2, 1]}, {}),
    "soft_without_tnorm": ("long", {**_LONG, "y": [1.0, 0.0, 0.5, 1.0]}, {}),
    "duplicate_entry": ("long", {**_LONG, "class": [0, 0, 0, 1]}, {}),
    "sparse_without_universe": ("long", {k: v[:3] for k, v in _LONG.items()}, {}),
    "unknown_class": ("long", {**_LONG, "class": [0, 1, 0, 7]}, {"n_classes": 2}),
    "repeated_example": ("labels", {"example": [0, 0, 1], "y_true": [1, 0, 1], "y_pred": [1, 1, 0]}, {}),
    "null_label": ("labels", {"example": [0, 1, 2], "y_true": [1, None, 1], "y_pred": [1, 1, 0]}, {}),
    "targets_not_on_same_examples": (
        "labels",
        {"example": [0, 1, 0], "target": ["a", "a", "b"], "y_true": [1, 0, 1], "y_pred": [1, 1, 0]},
        {"target": "target"},
    ),
}


def _error(form: str, frame: Any, kwargs: dict[str, Any]) -> tuple[type[Exception], str]:
    build = af.from_long if form == "long" else af.from_labels
    extra = {"example": "example"} if form == "labels" else {}
    with pytest.raises(af.AggframeError) as info:
        build(frame, **extra, **kwargs).evaluate(["f1"], ["macro", "exemplar"])
    return type(info.value), str(info.value)


@pytest.mark.parametrize("engine", ["duckdb", "spark", "spark_connect"])
@pytest.mark.parametrize("bad", list(BAD))
def test_validation_errors_match_polars(bad: str, engine: str, request: pytest.FixtureRequest) -> None:
    form, data, kwargs = BAD[bad]
    frame = pl.DataFrame(data)
    expected = _error(form, frame, kwargs)
    assert _error(form, _native(engine, frame, request), kwargs) == expected


@pytest.mark.parametrize("engine", ["duckdb", "spark", "spark_connect"])
def test_duplicate_check_is_exact(engine: str, request: pytest.FixtureRequest) -> None:
    """The engines' bit words are a lower bound (classes 64 apart share a bit): a shortfall is recounted."""
    apart = pl.DataFrame(
        {
            "example": [0, 0, 0, 1, 1, 1],
            "class": [0, 64, -64] * 2,
            "y": [1, 0, 0, 0, 1, 0],
            "p": [1, 0, 0, 0, 0, 1],
        }
    )
    _same(af.from_long(_native(engine, apart, request)).evaluate(), af.from_long(apart).evaluate())
    dup = apart.with_columns(pl.Series("class", [0, 64, -64, 0, 0, 64]))
    expected = _error("long", dup, {})
    assert expected[0] is af.errors.DuplicateEntryError
    assert _error("long", _native(engine, dup, request), {}) == expected


# ---------------------------------------------------------------------------
# Loopback only


def _listening_and_peers(pid: int) -> tuple[set[str], set[str]]:
    """Local addresses of the process's listening TCP sockets, and remote addresses of its connections."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    listening, peers = set(), set()
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, remote, state, inode = fields[1], fields[2], fields[3], fields[9]
            if inode not in inodes:
                continue
            address = _address(local.split(":")[0], width)
            if state == "0A":  # LISTEN
                listening.add(address)
            elif state == "01":  # ESTABLISHED
                peers.add(_address(remote.split(":")[0], width))
    return listening, peers


def _address(hex_address: str, width: int) -> str:
    raw = bytes.fromhex(hex_address)
    # /proc stores each 32-bit word in host (little-endian) order
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    if width == 8:
        return socket.inet_ntop(socket.AF_INET, words)
    return socket.inet_ntop(socket.AF_INET6, words)


def _loopback(address: str) -> bool:
    return address.startswith(("127.", "::ffff:127.")) or address == "::1"


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="needs Linux /proc/net/tcp")
def test_spark_binds_to_loopback_only(spark: Any, spark_connect: Any) -> None:
    spark_connect.range(3).collect()  # a Connect round trip, so its connection is open
    pid = spark.sparkContext._gateway.proc.pid
    listening, peers = _listening_and_peers(pid)
    assert listening, "found no listening socket of the Spark JVM"
    assert all(_loopback(a) for a in listening), listening
    assert all(_loopback(a) for a in peers), peers


# ---------------------------------------------------------------------------
# Two executor JVMs: a real shuffle between processes

_CLUSTER_SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    from pyspark.sql import SparkSession
    import aggframe as af

    conf, predictions, long_path, out = json.loads(sys.argv[1]), *sys.argv[2:5]
    builder = SparkSession.builder.master("local-cluster[2,1,1024]").appName("aggframe-cluster-test")
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    try:
        assert spark.sparkContext.getConf().get("spark.master") == "local-cluster[2,1,1024]"
        labels = af.from_labels(spark.read.parquet(predictions), example="example")
        labels.evaluate(["f1", "mcc"], ["micro", "macro", "exemplar"], by=["model", "day"]).write_parquet(out + "/labels.parquet")
        long = af.from_long(spark.read.parquet(long_path), mask="mask", fold="fold", repeat="repeat", n_classes=4)
        long.evaluate(pooling=["pooled", "averaged"]).write_parquet(out + "/long.parquet")
        executors = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1
        print(json.dumps({"executors": executors}))
    finally:
        spark.stop()
    """
)


def test_local_cluster_two_executors(tmp_path: Path) -> None:
    reason = spark_missing()
    if reason:
        pytest.skip(reason)
    long_path = tmp_path / "long.parquet"
    _masks_folds_data().write_parquet(long_path)
    script = tmp_path / "cluster.py"
    script.write_text(_CLUSTER_SCRIPT)
    # three short-lived JVMs (the driver and two executors) on a small machine: the client
    # compiler alone (C1) halves their CPU time (mostly JIT at start-up); the shuffles, the
    # point of the test, are the same
    c1 = "-XX:TieredStopAtLevel=1"
    conf = {
        **SPARK_CONF,
        "spark.sql.shuffle.partitions": "4",
        "spark.executor.memory": "512m",
        "spark.driver.extraJavaOptions": c1,
        "spark.executor.extraJavaOptions": c1,
    }
    # the workers of a local cluster write under $SPARK_HOME/work: a home of links to the
    # installed pyspark keeps that in tmp_path, not in site-packages
    spec = importlib.util.find_spec("pyspark")
    assert spec is not None
    assert spec.origin is not None
    home = tmp_path / "spark_home"
    home.mkdir()
    for entry in Path(spec.origin).parent.iterdir():
        if entry.name != "work":
            (home / entry.name).symlink_to(entry)
    env = {**os.environ, "SPARK_LOCAL_IP": LOOPBACK, "SPARK_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, str(script), json.dumps(conf), str(PREDICTIONS), str(long_path), str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"executors": 2}
    frame = pl.read_parquet(PREDICTIONS)
    expected = af.from_labels(frame, example="example").evaluate(
        ["f1", "mcc"], ["micro", "macro", "exemplar"], by=["model", "day"]
    )
    _same(pl.read_parquet(tmp_path / "labels.parquet"), expected)
    long = af.from_long(_masks_folds_data(), mask="mask", fold="fold", repeat="repeat", n_classes=4)
    _same(pl.read_parquet(tmp_path / "long.parquet"), long.evaluate(pooling=["pooled", "averaged"]))


def _scores_call(call: Callable[[af.Predictions], Any]) -> Callable[[Any], Callable[[], Any]]:
    """The scores are checked when the predictions are built: built now, ``call`` made later."""

    def build(frame: Any) -> Callable[[], Any]:
        pr = af.from_scores(frame, decision="argmax")
        return lambda: call(pr)

    return build


#: what is read from a broken file: the frame written, and the call made of the engine's frame
#: (built before the file breaks, made after)
BROKEN_READS: dict[str, tuple[pl.DataFrame, Callable[[Any], Callable[[], Any]]]] = {
    "labels": (
        pl.DataFrame({"example": [0, 1, 2, 3], "y_true": [0, 1, 1, 0], "y_pred": [0, 1, 0, 0]}),
        lambda frame: lambda: af.from_labels(frame, example="example").evaluate("f1", "macro"),
    ),
    "ordinal": (
        pl.DataFrame({"example": [0, 1, 2, 3], "y_true": [0, 1, 2, 0], "y_pred": [0, 2, 1, 0]}),
        lambda frame: lambda: af.from_ordinal(frame, example="example", n_classes=3),
    ),
    "scores": (
        _scores_frame().drop("g"),
        _scores_call(lambda pr: pr.evaluate(["f1", "auroc"], "macro")),
    ),
    "best_threshold": (_scores_frame().drop("g"), _scores_call(lambda pr: pr.best_threshold("f1"))),
}


@pytest.mark.parametrize("engine", ["lazy", "duckdb", "spark", "spark_connect"])
@pytest.mark.parametrize("broken", ["deleted", "corrupt"])
@pytest.mark.parametrize("read", list(BROKEN_READS))
def test_a_file_broken_after_the_frame_is_made_is_a_source_error(
    read: str, engine: str, broken: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """A Parquet file deleted or overwritten after the engine's frame was made: a SourceError on every
    engine (DuckDB raised its IOException / InvalidInputException, Spark classic a Py4JJavaError; the
    measures on scores, best_threshold and from_ordinal, which read another engine's frame while
    building their plan, raised them still), naming the file (Spark classic's message was its
    wrapper's, "Exception thrown in awaitResult:")."""
    path = tmp_path / "p.parquet"
    data, call = BROKEN_READS[read]
    data.write_parquet(path)
    run = call(_parquet(engine, path, request))
    if broken == "deleted":
        path.unlink()
    else:
        path.write_bytes(b"garbage" * 100)
    with pytest.raises(af.errors.SourceError, match="could not read") as info:
        run()
    if engine != "lazy":  # Polars' own message of a LazyFrame it was given does not name the file
        assert str(path) in str(info.value)


@pytest.mark.parametrize("engine", ["spark", "spark_connect"])
def test_files_of_two_types_on_spark_name_the_file_and_the_column(
    engine: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """A folder whose files disagree on a column's type: Spark fails reading the second file. The
    SourceError names it and the column (Spark classic's said "Exception thrown in awaitResult:")."""
    frame = pl.DataFrame({"example": [0, 1, 2, 3], "y_true": [0, 1, 1, 0], "y_pred": [0, 1, 0, 0]})
    frame.write_parquet(tmp_path / "a.parquet")
    frame.with_columns(pl.col("y_true").cast(pl.String)).write_parquet(tmp_path / "b.parquet")
    pr = af.from_labels(_parquet(engine, tmp_path, request), example="example")
    with pytest.raises(af.errors.SourceError, match=r"the files disagree on a column's type") as info:
        pr.evaluate("f1", "macro")
    assert str(tmp_path / "b.parquet") in str(info.value)
    assert "y_true" in str(info.value)


@pytest.mark.parametrize("engine", ["spark", "spark_connect"])
@pytest.mark.parametrize(
    ("key", "kind"),
    [
        ("parse_json(cast(e % 2 as string))", "variant"),
        ("make_ym_interval(1, e % 2)", "interval year to month"),
    ],
)
def test_a_key_spark_cannot_group_or_hand_over_is_named(
    engine: str, key: str, kind: str, request: pytest.FixtureRequest
) -> None:
    """A VARIANT key was Spark's GROUP_EXPRESSION_TYPE_IS_NOT_ORDERABLE on "__af_by0" (a private name),
    an interval Arrow's UNSUPPORTED_DATA_TYPE_FOR_ARROW_CONVERSION, both "could not read the frame"."""
    session = request.getfixturevalue(engine)
    frame = session.sql(f"select e, e % 3 as y_true, e % 2 as y_pred, {key} as `m.k` from range(6) as t(e)")
    with pytest.raises(af.errors.InvalidValueError, match=f"column 'm.k' has the Spark type '{kind}'"):
        af.from_labels(frame, example="e").evaluate("f1", "macro", by="m.k")
    # a day-time interval is a Polars Duration: it stays a key
    frame = session.sql(
        "select e, e % 3 as y_true, e % 2 as y_pred, make_dt_interval(e % 2) as k from range(6) as t(e)"
    )
    assert af.from_labels(frame, example="e").evaluate("f1", "macro", by="k").height == 2
