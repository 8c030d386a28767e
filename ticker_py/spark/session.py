"""One helper for a quiet local SparkSession."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

__all__ = ["get_spark"]

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


def get_spark(master: str = "local[2]", app: str = "ticker_py", **conf):
    """Build (or get the running) local SparkSession: UI and progress bar off, few shuffle
    partitions, workers on this Python (``sys.executable``), only errors logged.

    ``conf`` adds Spark settings, ``spark.driver.memory="4g"`` style (dots as given).
    """
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    log = f"-Dlog4j2.configurationFile=file:{_log4j_file()}"
    builder = (SparkSession.builder.master(master).appName(app)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "4")
               .config("spark.driver.extraJavaOptions", log)
               .config("spark.executor.extraJavaOptions", log))
    for key, value in conf.items():
        builder = builder.config(key, str(value))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
