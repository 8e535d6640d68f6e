"""An HTTP connection whose every step ends at one deadline: :func:`deadline_connection`.

The standard library bounds each socket operation, not a whole exchange: a server that sends one byte a
second, or a resolver that never answers, holds :mod:`http.client` for as long as it likes. Here the name is
resolved in a thread waited for with the time left (:func:`resolve`), each address is tried with the time left,
every read and write of the response waits only for what is left (:class:`DeadlineSocket`), and
:func:`cut_at_deadline` is the watchdog that shuts the socket when the deadline passes whatever is reading it.
Proxies are taken from the environment as urllib takes them (:func:`proxy_for`). Used by
:class:`rankmeter.judges.llm_client.ChatClient`.
"""
from __future__ import annotations

import http.client
import socket
import threading
import time
import urllib.parse

__all__ = ["TryDeadline", "DeadlineSocket", "cut_at_deadline", "deadline_connection", "proxy_for", "resolve"]


class TryDeadline(TimeoutError):
    """The try's deadline passed at a step that says which (resolving, connecting, reading)."""


class _DeadlineReader:
    """A raw reader over a socket that waits, at each read, only for the time left before the deadline."""

    def __init__(self, sock, deadline: float):
        self.sock, self.deadline = sock, deadline

    def readinto(self, buffer) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the try's deadline passed")
        self.sock.settimeout(left)
        return self.sock.recv_into(buffer)

    def readable(self) -> bool:
        return True

    # what io.BufferedReader asks of a raw stream
    closed = False

    def close(self) -> None:
        self.closed = True

    def flush(self) -> None:
        pass

    def fileno(self) -> int:
        return self.sock.fileno()

    def seekable(self) -> bool:
        return False

    def writable(self) -> bool:
        return False

    def isatty(self) -> bool:
        return False


class DeadlineSocket:
    """A socket whose reads (through ``makefile``) and writes end at the deadline."""

    def __init__(self, sock, deadline: float):
        self._sock, self.deadline = sock, deadline

    def makefile(self, mode="rb", *args, **kwargs):
        import io
        return io.BufferedReader(_DeadlineReader(self._sock, self.deadline))  # noqa: the raw reader is io-shaped

    def sendall(self, data) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the try's deadline passed")
        self._sock.settimeout(left)   # sendall's timeout bounds the whole send (Python >= 3.5)
        self._sock.sendall(data)

    def close(self) -> None:
        """Left to the client (:class:`rankmeter.judges.llm_client.ChatClient`), which closes the socket once the response is read (http.client
        closes it as soon as the headers say the server will: the response still reads from it)."""

    def __getattr__(self, name):
        return getattr(self._sock, name)


def proxy_for(url: urllib.parse.SplitResult) -> urllib.parse.SplitResult | None:
    """The proxy the environment names for ``url`` (``https_proxy``/``http_proxy``, less ``no_proxy``), as
    urllib would use it; None for none."""
    import urllib.request
    proxy = urllib.request.getproxies().get(url.scheme)
    if not proxy or urllib.request.proxy_bypass(url.hostname or ""):
        return None
    parts = urllib.parse.urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    return parts if parts.hostname else None


def resolve(host: str, port: int, deadline: float) -> list:
    """``socket.getaddrinfo(host, port)`` for a stream socket, ended at ``deadline``: the system's resolver has no
    timeout of its own (a hung DNS server holds it for minutes), so it runs in a daemon thread waited for with
    the time left; at the deadline the try ends (TimeoutError) and the thread is left to finish alone."""
    found: dict = {}
    done = threading.Event()

    def work():
        try:
            found["addresses"] = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            found["error"] = exc
        finally:
            done.set()

    threading.Thread(target=work, name="rankmeter-resolve", daemon=True).start()
    if not done.wait(max(deadline - time.monotonic(), 0.0)):
        raise TryDeadline(f"resolving {host!r} did not end within the try's deadline")
    if "error" in found:
        raise found["error"]
    return found["addresses"]


def _open_socket(address, timeout=None, source_address=None, *, deadline: float):
    """``socket.create_connection``'s work with the name resolved by :func:`resolve` (bounded by ``deadline``)
    and each address tried with the time left; http.client's wrapping (TLS with the host's name for SNI and
    certificate checks, the Host header) is untouched, as it uses the name, not the address."""
    host, port = address
    error: OSError | None = None
    for family, kind, proto, _, sockaddr in resolve(host, port, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TryDeadline(f"no connection to {host!r} within the try's deadline")
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(left)
            if source_address:
                sock.bind(source_address)
            sock.connect(sockaddr)
            return sock
        except OSError as exc:
            sock.close()
            error = exc
    raise error or OSError(f"{host!r} resolves to no address")


def deadline_connection(url: urllib.parse.SplitResult, deadline: float):
    """A connection to ``url``'s host (or to the environment's proxy: a CONNECT tunnel for https) whose
    name resolution, connection, reads and writes end at ``deadline``."""
    left = max(deadline - time.monotonic(), 0.001)
    base = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
    proxy = proxy_for(url)

    class Connection(base):
        def connect(self):
            self.timeout = max(deadline - time.monotonic(), 0.001)
            self._create_connection = lambda *args: _open_socket(*args, deadline=deadline)
            super().connect()
            self.raw_socket = self.sock
            self.sock = DeadlineSocket(self.sock, deadline)

    if proxy is None:
        return Connection(url.hostname, url.port, timeout=left)
    conn = Connection(proxy.hostname, proxy.port or 8080, timeout=left)
    if url.scheme == "https":
        conn.set_tunnel(url.hostname, url.port)
    return conn


def cut_at_deadline(conn) -> None:
    """The watchdog: at the try's deadline, shut the socket whatever is reading it."""
    raw = getattr(conn, "raw_socket", None) or getattr(conn, "sock", None)
    try:
        if raw is not None:
            raw.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
