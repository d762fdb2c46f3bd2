//! COPY FROM's pipeline: a helper thread converts a big text copy's lines while the session
//! reads the client's next messages and inserts the rows.
//!
//! A direct load (`exec::copy_load`) spends most of its time converting and packing rows, and
//! meanwhile the session's thread could read the next data and insert the rows packed before.
//! So the session gathers the data in chunks of whole lines ([`CHUNK`] bytes and more), loads
//! the first chunk itself (it may begin with a header line, and a small copy needs no thread),
//! and hands each later one to a helper thread, which converts its lines in order into a batch
//! of packed rows and hands the chunk back with the batch and how far it got. The helper stops
//! at the first line it cannot convert as it is: one the direct load does not take, the end
//! marker `\.`, a byte sequence invalid in the client's encoding. The session inserts the
//! batch in order, then reads the rest of that chunk itself, that line through the INSERT
//! operator (with its error and context, if it fails). Rows are stored in the data's order, and
//! every outcome is the one the session alone would give; converting has no effect, so a
//! chunk converted past the end of the data or an error is simply dropped.
//!
//! One chunk is with the helper at a time: the session hands chunk n + 1 over as soon as it
//! has taken chunk n back, then inserts chunk n's rows while the helper converts. Taking a
//! chunk back waits for bounded CPU work of the session's own statement (about a millisecond
//! per chunk), on the shard's thread, like a parallel index build's; never for another
//! transaction.
//!
//! Bounds: at most one helper per core in the server at once (`Instance::copy_helpers`; past
//! that, a copy loads its rows on its session's thread); per copy, the data gathered (up to a
//! message more than [`CHUNK`] bytes), the chunk with the helper (at most 2 × [`CHUNK`] bytes,
//! or one longer line) and the packed rows of one chunk. A helper ends when its copy ends (the
//! session joins it, after at most the chunk in hand).

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

use super::{csv_fields, recycle, text_fields};
use crate::encoding::Client;
use crate::error::{PgError, PgResult};
use crate::sql::exec::copy_load::{Batch, RowConv};
use crate::sql::types::FormatCtx;
use crate::sql::{CopyFormat, CopyOptions};

/// Bytes of whole lines a chunk gathers at least.
pub(super) const CHUNK: usize = 64 * 1024;

/// How the helper reads lines: as the session (its copy options, client encoding and
/// date/number formats).
pub(super) struct LineFormat {
    pub(super) options: CopyOptions,
    pub(super) client: Client,
    pub(super) fmt: FormatCtx,
}

/// A chunk back from the helper.
pub(super) struct Done {
    pub(super) buf: Vec<u8>,
    /// The rows of the lines converted, in order.
    pub(super) batch: Batch,
    /// Bytes of `buf` converted: whole lines, one row each.
    pub(super) consumed: usize,
    pub(super) lines: u64,
}

/// A copy's helper thread and the chunk it has.
pub(super) struct Pipe {
    jobs: Option<SyncSender<Vec<u8>>>,
    done: Receiver<Done>,
    thread: Option<JoinHandle<()>>,
    in_flight: bool,
}

/// A place among the server's helpers, given back when the helper ends.
struct HelperSlot(Arc<AtomicUsize>);

impl Drop for HelperSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Pipe {
    /// Starts a helper converting with `conv`, if the server has a place for one among its
    /// `helpers` (the count of those running).
    pub(super) fn start(
        format: LineFormat,
        mut conv: RowConv,
        helpers: &Arc<AtomicUsize>,
    ) -> Option<Pipe> {
        let max = crate::cpus::count().max(1);
        helpers
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()?;
        let slot = HelperSlot(helpers.clone());
        let (jobs, job_rx) = sync_channel::<Vec<u8>>(1);
        let (done_tx, done) = sync_channel::<Done>(1);
        let thread = std::thread::Builder::new()
            .name("tg-copy".into())
            .spawn(move || {
                let _slot = slot;
                // Spawned by a shard's thread, which is bound to one CPU: run on any.
                crate::cpus::unbind_current_thread();
                let mut fields = Vec::new();
                while let Ok(buf) = job_rx.recv() {
                    let mut batch = Batch::new();
                    let (consumed, lines) =
                        convert_lines(&mut conv, &buf, &format, &mut fields, &mut batch);
                    let done = Done {
                        buf,
                        batch,
                        consumed,
                        lines,
                    };
                    if done_tx.send(done).is_err() {
                        break;
                    }
                }
            })
            .ok()?;
        tracing::debug!("COPY helper thread started");
        Some(Pipe {
            jobs: Some(jobs),
            done,
            thread: Some(thread),
            in_flight: false,
        })
    }

    /// Hands a chunk of whole lines to the helper; gives it back when the helper is gone.
    pub(super) fn send(&mut self, buf: Vec<u8>) -> Result<(), Vec<u8>> {
        debug_assert!(!self.in_flight, "one chunk with the helper at a time");
        let Some(jobs) = &self.jobs else {
            return Err(buf);
        };
        match jobs.send(buf) {
            Ok(()) => {
                self.in_flight = true;
                Ok(())
            }
            Err(e) => Err(e.0),
        }
    }

    /// Takes back the chunk the helper has (None when it has none), waiting for it.
    pub(super) fn wait(&mut self) -> PgResult<Option<Done>> {
        if !std::mem::take(&mut self.in_flight) {
            return Ok(None);
        }
        match self.done.recv() {
            Ok(done) => Ok(Some(done)),
            // Only a panic in the helper ends it with a chunk in hand.
            Err(_) => Err(PgError::internal("the COPY helper thread ended")),
        }
    }
}

impl Drop for Pipe {
    /// Ends the helper: it finishes the chunk it has, if any, and sees no more jobs.
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Converts the whole lines of `buf` into `batch` until one the direct load does not take;
/// returns the bytes and lines converted.
fn convert_lines(
    conv: &mut RowConv,
    buf: &[u8],
    f: &LineFormat,
    fields: &mut Vec<Option<Cow<'static, str>>>,
    batch: &mut Batch,
) -> (usize, u64) {
    let (mut start, mut lines) = (0, 0);
    while let Some(nl) = memchr::memchr(b'\n', &buf[start..]) {
        let end = start + nl;
        if !convert_line(conv, &buf[start..=end], f, fields) {
            break;
        }
        batch.push(conv.row());
        start = end + 1;
        lines += 1;
    }
    (start, lines)
}

/// Converts one line (with its newline) as the session's `copy_line` would by the direct
/// load; false when the session must read it instead.
fn convert_line(
    conv: &mut RowConv,
    bytes: &[u8],
    f: &LineFormat,
    keep: &mut Vec<Option<Cow<'static, str>>>,
) -> bool {
    let Ok(text) = super::super::encoding::text_in(f.client, bytes) else {
        return false;
    };
    let line = text.strip_suffix('\n').unwrap_or(&text);
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line == "\\." {
        return false;
    }
    let mut fields = recycle(std::mem::take(keep));
    let split = match f.options.format {
        CopyFormat::Csv => match csv_fields(line, &f.options) {
            Ok(v) => {
                fields.extend(v.into_iter().map(|x| x.map(Cow::Owned)));
                true
            }
            Err(_) => false,
        },
        _ => {
            text_fields(line, &f.options, &mut fields);
            true
        }
    };
    let converted = split && conv.pack(&fields, &f.fmt);
    *keep = recycle(fields);
    converted
}
