//! Drawing one pipeline for `flowc graph`: Graphviz DOT and Mermaid.
//!
//! This module only renders. The analysis fills a [`GraphModel`]: tasks,
//! the sources, sinks and effects they touch, and one edge per `read`
//! (data to task), `write` and `emit` (task to data, labelled with the mode
//! and coloured by the derived guarantee) and `after` (task to task, dashed).
//! Output is deterministic: nodes and edges come out in the model's order.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// One pipeline's graph.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GraphModel {
    pub pipeline: String,
    pub tasks: Vec<GNode>,
    pub sources: Vec<GNode>,
    pub sinks: Vec<GNode>,
    pub effects: Vec<GNode>,
    pub edges: Vec<GEdge>,
}

/// A task, source, sink or effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GNode {
    pub name: String,
    /// The connector kind (`postgres_table`), shown under the name; `None` for tasks.
    pub kind: Option<String>,
}

/// Which node an edge end names. Tasks have their own namespace; sources,
/// sinks and effects share one, so `Data("orders")` is one node whichever
/// list holds it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum NodeRef {
    Task(String),
    Data(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GEdge {
    pub from: NodeRef,
    pub to: NodeRef,
    /// The write mode (`upsert`, `replace partition day`), the emit's
    /// tracking (`via outbox`), or a read's pin (`pinned listing`).
    pub label: Option<String>,
    /// The derived guarantee of an output edge: `exactly_once`,
    /// `effectively_once`, `at_least_once`, `at_most_once` or `none`.
    pub guarantee: Option<String>,
}

/// The guarantees, strongest first, with the colour each output edge gets.
pub const GUARANTEE_COLORS: [(&str, &str); 5] = [
    ("exactly_once", "#1a7f37"),
    ("effectively_once", "#2da44e"),
    ("at_least_once", "#bf8700"),
    ("at_most_once", "#8250df"),
    ("none", "#cf222e"),
];

/// The colour of an unknown guarantee string.
const OTHER_COLOR: &str = "#57606a";

fn color_of(guarantee: &str) -> &'static str {
    GUARANTEE_COLORS
        .iter()
        .find(|(g, _)| *g == guarantee)
        .map_or(OTHER_COLOR, |(_, c)| c)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Task,
    Source,
    Sink,
    Effect,
}

/// Every node once, in the order tasks, sources, sinks, effects, then any
/// node an edge names that no list holds. A data name listed twice (a sink
/// that is also read as a source) keeps its first role.
fn nodes(g: &GraphModel) -> Vec<(NodeRef, Role, &GNode)> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let lists = [
        (&g.tasks, Role::Task),
        (&g.sources, Role::Source),
        (&g.sinks, Role::Sink),
        (&g.effects, Role::Effect),
    ];
    for (list, role) in lists {
        for node in list {
            let r = if role == Role::Task {
                NodeRef::Task(node.name.clone())
            } else {
                NodeRef::Data(node.name.clone())
            };
            if seen.insert(r.clone()) {
                out.push((r, role, node));
            }
        }
    }
    out
}

fn edge_ends(g: &GraphModel) -> Vec<NodeRef> {
    let mut missing = Vec::new();
    let known: Vec<NodeRef> = nodes(g).into_iter().map(|(r, _, _)| r).collect();
    for e in &g.edges {
        for r in [&e.from, &e.to] {
            if !known.contains(r) && !missing.contains(r) {
                missing.push(r.clone());
            }
        }
    }
    missing
}

fn ref_name(r: &NodeRef) -> &str {
    match r {
        NodeRef::Task(n) | NodeRef::Data(n) => n,
    }
}

// ---------------------------------------------------------------------------
// DOT

/// A DOT double-quoted string. Backslashes are doubled so that names can
/// never form label escapes (`\N`, `\l`), `&` is written `&amp;` because
/// Graphviz reads entities in labels, and a newline becomes `\n`.
fn dot_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '&' => out.push_str("&amp;"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn dot_id(r: &NodeRef, prefix: &str) -> String {
    match r {
        NodeRef::Task(n) => dot_quote(&format!("{prefix}task:{n}")),
        NodeRef::Data(n) => dot_quote(&format!("{prefix}data:{n}")),
    }
}

fn node_label(node: &GNode) -> String {
    match &node.kind {
        Some(kind) => format!("{}\n({kind})", node.name),
        None => node.name.clone(),
    }
}

const DOT_DEFAULTS: &str = "node [fontname=\"Helvetica\", fontsize=11];\n";
const DOT_EDGE_DEFAULTS: &str = "edge [fontname=\"Helvetica\", fontsize=10];\n";

/// The nodes and edges of one pipeline, each id starting with `prefix`,
/// each line with `indent`.
fn dot_body(out: &mut String, g: &GraphModel, prefix: &str, indent: &str) {
    for (r, role, node) in nodes(g) {
        let shape = match role {
            Role::Task => "shape=box, style=\"rounded,filled\", fillcolor=\"#ddf4ff\"",
            Role::Source => "shape=cylinder, style=filled, fillcolor=\"#f6f8fa\"",
            Role::Sink => "shape=box3d, style=filled, fillcolor=\"#f6f8fa\"",
            Role::Effect => "shape=hexagon, style=filled, fillcolor=\"#fff8c5\"",
        };
        let _ = writeln!(
            out,
            "{indent}{} [label={}, {shape}];",
            dot_id(&r, prefix),
            dot_quote(&node_label(node))
        );
    }
    for r in edge_ends(g) {
        let _ = writeln!(
            out,
            "{indent}{} [label={}, shape=box, style=dashed];",
            dot_id(&r, prefix),
            dot_quote(ref_name(&r))
        );
    }
    for e in &g.edges {
        let mut attrs = Vec::new();
        if let Some(label) = &e.label {
            attrs.push(format!("label={}", dot_quote(label)));
        }
        if let Some(guarantee) = &e.guarantee {
            let color = color_of(guarantee);
            attrs.push(format!(
                "color=\"{color}\", fontcolor=\"{color}\", penwidth=2"
            ));
            attrs.push(format!("tooltip={}", dot_quote(guarantee)));
        }
        if matches!((&e.from, &e.to), (NodeRef::Task(_), NodeRef::Task(_))) {
            attrs.push("style=dashed".to_string());
        }
        let attrs = if attrs.is_empty() {
            String::new()
        } else {
            format!(" [{}]", attrs.join(", "))
        };
        let _ = writeln!(
            out,
            "{indent}{} -> {}{attrs};",
            dot_id(&e.from, prefix),
            dot_id(&e.to, prefix)
        );
    }
}

/// The legend: one node with a small table, its words fixed by this module;
/// then the graph's closing brace.
fn dot_legend_and_end(out: &mut String) {
    out.push_str(
        "  legend [shape=plaintext, label=<<table border=\"0\" cellborder=\"0\" cellspacing=\"1\">",
    );
    out.push_str("<tr><td colspan=\"2\"><b>delivery guarantee</b></td></tr>");
    for (guarantee, color) in GUARANTEE_COLORS {
        let _ = write!(
            out,
            "<tr><td><font color=\"{color}\">&#9473;&#9473;&#9473;</font></td><td align=\"left\"><font color=\"{color}\">{guarantee}</font></td></tr>"
        );
    }
    out.push_str("</table>>];\n}\n");
}

/// Graphviz DOT for one pipeline: `dot -Tsvg` renders it.
pub fn to_dot(g: &GraphModel) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", dot_quote(&g.pipeline));
    out.push_str("  rankdir=LR;\n");
    let _ = writeln!(
        out,
        "  label={};",
        dot_quote(&format!("pipeline {}", g.pipeline))
    );
    out.push_str("  labelloc=t;\n  fontname=\"Helvetica\";\n");
    let _ = write!(out, "  {DOT_DEFAULTS}  {DOT_EDGE_DEFAULTS}");
    dot_body(&mut out, g, "", "  ");
    dot_legend_and_end(&mut out);
    out
}

/// Graphviz DOT for several pipelines as one graph (so `dot -Tpng` makes one
/// image): a cluster per pipeline, labelled with its name, and one legend.
/// A declaration two pipelines touch is drawn in each. One pipeline is
/// drawn as [`to_dot`] draws it.
pub fn to_dot_all(graphs: &[GraphModel]) -> String {
    if let [one] = graphs {
        return to_dot(one);
    }
    let mut out = String::from("digraph \"flowc\" {\n  rankdir=LR;\n  fontname=\"Helvetica\";\n");
    let _ = write!(out, "  {DOT_DEFAULTS}  {DOT_EDGE_DEFAULTS}");
    for (i, g) in graphs.iter().enumerate() {
        let _ = writeln!(out, "  subgraph \"cluster_{i}\" {{");
        let _ = writeln!(
            out,
            "    label={};",
            dot_quote(&format!("pipeline {}", g.pipeline))
        );
        out.push_str("    labelloc=t;\n    style=rounded;\n    color=\"#8c959f\";\n");
        dot_body(&mut out, g, &format!("p{i}/"), "    ");
        out.push_str("  }\n");
    }
    dot_legend_and_end(&mut out);
    out
}

// ---------------------------------------------------------------------------
// Mermaid

/// Text for a quoted Mermaid label: characters Mermaid reads as markup or
/// entity starts are written as entity codes.
fn mermaid_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '#' => out.push_str("#35;"),
            '&' => out.push_str("#amp;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '|' => out.push_str("#124;"),
            '`' => out.push_str("#96;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

fn mermaid_label(node: &GNode) -> String {
    match &node.kind {
        Some(kind) => format!("{}<br>({})", mermaid_text(&node.name), mermaid_text(kind)),
        None => mermaid_text(&node.name),
    }
}

/// A Mermaid flowchart for one pipeline (GitHub renders it in Markdown).
/// Node ids are generated (`t0`, `d1`, ...), so no name can clash with
/// Mermaid's syntax or keywords.
pub fn to_mermaid(g: &GraphModel) -> String {
    let mut out = String::from("flowchart LR\n");
    let _ = writeln!(
        out,
        "  %% pipeline {}",
        mermaid_text(&g.pipeline).replace('%', "#37;")
    );
    let mut styles = Vec::new();
    mermaid_body(&mut out, &mut styles, g, "", "  ", 0);
    mermaid_end(&mut out, &styles);
    out
}

/// A Mermaid flowchart for several pipelines as one chart: a `subgraph` per
/// pipeline (ids `p0t0`, `p1d2`, ...) and one legend. One pipeline is drawn
/// as [`to_mermaid`] draws it.
pub fn to_mermaid_all(graphs: &[GraphModel]) -> String {
    if let [one] = graphs {
        return to_mermaid(one);
    }
    let mut out = String::from("flowchart LR\n");
    let mut styles = Vec::new();
    let mut edges = 0;
    for (i, g) in graphs.iter().enumerate() {
        let _ = writeln!(
            out,
            "  subgraph p{i}[\"pipeline {}\"]",
            mermaid_text(&g.pipeline)
        );
        mermaid_body(&mut out, &mut styles, g, &format!("p{i}"), "    ", edges);
        out.push_str("  end\n");
        edges += g.edges.len();
    }
    mermaid_end(&mut out, &styles);
    out
}

/// One pipeline's nodes and edges; ids start with `prefix`, `first_edge` is
/// the index Mermaid gives the pipeline's first edge (for `linkStyle`).
fn mermaid_body(
    out: &mut String,
    styles: &mut Vec<String>,
    g: &GraphModel,
    prefix: &str,
    indent: &str,
    first_edge: usize,
) {
    let mut ids: BTreeMap<NodeRef, String> = BTreeMap::new();
    let (mut tasks, mut data) = (0, 0);
    let mut next_id = |r: &NodeRef| match r {
        NodeRef::Task(_) => {
            tasks += 1;
            format!("{prefix}t{}", tasks - 1)
        }
        NodeRef::Data(_) => {
            data += 1;
            format!("{prefix}d{}", data - 1)
        }
    };
    for (r, role, node) in nodes(g) {
        let id = next_id(&r);
        let label = mermaid_label(node);
        let shape = match role {
            Role::Task => format!("{id}(\"{label}\")"),
            Role::Source => format!("{id}[(\"{label}\")]"),
            Role::Sink => format!("{id}[[\"{label}\"]]"),
            Role::Effect => format!("{id}{{{{\"{label}\"}}}}"),
        };
        let _ = writeln!(out, "{indent}{shape}");
        ids.insert(r, id);
    }
    for r in edge_ends(g) {
        let id = next_id(&r);
        let _ = writeln!(out, "{indent}{id}[\"{}\"]", mermaid_text(ref_name(&r)));
        ids.insert(r, id);
    }
    for (i, e) in g.edges.iter().enumerate() {
        let from = &ids[&e.from];
        let to = &ids[&e.to];
        let arrow = if matches!((&e.from, &e.to), (NodeRef::Task(_), NodeRef::Task(_))) {
            "-.->"
        } else {
            "-->"
        };
        match &e.label {
            Some(label) => {
                let _ = writeln!(
                    out,
                    "{indent}{from} {arrow}|\"{}\"| {to}",
                    mermaid_text(label)
                );
            }
            None => {
                let _ = writeln!(out, "{indent}{from} {arrow} {to}");
            }
        }
        if let Some(guarantee) = &e.guarantee {
            styles.push(format!(
                "  linkStyle {} stroke:{},stroke-width:2px",
                first_edge + i,
                color_of(guarantee)
            ));
        }
    }
}

/// The edges' colours, then the legend.
fn mermaid_end(out: &mut String, styles: &[String]) {
    for s in styles {
        out.push_str(s);
        out.push('\n');
    }
    out.push_str("  subgraph legend[\"delivery guarantee\"]\n");
    for (guarantee, _) in GUARANTEE_COLORS {
        let _ = writeln!(out, "    legend_{guarantee}[\"{guarantee}\"]");
    }
    out.push_str("  end\n");
    for (guarantee, color) in GUARANTEE_COLORS {
        let _ = writeln!(
            out,
            "  style legend_{guarantee} fill:#ffffff,stroke:{color},color:{color}"
        );
    }
}

/// The graph of one analysed pipeline: a node per task and per declaration
/// a task touches; an edge per read (labelled with its pin), per output
/// (labelled with the mode or tracking, coloured by the derived guarantee)
/// and per `after`.
pub fn model_of(
    program: &crate::analyze::Program,
    report: &crate::analyze::PipelineReport,
) -> GraphModel {
    use crate::analyze::guarantee::TaskFacts;
    use crate::analyze::model::Role;
    use crate::vocab::Tracking;
    let pipeline_def = &program.pipelines[report.pipeline];
    let mut model = GraphModel {
        pipeline: pipeline_def.name.clone(),
        ..GraphModel::default()
    };
    let mut seen = BTreeSet::new();
    let mut node = |model: &mut GraphModel, decl: usize| {
        if !seen.insert(decl) {
            return;
        }
        let decl_def = &program.decls[decl];
        let gnode = GNode {
            name: decl_def.name.clone(),
            kind: Some(program.kind_of(decl_def).name.clone()),
        };
        match decl_def.role {
            Role::Source => model.sources.push(gnode),
            Role::Sink => model.sinks.push(gnode),
            Role::Effect => model.effects.push(gnode),
        }
    };
    for &i in &report.graph.order {
        let t = &pipeline_def.tasks[i];
        let facts = TaskFacts::new(program, pipeline_def, t);
        model.tasks.push(GNode {
            name: t.name.clone(),
            kind: None,
        });
        for r in &t.reads {
            node(&mut model, r.decl);
            model.edges.push(GEdge {
                from: NodeRef::Data(program.decls[r.decl].name.clone()),
                to: NodeRef::Task(t.name.clone()),
                label: Some(facts.effective_pin(r).map_or_else(
                    || "unpinned".to_string(),
                    |pipeline_def| format!("pinned {}", pipeline_def.word()),
                )),
                guarantee: None,
            });
        }
        for output in &report.tasks[i].outputs {
            node(&mut model, output.decl);
            let label = match (output.mode, output.tracking) {
                (Some(m), _) => m.source().to_string(),
                (None, Some(Tracking::Outbox)) => "via outbox".to_string(),
                (None, Some(Tracking::IdempotencyKey)) => "via idempotency_key".to_string(),
                _ => "untracked".to_string(),
            };
            model.edges.push(GEdge {
                from: NodeRef::Task(t.name.clone()),
                to: NodeRef::Data(output.target.clone()),
                label: Some(label),
                guarantee: Some(output.guarantee.word().to_string()),
            });
        }
        for (a, _) in &t.after {
            model.edges.push(GEdge {
                from: NodeRef::Task(a.clone()),
                to: NodeRef::Task(t.name.clone()),
                label: None,
                guarantee: None,
            });
        }
    }
    model
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, kind: Option<&str>) -> GNode {
        GNode {
            name: name.to_string(),
            kind: kind.map(str::to_string),
        }
    }

    fn edge(from: NodeRef, to: NodeRef, label: Option<&str>, guarantee: Option<&str>) -> GEdge {
        GEdge {
            from,
            to,
            label: label.map(str::to_string),
            guarantee: guarantee.map(str::to_string),
        }
    }

    fn task(n: &str) -> NodeRef {
        NodeRef::Task(n.to_string())
    }
    fn data(n: &str) -> NodeRef {
        NodeRef::Data(n.to_string())
    }

    /// The language reference's example, plus names that break naive quoting.
    fn model() -> GraphModel {
        let nasty = "we\"ird\\N <b>&amp; #x | `end` é\nline";
        GraphModel {
            pipeline: "orders_daily \"v2\"".to_string(),
            tasks: vec![
                node("load_orders", None),
                node("rollup", None),
                node(nasty, None),
                node("end", None),
            ],
            sources: vec![
                node("raw_orders", Some("files")),
                node("orders", Some("postgres_table")),
            ],
            sinks: vec![
                node("orders", Some("postgres_table")),
                node("daily_totals", Some("postgres_table")),
            ],
            effects: vec![
                node("big_order_alert", Some("webhook")),
                node(nasty, Some("slack_message")),
            ],
            edges: vec![
                edge(
                    data("raw_orders"),
                    task("load_orders"),
                    Some("pinned listing"),
                    None,
                ),
                edge(
                    task("load_orders"),
                    data("orders"),
                    Some("upsert"),
                    Some("effectively_once"),
                ),
                edge(
                    task("load_orders"),
                    data("big_order_alert"),
                    Some("via outbox"),
                    Some("effectively_once"),
                ),
                edge(
                    data("orders"),
                    task("rollup"),
                    Some("pinned snapshot"),
                    None,
                ),
                edge(
                    task("rollup"),
                    data("daily_totals"),
                    Some("replace partition day"),
                    Some("exactly_once"),
                ),
                edge(task("load_orders"), task("rollup"), None, None),
                edge(task(nasty), data(nasty), Some(nasty), Some("none")),
                edge(
                    task("end"),
                    data("undeclared"),
                    Some("append"),
                    Some("at_least_once"),
                ),
                edge(
                    task("end"),
                    data("orders"),
                    Some("append"),
                    Some("something_new"),
                ),
            ],
        }
    }

    #[test]
    fn dot_output_is_deterministic_and_escaped() {
        let dot = to_dot(&model());
        assert_eq!(dot, to_dot(&model()));
        assert!(dot.starts_with("digraph \"orders_daily \\\"v2\\\"\" {\n"));
        assert!(dot.contains("\"task:we\\\"ird\\\\N <b>&amp;amp; #x | `end` é\\nline\" [label="));
        assert!(
            dot.contains("\"data:orders\" [label=\"orders\\n(postgres_table)\", shape=cylinder")
        );
        assert_eq!(
            dot.matches("\n  \"data:orders\" [").count(),
            1,
            "a sink that is also read is one node"
        );
        assert!(dot.contains(
            "\"data:daily_totals\" [label=\"daily_totals\\n(postgres_table)\", shape=box3d"
        ));
        assert!(dot.contains("shape=hexagon"));
        assert!(dot.contains(
            "\"task:load_orders\" -> \"data:orders\" [label=\"upsert\", color=\"#2da44e\", fontcolor=\"#2da44e\", penwidth=2, tooltip=\"effectively_once\"];"
        ));
        assert!(dot.contains("\"task:load_orders\" -> \"task:rollup\" [style=dashed];"));
        assert!(
            dot.contains("\"data:undeclared\" [label=\"undeclared\", shape=box, style=dashed];")
        );
        for (g, color) in GUARANTEE_COLORS {
            assert!(
                dot.contains(&format!("<font color=\"{color}\">{g}</font>")),
                "legend {g}"
            );
        }
        assert_eq!(
            dot.matches("\n  legend [shape=plaintext, label=<<table")
                .count(),
            1
        );
    }

    #[test]
    fn graphviz_renders_the_dot_output() {
        use std::io::Write;
        use std::process::{Command, Stdio};
        let Ok(mut child) = Command::new("dot")
            .arg("-Tsvg")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        else {
            // CI installs graphviz (scripts/setup); elsewhere it may be absent.
            assert!(
                std::env::var_os("CI").is_none(),
                "graphviz `dot` is required in CI"
            );
            eprintln!("notice: graphviz `dot` not found; skipping the rendering check (apt-get install graphviz)");
            return;
        };
        let dot = to_dot(&model());
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(dot.as_bytes())
            .expect("write dot");
        let out = child.wait_with_output().expect("dot runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stderr.trim().is_empty(),
            "dot failed: {stderr}\n{dot}"
        );
        let svg = String::from_utf8_lossy(&out.stdout);
        // Names come through as text, not as markup or escapes.
        assert!(
            svg.contains("we&quot;ird\\N &lt;b&gt;&amp;amp; #x | `end` é"),
            "{svg}"
        );
        assert!(svg.contains(">line</text>"));
        assert!(svg.contains("orders_daily &quot;v2&quot;"));
        assert_eq!(svg.matches("<title>data:orders</title>").count(), 1);
        assert!(svg.contains("stroke=\"#2da44e\""));
        assert!(svg.contains(">effectively_once</text>") && svg.contains(">at_most_once</text>"));
    }

    #[test]
    fn mermaid_output_is_a_flowchart_with_safe_ids_and_quoted_labels() {
        let m = to_mermaid(&model());
        assert_eq!(m, to_mermaid(&model()));
        assert!(m.starts_with("flowchart LR\n"));
        assert!(m.contains("  t0(\"load_orders\")\n"));
        assert!(m.contains("  d0[(\"raw_orders<br>(files)\")]\n"));
        assert!(m.contains("  d2[[\"daily_totals<br>(postgres_table)\"]]\n"));
        assert!(m.contains("  d3{{\"big_order_alert<br>(webhook)\"}}\n"));
        assert!(m.contains("  t0 -->|\"upsert\"| d1\n"));
        assert!(m.contains("  t0 -.-> t1\n"));
        assert!(m.contains("  linkStyle 1 stroke:#2da44e,stroke-width:2px\n"));
        assert!(m.contains("  linkStyle 6 stroke:#cf222e,stroke-width:2px\n"));
        assert!(m.contains("  linkStyle 8 stroke:#57606a,stroke-width:2px\n"));
        assert!(
            !m.contains("linkStyle 0 "),
            "reads carry no guarantee colour"
        );
        assert!(m.contains("we#quot;ird\\N #lt;b#gt;#amp;amp; #35;x #124; #96;end#96; é line"));
        // Every line's node ids are plain words; labels carry no raw quote.
        for line in m.lines().skip(1) {
            let line = line.trim_start();
            if line.starts_with("%%")
                || line.starts_with("subgraph")
                || line == "end"
                || line.starts_with("style")
            {
                continue;
            }
            let id: String = line
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            assert!(!id.is_empty() || line.starts_with("linkStyle"), "{line}");
            let quoted: Vec<&str> = line.split('"').collect();
            assert!(
                quoted.len() == 1 || quoted.len() == 3,
                "one quoted label per line: {line}"
            );
        }
        for (g, color) in GUARANTEE_COLORS {
            assert!(
                m.contains(&format!("legend_{g}[\"{g}\"]"))
                    && m.contains(&format!("stroke:{color},color:{color}"))
            );
        }
    }
}
