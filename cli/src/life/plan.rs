//! Everything `warpwork life` checks before it does any work: option values (sizes, offsets,
//! products), the kernel, the limits, the output files, and the pattern file's size.

use super::output::{Output, PngView};
use super::LifeArgs;
use std::io::Read;
use warpwork::{Error, Result};
use warpwork_life::pattern::{self, without_controls};
use warpwork_life::{BitGrid, Kernel, Limits};

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
}

/// The numeric options and the kernel, checked without touching a file or a GPU.
pub fn check_options(args: &LifeArgs) -> Result<(Limits, Option<Kernel>, Option<PngView>)> {
    let limits = Limits::DEFAULT.with_max_cells(args.max_cells).with_max_bytes(args.max_bytes);
    let (w, h) = args.size;
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
    /// Checks the options, then opens the output files.
    pub fn new(args: &LifeArgs) -> Result<Plan> {
        let (limits, kernel, view) = check_options(args)?;
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
        Ok(Plan { limits, width: args.size.0, height: args.size.1, kernel, png, rle })
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

    /// The starting board: `pattern` (a built-in name or a file, read within the limits)
    /// centred, or a random soup. Returns the board and a printable name.
    pub fn start(&self, args: &LifeArgs) -> Result<(BitGrid, String)> {
        let mut board = BitGrid::with_limits(self.width, self.height, &self.limits)?;
        let Some(p) = &args.pattern else {
            board.fill_random(args.density, args.seed)?;
            return Ok((board, format!("random soup, density {}", args.density)));
        };
        let shown = without_controls(p);
        let text = match pattern::builtin(p) {
            Some(t) => t.to_string(),
            None => read_text(p, &self.limits)
                .map_err(|e| with_context(e, &format!("{shown} (and not a built-in pattern name)")))?,
        };
        let pat = pattern::parse(&text, &self.limits).map_err(|e| with_context(e.into(), &shown))?;
        board.paste_centred(&pat.grid).map_err(|e| with_context(e, &shown))?;
        Ok((board, pat.name.unwrap_or(shown)))
    }
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

    fn refused(line: &[&str]) -> Error {
        match check_options(&args(line)) {
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
        assert!(check_options(&args(&[
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
        let (_, k, _) = check_options(&args(&["--kernel", "byte"])).unwrap();
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
        let (_, _, view) = check_options(&args(&["--png", "x.png", "--size", "64x64", "--scale", "2"])).unwrap();
        assert_eq!(view.unwrap().scale, 2);
    }

    #[test]
    fn density_is_checked_only_for_random_soups() {
        refused(&["--density", "NaN"]);
        refused(&["--density", "1.5"]);
        assert!(check_options(&args(&["glider", "--density", "7"])).is_ok());
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
        };
        assert_eq!(plan(4096, 4096).gpu_kernel().unwrap(), Kernel::FASTEST);
        assert_eq!(plan(96, 10).gpu_kernel().unwrap(), Kernel::Bit32);
        assert_eq!(plan(100, 10).gpu_kernel().unwrap(), Kernel::Tiled);
        assert_eq!(plan((1 << 31) + 1, 1).gpu_kernel().unwrap(), Kernel::Naive1d256);
        assert_eq!(plan(100, 65535 * 16 + 1).gpu_kernel().unwrap(), Kernel::Naive1d256);
        assert!(plan(1 << 33, 1).gpu_kernel().is_err());
    }

    #[test]
    fn pattern_files_are_read_within_the_limits() {
        let dir = std::env::temp_dir().join(format!("warpwork-plan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("big.rle");
        std::fs::write(&path, "x = 1048576, y = 1048576\n!").unwrap();
        let p = path.to_str().unwrap();
        let plan = Plan::new(&args(&[p, "--size", "16x16"])).unwrap();
        assert!(matches!(plan.start(&args(&[p])), Err(Error::LimitExceeded { .. })));
        let small = Limits::DEFAULT.with_max_cells(1 << 36).with_max_bytes(10);
        assert!(matches!(read_text(p, &small), Err(Error::LimitExceeded { needed: 26, .. })));
        assert!(read_text(dir.to_str().unwrap(), &Limits::DEFAULT).is_err());
        std::fs::write(&path, "#N \u{1b}[31mred\nx = 3, y = 1\n3o!").unwrap();
        let (board, name) = plan.start(&args(&[p])).unwrap();
        assert_eq!((board.population(), name.as_str()), (3, "[31mred"));
        std::fs::write(&path, "x = 20, y = 1\n20o!").unwrap();
        assert!(matches!(plan.start(&args(&[p])), Err(Error::InvalidInput(m)) if m.contains("does not fit")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
