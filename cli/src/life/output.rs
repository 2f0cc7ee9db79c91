//! The output files of `warpwork life`: opened before the run, written after it.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Seek, Write};
use std::path::{Path, PathBuf};
use warpwork::{Error, Result};
use warpwork_life::{pattern::without_controls, BitGrid};

/// An output file opened for writing before the run, so that a path that cannot be written is
/// an error before any work. A file created here and never written (the run failed) is removed
/// again; an existing file is only truncated when its new content is written.
pub struct Output {
    path: PathBuf,
    /// The path without control characters, for messages.
    shown: String,
    file: File,
    created: bool,
    written: bool,
}

/// An I/O error on the file `shown` as an error of the CLI (out of memory stays out of memory).
fn io_error(shown: &str, e: io::Error) -> Error {
    match e.kind() {
        io::ErrorKind::OutOfMemory => Error::OutOfMemory { what: "output file", bytes: 0 },
        _ => Error::InvalidInput(format!("{shown}: {e}")),
    }
}

impl Output {
    /// Opens (creating if needed, without truncating) `path` for the option `flag`.
    pub fn prepare(path: &Path, flag: &str) -> Result<Output> {
        let shown = without_controls(&path.display().to_string());
        if path.is_dir() {
            return Err(Error::InvalidInput(format!("{flag} {shown}: is a directory")));
        }
        let created = !path.exists();
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| Error::InvalidInput(format!("{flag} {shown}: cannot be written: {e}")))?;
        Ok(Output { path: path.to_path_buf(), shown, file, created, written: false })
    }

    /// The path without control characters, for messages.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Whether two outputs are the same file (compared after both were opened).
    pub fn same_file(&self, other: &Output) -> bool {
        match (std::fs::canonicalize(&self.path), std::fs::canonicalize(&other.path)) {
            (Ok(a), Ok(b)) => a == b,
            _ => self.path == other.path,
        }
    }

    /// Replaces the file's content with what `write` produces.
    pub fn write(mut self, write: impl FnOnce(&mut BufWriter<&File>) -> io::Result<()>) -> Result<()> {
        let err = |e| io_error(&self.shown, e);
        // Only regular files can be truncated (`/dev/null` and pipes are written as they are).
        if self.file.metadata().map_err(err)?.is_file() {
            self.file.set_len(0).map_err(err)?;
            self.file.rewind().map_err(err)?;
        }
        let mut out = BufWriter::new(&self.file);
        write(&mut out).map_err(err)?;
        out.flush().map_err(err)?;
        drop(out);
        self.written = true;
        Ok(())
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if self.created && !self.written {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The part of the board a PNG shows and its pixels per cell, checked against the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PngView {
    /// Left column.
    pub x: usize,
    /// Top row.
    pub y: usize,
    /// Columns shown.
    pub width: usize,
    /// Rows shown.
    pub height: usize,
    /// Pixels per cell.
    pub scale: usize,
}

/// Largest PNG side in pixels.
pub const MAX_PNG_SIDE: usize = 1 << 16;

impl PngView {
    /// The view of `window = (x, y, w, h)` (default: the whole board up to 4096×4096, else its
    /// centre) at `scale` pixels per cell (default: enough to make small boards ≥ 512 pixels)
    /// of a `board_w × board_h` board. Every product and sum is checked.
    pub fn new(
        window: Option<(usize, usize, usize, usize)>,
        scale: Option<usize>,
        board: (usize, usize),
    ) -> Result<Self> {
        let (bw, bh) = board;
        let (x, y, width, height) = window.unwrap_or_else(|| {
            let (ww, wh) = (bw.min(4096), bh.min(4096));
            ((bw - ww) / 2, (bh - wh) / 2, ww, wh)
        });
        let inside = |at: usize, len: usize, size: usize| len >= 1 && at.checked_add(len).is_some_and(|e| e <= size);
        if !inside(x, width, bw) || !inside(y, height, bh) {
            return Err(Error::InvalidInput(format!(
                "--window {width}x{height} at ({x}, {y}) is not a non-empty part of the {bw}x{bh} board"
            )));
        }
        let scale = scale.unwrap_or_else(|| (512 / width.max(height)).clamp(1, 16));
        let pixels = |cells: usize| cells.checked_mul(scale).filter(|&p| p <= MAX_PNG_SIDE);
        match (scale, pixels(width), pixels(height)) {
            (1.., Some(_), Some(_)) => Ok(PngView { x, y, width, height, scale }),
            (0, ..) => Err(Error::InvalidInput("--scale must be at least 1".into())),
            _ => Err(Error::InvalidInput(format!(
                "a {width}x{height} window at --scale {scale} is over {MAX_PNG_SIDE} pixels a side: choose a smaller --window or --scale"
            ))),
        }
    }
}

/// Writes `view` of `g` as a 1-bit grayscale PNG (live cells black).
pub fn write_png(g: &BitGrid, view: PngView, out: &mut impl Write) -> io::Result<()> {
    let (pw, ph) = (view.width * view.scale, view.height * view.scale);
    let mut enc = png::Encoder::new(out, pw as u32, ph as u32);
    enc.set_color(png::ColorType::Grayscale);
    enc.set_depth(png::BitDepth::One);
    let mut writer = enc.write_header().map_err(io::Error::other)?;
    let stride = pw.div_ceil(8);
    let mut data = Vec::new();
    data.try_reserve_exact(stride * ph).map_err(|_| io::Error::from(io::ErrorKind::OutOfMemory))?;
    data.resize(stride * ph, 0xffu8);
    for y in 0..view.height {
        for x in 0..view.width {
            if g.get(view.x + x, view.y + y) {
                for sy in 0..view.scale {
                    let row = &mut data[(y * view.scale + sy) * stride..];
                    for sx in 0..view.scale {
                        let px = x * view.scale + sx;
                        row[px / 8] &= !(0x80 >> (px % 8));
                    }
                }
            }
        }
    }
    writer.write_image_data(&data).map_err(io::Error::other)?;
    writer.finish().map_err(io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_views_refuse_overflow_and_outside_windows() {
        let board = (4096, 64);
        assert_eq!(PngView::new(None, None, board).unwrap(), PngView { x: 0, y: 0, width: 4096, height: 64, scale: 1 });
        assert_eq!(PngView::new(None, None, (10, 10)).unwrap().scale, 16);
        for (window, scale) in [
            (Some((usize::MAX, 0, 1, 1)), None),
            (Some((0, 0, usize::MAX, 1)), None),
            (Some((4095, 0, 2, 1)), None),
            (Some((0, 0, 0, 1)), None),
            (None, Some(2305843009213693953)),
            (None, Some(usize::MAX)),
            (None, Some(0)),
            (Some((0, 0, 4096, 64)), Some(17)),
        ] {
            assert!(matches!(PngView::new(window, scale, board), Err(Error::InvalidInput(_))), "{window:?} {scale:?}");
        }
        assert!(PngView::new(Some((4095, 63, 1, 1)), Some(MAX_PNG_SIDE), board).is_ok());
    }

    #[test]
    fn an_output_created_for_a_failed_run_is_removed_an_existing_one_kept() {
        let dir = std::env::temp_dir().join(format!("warpwork-output-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fresh = dir.join("fresh.rle");
        drop(Output::prepare(&fresh, "--rle").unwrap());
        assert!(!fresh.exists());
        let kept = dir.join("kept.rle");
        std::fs::write(&kept, "old").unwrap();
        drop(Output::prepare(&kept, "--rle").unwrap());
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), "old");
        Output::prepare(&kept, "--rle").unwrap().write(|w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), "new");
        assert!(Output::prepare(&dir, "--png").is_err());
        assert!(Output::prepare(&dir.join("missing/x.png"), "--png").is_err());
        let (a, b) =
            (Output::prepare(&kept, "--png").unwrap(), Output::prepare(&dir.join("./kept.rle"), "--rle").unwrap());
        assert!(a.same_file(&b));
        drop((a, b));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
