// argo-controller runs flowc's Argo output under Argo Workflows' own workflow controller and
// checks, cell by cell, that Argo does what flowc's documentation promises.
//
// The controller is Argo's code (github.com/argoproj/argo-workflows/v4/workflow/controller, the
// version pinned in go.mod), started in this process with NewWorkflowController and Run as
// cmd/workflow-controller starts it. What it talks to is in memory: client-go's fake clientsets
// for Kubernetes and for Argo's resources, over one object store that behaves as an API server
// on writes (apiserver.go), and a simulated kubelet and executor that run no container but end
// each pod with the exit code the cell planned for that attempt (kubelet.go). Every decision the
// cells check (retry or not, what goes into a pod's environment, when a DAG task starts, who holds
// a mutex, when a CronWorkflow ticks, which pods and workflows are deleted) is the controller's.
//
//	argo-controller --flowc target/debug/flowc --flows tests/argo/controller \
//	    --python .venv/bin/python --runtime templates/python [--only CELL,...] [--flip CELL,...]
//
// The documents are flowc's output, built by this program with `flowc build --target argo` (and
// `flowc backfill --target argo` for the CronWorkflow cell), submitted unchanged. --flip inverts the
// named cells' expectations, to show that a cell fails when Argo does not do what it expects.
// Prints one line per cell, then `argo controller: N/M cells as promised`; exits 1 unless all are.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // the cron cell's zone, whatever the machine has
	"unsafe"

	apiv1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	kubefake "k8s.io/client-go/kubernetes/fake"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"sigs.k8s.io/yaml"

	"github.com/argoproj/argo-workflows/v4/pkg/apis/workflow"
	wfv1 "github.com/argoproj/argo-workflows/v4/pkg/apis/workflow/v1alpha1"
	wffake "github.com/argoproj/argo-workflows/v4/pkg/client/clientset/versioned/fake"
	wfscheme "github.com/argoproj/argo-workflows/v4/pkg/client/clientset/versioned/scheme"
	"github.com/argoproj/argo-workflows/v4/util/logging"
	"github.com/argoproj/argo-workflows/v4/workflow/common"
	"github.com/argoproj/argo-workflows/v4/workflow/controller"

	"flowc.local/argo-tools/internal/version"
)

const controllerNamespace = "argo"

type options struct {
	flowc, flows, python, runtime, runtimeScript, logFile string
	only, flip                                            map[string]bool
	timeout                                               time.Duration
}

func main() {
	var o options
	var only, flip string
	flag.StringVar(&o.flowc, "flowc", "target/debug/flowc", "the flowc binary")
	flag.StringVar(&o.flows, "flows", "tests/argo/controller", "the folder of the cells' .flow files")
	flag.StringVar(&o.python, "python", ".venv/bin/python", "a Python with flowc's runtime dependencies (croniter)")
	flag.StringVar(&o.runtime, "runtime", "templates/python", "the folder holding flowc_runtime")
	flag.StringVar(&o.runtimeScript, "runtime-script", "tools/argo/runtime_context.py", "the script that asks flowc_runtime what an environment means")
	flag.StringVar(&o.logFile, "log", "", "write the controller's log here (default: discarded)")
	flag.StringVar(&only, "only", "", "run only these cells (comma-separated)")
	flag.StringVar(&flip, "flip", "", "invert these cells' expectations (comma-separated): they must then fail")
	flag.DurationVar(&o.timeout, "timeout", 4*time.Minute, "give up on a cell after this long")
	list := flag.Bool("list", false, "list the cells and exit")
	flag.Parse()
	o.only, o.flip = set(only), set(flip)
	if *list {
		for _, c := range cells() {
			fmt.Printf("%-22s %s\n", c.name, c.shows)
		}
		return
	}
	os.Exit(run(o))
}

func set(csv string) map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Split(csv, ",") {
		if s = strings.TrimSpace(s); s != "" {
			m[s] = true
		}
	}
	return m
}

func run(o options) int {
	all := cells()
	known := map[string]bool{}
	for _, c := range all {
		known[c.name] = true
	}
	for name := range o.only {
		if !known[name] {
			fmt.Fprintf(os.Stderr, "argo-controller: no cell %q (--list lists them)\n", name)
			return 2
		}
	}
	for name := range o.flip {
		if !known[name] {
			fmt.Fprintf(os.Stderr, "argo-controller: no cell %q (--list lists them)\n", name)
			return 2
		}
	}

	work, err := os.MkdirTemp("", "flowc-argo-controller.")
	if err != nil {
		fmt.Fprintln(os.Stderr, "argo-controller:", err)
		return 1
	}
	defer os.RemoveAll(work)

	h, err := newHarness(o, work)
	if err != nil {
		fmt.Fprintln(os.Stderr, "argo-controller:", err)
		return 1
	}
	defer h.stop()

	var selected []cell
	for _, c := range all {
		if len(o.only) == 0 || o.only[c.name] {
			selected = append(selected, c)
		}
	}
	type outcome struct {
		err  error
		took time.Duration
	}
	results := make([]outcome, len(selected))
	var wg sync.WaitGroup
	for i, c := range selected {
		wg.Add(1)
		go func(i int, c cell) {
			defer wg.Done()
			start := time.Now()
			ctx, cancel := context.WithTimeout(h.ctx, o.timeout)
			defer cancel()
			err := c.run(ctx, h, &cellEnv{name: c.name, ns: "cell-" + c.name, flipped: o.flip[c.name]})
			if err == nil && ctx.Err() != nil {
				err = fmt.Errorf("timed out after %s", o.timeout)
			}
			results[i] = outcome{err, time.Since(start)}
		}(i, c)
	}
	wg.Wait()

	passed := 0
	for i, c := range selected {
		label := c.name
		if o.flip[c.name] {
			label += " (flipped)"
		}
		if results[i].err == nil {
			passed++
			fmt.Printf("ok    %-28s %s (%.1fs)\n", label, c.shows, results[i].took.Seconds())
		} else {
			fmt.Printf("FAIL  %-28s %s\n      %v\n", label, c.shows, results[i].err)
		}
	}
	if e := h.kubelet.errors(); e != "" {
		fmt.Printf("kubelet errors: %s\n", e)
	}
	fmt.Printf("argo controller: %d/%d cells as promised (Argo Workflows %s, workflow-controller in-process)\n",
		passed, len(selected), version.Argo())
	if passed != len(selected) || h.kubelet.errors() != "" {
		return 1
	}
	return 0
}

// harness holds the in-memory cluster, Argo's controller and the documents flowc built.
type harness struct {
	o       options
	work    string
	ctx     context.Context
	stop    context.CancelFunc
	kube    *kubefake.Clientset
	wf      *wffake.Clientset
	kubelet *kubelet
	docs    map[string][]byte // Argo document by pipeline (.flow) name

	mu     sync.Mutex
	ns     map[string]bool
	pyLock sync.Mutex
}

func newHarness(o options, work string) (*harness, error) {
	docs, err := buildDocs(o, work)
	if err != nil {
		return nil, err
	}

	ctx, cancel := context.WithCancel(context.Background())
	var logOut io.Writer = &discard{}
	var logger logging.Logger
	if o.logFile != "" {
		f, err := os.Create(o.logFile)
		if err != nil {
			cancel()
			return nil, err
		}
		logOut = f
		logger = logging.NewSlogLoggerCustom(logging.Info, logging.Text, f)
	} else {
		logger = logging.NewSlogLoggerCustom(logging.Error, logging.Text, logOut)
	}
	ctx = logging.WithLogger(ctx, logger)
	// client-go logs through klog: to the same place.
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	_ = klogFlags.Set("logtostderr", "false")
	_ = klogFlags.Set("alsologtostderr", "false")
	klog.SetOutput(logOut)

	rv := &revisions{}
	kube := kubefake.NewSimpleClientset()
	kubeTracker := newServerTracker(kubescheme.Scheme, kubescheme.Codecs.UniversalDecoder(), rv)
	install(&kube.Fake, kubeTracker)
	wfc := wffake.NewSimpleClientset()
	wfTracker := newServerTracker(wfscheme.Scheme, wfscheme.Codecs.UniversalDecoder(), rv)
	install(&wfc.Fake, wfTracker)

	h := &harness{o: o, work: work, ctx: ctx, stop: cancel, kube: kube, wf: wfc, docs: docs, ns: map[string]bool{}}
	if err := h.namespace(controllerNamespace); err != nil {
		cancel()
		return nil, err
	}
	// The controller's ConfigMap, empty: Argo's defaults throughout.
	if _, err := kube.CoreV1().ConfigMaps(controllerNamespace).Create(ctx, &apiv1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: common.ConfigMapName},
	}, metav1.CreateOptions{}); err != nil {
		cancel()
		return nil, err
	}

	// As cmd/workflow-controller does, with --namespace argo, cluster-wide (no --namespaced).
	restConfig := &rest.Config{Host: "https://127.0.0.1:1"} // never dialled: see below
	wc, err := controller.NewWorkflowController(ctx, restConfig, kube, wfc, controllerNamespace, "",
		"flowc.local/argoexec:none", string(apiv1.PullNever), "text", common.ConfigMapName, false)
	if err != nil {
		cancel()
		return nil, err
	}
	// NewWorkflowController makes its dynamic client (used by its informers only) from the
	// rest.Config; there is no server behind that, so hand it one over the same store.
	dyn := &dynamicClient{tracker: wfTracker, kinds: map[schema.GroupVersionResource]schema.GroupVersionKind{}}
	for _, k := range []struct{ plural, kind string }{
		{workflow.WorkflowPlural, workflow.WorkflowKind},
		{workflow.WorkflowTemplatePlural, workflow.WorkflowTemplateKind},
		{workflow.CronWorkflowPlural, workflow.CronWorkflowKind},
		{workflow.ClusterWorkflowTemplatePlural, workflow.ClusterWorkflowTemplateKind},
	} {
		dyn.kinds[wfv1.SchemeGroupVersion.WithResource(k.plural)] = wfv1.SchemeGroupVersion.WithKind(k.kind)
	}
	if err := setField(wc, "dynamicInterface", dynamic.Interface(dyn)); err != nil {
		cancel()
		return nil, err
	}

	h.kubelet = newKubelet(kube, wfc)
	if err := h.kubelet.run(ctx); err != nil {
		cancel()
		return nil, err
	}
	// Workers as cmd/workflow-controller's defaults, fewer: 8 workflow, 2 TTL, 2 pod clean-up,
	// 2 cron, 1 archive.
	go wc.Run(ctx, 8, 2, 2, 2, 1)
	if err := h.waitReady(ctx); err != nil {
		cancel()
		return nil, err
	}
	return h, nil
}

type discard struct{}

func (*discard) Write(p []byte) (int, error) { return len(p), nil }

// setField sets an unexported field of Argo's controller: the one seam this harness needs (the
// dynamic client) has no exported setter.
func setField(target any, name string, value any) error {
	v := reflect.ValueOf(target).Elem()
	f := v.FieldByName(name)
	if !f.IsValid() {
		return fmt.Errorf("Argo's WorkflowController has no field %q: the harness does not match this Argo version", name)
	}
	val := reflect.ValueOf(value)
	if !val.Type().AssignableTo(f.Type()) {
		return fmt.Errorf("Argo's WorkflowController.%s is a %s, not a %s", name, f.Type(), val.Type())
	}
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(val)
	return nil
}

// waitReady waits until the controller's informers are listening: a canary Workflow, submitted
// until the controller picks it up, must run to Succeeded.
func (h *harness) waitReady(ctx context.Context) error {
	ns := "canary"
	if err := h.namespace(ns); err != nil {
		return err
	}
	doc := []byte(`apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {name: canary}
spec:
  entrypoint: main
  templates:
  - name: main
    container: {image: "flowc.local/no-image:0", command: ["true"]}
`)
	deadline := time.Now().Add(60 * time.Second)
	for attempt := 0; time.Now().Before(deadline); attempt++ {
		var wf wfv1.Workflow
		if err := yaml.UnmarshalStrict(doc, &wf); err != nil {
			return err
		}
		wf.Name = fmt.Sprintf("canary-%d", attempt)
		if _, err := h.wf.ArgoprojV1alpha1().Workflows(ns).Create(ctx, &wf, metav1.CreateOptions{}); err != nil {
			return err
		}
		for t := time.Now(); time.Since(t) < 5*time.Second; time.Sleep(100 * time.Millisecond) {
			got, err := h.wf.ArgoprojV1alpha1().Workflows(ns).Get(ctx, wf.Name, metav1.GetOptions{})
			if err == nil && got.Status.Phase == wfv1.WorkflowSucceeded {
				return nil
			}
			if err == nil && got.Status.Phase != "" && got.Status.Phase != wfv1.WorkflowPending && got.Status.Phase != wfv1.WorkflowRunning {
				return fmt.Errorf("the canary workflow ended %s: %s", got.Status.Phase, got.Status.Message)
			}
			if err == nil && got.Status.Phase != "" {
				t = time.Now() // picked up: wait for it to finish
			}
		}
	}
	return fmt.Errorf("Argo's controller did not run a canary workflow within 60s")
}

func (h *harness) namespace(ns string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ns[ns] {
		return nil
	}
	_, err := h.kube.CoreV1().Namespaces().Create(h.ctx, &apiv1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err == nil {
		h.ns[ns] = true
	}
	return err
}

// buildDocs runs `flowc build --target argo` over the cells' .flow files.
func buildDocs(o options, work string) (map[string][]byte, error) {
	flows, err := filepath.Glob(filepath.Join(o.flows, "*.flow"))
	if err != nil || len(flows) == 0 {
		return nil, fmt.Errorf("no .flow files in %s", o.flows)
	}
	sort.Strings(flows)
	out := filepath.Join(work, "argo")
	cmd := exec.Command(o.flowc, append([]string{"build", "--target", "argo", "--out", out}, flows...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("flowc build --target argo: %v\n%s", err, b)
	}
	files, err := filepath.Glob(filepath.Join(out, "*.yaml"))
	if err != nil {
		return nil, err
	}
	docs := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		docs[strings.TrimSuffix(filepath.Base(f), ".yaml")] = b
	}
	return docs, nil
}

// decode reads one Argo document strictly (an unknown field is an error, as for `argo lint`).
func decode(doc []byte) (runtime.Object, error) {
	var head metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &head); err != nil {
		return nil, err
	}
	switch head.Kind {
	case workflow.WorkflowKind:
		var wf wfv1.Workflow
		return &wf, yaml.UnmarshalStrict(doc, &wf)
	case workflow.CronWorkflowKind:
		var cwf wfv1.CronWorkflow
		return &cwf, yaml.UnmarshalStrict(doc, &cwf)
	}
	return nil, fmt.Errorf("unexpected kind %q", head.Kind)
}
