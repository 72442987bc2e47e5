#!/bin/sh
# Runs once, as the anchor server's superuser, when its data volume is empty. The anchors of the
# audit chain and of the ledger's journal live on this server of their own, whose passwords the
# ledger's DBA and owner do not hold: they cannot rewrite the anchors along with the journal.
# The roles carry the names the migrations grant to (docs/operations.md, "Deploying on
# PostgreSQL with two roles"); on this server they are other roles, with other passwords.
set -eu

: "${ANCHOR_OWNER_PASSWORD:?set ANCHOR_OWNER_PASSWORD in deploy/stack.env}"
: "${ANCHOR_WORKER_PASSWORD:?set ANCHOR_WORKER_PASSWORD in deploy/stack.env}"

# psql's :'name' quoting keeps the passwords out of the SQL text and safe from quotes in them.
psql --set ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
    --set owner_password="$ANCHOR_OWNER_PASSWORD" \
    --set worker_password="$ANCHOR_WORKER_PASSWORD" <<'SQL'
CREATE ROLE fundsaga_owner LOGIN PASSWORD :'owner_password';
CREATE ROLE fundsaga_worker LOGIN PASSWORD :'worker_password';
CREATE ROLE fundsaga_audit_writer NOLOGIN;
GRANT fundsaga_audit_writer TO fundsaga_worker;
-- The anchors: appended by the workers, never rewritten (the audit store's triggers and grants).
CREATE DATABASE fundsaga_anchors OWNER fundsaga_owner;
SQL
