//! Table-driven tests of the rules parser and matcher; the expected errors are what PostgreSQL
//! 15's pg_hba_file_rules shows for the same lines.

use super::*;

fn no_include(name: &str) -> Result<String, String> {
    Err(format!(
        "could not open secondary authentication file \"@{name}\" as \"/x/{name}\": No such file or directory"
    ))
}

fn parse_one(line: &str) -> Line {
    let p = parse(line, false, &no_include);
    assert_eq!(p.lines.len(), 1, "{line}: {p:?}");
    p.lines.into_iter().next().unwrap()
}

#[test]
fn line_errors_are_postgres_texts() {
    let cases: &[(&str, &str)] = &[
        ("host all all 10.0.0.0/33 trust", "invalid CIDR mask in address \"10.0.0.0/33\""),
        ("host all all 1.2.3.4/ trust", "invalid CIDR mask in address \"1.2.3.4/\""),
        ("host all all 1.2.3.4/-1 trust", "invalid CIDR mask in address \"1.2.3.4/-1\""),
        ("host all all ::1/129 trust", "invalid CIDR mask in address \"::1/129\""),
        ("host all all 1.2.3.4 trust", "invalid IP mask \"trust\": Name or service not known"),
        ("host all all 1.2.3.4 zz trust", "invalid IP mask \"zz\": Name or service not known"),
        ("host all all 1.2.3.4 ffff::0 trust", "IP address and mask do not match"),
        ("host all all 1.2.3.4 255.0.0.0 ", "end-of-line before authentication method"),
        ("host all all 1.2.3.4", "end-of-line before netmask specification"),
        ("host all all 1.2.3.4/32 bogus", "invalid authentication method \"bogus\""),
        ("host all all", "end-of-line before IP address specification"),
        ("host all", "end-of-line before role specification"),
        ("host", "end-of-line before database specification"),
        ("local all all 1.2.3.4 trust", "invalid authentication method \"1.2.3.4\""),
        ("host all all 1.2.3.4/32 trust foo=bar", "unrecognized authentication option name: \"foo\""),
        ("host all all 1.2.3.4/32 trust foo", "authentication option not in name=value format: foo"),
        ("host all all 1.2.3.4/32 trust clientcert=verify-ca", "clientcert can only be configured for \"hostssl\" rows"),
        ("host all all 1.2.3.4/32 trust clientname=CN", "clientname can only be configured for \"hostssl\" rows"),
        ("hostfoo all all 1.2.3.4/32 trust", "invalid connection type \"hostfoo\""),
        ("host,local all all 1.2.3.4/32 trust", "multiple values specified for connection type"),
        ("host all all 1.2.3.4,5.6.7.8 trust", "multiple values specified for host address"),
        ("host all all all,samehost trust", "multiple values specified for host address"),
        ("host all all 1.2.3.4/32 trust,reject", "multiple values specified for authentication type"),
        ("host all all 1.2.3.4 255.0.0.0,255.0.0.0 trust", "multiple values specified for netmask"),
        ("host all all foo/24 trust", "specifying both host name and CIDR mask is invalid: \"foo/24\""),
        ("host all , 0.0.0.0/0 trust", "end-of-line before authentication method"),
        ("host all all 0.0.0.0/0 scram-sha-256 foo=bar", "unrecognized authentication option name: \"foo\""),
        ("host all all 0.0.0.0/0 md5 map=x", "authentication option \"map\" is only valid for authentication methods ident, peer, gssapi, sspi, and cert"),
        ("host all all 0.0.0.0/0 trust krb_realm=x", "authentication option \"krb_realm\" is only valid for authentication methods gssapi and sspi"),
        ("host all all 0.0.0.0/0 trust ldapserver=x", "authentication option \"ldapserver\" is only valid for authentication methods ldap"),
        ("host all all 0.0.0.0/0 trust compat_realm=1", "authentication option \"compat_realm\" is only valid for authentication methods sspi"),
        ("include foo", "invalid connection type \"include\""),
        ("host all all 0.0.0.0/0 sspi", "invalid authentication method \"sspi\": not supported by this build"),
        ("host all all 0.0.0.0/0 bsd", "invalid authentication method \"bsd\": not supported by this build"),
        ("host all all 0.0.0.0/0 crypt", "invalid authentication method \"crypt\""),
        ("host all all 0.0.0.0/0 gss", "invalid authentication method \"gss\": not supported by this build"),
        ("host all all 0.0.0.0/0 ident", "invalid authentication method \"ident\": not supported by this build"),
        ("local all all gss", "gssapi authentication is not supported on local sockets"),
        ("host db @nonexist 1.2.3.4/32 trust", "could not open secondary authentication file \"@nonexist\" as \"/x/nonexist\": No such file or directory"),
    ];
    for (line, error) in cases {
        let l = parse_one(line);
        assert_eq!(l.rule, None, "{line}");
        assert_eq!(l.error.as_deref(), Some(*error), "{line}");
    }
}

#[test]
fn lines_that_parse_show_postgres_columns() {
    // (line, databases, users, address, netmask, method, options)
    type Case<'a> = (
        &'a str,
        &'a [&'a str],
        &'a [&'a str],
        Option<&'a str>,
        Option<&'a str>,
        &'a str,
        &'a [&'a str],
    );
    let cases: &[Case] = &[
        (
            "local all all trust",
            &["all"],
            &["all"],
            None,
            None,
            "trust",
            &[],
        ),
        (
            "local all all ident",
            &["all"],
            &["all"],
            None,
            None,
            "peer",
            &[],
        ),
        (
            "local all postgres peer map=x",
            &["all"],
            &["postgres"],
            None,
            None,
            "peer",
            &["map=x"],
        ),
        (
            "host all scram_user 127.0.0.1/32 scram-sha-256",
            &["all"],
            &["scram_user"],
            Some("127.0.0.1"),
            Some("255.255.255.255"),
            "scram-sha-256",
            &[],
        ),
        (
            "host \"all\" \"u1\",u2,+grp 10.0.0.0/8 md5",
            &["all"],
            &["u1", "u2", "+grp"],
            Some("10.0.0.0"),
            Some("255.0.0.0"),
            "md5",
            &[],
        ),
        (
            "host sameuser,samerole,db1 all ::1/128 password",
            &["sameuser", "samerole", "db1"],
            &["all"],
            Some("::1"),
            Some("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
            "password",
            &[],
        ),
        (
            "hostnossl all all all trust",
            &["all"],
            &["all"],
            Some("all"),
            None,
            "trust",
            &[],
        ),
        (
            "host all all samehost trust",
            &["all"],
            &["all"],
            Some("samehost"),
            None,
            "trust",
            &[],
        ),
        (
            "host all all samenet trust",
            &["all"],
            &["all"],
            Some("samenet"),
            None,
            "trust",
            &[],
        ),
        (
            "host all all 192.168.1.0 255.255.255.0 trust",
            &["all"],
            &["all"],
            Some("192.168.1.0"),
            Some("255.255.255.0"),
            "trust",
            &[],
        ),
        (
            "host all all 192.168.1.1/24 trust",
            &["all"],
            &["all"],
            Some("192.168.1.1"),
            Some("255.255.255.0"),
            "trust",
            &[],
        ),
        (
            "host all all bogus.example.com trust",
            &["all"],
            &["all"],
            Some("bogus.example.com"),
            None,
            "trust",
            &[],
        ),
        (
            "host all \"a b\" 0.0.0.0/0 trust",
            &["all"],
            &["a b"],
            Some("0.0.0.0"),
            Some("0.0.0.0"),
            "trust",
            &[],
        ),
        (
            "host all \"a\"\"b\" 0.0.0.0/0 trust",
            &["all"],
            &["a\"b"],
            Some("0.0.0.0"),
            Some("0.0.0.0"),
            "trust",
            &[],
        ),
        (
            "host all \"\" 0.0.0.0/0 trust\t# trailing comment",
            &["all"],
            &[""],
            Some("0.0.0.0"),
            Some("0.0.0.0"),
            "trust",
            &[],
        ),
        (
            "host a\"b\" \"c\"d 1.2.3.4/32 trust",
            &["ab"],
            &["cd"],
            Some("1.2.3.4"),
            Some("255.255.255.255"),
            "trust",
            &[],
        ),
        (
            "host all all 1.2.3.4/+8 trust",
            &["all"],
            &["all"],
            Some("1.2.3.4"),
            Some("255.0.0.0"),
            "trust",
            &[],
        ),
        (
            "host all all 127.1/32 trust",
            &["all"],
            &["all"],
            Some("127.0.0.1"),
            Some("255.255.255.255"),
            "trust",
            &[],
        ),
        (
            "host all all 0x7f.1 255.255.255.255 trust",
            &["all"],
            &["all"],
            Some("127.0.0.1"),
            Some("255.255.255.255"),
            "trust",
            &[],
        ),
        (
            "host all all ::ffff:1.2.3.4/128 trust",
            &["all"],
            &["all"],
            Some("::ffff:1.2.3.4"),
            Some("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
            "trust",
            &[],
        ),
        (
            "host all all fe80::1%eth0/64 trust",
            &["all"],
            &["all"],
            Some("fe80::1"),
            Some("ffff:ffff:ffff:ffff::"),
            "trust",
            &[],
        ),
        (
            "\"host\" all all \"all\" \"trust\"",
            &["all"],
            &["all"],
            Some("all"),
            None,
            "trust",
            &[],
        ),
        (
            "host all all 1.2.3.4/32 trust ,",
            &["all"],
            &["all"],
            Some("1.2.3.4"),
            Some("255.255.255.255"),
            "trust",
            &[],
        ),
        (
            "hostnogssenc all all 0.0.0.0/0 trust",
            &["all"],
            &["all"],
            Some("0.0.0.0"),
            Some("0.0.0.0"),
            "trust",
            &[],
        ),
    ];
    for (line, dbs, users, addr, mask, method, options) in cases {
        let l = parse_one(line);
        assert_eq!(l.error, None, "{line}");
        let r = l.rule.expect(line);
        let texts = |t: &[Token]| t.iter().map(|t| t.text.clone()).collect::<Vec<_>>();
        assert_eq!(texts(&r.databases), *dbs, "{line}");
        assert_eq!(texts(&r.users), *users, "{line}");
        let (a, m) = r.address_columns();
        assert_eq!((a.as_deref(), m.as_deref()), (*addr, *mask), "{line}");
        assert_eq!(r.method.name(), *method, "{line}");
        assert_eq!(r.options, *options, "{line}");
    }
}

#[test]
fn hostssl_without_ssl_loads_with_a_warning() {
    let l = parse_one("hostssl all all 0.0.0.0/0 md5 clientcert=verify-ca");
    assert_eq!(
        l.error.as_deref(),
        Some("hostssl record cannot match because SSL is disabled")
    );
    assert_eq!(l.rule.unwrap().options, ["clientcert=verify-ca"]);
    let p = parse("hostssl all all 0.0.0.0/0 md5", true, &no_include);
    assert_eq!(p.lines[0].error, None);
}

#[test]
fn continuation_comments_and_line_numbers() {
    let text = "# comment\n\nlocal all all trust\nhost all all 1.2.3.4/32 trust foo=bar \\\n  x=y\nhost all all 1.2.3.4/32 trust\\\n\nhost all all 1.2.3.4/32 trust #x \\\nhost all all 1.2.3.4/32 md5\r\nhost all all 2.2.2.2/32 md5\r\n";
    let p = parse(text, false, &no_include);
    let got: Vec<(usize, Option<&str>)> = p
        .lines
        .iter()
        .map(|l| (l.line, l.error.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            (3, None),
            (4, Some("unrecognized authentication option name: \"foo\"")),
            (6, None),
            (8, None),
            (10, None),
        ]
    );
    assert_eq!(p.lines[3].rule.as_ref().unwrap().method, Method::Trust);
    let err = p.rules("f").unwrap_err();
    assert_eq!(
        (err.line, err.message.as_str()),
        (4, "unrecognized authentication option name: \"foo\"")
    );
    assert_eq!(
        parse("# nothing\n", false, &no_include)
            .rules("/p/hba.conf")
            .unwrap_err()
            .message,
        "configuration file \"/p/hba.conf\" contains no entries"
    );
}

#[test]
fn include_files_expand_in_place_and_nesting_is_bounded() {
    let include = |name: &str| -> Result<String, String> {
        match name {
            "users" => Ok("alice, bob\n\"carol\" # comment\n@more".into()),
            "more" => Ok("dave".into()),
            "loop" => Ok("@loop".into()),
            other => no_include(other),
        }
    };
    let p = parse("host all x,@users,y 0.0.0.0/0 trust", false, &include);
    let users: Vec<_> = p.lines[0]
        .rule
        .as_ref()
        .unwrap()
        .users
        .iter()
        .map(|t| t.text.as_str())
        .collect();
    assert_eq!(users, ["x", "alice", "bob", "carol", "dave", "y"]);
    let p = parse("host all @loop 0.0.0.0/0 trust", false, &include);
    assert!(
        p.lines[0].error.as_ref().unwrap().contains("nesting"),
        "{p:?}"
    );
    // quoted: not an include
    let p = parse("host all \"@users\" 0.0.0.0/0 trust", false, &include);
    assert_eq!(p.lines[0].rule.as_ref().unwrap().users[0].text, "@users");
}

fn ip(s: &str) -> Option<IpAddr> {
    Some(s.parse().unwrap())
}

#[test]
fn first_matching_rule_wins() {
    let text = "\
local all all trust
host all blocked 0.0.0.0/0 reject
host db1 all 10.0.0.0/8 md5
host sameuser all 10.0.0.0/8 password
host all +admins 10.0.0.0/8 trust
host samerole all 10.0.0.0/8 trust
host \"all\" all 10.0.0.0/8 scram-sha-256
host all \"+quoted\" 10.0.0.0/8 trust
hostssl all all all trust
hostnossl all all 192.168.0.0 255.255.0.0 password
host all all ::1/128 trust
host all all samenet md5
host all all samehost scram-sha-256
host all all example.com trust
hostgssenc all all all trust
host replication all all reject
";
    let p = parse(text, false, &no_include);
    let rules = p.rules("f").unwrap();
    let ifaces = [
        (ip("172.16.5.1").unwrap(), ip("255.255.0.0").unwrap()),
        (ip("fd00::2").unwrap(), ip("ffff:ffff:ffff:ffff::").unwrap()),
    ];
    let member = |user: &str, role: &str| user == role || (user == "ann" && role == "admins");
    // (address, ssl, user, database, line of the matching rule)
    type Case<'a> = (Option<IpAddr>, bool, &'a str, &'a str, Option<usize>);
    let cases: &[Case] = &[
        (None, false, "u", "d", Some(1)),
        (ip("10.1.2.3"), false, "blocked", "db1", Some(2)),
        (ip("10.1.2.3"), false, "u", "db1", Some(3)),
        (ip("10.1.2.3"), false, "u", "u", Some(4)),
        (ip("10.1.2.3"), false, "ann", "x", Some(5)),
        (ip("10.1.2.3"), false, "admins", "x", Some(5)),
        (ip("10.1.2.3"), false, "bob", "bob2", None),
        (ip("10.1.2.3"), false, "ann", "admins", Some(5)),
        (ip("10.1.2.3"), false, "u", "all", Some(7)),
        (ip("10.1.2.3"), false, "+quoted", "zz", Some(8)),
        (ip("10.1.2.3"), true, "x", "zz", Some(9)),
        (ip("192.168.3.4"), false, "u", "d", Some(10)),
        (ip("192.168.3.4"), true, "u", "d", Some(9)),
        (ip("::1"), false, "u", "d", Some(11)),
        (ip("::ffff:10.0.0.1"), false, "u", "db1", Some(3)),
        (ip("172.16.200.1"), false, "u", "d", Some(12)),
        (ip("fd00::99"), false, "u", "d", Some(12)),
        (ip("172.17.0.1"), false, "u", "d", None),
        (ip("8.8.8.8"), false, "u", "replication", None),
    ];
    for (addr, ssl, user, database, want) in cases {
        let c = Client {
            addr: *addr,
            ssl: *ssl,
            user,
            database,
            member_of: &member,
            interfaces: &ifaces,
        };
        assert_eq!(
            rules.find(&c).map(|r| r.line),
            *want,
            "{addr:?} {ssl} {user} {database}"
        );
    }
    let samehost = parse("host all all samehost trust", false, &no_include)
        .rules("f")
        .unwrap();
    let c = |a| Client {
        addr: a,
        ssl: false,
        user: "u",
        database: "d",
        member_of: &member,
        interfaces: &ifaces,
    };
    assert!(samehost.find(&c(ip("172.16.5.1"))).is_some());
    assert!(samehost.find(&c(ip("172.16.5.2"))).is_none());
    assert!(samehost.needs_interfaces());
}

#[test]
fn default_rules_trust_loopback_or_ask_for_the_password() {
    let member = |u: &str, r: &str| u == r;
    let c = |a: &str| Client {
        addr: ip(a),
        ssl: false,
        user: "u",
        database: "d",
        member_of: &member,
        interfaces: &[],
    };
    let trust = default_rules(false).rules("").unwrap();
    assert_eq!(
        trust.find(&c("127.0.0.1")).map(|r| r.method),
        Some(Method::Trust)
    );
    assert_eq!(trust.find(&c("::1")).map(|r| r.method), Some(Method::Trust));
    assert!(trust.find(&c("10.0.0.1")).is_none());
    let scram = default_rules(true).rules("").unwrap();
    assert_eq!(
        scram.find(&c("10.0.0.1")).map(|r| r.method),
        Some(Method::ScramSha256)
    );
    assert_eq!(
        scram.find(&c("127.0.0.1")).map(|r| r.method),
        Some(Method::ScramSha256)
    );
}

#[test]
fn inet_aton_forms() {
    for (s, want) in [
        ("1.2.3.4", Some("1.2.3.4")),
        ("127.1", Some("127.0.0.1")),
        ("0x7f.1", Some("127.0.0.1")),
        ("010.0.0.1", Some("8.0.0.1")),
        ("1", Some("0.0.0.1")),
        ("256.1.1.1", None),
        ("1.2.3.4.5", None),
        ("a.b", None),
        ("", None),
        ("1..2", None),
    ] {
        assert_eq!(inet_aton(s).map(|a| a.to_string()).as_deref(), want, "{s}");
    }
}
