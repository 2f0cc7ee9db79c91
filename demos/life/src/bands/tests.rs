use super::*;
use crate::Error;

fn invalid(r: Result<Vec<Range<usize>>>, needle: &str) {
    match r {
        Err(Error::InvalidInput(m)) => assert!(m.contains(needle), "{m:?} does not say {needle:?}"),
        other => panic!("expected InvalidInput mentioning {needle:?}, got {other:?}"),
    }
}

#[test]
fn even_split_gives_the_first_ranks_the_remainder() {
    let p = Bands::new(Kernel::Naive1d64);
    assert_eq!(p.split(3, 10, 3).unwrap(), [0..4, 4..7, 7..10]);
    assert_eq!(p.split(3, 1, 1).unwrap(), vec![0..1]);
    assert_eq!(p.split(1, 9, 9).unwrap().len(), 9);
    let t8 = Bands::new(Kernel::Bit64T8);
    assert_eq!(t8.split(64, 17, 2).unwrap(), [0..9, 9..17]);
    assert_eq!(t8.with_halo(16).split(64, 33, 2).unwrap(), [0..17, 17..33]);
}

#[test]
fn given_heights_are_checked() {
    let p = Bands::new(Kernel::Tiled).with_heights(vec![1, 5, 2]);
    assert_eq!(p.split(9, 8, 3).unwrap(), [0..1, 1..6, 6..8]);
    invalid(p.split(9, 9, 3), "do not sum");
    invalid(p.split(9, 8, 2), "3 band heights given for 2 ranks");
    invalid(Bands::new(Kernel::Tiled).with_heights(vec![usize::MAX, 2]).split(9, 8, 2), "do not sum");
    invalid(Bands::new(Kernel::Tiled).with_heights(vec![0, 8]).split(9, 8, 2), "band 0 of 0 rows");
}

#[test]
fn halos_must_fit_the_kernel_and_the_bands() {
    invalid(Bands::new(Kernel::Bit64T8).split(64, 15, 2), "band 1 of 7 rows is shorter than the 8-row halo");
    invalid(Bands::new(Kernel::Bit64T4).with_halo(6).split(64, 64, 2), "multiple of its 4 generations");
    invalid(Bands::new(Kernel::Byte).with_halo(0).split(64, 64, 2), "halo of 0 rows");
    invalid(Bands::new(Kernel::Sparse).with_halo(3).split(64, 64, 2), "sparse runs bands with a halo of 1 row");
    assert!(Bands::new(Kernel::Sparse).split(5, 5, 5).is_ok());
    assert!(Bands::new(Kernel::Byte).with_halo(5).split(7, 10, 2).is_ok());
    invalid(Bands::new(Kernel::Byte).with_halo(usize::MAX).split(7, 10, 2), "");
}

#[test]
fn boards_and_ranks_must_exist_and_fit_the_kernel() {
    invalid(Bands::new(Kernel::Tiled).split(8, 8, 0), "at least one rank");
    invalid(Bands::new(Kernel::Tiled).split(0, 8, 1), "at least 1x1");
    invalid(Bands::new(Kernel::Tiled).split(8, 0, 1), "at least 1x1");
    invalid(Bands::new(Kernel::Bit32).split(48, 8, 1), "multiple of 32");
    // A band's board includes its halos: 65535 block rows of 16 are 1048560 rows in all.
    let tall = 1_048_560;
    assert!(Bands::new(Kernel::Naive2d16x16).split(16, tall - 2, 1).is_ok());
    assert!(matches!(Bands::new(Kernel::Naive2d16x16).split(16, tall - 1, 1), Err(Error::CapacityExceeded { .. })));
    assert!(Bands::new(Kernel::Naive2d16x16).split(16, 2 * tall - 4, 2).is_ok());
}
