"""A real Kafka broker for the tests: Apache Kafka (KRaft, one node; installed by
scripts/install-kafka-broker, run by tools/kafka-broker/run-broker) on a free 127.0.0.1 port,
its data in a temporary folder, stopped when the test is done with it.

`FLOWC_KAFKA_DIST` names an install folder (what scripts/install-kafka-broker prints); otherwise
the installed one is used when scripts/install-kafka-broker has put it in its default place.
`broker_dist()` is None when there is none, and the Kafka tests then skip with that reason (CI
installs it: see scripts/e2e/scaffold and scripts/e2e/kafka-iceberg)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN_BROKER = ROOT / "tools" / "kafka-broker" / "run-broker"
# The version tools/kafka-broker/pom.xml pins (the install folder is named after it).
VERSION = re.search(r"<kafka\.version>([^<]+)</kafka\.version>",
                    (ROOT / "tools" / "kafka-broker" / "pom.xml").read_text(encoding="utf-8")).group(1)  # type: ignore[union-attr]
STARTED = "Kafka Server started"
START_SECONDS = 60.0


def broker_dist() -> Path | None:
    named = os.environ.get("FLOWC_KAFKA_DIST")
    if named:
        return Path(named)
    home = Path(os.environ.get("FLOWC_KAFKA_HOME") or Path.home() / ".cache" / "flowc" / "kafka-broker")
    installed = home / f"kafka-{VERSION}"
    return installed if (installed / "installed").exists() else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Broker:
    """One broker process (a JVM); `bootstrap` is its `host:port`. Ready when constructed."""

    def __init__(self, dist: Path) -> None:
        # a port found free can be taken before the broker binds it (another broker starting
        # beside this one): then the broker exits at once, and a new pair of ports is tried
        for _ in range(3):
            if self.start(dist):
                return
        raise RuntimeError(f"the broker did not start; its last log:\n{self.failed}")

    def start(self, dist: Path) -> bool:
        self.port = free_port()
        self.bootstrap = f"127.0.0.1:{self.port}"
        self.dir = Path(tempfile.mkdtemp(prefix="flowc-kafka-"))
        self.log = self.dir / "broker.log"
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen([str(RUN_BROKER), str(dist), str(self.dir), str(self.port)],
                                         stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if STARTED in self.log.read_text(errors="replace"):
                return True
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.failed = self.log.read_text(errors="replace")
        self.stop()
        if "Address already in use" in self.failed:
            return False
        raise RuntimeError(f"the broker did not start on {self.bootstrap} within {START_SECONDS:.0f} s:\n{self.failed}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            # no graceful shutdown: a test broker's data is thrown away
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Broker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
