"""fundsaga's Alembic scripts, installed as the package data `sagas.migrations`."""
