//! Everything `warpwork life` checks before it does any work: option values (sizes, offsets,
//! products), the kernel, the limits, the output files, and the pattern file's size.

use super::output::{Output, PngView};
use super::LifeArgs;
use std::io::Read;
use warpwork::{Error, Result};
use warpwork_life::pattern::{self, without_controls, Pattern};
use warpwork_life::{BitGrid, Kernel, Limits, RuleSpec};

/// The board when neither `--size` nor a torus suffix of the rule gives one.
pub const DEFAULT_SIZE: (usize, usize) = (2048, 2048);

/// `WxH`, two sizes (range checks come later, with typed errors).
pub fn parse_size(s: &str) -> std::result::Result<(usize, usize), String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("{s:?}: expected WxH, e.g. 1024x768"))?;
    let p = |v: &str| v.trim().parse::<usize>().map_err(|e| format!("{v:?} in {s:?}: {e}"));
    Ok((p(w)?, p(h)?))
}

/// `X,Y,WxH`.
pub fn parse_window(s: &str) -> std::result::Result<(usize, usize, usize, usize), String> {
    let mut parts = s.splitn(3, ',');
    let (x, y, size) = match (parts.next(), parts.next(), parts.next()) {
        (Some(x), Some(y), Some(size)) => (x, y, size),
        _ => return Err(format!("{s:?}: expected X,Y,WxH")),
    };
    let p = |v: &str| v.trim().parse::<usize>().map_err(|e| format!("{v:?} in {s:?}: {e}"));
    let (w, h) = parse_size(size)?;
    Ok((p(x)?, p(y)?, w, h))
}

/// What to run, checked: built by [`Plan::new`] before any work.
pub struct Plan {
    /// The size limits in force.
    pub limits: Limits,
    /// Board width.
    pub width: usize,
    /// Board height.
    pub height: usize,
    /// The kernel asked for (`None`: pick one that fits once a GPU is known).
    pub kernel: Option<Kernel>,
    /// The PNG to write and what it shows.
    pub png: Option<(Output, PngView)>,
    /// The RLE file to write.
    pub rle: Option<Output>,
    /// The rule that runs: `--rule`, else the pattern file's, else B3/S23; its torus is the
    /// board (`width × height`).
    pub rule: RuleSpec,
    /// The pattern (read, within the limits), and a printable name for it.
    pub pattern: Option<(Pattern, String)>,
}

/// The limits the options ask for.
pub fn limits(args: &LifeArgs) -> Limits {
    Limits::DEFAULT.with_max_cells(args.max_cells).with_max_bytes(args.max_bytes)
}

/// The rule and the board size: `--rule` wins over the pattern's rule, a torus suffix (of
/// `--rule`, else of the pattern's rule) gives the size, and an explicit `--size` that differs
/// from it is an error (the pattern's behaviour depends on the torus it was made for).
pub fn rule_and_size(args: &LifeArgs, from_pattern: Option<RuleSpec>) -> Result<(RuleSpec, (usize, usize))> {
    let given = args.rule.as_deref().map(str::parse::<RuleSpec>).transpose()?;
    let rule = given.map_or_else(|| from_pattern.unwrap_or_default().rule, |g| g.rule);
    let torus = given.and_then(|g| g.torus).or(from_pattern.and_then(|p| p.torus));
    let size = match (args.size, torus) {
        (Some(s), Some(t)) if s != t => {
            return Err(Error::InvalidInput(format!(
                "--size {}x{} differs from the rule's torus :T{},{} (leave out --size, or change the rule's suffix)",
                s.0, s.1, t.0, t.1
            )))
        }
        (Some(s), _) => s,
        (None, Some(t)) => t,
        (None, None) => DEFAULT_SIZE,
    };
    Ok((RuleSpec { rule, torus: Some(size) }, size))
}

/// The numeric options and the kernel for a `size` board, checked without touching a file or a
/// GPU.
pub fn check_options(args: &LifeArgs, size: (usize, usize)) -> Result<(Limits, Option<Kernel>, Option<PngView>)> {
    let limits = limits(args);
    let (w, h) = size;
    if w == 0 || h == 0 {
        return Err(Error::InvalidInput(format!("--size {w}x{h}: a board needs at least 1x1 cells")));
    }
    limits.check_board(w, h)?;
    let kernel = match args.kernel.as_str() {
        "auto" => None,
        name => {
            let k: Kernel = name.parse()?;
            k.check_size(w, h)?;
            Some(k)
        }
    };
    if args.pattern.is_none() && !(0.0..=1.0).contains(&args.density) {
        return Err(Error::InvalidInput(format!("--density {} is not in 0..=1", args.density)));
    }
    let view = match (&args.png, args.window, args.scale) {
        (Some(_), window, scale) => Some(PngView::new(window, scale, (w, h))?),
        (None, None, None) => None,
        (None, ..) => return Err(Error::InvalidInput("--window and --scale only apply with --png".into())),
    };
    Ok((limits, kernel, view))
}

impl Plan {
    /// Reads the pattern (within the limits), decides the rule and the size, checks the
    /// options, then opens the output files.
    pub fn new(args: &LifeArgs) -> Result<Plan> {
        let pattern = read_pattern(args, &limits(args))?;
        let (rule, size) = rule_and_size(args, pattern.as_ref().and_then(|(p, _)| p.rule))?;
        let (limits, kernel, view) = check_options(args, size)?;
        let png = match (&args.png, view) {
            (Some(path), Some(view)) => Some((Output::prepare(path, "--png")?, view)),
            _ => None,
        };
        let rle = args.rle.as_deref().map(|p| Output::prepare(p, "--rle")).transpose()?;
        if let (Some((png, _)), Some(rle)) = (&png, &rle) {
            if png.same_file(rle) {
                return Err(Error::InvalidInput(format!("--png and --rle name the same file ({})", png.shown())));
            }
        }
        Ok(Plan { limits, width: size.0, height: size.1, kernel, png, rle, rule, pattern })
    }

    /// The kernel to run on a GPU: the one asked for, or the fastest that takes the board.
    pub fn gpu_kernel(&self) -> Result<Kernel> {
        if let Some(k) = self.kernel {
            return Ok(k);
        }
        let (w, h) = (self.width, self.height);
        let candidates = [
            (w % 64 == 0).then_some(Kernel::FASTEST),
            (w % 32 == 0).then_some(Kernel::Bit32),
            Some(Kernel::Tiled),
            Some(Kernel::Naive1d256),
        ];
        let mut last = None;
        for k in candidates.into_iter().flatten() {
            match k.check_size(w, h) {
                Ok(()) => return Ok(k),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| Error::InvalidInput(format!("no Life kernel takes a {w}x{h} board"))))
    }

    /// The starting board: the pattern centred, or a random soup. Returns the board and a
    /// printable name.
    pub fn start(&self, args: &LifeArgs) -> Result<(BitGrid, String)> {
        let mut board = BitGrid::with_limits(self.width, self.height, &self.limits)?;
        let Some((pat, shown)) = &self.pattern else {
            board.fill_random(args.density, args.seed)?;
            return Ok((board, format!("random soup, density {}", args.density)));
        };
        board.paste_centred(&pat.grid).map_err(|e| with_context(e, shown))?;
        Ok((board, pat.name.clone().unwrap_or_else(|| shown.clone())))
    }
}

/// The pattern of `args` (a built-in name or a file, read within `limits`) and its printable
/// name, or `None` for a random soup.
fn read_pattern(args: &LifeArgs, limits: &Limits) -> Result<Option<(Pattern, String)>> {
    let Some(p) = &args.pattern else { return Ok(None) };
    let shown = without_controls(p);
    let text = match pattern::builtin(p) {
        Some(t) => t.to_string(),
        None => {
            read_text(p, limits).map_err(|e| with_context(e, &format!("{shown} (and not a built-in pattern name)")))?
        }
    };
    let pat = pattern::parse(&text, limits).map_err(|e| with_context(e.into(), &shown))?;
    Ok(Some((pat, shown)))
}

/// `e` with `what` in front of its message, where it has one.
fn with_context(e: Error, what: &str) -> Error {
    match e {
        Error::InvalidInput(m) => Error::InvalidInput(format!("{what}: {m}")),
        other => other,
    }
}

/// A pattern file's text, at most `limits.max_bytes` long (checked on its size first, then
/// while reading, for files whose size is unknown).
fn read_text(path: &str, limits: &Limits) -> Result<String> {
    let io = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::OutOfMemory => Error::OutOfMemory { what: "pattern file", bytes: 0 },
        _ => Error::InvalidInput(e.to_string()),
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if meta.is_dir() {
        return Err(Error::InvalidInput("is a directory".into()));
    }
    limits.check_text(meta.len())?;
    let mut text = String::new();
    file.take(limits.max_bytes.saturating_add(1)).read_to_string(&mut text).map_err(io)?;
    limits.check_text(text.len() as u64)?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        life: LifeArgs,
    }

    fn args(line: &[&str]) -> LifeArgs {
        Cli::try_parse_from(std::iter::once("life").chain(line.iter().copied())).unwrap().life
    }

    fn check(a: &LifeArgs) -> Result<(Limits, Option<Kernel>, Option<PngView>)> {
        check_options(a, rule_and_size(a, None)?.1)
    }

    fn refused(line: &[&str]) -> Error {
        match check(&args(line)) {
            Err(e) => e,
            Ok(_) => panic!("{line:?} should be refused"),
        }
    }

    #[test]
    fn sizes_and_limits_are_checked_up_front() {
        assert!(matches!(refused(&["--size", "18446744073709551615x64"]), Error::LimitExceeded { .. }));
        assert!(matches!(refused(&["--size", "2147483648x2147483648"]), Error::LimitExceeded { .. }));
        assert!(matches!(refused(&["--size", "0x5"]), Error::InvalidInput(_)));
        assert!(matches!(refused(&["--size", "4x4", "--max-cells", "15"]), Error::LimitExceeded { .. }));
        assert!(matches!(refused(&["--size", "1x1048576", "--max-bytes", "1000"]), Error::LimitExceeded { .. }));
        assert!(check(&args(&[
            "--size",
            "524288x262144",
            "--max-cells",
            "137438953472",
            "--max-bytes",
            "17179869184"
        ]))
        .is_ok());
        assert!(parse_size("18446744073709551616x1").is_err() && parse_size("-1x1").is_err());
    }

    #[test]
    fn kernels_are_checked_without_a_gpu() {
        assert!(matches!(refused(&["--kernel", "nope"]), Error::InvalidInput(m) if m.contains("bit64")));
        assert!(matches!(refused(&["--kernel", "bit64", "--size", "100x100"]), Error::InvalidInput(_)));
        assert!(matches!(refused(&["--kernel", "tiled", "--size", "2147483648x1"]), Error::CapacityExceeded { .. }));
        let (_, k, _) = check(&args(&["--kernel", "byte"])).unwrap();
        assert_eq!(k, Some(Kernel::Byte));
    }

    #[test]
    fn png_options_are_checked_up_front() {
        assert!(matches!(refused(&["--window", "18446744073709551615,0,1x1"]), Error::InvalidInput(_)));
        for bad in [
            &["--png", "x.png", "--window", "18446744073709551615,0,1x1"][..],
            &["--png", "x.png", "--scale", "2305843009213693953"],
            &["--png", "x.png", "--size", "18446744073709551615x64"],
            &["--png", "x.png", "--window", "0,0,0x0"],
        ] {
            refused(bad);
        }
        let (_, _, view) = check(&args(&["--png", "x.png", "--size", "64x64", "--scale", "2"])).unwrap();
        assert_eq!(view.unwrap().scale, 2);
    }

    #[test]
    fn density_is_checked_only_for_random_soups() {
        refused(&["--density", "NaN"]);
        refused(&["--density", "1.5"]);
        assert!(check(&args(&["glider", "--density", "7"])).is_ok());
    }

    #[test]
    fn auto_picks_a_kernel_that_can_index_the_board() {
        let plan = |w: usize, h: usize| Plan {
            limits: Limits::DEFAULT,
            width: w,
            height: h,
            kernel: None,
            png: None,
            rle: None,
            rule: RuleSpec::default(),
            pattern: None,
        };
        assert_eq!(plan(4096, 4096).gpu_kernel().unwrap(), Kernel::FASTEST);
        assert_eq!(plan(96, 10).gpu_kernel().unwrap(), Kernel::Bit32);
        assert_eq!(plan(100, 10).gpu_kernel().unwrap(), Kernel::Tiled);
        assert_eq!(plan((1 << 31) + 1, 1).gpu_kernel().unwrap(), Kernel::Naive1d256);
        assert_eq!(plan(100, 65535 * 16 + 1).gpu_kernel().unwrap(), Kernel::Naive1d256);
        assert!(plan(1 << 33, 1).gpu_kernel().is_err());
    }

    #[test]
    fn the_rule_and_its_torus_decide_the_board() {
        let highlife = || RuleSpec::parse("B36/S23:T7,5").unwrap();
        let (rule, size) = rule_and_size(&args(&[]), Some(highlife())).unwrap();
        assert_eq!((rule.to_string(), size), ("B36/S23:T7,5".into(), (7, 5)));
        let (rule, size) = rule_and_size(&args(&["--rule", "b2s"]), Some(highlife())).unwrap();
        assert_eq!((rule.to_string(), size), ("B2/S:T7,5".into(), (7, 5)), "--rule keeps the pattern's torus");
        let (_, size) = rule_and_size(&args(&["--rule", "B2/S:T9,9"]), Some(highlife())).unwrap();
        assert_eq!(size, (9, 9));
        assert!(rule_and_size(&args(&["--size", "7x5"]), Some(highlife())).is_ok());
        let e = rule_and_size(&args(&["--size", "8x5"]), Some(highlife())).unwrap_err();
        assert!(matches!(e, Error::InvalidInput(m) if m.contains(":T7,5")));
        assert_eq!(rule_and_size(&args(&[]), None).unwrap().1, DEFAULT_SIZE);
        assert!(matches!(refused(&["--rule", "B3/S23:K4,4"]), Error::InvalidInput(m) if m.contains("Klein")));
    }

    #[test]
    fn pattern_files_are_read_within_the_limits() {
        let dir = std::env::temp_dir().join(format!("warpwork-plan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("big.rle");
        std::fs::write(&path, "x = 1048576, y = 1048576\n!").unwrap();
        let p = path.to_str().unwrap();
        assert!(matches!(Plan::new(&args(&[p, "--size", "16x16"])), Err(Error::LimitExceeded { .. })));
        let small = Limits::DEFAULT.with_max_cells(1 << 36).with_max_bytes(10);
        assert!(matches!(read_text(p, &small), Err(Error::LimitExceeded { needed: 26, .. })));
        assert!(read_text(dir.to_str().unwrap(), &Limits::DEFAULT).is_err());
        std::fs::write(&path, "#N \u{1b}[31mred\nx = 3, y = 1\n3o!").unwrap();
        let a = args(&[p, "--size", "16x16"]);
        let (board, name) = Plan::new(&a).unwrap().start(&a).unwrap();
        assert_eq!((board.population(), name.as_str()), (3, "[31mred"));
        std::fs::write(&path, "x = 20, y = 1\n20o!").unwrap();
        let a = args(&[p, "--size", "16x16"]);
        assert!(matches!(Plan::new(&a).unwrap().start(&a), Err(Error::InvalidInput(m)) if m.contains("does not fit")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
