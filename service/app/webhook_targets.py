"""Where a webhook may be sent, and sending one (issue 54; docs/api.md, "Webhooks").

A target is an ``https://`` or ``http://`` URL whose host resolves only to public addresses:
loopback, private, link-local, unique-local, multicast and reserved ranges are refused unless the
operator allows them (``PLAYLOG_WEBHOOK_ALLOW_PRIVATE``). The check runs at registration and again
at each delivery, and the delivery connects to the very address it checked (a name that resolves
elsewhere the second time cannot reach inside). A delivery waits ``timeout`` seconds at most and
reads the answer's status line only, of ``MAX_RESPONSE_BYTES`` at most.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
from urllib.parse import urlsplit

from service.app.errors import ServiceError

MAX_URL_LENGTH = 2000
MAX_RESPONSE_BYTES = 64 * 1024


class Target(ServiceError):
    """A URL refused as a webhook target (422, with a stable code)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(422, code, message)


class Address:
    """A checked target: the URL's parts and the address to connect to."""

    def __init__(self, scheme: str, host: str, port: int, path: str, ip: str) -> None:
        self.scheme, self.host, self.port, self.path, self.ip = scheme, host, port, path, ip


def _refused_ip(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return _refused_ip(ip.ipv4_mapped)
    return not ip.is_global or ip.is_multicast


async def check(url: str, *, allow_private: bool) -> Address:
    """The target ``url`` points at, or ``Target`` saying why it may not be one."""
    if len(url) > MAX_URL_LENGTH:
        raise Target("webhook_url_invalid", f"A webhook URL is at most {MAX_URL_LENGTH} characters.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise Target("webhook_url_invalid", "The webhook URL cannot be read.") from None
    if parts.scheme not in ("https", "http"):
        raise Target("webhook_scheme_refused", "A webhook URL starts with https:// or http://.")
    if not parts.hostname or parts.username is not None or parts.password is not None:
        raise Target("webhook_url_invalid", "A webhook URL names a host and no credentials.")
    host = parts.hostname
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise Target("webhook_host_unresolved", f"The webhook host {host} does not resolve.") from None
    ips = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in found]
    if not ips:
        raise Target("webhook_host_unresolved", f"The webhook host {host} does not resolve.")
    if not allow_private and any(_refused_ip(ip) for ip in ips):
        raise Target(
            "webhook_target_private",
            f"The webhook host {host} resolves to a loopback, private or link-local address,"
            " which this service does not send to.",
        )
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Address(parts.scheme, host, port, path, str(ips[0]))


async def post(target: Address, body: bytes, headers: dict[str, str], timeout: float) -> int:
    """POST ``body`` to the checked ``target``; the answer's status. Raises ``OSError`` (or
    ``TimeoutError``) when no answer came."""
    context = ssl.create_default_context() if target.scheme == "https" else None
    async with asyncio.timeout(timeout):
        reader, writer = await asyncio.open_connection(
            target.ip,
            target.port,
            ssl=context,
            server_hostname=target.host if context else None,
            limit=MAX_RESPONSE_BYTES,  # a longer status line is refused (ValueError)
        )
        try:
            host = target.host if ":" not in target.host else f"[{target.host}]"
            lines = [
                f"POST {target.path} HTTP/1.1",
                f"Host: {host}:{target.port}",
                "Content-Type: application/json",
                f"Content-Length: {len(body)}",
                "Connection: close",
                "User-Agent: playlog-webhooks",
                *(f"{name}: {value}" for name, value in headers.items()),
            ]
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
            await writer.drain()
            status_line = await reader.readline()  # only the status counts: nothing more is read
        finally:
            writer.close()
    fields = status_line.decode("latin-1").split()
    if len(fields) < 2 or not fields[0].startswith("HTTP/") or not fields[1].isdigit():
        raise OSError("the receiver's answer is not HTTP")
    return int(fields[1])
