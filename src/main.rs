#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    depot::cli::main()
}
