//! Any bytes as the first packet of a connection: start-up, SSL/GSS requests, cancel requests.
#![no_main]

use libfuzzer_sys::fuzz_target;
use threadgres::wire::frontend as fe;

fuzz_target!(|data: &[u8]| {
    if let Ok(Some(n)) = fe::startup_frame(data, 10_000) {
        let _ = fe::decode_startup(bytes::Bytes::copy_from_slice(&data[..n]));
    }
});
