//! Pass 2 with the strategy's own kernel, which materializes the `(src, local)` pairs: sizing
//! its grid ([`Dispatch`]) and launching it as the strategy's table row says.

use super::facts::{Pass2Items, Pass2Launch};
use super::{Control, Dispatch, Expander, Planned};
use crate::{DeviceWrite, Gpu, Result};
use cudarc::driver::LaunchConfig;
use warpwork_abi::expand::fused::FUSED_CLAIM_UNITS;
use warpwork_abi::expand::{dst_count_wide, BUCKETS, MAXN_ITEMS, PASS2_STEP, THREADS};

impl Planned<'_, '_> {
    /// The strategy this expansion runs: the one [`Strategy::Auto`](crate::expand::Strategy::Auto)
    /// resolved to, if the expander was built with it.
    ///
    /// ```no_run
    /// use warpwork::expand::Strategy;
    /// let gpu = warpwork::Gpu::new(0)?;
    /// let counts = gpu.upload(&[3u32; 1000])?;
    /// let mut e = gpu.expander(Strategy::AUTO, 1000, 3000)?;
    /// let planned = e.pass1(&gpu, &counts)?;
    /// println!("Auto chose {}", planned.strategy().name());
    /// # drop(planned);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn strategy(&self) -> crate::expand::Strategy {
        self.e.strategy()
    }

    /// Pass 2, materializing: writes the `(src, local)` pairs into `out`, which is at least
    /// `capacity` long — or at least the count, once [`Planned::count`] (or
    /// [`Expander::count`]) has read it: read the count, allocate that much, then run pass 2
    /// (again). Asynchronous for [`Dispatch::Persistent`], and capturable; [`Dispatch::ReadBack`]
    /// **waits** for pass 1's count. It may run again and writes the same pairs.
    ///
    /// ```no_run
    /// use warpwork::{expand::{Dispatch, Strategy}, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let counts = gpu.upload(&[2u32, 1])?;
    /// let mut e = gpu.expander(Strategy::ScanBinarySearch, 2, 1 << 20)?;
    /// let mut planned = e.pass1(&gpu, &counts)?;
    /// let n = planned.count(&gpu)?; // waits: 3
    /// let mut out = gpu.zeros::<[u32; 2]>(n)?; // exactly the count, not the capacity
    /// planned.pass2(&gpu, &mut out, Dispatch::Persistent)?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    ///
    /// ```no_run
    /// use warpwork::{expand::{Dispatch, Strategy}, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let counts = gpu.upload(&[2u32, 1])?;
    /// let mut out = gpu.zeros::<[u32; 2]>(3)?;
    /// let mut e = gpu.expander(Strategy::ScanFused, 2, 3)?;
    /// e.pass1(&gpu, &counts)?.pass2(&gpu, &mut out, Dispatch::ReadBack)?;
    /// assert_eq!(gpu.download(&out)?, [[0, 0], [0, 1], [1, 0]]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn pass2(&mut self, gpu: &Gpu, out: &mut impl DeviceWrite<[u32; 2]>, dispatch: Dispatch) -> Result<()> {
        let facts = self.e.strategy.facts();
        self.e.check_output(gpu, out)?;
        self.e.passes.user_pass2 = false;
        if facts.pass2_counts_pairs && self.e.passes.pass2_ran {
            // This pass 2 counts the pairs it writes in the control block (at the front of the
            // workspace): start again from zero.
            let counter = std::mem::offset_of!(Control, counter) / 4;
            gpu.zero_words(&mut self.e.workspace, counter..counter + 1)?;
        }
        self.e.passes.pass2_ran = true;
        if dispatch == Dispatch::ReadBack {
            gpu.refuse_in_capture("Dispatch::ReadBack reads the count back (use Dispatch::Persistent)")?;
        }
        let e = &mut *self.e;
        let f = gpu.function(facts.pass2_in(e.is_wide()))?;
        let grids = match dispatch {
            Dispatch::Persistent => Grids { grid: e.pass2_blocks, per_bucket: None },
            Dispatch::ReadBack => e.read_back_grids(gpu, facts.pass2_items, self.p1)?,
        };
        // Each launch's grid (per bucket: sized by its items when read back; none when empty).
        let per_launch: Vec<(u32, Option<u32>)> = match (facts.pass2_launch, grids.per_bucket) {
            (Pass2Launch::PerBucket, None) => (0..BUCKETS as u32).map(|b| (grids.grid, Some(b))).collect(),
            (Pass2Launch::PerBucket, Some(items)) => {
                (0..BUCKETS).filter(|&b| items[b] != 0).map(|b| (e.blocks_for(items[b]), Some(b as u32))).collect()
            }
            _ => vec![(grids.grid, None)],
        };
        let counts = self.counts;
        for (grid, bucket) in per_launch {
            let cfg =
                LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (facts.pass2_threads, 1, 1), shared_mem_bytes: 0 };
            let (view, _bound) = e.bind_workspace(gpu, counts)?;
            let mut l = gpu.kernel_args();
            l.addr(view).write(out);
            if let Some(b) = bucket.as_ref() {
                l.value(b);
            }
            if facts.pass2_launch == Pass2Launch::Dependent {
                // Its blocks start while pass 1's blocks look back (both kernels say so).
                // SAFETY: `expand_pass2_fused(view, out)`; `out` holds `capacity` pairs; the
                // kernel waits for pass 1 before reading the plan.
                unsafe { l.launch_dependent(f, cfg)? };
            } else {
                // SAFETY: `expand_pass2_*(view, out[, bucket])`; `out` holds `capacity` pairs; the
                // workspace the view points to is bound above.
                unsafe { l.launch(f, cfg)? };
            }
        }
        Ok(())
    }
}

impl Expander {
    /// Refuses, before anything is issued, an output shorter than the capacity (than the count,
    /// once [`Expander::count`] has read it since pass 1) or off a 16-byte boundary (pass 2
    /// stores two pairs at a time).
    pub(super) fn check_output(&self, gpu: &Gpu, out: &impl DeviceWrite<[u32; 2]>) -> Result<()> {
        let needed = self.known_count().unwrap_or(self.capacity as u64).min(self.capacity as u64);
        crate::error::ensure_len("expansion output (pairs)", out.len(), needed)?;
        if !out.is_empty() {
            crate::error::ensure_aligned("expansion output", gpu.device_address(out)?, 16)?;
        }
        Ok(())
    }

    /// Blocks of pass 2 for `items` destination items ([`PASS2_STEP`] per warp), at most the
    /// persistent grid.
    fn blocks_for(&self, items: u64) -> u32 {
        let per_block = (THREADS / warpwork_abi::WARP_SIZE) as u64 * PASS2_STEP as u64;
        self.clamp_grid(items.div_ceil(per_block))
    }

    /// `blocks` clamped to at least one and at most the persistent grid (`pass2_blocks >= 1`:
    /// occupancy, at least 1, times the SMs), in 64 bits: a read-back count may exceed what a
    /// `u32` grid size holds (S0's slots, a 64-bit total, a bucket's items).
    fn clamp_grid(&self, blocks: u64) -> u32 {
        blocks.clamp(1, self.pass2_blocks as u64) as u32
    }

    /// The grids of a [`Dispatch::ReadBack`] pass 2, from the control block read back.
    fn read_back_grids(&self, gpu: &Gpu, items: Pass2Items, p1: usize) -> Result<Grids> {
        let c = self.control(gpu)?;
        let per_bucket = std::array::from_fn(|b| (c.buckets[b] as u64) << b);
        let grid = match items {
            Pass2Items::Slots => {
                let slots = p1 as u64 * self.strategy.max_n().unwrap_or(0) as u64;
                self.clamp_grid(slots.div_ceil(THREADS as u64 * MAXN_ITEMS as u64))
            }
            Pass2Items::Destinations => self.blocks_for(dst_count_wide(&c, &self.host_view)),
            // One block per first claim at most (each claims units until none is left).
            Pass2Items::Units => self.clamp_grid(c.units.div_ceil(FUSED_CLAIM_UNITS) as u64),
        };
        Ok(Grids { grid, per_bucket: Some(per_bucket) })
    }
}

/// The grid(s) of one pass 2.
#[derive(Clone, Copy)]
struct Grids {
    /// Blocks of the launch (of every launch per bucket, without `per_bucket`).
    grid: u32,
    /// Read back: each bucket's destination items, which size its launch (and skip it when 0).
    per_bucket: Option<[u64; BUCKETS]>,
}
