//! The task graph of a pipeline: explicit `after` edges plus data-flow edges
//! (a task that reads what another writes runs after it).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap};

use petgraph::graph::{DiGraph, NodeIndex};

use super::model::{Loc, PipelineDef};

/// Why one task runs before another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EdgeOrigin {
    /// `after X` in the later task, at this name.
    After(Loc),
    /// The later task reads `decl` (at this read), which the earlier writes.
    DataFlow { decl: usize, read: Loc },
}

impl EdgeOrigin {
    pub fn loc(&self) -> Loc {
        match self {
            EdgeOrigin::After(l) => *l,
            EdgeOrigin::DataFlow { read, .. } => *read,
        }
    }
}

#[derive(Debug, Clone)]
pub struct TaskGraph {
    pub graph: DiGraph<usize, EdgeOrigin>,
    /// Tasks in a deterministic topological order (source order breaks ties;
    /// tasks on cycles follow in source order).
    pub order: Vec<usize>,
    /// For each task, its position in `order`.
    pub rank: Vec<usize>,
    /// Direct predecessors of each task, in topological order, no repeats.
    pub upstream: Vec<Vec<usize>>,
    /// Set when the data-flow edges would pass [`MAX_DATA_FLOW_EDGES`]: the
    /// graph then holds only the `after` edges, and FL708 refuses the pipeline.
    pub dense: Option<Dense>,
}

/// The most data-flow edges (a reader of a sink times its writers, summed
/// over every read) a pipeline's graph is built with. A sink that N tasks
/// write and N tasks read gives N x N edges from a file that grows with N:
/// past this many, the graph, its analysis and the generated files would
/// grow quadratically with the input, so the pipeline is refused (FL708)
/// instead of taking minutes and gigabytes (issue 27, item 13).
pub const MAX_DATA_FLOW_EDGES: usize = 100_000;

/// Why a pipeline's graph is too dense to build: the data-flow edges it
/// needs, and the declaration that contributes most of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dense {
    pub edges: usize,
    /// Index into `Program::decls`.
    pub decl: usize,
    pub writers: usize,
    pub reads: usize,
}

impl TaskGraph {
    pub fn build(p: &PipelineDef) -> TaskGraph {
        let n = p.tasks.len();
        let mut graph: DiGraph<usize, EdgeOrigin> = DiGraph::with_capacity(n, n);
        for i in 0..n {
            graph.add_node(i);
        }
        let by_name: HashMap<&str, usize> = p
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.as_str(), i))
            .collect();
        let mut writers: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, t) in p.tasks.iter().enumerate() {
            for w in &t.writes {
                let list = writers.entry(w.decl).or_default();
                if list.last() != Some(&i) {
                    list.push(i);
                }
            }
        }
        // Count the data-flow edges before adding any: a reader of a sink
        // gets one edge per writer.
        let mut reads: BTreeMap<usize, usize> = BTreeMap::new();
        for t in &p.tasks {
            for r in &t.reads {
                *reads.entry(r.decl).or_default() += 1;
            }
        }
        let per_decl = reads.iter().map(|(&decl, &count)| {
            let w = writers.get(&decl).map_or(0, Vec::len);
            (count.saturating_mul(w), decl, w, count)
        });
        let edges = per_decl
            .clone()
            .fold(0usize, |sum, (e, ..)| sum.saturating_add(e));
        let dense = (edges > MAX_DATA_FLOW_EDGES).then(|| {
            // The largest contribution; the first declaration on a tie.
            let (_, decl, writers, reads) = per_decl
                .fold(
                    None,
                    |best: Option<(usize, usize, usize, usize)>, c| match best {
                        Some(b) if b.0 >= c.0 => Some(b),
                        _ => Some(c),
                    },
                )
                .unwrap_or((0, 0, 0, 0));
            Dense {
                edges,
                decl,
                writers,
                reads,
            }
        });
        if dense.is_some() {
            writers.clear();
        }
        // One edge from each earlier task: `linked[j] == i + 1` once j -> i is in.
        let mut linked = vec![0usize; n];
        for (i, t) in p.tasks.iter().enumerate() {
            let mut first_link =
                |j: usize| j != i && std::mem::replace(&mut linked[j], i + 1) != i + 1;
            for (name, at) in &t.after {
                if let Some(&j) = by_name.get(name.as_str()) {
                    if first_link(j) {
                        graph.add_edge(
                            NodeIndex::new(j),
                            NodeIndex::new(i),
                            EdgeOrigin::After(*at),
                        );
                    }
                }
            }
            for r in &t.reads {
                for &j in writers.get(&r.decl).map_or(&[][..], Vec::as_slice) {
                    if first_link(j) {
                        graph.add_edge(
                            NodeIndex::new(j),
                            NodeIndex::new(i),
                            EdgeOrigin::DataFlow {
                                decl: r.decl,
                                read: r.loc,
                            },
                        );
                    }
                }
            }
        }
        // Kahn's algorithm, smallest source index first.
        let mut indegree: Vec<usize> = (0..n)
            .map(|i| {
                graph
                    .neighbors_directed(NodeIndex::new(i), petgraph::Direction::Incoming)
                    .count()
            })
            .collect();
        let mut heap: BinaryHeap<Reverse<usize>> =
            (0..n).filter(|i| indegree[*i] == 0).map(Reverse).collect();
        let mut order = Vec::with_capacity(n);
        let mut placed = vec![false; n];
        while let Some(Reverse(i)) = heap.pop() {
            order.push(i);
            placed[i] = true;
            for m in graph.neighbors_directed(NodeIndex::new(i), petgraph::Direction::Outgoing) {
                let m = m.index();
                indegree[m] -= 1;
                if indegree[m] == 0 {
                    heap.push(Reverse(m));
                }
            }
        }
        order.extend((0..n).filter(|i| !placed[*i]));
        let mut rank = vec![0; n];
        for (pos, &i) in order.iter().enumerate() {
            rank[i] = pos;
        }
        let mut upstream: Vec<Vec<usize>> = vec![Vec::new(); n];
        for e in graph.raw_edges() {
            upstream[e.target().index()].push(e.source().index());
        }
        for u in &mut upstream {
            u.sort_by_key(|i| rank[*i]);
            u.dedup();
        }
        TaskGraph {
            graph,
            order,
            rank,
            upstream,
            dense,
        }
    }

    /// The direct predecessors of each task with every edge a longer path
    /// already implies left out (the transitive reduction): `a -> c` goes
    /// when `a -> b -> c` is there, so a task still waits for everything
    /// upstream of it, and a pipeline where each task is `after` every
    /// earlier one emits one edge per task instead of a quadratic number.
    /// Each list stays in topological order. A task on a cycle keeps its
    /// edges as they are.
    ///
    /// Tasks are taken in topological order, so every predecessor's list is
    /// already reduced; a predecessor is redundant when a walk up from a
    /// later-ranked predecessor, over the reduced lists and no lower than
    /// the lowest-ranked predecessor, meets it. Memory is linear in the
    /// tasks and edges.
    pub fn reduced_upstream(&self) -> Vec<Vec<usize>> {
        let n = self.upstream.len();
        let mut reduced: Vec<Vec<usize>> = vec![Vec::new(); n];
        // `seen[i] == stamp` once task `i` was met in the current task's walk.
        let mut seen = vec![0usize; n];
        let mut stamp = 0usize;
        let mut stack = Vec::new();
        for &v in &self.order {
            let preds = &self.upstream[v];
            let acyclic = preds.iter().all(|&p| self.rank[p] < self.rank[v]);
            if preds.len() < 2 || !acyclic {
                reduced[v].clone_from(preds);
                continue;
            }
            stamp += 1;
            let lowest = self.rank[preds[0]];
            let mut kept = Vec::with_capacity(preds.len());
            for &p in preds.iter().rev() {
                if seen[p] == stamp {
                    continue;
                }
                kept.push(p);
                seen[p] = stamp;
                stack.push(p);
                while let Some(i) = stack.pop() {
                    for &up in &reduced[i] {
                        if self.rank[up] >= lowest && seen[up] != stamp {
                            seen[up] = stamp;
                            stack.push(up);
                        }
                    }
                }
            }
            kept.reverse();
            reduced[v] = kept;
        }
        reduced
    }

    /// Whether `from` runs before `to` (a path of edges leads from one to the other).
    /// The search only visits tasks ranked between the two, so ordered
    /// chains answer quickly.
    pub fn reaches(&self, from: usize, to: usize) -> bool {
        if from == to {
            return true;
        }
        let limit = self.rank[to];
        if self.rank[from] > limit {
            return false;
        }
        let mut stack = vec![from];
        let mut seen = BTreeSet::from([from]);
        while let Some(i) = stack.pop() {
            for m in self
                .graph
                .neighbors_directed(NodeIndex::new(i), petgraph::Direction::Outgoing)
            {
                let m = m.index();
                if m == to {
                    return true;
                }
                if self.rank[m] < limit && seen.insert(m) {
                    stack.push(m);
                }
            }
        }
        false
    }

    /// Every cycle's tasks, in order along the cycle, one per strongly
    /// connected component with more than one task. Each entry is the list
    /// of (task, edge origin to the next task).
    pub fn cycles(&self) -> Vec<Vec<(usize, EdgeOrigin)>> {
        let mut out = Vec::new();
        let mut sccs = petgraph::algo::tarjan_scc(&self.graph);
        for scc in &mut sccs {
            scc.sort();
        }
        sccs.sort();
        for scc in sccs.into_iter().filter(|c| c.len() > 1) {
            let members: BTreeSet<usize> = scc.iter().map(|n| n.index()).collect();
            // One cycle through the first task not yet named, until every task
            // of the component is on a reported cycle.
            let mut named: BTreeSet<usize> = BTreeSet::new();
            for &start in &members {
                if named.contains(&start) {
                    continue;
                }
                if let Some(path) = self.cycle_through(start, &members) {
                    named.extend(path.iter().map(|(t, _)| *t));
                    out.push(path);
                } else {
                    named.insert(start);
                }
            }
        }
        out
    }

    fn cycle_through(
        &self,
        start: usize,
        members: &BTreeSet<usize>,
    ) -> Option<Vec<(usize, EdgeOrigin)>> {
        // BFS for the shortest path back to `start`.
        let mut prev: BTreeMap<usize, (usize, EdgeOrigin)> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        let mut found = None;
        while let Some(i) = queue.pop_front() {
            let mut edges: Vec<_> = self
                .graph
                .edges(NodeIndex::new(i))
                .map(|e| (e.target().index(), e.weight().clone()))
                .collect();
            edges.sort_by_key(|(t, _)| *t);
            for (m, w) in edges {
                if !members.contains(&m) {
                    continue;
                }
                if m == start {
                    found = Some((i, w));
                    break;
                }
                if let std::collections::btree_map::Entry::Vacant(e) = prev.entry(m) {
                    e.insert((i, w));
                    queue.push_back(m);
                }
            }
            if found.is_some() {
                break;
            }
        }
        let (last, closing) = found?;
        let mut path = vec![(last, closing)];
        let mut cur = last;
        while cur != start {
            let (p, w) = prev.get(&cur)?.clone();
            path.push((p, w));
            cur = p;
        }
        path.reverse();
        Some(path)
    }
}

use petgraph::visit::EdgeRef as _;

#[cfg(test)]
mod tests {
    use super::*;

    /// A graph of `n` tasks in source order with the given direct predecessors.
    fn graph(upstream: Vec<Vec<usize>>) -> TaskGraph {
        let n = upstream.len();
        let mut graph = DiGraph::new();
        for i in 0..n {
            graph.add_node(i);
        }
        TaskGraph {
            graph,
            order: (0..n).collect(),
            rank: (0..n).collect(),
            upstream,
            dense: None,
        }
    }

    #[test]
    fn reduction_drops_implied_edges_only() {
        // Every task after every earlier one: a chain remains.
        let dense = graph((0..6).map(|i| (0..i).collect()).collect());
        assert_eq!(
            dense.reduced_upstream(),
            [vec![], vec![0], vec![1], vec![2], vec![3], vec![4]]
        );
        // A diamond with a shortcut: a -> d goes, b and c stay.
        let diamond = graph(vec![vec![], vec![0], vec![0], vec![0, 1, 2]]);
        assert_eq!(
            diamond.reduced_upstream(),
            [vec![], vec![0], vec![0], vec![1, 2]]
        );
        // Independent predecessors all stay, in order.
        let fan = graph(vec![vec![], vec![], vec![], vec![0, 1, 2]]);
        assert_eq!(fan.reduced_upstream()[3], [0, 1, 2]);
        // A long way round still implies the edge: 0 -> 1 -> 2 -> 3 and 0 -> 3.
        let around = graph(vec![vec![], vec![0], vec![1], vec![0, 2]]);
        assert_eq!(around.reduced_upstream()[3], [2]);
    }

    #[test]
    fn a_task_on_a_cycle_keeps_its_edges() {
        // 0 and 1 on a cycle; ranks as Kahn leaves them (source order).
        let g = graph(vec![vec![1], vec![0], vec![0, 1]]);
        let reduced = g.reduced_upstream();
        assert_eq!(reduced[0], [1]);
        assert_eq!(reduced[1], [0]);
    }
}
