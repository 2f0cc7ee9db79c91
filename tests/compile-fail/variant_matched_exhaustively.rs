// The enums that will grow are #[non_exhaustive]: a caller's match needs a wildcard arm, so a
// new variant in a later release does not break it.
use warpwork::select::Variant;

fn name(v: Variant) -> &'static str {
    match v {
        Variant::Lane => "lane",
        Variant::Warp => "warp",
        Variant::Block => "block",
        Variant::Ordered => "ordered",
    }
}

fn code(e: &warpwork::Error) -> u32 {
    match e {
        warpwork::Error::NoDriver => 1,
        warpwork::Error::InvalidInput(_) => 2,
        _ => 3, // fine: the wildcard
    }
}

fn main() {
    let _ = (name(Variant::Block), code(&warpwork::Error::NoDriver));
}
