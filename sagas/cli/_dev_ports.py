"""The ports `fundsaga dev` binds, checked before it starts anything."""

from __future__ import annotations

from dataclasses import dataclass

from sagas.servers import check_ports_free


@dataclass(frozen=True)
class DevPorts:
    """Every port `fundsaga dev` binds on 127.0.0.1 (Temporal's history, matching and worker
    services take free ports of their own: `temporal server start-dev` has no option for them)."""

    port: int
    ui_port: int
    http_port: int
    metrics_port: int
    codec_port: int

    def check(self, *, codec: bool) -> None:
        """Refuse, by option, a port out of range, given twice or held by another process."""
        ports = {
            "--port": self.port,
            "--ui-port": self.ui_port,
            "--http-port": self.http_port,
            "--metrics-port": self.metrics_port,
        }
        check_ports_free(ports | ({"--codec-port": self.codec_port} if codec else {}))
