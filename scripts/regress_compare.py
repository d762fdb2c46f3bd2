#!/usr/bin/env python3
"""Run PostgreSQL regression files statement by statement against threadgres and PostgreSQL 15.

    scripts/regress_compare.py --tg-port P --pg-port Q [--host H] [--user U] [--out DIR] FILE.sql...

The issues judge feature work by PostgreSQL's own regression files (src/test/regress/sql/ in a
snapshot of its source, fetched by hand: they are not part of this repository). Each file is fed
through `psql -X -a -q` into a fresh database on each server; psql echoes every input line, so
the output splits at the echo of each statement's first line, and a statement matches when what
follows its echo (results, errors, notices) is the same on both servers. Comment lines are left
out of the comparison. Statements are found with a small lexer (quotes, dollar quotes, comments,
parentheses) so that a function body with semicolons stays one statement.

Per file it prints `name: N/M statements identical (P %)` and writes DIR/name.{pg,tg}.out and
DIR/name.diffs.txt (each differing statement with both outputs). Both servers must be running;
the tool creates and drops the databases `regress_<name>`. Bounds: each psql run is stopped
after --timeout seconds (default 300; the file then counts what ran), and every statement after
the first that fails to appear in an output counts as a difference.
"""

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path


def split_statements(text):
    """The statements of a psql script as lists of their source lines (meta-commands included)."""
    stmts = []
    cur = []
    depth = 0
    quote = None  # "'", '"', a dollar tag, or "/*"
    for line in text.split("\n"):
        if not cur and quote is None:
            s = line.strip()
            if s == "" or s.startswith("--"):
                continue
            if s.startswith("\\"):
                stmts.append([line])
                continue
        cur.append(line)
        i = 0
        ended = False
        while i < len(line):
            c = line[i]
            if quote == "/*":
                if line.startswith("*/", i):
                    quote = None
                    i += 2
                    continue
            elif quote in ("'", '"'):
                if c == quote:
                    quote = None
            elif quote is not None:  # dollar quote
                if line.startswith(quote, i):
                    i += len(quote)
                    quote = None
                    continue
            elif line.startswith("--", i):
                break
            elif line.startswith("/*", i):
                quote = "/*"
                i += 2
                continue
            elif c in ("'", '"'):
                quote = c
            elif c == "$":
                m = re.match(r"\$[A-Za-z_0-9]*\$", line[i:])
                if m and not (i > 0 and (line[i - 1].isalnum() or line[i - 1] == "_")):
                    quote = m.group(0)
                    i += len(quote)
                    continue
            elif c == "(":
                depth += 1
            elif c == ")":
                depth = max(0, depth - 1)
            elif c == ";" and depth == 0:
                ended = True
            elif c == "\\" and depth == 0 and line.startswith(("\\g", "\\gset", "\\gx"), i):
                ended = True
                break
            i += 1
        if ended and quote is None:
            stmts.append(cur)
            cur = []
            depth = 0
    if cur:
        stmts.append(cur)
    return stmts


def run_psql(args, port, db, path):
    base = ["psql", "-X", "-q", "-h", args.host, "-p", str(port), "-U", args.user]
    env = dict(os.environ, PGTZ="PST8PDT", PGDATESTYLE="Postgres, MDY", PGSSLMODE="disable")
    for sql in (f"DROP DATABASE IF EXISTS {db}", f"CREATE DATABASE {db}"):
        subprocess.run(base + ["-d", "postgres", "-c", sql], env=env, capture_output=True)
    try:
        r = subprocess.run(
            base + ["-a", "-d", db, "-f", str(path)],
            env=env,
            # One stream, so that each error stays with the statement that raised it.
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            timeout=args.timeout,
        )
        out = r.stdout
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        out += "\n<timed out>\n"
    subprocess.run(base + ["-d", "postgres", "-c", f"DROP DATABASE IF EXISTS {db}"], env=env, capture_output=True)
    return out


def segments(out, stmts, name):
    """What each statement printed: the lines from its echo to the next statement's echo."""
    # psql -f prefixes its errors with the file name and line: drop that part, it is the same.
    lines = [re.sub(r"^psql:[^:]*:\d+: ", "", ln) for ln in out.split("\n")]
    starts = []
    i = 0
    for st in stmts:
        j = i
        while j < len(lines) and lines[j] != st[0]:
            j += 1
        if j >= len(lines):
            starts.append(None)
            continue
        starts.append(j)
        i = j + len(st)
    segs = []
    for k, st in enumerate(stmts):
        s = starts[k]
        if s is None:
            segs.append("<missing>")
            continue
        e = next((starts[n] for n in range(k + 1, len(stmts)) if starts[n] is not None), len(lines))
        body = lines[s + len(st):e]
        segs.append("\n".join(ln for ln in body if ln.strip() and not ln.lstrip().startswith("--")))
    return segs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--tg-port", type=int, required=True)
    ap.add_argument("--pg-port", type=int, required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--user", default="postgres")
    ap.add_argument("--out", type=Path, default=Path("/tmp/regress_compare"))
    ap.add_argument("--timeout", type=int, default=300)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    total_ok = total = 0
    for path in args.files:
        name = path.stem
        stmts = split_statements(path.read_text(errors="replace"))
        db = "regress_" + re.sub(r"\W", "_", name)
        pg = run_psql(args, args.pg_port, db, path)
        tg = run_psql(args, args.tg_port, db, path)
        (args.out / f"{name}.pg.out").write_text(pg)
        (args.out / f"{name}.tg.out").write_text(tg)
        sp, st = segments(pg, stmts, name), segments(tg, stmts, name)
        ok = 0
        with open(args.out / f"{name}.diffs.txt", "w") as f:
            for k, stmt in enumerate(stmts):
                if sp[k] == st[k]:
                    ok += 1
                else:
                    f.write(f"==== #{k}: {stmt[0]}\n--- postgresql\n{sp[k]}\n--- threadgres\n{st[k]}\n")
        n = len(stmts)
        total_ok += ok
        total += n
        print(f"{name}: {ok}/{n} statements identical ({100 * ok / max(n, 1):.0f} %)")
    if len(args.files) > 1:
        print(f"all: {total_ok}/{total} ({100 * total_ok / max(total, 1):.0f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
