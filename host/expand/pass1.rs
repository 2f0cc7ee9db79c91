//! Pass 1: the strategy's push over the counts.

use super::expander::addr;
use super::Expander;
use crate::{DeviceBuffer, Gpu, Result};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use warpwork_abi::expand::THREADS;

impl Expander {
    /// Pass 1: resets the control block (unless the strategy's pass 1 leaves it ready: S2.5f)
    /// and runs the strategy's push over `counts`. Asynchronous.
    pub fn pass1(&mut self, gpu: &Gpu, counts: &DeviceBuffer<u32>) -> Result<()> {
        let p1 = counts.len();
        let facts = self.strategy.facts();
        // S2.5f's pass 1 leaves its state ready for the next (its last block stores every control
        // field it reads and flips the launch word; each launch clears the previous launch's
        // look-back words), and pass 2 clears its claims: no memset before it, one operation
        // less on the stream.
        let clears_itself = facts.pass1_clears_state && p1 > 0;
        self.reset_for(gpu, p1, addr(gpu, counts), !clears_itself)?;
        let Some(push) = facts.push else { return Ok(()) };
        if p1 == 0 {
            return Ok(());
        }
        let f = gpu.function(push.kernel)?;
        let cfg = LaunchConfig {
            grid_dim: ((p1 as u32).div_ceil(push.sources_per_block), 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut l = gpu.stream().launch_builder(&f);
        l.arg(self.view.raw());
        // SAFETY: every `expand_push_*` takes the view pointer, which describes buffers this
        // expander owns (sized for `max_p1` and `capacity`) and `counts` (`p1` elements).
        unsafe { l.launch(cfg)? };
        Ok(())
    }
}
