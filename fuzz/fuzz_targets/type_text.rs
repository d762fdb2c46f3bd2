//! Text input of every type: the first two bytes pick the type, the rest is the text. What
//! a type accepts, its output prints as text that the type reads again (regproc excepted).
#![no_main]

use libfuzzer_sys::fuzz_target;
use threadgres::sql::types::{io, FormatCtx, Type};

fuzz_target!(|data: &[u8]| {
    let types: Vec<u32> = threadgres::sql::catalog::type_oids().collect();
    if data.len() < 2 {
        return;
    }
    let ty = Type(types[u16::from_le_bytes([data[0], data[1]]) as usize % types.len()]);
    let Ok(text) = std::str::from_utf8(&data[2..]) else {
        return;
    };
    // A session's statement budget, as the server sets it for every message.
    let _entry = threadgres::stack::enter(threadgres::stack::DEFAULT_KB);
    let ctx = FormatCtx::default();
    if let Ok(v) = io::from_text(text, ty, -1, &ctx) {
        let mut out = String::new();
        io::write_text(&v, ty, &ctx, &mut out);
        // regproc prints an overloaded name (`pg_catalog.max`) that its input refuses as
        // ambiguous, in PostgreSQL too.
        if !v.is_null() && ty != Type::REGPROC {
            assert!(
                io::from_text(&out, ty, -1, &ctx).is_ok(),
                "{ty:?}: {text:?} printed as {out:?}, which does not read back"
            );
        }
    }
});
