import os
import shutil

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ticker", deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ticker"))


def _java() -> bool:
    """Whether Spark finds a Java runtime (JAVA_HOME, else ``java`` on PATH: as Spark looks)."""
    home = os.environ.get("JAVA_HOME")
    return os.access(os.path.join(home, "bin", "java"), os.X_OK) if home else shutil.which("java") is not None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Tests marked ``spark`` run on one worker (``--dist loadgroup``: one JVM for the run, not one
    per worker), and are skipped, saying why, where there is no Java runtime."""
    java = _java()
    for item in items:
        if item.get_closest_marker("spark") is not None:
            item.add_marker(pytest.mark.xdist_group("spark"))
            if not java:
                item.add_marker(pytest.mark.skip(reason="Spark needs a Java runtime (JAVA_HOME or java on PATH)"))
