"""Debian's nginx on loopback, run with docker/nginx-chunks.conf in front of playlog instances
(tests/faults/test_chunk_cache.py, bench/chunks.py). Only the ``listen`` line, the ``server``
lines and the paths under /var/cache/nginx/ and /var/log/nginx/ are rewritten: caching, locking
and timeouts are the ones deployed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "docker" / "nginx-chunks.conf"


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if Path(p).exists()), None
    )


def loopback_config(directory: Path, port: int, backends: Sequence[str], workers: int | None) -> str:
    """docker/nginx-chunks.conf listening on 127.0.0.1:``port`` in front of ``backends``
    (host:port), its cache and logs in ``directory``."""
    text = CONFIG.read_text()
    text = re.sub(r"^(\s*)listen \S+;$", rf"\1listen 127.0.0.1:{port};", text, count=1, flags=re.M)
    servers = "".join(f"        server {backend};\n" for backend in backends)
    text = re.sub(r"^\s*server [^{]*;\n", "", text, flags=re.M)
    text = text.replace("upstream playlog {\n", "upstream playlog {\n" + servers)
    text = text.replace("/var/cache/nginx/", f"{directory}/").replace("/var/log/nginx/", f"{directory}/")
    if workers is not None:
        text = re.sub(r"^worker_processes \S+;$", f"worker_processes {workers};", text, flags=re.M)
    return text


class Nginx:
    """``nginx`` in the foreground (``daemon off``), its cache and logs in ``directory``."""

    def __init__(
        self, directory: Path, port: int, backends: Sequence[str], *, workers: int | None = 1
    ) -> None:
        binary = nginx_binary()
        if binary is None:
            raise RuntimeError("nginx is not installed (apt-get install nginx-light; .ci/run does)")
        self.directory = directory
        self.config = directory / "nginx.conf"
        self.config.write_text(loopback_config(directory, port, backends, workers))
        self.origin_log = directory / "playlog-origin.log"
        self.error_log = directory / "playlog-error.log"
        self.url = f"http://127.0.0.1:{port}"
        main = f"daemon off; pid {directory}/nginx.pid; error_log {self.error_log} warn;"
        if os.geteuid() == 0:  # the workers write the cache in this private directory: as its owner
            main += " user root;"
        self.proc = subprocess.Popen(
            [binary, "-p", str(directory), "-c", str(self.config), "-g", main],
            stdout=(directory / "nginx.out").open("ab"),
            stderr=subprocess.STDOUT,
        )

    def wait_up(self, timeout: float = 30.0) -> None:
        """Until nginx answers (through to a backend)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"nginx exited: {(self.directory / 'nginx.out').read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"nginx did not answer: {self.error_log.read_text()[-2000:]}")

    def origin_requests(self) -> list[tuple[float, str, int, str]]:
        """Every request that reached an instance: (time, cache status, status, path)."""
        out = []
        for line in self.origin_log.read_text().splitlines() if self.origin_log.exists() else []:
            at, cache, status, path = line.split(" ", 3)
            out.append((float(at), cache, int(status), path))
        return out

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
