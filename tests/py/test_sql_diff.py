"""Differential SQL scripts: every case in diff/*.sql runs on PostgreSQL 15 and on
the server under test, in three protocol modes, and the exact message sequences
must be identical (see difftest.py for the file format and the normalization).

    simple    each message as a simple Query
    extended  unnamed Parse / Bind (text results) / Describe portal / Execute / Sync
    binary    the same with all result columns in binary format

Add a case: append a `-- name: ...` block to any diff/*.sql file (or a new file).
"""

from pathlib import Path

import pytest

import difftest

DIFF_DIR = Path(__file__).parent / "diff"


def _params():
    out = []
    for path in sorted(DIFF_DIR.glob("*.sql")):
        for case in difftest.parse_sql_file(path):
            for mode in case.modes:
                out.append(pytest.param(case, mode, id=f"{case.id}-{mode}"))
    return out


@pytest.mark.parametrize("case,mode", _params())
def test_sql(pg, server, case, mode):
    difftest.run_differential(
        pg, server, difftest.sql_case_scenario(case, mode),
        key=f"sql:{case.id}:{mode}", expect_errors=case.expect_errors,
    )
