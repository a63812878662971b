//! Hostile strings through every generator, and the rendered files parsed
//! back as their readers parse them: YAML by a YAML 1.2 parser, Python by
//! CPython's own `compile` over the file's real bytes (so an encoding
//! declaration in a comment would take effect, as it does on import).
//!
//! The input is split at 0xFF: the first part is the `.flow` file's path
//! (the generated headers name it), the others are strings spliced into a
//! fixed, valid pipeline (command arguments, an env value, an image, a
//! table name, a path). Whenever the file checks clean, every generated
//! file must parse, and every command argument must come back from the
//! Python file as a string constant and from the YAML as a scalar, exactly
//! (in YAML with each `$` doubled, as Kubernetes' own expansion asks).
#![no_main]

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;

mod common;
use common::flow_literal;

/// One CPython kept running for the whole fuzz run: it reads a length and
/// that many bytes, compiles them, and answers with the module's string
/// constants (JSON), or `ERR` and the reason.
const PY: &str = r#"
import ast, json, sys
inp, out = sys.stdin.buffer, sys.stdout
while True:
    line = inp.readline()
    if not line:
        break
    data = inp.read(int(line))
    try:
        compile(data, "generated.py", "exec")
        tree = ast.parse(data)
        consts = sorted({n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)})
        out.write("OK " + json.dumps(consts) + "\n")
    except Exception as e:
        out.write("ERR " + json.dumps(repr(e)) + "\n")
    out.flush()
"#;

struct Python {
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

fn python() -> &'static Mutex<Python> {
    static PYTHON: OnceLock<Mutex<Python>> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let mut child = Command::new("python3")
            .args(["-c", PY])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the render fuzz target needs python3 on PATH");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Mutex::new(Python {
            _child: child,
            stdin,
            stdout,
        })
    })
}

/// The string constants of a Python file, or why CPython refused it.
fn python_constants(bytes: &[u8]) -> Result<Vec<String>, String> {
    let mut py = python()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    write!(py.stdin, "{}\n", bytes.len()).expect("python3 stdin");
    py.stdin.write_all(bytes).expect("python3 stdin");
    py.stdin.flush().expect("python3 stdin");
    let mut line = String::new();
    py.stdout.read_line(&mut line).expect("python3 stdout");
    if let Some(json) = line.strip_prefix("OK ") {
        Ok(serde_json::from_str(json).expect("constants as JSON"))
    } else {
        Err(line)
    }
}

/// Every string scalar of a YAML stream (all documents), or the parse error.
fn yaml_scalars(text: &str) -> Result<Vec<String>, String> {
    use serde::Deserialize as _;
    let mut out = Vec::new();
    for doc in serde_norway::Deserializer::from_str(text) {
        let value = serde_norway::Value::deserialize(doc).map_err(|e| e.to_string())?;
        collect_scalars(&value, &mut out);
    }
    Ok(out)
}

fn collect_scalars(v: &serde_norway::Value, out: &mut Vec<String>) {
    match v {
        serde_norway::Value::String(s) => out.push(s.clone()),
        serde_norway::Value::Sequence(items) => items.iter().for_each(|i| collect_scalars(i, out)),
        serde_norway::Value::Mapping(m) => m.iter().for_each(|(k, v)| {
            collect_scalars(k, out);
            collect_scalars(v, out);
        }),
        serde_norway::Value::Tagged(t) => collect_scalars(&t.value, out),
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let mut parts = data.split(|&b| b == 0xff).map(String::from_utf8_lossy);
    let path = parts.next().unwrap_or_default().replace('\0', "");
    let path = if path.is_empty() {
        "a.flow".to_string()
    } else {
        format!("{path}.flow")
    };
    let mut strings: Vec<String> = parts.map(|p| p.into_owned()).collect();
    strings.resize(6, "x".to_string());
    // An argv element, image or command may not be empty or hold NUL (FL002,
    // FL802): keep the inputs to what a clean file can hold.
    for s in &mut strings {
        s.retain(|c| c != '\0');
        if s.is_empty() {
            s.push('x');
        }
    }
    let [a, b, env, image, mut table, mut dir] =
        <[String; 6]>::try_from(strings).expect("six strings");
    // A brace in a declaration's parameter string starts a placeholder.
    table.retain(|c| c != '{' && c != '}');
    dir.retain(|c| c != '{' && c != '}');
    let text = format!(
        r#"source raw: files {{
  path      {dir_lit}
  immutable
  identity  id
}}

sink out: sqlite_table {{
  table        {table_lit}
  primary_key  id
}}

pipeline fuzzed {{
  schedule  "0 2 * * *"
  start     2026-01-01
  retries   2
  timeout   30m
  image     {image_lit}

  task load {{
    read   raw
    key    input.id
    write  out upsert
    run    command ["python", "-m", "fuzzed.load", {a_lit}, {b_lit}]
    env {{
      FUZZ_VALUE  {env_lit}
    }}
  }}

  task pod {{
    after  load
    run    image {image_lit} command ["run", {a_lit}]
  }}
}}
"#,
        dir_lit = flow_literal(&format!("lake/{dir}/{{interval.start}}/")),
        table_lit = flow_literal(&table),
        a_lit = flow_literal(&a),
        b_lit = flow_literal(&b),
        env_lit = flow_literal(&env),
        image_lit = flow_literal(&image),
    );
    let outcome = flowc::check::check(
        vec![flowc::check::Input {
            key: path.clone(),
            path,
            bytes: text.into_bytes(),
        }],
        &flowc::check::NoImports,
    );
    let Some(&root) = outcome.roots.first() else {
        return;
    };
    if outcome.file_has_errors(root) {
        return;
    }
    let pipelines = flowc::codegen::lower::pipelines_of(&outcome, root);
    let mut files = Vec::new();
    if let Ok(f) = flowc::codegen::airflow::generate(&pipelines) {
        files.extend(f);
    }
    if let Ok(f) = flowc::codegen::argo::generate(&pipelines, flowc::codegen::argo::ArgoKind::Auto)
    {
        files.extend(f);
    }
    if let Ok(s) = flowc::codegen::python::generate(&pipelines) {
        files.extend(s.rewrite);
        files.extend(s.create_if_absent);
    }
    for f in &files {
        let body = f.text();
        if f.path.ends_with(".py") {
            let consts = python_constants(body.as_bytes())
                .unwrap_or_else(|e| panic!("`{}` does not compile: {e}\n{body}", f.path));
            if f.path.ends_with("fuzzed.py") {
                for arg in [&a, &b, &env] {
                    assert!(
                        consts.iter().any(|c| c == arg),
                        "`{}` lost the argument {arg:?}\n{body}",
                        f.path
                    );
                }
            }
        } else if f.path.ends_with(".yaml") {
            let scalars = yaml_scalars(&body)
                .unwrap_or_else(|e| panic!("`{}` is not YAML: {e}\n{body}", f.path));
            // Kubernetes expands `$(VAR)` in a command and turns `$$` into
            // `$`, so a command argument is written with every `$` doubled;
            // an image is not expanded.
            for arg in [a.replace('$', "$$"), image.clone()] {
                assert!(
                    scalars.iter().any(|s| *s == arg),
                    "`{}` lost the value {arg:?}\n{body}",
                    f.path
                );
            }
        }
    }
});
