"""The ports a server is about to bind, checked up front so that a busy one is refused by name."""

from __future__ import annotations

import random
import socket
from collections.abc import Mapping
from pathlib import Path

from sagas.foundations import InvalidRequestError

LOOPBACK = "127.0.0.1"
EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
LOWEST_PICKED = 20000


def port_is_free(port: int, host: str = LOOPBACK) -> bool:
    """Whether a server could bind `port` now. SO_REUSEADDR as servers set it: a port whose last
    connection lingers in TIME_WAIT is free."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


def check_ports_free(ports: Mapping[str, int], host: str = LOOPBACK) -> None:
    """Refuse, naming the option, a port out of range, given twice, or held by another process.

    `ports` maps each option (`--ui-port`) to the port it asks for."""
    taken: dict[int, str] = {}
    for option, port in ports.items():
        if not 0 < port < 65536:
            raise InvalidRequestError(option, f"{port} is not a TCP port (1 to 65535)")
        if port in taken:
            raise InvalidRequestError(option, f"port {port} is also {taken[port]}")
        taken[port] = option
        if not port_is_free(port, host):
            raise InvalidRequestError(option, f"port {port} on {host} is in use by another process")


def free_port(host: str = LOOPBACK) -> int:
    """A port free now, for a server about to start on it.

    Picked at random below the kernel's ephemeral range: a port the kernel hands out for
    `bind(0)` (as Temporal's test servers pick theirs) could be handed to another process before
    this one's server binds it."""
    highest = _ephemeral_start() - 1
    for _ in range(200):
        port = random.randint(LOWEST_PICKED, highest)
        if port_is_free(port, host):
            return port
    raise OSError(f"no free port between {LOWEST_PICKED} and {highest} on {host}")


def _ephemeral_start() -> int:
    try:
        return int(EPHEMERAL_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768
