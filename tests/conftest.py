import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ticker", deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ticker"))
