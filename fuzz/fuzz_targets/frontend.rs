//! Any bytes after the start-up: framing and decoding of frontend messages never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use threadgres::wire::frontend as fe;

fuzz_target!(|data: &[u8]| {
    // A stream of messages, as the session's reader frames them one after another.
    let mut rest = data;
    while let Ok(Some(n)) = fe::frame(rest, 1 << 20) {
        let _ = fe::decode(&rest[..n]);
        rest = &rest[n..];
    }
});
