"""Waiting in tests for something another connection or the server does in the background:
poll a condition with a deadline, never a sleep of a guessed length."""

from __future__ import annotations

import time


def wait_until(cond, what: str, timeout: float = 10.0) -> None:
    """Polls `cond` every 20 ms until it holds; fails with `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)
