//! Property tests over client input (issue 27): no input to the frontend protocol's decoder,
//! the start-up packet, or any type's text or binary input function panics or overflows the
//! stack; what a type's input accepts, its output prints and its input reads back.
//!
//! They run with the suite at proptest's default case count; `scripts/fuzz.sh` runs them
//! longer (PROPTEST_CASES). Failing inputs proptest finds are kept in
//! `proptest-regressions/` beside this file and replayed first on every run: that folder is
//! the corpus.

use bytes::Bytes;
use proptest::prelude::*;

use crate::sql::types::{io, FormatCtx, Type};
use crate::wire::frontend as fe;

/// Runs `f` on a thread with a shard's stack and a statement budget, as a session runs it.
fn as_a_session<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(crate::stack::SHARD_STACK_BYTES)
        .spawn(move || {
            let _entry = crate::stack::enter(crate::stack::DEFAULT_KB);
            f()
        })
        .unwrap()
        .join()
        .unwrap()
}

/// Text that looks like values of many types: digits, signs, brackets, quotes, escapes,
/// separators, letters of keywords and units, nesting.
fn value_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[-+0-9.eE,:; {}()\\[\\]\"'\\\\a-zA-Z_/]{0,40}",
        "[\\[{(]{0,300}[0-9a-z\", ]{0,8}[\\]})]{0,300}",
        any::<String>(),
    ]
}

fn all_types() -> Vec<Type> {
    crate::sql::catalog::type_oids().map(Type).collect()
}

proptest! {
    #[test]
    fn frontend_messages_never_panic(tag in any::<u8>(), body in proptest::collection::vec(any::<u8>(), 0..200)) {
        let mut buf = vec![tag];
        buf.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
        buf.extend_from_slice(&body);
        if let Ok(Some(n)) = fe::frame(&buf, 1 << 20) {
            let _ = fe::decode(&buf[..n]);
        }
        let _ = fe::frame(&body, 1 << 20);
    }

    #[test]
    fn startup_packets_never_panic(code in prop_oneof![Just(196608i32), Just(80877103), Just(80877102), Just(80877104), any::<i32>()],
                                   body in proptest::collection::vec(any::<u8>(), 0..120)) {
        let mut buf = Vec::new();
        buf.extend_from_slice(&((body.len() + 8) as i32).to_be_bytes());
        buf.extend_from_slice(&code.to_be_bytes());
        buf.extend_from_slice(&body);
        if let Ok(Some(n)) = fe::startup_frame(&buf, 10_000) {
            let _ = fe::decode_startup(Bytes::copy_from_slice(&buf[..n]));
        }
    }

    #[test]
    fn text_input_never_panics_and_round_trips(text in value_text()) {
        as_a_session(move || {
            let ctx = FormatCtx::default();
            for ty in all_types() {
                if let Ok(v) = io::from_text(&text, ty, -1, &ctx) {
                    let mut out = String::new();
                    io::write_text(&v, ty, &ctx, &mut out);
                    // What was accepted prints as something the same type reads again;
                    // except regproc, whose output of an overloaded name (`pg_catalog.max`)
                    // its input refuses as ambiguous, in PostgreSQL too.
                    if !v.is_null() && ty != Type::REGPROC {
                        assert!(
                            io::from_text(&out, ty, -1, &ctx).is_ok(),
                            "{ty:?}: {text:?} printed as {out:?}, which does not read back"
                        );
                    }
                }
            }
        });
    }

    #[test]
    fn binary_input_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        as_a_session(move || {
            for ty in all_types() {
                if let Ok(v) = io::from_binary(&bytes, ty) {
                    let mut out = bytes::BytesMut::new();
                    let _ = io::write_binary(&v, ty, &mut out);
                }
            }
        });
    }
}

#[test]
fn nested_binary_records_stop_at_the_stack_limit() {
    // A record (2249) whose one field is a record, nested far deeper than any stack: the
    // field OIDs come from the client.
    const RECORD: u32 = 2249;
    let depth = 200_000;
    let mut bytes = Vec::new();
    for _ in 0..depth {
        bytes.extend_from_slice(&1i32.to_be_bytes()); // one field
        bytes.extend_from_slice(&RECORD.to_be_bytes());
        bytes.extend_from_slice(&(-1i32).to_be_bytes()); // patched below
    }
    bytes.extend_from_slice(&0i32.to_be_bytes()); // innermost: no fields
                                                  // Each level's length covers everything after it.
    let total = bytes.len();
    for level in 0..depth {
        let at = level * 12 + 8;
        let len = (total - at - 4) as i32;
        bytes[at..at + 4].copy_from_slice(&len.to_be_bytes());
    }
    let err = as_a_session(move || io::from_binary(&bytes, Type(RECORD)).unwrap_err());
    assert_eq!(err.code, "54001", "{}", err.message);
}
