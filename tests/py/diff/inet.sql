-- Differential SQL cases: inet and cidr: I/O, comparisons, casts, functions.

-- name: inet_literals
SELECT '192.168.1.5'::inet, '192.168.1.5/24'::inet, '192.168.1.5/32'::inet, '10/8'::inet, '10.1/16'::inet, '0.0.0.0/0'::inet;
SELECT '::1'::inet, '::'::inet, '2001:db8::1/64'::inet, '2001:DB8:0:0:1:0:0:1'::inet, 'fe80::1:0:0:0/10'::inet, '1:0:0:2:0:0:0:3'::inet;
SELECT '::ffff:1.2.3.4'::inet, '::1.2.3.4'::inet, '::1.2.3.4/120'::inet, '::ffff:0:1.2.3.4'::inet, '::2'::inet, '1::1.2.3.4'::inet;
SELECT '1:2:3:4:5:6:7:8'::inet, '1:2:3:4:5:6:7::'::inet, '::2:3:4:5:6:7:8'::inet, '1:0:0:4:0:0:7:8/128'::inet, '0:0:0:0:0:0:0:1/127'::inet;
SELECT inet '255.255.255.255', '1.2.3.4/0'::inet, '::1.2.3/96'::inet, '::ffff:1.2.3.4/100'::inet, NULL::inet, pg_typeof('1.2.3.4'::inet);

-- name: cidr_literals
SELECT '10'::cidr, '10.1'::cidr, '192.168.1'::cidr, '128'::cidr, '224'::cidr, '224.1'::cidr, '240'::cidr, '200'::cidr;
SELECT '192.168.1.0/24'::cidr, '0x0a'::cidr, '0x0A0B'::cidr, '0xa0b0c'::cidr, '10.0.0.0/8'::cidr, '0.0.0.0/0'::cidr, '1.2.3.4'::cidr;
SELECT '2001:db8::/32'::cidr, '::/0'::cidr, '::1'::cidr, 'ffff::/16'::cidr, '::ffff:1.2.3.0/120'::cidr, cidr '10.0/16';

-- name: inet_invalid
-- @errors
SELECT 'abc'::inet;
SELECT ''::inet;
SELECT '1.2.3'::inet;
SELECT '1.2.3.4.5'::inet;
SELECT '256.1.1.1'::inet;
SELECT '1.2.3.4/33'::inet;
SELECT '1.2/24'::inet;
SELECT ' 1.2.3.4'::inet;
SELECT '1.2.3.4 '::inet;
SELECT '1.2.3.4/'::inet;
SELECT '1.2.3.4/-1'::inet;
SELECT '::1/129'::inet;
SELECT '1::2::3'::inet;
SELECT '12345::1'::inet;
SELECT '1:2:3:4:5:6:7:8:9'::inet;
SELECT ':1'::inet;
SELECT '1:'::inet;
SELECT '::1/08'::inet;
SELECT '::01.2.3.4'::inet;
SELECT '::1.2.3.4.5'::inet;
SELECT 'g::1'::inet;
SELECT '192.168.1.5/24'::cidr;
SELECT '10.1.0.0/8'::cidr;
SELECT '2001:db8::1/64'::cidr;
SELECT '1.2.3.4/33'::cidr;
SELECT '0x'::cidr;
SELECT '0x123456789'::cidr;
SELECT '10..1'::cidr;
SELECT '10.'::cidr;
SELECT 'x'::cidr;

-- name: inet_compare
SELECT '10.0.0.1'::inet < '10.0.0.2'::inet, '10.0.0.0/8'::inet < '10.0.0.0/16'::inet, '10.0.0.5/8'::inet < '10.0.0.1/16'::inet;
SELECT '1.2.3.4'::inet = '1.2.3.4/32'::inet, '1.2.3.4/24'::inet = '1.2.3.4'::inet, '255.255.255.255'::inet < '::'::inet, '10.0.0.1'::inet <> '10.0.0.1/24';
SELECT '10.1.2.3'::inet >= '10.1.2.3/31'::inet, '9.255.255.255'::inet > '10.0.0.0/8'::inet, '10.0.0.0/8'::cidr = '10.0.0.0/8'::inet;
SELECT i FROM (VALUES ('10.0.0.1'::inet), ('10.0.0.0/8'), ('::1'), ('192.168.0.1/16'), (NULL), ('10.0.0.0/16'), ('1.2.3.4'), ('::/0'), ('10.0.0.1/24')) v(i) ORDER BY i;
SELECT max(i), min(i), count(DISTINCT i) FROM (VALUES ('10.0.0.1'::inet), ('10.0.0.1/32'), ('::1')) v(i);
SELECT '10.1.2.3'::inet << '10.0.0.0/8'::inet, '10.0.0.0/8'::inet << '10.0.0.0/8'::inet, '10.0.0.0/8'::inet <<= '10.0.0.0/8'::inet, '10.0.0.0/8'::cidr >> '10.1.2.3'::inet;
SELECT '10.0.0.0/8'::inet >>= '10.0.0.0/8'::inet, '10.0.0.0/8'::inet && '10.1.0.0/16'::inet, '10.0.0.0/8'::inet && '11.0.0.0/8'::inet, '::1'::inet << '::/0'::inet, '1.2.3.4'::inet << '::/0'::inet;

-- name: inet_functions
SELECT host('192.168.1.5/24'::inet), host('::1/64'::inet), host('10.0.0.0/8'::cidr), masklen('192.168.1.5/24'::inet), masklen('::1'::inet), family('1.2.3.4'::inet), family('::1'::inet);
SELECT text('192.168.1.5'::inet), text('192.168.1.5/24'::inet), text('10.0.0.0/8'::cidr), text('::1'::inet), text('::ffff:1.2.3.4'::inet);
SELECT abbrev('10.1.0.0/16'::inet), abbrev('10.1.0.0/16'::cidr), abbrev('10.1.0.0/32'::inet), abbrev('0.0.0.0/0'::cidr), abbrev('10.1.128.0/17'::cidr), abbrev('1.2.3.4'::cidr);
SELECT abbrev('2001:db8::/32'::cidr), abbrev('::/0'::cidr), abbrev('::1'::cidr), abbrev('ffff::/16'::cidr), abbrev('::ffff:1.2.3.0/120'::cidr), abbrev('::1.2.0.0/112'::cidr), abbrev('1:2::/33'::cidr);
SELECT network('192.168.1.5/24'::inet), network('2001:db8::1/35'::inet), broadcast('192.168.1.5/24'::inet), broadcast('10.1.2.3/13'::inet), broadcast('2001:db8::1/64'::inet);
SELECT netmask('192.168.1.5/24'::inet), netmask('10.0.0.0/13'::cidr), netmask('::1/64'::inet), hostmask('192.168.1.5/24'::inet), hostmask('::1/100'::inet), netmask('1.2.3.4/0'::inet);
SELECT set_masklen('192.168.1.5/24'::inet, 16), set_masklen('192.168.1.0/24'::cidr, 16), set_masklen('::1'::inet, 64), set_masklen('1.2.3.4/8'::inet, -1), inet_same_family('1.2.3.4'::inet, '::1'::inet);
SELECT pg_typeof(network('1.2.3.4'::inet)), pg_typeof(broadcast('1.2.3.4'::inet)), pg_typeof(host('1.2.3.4'::inet)), pg_typeof(masklen('1.2.3.4'::inet));
SELECT host(NULL::inet), masklen(NULL), family(NULL::inet), abbrev(NULL::cidr), network(NULL);

-- name: inet_function_errors
-- @errors
SELECT set_masklen('1.2.3.4'::inet, 33);
SELECT set_masklen('::1'::inet, -2);
SELECT masklen('1.2.3.4');
SELECT '1.2.3.4'::inet + '1.2.3.4'::inet;
SELECT '1.2.3.4'::inet::int;

-- name: inet_casts
SELECT '10.1.2.3/8'::inet::cidr, '10.1.2.3'::inet::cidr, '10.0.0.0/8'::cidr::inet, '1.2.3.4'::inet::text, '1.2.3.4'::inet::varchar, '1.2.3.4/24'::inet::char(20);
SELECT '10.0.0.0/8'::cidr::text, '::1'::inet::text, CAST('1.2.3.4' AS inet), '1.2.3.4'::text::inet, '10/8'::varchar::cidr, '1.2.3.4'::inet || 'x';
SELECT 'x' || '10.0.0.0/8'::cidr, concat('1.2.3.4'::inet, '/', '::1'::inet), format('%s', '1.2.3.4/32'::inet), pg_typeof('1.2.3.4'::inet::cidr), '2001:db8::1/64'::inet::cidr;

-- name: inet_arrays
SELECT ARRAY['1.2.3.4'::inet, NULL, '::1/64'], '{1.2.3.4,10.0.0.0/8}'::inet[], '{10/8,"192.168.1"}'::cidr[], ARRAY[]::inet[];
SELECT (ARRAY['1.2.3.4'::inet, '5.6.7.8'])[2], '1.2.3.4'::inet = ANY('{1.2.3.4/32,::1}'::inet[]), pg_typeof(ARRAY['10/8'::cidr]), array_to_string(ARRAY['1.2.3.4'::inet, '::1'], ',');

-- name: inet_client_server
SELECT inet_client_addr() = '127.0.0.1', inet_client_port() > 0, inet_server_addr(), inet_server_port() > 0, pg_typeof(inet_client_addr()), pg_typeof(inet_server_port());
SELECT family(inet_client_addr()), masklen(inet_server_addr()), inet_client_addr() << '127.0.0.0/8'::inet;
SELECT host(client_addr), client_addr = inet_client_addr(), client_port = inet_client_port(), pg_typeof(client_addr), pg_typeof(client_port) FROM pg_stat_activity WHERE pid = pg_backend_pid();
