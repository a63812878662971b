//! Render Airflow DAGs from IR JSON files written by hand (or by
//! `flowc build --target ir`, then edited): `scripts/e2e/airflow` renders a
//! 5,000-task DAG that keeps every edge, which no `.flow` file lowers to
//! (lowering leaves out every edge a longer path implies), so the check of a
//! large DAG's load time feeds the Airflow generator the IR directly. The
//! `flowc` binary reads only `.flow` files; this is the one way in from IR.
//!
//! Usage: `cargo run -p flowc --example airflow_from_ir -- OUT_DIR FILE.json...`
//! where each file holds one `ir::Pipeline` or a list of them.

use std::path::Path;
use std::process::ExitCode;

use flowc::codegen::{airflow, ir};

fn read_pipelines(path: &str) -> Result<Vec<ir::Pipeline>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    if value.is_array() {
        serde_json::from_value(value).map_err(|e| format!("{path}: {e}"))
    } else {
        serde_json::from_value(value)
            .map(|p| vec![p])
            .map_err(|e| format!("{path}: {e}"))
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let out = args
        .next()
        .ok_or("usage: airflow_from_ir OUT_DIR FILE.json...")?;
    let mut pipelines = Vec::new();
    for path in args {
        pipelines.extend(read_pipelines(&path)?);
    }
    let files = airflow::generate(&pipelines).map_err(|problems| {
        problems
            .iter()
            .map(|p| format!("{}: pipeline `{}`: {}", p.code, p.pipeline, p.message))
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    let out = Path::new(&out);
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    for file in files {
        let target = out.join(&file.path);
        let temp = out.join(format!(".{}.tmp", file.path));
        std::fs::write(&temp, file.text().as_bytes())
            .map_err(|e| format!("{}: {e}", temp.display()))?;
        std::fs::rename(&temp, &target).map_err(|e| format!("{}: {e}", target.display()))?;
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
