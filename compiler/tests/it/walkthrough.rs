//! The README's "Run a generated task locally" walkthrough, run as written
//! (issue 36 item 12): its commands on a clean example, twice, with `flowc`
//! the binary under test and only Python 3 besides.

use std::path::Path;
use std::process::Command;

use crate::common;

/// The first `sh` code block after `heading` in `text`.
fn sh_block_after(text: &str, heading: &str) -> String {
    let at = text.find(heading).expect("the heading is in the README");
    let rest = &text[at..];
    let start = rest.find("```sh\n").expect("a sh block") + "```sh\n".len();
    let end = rest[start..].find("```").expect("the block ends");
    rest[start..start + end].to_owned()
}

#[test]
fn the_readme_local_run_works_as_written_on_a_clean_example() {
    let root = common::repo_root();
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README");
    let block = sh_block_after(&readme, "## Run a generated task locally");
    assert!(
        block.contains("docs/walkthroughs/local_orders.flow"),
        "{block}"
    );

    // The example is clean: no warning precedes the walkthrough.
    let check = Command::new(env!("CARGO_BIN_EXE_flowc"))
        .current_dir(&root)
        .args(["check", "docs/walkthroughs/local_orders.flow"])
        .output()
        .expect("flowc runs");
    assert_eq!(
        String::from_utf8_lossy(&check.stdout),
        "0 errors, 0 warnings in 1 file\n"
    );

    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join("docs/walkthroughs")).expect("mkdir");
    std::fs::copy(
        root.join("docs/walkthroughs/local_orders.flow"),
        dir.path().join("docs/walkthroughs/local_orders.flow"),
    )
    .expect("copy the example");
    let bin = Path::new(env!("CARGO_BIN_EXE_flowc"))
        .parent()
        .expect("the binary's folder");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for round in 1..=2 {
        let out = Command::new("bash")
            .args(["-c", &block])
            .current_dir(dir.path())
            .env("PATH", &path)
            .output()
            .expect("bash runs");
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            said.ends_with("exit 0\n"),
            "round {round}: {said}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let rows = Command::new("python3")
        .args([
            "-c",
            "import sqlite3; print(sqlite3.connect('out/py/orders.sqlite').execute('select id, amount from orders').fetchall())",
        ])
        .current_dir(dir.path())
        .output()
        .expect("python3 runs");
    assert_eq!(String::from_utf8_lossy(&rows.stdout), "[('a', 1)]\n");
}
