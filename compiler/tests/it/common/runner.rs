//! The one way the integration tests run the `flowc` binary:
//!
//! ```ignore
//! let run = flowc_in(dir).args(["check", "p.flow"]).run();
//! assert_eq!(run.code, Some(1), "{}", run.stderr);
//! flowc().args(["rules"]).assert().success();
//! ```
//!
//! By default it runs in the repository root with `NO_COLOR=1`; every
//! setting is a method (`&mut self`, as on `std::process::Command`), and a run
//! ends in [`Flowc::run`] (exit code and text), [`Flowc::output`] (bytes) or
//! [`Flowc::assert`] (`assert_cmd`'s assertions).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

/// A `flowc` command being built; see the module's documentation.
pub struct Flowc {
    cmd: std::process::Command,
    stdin: Option<Vec<u8>>,
    timeout: Option<Duration>,
    /// A temporary project made by [`Flowc::project`], kept for the run.
    project: Option<tempfile::TempDir>,
}

/// `flowc`, run in the repository root with `NO_COLOR=1`.
pub fn flowc() -> Flowc {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_flowc"));
    cmd.current_dir(super::repo_root()).env("NO_COLOR", "1");
    Flowc {
        cmd,
        stdin: None,
        timeout: None,
        project: None,
    }
}

/// `flowc`, run in `dir` with `NO_COLOR=1`.
pub fn flowc_in(dir: impl AsRef<Path>) -> Flowc {
    let mut f = flowc();
    f.current_dir(dir);
    f
}

/// What a run printed, and how it ended.
#[derive(Debug, Clone)]
pub struct Run {
    /// The exit code; `None` when a signal ended it.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stdout, then stderr: what a CI log would show.
    pub fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

impl From<Output> for Run {
    fn from(out: Output) -> Run {
        Run {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

impl Flowc {
    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Self {
        self.cmd.arg(arg);
        self
    }

    pub fn args<I, S>(&mut self, args: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.cmd.args(args);
        self
    }

    /// Run in `dir` instead of the repository root.
    pub fn current_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.cmd.current_dir(dir);
        self
    }

    pub fn env(&mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> &mut Self {
        self.cmd.env(key, value);
        self
    }

    pub fn envs<K, V>(&mut self, vars: impl IntoIterator<Item = (K, V)>) -> &mut Self
    where
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.cmd.envs(vars);
        self
    }

    pub fn env_remove(&mut self, key: impl AsRef<OsStr>) -> &mut Self {
        self.cmd.env_remove(key);
        self
    }

    /// Colours as the environment asks (no `NO_COLOR`, no `FORCE_COLOR`).
    pub fn colors_from_env(&mut self) -> &mut Self {
        self.env_remove("NO_COLOR").env_remove("FORCE_COLOR")
    }

    pub fn write_stdin(&mut self, bytes: impl Into<Vec<u8>>) -> &mut Self {
        self.stdin = Some(bytes.into());
        self
    }

    /// Kill the run after `limit` (its code is then `None`).
    pub fn timeout(&mut self, limit: Duration) -> &mut Self {
        self.timeout = Some(limit);
        self
    }

    /// Run in a new temporary project (a folder with a `.git` marker)
    /// holding `files` (path, text), kept until this builder is dropped.
    pub fn project<S: AsRef<str>>(&mut self, files: &[(&str, S)]) -> &mut Self {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join(".git")).expect("mkdir .git");
        for (path, text) in files {
            let path = dir.path().join(path);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).expect("mkdir");
            }
            std::fs::write(path, text.as_ref()).expect("write");
        }
        self.cmd.current_dir(dir.path());
        self.project = Some(dir);
        self
    }

    /// The folder of [`Flowc::project`].
    pub fn project_dir(&self) -> PathBuf {
        self.project
            .as_ref()
            .expect("a project")
            .path()
            .to_path_buf()
    }

    /// Run it, and what it printed and how it ended.
    pub fn run(&mut self) -> Run {
        Run::from(self.output().expect("flowc runs"))
    }

    /// Run it, and its raw output.
    pub fn output(&mut self) -> std::io::Result<Output> {
        self.take().output()
    }

    /// Run it, for `assert_cmd`'s assertions.
    pub fn assert(&mut self) -> assert_cmd::assert::Assert {
        self.take().assert()
    }

    /// The process command itself, to spawn a run and stop it midway.
    pub fn std_command(&mut self) -> &mut std::process::Command {
        &mut self.cmd
    }

    /// The command as `assert_cmd` runs it (a builder runs once).
    fn take(&mut self) -> assert_cmd::Command {
        let cmd = std::mem::replace(
            &mut self.cmd,
            std::process::Command::new(env!("CARGO_BIN_EXE_flowc")),
        );
        let mut cmd = assert_cmd::Command::from_std(cmd);
        if let Some(bytes) = self.stdin.take() {
            cmd.write_stdin(bytes);
        }
        if let Some(limit) = self.timeout {
            cmd.timeout(limit);
        }
        cmd
    }
}
