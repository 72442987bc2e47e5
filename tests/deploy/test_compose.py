"""docker-compose.yml, checked by parsing: Docker does not run on this project's machines, so
no test starts the stack. Every service the deployment needs is there, pinned, health-checked
and started in order; the fundsaga services set only real settings and keep secrets in `.env`;
Temporal gets the engine's search attributes, Prometheus scrapes what the alerts read, and
Grafana loads the dashboard."""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any

import pytest
import yaml

from sagas.engine import SEARCH_ATTRIBUTE_KEYS, server_type_name
from sagas.foundations import DATABASE_OWNER_ROLE, DATABASE_WORKER_ROLE, Settings
from sagas.servers import DEV_SERVER_DYNAMIC_CONFIG
from tests.deploy.stack import (
    COMPOSE,
    DEPLOY,
    INTERPOLATION,
    ROOT,
    bind_mounts,
    compose,
    database_url,
    env_example,
    environment,
    named_volume_mounts,
    port_of,
    project_version,
    service,
    services,
)
from tests.observability.prometheus_binaries import binary

ROLES = {
    "Temporal's database": "temporal-db",
    "Temporal's schema setup (one-shot)": "temporal-schema",
    "the Temporal server": "temporal",
    "the namespace and search attributes (one-shot)": "temporal-setup",
    "the Temporal UI": "temporal-ui",
    "the ledger and audit database": "ledger-db",
    "the anchors' database, on a server apart": "anchor-db",
    "the migrations (one-shot)": "migrate",
    "the anchors' migrations, as their own owner (one-shot)": "migrate-anchors",
    "the fundsaga worker": "worker",
    "the fundsaga collector": "collector",
    "the codec server": "codec-server",
    "Prometheus": "prometheus",
    "Alertmanager": "alertmanager",
    "Grafana": "grafana",
}
SERVER_DEFAULT_POLL_RPS = 20
"""The Temporal server's default for history.*ProcessorMaxPollRPS."""
ONE_SHOTS = {"temporal-schema", "temporal-setup", "migrate", "migrate-anchors"}
MIGRATIONS = ("migrate", "migrate-anchors")
FUNDSAGA_SERVICES = (*MIGRATIONS, "worker", "collector", "codec-server")
DATA = {
    "temporal-db": "/var/lib/postgresql/data",
    "ledger-db": "/var/lib/postgresql/data",
    "anchor-db": "/var/lib/postgresql/data",
    "prometheus": "/prometheus",
    "alertmanager": "/alertmanager",
    "grafana": "/var/lib/grafana",
}
"""Where each service keeps what must survive `docker compose down`."""

SECRET_NAME = re.compile(r"PASSWORD|PWD|TOKEN|KEY|SECRET")
ONLY_INTERPOLATION = re.compile(r"^\$\{\w+\}$")


def setting_names() -> set[str]:
    return {field.alias for field in Settings.model_fields.values() if field.alias}


@pytest.mark.parametrize(("role", "name"), ROLES.items())
def test_every_service_the_deployment_needs_is_there(role: str, name: str) -> None:
    assert name in services(), f"no service for {role}"


@pytest.mark.parametrize("name", ROLES.values())
def test_every_image_has_an_explicit_version(name: str) -> None:
    image = service(name)["image"]
    repository, _, tag = image.rpartition(":")
    assert repository, f"{name}: {image} has no tag"
    assert tag != "latest", f"{name}: {image}"
    assert re.search(r"\d", tag), f"{name}: {image} is no version"
    assert "$" not in tag, f"{name}: {image} is no fixed version"


@pytest.mark.parametrize("name", FUNDSAGA_SERVICES)
def test_the_fundsaga_services_run_the_image_built_here(name: str) -> None:
    assert service(name)["build"] == "."
    assert service(name)["image"] == f"fundsaga:{project_version()}"


def test_the_number_of_workers_is_a_setting() -> None:
    replicas = service("worker")["deploy"]["replicas"]
    assert re.fullmatch(r"\$\{FUNDSAGA_WORKER_REPLICAS:-[1-9]\d*\}", replicas)


@pytest.mark.parametrize("name", sorted(set(ROLES.values()) - ONE_SHOTS))
def test_every_long_running_service_has_a_health_check(name: str) -> None:
    check = service(name).get("healthcheck")
    if check is None:
        # The image's own HEALTHCHECK (Dockerfile) asks the metrics endpoint.
        assert "FUNDSAGA_METRICS_ADDRESS" in environment(name), f"{name} has no health check"
    else:
        assert not check.get("disable")
        assert check["test"][0] in ("CMD", "CMD-SHELL")
    assert service(name)["restart"] == "unless-stopped"


@pytest.mark.parametrize("name", sorted(ONE_SHOTS))
def test_one_shots_run_once(name: str) -> None:
    assert service(name)["restart"] == "no"


@pytest.mark.parametrize("name", ROLES.values())
def test_every_dependency_waits_for_a_condition(name: str) -> None:
    depends_on = service(name).get("depends_on", {})
    assert isinstance(depends_on, dict), f"{name}: depends_on without conditions"
    for dependency, how in depends_on.items():
        expected = (
            "service_completed_successfully" if dependency in ONE_SHOTS else "service_healthy"
        )
        assert how["condition"] == expected, f"{name} on {dependency}"


@pytest.mark.parametrize("name", ["worker", "collector"])
def test_fundsaga_waits_for_migrations_and_search_attributes(name: str) -> None:
    assert {"migrate", "temporal-setup"} <= set(service(name)["depends_on"])


@pytest.mark.parametrize(("name", "path"), DATA.items())
def test_data_lives_in_named_volumes(name: str, path: str) -> None:
    volume = named_volume_mounts(name).get(path)
    assert volume, f"{name} keeps {path} in no named volume"
    assert volume in compose()["volumes"]


@pytest.mark.parametrize("name", ROLES.values())
def test_every_file_a_service_mounts_is_in_the_repository(name: str) -> None:
    for source in bind_mounts(name).values():
        assert (ROOT / source).exists(), f"{name} mounts {source}, which does not exist"


@pytest.mark.parametrize("name", FUNDSAGA_SERVICES)
def test_the_fundsaga_services_set_only_real_settings(name: str) -> None:
    unknown = set(environment(name)) - setting_names()
    assert not unknown, f"{name} sets what fundsaga does not read: {sorted(unknown)}"


@pytest.mark.parametrize("name", ROLES.values())
def test_no_secret_is_written_in_the_file(name: str) -> None:
    for key, value in environment(name).items():
        if SECRET_NAME.search(key):
            written = not (ONLY_INTERPOLATION.match(value) or value.startswith("/"))
            assert value in ("true", "false") or not written, f"{name}: {key}={value}"
        if "://" in value:
            password = database_url(value).password if "@" in value else None
            assert password is None or ONLY_INTERPOLATION.match(str(password)), f"{name}: {key}"


def test_migrations_run_as_the_owner_and_everything_else_as_the_worker() -> None:
    for migrations in MIGRATIONS:
        migrate = environment(migrations)
        assert database_url(migrate["FUNDSAGA_DATABASE_URL"]).username == DATABASE_OWNER_ROLE
    for name in ("worker", "collector"):
        for key, value in environment(name).items():
            if value.startswith(("postgresql", "db:postgresql")):
                assert database_url(value).username == DATABASE_WORKER_ROLE, f"{name}: {key}"


def served(setting: str) -> tuple[str | None, str | None]:
    """The server (compose service) and database a setting names."""
    url = database_url(setting)
    return url.host, url.database


def test_every_database_the_worker_uses_is_migrated() -> None:
    # `fundsaga db upgrade` migrates the database and the audit store's (sagas.cli._db).
    migrated = {
        served(value)
        for migrations in MIGRATIONS
        for key, value in environment(migrations).items()
        if key in ("FUNDSAGA_DATABASE_URL", "FUNDSAGA_AUDIT_STORE")
    }
    worker = environment("worker")
    used = {
        served(worker[key])
        for key in ("FUNDSAGA_DATABASE_URL", "FUNDSAGA_AUDIT_STORE", "FUNDSAGA_AUDIT_ANCHOR_STORE")
    }
    assert used <= migrated
    assert worker["FUNDSAGA_AUDIT_ANCHOR_STORE"] != worker["FUNDSAGA_AUDIT_STORE"]


def test_the_anchors_are_on_a_server_the_ledger_s_owner_cannot_reach() -> None:
    """The ledger's DBA and owner can switch the journal's triggers off and cut its tail; the
    anchors that would show it live on another server, whose passwords they do not hold."""
    worker = environment("worker")
    anchors_host, _ = served(worker["FUNDSAGA_AUDIT_ANCHOR_STORE"])
    assert anchors_host == "anchor-db"
    assert served(worker["FUNDSAGA_DATABASE_URL"])[0] == "ledger-db"
    ledger_secrets = {"LEDGER_DB_SUPERUSER_PASSWORD", "LEDGER_OWNER_PASSWORD"}
    anchor_secrets = {
        "ANCHOR_DB_SUPERUSER_PASSWORD",
        "ANCHOR_OWNER_PASSWORD",
        "ANCHOR_WORKER_PASSWORD",
    }
    for name, kept_out in (
        ("anchor-db", ledger_secrets),
        ("migrate-anchors", ledger_secrets),
        ("ledger-db", anchor_secrets),
        ("migrate", anchor_secrets),
    ):
        read = set(INTERPOLATION.findall(json.dumps(service(name).get("environment", {}))))
        assert not read & kept_out, f"{name} reads {sorted(read & kept_out)}"
    assert named_volume_mounts("anchor-db") != named_volume_mounts("ledger-db")
    assert environment("anchor-db")["POSTGRES_PASSWORD"] == "${ANCHOR_DB_SUPERUSER_PASSWORD}"


def test_the_anchor_server_makes_the_roles_the_migrations_grant_to() -> None:
    script = (
        ROOT / bind_mounts("anchor-db")["/docker-entrypoint-initdb.d/init-anchors.sh"]
    ).read_text()
    ledger = (DEPLOY / "postgres" / "init-ledger.sh").read_text()
    assert re.findall(r"CREATE ROLE (\w+)", script) == re.findall(r"CREATE ROLE (\w+)", ledger)
    assert "GRANT fundsaga_audit_writer TO fundsaga_worker;" in script
    assert "PASSWORD '" not in script
    created = set(re.findall(rf"CREATE DATABASE (\w+) OWNER {DATABASE_OWNER_ROLE};", script))
    migrated = database_url(environment("migrate-anchors")["FUNDSAGA_DATABASE_URL"])
    assert created == {migrated.database}
    assert created.isdisjoint(re.findall(r"CREATE DATABASE (\w+)", ledger))
    for variable in ("ANCHOR_OWNER_PASSWORD", "ANCHOR_WORKER_PASSWORD"):
        assert environment("anchor-db")[variable] == f"${{{variable}}}"


def test_the_ledger_database_makes_the_roles_the_operations_guide_names() -> None:
    script = (
        ROOT / bind_mounts("ledger-db")["/docker-entrypoint-initdb.d/init-ledger.sh"]
    ).read_text()
    guide = (ROOT / "docs" / "operations.md").read_text().split("<!-- sql:dba-setup -->")[1]
    guide_roles = re.findall(r"CREATE ROLE (\w+)", guide.split("```")[1])
    assert {DATABASE_OWNER_ROLE, DATABASE_WORKER_ROLE} <= set(guide_roles)
    assert re.findall(r"CREATE ROLE (\w+)", script) == guide_roles
    assert "GRANT fundsaga_audit_writer TO fundsaga_worker;" in script
    created = set(re.findall(rf"CREATE DATABASE (\w+) OWNER {DATABASE_OWNER_ROLE};", script))
    assert {database_url(url).database for url in environment("migrate").values()} <= created


def test_the_ledger_passwords_come_from_the_environment() -> None:
    script = (DEPLOY / "postgres" / "init-ledger.sh").read_text()
    assert "PASSWORD '" not in script
    for variable in ("LEDGER_OWNER_PASSWORD", "LEDGER_WORKER_PASSWORD"):
        assert environment("ledger-db")[variable] == f"${{{variable}}}"


def test_temporal_gets_exactly_the_engine_s_search_attributes() -> None:
    setup = service("temporal-setup")
    script_path = setup["entrypoint"][-1]
    script = (ROOT / bind_mounts("temporal-setup")[script_path]).read_text()
    registered = set(re.findall(r"^register (\w+) (\w+)$", script, re.MULTILINE))
    assert registered == {(key.name, server_type_name(key)) for key in SEARCH_ATTRIBUTE_KEYS}
    namespace = environment("temporal-setup")["TEMPORAL_NAMESPACE"]
    assert environment("worker")["TEMPORAL_NAMESPACE"] == namespace


def test_temporal_s_schema_is_set_up_before_the_server_starts() -> None:
    schema = service("temporal-schema")
    script = (ROOT / bind_mounts("temporal-schema")[schema["entrypoint"][-1]]).read_text()
    assert 'setup "$DBNAME" temporal' in script
    assert 'setup "$VISIBILITY_DBNAME" visibility' in script
    server = environment("temporal")
    for key in ("DBNAME", "VISIBILITY_DBNAME", "POSTGRES_SEEDS", "POSTGRES_USER"):
        assert environment("temporal-schema")[key] == server[key]
    assert server["DB"] == "postgres12"
    dynamic_config = server["DYNAMIC_CONFIG_FILE_PATH"]
    assert yaml.safe_load((ROOT / bind_mounts("temporal")[dynamic_config]).read_text())


def test_the_server_lifts_the_queue_readers_the_dev_server_lifts() -> None:
    dynamic_config = environment("temporal")["DYNAMIC_CONFIG_FILE_PATH"]
    found = yaml.safe_load((ROOT / bind_mounts("temporal")[dynamic_config]).read_text())
    readers = {key: entries for key, entries in found.items() if key.endswith("MaxPollRPS")}
    assert set(readers) == {key for key, _ in DEV_SERVER_DYNAMIC_CONFIG}
    for key, entries in readers.items():
        (entry,) = entries
        assert entry["value"] > SERVER_DEFAULT_POLL_RPS, key


def prometheus_config() -> dict[str, Any]:
    config: dict[str, Any] = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    return config


def scrape_job(name: str) -> dict[str, Any]:
    jobs: list[dict[str, Any]] = prometheus_config()["scrape_configs"]
    (job,) = (job for job in jobs if job["job_name"] == name)
    return job


def test_prometheus_finds_every_worker_replica() -> None:
    (dns,) = scrape_job("fundsaga-worker")["dns_sd_configs"]
    assert dns["names"] == ["worker"]
    assert dns["type"] == "A"
    assert dns["port"] == port_of(environment("worker")["FUNDSAGA_METRICS_ADDRESS"])


def test_prometheus_scrapes_the_collector_and_temporal() -> None:
    collector_port = port_of(environment("collector")["FUNDSAGA_METRICS_ADDRESS"])
    temporal_port = port_of(environment("temporal")["PROMETHEUS_ENDPOINT"])
    (collector,) = scrape_job("fundsaga-collector")["static_configs"]
    (temporal,) = scrape_job("temporal")["static_configs"]
    assert collector["targets"] == [f"collector:{collector_port}"]
    assert temporal["targets"] == [f"temporal:{temporal_port}"]


def test_prometheus_loads_the_alerts_and_sends_them_to_alertmanager() -> None:
    config = prometheus_config()
    assert config["rule_files"] == ["alerts.yml"]
    mounts = bind_mounts("prometheus")
    assert mounts["/etc/prometheus/prometheus.yml"] == "deploy/prometheus/prometheus.yml"
    assert mounts["/etc/prometheus/alerts.yml"] == "deploy/prometheus/alerts.yml"
    (alertmanagers,) = config["alerting"]["alertmanagers"]
    assert alertmanagers["static_configs"] == [{"targets": ["alertmanager:9093"]}]


def test_promtool_accepts_the_prometheus_config() -> None:
    config = DEPLOY / "prometheus" / "prometheus.yml"
    done = subprocess.run(
        [binary("promtool"), "check", "config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_alertmanager_has_a_receiver_and_no_secret() -> None:
    path = bind_mounts("alertmanager")["/etc/alertmanager/alertmanager.yml"]
    config = yaml.safe_load((ROOT / path).read_text())
    receivers = {receiver["name"] for receiver in config["receivers"]}
    assert config["route"]["receiver"] in receivers
    assert not SECRET_NAME.search(json.dumps(config).upper())


def test_grafana_loads_the_dashboard_from_prometheus() -> None:
    mounts = bind_mounts("grafana")
    provisioning = ROOT / mounts["/etc/grafana/provisioning"]
    (provider,) = yaml.safe_load((provisioning / "dashboards" / "fundsaga.yml").read_text())[
        "providers"
    ]
    dashboard = ROOT / mounts[f"{provider['options']['path']}/fundsaga.json"]
    assert json.loads(dashboard.read_text())["uid"] == "fundsaga"
    (source,) = yaml.safe_load((provisioning / "datasources" / "prometheus.yml").read_text())[
        "datasources"
    ]
    assert source["type"] == "prometheus"
    assert source["url"] == "http://prometheus:9090"
    assert environment("grafana")["GF_SECURITY_ADMIN_PASSWORD"] == "${GRAFANA_ADMIN_PASSWORD}"


def test_the_ui_decodes_payloads_with_the_codec_server() -> None:
    (published,) = service("codec-server")["ports"]
    codec_port = published.rpartition(":")[2]
    ui = environment("temporal-ui")
    assert ui["TEMPORAL_CODEC_ENDPOINT"] == f"http://localhost:{codec_port}"
    (ui_published,) = service("temporal-ui")["ports"]
    origin = f"http://localhost:{ui_published.rpartition(':')[2]}"
    assert environment("codec-server")["FUNDSAGA_CODEC_SERVER_ORIGINS"] == origin


def test_env_example_names_every_variable_the_file_reads() -> None:
    missing = set(INTERPOLATION.findall(COMPOSE.read_text())) - set(env_example())
    assert not missing, f".env.example lacks {sorted(missing)}"


def test_env_example_holds_placeholders_not_secrets() -> None:
    for key, value in env_example().items():
        if SECRET_NAME.search(key) and not value.startswith(("./", "/")):
            assert value.endswith("change-me"), f"{key}={value}"


def test_env_is_never_committed() -> None:
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert ".env" in ignored
    assert "deploy/stack.env" in ignored
    assert "deploy/secrets/" in ignored
