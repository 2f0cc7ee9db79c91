//! A [`Life`] board's kernel launches: which kernel, its arguments and its grid, from the
//! current board into the spare one (or, for a band kept once, from a window of the band, and
//! from the window into the band).

use super::Life;
use crate::abi::kernels;
use crate::transfer::{self, Boards, SourceRows};
use crate::{Error, Kernel, Layout, Result};
use std::ops::Range;
use warpwork::cudarc::driver::{CudaFunction, CudaViewMut};

/// Where the last launch of a window's round writes, with a `bit64` kernel: the window's rows
/// `rows` (its own rows) straight into `dst`, the band's rows they become
/// ([`crate::Bands::with_window`]).
#[cfg_attr(not(feature = "nccl"), allow(dead_code))]
pub(crate) struct WindowOut<'a> {
    pub(crate) rows: Range<usize>,
    pub(crate) dst: CudaViewMut<'a, u64>,
}

impl Life<'_> {
    /// Generations the next launch advances when `left ≥ 1` remain: as many as the kernel
    /// runs per launch, else the most of 8, 4, 2, 1 that fit.
    pub(super) fn launch_generations(&self, left: u64) -> u32 {
        match self.kernel.layout() {
            Layout::Bits64 => {
                let g = self.kernel.generations_per_launch() as u64;
                [g, 8, 4, 2, 1].into_iter().find(|&k| k <= g && k <= left).unwrap_or(1) as u32
            }
            _ => 1,
        }
    }

    /// One launch of `gens` generations on the first `height` rows of the boards (all of them,
    /// but for a band's window), from the current board into the spare one, or from `src`
    /// where given (a window of a band kept once; [`crate::BandedLife`]), or into `out` where
    /// given (the window's own rows into the band; `bit64` kernels only).
    pub(super) fn launch(
        &mut self,
        gens: u32,
        height: usize,
        src: Option<SourceRows<'_>>,
        mut out: Option<WindowOut<'_>>,
    ) -> Result<()> {
        // `check_size` has bounded both sides by u32::MAX (for a window: `Bands::split`).
        let (w, h) = (self.width as u32, height as u32);
        let per_row = transfer::elements_per_row(self.kernel.layout(), self.width);
        let wrong = |what: &str| Error::InvalidInput(format!("a window of {height} rows: {what}"));
        // The output rows: all, or the window's own rows, which `out` must hold.
        let rows = out.as_ref().map_or(0..height, |o| o.rows.clone());
        if rows.is_empty() || rows.end > height {
            return Err(wrong("the rows to write are not rows of the window"));
        }
        if let Some(o) = &out {
            if self.kernel.layout() != Layout::Bits64 || o.dst.len() < rows.len() * per_row {
                return Err(wrong("only a bit64 kernel writes a window's rows into the band, all of them"));
            }
        }
        let (row0, out_rows) = (rows.start as u32, rows.len() as u32);
        let strip_rows = self.strip_rows_for(gens, rows.len());
        let cfg = self.kernel.launch_config(w, out_rows, strip_rows)?;
        let (name, args) = match self.kernel {
            Kernel::Naive1d64 | Kernel::Naive1d256 => (kernels::NAIVE_1D, (w, h)),
            Kernel::Naive2d8x8 | Kernel::Naive2d16x16 => (kernels::NAIVE_2D, (w, h)),
            Kernel::Sparse => (kernels::SPARSE, (w, h)),
            Kernel::Multi => (kernels::MULTI, (w, h)),
            Kernel::Tiled => (kernels::TILED, (w, h)),
            Kernel::Byte => (kernels::BYTE, (w, h)),
            Kernel::Ballot => (kernels::BALLOT, (w, h)),
            Kernel::Bit32 => (kernels::BIT32, (w / 32, h)),
            _ => (self.bit64_name(gens), (w / 64, h)),
        };
        // The cell kernels take the rule; the bit kernels have it in their code.
        let takes_rule = matches!(self.kernel.layout(), Layout::U32 | Layout::U8);
        let f = if takes_rule { self.kernels.get(name)? } else { self.bit_kernel(name)? }.clone();
        let rule = self.rule.packed();
        let mut l = self.gpu.kernel_args();
        let cur = self.cur;
        macro_rules! pair {
            ($bufs:expr) => {{
                let (a, b) = $bufs.split_at_mut(1);
                if cur == 0 {
                    (&a[0], &mut b[0])
                } else {
                    (&b[0], &mut a[0])
                }
            }};
        }
        // The source must hold the `height` rows the kernel reads (the boards hold theirs).
        if height > self.height || src.as_ref().is_some_and(|s| s.len() < per_row * height) {
            return Err(wrong("the source or the boards hold fewer rows"));
        }
        match (&mut self.boards, &src) {
            (Boards::U32(bufs) | Boards::Bits32(bufs), None | Some(SourceRows::U32(_))) => {
                let (own, dst) = pair!(bufs);
                match &src {
                    Some(SourceRows::U32(v)) => l.read(v),
                    _ => l.read(own),
                };
                l.write(dst).value(&args.0).value(&args.1);
                if takes_rule {
                    l.value(&rule);
                }
                // SAFETY: `life_*(src, dst, width, height, rule)` (cell kernels) or
                // `life_bit32*(src, dst, words_per_row, height)` over boards of at least that
                // size (checked above for a source of its own); any rule value is valid.
                unsafe { l.launch(&f, cfg)? };
            }
            (Boards::U8(bufs), None | Some(SourceRows::U8(_))) => {
                let (own, dst) = pair!(bufs);
                match &src {
                    Some(SourceRows::U8(v)) => l.read(v),
                    _ => l.read(own),
                };
                l.write(dst).value(&args.0).value(&args.1).value(&rule);
                // SAFETY: as above, one byte per cell.
                unsafe { l.launch(&f, cfg)? };
            }
            (Boards::Bits64(bufs), None | Some(SourceRows::U64(_))) => {
                let (own, spare) = pair!(bufs);
                match &src {
                    Some(SourceRows::U64(v)) => l.read(v),
                    _ => l.read(own),
                };
                match &mut out {
                    Some(o) => l.write(&mut o.dst),
                    None => l.write(spare),
                };
                l.value(&args.0).value(&args.1).value(&strip_rows).value(&row0).value(&out_rows);
                // SAFETY: `life_bit64_t*(src, dst, words_per_row, height, strip_rows, out_row0,
                // out_rows)` reading a source of `height` rows and writing rows `out_row0 ..
                // out_row0 + out_rows ≤ height` into a destination that holds them (checked
                // above), strip_rows ≥ 1; the destination is another board than the source, or
                // rows of the band that the window does not read (`bands::window`).
                unsafe { l.launch(&f, cfg)? };
            }
            _ => return Err(wrong("the source is not in the kernel's layout")),
        }
        Ok(())
    }

    /// The `bit64` kernel advancing `gens` (1, 2, 4, 8 or 12) generations per launch.
    pub(super) fn bit64_name(&self, gens: u32) -> &'static str {
        match gens {
            1 => kernels::BIT64_T1,
            2 => kernels::BIT64_T2,
            4 => kernels::BIT64_T4,
            8 if self.kernel == Kernel::Bit64T8Flat => kernels::BIT64_T8_FLAT,
            8 => kernels::BIT64_T8,
            _ => kernels::BIT64_T12,
        }
    }

    /// Bit kernel `name` for the rule: with the rule's tables ([`Life::set_rule`]), or for
    /// B3/S23 its twin in the specialised form, which takes two logic instructions per word
    /// fewer than the tables (see `docs/life.md`).
    pub(super) fn bit_kernel(&self, name: &'static str) -> Result<&CudaFunction> {
        match &self.rule_kernels {
            Some(k) => k.get(name),
            None => self.kernels.get(kernels::b3s23_twin(name).unwrap_or(name)),
        }
    }
}
