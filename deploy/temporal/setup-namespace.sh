#!/bin/sh
# Waits for the server, creates the namespace if it is missing, and registers the search
# attributes every saga carries (sagas.engine.SEARCH_ATTRIBUTE_KEYS). Safe to run again.
set -eu

: "${TEMPORAL_ADDRESS:?}" "${TEMPORAL_NAMESPACE:=default}" "${TEMPORAL_NAMESPACE_RETENTION:=720h}"
export TEMPORAL_ADDRESS TEMPORAL_NAMESPACE

until temporal operator cluster health; do
    echo "waiting for Temporal at $TEMPORAL_ADDRESS"
    sleep 2
done

if ! temporal operator namespace describe --namespace "$TEMPORAL_NAMESPACE" >/dev/null 2>&1; then
    temporal operator namespace create --namespace "$TEMPORAL_NAMESPACE" \
        --retention "$TEMPORAL_NAMESPACE_RETENTION"
fi

# An attribute already there with the same type is fine; with another type it is an error.
register() {
    if out=$(temporal operator search-attribute create --name "$1" --type "$2" 2>&1); then
        echo "search attribute $1 ($2) registered"
    elif echo "$out" | grep -q "already exists" && ! echo "$out" | grep -q "different type"; then
        echo "search attribute $1 ($2) already registered"
    else
        echo "$out" >&2
        exit 1
    fi
}

# One line per attribute: tests/deploy/test_compose.py compares them with the engine's.
register SagaStatus Keyword
register SagaType Keyword
register SagaDeadline Datetime
register SagaStatusSince Datetime
register SagaWaitingOn Keyword
register SagaWaitingSince Datetime
