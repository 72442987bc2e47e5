import pytest
from hypothesis import HealthCheck, settings

from sagas.testing import dev_identity

pytest_plugins = [
    "tests.fixtures_db",
    "tests.fixtures_temporal",
    "tests.fixtures_cli",
    "tests.fixtures_cluster",
    "tests.fixtures_watchdog",
]

# Property tests check behaviour, never speed: a loaded CI machine must not fail them on time.
settings.register_profile("fundsaga", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("fundsaga")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Test files marked `long` first: on several workers the longest start at once instead of
    one of them running alone at the end, when the suite's time is its slowest worker's."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


@pytest.fixture(autouse=True)
def operators_sign_in_to_the_kit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI run in a test mints its operator's token from the kit's development identity
    provider, which the kit's workers trust (`sagas.testing.kit_operator`)."""
    monkeypatch.setenv("FUNDSAGA_DEV_IDENTITY", str(dev_identity().directory))
