#!/usr/bin/env node
// clienttest.js: node-postgres (pg) checks against a PostgreSQL-compatible server.
//
// Usage: node clienttest.js [--dsn URL] [--list] [check ...]
//
// The DSN comes from --dsn or PGURL (postgresql://user@host:port/db). With no check
// names every check runs. Each check prints "ok <name>" or "FAIL <name>: <error>";
// the exit status is 1 when any check failed, 2 on usage errors.
'use strict';

// A fixed non-UTC zone, so that Date parameters carry a real offset ("+02:00").
process.env.TZ = 'Europe/Berlin';

const assert = require('assert');
const { Client } = require('pg');

const CHECK_TIMEOUT_MS = 20000;

let DSN = null;

function newClient() {
  return new Client({
    connectionString: DSN,
    connectionTimeoutMillis: 10000,
    query_timeout: 15000,
  });
}

async function withClient(fn) {
  const c = newClient();
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => {});
  }
}

function uniqueName(prefix) {
  return `${prefix}_${process.pid}_${Date.now() % 1000000}`;
}

async function expectError(client, query, values, code) {
  let err = null;
  try {
    await client.query(query, values);
  } catch (e) {
    err = e;
  }
  if (!err) throw new Error(`${JSON.stringify(query)}: expected error ${code}, got success`);
  if (err.code !== code) {
    throw new Error(`${JSON.stringify(query)}: SQLSTATE ${err.code} (${err.message}), want ${code}`);
  }
  return err;
}

function fieldOids(result) {
  const out = {};
  for (const f of result.fields) out[f.name] = f.dataTypeID;
  return out;
}

async function appName(client) {
  const r = await client.query('SHOW application_name');
  return r.rows[0].application_name;
}

// ------------------------------------------------------------------ checks

const checks = [];
function check(name, fn) {
  checks.push({ name, fn });
}

check('connect', async () => {
  await withClient(async (c) => {
    const r = await c.query('SELECT 1 AS one');
    assert.deepStrictEqual(r.rows, [{ one: 1 }]);
    assert.strictEqual(r.command, 'SELECT');
    assert.strictEqual(r.rowCount, 1);
    assert.ok(c.processID, 'no BackendKeyData (processID)');
    const v = await c.query('SHOW server_version');
    assert.match(v.rows[0].server_version, /^\d+/);
  });
});

check('simple_multi_statement', async () => {
  await withClient(async (c) => {
    // no parameters: one simple Query message with three statements
    const res = await c.query("SELECT 1 AS a; SELECT 'two' AS b, 3 AS c; SET application_name = 'node_multi'");
    assert.ok(Array.isArray(res), 'expected an array of results');
    assert.strictEqual(res.length, 3);
    assert.deepStrictEqual(res[0].rows, [{ a: 1 }]);
    assert.deepStrictEqual(res[1].rows, [{ b: 'two', c: 3 }]);
    assert.strictEqual(res[2].command, 'SET');
    assert.strictEqual(await appName(c), 'node_multi');
    // an error in the middle of a multi-statement query: the whole message is one implicit transaction
    await expectError(c, "SET application_name = 'lost'; SELECT 1/0; SELECT 2", undefined, '22012');
    assert.strictEqual(await appName(c), 'node_multi');
    // empty statements
    const e = await c.query(';');
    assert.ok(e !== undefined);
  });
});

check('params', async () => {
  await withClient(async (c) => {
    // node-pg: unnamed Parse with all parameter OIDs 0, text Bind values
    const r = await c.query(
      'SELECT $1::int + 1 AS x, $2::text AS t, $3 AS untyped, $4::numeric * 2 AS n, $5::bool AS b, $6::int8 AS big, $7::float8 AS f, $8::text AS nul',
      [41, "it's", 'plain', '1.25', true, '9007199254740993', 0.1, null]
    );
    assert.deepStrictEqual(r.rows, [
      { x: 42, t: "it's", untyped: 'plain', n: '2.50', b: true, big: '9007199254740993', f: 0.1, nul: null },
    ]);
    assert.deepStrictEqual(fieldOids(r), { x: 23, t: 25, untyped: 25, n: 1700, b: 16, big: 20, f: 701, nul: 25 });
    // types inferred from context, no casts
    const r2 = await c.query('SELECT $1 + 1 AS plus, 5 > $2 AS gt, $3 = 1.5 AS eq', ['1', '3', '1.50']);
    assert.deepStrictEqual(r2.rows, [{ plus: 2, gt: true, eq: true }]);
    assert.deepStrictEqual(fieldOids(r2), { plus: 23, gt: 16, eq: 16 });
    const r3 = await c.query('SELECT $1::text IS NULL AS isnull, coalesce($2::int, 7) AS co', [null, null]);
    assert.deepStrictEqual(r3.rows, [{ isnull: true, co: 7 }]);
  });
});

check('types', async () => {
  await withClient(async (c) => {
    const r = await c.query(
      "SELECT 1::int4 AS i4, 2::int2 AS i2, 3000000000::int8 AS i8, 1.50::numeric(5,2) AS n, true AS b, false AS bf, " +
        "'2024-01-02 03:04:05.678+00'::timestamptz AS ts, 'txt'::text AS t, 'v'::varchar(5) AS vc, 'c'::char(3) AS ch, " +
        "ARRAY[1,2,3] AS ia, ARRAY['a','b c',NULL] AS ta, 1.5::float8 AS f8, NULL::int AS nul, count(*) AS cnt"
    );
    assert.deepStrictEqual(fieldOids(r), {
      i4: 23, i2: 21, i8: 20, n: 1700, b: 16, bf: 16, ts: 1184, t: 25, vc: 1043, ch: 1042,
      ia: 1007, ta: 1009, f8: 701, nul: 23, cnt: 20,
    });
    const row = r.rows[0];
    assert.ok(row.ts instanceof Date, 'timestamptz not parsed to a Date');
    assert.strictEqual(row.ts.toISOString(), '2024-01-02T03:04:05.678Z');
    delete row.ts;
    assert.deepStrictEqual(row, {
      i4: 1, i2: 2, i8: '3000000000', n: '1.50', b: true, bf: false, t: 'txt', vc: 'v', ch: 'c  ',
      ia: [1, 2, 3], ta: ['a', 'b c', null], f8: 1.5, nul: null, cnt: '1',
    });
  });
});

check('timestamptz_params', async () => {
  await withClient(async (c) => {
    // a Date is sent as local time with offset, e.g. 2024-07-01T12:00:00.250+02:00 (ISO 'T' separator)
    const d = new Date(Date.UTC(2024, 6, 1, 10, 0, 0, 250));
    const r = await c.query(
      "SELECT $1::timestamptz AS ts, $1::timestamptz = '2024-07-01 10:00:00.25+00'::timestamptz AS eq, " +
        "$2::timestamptz AS winter, $3::timestamptz AS iso_text",
      [d, new Date(Date.UTC(2023, 11, 31, 23, 59, 59)), '2024-03-04T05:06:07+00:00']
    );
    const row = r.rows[0];
    assert.strictEqual(row.eq, true);
    assert.strictEqual(row.ts.toISOString(), '2024-07-01T10:00:00.250Z');
    assert.strictEqual(row.winter.toISOString(), '2023-12-31T23:59:59.000Z');
    assert.strictEqual(row.iso_text.toISOString(), '2024-03-04T05:06:07.000Z');
  });
});

check('params_arrays', async () => {
  await withClient(async (c) => {
    // JS arrays are sent as array literals {"1","2","3"}
    const r = await c.query('SELECT $1::int[] AS ia, $2::text[] AS ta, $3::int[] AS empty', [
      [1, 2, 3], ['x', 'y "q"', null], [],
    ]);
    assert.deepStrictEqual(r.rows, [{ ia: [1, 2, 3], ta: ['x', 'y "q"', null], empty: [] }]);
    assert.deepStrictEqual(fieldOids(r), { ia: 1007, ta: 1009, empty: 1007 });
  });
});

check('bytea_buffer', async () => {
  await withClient(async (c) => {
    // a Buffer parameter is sent in binary format with OID 0
    const buf = Buffer.from([0, 1, 2, 0xfe, 0xff]);
    const r = await c.query('SELECT $1::bytea AS b', [buf]);
    assert.strictEqual(r.fields[0].dataTypeID, 17);
    assert.ok(Buffer.isBuffer(r.rows[0].b), 'bytea not parsed to a Buffer');
    assert.strictEqual(r.rows[0].b.toString('hex'), '000102feff');
    const r2 = await c.query("SELECT '\\x41ff'::bytea AS lit");
    assert.strictEqual(r2.rows[0].lit.toString('hex'), '41ff');
  });
});

check('json', async () => {
  await withClient(async (c) => {
    // objects are sent as JSON text
    const obj = { a: 1, b: [true, null, 'x'], c: { d: 'é' } };
    const r = await c.query('SELECT $1::jsonb AS jb, $1::json AS j, $2::jsonb AS arr', [obj, JSON.stringify([1, 2])]);
    assert.deepStrictEqual(fieldOids(r), { jb: 3802, j: 114, arr: 3802 });
    assert.deepStrictEqual(r.rows[0].jb, obj);
    assert.deepStrictEqual(r.rows[0].j, obj);
    assert.deepStrictEqual(r.rows[0].arr, [1, 2]);
  });
});

check('named_statements', async () => {
  await withClient(async (c) => {
    // {name, text, values}: Parse once (named), then Bind/Execute only
    for (let i = 0; i < 5; i++) {
      const r = await c.query({ name: 'tg_double', text: 'SELECT $1::int * 2 AS d, $2::text AS label', values: [i, `n${i}`] });
      assert.deepStrictEqual(r.rows, [{ d: 2 * i, label: `n${i}` }]);
      assert.deepStrictEqual(fieldOids(r), { d: 23, label: 25 });
    }
    const r = await c.query({ name: 'tg_noparams', text: 'SELECT 42 AS answer' });
    assert.deepStrictEqual(r.rows, [{ answer: 42 }]);
    const r2 = await c.query({ name: 'tg_noparams', text: 'SELECT 42 AS answer' });
    assert.deepStrictEqual(r2.rows, [{ answer: 42 }]);
    // an error while executing a named statement, then reuse it
    await expectError(c, { name: 'tg_div', text: 'SELECT 10 / $1::int AS q', values: [0] }, undefined, '22012');
    const r3 = await c.query({ name: 'tg_div', text: 'SELECT 10 / $1::int AS q', values: [5] });
    assert.deepStrictEqual(r3.rows, [{ q: 2 }]);
    // rowMode array
    const r4 = await c.query({ text: 'SELECT 1 AS a, 2 AS b', rowMode: 'array' });
    assert.deepStrictEqual(r4.rows, [[1, 2]]);
  });
});

check('transactions', async () => {
  await withClient(async (c) => {
    // observed through application_name: a SET is undone when its transaction rolls back
    await c.query('BEGIN');
    await c.query("SET application_name = 'committed'");
    await c.query('COMMIT');
    assert.strictEqual(await appName(c), 'committed');
    await c.query('BEGIN');
    await c.query("SET application_name = 'aborted'");
    await expectError(c, 'SELECT 1/$1::int AS q', [0], '22012');
    // the failed statement aborted the transaction
    await expectError(c, 'SELECT 1', undefined, '25P02');
    const rb = await c.query('COMMIT'); // COMMIT of an aborted transaction reports ROLLBACK
    assert.strictEqual(rb.command, 'ROLLBACK');
    await c.query('BEGIN');
    await c.query("SET application_name = 'rolled_back'");
    const r = await c.query('SELECT $1::int AS v', [5]);
    assert.deepStrictEqual(r.rows, [{ v: 5 }]);
    await c.query('ROLLBACK');
    assert.strictEqual(await appName(c), 'committed');
    // savepoints
    await c.query('BEGIN');
    await c.query("SET application_name = 'outer'");
    await c.query('SAVEPOINT sp1');
    await c.query("SET application_name = 'inner'");
    await expectError(c, 'SELECT 1/0', undefined, '22012');
    await c.query('ROLLBACK TO SAVEPOINT sp1');
    assert.strictEqual(await appName(c), 'outer');
    await c.query('SAVEPOINT sp2');
    await c.query("SET application_name = 'released'");
    await c.query('RELEASE SAVEPOINT sp2');
    await c.query('COMMIT');
    assert.strictEqual(await appName(c), 'released');
  });
});

check('errors_sqlstate', async () => {
  await withClient(async (c) => {
    const cases = [
      ['SELECT 1/0', undefined, '22012'],
      ['SELECT * FROM no_such_table_node', undefined, '42P01'],
      ['SELEC 1', undefined, '42601'],
      ['SELECT $1::int AS v', ['abc'], '22P02'],
      ['SELECT no_such_column', undefined, '42703'],
      ['SELECT 1/$1::int', [0], '22012'],
    ];
    for (const [q, v, code] of cases) {
      const err = await expectError(c, q, v, code);
      assert.strictEqual(err.severity, 'ERROR');
      assert.ok(err.message, 'empty error message');
    }
    const r = await c.query('SELECT 5 AS five');
    assert.deepStrictEqual(r.rows, [{ five: 5 }]);
  });
});

check('listen_notify', async () => {
  const listener = newClient();
  const sender = newClient();
  await listener.connect();
  try {
    await sender.connect();
    const channel = uniqueName('node_chan');
    const received = [];
    let wake = null;
    listener.on('notification', (msg) => {
      received.push(msg);
      if (wake) wake();
    });
    await listener.query(`LISTEN ${channel}`);
    // the listener is now idle: nothing is in flight on its connection
    await sender.query('SELECT pg_notify($1, $2)', [channel, 'payload-1']);
    await sender.query(`NOTIFY ${channel}, 'payload-2'`);
    const deadline = Date.now() + 10000;
    while (received.length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => {
        wake = resolve;
        setTimeout(resolve, 200);
      });
    }
    assert.strictEqual(received.length, 2, `received ${received.length} notifications within 10s`);
    received.forEach((msg, i) => {
      assert.strictEqual(msg.channel, channel);
      assert.strictEqual(msg.payload, `payload-${i + 1}`);
      assert.strictEqual(msg.processId, sender.processID);
    });
    const r = await listener.query('SELECT 1 AS one');
    assert.deepStrictEqual(r.rows, [{ one: 1 }]);
  } finally {
    await listener.end().catch(() => {});
    await sender.end().catch(() => {});
  }
});

check('crud_table', async () => {
  await withClient(async (c) => {
    const t = uniqueName('node_crud');
    await c.query(`CREATE TABLE ${t} (id serial PRIMARY KEY, name text NOT NULL, amount numeric(10,2), flag boolean, ts timestamptz)`);
    try {
      const ins = await c.query(`INSERT INTO ${t} (name, amount, flag, ts) VALUES ($1, $2, $3, $4), ($5, $6, $7, $8) RETURNING id`, [
        'a', '1.10', true, new Date(Date.UTC(2024, 0, 1)), 'b', 2.2, false, '2024-01-02T00:00:00Z',
      ]);
      assert.strictEqual(ins.command, 'INSERT');
      assert.strictEqual(ins.rowCount, 2);
      assert.deepStrictEqual(ins.rows.map((r) => r.id), [1, 2]);
      const up = await c.query(`UPDATE ${t} SET amount = amount + $1 WHERE flag = $2`, ['0.05', 'true']);
      assert.strictEqual(up.rowCount, 1);
      const sel = await c.query(`SELECT id, name, amount, flag, ts FROM ${t} ORDER BY id`);
      assert.deepStrictEqual(
        sel.rows.map((r) => [r.id, r.name, r.amount, r.flag, r.ts.toISOString()]),
        [[1, 'a', '1.15', true, '2024-01-01T00:00:00.000Z'], [2, 'b', '2.20', false, '2024-01-02T00:00:00.000Z']]
      );
      await c.query('BEGIN');
      await c.query(`DELETE FROM ${t} WHERE id = $1`, [1]);
      await c.query('ROLLBACK');
      await expectError(c, `INSERT INTO ${t} (id, name) VALUES ($1, $2)`, [2, 'dup'], '23505');
      await expectError(c, `INSERT INTO ${t} (name) VALUES ($1)`, [null], '23502');
      const del = await c.query(`DELETE FROM ${t}`);
      assert.strictEqual(del.rowCount, 2);
    } finally {
      await c.query(`DROP TABLE ${t}`).catch(() => {});
    }
  });
});

// ------------------------------------------------------------------ TLS

// pg_stat_ssl's row for the session itself: [ssl, version].
async function sslRow(c) {
  const r = await c.query('SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
  return [r.rows[0].ssl, r.rows[0].version];
}

async function withSslClient(ssl, fn) {
  const c = new Client({ connectionString: DSN, connectionTimeoutMillis: 10000, query_timeout: 15000, ssl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => {});
  }
}

// TLS without verifying the server (a self-signed certificate).
check('ssl_no_verify', async () => {
  await withSslClient({ rejectUnauthorized: false }, async (c) => {
    const [ssl, version] = await sslRow(c);
    assert.strictEqual(ssl, true);
    assert.match(version, /^TLSv1\.[23]$/);
    const r = await c.query('SELECT $1::int + 1 AS n', [41]);
    assert.strictEqual(r.rows[0].n, 42);
  });
});

// TLS verifying the server against its certificate as the root (TG_SSL_ROOT_CERT, set by the
// harness: the server's own self-signed certificate, which names 127.0.0.1 and localhost).
check('ssl_with_ca', async () => {
  const path = process.env.TG_SSL_ROOT_CERT;
  if (!path) throw new Error('TG_SSL_ROOT_CERT is not set');
  const ca = require('fs').readFileSync(path, 'utf8');
  await withSslClient({ ca, rejectUnauthorized: true }, async (c) => {
    const [ssl] = await sslRow(c);
    assert.strictEqual(ssl, true);
  });
});

// ------------------------------------------------------------------ main

function describeError(e) {
  let s = e && e.message ? e.message : String(e);
  if (e && e.code && /^[0-9A-Z]{5}$/.test(e.code)) s += ` [SQLSTATE ${e.code}]`;
  return s.replace(/\s*\n\s*/g, ' | ');
}

async function runCheck(c) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([c.fn(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function main() {
  const args = process.argv.slice(2);
  const names = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--list') {
      for (const c of checks) console.log(c.name);
      return 0;
    } else if (args[i] === '--dsn') {
      DSN = args[++i];
    } else if (args[i].startsWith('--dsn=')) {
      DSN = args[i].slice(6);
    } else {
      names.push(args[i]);
    }
  }
  DSN = DSN || process.env.PGURL;
  if (!DSN) {
    console.error('clienttest.js: no DSN (use --dsn or PGURL)');
    return 2;
  }
  let selected = checks;
  if (names.length) {
    selected = [];
    for (const n of names) {
      const c = checks.find((x) => x.name === n);
      if (!c) {
        console.error(`clienttest.js: unknown check ${JSON.stringify(n)}`);
        return 2;
      }
      selected.push(c);
    }
  }
  let failed = 0;
  for (const c of selected) {
    try {
      await runCheck(c);
      console.log(`ok ${c.name}`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${c.name}: ${describeError(e)}`);
    }
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.log(`FAIL main: ${describeError(e)}`);
    process.exit(1);
  }
);
