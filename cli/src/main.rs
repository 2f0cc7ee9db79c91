//! `warpwork`: the benchmarks of every primitive (the README's main job) and the Game of Life.

mod bench;
mod life;
mod report;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(version, about = "GPU work-distribution primitives: benchmarks and tools")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measure a primitive's variants on this machine's GPU (or the CPU reference without one).
    Bench(bench::BenchArgs),
    /// Print the GPU warpwork would use.
    Info,
    /// Run Conway's Game of Life or another Life-like rule (GPU, or the CPU reference without one).
    Life(life::LifeArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bench(args) => bench::run(args),
        Command::Info => info(),
        Command::Life(args) => life::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn info() -> warpwork::Result<()> {
    let gpu = warpwork::Gpu::new(0)?;
    let i = gpu.info();
    println!(
        "{}: compute capability {}.{}, {} SMs, {:.1} GiB, kernels {}, {} dependent launches",
        i.name,
        i.compute_capability.0,
        i.compute_capability.1,
        i.sm_count,
        i.total_memory as f64 / (1u64 << 30) as f64,
        i.code,
        if gpu.programmatic_dependent_launch() { "programmatic" } else { "plain" }
    );
    Ok(())
}
