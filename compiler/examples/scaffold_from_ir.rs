//! Development stand-in for `flowc scaffold --lang python` until the CLI exists:
//! reads IR JSON (one pipeline or an array of pipelines per file) and writes the
//! scaffold to `--out DIR`, creating transform modules only when absent.
//!
//! `cargo run --example scaffold_from_ir -- --out DIR FILE.json...`

use std::path::{Component, Path};
use std::process::ExitCode;

use flowc::codegen::ir::Pipeline;
use flowc::codegen::python;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut out = None;
    let mut inputs = Vec::new();
    let mut iter = args.into_iter();
    while let Some(arg) = iter.next() {
        if arg == "--out" {
            out = iter.next();
        } else {
            inputs.push(arg);
        }
    }
    let Some(out) = out else {
        eprintln!("usage: scaffold_from_ir --out DIR FILE.json...");
        return ExitCode::from(2);
    };
    let mut pipelines: Vec<Pipeline> = Vec::new();
    for input in &inputs {
        let text = match std::fs::read_to_string(input) {
            Ok(text) => text,
            Err(err) => {
                eprintln!("error: cannot read {input}: {err}");
                return ExitCode::from(2);
            }
        };
        let parsed: Result<Vec<Pipeline>, _> = serde_json::from_str::<Vec<Pipeline>>(&text)
            .or_else(|_| serde_json::from_str::<Pipeline>(&text).map(|p| vec![p]));
        match parsed {
            Ok(mut found) => pipelines.append(&mut found),
            Err(err) => {
                eprintln!("error: {input} is not flowc IR: {err}");
                return ExitCode::from(2);
            }
        }
    }
    let scaffold = match python::generate(&pipelines) {
        Ok(scaffold) => scaffold,
        Err(problems) => {
            for p in problems {
                eprintln!(
                    "error[{}]: {} (pipeline `{}`{}): {}",
                    p.code,
                    p.message,
                    p.pipeline,
                    p.task.map(|t| format!(", task `{t}`")).unwrap_or_default(),
                    p.help
                );
            }
            return ExitCode::from(1);
        }
    };
    let root = Path::new(&out);
    for (file, only_if_absent) in scaffold
        .rewrite
        .iter()
        .map(|f| (f, false))
        .chain(scaffold.create_if_absent.iter().map(|f| (f, true)))
    {
        let rel = Path::new(&file.path);
        if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
            eprintln!(
                "error[FL804]: `{}` would leave the output folder",
                file.path
            );
            return ExitCode::from(1);
        }
        let target = root.join(rel);
        if only_if_absent && target.exists() {
            continue;
        }
        if let Err(err) = write_atomically(&target, &file.text()) {
            eprintln!("error: cannot write {}: {err}", target.display());
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}

fn write_atomically(target: &Path, contents: &str) -> std::io::Result<()> {
    let folder = target.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(folder)?;
    let name = target
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("file");
    let temp = folder.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&temp, contents)?;
    std::fs::rename(&temp, target)
}
