//! Writes the counts of every expansion distribution of the benchmark (`warpwork bench expand`)
//! at P1 = 2^16, 2^18 and 2^20 to `DIR/d{k}_{log2 P1}.bin`: a 32-byte name (UTF-8, zero padded),
//! then the counts as little-endian `u32`s. Prototypes in other languages read them, so that
//! they time exactly the benchmark's inputs (`lab/expand_unordered.cu`).
//!
//! ```text
//! cargo run --release -p warpwork-cpu-reference --example dump_counts -- DIR
//! ```

use std::io::Write;
use warpwork_cpu_reference::counts::CountDistribution;

fn main() -> std::io::Result<()> {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: dump_counts DIR");
        std::process::exit(2);
    };
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir)?;
    for log2 in [16u32, 18, 20] {
        for (k, d) in CountDistribution::ALL.iter().enumerate() {
            let mut out = std::io::BufWriter::new(std::fs::File::create(dir.join(format!("d{k}_{log2}.bin")))?);
            let mut name = [0u8; 32];
            name[..d.name().len()].copy_from_slice(d.name().as_bytes());
            out.write_all(&name)?;
            for n in d.counts(1 << log2) {
                out.write_all(&n.to_le_bytes())?;
            }
        }
    }
    Ok(())
}
