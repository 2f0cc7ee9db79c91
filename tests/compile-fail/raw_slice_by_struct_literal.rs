// A raw slice built field by field, around the checked constructor.
use warpwork::RawSlice;

fn main() {
    let _r = RawSlice::<u32> { addr: 0x1000, len: 4, _borrow: std::marker::PhantomData };
}
