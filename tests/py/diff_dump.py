"""Print the normalized transcript of diff/*.sql cases against one running server.

    python tests/py/diff_dump.py 127.0.0.1:5433 tests/py/diff/select.sql [case_name] [mode]

Handy to see what threadgres sends for a case, or to compare two servers by hand
(`diff <(python diff_dump.py A ...) <(python diff_dump.py B ...)`).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import difftest  # noqa: E402
import servers  # noqa: E402


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    host, _, port = argv[1].rpartition(":")
    info = servers.ServerInfo("server", host or "127.0.0.1", int(port))
    cases = difftest.parse_sql_file(Path(argv[2]))
    if len(argv) > 3:
        cases = [c for c in cases if c.name == argv[3]]
    modes = [argv[4]] if len(argv) > 4 else None
    for case in cases:
        for mode in modes or case.modes:
            print(f"##### {case.id} [{mode}]")
            for line in difftest.render(difftest.run_scenario(info, difftest.sql_case_scenario(case, mode))):
                print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
