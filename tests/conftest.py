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


LONG_FOLDERS = ("bench", "chaos", "outage", "webui")
"""Folders whose every test is in the long tier: the benchmark smoke runs, the chaos runs, the
ledger outage and the Temporal Web UI in a browser."""
MATRIX_DATABASES = ("database_url", "store_spec")
"""The fixtures that run a test once per database; their PostgreSQL case is in the long tier
unless the test is marked `databases_differ`."""


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by the markers added here
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long folders' tests join the long tier. Then the files marked `slow` or `long` go
    first: on several workers the longest start at once instead of one of them running alone at
    the end, when the suite's time is its slowest worker's. Then the PostgreSQL half of the
    database matrix joins the long tier where the databases behave alike."""
    for item in items:
        if item.path.parent.name in LONG_FOLDERS and item.path.parent.parent.name == "tests":
            item.add_marker(pytest.mark.long)
    items.sort(key=lambda item: not any(item.iter_markers("slow")) and not _long(item))
    for item in items:
        if _postgres_case_of_the_matrix(item) and not item.get_closest_marker("databases_differ"):
            item.add_marker(pytest.mark.long)


def _long(item: pytest.Item) -> bool:
    return item.get_closest_marker("long") is not None


def _postgres_case_of_the_matrix(item: pytest.Item) -> bool:
    params = getattr(getattr(item, "callspec", None), "params", {})
    return any(params.get(name) == "postgres" for name in MATRIX_DATABASES)


@pytest.fixture(autouse=True)
def operators_sign_in_to_the_kit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI run in a test mints its operator's token from the kit's development identity
    provider, which the kit's workers trust (`sagas.testing.kit_operator`)."""
    monkeypatch.setenv("FUNDSAGA_DEV_IDENTITY", str(dev_identity().directory))
