//! The `flowc` binary.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
