#!/bin/sh
# Creates Temporal's two databases and brings both schemas to this image's version.
# Safe to run again: an existing database is kept, and update-schema applies only what is new.
set -eu

: "${POSTGRES_SEEDS:?}" "${POSTGRES_USER:?}" "${POSTGRES_PWD:?}"
: "${DBNAME:=temporal}" "${VISIBILITY_DBNAME:=temporal_visibility}" "${DB_PORT:=5432}"
export SQL_PASSWORD="$POSTGRES_PWD"
schemas=/etc/temporal/schema/postgresql/v12

sql_tool() {
    temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" "$@"
}

setup() {
    # Fails when the database exists, which is the normal case from the second start on.
    sql_tool create-database --db "$1" || echo "database $1 exists"
    sql_tool --db "$1" setup-schema -v 0.0
    sql_tool --db "$1" update-schema -d "$schemas/$2/versioned"
}

setup "$DBNAME" temporal
setup "$VISIBILITY_DBNAME" visibility
