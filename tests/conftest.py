pytest_plugins = ["tests.fixtures_db", "tests.fixtures_temporal"]
