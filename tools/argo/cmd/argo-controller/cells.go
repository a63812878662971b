package main

// The cells. Each submits flowc's documents (built from tests/argo/controller/*.flow) into its own
// namespace, plans the exit code of every attempt, lets Argo's controller run them, and checks
// what the controller did against what flowc's documentation (docs/targets/argo.md) promises.
// With --flip a cell expects the opposite outcome and must fail.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	wfv1 "github.com/argoproj/argo-workflows/v4/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v4/workflow/common"
)

type cellEnv struct {
	name    string
	ns      string
	flipped bool
}

type cell struct {
	name  string
	shows string
	run   func(ctx context.Context, h *harness, c *cellEnv) error
}

func cells() []cell {
	return []cell{
		retryCell("exit-75-retried", "fail_75_75_0", []int32{75, 75, 0}, 3, wfv1.WorkflowSucceeded, 3*time.Second,
			"exit 75 is retried (on_ambiguous fail): 75, 75, 0 → three attempts, Succeeded; FLOW_ATTEMPT 1, 2, 3; the backoff between attempts"),
		retryCell("exit-75-limit", "fail_75_limit", []int32{75}, 3, wfv1.WorkflowFailed, 0,
			"exit 75 every time, retries 2 → three attempts (limit + 1), then Failed"),
		retryCell("exit-76-not-retried", "fail_76", []int32{76, 0}, 1, wfv1.WorkflowFailed, 0,
			"exit 76 (on_ambiguous fail) is not retried: one attempt, Failed"),
		retryCell("exit-70-fail", "fail_70", []int32{70, 0}, 1, wfv1.WorkflowFailed, 0,
			"exit 70 under on_ambiguous fail is not retried"),
		retryCell("exit-70-retry", "retry_70", []int32{70, 0}, 2, wfv1.WorkflowSucceeded, 0,
			"exit 70 under on_ambiguous retry is retried"),
		retryCell("exit-65-fail", "fail_65", []int32{65, 0}, 1, wfv1.WorkflowFailed, 0,
			"exit 65 (permanent) under on_ambiguous fail is not retried"),
		retryCell("exit-65-retry", "retry_65", []int32{65, 0}, 1, wfv1.WorkflowFailed, 0,
			"exit 65 (permanent) under on_ambiguous retry is not retried either"),
		retryCell("exit-1-fail", "fail_1", []int32{1, 0}, 1, wfv1.WorkflowFailed, 0,
			"exit 1, a code outside the protocol, under on_ambiguous fail: not retried"),
		retryCell("exit-1-retry", "retry_1", []int32{1, 0}, 2, wfv1.WorkflowSucceeded, 0,
			"exit 1 under on_ambiguous retry: retried"),
		retryCell("exit-75-retry-limit", "retry_75_limit", []int32{75}, 3, wfv1.WorkflowFailed, 0,
			"exit 75 every time under on_ambiguous retry, retries 2 → three attempts, then Failed"),
		retryCell("retries-0", "no_retries", []int32{75, 0}, 1, wfv1.WorkflowFailed, 0,
			"retries 0: no retryStrategy, even exit 75 is not retried; FLOW_ATTEMPT is 1"),
		{name: "depends-order", shows: "depends: in a diamond each task starts only after every upstream task succeeded", run: dependsOrder},
		{name: "depends-failure", shows: "depends: after a task fails nothing starts (the join never runs), Failed", run: dependsFailure},
		{name: "mutex-serializes", shows: "two workflows writing one sink: the per-sink mutex never lets their tasks run at once", run: mutexCell("mutex_a", "mutex_b", false)},
		{name: "mutex-control", shows: "two workflows writing different sinks do run at once (the cell can see an overlap)", run: mutexCell("free_a", "free_b", true)},
		{name: "cron-tick", shows: "a CronWorkflow tick: the runtime reads the same interval from its pod as from flowc backfill's Workflow for it", run: cronTick},
		{name: "pod-gc", shows: "argo_pod_gc OnPodSuccess: the succeeded attempt's pod is deleted, the failed one's kept", run: podGC},
		{name: "ttl", shows: "argo_ttl 5s: the finished Workflow is deleted 5 s after it ends", run: ttl},
		{name: "gc-none", shows: "argo_pod_gc none and a day's argo_ttl: pods and Workflow stay", run: gcNone},
	}
}

// ---- helpers ----

// submit creates the document flowc built for `pipeline` in the cell's namespace, unchanged, as
// `kubectl create -n NS -f` would. It returns the created Workflow (nil for a CronWorkflow).
func (h *harness) submit(ctx context.Context, ns, pipeline string) (*wfv1.Workflow, error) {
	doc, ok := h.docs[pipeline]
	if !ok {
		return nil, fmt.Errorf("flowc built no document for pipeline %q", pipeline)
	}
	return h.submitDoc(ctx, ns, doc)
}

func (h *harness) submitDoc(ctx context.Context, ns string, doc []byte) (*wfv1.Workflow, error) {
	if err := h.namespace(ns); err != nil {
		return nil, err
	}
	obj, err := decode(doc)
	if err != nil {
		return nil, err
	}
	switch v := obj.(type) {
	case *wfv1.Workflow:
		return h.wf.ArgoprojV1alpha1().Workflows(ns).Create(ctx, v, metav1.CreateOptions{})
	case *wfv1.CronWorkflow:
		_, err := h.wf.ArgoprojV1alpha1().CronWorkflows(ns).Create(ctx, v, metav1.CreateOptions{})
		return nil, err
	}
	return nil, fmt.Errorf("unexpected document")
}

// finished waits for a workflow to end, and for the kubelet to have finished its pods.
func (h *harness) finished(ctx context.Context, ns, name string) (*wfv1.Workflow, error) {
	for {
		wf, err := h.wf.ArgoprojV1alpha1().Workflows(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, err
		}
		if err == nil && wf.Status.Phase.Completed() && !wf.Status.FinishedAt.IsZero() {
			return wf, nil
		}
		select {
		case <-ctx.Done():
			phase := "not created"
			if wf != nil {
				phase = string(wf.Status.Phase) + " " + wf.Status.Message
			}
			return nil, fmt.Errorf("workflow %s/%s did not finish (%s)", ns, name, phase)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

type identity struct {
	IntervalStart string `json:"interval_start"`
	IntervalEnd   string `json:"interval_end"`
	RunID         string `json:"run_id"`
	Attempt       int    `json:"attempt"`
	Error         string `json:"error"`
}

// identities asks flowc's Python runtime what each environment means (tools/argo/runtime_context.py).
func (h *harness) identities(envs []map[string]string) ([]identity, error) {
	h.pyLock.Lock()
	defer h.pyLock.Unlock()
	in, err := json.Marshal(envs)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(h.o.python, h.o.runtimeScript, h.o.runtime)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("runtime_context.py: %v: %s", err, stderr.String())
	}
	var ids []identity
	if err := json.Unmarshal(out, &ids); err != nil {
		return nil, err
	}
	if len(ids) != len(envs) {
		return nil, fmt.Errorf("runtime_context.py answered %d of %d", len(ids), len(envs))
	}
	return ids, nil
}

func taskPods(pods []podRecord, task string) []podRecord {
	var out []podRecord
	for _, p := range pods {
		if p.Task == task {
			out = append(out, p)
		}
	}
	return out
}

// ---- retries, FLOW_ATTEMPT and the manual workflow's interval ----

func retryCell(name, pipeline string, codes []int32, attempts int, phase wfv1.WorkflowPhase, backoff time.Duration, shows string) cell {
	return cell{name: name, shows: shows, run: func(ctx context.Context, h *harness, c *cellEnv) error {
		h.kubelet.setPlan(c.ns, "attempt", plan{codes: codes, runs: 300 * time.Millisecond})
		created, err := h.submit(ctx, c.ns, pipeline)
		if err != nil {
			return err
		}
		wf, err := h.finished(ctx, c.ns, created.Name)
		if err != nil {
			return err
		}
		wantAttempts, wantPhase := attempts, phase
		if c.flipped { // the opposite decision: retried ↔ not retried
			if attempts == 1 {
				wantAttempts, wantPhase = 2, wfv1.WorkflowSucceeded
			} else {
				wantAttempts, wantPhase = 1, wfv1.WorkflowFailed
			}
		}
		pods := taskPods(h.kubelet.pods(c.ns, wf.Name), "attempt")
		var codesSeen []string
		for _, p := range pods {
			codesSeen = append(codesSeen, strconv.Itoa(int(p.ExitCode)))
		}
		if len(pods) != wantAttempts || wf.Status.Phase != wantPhase {
			return fmt.Errorf("expected %d attempt(s) and %s; Argo made %d (exit codes %s) and the workflow is %s: %s",
				wantAttempts, wantPhase, len(pods), strings.Join(codesSeen, ", "), wf.Status.Phase, wf.Status.Message)
		}
		return checkAttemptEnv(h, wf, pods, backoff)
	}}
}

// checkAttemptEnv checks each attempt's FLOW_* environment, raw and as the runtime reads it.
func checkAttemptEnv(h *harness, wf *wfv1.Workflow, pods []podRecord, backoff time.Duration) error {
	uid := string(wf.UID)
	created := wf.CreationTimestamp.UTC().Format(time.RFC3339)
	var envs []map[string]string
	for i, p := range pods {
		if got := p.Env["FLOW_ATTEMPT"]; got != strconv.Itoa(i+1) {
			return fmt.Errorf("attempt %d: FLOW_ATTEMPT is %q", i+1, got)
		}
		if got := p.Env["FLOW_RUN_ID"]; got != uid {
			return fmt.Errorf("attempt %d: FLOW_RUN_ID is %q, the workflow's uid is %q", i+1, got, uid)
		}
		got, err := time.Parse(time.RFC3339, p.Env["FLOW_INTERVAL_END"])
		if err != nil || !got.Equal(wf.CreationTimestamp.Time) {
			return fmt.Errorf("attempt %d: FLOW_INTERVAL_END is %q, the workflow was created at %s", i+1, p.Env["FLOW_INTERVAL_END"], created)
		}
		if err := inControllerZone(p.Env["FLOW_INTERVAL_END"], got); err != nil {
			return fmt.Errorf("attempt %d: %v", i+1, err)
		}
		if i > 0 && backoff > 0 {
			// Argo measures the backoff from the failed node's finishedAt, kept in whole seconds.
			if gap := p.Seen.Sub(pods[i-1].Finished); gap < backoff-time.Second {
				return fmt.Errorf("attempt %d started %.1fs after attempt %d ended; the backoff is %s", i+1, gap.Seconds(), i, backoff)
			}
		}
		envs = append(envs, p.Env)
	}
	ids, err := h.identities(envs)
	if err != nil {
		return err
	}
	for i, id := range ids {
		if id.Error != "" {
			return fmt.Errorf("attempt %d: the runtime refuses its environment: %s", i+1, id.Error)
		}
		if id.Attempt != i+1 || id.RunID != uid || id.IntervalEnd != created || id.IntervalStart != created {
			return fmt.Errorf("attempt %d: the runtime reads attempt %d, run %s, interval %s..%s; expected attempt %d, run %s, interval %s..%s",
				i+1, id.Attempt, id.RunID, id.IntervalStart, id.IntervalEnd, i+1, uid, created, created)
		}
	}
	return nil
}

// inControllerZone checks that an RFC 3339 time Argo wrote carries the offset of the controller
// process's own time zone (time.Local) at that instant, whatever zone the schedule names.
func inControllerZone(raw string, at time.Time) error {
	_, got := at.Zone()
	_, local := at.In(time.Local).Zone()
	if got != local {
		return fmt.Errorf("%q is not in the controller's time zone (%s, offset %ds)", raw, time.Local, local)
	}
	return nil
}

// ---- depends ----

var diamondEdges = [][2]string{{"extract", "clean"}, {"extract", "enrich"}, {"clean", "publish"}, {"enrich", "publish"}}

func dependsOrder(ctx context.Context, h *harness, c *cellEnv) error {
	for _, t := range []string{"extract", "clean", "enrich", "publish"} {
		h.kubelet.setPlan(c.ns, t, plan{codes: []int32{0}, runs: 500 * time.Millisecond})
	}
	h.kubelet.setPlan(c.ns, "enrich", plan{codes: []int32{0}, runs: 1500 * time.Millisecond})
	created, err := h.submit(ctx, c.ns, "diamond")
	if err != nil {
		return err
	}
	wf, err := h.finished(ctx, c.ns, created.Name)
	if err != nil {
		return err
	}
	pods := h.kubelet.pods(c.ns, wf.Name)
	byTask := map[string]podRecord{}
	for _, p := range pods {
		if _, dup := byTask[p.Task]; dup {
			return fmt.Errorf("task %s ran twice", p.Task)
		}
		byTask[p.Task] = p
	}
	if wf.Status.Phase != wfv1.WorkflowSucceeded || len(byTask) != 4 {
		return fmt.Errorf("expected four tasks and Succeeded; %d ran, workflow %s: %s", len(byTask), wf.Status.Phase, wf.Status.Message)
	}
	for _, e := range diamondEdges {
		up, down := byTask[e[0]], byTask[e[1]]
		startedAfter := !down.Seen.Before(up.Finished)
		if c.flipped {
			startedAfter = !startedAfter
		}
		if !startedAfter {
			return fmt.Errorf("%s's pod was created %.2fs after %s finished (expected %s)", e[1], down.Seen.Sub(up.Finished).Seconds(), e[0],
				map[bool]string{false: "after", true: "before: flipped"}[c.flipped])
		}
	}
	// publish waits for the slower of its two upstream tasks.
	return nil
}

func dependsFailure(ctx context.Context, h *harness, c *cellEnv) error {
	for _, t := range []string{"extract", "publish"} {
		h.kubelet.setPlan(c.ns, t, plan{codes: []int32{0}, runs: 300 * time.Millisecond})
	}
	h.kubelet.setPlan(c.ns, "clean", plan{codes: []int32{1}, runs: 300 * time.Millisecond})
	h.kubelet.setPlan(c.ns, "enrich", plan{codes: []int32{0}, runs: 2500 * time.Millisecond})
	created, err := h.submit(ctx, c.ns, "diamond_failure")
	if err != nil {
		return err
	}
	wf, err := h.finished(ctx, c.ns, created.Name)
	if err != nil {
		return err
	}
	pods := h.kubelet.pods(c.ns, wf.Name)
	clean := taskPods(pods, "clean")
	if len(clean) != 1 || clean[0].ExitCode != 1 {
		return fmt.Errorf("expected one failed attempt of clean, saw %d", len(clean))
	}
	var after []string
	for _, p := range pods {
		if p.Seen.After(clean[0].Finished) {
			after = append(after, p.Task)
		}
	}
	ranPublish := len(taskPods(pods, "publish")) > 0
	if c.flipped {
		if !ranPublish {
			return fmt.Errorf("expected (flipped) publish to run after clean failed; it did not, workflow %s", wf.Status.Phase)
		}
		return nil
	}
	if ranPublish || len(after) > 0 || wf.Status.Phase != wfv1.WorkflowFailed {
		return fmt.Errorf("after clean failed, Argo started %v (publish ran: %v); workflow %s", after, ranPublish, wf.Status.Phase)
	}
	return nil
}

// ---- mutexes ----

func mutexCell(a, b string, expectOverlap bool) func(ctx context.Context, h *harness, c *cellEnv) error {
	return func(ctx context.Context, h *harness, c *cellEnv) error {
		h.kubelet.setPlan(c.ns, "post", plan{codes: []int32{0}, runs: 4 * time.Second})
		var names []string
		for _, p := range []string{a, b} {
			created, err := h.submit(ctx, c.ns, p)
			if err != nil {
				return err
			}
			names = append(names, created.Name)
		}
		var pods []podRecord
		for _, n := range names {
			wf, err := h.finished(ctx, c.ns, n)
			if err != nil {
				return err
			}
			if wf.Status.Phase != wfv1.WorkflowSucceeded {
				return fmt.Errorf("workflow %s is %s: %s", n, wf.Status.Phase, wf.Status.Message)
			}
			ps := h.kubelet.pods(c.ns, n)
			if len(ps) != 1 {
				return fmt.Errorf("workflow %s ran %d pods, expected 1", n, len(ps))
			}
			pods = append(pods, ps[0])
		}
		first, second := pods[0], pods[1]
		if second.Running.Before(first.Running) {
			first, second = second, first
		}
		overlap := second.Running.Before(first.Finished)
		want := expectOverlap != c.flipped
		if overlap != want {
			return fmt.Errorf("%s ran %s..%s, %s ran %s..%s: overlap %v, expected %v",
				first.Workflow, clock(first.Running), clock(first.Finished), second.Workflow, clock(second.Running), clock(second.Finished), overlap, want)
		}
		return nil
	}
}

func clock(t time.Time) string { return t.Format("15:04:05.000") }

// ---- CronWorkflow tick against flowc backfill ----

func cronTick(ctx context.Context, h *harness, c *cellEnv) error {
	h.kubelet.setPlan(c.ns, "tick", plan{codes: []int32{0}, runs: 300 * time.Millisecond})
	if _, err := h.submit(ctx, c.ns, "every_minute"); err != nil {
		return err
	}
	// The first Workflow the cron controller creates for it.
	var tick *wfv1.Workflow
	for tick == nil {
		list, err := h.wf.ArgoprojV1alpha1().Workflows(c.ns).List(ctx, metav1.ListOptions{LabelSelector: common.LabelKeyCronWorkflow + "=every-minute"})
		if err != nil {
			return err
		}
		if len(list.Items) > 0 {
			tick = &list.Items[0]
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no tick within the cell's time")
		case <-time.After(time.Second):
		}
	}
	// One tick is enough.
	if err := h.wf.ArgoprojV1alpha1().CronWorkflows(c.ns).Delete(ctx, "every-minute", metav1.DeleteOptions{}); err != nil {
		return err
	}
	wf, err := h.finished(ctx, c.ns, tick.Name)
	if err != nil {
		return err
	}
	if wf.Status.Phase != wfv1.WorkflowSucceeded {
		return fmt.Errorf("the tick's workflow is %s: %s", wf.Status.Phase, wf.Status.Message)
	}
	pods := h.kubelet.pods(c.ns, wf.Name)
	if len(pods) != 1 {
		return fmt.Errorf("the tick's workflow ran %d pods", len(pods))
	}
	scheduled, err := time.Parse(time.RFC3339, wf.Annotations[common.AnnotationKeyCronWfScheduledTime])
	if err != nil {
		return fmt.Errorf("the tick's workflow has no scheduled time: %v", err)
	}
	raw := pods[0].Env["FLOW_INTERVAL_END"]
	if at, err := time.Parse(time.RFC3339, raw); err != nil || !at.Equal(scheduled) {
		return fmt.Errorf("FLOW_INTERVAL_END is %q, the tick was scheduled at %s", raw, scheduled)
	} else if err := inControllerZone(raw, at); err != nil {
		return err
	}

	// What flowc backfill prints for that day (in the pipeline's zone), and the interval ending at the tick.
	zone, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		return err
	}
	ids, err := h.identities([]map[string]string{pods[0].Env})
	if err != nil {
		return err
	}
	cronID := ids[0]
	if cronID.Error != "" {
		return fmt.Errorf("the runtime refuses the tick's environment (FLOW_INTERVAL_END %q): %s", raw, cronID.Error)
	}
	start, err := time.Parse(time.RFC3339, cronID.IntervalStart)
	if err != nil {
		return err
	}
	day := start.In(zone).Format("2006-01-02")
	out, err := exec.Command(h.o.flowc, "backfill", "--target", "argo", "--from", day, "--to", day,
		"--pipeline", "every_minute", h.o.flows+"/cron.flow").Output()
	if err != nil {
		return fmt.Errorf("flowc backfill: %v", err)
	}
	want := cronID.IntervalEnd
	if c.flipped {
		end, _ := time.Parse(time.RFC3339, want)
		want = end.Add(time.Minute).UTC().Format(time.RFC3339)
	}
	var backfill []byte
	for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(out), -1) {
		if strings.Contains(doc, "kind: \"Workflow\"") {
			obj, err := decode([]byte(doc))
			if err != nil {
				return fmt.Errorf("a backfill document: %v", err)
			}
			for _, p := range obj.(*wfv1.Workflow).Spec.Arguments.Parameters {
				if p.Name == "interval_end" && p.Value != nil && p.Value.String() == want {
					backfill = []byte(doc)
				}
			}
		}
	}
	if backfill == nil {
		return fmt.Errorf("flowc backfill --from %s --to %s printed no Workflow for the interval ending %s", day, day, want)
	}
	created, err := h.submitDoc(ctx, c.ns, backfill)
	if err != nil {
		return err
	}
	bwf, err := h.finished(ctx, c.ns, created.Name)
	if err != nil {
		return err
	}
	bpods := h.kubelet.pods(c.ns, bwf.Name)
	if bwf.Status.Phase != wfv1.WorkflowSucceeded || len(bpods) != 1 {
		return fmt.Errorf("the backfill workflow is %s with %d pods", bwf.Status.Phase, len(bpods))
	}
	bids, err := h.identities([]map[string]string{bpods[0].Env})
	if err != nil {
		return err
	}
	b := bids[0]
	if b.Error != "" {
		return fmt.Errorf("the runtime refuses the backfill pod's environment: %s", b.Error)
	}
	if b.IntervalStart != cronID.IntervalStart || b.IntervalEnd != cronID.IntervalEnd {
		return fmt.Errorf("tick (FLOW_INTERVAL_END %q) reads %s..%s, backfill reads %s..%s",
			raw, cronID.IntervalStart, cronID.IntervalEnd, b.IntervalStart, b.IntervalEnd)
	}
	if end, _ := time.Parse(time.RFC3339, cronID.IntervalEnd); !end.Equal(scheduled) || end.Sub(start) != time.Minute {
		return fmt.Errorf("the runtime reads %s..%s for a tick scheduled at %s", cronID.IntervalStart, cronID.IntervalEnd, scheduled)
	}
	fmt.Printf("      cron-tick: scheduled %s, FLOW_INTERVAL_END %q, interval %s..%s, backfill %s\n",
		wf.Annotations[common.AnnotationKeyCronWfScheduledTime], raw, cronID.IntervalStart, cronID.IntervalEnd, bwf.Name)
	return nil
}

// ---- podGC and TTL ----

// runFlaky runs a gc pipeline whose task fails once (75) and then succeeds.
func runFlaky(ctx context.Context, h *harness, c *cellEnv, pipeline string) (*wfv1.Workflow, []podRecord, error) {
	h.kubelet.setPlan(c.ns, "flaky", plan{codes: []int32{75, 0}, runs: 300 * time.Millisecond})
	created, err := h.submit(ctx, c.ns, pipeline)
	if err != nil {
		return nil, nil, err
	}
	wf, err := h.finished(ctx, c.ns, created.Name)
	if err != nil {
		return nil, nil, err
	}
	pods := h.kubelet.pods(c.ns, wf.Name)
	if wf.Status.Phase != wfv1.WorkflowSucceeded || len(pods) != 2 || pods[0].ExitCode != 75 || pods[1].ExitCode != 0 {
		return nil, nil, fmt.Errorf("expected a failed then a succeeded attempt and Succeeded; %d pods, workflow %s", len(pods), wf.Status.Phase)
	}
	return wf, pods, nil
}

func podGC(ctx context.Context, h *harness, c *cellEnv) error {
	wf, _, err := runFlaky(ctx, h, c, "gc_ttl")
	if err != nil {
		return err
	}
	// Give the pod clean-up queue time to act, then look.
	deadline := time.Now().Add(15 * time.Second)
	var pods []podRecord
	for time.Now().Before(deadline) {
		pods = h.kubelet.pods(c.ns, wf.Name)
		if !pods[1].Deleted.IsZero() {
			break
		}
		sleep(ctx, 250*time.Millisecond)
	}
	sleep(ctx, time.Second)
	pods = h.kubelet.pods(c.ns, wf.Name)
	failedDeleted, succeededDeleted := !pods[0].Deleted.IsZero(), !pods[1].Deleted.IsZero()
	want := !c.flipped // flipped: the succeeded pod kept
	if failedDeleted || succeededDeleted != want {
		return fmt.Errorf("expected the failed attempt's pod kept and the succeeded one's deleted: %v; Argo deleted the failed one: %v, the succeeded one: %v",
			want, failedDeleted, succeededDeleted)
	}
	return nil
}

func ttl(ctx context.Context, h *harness, c *cellEnv) error {
	wf, _, err := runFlaky(ctx, h, c, "gc_ttl")
	if err != nil {
		return err
	}
	finished := wf.Status.FinishedAt.Time
	var gone time.Time
	for gone.IsZero() {
		_, err := h.wf.ArgoprojV1alpha1().Workflows(c.ns).Get(ctx, wf.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			gone = time.Now()
			break
		}
		if time.Since(finished) > 40*time.Second {
			break
		}
		sleep(ctx, 200*time.Millisecond)
	}
	deleted := !gone.IsZero()
	if deleted == c.flipped { // flipped: expect it kept
		if deleted {
			return fmt.Errorf("expected the workflow kept; Argo deleted it %.1fs after it finished", gone.Sub(finished).Seconds())
		}
		return fmt.Errorf("expected the workflow deleted; it still exists %.0fs after it finished", time.Since(finished).Seconds())
	}
	// finishedAt is kept in whole seconds: allow one.
	if !c.flipped && gone.Sub(finished) < 4*time.Second {
		return fmt.Errorf("the workflow was deleted %.1fs after it finished, before its TTL of 5s", gone.Sub(finished).Seconds())
	}
	return nil
}

func gcNone(ctx context.Context, h *harness, c *cellEnv) error {
	wf, _, err := runFlaky(ctx, h, c, "gc_keep")
	if err != nil {
		return err
	}
	sleep(ctx, 10*time.Second)
	pods := h.kubelet.pods(c.ns, wf.Name)
	_, err = h.wf.ArgoprojV1alpha1().Workflows(c.ns).Get(ctx, wf.Name, metav1.GetOptions{})
	kept := pods[0].Deleted.IsZero() && pods[1].Deleted.IsZero() && err == nil
	if kept == c.flipped { // flipped: expect something deleted
		return fmt.Errorf("expected everything kept: %v; 10s after the end the pods are kept: %v, %v, the workflow: %v",
			!c.flipped, pods[0].Deleted.IsZero(), pods[1].Deleted.IsZero(), err == nil)
	}
	return nil
}
