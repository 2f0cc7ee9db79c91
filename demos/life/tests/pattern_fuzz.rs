//! A fuzz harness for the RLE and `.cells` readers that runs on stable Rust (no cargo-fuzz):
//! structured mutations of a seed corpus (digits, huge numbers, headers, `!`, `$`, byte-order
//! marks, CR/LF, control characters, splices) from a seeded generator, for a bounded time.
//!
//! Every input must be read without a panic, in well under a second, allocating at most the
//! board the [`Limits`] allow plus a multiple of the text's length (measured by a counting
//! global allocator in this binary), and every accepted pattern must survive an exact round trip
//! through the RLE writer (and the plaintext writer, where the board has cells).
//!
//! `WARPWORK_FUZZ_SECS` (default 1) bounds the time, `WARPWORK_FUZZ_SEED` (default 1) picks
//! the inputs; a failure prints both and the input. CI runs it for 60 s with a fresh seed:
//! `WARPWORK_FUZZ_SECS=60 WARPWORK_FUZZ_SEED=$(date +%s) cargo test --release -p warpwork-life --test pattern_fuzz`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};
use warpwork_life::pattern::{self, Pattern, PatternError};
use warpwork_life::{BitGrid, Limits};

/// The global allocator, counting live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = LIVE.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call forwards to the system allocator with the same arguments; the counters
// are only statistics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
            grew(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f`, returning its result and the most bytes it had allocated at once.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let r = f();
    (r, PEAK.load(Relaxed).saturating_sub(base))
}

/// xorshift64*: small, seeded, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Pieces the mutations insert: the syntax of both formats and the values that broke readers.
const TOKENS: &[&str] = &[
    "0",
    "1",
    "7",
    "9",
    "10",
    "64",
    "65",
    "4096",
    "65536",
    "1048576",
    "4294967296",
    "18446744073709551615",
    "99999999999999999999999",
    "o",
    "b",
    "$",
    "!",
    "#",
    "#N ",
    "#C ",
    "#r B3/S23",
    "#r B36/S23",
    "#CXRLE Pos=1,2",
    "\n",
    "\r\n",
    "\r",
    "x = ",
    "y = ",
    ", ",
    ", rule = B3/S23",
    "rule = ",
    "=",
    "x",
    "y",
    "\u{FEFF}",
    "\u{1b}[2J",
    "\0",
    "\u{7}",
    "\u{b}",
    "\u{c}",
    "\t",
    " ",
    ".",
    "O",
    "*",
    "!Name: ",
    "é",
    "\u{202E}",
    "x = 4, y = 4\n",
    "3o$",
];

/// The seed corpus: the built-in patterns, both formats, and the decided edge cases.
fn corpus() -> Vec<String> {
    let mut c: Vec<String> = pattern::BUILTIN_NAMES.iter().map(|n| pattern::builtin(n).unwrap().to_string()).collect();
    c.extend(
        [
            "x = 0, y = 0\n!",
            "#N name\r\nx = 3, y = 3, rule = B3/S23\r\nbo$2bo$3o!\r\n",
            "\u{FEFF}!Name: bom\n.O.\n..O\nOOO\n",
            "x = 12, y = 1\n1\n0o!",
            "#r B3/S23\n#CXRLE Pos=0,0\nx = 5, y = 5\n5o$5b$5o!",
            "!\n",
            "x = 70, y = 2\n70o$70o!",
            "y = 2, x = 3,\nobo$3o!",
            "!Name: cells\n*.*\n\n.O.\n",
        ]
        .map(String::from),
    );
    for (w, h, d, seed) in [(9, 4, 0.5, 1), (70, 3, 0.3, 2), (130, 2, 0.9, 3)] {
        let g = BitGrid::random(w, h, d, seed).unwrap();
        c.push(pattern::to_rle(&g, Some("random")).unwrap());
        c.push(pattern::to_cells(&g, None).unwrap());
    }
    c
}

/// One structured mutation of `text` (as characters, so it stays UTF-8).
fn mutate(rng: &mut Rng, text: &mut Vec<char>, corpus: &[String]) {
    let at = rng.below(text.len() + 1);
    match rng.below(8) {
        0 | 1 => text.splice(at..at, rng.pick(TOKENS).chars()).for_each(drop),
        2 => {
            let end = (at + 1 + rng.below(8)).min(text.len());
            text.drain(at.min(end)..end);
        }
        3 => {
            // Replace the digit run at or after `at` by another number.
            if let Some(start) = (at..text.len()).find(|&i| text[i].is_ascii_digit()) {
                let end = (start..text.len()).find(|&i| !text[i].is_ascii_digit()).unwrap_or(text.len());
                let n = rng.pick(&["0", "1", "2", "63", "64", "100000", "4294967295", "18446744073709551616"]);
                text.splice(start..end, n.chars()).for_each(drop);
            }
        }
        4 => {
            let end = (at + 1 + rng.below(16)).min(text.len());
            let copy: Vec<char> = text[at.min(end)..end].to_vec();
            text.splice(at..at, copy).for_each(drop);
        }
        5 => {
            let other: Vec<char> = corpus[rng.below(corpus.len())].chars().collect();
            let from = rng.below(other.len() + 1);
            text.truncate(at);
            text.extend_from_slice(&other[from..]);
        }
        6 => text.truncate(at),
        _ => {
            if at < text.len() {
                text[at] = char::from(rng.below(128) as u8);
            }
        }
    }
}

/// Checks one input under `limits`; `Err` describes the failure.
fn check(text: &str, limits: &Limits) -> Result<bool, String> {
    let slack = 12 * text.len() + (64 << 10);
    let allowed = limits.max_bytes as usize + slack;
    let mut accepted = false;
    type Reader = fn(&str, &Limits) -> Result<Pattern, PatternError>;
    for (name, read) in
        [("parse", pattern::parse as Reader), ("parse_rle", pattern::parse_rle), ("parse_cells", pattern::parse_cells)]
    {
        let t = Instant::now();
        let (result, peak) = peak_of(|| catch_unwind(AssertUnwindSafe(|| read(text, limits))));
        let result = result.map_err(|_| format!("{name} panicked"))?;
        if t.elapsed() > Duration::from_secs(1) {
            return Err(format!("{name} took {:?}", t.elapsed()));
        }
        if peak > allowed {
            return Err(format!("{name} allocated {peak} bytes at once, more than {allowed}"));
        }
        let Ok(p) = result else { continue };
        accepted = true;
        let (w, h) = (p.grid.width(), p.grid.height());
        // The policy counts an empty side as 1 (its rows or columns still cost a step).
        if (w.max(1) as u64).checked_mul(h.max(1) as u64).is_none_or(|c| c > limits.max_cells)
            || Limits::board_bytes(w, h).is_none_or(|b| b > limits.max_bytes)
        {
            return Err(format!("{name} accepted a {w}x{h} board past {limits:?}"));
        }
        round_trip(&p, limits).map_err(|e| format!("{name}: {e}"))?;
        if t.elapsed() > Duration::from_secs(1) {
            return Err(format!("{name} and its round trip took {:?}", t.elapsed()));
        }
    }
    Ok(accepted)
}

/// `p` written as RLE (and plaintext) and read back must be `p` again.
fn round_trip(p: &Pattern, limits: &Limits) -> Result<(), String> {
    let loose = limits.with_max_bytes(u64::MAX);
    // The writer always states the rule; a pattern without one runs B3/S23.
    let rule = p.rule.unwrap_or_default();
    let rle = pattern::to_rle_with(&p.grid, p.name.as_deref(), &rule).map_err(|e| e.to_string())?;
    let back = pattern::parse_rle(&rle, &loose).map_err(|e| format!("its RLE is refused: {e}\n{rle}"))?;
    if (&back.grid, &back.name, back.rule) != (&p.grid, &p.name, Some(rule)) {
        return Err(format!("the RLE round trip differs:\n{rle}"));
    }
    if p.grid.width() > 0 && p.grid.height() > 0 {
        let cells = pattern::to_cells(&p.grid, p.name.as_deref()).map_err(|e| e.to_string())?;
        let back = pattern::parse_cells(&cells, &loose).map_err(|e| format!("its plaintext is refused: {e}"))?;
        if (&back.grid, &back.name) != (&p.grid, &p.name) {
            return Err(format!("the plaintext round trip differs:\n{cells}"));
        }
    }
    Ok(())
}

/// Hostile files (huge headers and counts) allocate nothing like their boards before being refused.
fn hostile_files_allocate_almost_nothing() {
    let mut long_cells = "\n".repeat(1 << 20);
    long_cells.push_str(&"O".repeat(1 << 20));
    let mut wide = String::from("x = 1048576, y = 2048\n");
    (0..2048).for_each(|_| wide.push_str("1048576o$"));
    for text in ["x = 1048576, y = 1048576\n!".to_string(), long_cells, wide] {
        let (r, peak) = peak_of(|| pattern::parse(&text, &Limits::DEFAULT));
        assert!(r.is_err(), "{:?}...", &text[..40]);
        assert!(peak < 64 << 10, "refusing {:?}... allocated {peak} bytes", &text[..40]);
    }
}

#[test]
fn fuzz_pattern_readers() {
    hostile_files_allocate_almost_nothing();
    let env = |name: &str, default: u64| std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    let (secs, seed) = (env("WARPWORK_FUZZ_SECS", 1), env("WARPWORK_FUZZ_SEED", 1));
    let corpus = corpus();
    let limits = [
        Limits::DEFAULT.with_max_cells(1 << 12).with_max_bytes(1 << 10),
        Limits::DEFAULT.with_max_cells(1 << 16).with_max_bytes(1 << 14),
    ];
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let t = Instant::now();
    let (mut inputs, mut accepted) = (0u64, 0u64);
    while t.elapsed() < Duration::from_secs(secs) {
        let mut text: Vec<char> = corpus[rng.below(corpus.len())].chars().collect();
        for _ in 0..1 + rng.below(4) {
            mutate(&mut rng, &mut text, &corpus);
        }
        let text: String = text.into_iter().collect();
        let limits = &limits[rng.below(limits.len())];
        match check(&text, limits) {
            Ok(a) => accepted += a as u64,
            Err(e) => panic!("seed {seed}, input {inputs}: {e}\ninput ({limits:?}): {text:?}"),
        }
        inputs += 1;
    }
    println!("pattern fuzz: {inputs} inputs in {secs} s (seed {seed}), {accepted} accepted by a reader");
    assert!(inputs > 0 || secs == 0);
}
