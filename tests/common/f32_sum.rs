//! The device-wide `f32` sum's contract, computed on the CPU (docs/reduce.md, "Float sums"):
//! where the blocks keep to spans, a fixed tree of the threads' runs; where they claim units,
//! the exact sum of the warps' partial sums of each unit, rounded once. Both follow the
//! kernel's documented order of evaluation, so the GPU's result must match this bit for bit.

use warpwork_abi::exact::ExactF32;
use warpwork_abi::reduce::{claims, span, unit, THREADS, UNROLL};

/// The threads' runs over `x[begin..end]` (`x[0]` at a 16-byte boundary plus `offset`
/// elements): thread `t`'s head element, its vectors `t, t + THREADS, …` in groups of
/// `UNROLL` (the elements of each in order) and its tail element, from −0.0.
fn runs(x: &[f32], offset: usize, begin: usize, end: usize) -> Vec<f32> {
    let threads = THREADS as usize;
    let mut acc = vec![-0.0f32; threads];
    let misaligned = (offset + begin) % 4;
    let head = if misaligned == 0 { 0 } else { (4 - misaligned).min(end - begin) };
    for (t, a) in acc.iter_mut().enumerate().take(head) {
        *a += x[begin + t];
    }
    let body = begin + head;
    let vectors = (end - body) / 4;
    for (t, a) in acc.iter_mut().enumerate() {
        let mut v = t;
        while v < vectors {
            for u in 0..UNROLL {
                let w = v + u * threads;
                if w < vectors {
                    for j in 0..4 {
                        *a += x[body + w * 4 + j];
                    }
                }
            }
            v += UNROLL * threads;
        }
    }
    let tail = body + vectors * 4;
    for (t, a) in acc.iter_mut().enumerate().take(end - tail) {
        *a += x[tail + t];
    }
    acc
}

/// A warp's tree over its 32 lanes: lane `l` ⊕ lane `l + d` for `d` = 1, 2, 4, 8, 16.
fn warp_tree(lanes: &[f32]) -> f32 {
    let mut s = lanes.to_vec();
    let mut d = 1;
    while d < 32 {
        for l in 0..32 - d {
            s[l] += s[l + d];
        }
        d *= 2;
    }
    s[0]
}

/// A block's tree: each warp's, then the warps in order.
fn block_tree(threads: &[f32]) -> f32 {
    let warps: Vec<f32> = threads.chunks(32).map(warp_tree).collect();
    warps[1..].iter().fold(warps[0], |a, &b| a + b)
}

/// What the device reduce returns for the `f32` sum of `x`, whose first element lies `offset`
/// elements past a 16-byte boundary.
pub fn device_f32_sum(x: &[f32], offset: usize) -> f32 {
    let n = x.len();
    let threads = THREADS as usize;
    let claimed = claims(4, n as u64);
    let piece = if claimed { unit(4) } else { span(4, n as u64) } as usize;
    // The pieces' threads' runs: unit by unit, or block by block (an empty input is one empty
    // block).
    let pieces: Vec<Vec<f32>> =
        (0..n.max(1)).step_by(piece).map(|begin| runs(x, offset, begin, (begin + piece).min(n))).collect();
    if claimed {
        let mut total = ExactF32::default();
        for p in &pieces {
            for warp in p.chunks(32) {
                total.add(warp_tree(warp));
            }
        }
        return total.round();
    }
    let partials: Vec<f32> = pieces.iter().map(|p| block_tree(p)).collect();
    if partials.len() == 1 {
        return partials[0];
    }
    // The last block: thread `t` combines partials `t, t + THREADS, …` (from −0.0), then its tree.
    let last: Vec<f32> =
        (0..threads).map(|t| partials.iter().skip(t).step_by(threads).fold(-0.0, |a, &b| a + b)).collect();
    block_tree(&last)
}
