//! FL708 `dense-task-graph`: a pipeline whose data-flow edges (each read of a
//! sink times the tasks that write it) pass [`MAX_DATA_FLOW_EDGES`]. The
//! graph, its analysis and the generated files would grow with the square of
//! the input; the graph is built without them and the pipeline is refused.

use super::{Ctx, Rule};
use crate::analyze::graph::MAX_DATA_FLOW_EDGES;
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;

pub const RULE: Rule = Rule {
    code: Code::FL708,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for report in &ctx.analysis.pipelines {
        let Some(dense) = report.graph.dense else {
            continue;
        };
        let p = &ctx.program.pipelines[report.pipeline];
        let Some(decl) = ctx.program.decls.get(dense.decl) else {
            continue;
        };
        out.push(
            Diagnostic::new(
                RULE.code,
                p.name_loc.file,
                p.name_loc.span,
                format!(
                    "pipeline `{}` needs {} data-flow edges, more than the {} flowc builds",
                    p.name,
                    thousands(dense.edges),
                    thousands(MAX_DATA_FLOW_EDGES)
                ),
            )
            .label(
                decl.name_loc.file,
                decl.name_loc.span,
                format!(
                    "{} reads of `{}` each wait for its {} writers: {} edges",
                    thousands(dense.reads),
                    decl.name,
                    thousands(dense.writers),
                    thousands(dense.reads.saturating_mul(dense.writers))
                ),
            )
            .help(format!(
                "write `{}` from fewer tasks (one task can load what they load) or read it in fewer, or split the pipeline",
                decl.name
            )),
        );
    }
}

/// `1234567` as `1,234,567`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_groups_digits() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(1000), "1,000");
        assert_eq!(super::thousands(100_000), "100,000");
        assert_eq!(super::thousands(1_234_567), "1,234,567");
    }
}
