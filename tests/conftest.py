from hypothesis import HealthCheck, settings

pytest_plugins = ["tests.fixtures_db", "tests.fixtures_temporal", "tests.fixtures_cli"]

# Property tests check behaviour, never speed: a loaded CI machine must not fail them on time.
settings.register_profile("fundsaga", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("fundsaga")
