//! The `flowc` binary.

fn main() -> std::process::ExitCode {
    flowc::cli::main()
}
