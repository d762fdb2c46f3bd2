//! Binary input of every type: the first two bytes pick the type, the rest is the value as a
//! client sends it in Bind; what is accepted is written back out.
#![no_main]

use libfuzzer_sys::fuzz_target;
use threadgres::sql::types::{io, Type};

fuzz_target!(|data: &[u8]| {
    let types: Vec<u32> = threadgres::sql::catalog::type_oids().collect();
    if data.len() < 2 {
        return;
    }
    let ty = Type(types[u16::from_le_bytes([data[0], data[1]]) as usize % types.len()]);
    let _entry = threadgres::stack::enter(threadgres::stack::DEFAULT_KB);
    if let Ok(v) = io::from_binary(&data[2..], ty) {
        let mut out = bytes::BytesMut::new();
        let _ = io::write_binary(&v, ty, &mut out);
    }
});
