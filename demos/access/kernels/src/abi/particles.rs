//! The particle update of the list-partitioning comparison: one explicit Euler step under
//! gravity, bouncing off the floor `y = 0`.

/// Threads per block of the particle kernels.
pub const THREADS: u32 = 256;

/// Fraction of the vertical speed a particle keeps when it bounces off the floor.
pub const RESTITUTION: f32 = 0.5;

/// The parameters of one update.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// Time step.
    pub dt: f32,
    /// Acceleration.
    pub gravity: [f32; 3],
}

/// One particle's step: `v += g·dt; p += v·dt`, then a bounce if `p.y < 0` (`w` components
/// unchanged). The kernels run this; the GPU may fuse the multiply-adds, so compare GPU results
/// with a tolerance.
#[inline(always)]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn falls_then_moves_and_keeps_w() {
        let s = Step { dt: 0.5, gravity: [0.0, -2.0, 4.0] };
        let (p, v) = step([1.0, 10.0, 0.0, 7.0], [2.0, 0.0, 0.0, 3.0], &s);
        assert_eq!(v, [2.0, -1.0, 2.0, 3.0]);
        assert_eq!(p, [2.0, 9.5, 1.0, 7.0]);
    }

    #[test]
    fn bounces_off_the_floor_losing_speed() {
        let s = Step { dt: 1.0, gravity: [0.0; 3] };
        let (p, v) = step([0.0, 1.0, 0.0, 1.0], [0.0, -3.0, 0.0, 1.0], &s);
        assert_eq!(p[1], 2.0, "mirrored above the floor");
        assert_eq!(v[1], 3.0 * RESTITUTION, "upwards, slower");
    }
}
