#!/bin/sh
# Runs once, as the superuser, when the ledger's data volume is empty: the DBA's part of
# docs/operations.md, "Deploying on PostgreSQL with two roles". The migrations do the rest.
set -eu

: "${LEDGER_OWNER_PASSWORD:?set LEDGER_OWNER_PASSWORD in .env}"
: "${LEDGER_WORKER_PASSWORD:?set LEDGER_WORKER_PASSWORD in .env}"

# psql's :'name' quoting keeps the passwords out of the SQL text and safe from quotes in them.
psql --set ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
    --set owner_password="$LEDGER_OWNER_PASSWORD" \
    --set worker_password="$LEDGER_WORKER_PASSWORD" <<'SQL'
CREATE ROLE fundsaga_owner LOGIN PASSWORD :'owner_password';
CREATE ROLE fundsaga_worker LOGIN PASSWORD :'worker_password';
CREATE ROLE fundsaga_audit_writer NOLOGIN;
GRANT fundsaga_audit_writer TO fundsaga_worker;
-- The ledger and the audit trail; their anchors are on anchor-db (init-anchors.sh).
CREATE DATABASE fundsaga OWNER fundsaga_owner;
SQL
