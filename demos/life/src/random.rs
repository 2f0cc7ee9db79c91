//! Random boards without a random-number crate: each word of the board is a function of the
//! seed and the word's index (a SplitMix64 hash), so the result does not depend on how many
//! threads fill it.

/// SplitMix64's output function of `seed` and a counter.
fn hash(seed: u64, counter: u64) -> u64 {
    let mut z = seed.wrapping_add(counter.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Word `index` of a board where each bit is set with probability `threshold / 2^32`.
fn word(seed: u64, index: u64, threshold: u64) -> u64 {
    if threshold == 1 << 31 {
        return hash(seed, index);
    }
    let mut w = 0u64;
    for k in 0..32 {
        let r = hash(seed, index.wrapping_mul(32).wrapping_add(k));
        let (lo, hi) = (r & 0xFFFF_FFFF, r >> 32);
        w |= ((lo < threshold) as u64) << (2 * k) | ((hi < threshold) as u64) << (2 * k + 1);
    }
    w
}

/// Fills `words`: each bit set with probability `density` (in `0..=1`), reproducibly from
/// `seed`. Large boards are split over the machine's cores; a thread that cannot be started
/// leaves its share to the calling thread.
pub(crate) fn fill(words: &mut [u64], density: f64, seed: u64) {
    fill_at(words, density, seed, 0);
}

/// As [`fill`] for the words of a board from word `offset` on: the same words a whole board's
/// fill writes there, so that a part of a board (a band of rows) can be made alone.
pub(crate) fn fill_at(words: &mut [u64], density: f64, seed: u64, offset: u64) {
    let threshold = (density * 2f64.powi(32)).clamp(0.0, 2f64.powi(32)) as u64;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(words.len() >> 16).max(1);
    let chunk = words.len().div_ceil(threads).max(1);
    let fill_chunk = |i: usize, part: &mut [u64]| {
        let first = offset + (i * chunk) as u64;
        for (j, w) in part.iter_mut().enumerate() {
            *w = word(seed, first + j as u64, threshold);
        }
    };
    if threads == 1 {
        fill_chunk(0, words);
        return;
    }
    let mut not_started = Vec::new();
    std::thread::scope(|s| {
        for (i, part) in words.chunks_mut(chunk).enumerate() {
            if std::thread::Builder::new().spawn_scoped(s, move || fill_chunk(i, part)).is_err() {
                not_started.push(i);
            }
        }
    });
    for i in not_started {
        let start = i * chunk;
        let end = (start + chunk).min(words.len());
        fill_chunk(i, &mut words[start..end]);
    }
}
