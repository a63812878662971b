//! `flowc completions SHELL`: the shell's completion script (`clap_complete`),
//! and the manual page (`clap_mangen`) that `docs/flowc.1` holds; both are
//! made from the one clap definition, so they list every command and flag.

use std::process::ExitCode;

use clap::CommandFactory;

use super::{print, Cli};

pub(super) const AFTER_HELP: &str = "\
Examples:
  flowc completions bash > ~/.local/share/bash-completion/completions/flowc
  flowc completions zsh > ~/.zfunc/_flowc        (with fpath+=~/.zfunc before compinit)
  flowc completions fish > ~/.config/fish/completions/flowc.fish

The manual page is docs/flowc.1 in the repository (`man ./docs/flowc.1`).";

pub(super) fn run(shell: clap_complete::Shell) -> ExitCode {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "flowc", &mut out);
    print(&String::from_utf8_lossy(&out));
    ExitCode::SUCCESS
}

/// The manual page `flowc(1)` in roff: the top-level help, then a section
/// per command with its own options.
pub fn man_page() -> String {
    let command = Cli::command();
    let mut out = Vec::new();
    let man = clap_mangen::Man::new(command.clone());
    // Writing into a Vec cannot fail.
    let _ = man.render(&mut out);
    for sub in command.get_subcommands().filter(|c| c.get_name() != "help") {
        let title = format!(".SH \"FLOWC {}\"\n", sub.get_name().to_uppercase());
        out.extend_from_slice(title.as_bytes());
        let sub = sub.clone().bin_name(format!("flowc {}", sub.get_name()));
        let page = clap_mangen::Man::new(sub);
        let _ = page.render_description_section(&mut out);
        let _ = page.render_synopsis_section(&mut out);
        let _ = page.render_options_section(&mut out);
        let _ = page.render_extra_section(&mut out);
    }
    String::from_utf8_lossy(&out).into_owned()
}
