//! `warpwork life` on Life-like rules, checked against facts LifeWiki states about them, through
//! the real binary on the CPU reference (`--cpu`: no GPU needed; the GPU suite checks every
//! kernel against the same reference). Also the rule's sources (header, `--rule`), Golly's torus
//! suffix, the refused topologies and the rule written to the output RLE.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use warpwork_life::{pattern, BitGrid, Limits};

fn warpwork(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpwork")).arg("life").args(args).output().expect("run warpwork")
}

/// Runs `args` on the CPU reference, expects success, returns stdout.
fn ok(args: &[&str]) -> String {
    let out = warpwork(&[&["--cpu"], args].concat());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Expects a refusal (status 1, `error: ...`) mentioning `needle`.
fn refused(args: &[&str], needle: &str) {
    let out = warpwork(&[&["--cpu"], args].concat());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
    assert!(
        stderr.starts_with("error: ") && stderr.contains(needle) && !stderr.contains("panicked"),
        "{args:?}: {stderr}"
    );
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("warpwork-cli-rules-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The population `warpwork life` reports at the end.
fn final_population(stdout: &str) -> u64 {
    let tail = stdout.split("final population ").nth(1).unwrap_or_else(|| panic!("no population in {stdout}"));
    tail.split_whitespace().next().unwrap().parse().unwrap()
}

/// Runs `pattern` for `gens` generations, writes RLE, returns the header line and the board.
fn run_to_rle(dir: &Path, pattern: &str, extra: &[&str], gens: u64) -> (String, BitGrid) {
    let out = dir.join(format!("out{gens}.rle"));
    let g = gens.to_string();
    ok(&[&[pattern, "-g", &g, "--rle", s(&out)], extra].concat());
    let text = std::fs::read_to_string(&out).unwrap();
    let header = text.lines().find(|l| l.starts_with("x =")).unwrap().to_string();
    (header, pattern::parse(&text, &Limits::DEFAULT).unwrap().grid)
}

/// LifeWiki, "Replicator" in HighLife: this 12-cell pattern makes two copies of itself, on a
/// diagonal, 12 generations later (and the original is gone). From the header's rule.
#[test]
fn highlife_replicator_makes_two_copies_in_12_generations() {
    let d = scratch("highlife");
    let file = d.join("replicator.rle");
    let rle = "x = 5, y = 5, rule = B36/S23\n2b3o$bo2bo$o3bo$o2bo$3o!";
    std::fs::write(&file, rle).unwrap();
    let replicator = pattern::parse(rle, &Limits::DEFAULT).unwrap().grid;
    let (header, board) = run_to_rle(&d, s(&file), &["--size", "32x32"], 12);
    assert_eq!(header, "x = 32, y = 32, rule = B36/S23:T32,32", "the rule that ran, and its torus");
    // Centred at (13, 13); the copies sit 2 cells up-left and 2 cells down-right of it.
    let mut want = pattern::place(&replicator, 32, 32, 11, 11).unwrap();
    let other = pattern::place(&replicator, 32, 32, 15, 15).unwrap();
    for y in 0..32 {
        for x in 0..32 {
            if other.get(x, y) {
                want.set(x, y, true);
            }
        }
    }
    assert_eq!(board, want, "two copies of the replicator");
    // Under B3/S23 (`--rule` overrides the header) the same cells do something else.
    let (header, board) = run_to_rle(&d, s(&file), &["--size", "32x32", "--rule", "23/3"], 12);
    assert_eq!(header, "x = 32, y = 32, rule = B3/S23:T32,32");
    assert_ne!(board, want);
    std::fs::remove_dir_all(&d).unwrap();
}

/// Day & Night: the skewed tetromino (`2o$b2o`) flips into its mirror image and back, a period-2
/// oscillator (checked with the CPU reference, and by hand: the two end cells have 2 neighbours
/// and die, the two middle ones have 3 and stay, the two cells beside them have 3 and are born).
/// Run from a `.cells` file with `--rule`, in the B/S notation without the slash.
#[test]
fn day_and_night_tetromino_has_period_2() {
    let d = scratch("daynight");
    let file = d.join("z.cells");
    std::fs::write(&file, "OO.\n.OO\n").unwrap();
    let (_, start) = run_to_rle(&d, s(&file), &["--size", "9x7", "--rule", "b3678s34678"], 0);
    let (header, one) = run_to_rle(&d, s(&file), &["--size", "9x7", "--rule", "b3678s34678"], 1);
    let (_, two) = run_to_rle(&d, s(&file), &["--size", "9x7", "--rule", "b3678s34678"], 2);
    assert_eq!(header, "x = 9, y = 7, rule = B3678/S34678:T9,7");
    assert_ne!(one, start);
    assert_eq!(one.population(), 4);
    assert_eq!(two, start, "period 2");
    std::fs::remove_dir_all(&d).unwrap();
}

/// Seeds (B2/S): every live cell dies each generation, and a domino still grows: 2, 4, 6, 8, 14
/// live cells in generations 0 to 4 (Seeds is LifeWiki's example of an explosive rule; the
/// counts are the CPU reference's, and by hand for generations 1 and 2).
#[test]
fn seeds_domino_grows() {
    let d = scratch("seeds");
    let file = d.join("domino.rle");
    std::fs::write(&file, "x = 2, y = 1, rule = B2/S\n2o!").unwrap();
    let pops: Vec<u64> =
        (0..5).map(|g| final_population(&ok(&[s(&file), "--size", "63x61", "-g", &g.to_string()]))).collect();
    assert_eq!(pops, [2, 4, 6, 8, 14]);
    std::fs::remove_dir_all(&d).unwrap();
}

/// Life without death (B3/S012345678): no cell ever dies, so a random soup only grows.
#[test]
fn life_without_death_never_loses_a_cell() {
    let mut last = 0;
    for g in [0, 1, 5, 20] {
        let p = final_population(&ok(&["--rule", "B3/S012345678", "--size", "65x33", "-g", &g.to_string()]));
        assert!(p >= last, "generation {g}: {p} < {last}");
        last = p;
    }
}

/// B0 runs exactly on the torus: an empty board under B0/S8 is full after one generation.
#[test]
fn b0_fills_an_empty_torus() {
    let out = ok(&["--rule", "B0/S8", "--size", "7x5", "--density", "0", "-g", "1"]);
    assert_eq!(final_population(&out), 35);
    assert!(out.contains("rule B0/S8"), "{out}");
}

/// Golly's torus suffix gives the board size; an explicit `--size` must agree with it; other
/// topologies are refused by name.
#[test]
fn torus_suffix_sets_the_board_and_other_topologies_are_refused() {
    let d = scratch("torus");
    let file = d.join("t.rle");
    std::fs::write(&file, "x = 3, y = 1, rule = B3/S23:T7,5\n3o!").unwrap();
    let out = ok(&[s(&file), "-g", "2"]);
    assert!(out.contains("on a 7x5 torus, rule B3/S23,"), "{out}");
    assert!(ok(&[s(&file), "-g", "2", "--size", "7x5"]).contains("7x5 torus"));
    refused(&[s(&file), "--size", "8x5"], ":T7,5");
    assert!(ok(&["--rule", "B36/S23:T9,9", s(&file), "-g", "1"]).contains("on a 9x9 torus, rule B36/S23,"));
    for (rule, name) in [
        ("B3/S23:P30,20", "plane"),
        ("B3/S23:K30*,20", "Klein bottle"),
        ("B3/S23:C30,20", "cross-surface"),
        ("B3/S23:S30", "sphere"),
        ("B3/S23:T30+5,20", "shifted"),
        ("B3/S23:T0,20", "tube"),
    ] {
        refused(&["--rule", rule, "glider"], name);
        std::fs::write(&file, format!("x = 3, y = 1, rule = {rule}\n3o!")).unwrap();
        refused(&[s(&file)], name);
    }
    refused(&["--rule", "B3/S23V", "glider"], "'V'");
    std::fs::remove_dir_all(&d).unwrap();
}
