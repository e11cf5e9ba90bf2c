"""The hypothesis profiles (CI: derandomized) and shared fixtures; strategies live in tests/strategies.py."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

_COMMON = {
    "max_examples": 25,
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
#: the Spark session fixtures (spark_jvm, spark, spark_connect), defined once for every module
pytest_plugins = ("tests.spark_session",)

settings.register_profile("aggframe", **_COMMON)
# CI: the same examples every run, so a red build is reproducible from its log
settings.register_profile("aggframe-ci", derandomize=True, print_blob=True, **_COMMON)
settings.load_profile("aggframe-ci" if os.environ.get("CI") else "aggframe")


#: the session fixtures that start the test JVM (tests/spark_session.py)
_SPARK_FIXTURES = {"spark_jvm", "spark", "spark_connect"}


def _runs_spark(item: pytest.Item) -> bool:
    """A test of Spark: it asks for a Spark fixture, or names Spark (``request.getfixturevalue``)."""
    return bool(_SPARK_FIXTURES & set(getattr(item, "fixturenames", ()))) or "spark" in item.nodeid.lower()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The Spark tests first, the local-cluster one (its own JVMs, the longest test) at their head.

    Scheduling only, the same tests run: xdist's ``worksteal`` gives each worker a
    contiguous half of this order and steals from the tails, so the Spark tests stay on
    the first worker and one JVM serves them all (not one per worker, each slow to
    start), and the longest test starts at once instead of holding up the end of the run.
    """
    spark = [item for item in items if _runs_spark(item)]
    spark.sort(key=lambda item: item.name != "test_local_cluster_two_executors")  # stable
    rest = [item for item in items if not _runs_spark(item)]
    items[:] = [*spark, *rest]


@pytest.fixture
def digits_like() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 10, 500)
    p = np.where(rng.random(500) < 0.8, y, rng.integers(0, 10, 500))
    return y, p
