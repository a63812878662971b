package main

// The API server's part, played in memory: client-go's object tracker (the store behind its fake
// clientsets) plus what a real kube-apiserver does on every write and the fake does not:
//
//   - create: a fresh `uid`, `creationTimestamp` (whole seconds, UTC), `generateName` filled in,
//     `generation` 1;
//   - every write: a new `resourceVersion`, from one counter for all kinds;
//   - update with a stale `resourceVersion`: 409 Conflict (optimistic concurrency, which Argo's
//     controller relies on: it re-reads and re-applies on conflict);
//   - watch and list: label and field (`metadata.name`, `metadata.namespace`) selectors, an object
//     that stops matching leaving the watch as a DELETED event.
//
// Argo's controller builds a dynamic client from its rest.Config for its workflow, template and
// cron informers (list and watch only). dynamicClient below serves those from the same tracker, so
// every object the controller writes through its typed clientset is the one its informers see.

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"sync"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	k8stesting "k8s.io/client-go/testing"
)

// revisions is the cluster-wide resourceVersion counter.
type revisions struct {
	mu   sync.Mutex
	next uint64
}

func (r *revisions) take() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	return strconv.FormatUint(r.next, 10)
}

func (r *revisions) current() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strconv.FormatUint(r.next, 10)
}

// serverTracker wraps client-go's tracker with the API server's write semantics.
type serverTracker struct {
	k8stesting.ObjectTracker
	rv     *revisions
	writes sync.Mutex // a read-check-write of one update is atomic
}

func newServerTracker(scheme k8stesting.ObjectScheme, decoder runtime.Decoder, rv *revisions) *serverTracker {
	return &serverTracker{ObjectTracker: k8stesting.NewObjectTracker(scheme, decoder), rv: rv}
}

func (t *serverTracker) Create(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.CreateOptions) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	if m.GetName() == "" && m.GetGenerateName() != "" {
		m.SetName(m.GetGenerateName() + randomSuffix())
	}
	if m.GetName() == "" {
		return apierrors.NewBadRequest("name or generateName is required")
	}
	m.SetUID(uuid.NewUUID())
	m.SetCreationTimestamp(metav1.NewTime(time.Now().UTC().Truncate(time.Second)))
	m.SetGeneration(1)
	t.writes.Lock()
	defer t.writes.Unlock()
	m.SetResourceVersion(t.rv.take())
	return t.ObjectTracker.Create(gvr, obj, ns, opts...)
}

func (t *serverTracker) Update(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.UpdateOptions) error {
	return t.write(gvr, obj, ns, func() error { return t.ObjectTracker.Update(gvr, obj, ns, opts...) })
}

func (t *serverTracker) Patch(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	// A patch is applied by the reaction to the stored object just read: it carries that
	// object's resourceVersion, unless the patch itself set one (a precondition).
	return t.write(gvr, obj, ns, func() error { return t.ObjectTracker.Patch(gvr, obj, ns, opts...) })
}

func (t *serverTracker) write(gvr schema.GroupVersionResource, obj runtime.Object, ns string, store func() error) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	t.writes.Lock()
	defer t.writes.Unlock()
	old, err := t.ObjectTracker.Get(gvr, ns, m.GetName())
	if err != nil {
		return err
	}
	om, err := meta.Accessor(old)
	if err != nil {
		return err
	}
	if rv := m.GetResourceVersion(); rv != "" && rv != om.GetResourceVersion() {
		return apierrors.NewConflict(gvr.GroupResource(), m.GetName(),
			fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	// What a client cannot change.
	m.SetUID(om.GetUID())
	m.SetCreationTimestamp(om.GetCreationTimestamp())
	m.SetGeneration(om.GetGeneration())
	m.SetResourceVersion(t.rv.take())
	return store()
}

func randomSuffix() string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphabet[rand.Intn(len(alphabet))]
	}
	return string(b)
}

// install replaces a fake clientset's reactions with ones backed by t.
func install(fake *k8stesting.Fake, t *serverTracker) {
	fake.ReactionChain = nil
	fake.WatchReactionChain = nil
	// Access reviews are not stored: the API server answers them. This one authorizes every
	// request (as --authorization-mode=AlwaysAllow does); Argo's controller asks before it
	// watches namespaces and ClusterWorkflowTemplates.
	fake.AddReactor("create", "selfsubjectaccessreviews", func(action k8stesting.Action) (bool, runtime.Object, error) {
		review := action.(k8stesting.CreateAction).GetObject().DeepCopyObject().(*authorizationv1.SelfSubjectAccessReview)
		review.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "the test harness allows every request"}
		return true, review, nil
	})
	fake.AddReactor("*", "*", func(action k8stesting.Action) (bool, runtime.Object, error) {
		handled, obj, err := k8stesting.ObjectReaction(t)(action)
		if err != nil || obj == nil {
			return handled, obj, err
		}
		if list, ok := action.(k8stesting.ListActionImpl); ok {
			// The typed fakes filter by label themselves; fields are ours.
			return handled, filterList(obj, list.GetListRestrictions().Fields), nil
		}
		return handled, obj, nil
	})
	fake.AddWatchReactor("*", func(action k8stesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if w, ok := action.(k8stesting.WatchActionImpl); ok {
			opts = w.ListOptions
		}
		w, err := t.Watch(action.GetResource(), action.GetNamespace())
		if err != nil {
			return true, nil, err
		}
		sel, fsel, err := selectors(opts)
		if err != nil {
			return true, nil, err
		}
		return true, filterWatch(w, sel, fsel, nil), nil
	})
}

func selectors(opts metav1.ListOptions) (labels.Selector, fields.Selector, error) {
	sel := labels.Everything()
	fsel := fields.Everything()
	var err error
	if opts.LabelSelector != "" {
		if sel, err = labels.Parse(opts.LabelSelector); err != nil {
			return nil, nil, apierrors.NewBadRequest(err.Error())
		}
	}
	if opts.FieldSelector != "" {
		if fsel, err = fields.ParseSelector(opts.FieldSelector); err != nil {
			return nil, nil, apierrors.NewBadRequest(err.Error())
		}
	}
	return sel, fsel, nil
}

func matches(obj runtime.Object, sel labels.Selector, fsel fields.Selector) bool {
	m, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	return sel.Matches(labels.Set(m.GetLabels())) &&
		fsel.Matches(fields.Set{"metadata.name": m.GetName(), "metadata.namespace": m.GetNamespace()})
}

func filterList(obj runtime.Object, fsel fields.Selector) runtime.Object {
	if fsel == nil || fsel.Empty() {
		return obj
	}
	items, err := meta.ExtractList(obj)
	if err != nil {
		return obj
	}
	var keep []runtime.Object
	for _, it := range items {
		if matches(it, labels.Everything(), fsel) {
			keep = append(keep, it)
		}
	}
	_ = meta.SetList(obj, keep)
	return obj
}

// filterWatch passes on the events of objects that match the selectors, as the API server's watch
// does: an object that stops matching is reported DELETED, one that starts matching ADDED. convert,
// if not nil, rewrites each object passed on. The tracker's own watcher has a fixed buffer (and
// panics when it is full), so its events are drained at once into an unbounded queue.
func filterWatch(in watch.Interface, sel labels.Selector, fsel fields.Selector, convert func(runtime.Object) (runtime.Object, error)) watch.Interface {
	out := &queueWatch{result: make(chan watch.Event), done: make(chan struct{})}
	out.cond = sync.NewCond(&out.mu)
	go func() { // drain
		defer in.Stop()
		seen := map[types.UID]bool{}
		for {
			select {
			case ev, ok := <-in.ResultChan():
				if !ok {
					out.Stop()
					return
				}
				m, err := meta.Accessor(ev.Object)
				if err != nil {
					continue
				}
				uid := m.GetUID()
				match := matches(ev.Object, sel, fsel)
				typ := ev.Type
				switch {
				case ev.Type == watch.Deleted:
					if !seen[uid] {
						continue
					}
					delete(seen, uid)
				case match && !seen[uid]:
					typ = watch.Added
					seen[uid] = true
				case match:
					typ = watch.Modified
				case seen[uid]:
					typ = watch.Deleted
					delete(seen, uid)
				default:
					continue
				}
				obj := ev.Object
				if convert != nil {
					if obj, err = convert(obj); err != nil {
						continue
					}
				}
				out.push(watch.Event{Type: typ, Object: obj})
			case <-out.done:
				return
			}
		}
	}()
	go out.deliver()
	return out
}

type queueWatch struct {
	mu      sync.Mutex
	cond    *sync.Cond
	queue   []watch.Event
	result  chan watch.Event
	done    chan struct{}
	stopped bool
}

func (q *queueWatch) push(ev watch.Event) {
	q.mu.Lock()
	q.queue = append(q.queue, ev)
	q.mu.Unlock()
	q.cond.Signal()
}

func (q *queueWatch) deliver() {
	defer close(q.result)
	for {
		q.mu.Lock()
		for len(q.queue) == 0 && !q.stopped {
			q.cond.Wait()
		}
		if q.stopped {
			q.mu.Unlock()
			return
		}
		ev := q.queue[0]
		q.queue = q.queue[1:]
		q.mu.Unlock()
		select {
		case q.result <- ev:
		case <-q.done:
			return
		}
	}
}

func (q *queueWatch) ResultChan() <-chan watch.Event { return q.result }

func (q *queueWatch) Stop() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.stopped {
		q.stopped = true
		close(q.done)
		q.cond.Broadcast()
	}
}

// dynamicClient serves the list and watch calls of Argo's informers from the tracker.
type dynamicClient struct {
	tracker *serverTracker
	kinds   map[schema.GroupVersionResource]schema.GroupVersionKind
}

func (d *dynamicClient) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	return &dynamicResource{d: d, gvr: gvr}
}

type dynamicResource struct {
	dynamic.NamespaceableResourceInterface // any method not below panics: the controller must not call it
	d                                      *dynamicClient
	gvr                                    schema.GroupVersionResource
	ns                                     string
}

func (r *dynamicResource) Namespace(ns string) dynamic.ResourceInterface {
	return &dynamicResource{d: r.d, gvr: r.gvr, ns: ns}
}

func (r *dynamicResource) toUnstructured(obj runtime.Object) (runtime.Object, error) {
	gvk, ok := r.d.kinds[r.gvr]
	if !ok {
		return nil, fmt.Errorf("no kind for %s", r.gvr)
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

func (r *dynamicResource) List(_ context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	gvk, ok := r.d.kinds[r.gvr]
	if !ok {
		return nil, apierrors.NewNotFound(r.gvr.GroupResource(), "")
	}
	sel, fsel, err := selectors(opts)
	if err != nil {
		return nil, err
	}
	listGVK := gvk.GroupVersion().WithKind(gvk.Kind + "List")
	r.d.tracker.writes.Lock()
	rv := r.d.tracker.rv.current()
	obj, err := r.d.tracker.List(r.gvr, gvk, r.ns)
	r.d.tracker.writes.Unlock()
	if err != nil {
		return nil, err
	}
	items, err := meta.ExtractList(obj)
	if err != nil {
		return nil, err
	}
	out := &unstructured.UnstructuredList{Object: map[string]interface{}{}}
	out.SetGroupVersionKind(listGVK)
	out.SetResourceVersion(rv)
	for _, it := range items {
		if !matches(it, sel, fsel) {
			continue
		}
		u, err := r.toUnstructured(it)
		if err != nil {
			return nil, err
		}
		out.Items = append(out.Items, *u.(*unstructured.Unstructured))
	}
	return out, nil
}

func (r *dynamicResource) Watch(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if _, ok := r.d.kinds[r.gvr]; !ok {
		return nil, apierrors.NewNotFound(r.gvr.GroupResource(), "")
	}
	sel, fsel, err := selectors(opts)
	if err != nil {
		return nil, err
	}
	w, err := r.d.tracker.Watch(r.gvr, r.ns)
	if err != nil {
		return nil, err
	}
	return filterWatch(w, sel, fsel, r.toUnstructured), nil
}
