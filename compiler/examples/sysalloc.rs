//! flowc with the system allocator, for heap profilers (heaptrack, massif)
//! that watch malloc: `cargo build --release --example sysalloc`.
fn main() -> std::process::ExitCode {
    flowc::cli::main()
}
