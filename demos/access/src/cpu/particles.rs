//! A particle update on the CPU: the reference for `Access::update_particles`.
//!
//! Each particle is a position and a velocity, four `f32`s each (`w` is carried unchanged); one
//! explicit Euler step under gravity, bouncing off the floor `y = 0`.

use rayon::prelude::*;

pub use crate::abi::particles::{Step, RESTITUTION};

/// One particle's step: `v += g·dt; p += v·dt`, then a bounce if `p.y < 0`. The GPU's
/// (`abi::particles::step`) is the same expression, written again here so that the
/// reference checks it rather than repeats it (the GPU may fuse the multiply-adds, so compare
/// with a tolerance).
#[inline]
pub fn step(pos: [f32; 4], vel: [f32; 4], s: &Step) -> ([f32; 4], [f32; 4]) {
    let (mut p, mut v) = (pos, vel);
    for k in 0..3 {
        v[k] += s.gravity[k] * s.dt;
        p[k] += v[k] * s.dt;
    }
    if p[1] < 0.0 {
        p[1] = -p[1];
        v[1] = -v[1] * RESTITUTION;
    }
    (p, v)
}

/// Steps every particle in place.
///
/// # Panics
/// If `pos` and `vel` differ in length (the GPU API returns an error instead).
pub fn update(pos: &mut [[f32; 4]], vel: &mut [[f32; 4]], s: Step) {
    assert_eq!(pos.len(), vel.len(), "positions and velocities differ in length");
    pos.par_iter_mut().zip(vel.par_iter_mut()).with_min_len(1 << 12).for_each(|(p, v)| {
        (*p, *v) = step(*p, *v, &s);
    });
}

/// `n` random particles: positions in a 100-unit cube above the floor (a few just below it, to
/// exercise the bounce), velocities in ±10, `w` = 1.
pub fn random(n: usize, seed: u64) -> (Vec<[f32; 4]>, Vec<[f32; 4]>) {
    use rand::Rng;
    let both = warpwork_cpu_reference::inputs::generate(n, seed, |r| {
        let p = [r.random_range(0.0..100.0), r.random_range(-1.0..100.0), r.random_range(0.0..100.0), 1.0];
        let v = [r.random_range(-10.0..10.0), r.random_range(-10.0..10.0), r.random_range(-10.0..10.0), 1.0];
        (p, v)
    });
    both.into_iter().unzip()
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Step = Step { dt: 0.01, gravity: [0.0, -9.81, 0.0] };

    #[test]
    fn empty_update_is_fine() {
        update(&mut [], &mut [], S);
    }

    #[test]
    fn parallel_matches_serial() {
        let (mut p, mut v) = random(100_003, 3);
        let (mut p2, mut v2) = (p.clone(), v.clone());
        update(&mut p, &mut v, S);
        for i in 0..p2.len() {
            (p2[i], v2[i]) = step(p2[i], v2[i], &S);
        }
        assert_eq!((p, v), (p2, v2));
    }

    #[test]
    fn falls_and_bounces() {
        let (p, v) = step([0.0, 1.0, 0.0, 7.0], [0.0, 0.0, 0.0, 3.0], &S);
        assert!(p[1] < 1.0 && v[1] < 0.0 && p[3] == 7.0 && v[3] == 3.0);
        let (p, v) = step([0.0, 0.0, 0.0, 1.0], [0.0, -10.0, 0.0, 1.0], &S);
        assert!(p[1] > 0.0 && v[1] > 0.0, "bounced: {p:?} {v:?}");
    }
}
