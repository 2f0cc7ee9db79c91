//! Misuse that must not compile (`tests/compile-fail/*.rs`, each with the compiler's `.stderr`):
//! freeing or writing what a queued kernel still reads, using an expansion out of order, raw
//! pointers and launches without `unsafe`, aliased outputs. No GPU is needed: the cases are
//! only type-checked.
//!
//! The `.stderr` files are the pinned toolchain's (1.95.0) messages; after a change to the API
//! they quote, regenerate them with `TRYBUILD=overwrite cargo test --test compile_fail` and
//! review the diff.

#[test]
fn misuse_does_not_compile() {
    // The cases are only type-checked: the shipped PTX serves (no kernel rebuild in trybuild's
    // own target directory).
    std::env::set_var("WARPWORK_PTX", "shipped");
    trybuild::TestCases::new().compile_fail("tests/compile-fail/*.rs");
}
