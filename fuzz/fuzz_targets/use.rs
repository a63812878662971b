//! `use` against a real folder tree full of traps, through the loader the
//! binary uses: a project (marked by `.git`) holding `.flow` files, links
//! leading out of it, a link to `/dev/zero`, a FIFO, a link to the process
//! environment, a folder with a backslash in its name, and text files; and,
//! beside the project, files holding secrets.
//!
//! The input is split at 0xFF into up to four paths, each written as a
//! `use "PATH"` of the checked file (`raw:` as the first bytes instead
//! makes the rest the checked file's whole text). Whatever they are:
//! - nothing hangs and nothing is read without limit (libFuzzer's timeout
//!   and memory limit);
//! - every file the run holds, but the embedded standard library, is a
//!   `.flow` file whose real path lies inside the project;
//! - no output form ever shows a byte of a secret.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

mod common;
use common::flow_literal;

const SECRET: &str = "SECRET-b7c1";

struct Tree {
    root: PathBuf,
    checked: PathBuf,
}

fn link(target: &str, at: &Path) {
    let _ = std::os::unix::fs::symlink(target, at);
}

fn tree() -> &'static Tree {
    static TREE: OnceLock<Tree> = OnceLock::new();
    TREE.get_or_init(|| {
        // The process environment is one of the traps: make it hold a secret.
        std::env::set_var("FLOWC_FUZZ_SECRET", SECRET);
        let base = std::env::temp_dir().join(format!("flowc-fuzz-use-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let root = base.join("project");
        let outside = base.join("outside");
        for d in [
            root.join(".git"),
            root.join("sub"),
            root.join("back\\slash"),
            outside.clone(),
        ] {
            std::fs::create_dir_all(d).expect("create the fuzz tree");
        }
        let flow = |name: &str| format!("sink {name}: sqlite_table {{\n  table \"{name}\"\n}}\n");
        let write = |p: PathBuf, text: &str| std::fs::write(p, text).expect("write the fuzz tree");
        write(root.join("ok.flow"), &flow("ok"));
        write(
            root.join("sub/b.flow"),
            &format!("use \"../ok.flow\"\n{}", flow("b")),
        );
        write(root.join("back\\slash/c.flow"), &flow("c"));
        write(root.join("sub/c.flow"), &flow("wrong_c"));
        write(root.join("notes.txt"), &format!("{SECRET}\n{SECRET}\n"));
        write(root.join("notes.flow.txt"), &format!("{SECRET}\n"));
        write(
            outside.join("secret.flow"),
            &format!("source s: files {{\n  path \"{SECRET}\"\n}}\n{SECRET}\n"),
        );
        write(outside.join("secret.txt"), &format!("{SECRET}\n"));
        link("../outside/secret.flow", &root.join("out.flow"));
        link("../outside", &root.join("outside_dir"));
        link("/dev/zero", &root.join("zero.flow"));
        link("/proc/self/environ", &root.join("environ.flow"));
        link("/dev", &root.join("dev"));
        link("ok.flow", &root.join("inside_link.flow"));
        let _ = std::process::Command::new("mkfifo")
            .arg(root.join("fifo.flow"))
            .status();
        Tree {
            checked: root.join("a.flow"),
            root: root.canonicalize().expect("canonical root"),
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let t = tree();
    let text = if let Some(raw) = data.strip_prefix(b"raw:") {
        raw.to_vec()
    } else {
        let mut text = String::new();
        for part in data.split(|&b| b == 0xff).take(4) {
            text.push_str(&format!(
                "use {}\n",
                flow_literal(&String::from_utf8_lossy(part))
            ));
        }
        text.into_bytes()
    };
    std::fs::write(&t.checked, &text).expect("write the checked file");
    let Ok(outcome) = flowc::io::read::check_paths(&[t.checked.clone()]) else {
        return;
    };
    for i in 0..outcome.sources.len() {
        let path = outcome.sources.path(flowc::source::FileId(i));
        if path.starts_with("<stdlib>/") {
            continue;
        }
        assert!(
            Path::new(path).extension().is_some_and(|e| e == "flow"),
            "a file that is not `.flow` was read: {path:?}"
        );
        let real = Path::new(path)
            .canonicalize()
            .unwrap_or_else(|_| PathBuf::from(path));
        assert!(
            real.starts_with(&t.root),
            "a file outside the project was read: {path:?} ({real:?})"
        );
        assert!(
            !outcome
                .sources
                .text(flowc::source::FileId(i))
                .contains(SECRET),
            "a secret was read from {path:?}"
        );
    }
    let summary = outcome.summary();
    let rendered = [
        flowc::diagnostic::human::render(&outcome.sources, &outcome.diagnostics, summary, false),
        flowc::diagnostic::json::render(&outcome.sources, &outcome.diagnostics, summary),
        flowc::diagnostic::sarif::render(&outcome.sources, &outcome.diagnostics, summary.omitted),
        flowc::diagnostic::github::render(&outcome.sources, &outcome.diagnostics, summary),
    ];
    for r in &rendered {
        assert!(!r.contains(SECRET), "a secret reached the output:\n{r}");
    }
});
