#![forbid(unsafe_code)]

/// mimalloc rather than glibc's malloc: under reads while the translations change, glibc
/// kept the freed render buffers in its per-thread arenas and the daemon's RSS kept rising
/// (docs/design.md, "Memory"); mimalloc gives freed pages back to the system.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    depot::cli::main()
}
