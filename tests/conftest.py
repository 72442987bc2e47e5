import pytest
from hypothesis import HealthCheck, settings

pytest_plugins = ["tests.fixtures_db", "tests.fixtures_temporal", "tests.fixtures_cli"]

# Property tests check behaviour, never speed: a loaded CI machine must not fail them on time.
settings.register_profile("fundsaga", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("fundsaga")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Test files marked `long` first: on several workers the longest start at once instead of
    one of them running alone at the end, when the suite's time is its slowest worker's."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)
