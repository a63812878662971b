"""A real Kafka-protocol broker for the tests: tansu (installed by scripts/install-kafka-broker),
started on a free 127.0.0.1 port with the memory storage engine, its working folder a temporary
one, stopped when the test session ends.

`FLOWC_KAFKA_BROKER` (a tansu executable) names the binary; otherwise the installed one is used
when scripts/install-kafka-broker has put it in its default place. `broker_binary()` is None
when there is none, and the Kafka tests then skip with that reason (CI installs it: see
scripts/e2e/kafka-iceberg)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

VERSION = "0.6.0"
ROOT = Path(__file__).resolve().parents[2]


def broker_binary() -> Path | None:
    named = os.environ.get("FLOWC_KAFKA_BROKER")
    if named:
        return Path(named)
    home = Path(os.environ.get("FLOWC_KAFKA_HOME") or Path.home() / ".cache" / "flowc" / "kafka-broker")
    installed = home / f"tansu-{VERSION}" / "tansu"
    return installed if installed.exists() else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Broker:
    """One tansu process; `bootstrap` is its `host:port`."""

    def __init__(self, binary: Path) -> None:
        self.port = free_port()
        self.bootstrap = f"127.0.0.1:{self.port}"
        self.dir = Path(tempfile.mkdtemp(prefix="flowc-kafka-"))
        self.log = self.dir / "broker.log"
        env = {k: v for k, v in os.environ.items() if k not in ("STORAGE_ENGINE", "LISTENER_URL", "ADVERTISED_LISTENER_URL")}
        env.setdefault("RUST_LOG", "warn")
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [str(binary), "broker",
                 "--listener-url", f"tcp://127.0.0.1:{self.port}",
                 "--advertised-listener-url", f"tcp://127.0.0.1:{self.port}",
                 "--storage-engine", "memory://tansu/"],
                cwd=self.dir, stdout=out, stderr=subprocess.STDOUT, env=env,
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the broker exited ({self.proc.returncode}):\n{self.log.read_text()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the broker did not listen on {self.bootstrap} within 30 s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Broker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
