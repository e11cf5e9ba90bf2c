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


@pytest.fixture
def digits_like() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 10, 500)
    p = np.where(rng.random(500) < 0.8, y, rng.integers(0, 10, 500))
    return y, p
