"""Debian's HAProxy on loopback, run with docker/haproxy.cfg in front of ``playlog serve``
processes (tests/faults/test_balancer.py, bench/balancer.py). Only the ``bind`` line and the
``server`` lines of the file are rewritten: timeouts, retries and health checks are the ones
deployed."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "docker" / "haproxy.cfg"
INSTANCE_HEADER = "X-Playlog-Instance"


def haproxy_binary() -> str | None:
    return shutil.which("haproxy") or next(
        (p for p in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy") if Path(p).exists()), None
    )


def loopback_config(port: int, backends: Sequence[int]) -> str:
    """docker/haproxy.cfg listening on 127.0.0.1:``port`` in front of 127.0.0.1:``backends``."""
    text = CONFIG.read_text()
    text = re.sub(r"^(\s*)bind \S+$", rf"\1bind 127.0.0.1:{port}", text, count=1, flags=re.M)
    servers = [f"    server i{n} 127.0.0.1:{backend}" for n, backend in enumerate(backends)]
    text = re.sub(r"^\s*server .*\n", "", text, flags=re.M)
    text = text.rstrip("\n") + "\n" + "\n".join(servers) + "\n"
    return text.replace("log stdout format raw local0", "log stderr format raw local0")


class HAProxy:
    """``haproxy -db`` in the foreground, its log in ``directory``; ``close`` stops it."""

    def __init__(self, directory: Path, port: int, backends: Sequence[int]) -> None:
        binary = haproxy_binary()
        if binary is None:
            raise RuntimeError("haproxy is not installed (apt-get install haproxy; .ci/run does)")
        self.config = directory / "haproxy.cfg"
        self.config.write_text(loopback_config(port, backends))
        self.log = directory / "haproxy.log"
        self.url = f"http://127.0.0.1:{port}"
        self.backends = list(backends)
        self.proc = subprocess.Popen(
            [binary, "-db", "-f", str(self.config)], stdout=self.log.open("ab"), stderr=subprocess.STDOUT
        )

    def wait_all_up(self, timeout: float = 60.0) -> None:
        """Until the balancer has answered from every backend (each one's health checks passed)."""
        seen: set[str] = set()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"haproxy exited: {self.log.read_text()[-2000:]}")
            try:
                response = httpx.get(f"{self.url}/readyz", timeout=2)
                if response.status_code == 200:
                    seen.add(response.headers[INSTANCE_HEADER])
            except httpx.HTTPError:
                pass
            if len(seen) == len(self.backends):
                return
            time.sleep(0.1)
        raise AssertionError(f"only {sorted(seen)} answered through haproxy: {self.log.read_text()[-2000:]}")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
