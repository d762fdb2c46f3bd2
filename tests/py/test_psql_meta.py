"""psql 15's backslash commands against both servers: after the same objects are created in a
database of its own on each, every meta-command must print the same text (aligned output, as a
user sees it; psqlrc skipped).

Sizes differ between the servers (threadgres keeps rows in memory), so commands that show sizes
are compared with every size masked and the table layout normalized (a column's width follows
its widest value). \\conninfo's port is masked. Nothing else is.

Not compared yet, because the objects do not exist in threadgres yet or are listed differently:
roles other than
the bootstrap superuser, system catalogs in \\dt *.* / \\dS, \\dd (its query reads the
catalogs' tableoid, and system columns do not exist yet), \\dx+
(pg_depend has no extension members), \\df+ (function descriptions,
pg_get_function_sqlbody), the whole \\l (other tests create databases) and \\dconfig without a
pattern (the servers' configurations differ). Where a command errors on both servers (\\sf abs:
more than one function), the error texts are compared.
"""

from __future__ import annotations

import re

import pytest

from clientutil import differential, pg_tool, run_tool

DB = "psql_meta"
EMPTY_DB = "psql_meta_empty"

SETUP = r"""
CREATE TABLE items (
    id int PRIMARY KEY,
    name text NOT NULL DEFAULT 'x',
    price numeric(10,2) CHECK (price > 0),
    code varchar(20) UNIQUE,
    created timestamptz DEFAULT now()
);
CREATE INDEX items_name_idx ON items (name);
CREATE UNIQUE INDEX items_name_code_idx ON items (name, code);
CREATE TABLE t2 (a int, b bigint, c bool);
CREATE TABLE kinds (
    a int DEFAULT 0, b numeric DEFAULT 0, c numeric(10,2) DEFAULT 1.5, d text DEFAULT 'x',
    e varchar(10) DEFAULT 'y', f bigint DEFAULT 5, g int DEFAULT -5, h bool DEFAULT true,
    i timestamptz DEFAULT now(), j date DEFAULT current_date, k float8 DEFAULT 1.5,
    l int DEFAULT 1 + 2, m text DEFAULT 'a' || 'b', n numeric DEFAULT -1.5, o int2 DEFAULT 3,
    p text DEFAULT NULL, q int DEFAULT (2 * 3), r timestamp DEFAULT current_timestamp,
    s char(3) DEFAULT 'ab', u text DEFAULT upper('x'),
    "Mixed Case" int NOT NULL DEFAULT 7,
    CHECK (a > 0 AND b < 10), CHECK (d <> ''), CHECK (a BETWEEN 1 AND 5),
    CHECK (d IN ('a', 'b')), CHECK (f IS NOT NULL), CHECK (k > 0.5), CHECK (a + o > f),
    CHECK (length(d) < 5), CHECK (NOT h), CHECK (e LIKE 'x%'), CHECK (c >= 0),
    CHECK (a > 1 OR a < -1 AND f <> 3), CHECK (a::bigint * 2 - 1 > o % 3),
    CHECK (d NOT IN ('z')), CHECK (q NOT BETWEEN 10 AND 20), CHECK (s IS NULL),
    CONSTRAINT named_check CHECK (l <> -1),
    UNIQUE (a, b)
);
CREATE TABLE pk2 (x int, y text, z int NOT NULL, PRIMARY KEY (x, y));
CREATE TABLE orders (
    id serial PRIMARY KEY,
    item int NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    qty int DEFAULT 1
);
CREATE TABLE shipments (
    id int PRIMARY KEY,
    order_id int REFERENCES orders (id) DEFERRABLE INITIALLY DEFERRED,
    item int CONSTRAINT shipments_item_fk REFERENCES items (id) DEFERRABLE
);
CREATE SEQUENCE counter START 10 INCREMENT 5;
CREATE VIEW cheap AS SELECT id, name FROM items WHERE price < 10;
CREATE SCHEMA extra;
CREATE TABLE extra.notes (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body text);
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TYPE extra.level AS ENUM ('lo', 'hi');
ALTER TYPE mood ADD VALUE 'meh' BEFORE 'ok';
CREATE TABLE moody (id int, m mood, ms mood[], l extra.level);
COMMENT ON TYPE mood IS 'how one feels';
DROP ROLE IF EXISTS pm_reader, "pm Writer";
CREATE ROLE pm_reader;
CREATE ROLE "pm Writer";
GRANT SELECT ON items TO pm_reader;
GRANT SELECT, INSERT, UPDATE ON items TO "pm Writer" WITH GRANT OPTION;
GRANT SELECT (id, item), UPDATE (qty) ON orders TO pm_reader;
GRANT USAGE ON SEQUENCE counter TO pm_reader;
GRANT SELECT ON cheap TO PUBLIC;
GRANT USAGE ON SCHEMA extra TO pm_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA extra TO "pm Writer";
REVOKE ALL ON t2 FROM postgres;
COMMENT ON TABLE items IS 'things for sale';
COMMENT ON COLUMN items.name IS 'what it is called';
COMMENT ON COLUMN items.price IS 'in euros';
COMMENT ON INDEX items_name_idx IS 'lookup by name';
COMMENT ON CONSTRAINT items_price_check ON items IS 'no free lunch';
COMMENT ON VIEW cheap IS 'under ten';
COMMENT ON COLUMN cheap.name IS 'view column';
COMMENT ON SEQUENCE counter IS 'counts by five';
COMMENT ON SCHEMA extra IS 'more things';
COMMENT ON TABLE extra.notes IS 'notes';
COMMENT ON TABLE t2 IS 'to be removed';
COMMENT ON TABLE t2 IS NULL;
COMMENT ON ROLE pm_reader IS 'reads things';
CREATE TABLE audited (a int, b text);
CREATE FUNCTION audit_fn() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
CREATE TRIGGER audit_b BEFORE INSERT OR UPDATE OF a ON audited FOR EACH ROW WHEN (NEW.a > 0)
    EXECUTE FUNCTION audit_fn('x');
CREATE TRIGGER audit_s AFTER DELETE ON audited EXECUTE FUNCTION audit_fn();
CREATE TRIGGER audit_off AFTER INSERT ON audited FOR EACH ROW EXECUTE FUNCTION audit_fn();
ALTER TABLE audited DISABLE TRIGGER audit_off;
CREATE MATERIALIZED VIEW priced AS SELECT id, name, price FROM items WHERE price > 0;
CREATE UNIQUE INDEX priced_id ON priced (id);
CREATE MATERIALIZED VIEW extra.later_mv (n) AS SELECT count(*) FROM items WITH NO DATA;
COMMENT ON MATERIALIZED VIEW priced IS 'for sale';
GRANT SELECT ON priced TO pm_reader;
"""

# (command, whether its output shows sizes)
COMMANDS = [
    (r"\l template*", False),
    (r"\l " + DB, False),
    (r"\l+ template*", True),
    (r"\dn", False),
    (r"\dn+", False),
    (r"\dnS", False),
    (r"\df", False),
    (r"\df abs", False),
    (r"\df lower", False),
    (r"\df *trim", False),
    (r"\df pg_catalog.abs", False),
    (r"\df generate_series", False),
    (r"\df nothere", False),
    (r"\dfa", False),
    (r"\sf abs(int)", False),
    (r"\sf+ abs(int)", False),
    (r"\sf lpad(text,int)", False),
    (r"\sf abs", False),
    (r"\sf upper", False),
    (r"\sf sum(int)", False),
    (r"\dT", False),
    (r"\dT+", False),
    (r"\dT mood", False),
    (r"\dT+ mood", False),
    (r"\dT extra.*", False),
    (r"\dT+ *.level", False),
    (r"\d moody", False),
    # The harness's PostgreSQL has a role of its own (scram_user): only postgres is compared.
    (r"\du postgres", False),
    (r"\du+ postgres", False),
    (r"\dg postgres", False),
    (r"\du pg_*", False),
    (r"\du pm*", False),
    (r"\du+ pm*", False),
    (r"\dg pm*", False),
    (r"\dx", False),
    (r"\dv", False),
    (r"\dv+", True),
    (r"\ds", False),
    (r"\ds+", True),
    (r"\dt+ extra.*", True),
    (r"\dn+ extra", False),
    (r"\d cheap", False),
    (r"\d+ cheap", False),
    (r"\d counter", False),
    (r"\d orders", False),
    (r"\d shipments", False),
    (r"\d orders_id_seq", False),
    (r"\dn extra", False),
    (r"\dt extra.*", False),
    (r"\d extra.notes", False),
    (r"\d extra.notes_id_seq", False),
    (r"\dt", False),
    (r"\dt it*", False),
    (r"\dt public.*", False),
    (r"\dt nothere*", False),
    (r"\dt+", True),
    (r"\d", False),
    (r"\d+", True),
    (r"\d items", False),
    (r"\d audited", False),
    (r"\d+ items", False),
    (r'\d "items"', False),
    (r"\d kinds", False),
    (r"\d+ kinds", False),
    (r"\d t2", False),
    (r"\d pk2", False),
    (r"\d nothere", False),
    (r"\di", False),
    (r"\di+", True),
    (r"\di items*", False),
    (r"\d items_pkey", False),
    (r"\d+ items_name_code_idx", False),
    (r"\dp", False),
    (r"\dp items", False),
    (r"\z", False),
    (r"\z orders", False),
    (r"\dp extra.*", False),
    (r"\dp t2", False),
    (r"\dp cheap", False),
    (r"\dconfig work_mem", False),
    (r"\dconfig *style*", False),
    # Commands over catalogs that stay empty (or fixed) in both servers.
    (r"\db", False),
    (r"\db+", True),
    (r"\dD", False),
    (r"\dA", False),
    (r"\dE", False),
    (r"\dm", False),
    (r"\dm+", True),
    (r"\dm extra.*", False),
    (r"\d priced", False),
    (r"\d+ priced", False),
    (r"\d extra.later_mv", False),
    (r"\d+ extra.later_mv", False),
    (r"\dp priced", False),
    (r"\dP", False),
    (r"\dO", False),
    (r"\dX", False),
    (r"\dy", False),
    (r"\dl", False),
    (r"\dRp", False),
    (r"\dRs", False),
    (r"\des", False),
    (r"\dew", False),
    (r"\det", False),
    (r"\deu", False),
    (r"\drds", False),
    (r"\conninfo", False),
    (r"\encoding", False),
]

EXPECTED_ERRORS = {r"\sf abs", r"\sf upper", r"\sf sum(int)"}

EMPTY_COMMANDS = [r"\d", r"\dt", r"\di", r"\dv", r"\ds", r"\dp", r"\d+"]

SIZE_RE = re.compile(r"-?\d+ (bytes|kB|MB|GB|TB|PB)\b")


def _normalize_sizes(text: str) -> str:
    """Masks sizes, then the alignment that depends on their widths."""
    out = []
    for line in SIZE_RE.sub("SIZE", text).splitlines():
        line = re.sub(r" {2,}", " ", line)
        line = re.sub(r"-{2,}", "-", line)
        out.append(line.strip())
    return "\n".join(out)


def _psql(server, db, command):
    r = run_tool(server, [pg_tool("psql"), "-X", "-d", db, "-c", command])
    out = re.sub(r'at port "\d+"', 'at port "PORT"', r.stdout)
    return {"rc": r.returncode, "stdout": out, "stderr": r.stderr}


_prepared: set = set()


def _prepare(server):
    """Creates the two databases and the objects on `server`, once per server."""
    key = (server.host, server.port)
    if key in _prepared:
        return
    for db in (DB, EMPTY_DB):
        r = run_tool(server, [pg_tool("psql"), "-X", "-v", "ON_ERROR_STOP=1", "-c",
                              f"DROP DATABASE IF EXISTS {db}", "-c", f"CREATE DATABASE {db}"])
        assert r.returncode == 0, f"{server.name}: {r.stderr}"
    r = run_tool(server, [pg_tool("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", DB],
                 input=SETUP)
    assert r.returncode == 0, f"{server.name}: {r.stderr}"
    _prepared.add(key)


@pytest.mark.parametrize("command,sized", COMMANDS, ids=[c for c, _ in COMMANDS])
def test_psql_meta(pg, server, command, sized):
    _prepare(pg)
    _prepare(server)

    def observe(s):
        r = _psql(s, DB, command)
        if sized:
            r["stdout"] = _normalize_sizes(r["stdout"])
        return r
    ref = differential(pg, server, observe, f"psql {command}")
    assert "ERROR" not in ref["stderr"] or command in EXPECTED_ERRORS, ref


@pytest.mark.parametrize("command", EMPTY_COMMANDS)
def test_psql_meta_empty_database(pg, server, command):
    _prepare(pg)
    _prepare(server)
    ref = differential(pg, server, lambda s: _psql(s, EMPTY_DB, command), f"psql {command}")
    assert "Did not find any relations." in ref["stderr"] or command == r"\dp", ref
