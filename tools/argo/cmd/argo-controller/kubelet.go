package main

// The kubelet's and the executor's part, simulated: no container runs. For every pod Argo's
// controller creates, the kubelet below starts it (phase Running, the `main` and `wait` containers
// running), lets it run for the cell's planned time, and ends it with the exit code planned for
// this attempt (phase Failed for a non-zero code). Between the two it does what Argo's `wait`
// container (argoexec) does through the API: create the pod's WorkflowTaskResult, named after the
// node ID, with `workflows.argoproj.io/report-outputs-completed: "false"`, then report the (empty)
// outputs and set that label to "true" before the pod ends. Argo's controller treats a pod node as
// finished only once that label is "true".
//
// The attempt number used to pick the exit code is the harness's own count of the pods it has seen
// for the same workflow and task (FLOW_TASK), never the pod's FLOW_ATTEMPT: that variable is what
// the cells check.

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	apiv1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/argoproj/argo-workflows/v4/pkg/apis/workflow"
	wfv1 "github.com/argoproj/argo-workflows/v4/pkg/apis/workflow/v1alpha1"
	wfclientset "github.com/argoproj/argo-workflows/v4/pkg/client/clientset/versioned"
	"github.com/argoproj/argo-workflows/v4/workflow/common"
)

// A plan says how each attempt of one task ends: exit code codes[i] for attempt i+1 (the last
// code again once they run out), after running for `runs`.
type plan struct {
	codes []int32
	runs  time.Duration
}

// A podRecord is what the kubelet saw of one pod.
type podRecord struct {
	Namespace string
	Name      string
	Workflow  string
	Task      string // the main container's FLOW_TASK
	NodeName  string // Argo's node name (annotation)
	Attempt   int    // the harness's count: 1 for the task's first pod
	Env       map[string]string
	ExitCode  int32
	Seen      time.Time // created (first seen by the kubelet)
	Running   time.Time
	Finished  time.Time
	Deleted   time.Time // zero while the pod exists
}

type kubelet struct {
	kube    kubernetes.Interface
	wf      wfclientset.Interface
	startIn time.Duration

	mu       sync.Mutex
	plans    map[string]plan // key: namespace/workflow-label-prefix/task, see planFor
	records  map[types.UID]*podRecord
	attempts map[string]int // key: namespace/workflow/task
	errs     []string
}

func newKubelet(kube kubernetes.Interface, wf wfclientset.Interface) *kubelet {
	return &kubelet{
		kube: kube, wf: wf, startIn: 150 * time.Millisecond,
		plans: map[string]plan{}, records: map[types.UID]*podRecord{}, attempts: map[string]int{},
	}
}

// setPlan plans the attempts of task `task` in every workflow of namespace ns.
func (k *kubelet) setPlan(ns, task string, p plan) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.plans[ns+"/"+task] = p
}

func (k *kubelet) planFor(ns, task string) plan {
	k.mu.Lock()
	defer k.mu.Unlock()
	if p, ok := k.plans[ns+"/"+task]; ok {
		return p
	}
	return plan{codes: []int32{0}, runs: 300 * time.Millisecond}
}

func (k *kubelet) fail(format string, args ...any) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.errs = append(k.errs, fmt.Sprintf(format, args...))
}

func (k *kubelet) run(ctx context.Context) error {
	w, err := k.kube.CoreV1().Pods("").Watch(ctx, metav1.ListOptions{LabelSelector: common.LabelKeyWorkflow})
	if err != nil {
		return err
	}
	go func() {
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.ResultChan():
				if !ok {
					return
				}
				pod, isPod := ev.Object.(*apiv1.Pod)
				if !isPod {
					continue
				}
				switch ev.Type {
				case watch.Added:
					go k.runPod(ctx, pod.DeepCopy())
				case watch.Deleted:
					k.mu.Lock()
					if r := k.records[pod.UID]; r != nil && r.Deleted.IsZero() {
						r.Deleted = time.Now()
					}
					k.mu.Unlock()
				}
			}
		}
	}()
	return nil
}

func mainContainer(pod *apiv1.Pod) *apiv1.Container {
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == common.MainContainerName {
			return &pod.Spec.Containers[i]
		}
	}
	return nil
}

func (k *kubelet) runPod(ctx context.Context, pod *apiv1.Pod) {
	seen := time.Now()
	main := mainContainer(pod)
	if main == nil {
		k.fail("pod %s/%s has no main container", pod.Namespace, pod.Name)
		return
	}
	env := map[string]string{}
	for _, e := range main.Env {
		if e.ValueFrom == nil {
			env[e.Name] = e.Value
		}
	}
	wfName := pod.Labels[common.LabelKeyWorkflow]
	task := env["FLOW_TASK"]
	key := pod.Namespace + "/" + wfName + "/" + task
	k.mu.Lock()
	k.attempts[key]++
	rec := &podRecord{
		Namespace: pod.Namespace, Name: pod.Name, Workflow: wfName, Task: task,
		NodeName: pod.Annotations[common.AnnotationKeyNodeName], Attempt: k.attempts[key], Env: env, Seen: seen,
	}
	k.records[pod.UID] = rec
	k.mu.Unlock()
	p := k.planFor(pod.Namespace, task)
	code := p.codes[len(p.codes)-1]
	if rec.Attempt <= len(p.codes) {
		code = p.codes[rec.Attempt-1]
	}

	sleep(ctx, k.startIn)
	started := metav1.NewTime(time.Now())
	err := k.setStatus(ctx, pod, func(s *apiv1.PodStatus) {
		s.Phase = apiv1.PodRunning
		s.StartTime = &started
		s.HostIP, s.PodIP = "127.0.0.1", "127.0.0.1"
		s.InitContainerStatuses = nil
		for _, c := range pod.Spec.InitContainers {
			s.InitContainerStatuses = append(s.InitContainerStatuses, apiv1.ContainerStatus{
				Name: c.Name, Image: c.Image, Ready: true,
				State: apiv1.ContainerState{Terminated: &apiv1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: started, FinishedAt: started}},
			})
		}
		s.ContainerStatuses = nil
		for _, c := range pod.Spec.Containers {
			s.ContainerStatuses = append(s.ContainerStatuses, apiv1.ContainerStatus{
				Name: c.Name, Image: c.Image, Ready: true, Started: ptrTrue(),
				State: apiv1.ContainerState{Running: &apiv1.ContainerStateRunning{StartedAt: started}},
			})
		}
	})
	if err != nil {
		k.fail("pod %s/%s: start: %v", pod.Namespace, pod.Name, err)
		return
	}
	k.mu.Lock()
	rec.Running = started.Time
	k.mu.Unlock()

	// argoexec's wait container: a placeholder task result first...
	nodeID := pod.Annotations[common.AnnotationKeyNodeID]
	results := k.wf.ArgoprojV1alpha1().WorkflowTaskResults(pod.Namespace)
	result := &wfv1.WorkflowTaskResult{
		TypeMeta:   metav1.TypeMeta{APIVersion: workflow.APIVersion, Kind: workflow.WorkflowTaskResultKind},
		ObjectMeta: metav1.ObjectMeta{Name: nodeID, Labels: map[string]string{common.LabelKeyWorkflow: wfName, common.LabelKeyReportOutputsCompleted: "false"}},
	}
	for _, o := range pod.OwnerReferences {
		if o.Kind == workflow.WorkflowKind {
			result.OwnerReferences = []metav1.OwnerReference{{APIVersion: workflow.APIVersion, Kind: workflow.WorkflowKind, Name: o.Name, UID: o.UID}}
		}
	}
	if _, err := results.Create(ctx, result, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		k.fail("pod %s/%s: task result: %v", pod.Namespace, pod.Name, err)
		return
	}

	sleep(ctx, p.runs)
	if ctx.Err() != nil {
		return
	}

	// ...then, once main has exited, its outputs and "completed".
	outputs, _ := json.Marshal(&wfv1.WorkflowTaskResult{NodeResult: wfv1.NodeResult{Outputs: &wfv1.Outputs{}}})
	if _, err := results.Patch(ctx, nodeID, types.MergePatchType, outputs, metav1.PatchOptions{}); err != nil {
		k.fail("pod %s/%s: report outputs: %v", pod.Namespace, pod.Name, err)
		return
	}
	done, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{common.LabelKeyReportOutputsCompleted: "true"}}})
	if _, err := results.Patch(ctx, nodeID, types.MergePatchType, done, metav1.PatchOptions{}); err != nil {
		k.fail("pod %s/%s: finalize outputs: %v", pod.Namespace, pod.Name, err)
		return
	}

	finished := metav1.NewTime(time.Now())
	err = k.setStatus(ctx, pod, func(s *apiv1.PodStatus) {
		if code == 0 {
			s.Phase = apiv1.PodSucceeded
		} else {
			s.Phase = apiv1.PodFailed
		}
		s.ContainerStatuses = nil
		for _, c := range pod.Spec.Containers {
			exit := int32(0)
			if c.Name == common.MainContainerName {
				exit = code
			}
			reason := "Completed"
			if exit != 0 {
				reason = "Error"
			}
			s.ContainerStatuses = append(s.ContainerStatuses, apiv1.ContainerStatus{
				Name: c.Name, Image: c.Image, Started: ptrFalse(),
				State: apiv1.ContainerState{Terminated: &apiv1.ContainerStateTerminated{ExitCode: exit, Reason: reason, StartedAt: started, FinishedAt: finished}},
			})
		}
	})
	if err != nil {
		k.fail("pod %s/%s: finish: %v", pod.Namespace, pod.Name, err)
		return
	}
	k.mu.Lock()
	rec.ExitCode = code
	rec.Finished = finished.Time
	k.mu.Unlock()
}

// setStatus writes the pod's status as the kubelet does (the status subresource), re-reading the
// pod on a conflict.
func (k *kubelet) setStatus(ctx context.Context, pod *apiv1.Pod, change func(*apiv1.PodStatus)) error {
	for i := 0; i < 50; i++ {
		cur, err := k.kube.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(&cur.Status)
		_, err = k.kube.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		if err == nil || !apierrors.IsConflict(err) {
			return err
		}
	}
	return fmt.Errorf("too many conflicts")
}

// pods returns the records of a workflow's pods in the order they were created.
func (k *kubelet) pods(ns, wf string) []podRecord {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []podRecord
	for _, r := range k.records {
		if r.Namespace == ns && (wf == "" || r.Workflow == wf) {
			out = append(out, *r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seen.Before(out[j].Seen) })
	return out
}

func (k *kubelet) errors() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return strings.Join(k.errs, "; ")
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func ptrTrue() *bool  { b := true; return &b }
func ptrFalse() *bool { b := false; return &b }
