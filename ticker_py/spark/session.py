"""One helper for a quiet local SparkSession."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from ..errors import Diagnostic, UsageError

__all__ = ["get_spark", "java_runtime", "start_spark", "warm_workers"]

JAVA_HINT = (
    "Spark needs a Java runtime (17 or later): install one and put `java` on PATH or set "
    "JAVA_HOME, or use the features without Spark (`ticker gen --no-spark`, `ticker run`)"
)

_LOG4J = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""


def _log4j_file() -> str:
    path = Path(tempfile.gettempdir()) / "ticker_py-log4j2.properties"
    if not path.exists() or path.read_text() != _LOG4J:
        path.write_text(_LOG4J)
    return str(path)


def java_runtime() -> str:
    """The ``java`` executable Spark will start (JAVA_HOME first, then PATH); UsageError if none."""
    home = os.environ.get("JAVA_HOME")
    if home:
        java = Path(home) / "bin" / "java"
        if os.access(java, os.X_OK):
            return str(java)
        raise UsageError(Diagnostic(f"JAVA_HOME is '{home}', but it has no bin/java", notes=(JAVA_HINT,)))
    java = shutil.which("java")
    if java is None:
        raise UsageError(Diagnostic("no Java runtime found (no JAVA_HOME, no `java` on PATH)", notes=(JAVA_HINT,)))
    return java


def _cores(master: str) -> int:
    """The cores of a local master (``local[2]``: 2, ``local[*]``: this machine's), else 4."""
    inside = master[master.find("[") + 1 : master.find("]")] if master.startswith("local[") else ""
    if inside == "*":
        return os.cpu_count() or 1
    return int(inside) if inside.isdigit() else 4 if master != "local" else 1


def get_spark(master: str = "local[2]", app: str = "ticker_py", **conf):
    """Build (or get the running) local SparkSession: UI and progress bar off, as many shuffle
    partitions as the local master has cores, workers on this Python (``sys.executable``), only
    errors logged.

    ``conf`` adds Spark settings, ``spark.driver.memory="4g"`` style (dots as given). Without
    pyspark or a Java runtime, or when the JVM does not start, raises UsageError with a hint.
    """
    java_runtime()
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise UsageError(Diagnostic("Spark needs pyspark: pip install 'ticker_py[spark]'")) from None

    log = f"-Dlog4j2.configurationFile=file:{_log4j_file()}"
    builder = (
        SparkSession.builder.master(master)
        .appName(app)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", str(_cores(master)))
        .config("spark.driver.extraJavaOptions", log)
        .config("spark.executor.extraJavaOptions", log)
    )
    for key, value in conf.items():
        builder = builder.config(key, str(value))
    try:
        spark = builder.getOrCreate()
    except Exception as err:  # PySparkRuntimeError: JAVA_GATEWAY_EXITED, ...
        if "JAVA_GATEWAY" not in str(err) and "Java gateway" not in str(err):
            raise
        raise UsageError(Diagnostic("the Java runtime for Spark did not start", notes=(JAVA_HINT,))) from None
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _warm(_):
    """A task that readies its Python worker for sharded runs: the modules a cell imports and an
    engine built and run once."""
    import pyarrow.compute  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    from ..api import Reasoner
    from ..shard import run_cell  # noqa: F401
    from ..spec import RunSpec

    Reasoner("q(X) :- p(X) in [1].", spec=RunSpec()).evaluate(0)
    return os.getpid()


def warm_workers(spark) -> int:
    """Start the executors' Python workers (Spark reuses them for every later job) with what a
    sharded run imports, one task per core; returns the number of workers readied. Part of the
    session's start: a run's first job would otherwise pay it."""
    n = spark.sparkContext.defaultParallelism
    return len(set(spark.sparkContext.parallelize(range(n), n).map(_warm).collect()))


def start_spark(master: str):
    """The session of ``master`` for a sharded run that ticker_py starts itself, its Python workers
    started too; the seconds both took said on stderr (a run's cost apart from them)."""
    start = time.perf_counter()
    # in local mode the executors share the driver's JVM: its heap holds only task metadata (the
    # stream and the answers go through Parquet files, never through the JVM)
    session = get_spark(master, **({"spark.driver.memory": "1g"} if master.startswith("local") else {}))
    started = time.perf_counter()
    warm_workers(session)
    print(
        f"[spark] session started in {started - start:.1f}s, its Python workers in {time.perf_counter() - started:.1f}s",
        file=sys.stderr,
    )
    if session not in _DISCONNECT:  # getOrCreate gives the running session again
        _DISCONNECT.append(session)
        atexit.register(_disconnect, session)
    return session


_DISCONNECT: list = []  # the sessions started here, disconnected at exit


def _disconnect(session) -> None:
    """At exit, close the connection to the session's JVM first: the JVM then stops (its context
    too, by its own shutdown hook) sooner than when it finds the interpreter gone."""
    try:
        session.sparkContext._gateway.shutdown()  # pyspark offers no public call short of stop()
    except Exception:  # pragma: no cover - the JVM may be gone already
        pass
