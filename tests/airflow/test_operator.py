"""Tests of templates/airflow/_flowc_airflow.py, the operator module flowc
emits next to generated DAGs. Local tasks run real subprocesses; the pod
operator runs against a stand-in for the Kubernetes part of
KubernetesPodOperator (there is no cluster here).

Run: pytest tests/airflow/test_operator.py (with Airflow 3 installed).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pendulum
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "templates" / "airflow"))

import _flowc_airflow as flowc  # noqa: E402
from airflow.providers.cncf.kubernetes.operators.pod import KubernetesPodOperator  # noqa: E402
from airflow.sdk import DAG  # noqa: E402
from airflow.sdk.exceptions import (  # noqa: E402
    AirflowException,
    AirflowFailException,
    AirflowTaskTimeout,
)
from airflow.sdk.execution_time.timeout import timeout  # noqa: E402

START = pendulum.datetime(2026, 1, 1, 2, tz="Europe/Paris")
END = pendulum.datetime(2026, 1, 2, 2, tz="Europe/Paris")


def context(try_number=1, start=START, end=END):
    return {
        "data_interval_start": start,
        "data_interval_end": end,
        "run_id": "scheduled__2026-01-01T01:00:00+00:00",
        "ti": SimpleNamespace(try_number=try_number),
        "dag_run": SimpleNamespace(run_after=pendulum.datetime(2026, 5, 6, 7, 8, 9, tz="UTC")),
    }


def local(command, on_ambiguous="retry", env=None, task_id="t"):
    with DAG("flowc_test", schedule=None):
        return flowc.FlowSubprocessOperator(
            task_id=task_id, command=command, env=env or {}, on_ambiguous=on_ambiguous
        )


def py(code, *args):
    return [sys.executable, "-c", code, *args]


DUMP = (
    "import json, os, sys; "
    "json.dump({'argv': sys.argv[1:], 'env': dict(os.environ)}, open(os.environ['OUT'], 'w'))"
)


# --- check_exit: the protocol as a table -------------------------------------------------


@pytest.mark.parametrize("on_ambiguous", ["retry", "fail"])
def test_exit_0_succeeds(on_ambiguous):
    flowc.check_exit(0, on_ambiguous)


@pytest.mark.parametrize("on_ambiguous", ["retry", "fail"])
def test_exit_75_is_an_ordinary_failure(on_ambiguous):
    with pytest.raises(AirflowException) as info:
        flowc.check_exit(75, on_ambiguous)
    assert not isinstance(info.value, AirflowFailException)


@pytest.mark.parametrize("on_ambiguous", ["retry", "fail"])
def test_exit_65_is_never_retried(on_ambiguous):
    """A deterministic error (MODEL C0): no retry whatever on_ambiguous says."""
    with pytest.raises(AirflowFailException, match="exited 65"):
        flowc.check_exit(65, on_ambiguous)


@pytest.mark.parametrize("code", [1, 2, 3, 64, 66, 74, 77, 255, -9])
def test_other_exits_follow_on_ambiguous(code):
    with pytest.raises(AirflowFailException):
        flowc.check_exit(code, "fail")
    with pytest.raises(AirflowException) as info:
        flowc.check_exit(code, "retry")
    assert not isinstance(info.value, AirflowFailException)


def test_on_ambiguous_is_checked():
    with pytest.raises(ValueError, match="on_ambiguous"):
        local(["true"], on_ambiguous="maybe")


# --- the local operator, with real processes ---------------------------------------------


def test_no_templating():
    assert flowc.FlowSubprocessOperator.template_fields == ()
    assert flowc.FlowPodOperator.template_fields == ()


def test_argv_and_env_reach_the_process_exactly(tmp_path, monkeypatch):
    out = tmp_path / "dump.json"
    monkeypatch.setenv("OUT", str(out))
    monkeypatch.setenv("FLOWC_INHERITED", "yes")
    args = ["{{ds}}", "{% raw %}", "$HOME", "$(HOME)", "it's \"q\"", "two  spaces", "back\\slash", "naïve 😀", "a\nb", ""]
    env = {"PLAIN": "{{ ds }} $HOME", "UNICODE": "東京", "FLOW_TASK": "spoofed"}
    op = local(py(DUMP, *args), env=env, task_id="dump")
    op.execute(context(try_number=3))
    seen = json.loads(out.read_text())
    assert seen["argv"] == args
    got = seen["env"]
    assert got["PLAIN"] == "{{ ds }} $HOME"
    assert got["UNICODE"] == "東京"
    assert got["FLOWC_INHERITED"] == "yes"
    assert got["FLOW_PIPELINE"] == "flowc_test"
    assert got["FLOW_TASK"] == "dump"  # the protocol's variables win over the task's env
    assert got["FLOW_INTERVAL_START"] == "2026-01-01T01:00:00Z"
    assert got["FLOW_INTERVAL_END"] == "2026-01-02T01:00:00Z"
    assert got["FLOW_RUN_ID"] == "scheduled__2026-01-01T01:00:00+00:00"
    assert got["FLOW_ATTEMPT"] == "3"


def test_manual_run_without_interval_uses_trigger_time(tmp_path, monkeypatch):
    out = tmp_path / "dump.json"
    monkeypatch.setenv("OUT", str(out))
    local(py(DUMP)).execute(context(start=None, end=None))
    got = json.loads(out.read_text())["env"]
    assert got["FLOW_INTERVAL_START"] == got["FLOW_INTERVAL_END"] == "2026-05-06T07:08:09Z"


CWD = "import os; open(os.environ['OUT'], 'w').write(os.getcwd())"


def test_a_local_command_runs_in_the_dag_files_folder(tmp_path, monkeypatch):
    out = tmp_path / "cwd.txt"
    monkeypatch.setenv("OUT", str(out))
    monkeypatch.delenv("FLOWC_WORKDIR", raising=False)
    monkeypatch.chdir(tmp_path)  # the worker's own folder is not used
    op = local(py(CWD))
    op.execute(context())
    assert out.read_text() == os.path.dirname(os.path.abspath(op.dag.fileloc))
    assert out.read_text() != str(tmp_path)


def test_flowc_workdir_names_the_working_folder(tmp_path, monkeypatch):
    out = tmp_path / "cwd.txt"
    work = tmp_path / "tasks"
    work.mkdir()
    monkeypatch.setenv("OUT", str(out))
    monkeypatch.setenv("FLOWC_WORKDIR", str(work))
    local(py(CWD)).execute(context())
    assert out.read_text() == str(work)
    # A folder that is not there: nothing runs, an ordinary (retried) failure.
    monkeypatch.setenv("FLOWC_WORKDIR", str(tmp_path / "missing"))
    with pytest.raises(AirflowException, match="is not a folder") as caught:
        local(py(CWD)).execute(context())
    assert not isinstance(caught.value, AirflowFailException)


def test_local_exit_codes():
    local(["sh", "-c", "exit 0"], on_ambiguous="fail").execute(context())
    for on_ambiguous in ("retry", "fail"):
        with pytest.raises(AirflowException) as info:
            local(["sh", "-c", "exit 75"], on_ambiguous=on_ambiguous).execute(context())
        assert not isinstance(info.value, AirflowFailException)
    with pytest.raises(AirflowFailException):
        local(["sh", "-c", "exit 3"], on_ambiguous="fail").execute(context())
    with pytest.raises(AirflowFailException, match="exited 65"):
        local(["sh", "-c", "exit 65"], on_ambiguous="retry").execute(context())
    with pytest.raises(AirflowException) as info:
        local(["sh", "-c", "exit 3"], on_ambiguous="retry").execute(context())
    assert not isinstance(info.value, AirflowFailException)


def test_killed_by_a_signal_is_ambiguous():
    with pytest.raises(AirflowFailException, match="exited -9"):
        local(["sh", "-c", "kill -9 $$"], on_ambiguous="fail").execute(context())


def test_no_shell():
    # With a shell, `;` would run `exit 3`; without one, echo prints it and exits 0.
    local(["echo", "x; exit 3"], on_ambiguous="fail").execute(context())


def test_a_command_that_cannot_start_is_an_ordinary_failure():
    with pytest.raises(AirflowException, match="cannot start") as info:
        local(["/nonexistent/flowc-test-binary"], on_ambiguous="fail").execute(context())
    assert not isinstance(info.value, AirflowFailException)


def _sleeper(tmp_path):
    pid_file = tmp_path / "pid"
    return pid_file, ["sh", "-c", f"echo $$ > {pid_file}; sleep 30 & wait"]


def _gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_timeout_with_fail_stops_for_good_and_kills_the_process_group(tmp_path):
    pid_file, command = _sleeper(tmp_path)
    op = local(command, on_ambiguous="fail")
    started = time.monotonic()
    with pytest.raises(AirflowFailException, match="timeout"), timeout(1):
        op.execute(context())
    assert time.monotonic() - started < 10
    assert _gone(int(pid_file.read_text()))


def test_timeout_with_retry_is_an_ordinary_failure(tmp_path):
    pid_file, command = _sleeper(tmp_path)
    op = local(command, on_ambiguous="retry")
    with pytest.raises(AirflowTaskTimeout), timeout(1):
        op.execute(context())
    assert _gone(int(pid_file.read_text()))


def _op(task_id):
    return flowc.FlowSubprocessOperator(task_id=task_id, command=["true"], on_ambiguous="retry")


def test_set_upstream_matches_rshift():
    with DAG("a", schedule=None):
        a1, b1, c1 = (_op(n) for n in "abc")
        [a1, b1] >> c1
    with DAG("b", schedule=None):
        a2, b2, c2 = (_op(n) for n in "abc")
        flowc.set_upstream(c2, [a2, b2])
    for x, y in ((a1, a2), (b1, b2), (c1, c2)):
        assert x.upstream_task_ids == y.upstream_task_ids
        assert x.downstream_task_ids == y.downstream_task_ids
    assert c2.upstream_task_ids == {"a", "b"}
    with DAG("c", schedule=None):
        other = _op("other")
    with pytest.raises(RuntimeError, match="same DAG"):
        flowc.set_upstream(c2, [other])


# --- the pod operator --------------------------------------------------------------------


def pod_op(on_ambiguous="retry", env=None):
    with DAG("flowc_test", schedule=None):
        return flowc.FlowPodOperator(
            task_id="in_pod",
            image="registry.example/img:{{tag}}",
            command=["sh", "-c", "echo $HOME $(HOME) {{ds}}"],
            env=env or {"A": "$(B) $$ x"},
            on_ambiguous=on_ambiguous,
        )


def test_pod_escapes_dollars_and_does_not_template():
    op = pod_op()
    assert op.template_fields == ()
    pod = op.pod_operator(context())
    assert pod.template_fields == ()
    assert pod.task_id == "in_pod"
    assert pod.image == "registry.example/img:{{tag}}"
    assert pod.cmds == ["sh", "-c", "echo $$HOME $$(HOME) {{ds}}"]
    assert pod.arguments == []
    env = [(e.name, e.value) for e in pod.env_vars]
    assert env[0] == ("A", "$$(B) $$$$ x")
    # The task's env, then the FLOW_* variables (which win in Kubernetes, the later entry).
    assert [name for name, _ in env[1:]] == list(flowc.flow_env(context(), "flowc_test", "in_pod"))
    assert pod.deferrable is False


def test_parsing_pod_tasks_imports_no_kubernetes():
    """A DAG file is parsed again and again: the Kubernetes provider and client
    are imported only when a pod task runs."""
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(Path(flowc.__file__).parent)!r})\n"
        "import _flowc_airflow as flowc\n"
        "from airflow.sdk import DAG\n"
        "with DAG('d', schedule=None):\n"
        "    flowc.FlowPodOperator(task_id='t', image='i', command=['x'], on_ambiguous='fail')\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] == 'kubernetes' or m.startswith('airflow.providers.cncf.kubernetes.operators'))\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_run_nested_passes_the_nested_operator_check(monkeypatch):
    from airflow.sdk import BaseOperator
    from airflow.sdk.bases.operator import ExecutorSafeguard

    class Inner(BaseOperator):
        def execute(self, context):
            return "ran"

    monkeypatch.setattr(ExecutorSafeguard, "test_mode", False)
    inner = Inner(task_id="inner", allow_nested_operators=False)
    with pytest.raises(RuntimeError, match="outside of the Task Runner"):
        inner.execute({})
    assert flowc.run_nested(inner, {}) == "ran"


def terminated_pod(exit_code, name="base"):
    state = SimpleNamespace(terminated=SimpleNamespace(exit_code=exit_code) if exit_code is not None else None)
    return SimpleNamespace(status=SimpleNamespace(container_statuses=[SimpleNamespace(name=name, state=state)]))


@pytest.fixture
def fake_kubernetes(monkeypatch):
    """Replace the parts of KubernetesPodOperator that talk to a cluster.

    ``run`` decides what the fake pod does: ``("exit", code)`` starts the pod
    and ends it with ``code``; ``("no-start",)`` fails before the container
    starts; ``("lost",)`` starts it and then fails with no exit code.
    """
    seen = {}

    def execute(self, context):
        seen["env"] = [(e.name, e.value) for e in self.env_vars]
        what = seen["run"]
        if what[0] == "no-start":
            raise AirflowException("pod could not be scheduled")
        self.await_pod_start(pod=None)
        if what[0] == "lost":
            raise AirflowException("lost the pod")
        self.cleanup(pod=None, remote_pod=terminated_pod(what[1]), context=context)

    def cleanup(self, pod, remote_pod, xcom_result=None, context=None):
        code = flowc.base_container_exit_code(remote_pod, self.base_container_name)
        if code != 0:
            raise AirflowException("Pod returned a failure.")

    monkeypatch.setattr(KubernetesPodOperator, "execute", execute)
    monkeypatch.setattr(KubernetesPodOperator, "cleanup", cleanup)
    monkeypatch.setattr(KubernetesPodOperator, "await_pod_start", lambda self, pod: None)
    return seen


def test_pod_gets_flow_env_escaped(fake_kubernetes):
    fake_kubernetes["run"] = ("exit", 0)
    op = pod_op()
    ctx = context(try_number=2)
    ctx["run_id"] = "manual__$(x)"
    op.execute(ctx)
    env = dict(fake_kubernetes["env"])
    assert env["A"] == "$$(B) $$$$ x"
    assert env["FLOW_RUN_ID"] == "manual__$$(x)"
    assert env["FLOW_ATTEMPT"] == "2"
    assert env["FLOW_TASK"] == "in_pod"
    assert env["FLOW_INTERVAL_START"] == "2026-01-01T01:00:00Z"
    # A second attempt on the same object does not pile up variables.
    op.execute(ctx)
    assert len(fake_kubernetes["env"]) == len(env)


def test_pod_exit_codes(fake_kubernetes):
    fake_kubernetes["run"] = ("exit", 75)
    with pytest.raises(AirflowException) as info:
        pod_op("fail").execute(context())
    assert not isinstance(info.value, AirflowFailException)

    fake_kubernetes["run"] = ("exit", 3)
    with pytest.raises(AirflowFailException, match="exited 3"):
        pod_op("fail").execute(context())
    with pytest.raises(AirflowException, match="exited 3") as info:
        pod_op("retry").execute(context())
    assert not isinstance(info.value, AirflowFailException)


def test_pod_that_never_started_is_an_ordinary_failure(fake_kubernetes):
    fake_kubernetes["run"] = ("no-start",)
    with pytest.raises(AirflowException, match="could not be scheduled") as info:
        pod_op("fail").execute(context())
    assert not isinstance(info.value, AirflowFailException)


def test_pod_lost_after_start_is_ambiguous(fake_kubernetes):
    fake_kubernetes["run"] = ("lost",)
    with pytest.raises(AirflowFailException, match="after it started"):
        pod_op("fail").execute(context())


def test_base_container_exit_code():
    assert flowc.base_container_exit_code(terminated_pod(7), "base") == 7
    assert flowc.base_container_exit_code(terminated_pod(7, name="sidecar"), "base") is None
    assert flowc.base_container_exit_code(terminated_pod(None), "base") is None
    assert flowc.base_container_exit_code(None, "base") is None


def test_local_connections_come_from_airflow_connections(tmp_path, monkeypatch):
    out = tmp_path / "dump.json"
    monkeypatch.setenv("OUT", str(out))
    # An Airflow Connection from the environment backend, as a deployment's
    # secrets backend would hold it.
    monkeypatch.setenv("AIRFLOW_CONN_FLOWC_TEST_DB", "postgresql://loader:s3cret@db.internal:5432/wh")
    with DAG("flowc_test", schedule=None):
        op = flowc.FlowSubprocessOperator(
            task_id="dump",
            command=py(DUMP),
            env={"FLOW_CONN_WAREHOUSE": "overridden"},
            connections={"FLOW_CONN_WAREHOUSE": "flowc_test_db"},
            on_ambiguous="retry",
        )
    # Nothing is read when the DAG is parsed.
    assert op.connections == {"FLOW_CONN_WAREHOUSE": "flowc_test_db"}
    op.execute(context())
    got = json.loads(out.read_text())["env"]
    assert got["FLOW_CONN_WAREHOUSE"] == "postgres://loader:s3cret@db.internal:5432/wh"


def test_a_missing_connection_is_an_ordinary_failure(tmp_path):
    marker = tmp_path / "ran"
    with DAG("flowc_test", schedule=None):
        op = flowc.FlowSubprocessOperator(
            task_id="t",
            command=py("import pathlib, sys; pathlib.Path(sys.argv[1]).touch()", str(marker)),
            connections={"FLOW_CONN_X": "flowc_no_such_connection"},
            on_ambiguous="fail",
        )
    with pytest.raises(AirflowException) as err:
        op.execute(context())
    assert not isinstance(err.value, AirflowFailException)
    assert "flowc_no_such_connection" in str(err.value)
    assert not marker.exists()


def test_pod_settings_and_secrets_reach_the_pod():
    with DAG("flowc_test", schedule=None):
        op = flowc.FlowPodOperator(
            task_id="in_pod",
            image="registry.example/img:1",
            command=["python", "-m", "job"],
            env={"A": "1"},
            on_ambiguous="retry",
            namespace="data-jobs",
            service_account_name="flowc-runner",
            container_resources={"cpu": "500m", "memory": "1Gi"},
            labels={"team": "billing"},
            annotations={"acme.io/owner": "billing"},
            image_pull_policy="IfNotPresent",
            secrets={"FLOW_CONN_WAREHOUSE": "warehouse-db", "FLOW_TOKEN_ALERTS": "slack-alerts"},
        )
    kpo = op.pod_operator(context())
    assert kpo.namespace == "data-jobs"
    assert kpo.service_account_name == "flowc-runner"
    assert kpo.image_pull_policy == "IfNotPresent"
    pod = kpo.build_pod_request_obj(None, dry_run=True)
    assert pod.metadata.namespace == "data-jobs"
    assert pod.spec.service_account_name == "flowc-runner"
    assert pod.metadata.labels["team"] == "billing"
    assert pod.metadata.annotations == {"acme.io/owner": "billing"}
    (base,) = [c for c in pod.spec.containers if c.name == "base"]
    assert base.resources.requests == {"cpu": "500m", "memory": "1Gi"}
    assert base.resources.limits == {"cpu": "500m", "memory": "1Gi"}
    env = {e.name: e for e in base.env}
    ref = env["FLOW_CONN_WAREHOUSE"].value_from.secret_key_ref
    assert env["FLOW_CONN_WAREHOUSE"].value is None
    assert (ref.name, ref.key, ref.optional) == ("warehouse-db", "url", None)
    # An effect's token: the Secret's key `token`, which may be absent.
    token = env["FLOW_TOKEN_ALERTS"].value_from.secret_key_ref
    assert (token.name, token.key, token.optional) == ("slack-alerts", "token", True)
    # The task's env, then the connections and tokens, then FLOW_* (which win).
    assert [e.name for e in base.env][:3] == ["A", "FLOW_CONN_WAREHOUSE", "FLOW_TOKEN_ALERTS"]
    assert [e.name for e in base.env][3:] == list(flowc.flow_env(context(), "flowc_test", "in_pod"))


def test_a_pod_without_settings_leaves_the_provider_defaults():
    kpo = pod_op().pod_operator(context())
    assert kpo.service_account_name is None
    assert kpo.container_resources is None
    assert not any(e.value_from for e in kpo.env_vars)
