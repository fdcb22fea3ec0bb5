//! Screenshot bench (filled in below).
fn main() {}
