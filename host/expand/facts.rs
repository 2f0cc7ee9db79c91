//! The table of what the host needs to know about each strategy ([`Facts`]): codes, kernels,
//! block shapes, workspace, how pass 2 is launched and sized, and what a user's pass 2 needs.
//! [`super::Strategy::facts`] reads a strategy's row; nothing else tells strategies apart.

use super::workspace::Workspace;
use warpwork_abi::expand::fused::{FUSED_MAX_CAPACITY, FUSED_PASS2_THREADS, FUSED_PUSH_TILES, FUSED_TILE};
use warpwork_abi::expand::{strategy, PUSH_ITEMS, THREADS};
use warpwork_abi::kernels;

/// Pass 1 of a strategy: its kernel, launched with `ceil(p1 / sources_per_block)` blocks of
/// [`THREADS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Push {
    pub kernel: &'static str,
    pub sources_per_block: u32,
}

impl Push {
    /// Blocks of its launch over `p1` sources (S2.5: one scan tile each; S2.5f: one pair of
    /// look-back words each).
    pub(super) fn blocks(&self, p1: usize) -> usize {
        p1.div_ceil(self.sources_per_block as usize)
    }
}

/// How the strategy's own pass 2 is launched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pass2Launch {
    /// One launch `(view, out)`.
    Plain,
    /// One launch `(view, out)` as a programmatic dependent of pass 1 (its blocks start while
    /// pass 1's last blocks run; the kernel waits for pass 1 itself).
    Dependent,
    /// One launch `(view, out, bucket)` per non-empty bucket.
    PerBucket,
}

/// What a read-back pass 2 sizes its grid by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pass2Items {
    /// The `p1 · max_n` slots of S0 (`MAXN_ITEMS` per thread and step).
    Slots,
    /// The destination items (`warpwork_abi::expand::dst_count`), `PASS2_STEP` per warp.
    Destinations,
    /// S2.5f's units: one block per first claim at most.
    Units,
}

/// Everything the host needs to know about one strategy.
#[derive(Clone, Copy, Debug)]
pub(super) struct Facts {
    /// Short name for tables: the strategy's number (S0 … S3) and the API name.
    pub name: &'static str,
    /// The code the kernels switch on (`warpwork_abi::expand::strategy`).
    pub code: u32,
    /// Pairs come out source-major, locals ascending.
    pub canonical: bool,
    /// The device memory it needs besides the counts and the output.
    pub workspace: Workspace,
    /// Its pass 1 (S0 has none).
    pub push: Option<Push>,
    /// Pass 1 leaves the control block and the look-back words ready for the next pass 1, so
    /// none needs clearing before it (S2.5f).
    pub pass1_clears_state: bool,
    /// Its materializing pass-2 kernel and block size.
    pub pass2: &'static str,
    pub pass2_threads: u32,
    pub pass2_launch: Pass2Launch,
    pub pass2_items: Pass2Items,
    /// Its own pass 2 counts the pairs it writes in `ctrl.counter` (S0, which has no pass 1
    /// total): that is the count, and it restarts from zero for another pass 2.
    pub pass2_counts_pairs: bool,
    /// Its pass 2 reads the counts array (S0, S2.5f), which a pass 1 of the caller's own kernel
    /// does not have: [`super::Expander::pass1_by_own_kernel`] refuses it.
    pub pass2_reads_counts: bool,
    /// What a user's pass 2 needs.
    pub user_pass2: UserPass2,
    /// Its pass 1 and pass 2 with 64-bit offsets and destination indices, for capacities past
    /// `u32::MAX` (`None`: the strategy stays 32-bit and refuses them).
    pub wide: Option<WideKernels>,
    /// Its two passes as one kernel `(view, out)` on the persistent grid of that kernel, for up
    /// to `FUSED_ONCE_MAX_P1` sources with 32-bit offsets ([`super::Expander::expand`]; S2.5f).
    pub once: Option<&'static str>,
}

/// A strategy's kernels for 64-bit offsets (launched as the 32-bit ones), and the largest
/// capacity they take.
#[derive(Clone, Copy, Debug)]
pub(super) struct WideKernels {
    pub push: &'static str,
    pub pass2: &'static str,
    pub max_capacity: u64,
}

impl Facts {
    /// Pass 1 in the offset width (`wide`: 64-bit).
    pub(super) fn push_in(&self, wide: bool) -> Option<Push> {
        match (self.push, self.wide) {
            (Some(p), Some(w)) if wide => Some(Push { kernel: w.push, ..p }),
            (p, _) => p,
        }
    }

    /// The materializing pass 2 in the offset width.
    pub(super) fn pass2_in(&self, wide: bool) -> &'static str {
        match self.wide {
            Some(w) if wide => w.pass2,
            _ => self.pass2,
        }
    }
}

/// What running a user's pass-2 kernel takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum UserPass2 {
    /// Nothing more.
    Allowed,
    /// A device count first (this kernel, launched as a pass-1 push, once per pass 1): S0 has
    /// no pass 1 and a user's pass 2 keeps no count.
    CountFirst(Push),
    /// Refused, for this reason.
    Refused(&'static str),
}

/// Sources per block of the pushes that take [`PUSH_ITEMS`] per thread.
const PUSH_BLOCK: u32 = THREADS * PUSH_ITEMS as u32;

pub(super) const MAX_N: Facts = Facts {
    name: "S0 MaxN",
    code: strategy::MAX_N,
    canonical: false,
    workspace: Workspace::None,
    push: None,
    pass1_clears_state: false,
    pass2: kernels::EXPAND_PASS2_MAXN,
    pass2_threads: THREADS,
    pass2_launch: Pass2Launch::Plain,
    pass2_items: Pass2Items::Slots,
    pass2_counts_pairs: true,
    pass2_reads_counts: true,
    user_pass2: UserPass2::CountFirst(Push { kernel: kernels::EXPAND_MAXN_TOTAL, sources_per_block: PUSH_BLOCK }),
    wide: None,
    once: None,
};

/// The defaults the rows below start from (what S1 … S3 share); not a strategy itself.
const BASE: Facts = Facts {
    name: "",
    code: 0,
    canonical: false,
    workspace: Workspace::None,
    push: None,
    pass1_clears_state: false,
    pass2: "",
    pass2_threads: THREADS,
    pass2_launch: Pass2Launch::Plain,
    pass2_items: Pass2Items::Destinations,
    pass2_counts_pairs: false,
    pass2_reads_counts: false,
    user_pass2: UserPass2::Allowed,
    wide: None,
    once: None,
};

pub(super) const APPEND_PER_ITEM: Facts = Facts {
    name: "S1 AppendPerItem",
    code: strategy::APPEND_PER_ITEM,
    workspace: Workspace::RecordPerItem,
    push: Some(Push { kernel: kernels::EXPAND_PUSH_APPEND, sources_per_block: PUSH_BLOCK }),
    pass2: kernels::EXPAND_PASS2_APPEND,
    ..BASE
};

pub(super) const LINEAR_SEARCH: Facts = Facts {
    name: "S2 LinearSearch",
    code: strategy::LINEAR_SEARCH,
    workspace: Workspace::RecordPerSource,
    push: Some(Push { kernel: kernels::EXPAND_PUSH_LINEAR, sources_per_block: PUSH_BLOCK }),
    pass2: kernels::EXPAND_PASS2_LINEAR,
    ..BASE
};

pub(super) const SCAN_BINARY_SEARCH: Facts = Facts {
    name: "S2.5 ScanBinarySearch",
    code: strategy::SCAN_BINARY_SEARCH,
    canonical: true,
    workspace: Workspace::Scan,
    push: Some(Push {
        kernel: kernels::EXPAND_PUSH_SCAN,
        sources_per_block: warpwork_abi::scan::THREADS * warpwork_abi::scan::ITEMS_U32 as u32,
    }),
    pass2: kernels::EXPAND_PASS2_SCAN,
    wide: Some(WideKernels {
        push: kernels::EXPAND_PUSH_SCAN_WIDE,
        pass2: kernels::EXPAND_PASS2_SCAN_WIDE,
        max_capacity: u64::MAX,
    }),
    ..BASE
};

pub(super) const PACKED_ATOMIC_CAS: Facts = Facts {
    name: "S2.5+ PackedAtomic(CAS)",
    code: strategy::PACKED_ATOMIC_CAS,
    workspace: Workspace::Packed,
    push: Some(Push { kernel: kernels::EXPAND_PUSH_PACKED_CAS, sources_per_block: PUSH_BLOCK }),
    pass2: kernels::EXPAND_PASS2_PACKED,
    ..BASE
};

pub(super) const PACKED_ATOMIC_ADD: Facts = Facts {
    name: "S2.5+ PackedAtomic(add)",
    code: strategy::PACKED_ATOMIC_ADD,
    push: Some(Push { kernel: kernels::EXPAND_PUSH_PACKED_ADD, sources_per_block: PUSH_BLOCK }),
    ..PACKED_ATOMIC_CAS
};

pub(super) const PO2_BUCKETS: Facts = Facts {
    name: "S3 Po2Buckets(merged)",
    code: strategy::PO2_BUCKETS,
    workspace: Workspace::Buckets,
    push: Some(Push { kernel: kernels::EXPAND_PUSH_PO2, sources_per_block: PUSH_BLOCK }),
    pass2: kernels::EXPAND_PASS2_PO2,
    ..BASE
};

pub(super) const PO2_BUCKETS_PER_BUCKET: Facts = Facts {
    name: "S3 Po2Buckets(per-bucket)",
    pass2: kernels::EXPAND_PASS2_PO2_BUCKET,
    pass2_launch: Pass2Launch::PerBucket,
    ..PO2_BUCKETS
};

pub(super) const SCAN_FUSED: Facts = Facts {
    name: "S2.5f ScanFused",
    code: strategy::SCAN_FUSED,
    canonical: true,
    workspace: Workspace::Fused,
    push: Some(Push { kernel: kernels::EXPAND_PUSH_FUSED, sources_per_block: FUSED_TILE * FUSED_PUSH_TILES as u32 }),
    pass1_clears_state: true,
    pass2: kernels::EXPAND_PASS2_FUSED,
    pass2_threads: FUSED_PASS2_THREADS,
    pass2_launch: Pass2Launch::Dependent,
    pass2_items: Pass2Items::Units,
    pass2_counts_pairs: false,
    pass2_reads_counts: true,
    user_pass2: UserPass2::Refused(
        "ScanFused's pass 2 needs shared memory for its tile scans, which the for_each contract \
         does not give: use ScanBinarySearch with your pass-2 kernel, or for_each_fused in your \
         own kernel",
    ),
    wide: Some(WideKernels {
        push: kernels::EXPAND_PUSH_FUSED_WIDE,
        pass2: kernels::EXPAND_PASS2_FUSED_WIDE,
        max_capacity: FUSED_MAX_CAPACITY,
    }),
    once: Some(kernels::EXPAND_FUSED_ONCE),
};
