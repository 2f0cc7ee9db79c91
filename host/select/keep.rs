//! What decides whether an item is kept: a flag for any [`Pod`] item, or a value test
//! ([`Predicate`]) for the primitive numbers ([`SelectItem`]).

use crate::DeviceRead;
use bytemuck::Pod;
use warpwork_abi::select::op;

/// The element types with value-test kernels ([`Predicate`]): the primitive numbers. Any
/// [`Pod`] type can be selected by flag.
pub trait SelectItem: Pod + PartialOrd + Default + std::fmt::Debug + sealed::Sealed {
    /// Kernel-name suffix.
    const SUFFIX: &'static str;
}
mod sealed {
    pub trait Sealed {}
}
macro_rules! select_item {
    ($($t:ty),*) => {
        $(
            impl sealed::Sealed for $t {}
            impl SelectItem for $t { const SUFFIX: &'static str = stringify!($t); }
        )*
        /// The value-test kernel suffix of `T`, if it is a [`SelectItem`] type.
        pub(super) fn predicate_suffix<T: 'static>() -> Option<&'static str> {
            let id = std::any::TypeId::of::<T>();
            $(if id == std::any::TypeId::of::<$t>() {
                return Some(<$t as SelectItem>::SUFFIX);
            })*
            None
        }
    };
}
select_item!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

/// The value-test kernel suffix of `T`, or the error for a value test on another type; `what`
/// names the operation (`select`, `partition`) in the error's hint to keep such items by flag.
pub(super) fn value_test_suffix<T: 'static>(what: &str) -> crate::Result<&'static str> {
    predicate_suffix::<T>().ok_or_else(|| {
        crate::Error::InvalidInput(format!(
            "a value test on {}: predicates are for u8, i8, u16, i16, u32, i32, u64, i64, f32 and f64 \
             ({what} other items by flag)",
            std::any::type_name::<T>()
        ))
    })
}

/// A value test for [`crate::Gpu::select_if`]. Comparisons are Rust's `PartialOrd` on both the
/// GPU and the CPU reference: a NaN fails every test except `NonZero`, and `-0.0` counts as
/// zero.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Predicate<T> {
    /// `item < a`.
    Less(T),
    /// `item >= a`.
    GreaterEqual(T),
    /// `lo <= item < hi`.
    InRange(T, T),
    /// `item == a`.
    Equal(T),
    /// `item != 0`.
    NonZero,
}

impl<T: SelectItem> Predicate<T> {
    /// Whether `v` passes: the CPU definition the kernels match.
    ///
    /// # Examples
    /// ```
    /// use warpwork::select::Predicate;
    /// assert!(Predicate::InRange(-3i8, 4).test(-3));
    /// assert!(!Predicate::Less(f64::NAN).test(1.0));
    /// ```
    pub fn test(&self, v: T) -> bool {
        let (op, a, b) = self.abi();
        warpwork_abi::select::test(op, v, a, b)
    }
}

impl<T: Pod> Predicate<T> {
    /// (op code, a, b) as the kernels take them (`warpwork_abi::select::op`).
    pub(super) fn abi(&self) -> (u32, T, T) {
        let z = T::zeroed();
        match *self {
            Predicate::Less(a) => (op::LESS, a, z),
            Predicate::GreaterEqual(a) => (op::GREATER_EQUAL, a, z),
            Predicate::InRange(lo, hi) => (op::IN_RANGE, lo, hi),
            Predicate::Equal(a) => (op::EQUAL, a, z),
            Predicate::NonZero => (op::NON_ZERO, z, z),
        }
    }
}

/// What decides whether an item is kept.
#[derive(Clone, Copy)]
pub enum Keep<'a, T: Pod> {
    /// Item `i` is kept where `flags[i] != 0`; `flags` has one byte per item. Any [`Pod`] item.
    Flagged(&'a dyn DeviceRead<u8>),
    /// Item `i` is kept where the test holds. Only for the [`SelectItem`] types: with any other
    /// type the call returns [`crate::Error::InvalidInput`].
    If(Predicate<T>),
}

impl<T: Pod + std::fmt::Debug> std::fmt::Debug for Keep<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Keep::Flagged(flags) => write!(f, "Flagged({} flags)", flags.len()),
            Keep::If(p) => write!(f, "If({p:?})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicates_follow_rust_comparisons() {
        assert!(Predicate::Less(5u32).test(4) && !Predicate::Less(5u32).test(5));
        assert!(Predicate::GreaterEqual(5i32).test(5) && !Predicate::GreaterEqual(5i32).test(-6));
        assert!(Predicate::InRange(2u64, 4).test(2) && !Predicate::InRange(2u64, 4).test(4));
        assert!(Predicate::Less(-1i8).test(-128) && !Predicate::Less(-1i8).test(0));
        assert!(Predicate::InRange(-300i16, -2).test(-3) && !Predicate::InRange(-300i16, -2).test(-2));
        assert!(Predicate::Equal(-0.0f32).test(0.0));
        assert!(Predicate::Equal(0.0f64).test(-0.0));
        assert!(!Predicate::Equal(f32::NAN).test(f32::NAN));
        assert!(!Predicate::GreaterEqual(f64::NEG_INFINITY).test(f64::NAN));
        assert!(Predicate::<f32>::NonZero.test(f32::NAN) && !Predicate::<f32>::NonZero.test(-0.0));
    }

    #[test]
    fn abi_codes_match_the_kernels() {
        // kernels/src/device/select.rs, `op`: FLAGGED 0, LESS 1, GREATER_EQUAL 2, IN_RANGE 3, EQUAL 4, NON_ZERO 5.
        assert_eq!(Predicate::Less(1u32).abi().0, 1);
        assert_eq!(Predicate::GreaterEqual(1u32).abi().0, 2);
        assert_eq!(Predicate::InRange(1u32, 2).abi(), (3, 1, 2));
        assert_eq!(Predicate::Equal(1u32).abi().0, 4);
        assert_eq!(Predicate::<u32>::NonZero.abi().0, 5);
    }

    #[test]
    fn value_tests_exist_for_the_primitive_numbers_only() {
        assert_eq!(predicate_suffix::<u8>(), Some("u8"));
        assert_eq!(predicate_suffix::<i16>(), Some("i16"));
        assert_eq!(predicate_suffix::<f64>(), Some("f64"));
        assert_eq!(predicate_suffix::<[u8; 4]>(), None);
        assert_eq!(predicate_suffix::<u128>(), None);
    }
}
