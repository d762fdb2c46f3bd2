"""Deterministic crash points (issue 29): the log of a recorded workload, cut at record
boundaries and at torn offsets inside records, recovers to a consistent prefix of the committed
transactions, each whole.

One server runs the workload and is killed; its data directory is then copied once per cut
point, the log zeroed from the cut on (as a crash before those bytes reached the disk leaves
it), and a server started on the copy. threadgres-only: PostgreSQL's recovery gives the same
guarantee, which is the reference.
"""

from __future__ import annotations

import shutil
import signal
import struct

import pytest

import servers

TG = pytest.mark.parametrize("server", ["threadgres"], indirect=True)

SEG = 1 << 20
TXNS = 40
XACT_KIND, COMMIT = 16, 1


PER = (1 << 32) // SEG


def seg_name(segno: int) -> str:
    return f"{1:08X}{segno // PER:08X}{segno % PER:08X}"


def seg_of(name: str) -> int:
    return int(name[8:16], 16) * PER + int(name[16:], 16)


def records(wal_dir, start: int):
    """(lsn, end, kind, info) of each record from `start` to the end of the log."""
    out = []
    pos = start
    while True:
        seg, off = divmod(pos, SEG)
        path = wal_dir / seg_name(seg)
        if not path.exists():
            return out
        data = path.read_bytes()
        head = data[off:off + 32]
        if len(head) < 32:
            return out
        total, _crc, lsn = struct.unpack_from("<IIQ", head)
        if total < 32 or lsn != pos:
            return out
        kind, info = head[24], head[25]
        end = (pos + total + 7) & ~7
        out.append((pos, end, kind, info))
        pos = end


def cut_copy(src, dst, cut: int) -> None:
    """Copies the data directory `src` to `dst` with the log zeroed from `cut` on."""
    shutil.copytree(src, dst)
    (dst / "postmaster.pid").unlink(missing_ok=True)
    wal = dst / "pg_wal"
    seg, off = divmod(cut, SEG)
    for f in wal.iterdir():
        n = seg_of(f.name)
        if n > seg:
            f.unlink()
        elif n == seg:
            data = bytearray(f.read_bytes())
            data[off:] = bytes(len(data) - off)
            f.write_bytes(bytes(data))


def state(info) -> tuple:
    c = info.connect_raw()
    try:
        n = int(c.simple("SELECT n FROM counter")[0][0])
        pairs = c.simple("SELECT t, count(*) FROM pairs GROUP BY t ORDER BY t")
        side = c.simple("SELECT count(*) FROM pg_class WHERE relname = 'side'")[0][0] == "1"
        side_rows = int(c.simple("SELECT count(*) FROM side")[0][0]) if side else None
        return n, pairs, side, side_rows
    finally:
        c.close()


@TG
def test_every_cut_of_the_log_recovers_a_prefix_of_the_commits(server, tg_dedicated, tmp_root):
    p = tg_dedicated("--wal-segment-size", "1MB")
    c = p.info.connect_raw()
    c.simple("CREATE TABLE counter (n int)")
    c.simple("INSERT INTO counter VALUES (0)")
    c.simple("CREATE TABLE pairs (t int, half int, pad text)")
    for t in range(1, TXNS + 1):
        c.simple("BEGIN")
        c.simple(f"INSERT INTO pairs VALUES ({t}, 1, repeat('a', {t * 37 % 300}))")
        c.simple("SAVEPOINT s")
        c.simple(f"INSERT INTO pairs VALUES ({-t}, 0, 'gone')")
        c.simple("ROLLBACK TO SAVEPOINT s")
        c.simple(f"INSERT INTO pairs VALUES ({t}, 2, 'b')")
        c.simple("UPDATE counter SET n = n + 1")
        if t == TXNS // 2:
            c.simple("CREATE TABLE side (x int)")
            c.simple("INSERT INTO side VALUES (1), (2)")
        c.simple("COMMIT")
    c.close()
    data = p.data_dir()
    p.proc.send_signal(signal.SIGKILL)
    p.proc.wait(10)
    recs = records(data / "pg_wal", SEG)
    commits = [r for r in recs if r[2] == XACT_KIND and r[3] == COMMIT]
    assert len(commits) >= TXNS, (len(recs), len(commits))
    # Cuts: at the end of some commit records, at boundaries between other records, and torn
    # inside records (a commit record's middle included); then the whole log.
    cuts = set()
    for i in range(0, len(commits), max(1, len(commits) // 12)):
        _, end, _, _ = commits[i]
        cuts.add(end)
        cuts.add(end - 8)  # the commit record torn at its last bytes
    for i in range(0, len(recs), max(1, len(recs) // 10)):
        lsn, end, _, _ = recs[i]
        cuts.add(lsn)
        cuts.add(lsn + (end - lsn) // 2)
    cuts.add(recs[-1][1])
    # From the end of the set-up's third commit (counter, its row, pairs) on.
    setup_end = commits[2][1]
    cuts = {x for x in cuts if x >= setup_end}
    last = (0, [], False, None)
    seen = set()
    for k, cut in enumerate(sorted(cuts)):
        d = tmp_root / f"cut-{k}"
        cut_copy(data, d, cut)
        q = servers.ThreadgresProcess(servers.threadgres_binary(), tmp_root / f"cut-{k}-work",
                                      extra_args=("--data-dir", str(d)), name=f"cut{k}")
        try:
            q.start()
            n, pairs, side, side_rows = state(q.info)
        finally:
            q.stop()
        # A prefix of the transactions, each whole; none of a rolled-back savepoint's rows.
        assert pairs == [(str(t), "2") for t in range(1, n + 1)], (cut, n, pairs)
        # The table created mid-way exists exactly when the transaction that made it is there,
        # with its rows.
        assert side == (n >= TXNS // 2), (cut, n, side)
        assert side_rows in (None, 2), (cut, side_rows)
        # Later cuts never recover less.
        assert n >= last[0], (cut, n, last[0])
        last = (n, pairs, side, side_rows)
        seen.add(n)
        shutil.rmtree(d)
    assert last[0] == TXNS
    # The cuts fell between many commits, not only at the ends.
    assert len(seen) >= 8, sorted(seen)
    print(f"crash points: {len(cuts)} cuts of {len(recs)} records recovered "
          f"{len(seen)} different prefixes")
