"""Helpers for the real-client tests (psql, pgbench, psycopg, asyncpg)."""

from __future__ import annotations

import asyncio
import difflib
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

PG_BINDIR = Path(os.environ.get("PG_BINDIR", "/usr/lib/postgresql/15/bin"))


def pg_tool(name: str) -> str:
    """Path of psql / pgbench (PG 15 client tools preferred)."""
    p = PG_BINDIR / name
    if p.exists():
        return str(p)
    found = shutil.which(name)
    if not found:
        pytest.fail(f"{name} not found (install postgresql-client-15)")
    return found


def run_tool(server, args: list[str], input: Optional[str] = None, timeout: float = 60,
             cwd: Optional[Path] = None) -> subprocess.CompletedProcess:
    """Run a libpq program against server (bounded by timeout)."""
    try:
        return subprocess.run(args, env=server.env(), input=input, capture_output=True, text=True,
                              timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{args[0]} did not finish within {timeout}s against {server.name}:\n"
                    f"stdout: {e.stdout!r}\nstderr: {e.stderr!r}", pytrace=False)


def assert_same(ref: Any, got: Any, target_name: str, what: str = "result") -> None:
    """Fail with a readable diff unless PG15's observation equals the target's."""
    if ref == got:
        return
    a = ref if isinstance(ref, str) else _pretty(ref)
    b = got if isinstance(got, str) else _pretty(got)
    diff = "\n".join(difflib.unified_diff(a.splitlines(), b.splitlines(), "pg15", target_name, lineterm=""))
    pytest.fail(f"{what} differs (- pg15, + {target_name}):\n{diff}", pytrace=False)


def _pretty(v: Any) -> str:
    import pprint
    return pprint.pformat(v, width=110)


def differential(pg, server, observe: Callable[[Any], Any], what: str = "result") -> Any:
    """observe(server_info) on PG15 and on the target; they must be equal. Returns PG's."""
    ref = observe(pg)
    got = observe(server)
    assert_same(ref, got, server.name, what)
    return ref


def arun(coro, timeout: float = 60):
    """Run a coroutine to completion with a bound."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


PID_RE = re.compile(r"(PID|pid|process) \d+")


def normalize_pids(text: str) -> str:
    return PID_RE.sub(lambda m: m.group(1) + " <pid>", text)
