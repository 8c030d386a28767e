"""TCP plumbing: ``tcp:HOST:PORT`` addresses, listening sockets and the result sink.

Hosts default to the loopback address 127.0.0.1; port 0 picks a free port (announced on
stderr). IPv6 hosts are written in brackets: ``tcp:[::1]:7000``.
"""

from __future__ import annotations

import contextlib
import socket
import sys
from collections.abc import Callable

from ..errors import UsageError

__all__ = ["parse_address", "listen", "address_text", "TcpSink"]

LOOPBACK = "127.0.0.1"


def parse_address(text: str) -> tuple[str, int]:
    """``tcp:HOST:PORT``, ``tcp::PORT`` or ``tcp:PORT`` -> ``(host, port)`` (host defaults to loopback)."""
    bad = UsageError.at(None, f"bad address '{text}'", "write tcp:HOST:PORT, e.g. tcp:127.0.0.1:7000 or tcp::0")
    if not text.startswith("tcp:"):
        raise bad
    rest = text[4:]
    host, sep, port = rest.rpartition(":")
    if not sep:
        host, port = "", rest
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not port.isdigit() or int(port) > 65535:
        raise bad
    return host or LOOPBACK, int(port)


def address_text(sockname) -> str:
    """``tcp:HOST:PORT`` for a socket name (IPv6 hosts in brackets)."""
    host, port = sockname[0], sockname[1]
    return f"tcp:[{host}]:{port}" if ":" in host else f"tcp:{host}:{port}"


def listen(address: str) -> socket.socket:
    """A listening, non-blocking socket for ``tcp:HOST:PORT``."""
    host, port = parse_address(address)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        sock = socket.create_server((host, port), family=family, backlog=64)
    except OSError as err:
        raise UsageError.at(None, f"cannot listen on {address}: {err.strerror or err}") from None
    sock.setblocking(False)
    return sock


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class TcpSink:
    """A text sink that sends every line to all connected clients (``--output tcp:HOST:PORT``).

    Pending connections are accepted on every ``flush`` (no thread); a client that fails or does not
    take a line within ``send_timeout`` seconds is dropped (with a note on stderr).
    """

    def __init__(self, address: str, send_timeout: float = 5.0, log: Callable[[str], None] = _log):
        self.listener = listen(address)
        self.address = address_text(self.listener.getsockname())
        self.send_timeout = send_timeout
        self.log = log
        self.clients: list[tuple[socket.socket, str]] = []
        self._buffer: list[str] = []
        self.closed = False

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._buffer.append(text)
        return len(text)

    def flush(self) -> None:
        if self.closed:
            return
        self._accept()
        data = "".join(self._buffer).encode()
        self._buffer.clear()
        if data:
            for client in list(self.clients):
                try:
                    client[0].sendall(data)
                except OSError as err:
                    self.log(f"ticker: {client[1]}: output client dropped ({err})")
                    self.clients.remove(client)
                    client[0].close()

    def close(self) -> None:
        if self.closed:
            return
        self.flush()
        for sock, _ in self.clients:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_WR)
            sock.close()
        self.clients.clear()
        self.listener.close()
        self.closed = True

    def _accept(self) -> None:
        while True:
            try:
                sock, peer = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            sock.settimeout(self.send_timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # a result line goes out at once
            self.clients.append((sock, address_text(peer)))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
