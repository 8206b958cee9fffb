//! The `slotsim` binary: the command line lives in `cli`.
#![forbid(unsafe_code)]

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
