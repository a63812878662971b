//! The `flowc` binary.

// A check allocates many small, short-lived values (names, spans, findings);
// mimalloc serves them faster than the system allocator (docs/performance.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    flowc::cli::main()
}
