"""The Spark test session: one ``local[1]`` JVM with a Spark Connect server in it, loopback only.

Registered once, as a plugin of the root ``conftest.py``, so every test module
shares the same fixtures (a module that imported them would define a second
session fixture: a second ``getOrCreate`` that returns the running JVM, whose
Connect server listens on the first fixture's port, not the second's).

Spark binds to loopback only: ``SPARK_LOCAL_IP``, the driver host and bind
address and the Connect server's address are 127.0.0.1, the UI is off.
The fixtures skip (with the reason) when pyspark or a Java runtime is missing.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

LOOPBACK = "127.0.0.1"
#: configuration of every test JVM: loopback only, no UI, small and quiet
SPARK_CONF = {
    "spark.driver.host": LOOPBACK,
    "spark.driver.bindAddress": LOOPBACK,
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.default.parallelism": "1",
    "spark.driver.memory": "768m",
    "spark.log.level": "ERROR",
}


def spark_missing() -> str | None:
    """Why Spark tests cannot run here, or None."""
    if importlib.util.find_spec("pyspark") is None:
        return "pyspark is not installed (pip install -e '.[test]')"
    java = shutil.which("java")
    if java is None or subprocess.run([java, "-version"], capture_output=True, check=False).returncode:
        return "no Java runtime (java -version fails); .ci/run installs openjdk-17-jre-headless"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def spark_jvm() -> Iterator[tuple[Any, int, str]]:
    """One local[1] JVM for the session: the classic session, with a Spark Connect server in it."""
    reason = spark_missing()
    if reason:
        pytest.skip(reason)
    os.environ["SPARK_LOCAL_IP"] = LOOPBACK  # read when the JVM starts
    from pyspark.sql import SparkSession

    port, token = _free_port(), str(uuid.uuid4())
    builder = SparkSession.builder.master("local[1]").appName("aggframe-tests")
    conf = {
        **SPARK_CONF,
        "spark.plugins": "org.apache.spark.sql.connect.SparkConnectPlugin",
        "spark.connect.grpc.binding.address": LOOPBACK,
        "spark.connect.grpc.binding.port": str(port),
        "spark.connect.authenticate.token": token,
    }
    for key, value in conf.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    # the running JVM's own Connect address (a session created earlier keeps its port and token)
    port = int(session.conf.get("spark.connect.grpc.binding.port"))
    token = session.conf.get("spark.connect.authenticate.token")
    yield session, port, token
    session.stop()


@pytest.fixture(scope="session")
def spark(spark_jvm: tuple[Any, int, str]) -> Any:
    return spark_jvm[0]


def _connect_client(port: int, token: str) -> Any:
    """A Spark Connect client of ``127.0.0.1:port``: local credentials and the token, no proxy, no name lookup.

    pyspark's own builder sends a token over a plain channel only to the host name
    ``localhost``, which leaves the address to a resolver (and gRPC honours
    ``http_proxy``): the channel here names the loopback address itself and turns the
    proxy off, and the client retries for seconds, not pyspark's default ten minutes,
    so a Connect server that cannot be reached fails its tests at once.
    """
    import grpc
    from pyspark.sql.connect.client import DefaultChannelBuilder
    from pyspark.sql.connect.client.retries import DefaultPolicy
    from pyspark.sql.connect.session import SparkSession as RemoteSparkSession

    class LoopbackChannel(DefaultChannelBuilder):  # type: ignore[misc]
        def toChannel(self) -> grpc.Channel:
            creds = grpc.composite_channel_credentials(
                grpc.local_channel_credentials(grpc.LocalConnectionType.LOCAL_TCP),
                grpc.access_token_call_credentials(token),
            )
            return self._secure_channel(self.endpoint, creds)

    builder = LoopbackChannel(f"sc://{LOOPBACK}:{port}/;token={token};grpc_keepalive_enabled=false")
    builder.setChannelOption("grpc.enable_http_proxy", 0)
    session = RemoteSparkSession.builder.channelBuilder(builder).getOrCreate()
    session.client.set_retry_policies([DefaultPolicy(max_retries=4, max_backoff=2000)])
    return session


@pytest.fixture(scope="session")
def spark_connect(spark_jvm: tuple[Any, int, str]) -> Iterator[Any]:
    """A Spark Connect client of the server in the test JVM (gRPC on loopback, with a token)."""
    _, port, token = spark_jvm
    session = _connect_client(port, token)
    try:
        session.range(1).collect()  # one round trip: an unreachable server fails here, with why
    except Exception as exc:
        proxies = {k: v for k, v in os.environ.items() if "proxy" in k.lower()}
        pytest.fail(
            f"Spark Connect on {LOOPBACK}:{port} does not answer ({type(exc).__name__}: {exc}); proxy environment: {proxies}"
        )
    yield session
    session.stop()
