//! What the banded-board test binaries share (`bands_gpu`, `bands_gpu_window`): one test at a
//! time on the GPUs, the handle on the first ranks (or a skip), and the comparison of a banded
//! board with one GPU's.

use std::sync::Mutex;
use warpwork::multi::Gpus;
use warpwork::{Error, Gpu};
use warpwork_life::{BandedLife, Bands, BitGrid, Life, Rule};

/// One test at a time holds GPUs and NCCL communicators (each test makes its own handle).
pub static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A handle on the first `ranks` GPUs, or `None` (with the reason printed) when the machine has
/// fewer or NCCL cannot be loaded.
pub fn gpus(ranks: usize) -> Option<Gpus> {
    let count = Gpu::device_count().expect("the GPU suite needs a CUDA driver");
    if count < ranks {
        eprintln!("skipped: {ranks} GPUs needed, {count} found");
        return None;
    }
    let ordinals: Vec<usize> = (0..ranks).collect();
    match Gpus::new(&ordinals) {
        Ok(g) => Some(g),
        Err(Error::NoNccl) => {
            eprintln!("skipped: libnccl.so could not be loaded (put a libnccl.so link on LD_LIBRARY_PATH)");
            None
        }
        Err(e) => panic!("Gpus::new({ordinals:?}): {e}"),
    }
}

pub fn assert_same(got: &BitGrid, want: &BitGrid, what: &str) {
    assert!(got == want, "{what}: the boards differ, first at {:?}", got.differences(want, 8));
}

/// `plan` on `gpus` against one GPU from `start` under `rule`: the same window, the start as
/// uploaded, then equal cells and populations after each step of `chunks` generations.
pub fn compare(gpus: &Gpus, plan: &Bands, start: &BitGrid, rule: Rule, chunks: &[u64], what: &str) {
    let kernel = plan.kernel();
    let mut banded = BandedLife::new(gpus, plan.clone(), start).unwrap();
    let mut single = Life::new(gpus.gpu(0), kernel, start).unwrap();
    assert_eq!(banded.window(), plan.window(), "{what}");
    banded.set_rule(rule).unwrap();
    single.set_rule(rule).unwrap();
    assert_same(&banded.grid().unwrap(), start, &format!("{what} as uploaded"));
    assert_eq!(banded.population().unwrap(), start.population(), "{what} population as uploaded");
    for &n in chunks {
        banded.step(n).unwrap();
        single.step(n).unwrap();
        let what = format!("{what} generation {}", banded.generation());
        assert_eq!(banded.generation(), single.generation(), "{what}");
        let want = single.grid().unwrap();
        assert_same(&banded.grid().unwrap(), &want, &what);
        assert_eq!(banded.population().unwrap(), want.population(), "{what} population");
    }
}
