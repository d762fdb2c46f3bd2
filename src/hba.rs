//! Host rules: PostgreSQL's pg_hba.conf, parsed and matched.
//!
//! A rules file has one rule a line, `type database user [address [mask]] method [options]`,
//! read exactly as PostgreSQL 15 reads pg_hba.conf (`hba.c`): the same tokens (comma lists,
//! double quotes, `#` comments, a trailing backslash continuing a line, `@file` naming a file
//! of more tokens), the same keywords (`all`, `sameuser`, `samerole`, `samegroup`,
//! `replication`, `+role` for members of a role; `all`, `samehost`, `samenet` for addresses) and
//! the same error texts, so that `pg_hba_file_rules` shows what PostgreSQL would show for the
//! same file. The first rule whose type, address, database and user match a connection decides
//! its authentication method; no matching rule rejects it.
//!
//! What threadgres cannot do yet, and how it reads such lines:
//!
//! * It listens on TCP only (no Unix socket), so `local` lines are read and shown but never match.
//!   On them every method PostgreSQL knows is accepted (a stock pg_hba.conf starts with `local
//!   all all peer`), since they cannot be used anyway.
//! * Methods other than trust, reject, md5, password and scram-sha-256 (gss, ident, ldap, ...) on
//!   TCP lines are refused as PostgreSQL refuses a method its build lacks: `invalid
//!   authentication method "gss": not supported by this build`.
//! * Host names in the address field are read but never match (threadgres does no DNS lookups).
//! * Without TLS (`ssl` false, passed in by the caller) `hostssl` lines never match and are shown
//!   with PostgreSQL's warning `hostssl record cannot match because SSL is disabled`; without
//!   GSSAPI `hostgssenc` lines never match either.
//! * Role membership (`+role`, `samerole`) is asked of the caller (`Client::member_of`).
//! * `clientcert` is kept in the rule's options and enforced by the caller
//!   (`session::authenticate`), which compares the certificate's CN only: `clientname=DN` lines
//!   refuse every client there.
//!
//! Everything here is pure: parsing takes the file's text and a function that reads `@file`
//! includes, matching takes the connection's facts (and the server's interface addresses for
//! `samehost` / `samenet`). The caller does the I/O.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

pub mod auth_limit;
pub mod file;

/// Bound on the size of a rules file and of each `@file` it includes (bytes): a file over it is
/// refused as unreadable, so a reload can never read an unbounded file into memory.
pub const MAX_FILE_BYTES: usize = 1 << 20;
/// Bound on `@file` nesting (PostgreSQL's tokenize_inc_file has no bound; a file including
/// itself must still end).
pub const MAX_INCLUDE_DEPTH: usize = 10;

/// A connection type: the first field of a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnType {
    Local,
    Host,
    HostSsl,
    HostNoSsl,
    HostGssEnc,
    HostNoGssEnc,
}

impl ConnType {
    pub fn name(self) -> &'static str {
        match self {
            ConnType::Local => "local",
            ConnType::Host => "host",
            ConnType::HostSsl => "hostssl",
            ConnType::HostNoSsl => "hostnossl",
            ConnType::HostGssEnc => "hostgssenc",
            ConnType::HostNoGssEnc => "hostnogssenc",
        }
    }
}

/// An authentication method, as PostgreSQL names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Trust,
    Reject,
    Md5,
    Password,
    ScramSha256,
    // Known to PostgreSQL, accepted on `local` lines only (which never match).
    Ident,
    Peer,
    Gss,
    Pam,
    Ldap,
    Cert,
    Radius,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Trust => "trust",
            Method::Reject => "reject",
            Method::Md5 => "md5",
            Method::Password => "password",
            Method::ScramSha256 => "scram-sha-256",
            Method::Ident => "ident",
            Method::Peer => "peer",
            Method::Gss => "gss",
            Method::Pam => "pam",
            Method::Ldap => "ldap",
            Method::Cert => "cert",
            Method::Radius => "radius",
        }
    }

    /// The methods threadgres can carry out.
    fn supported(self) -> bool {
        matches!(
            self,
            Method::Trust | Method::Reject | Method::Md5 | Method::Password | Method::ScramSha256
        )
    }
}

/// One word of a field; `quoted` when it began with a double quote (then it is never a keyword).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub text: String,
    pub quoted: bool,
}

impl Token {
    fn is_keyword(&self, k: &str) -> bool {
        !self.quoted && self.text == k
    }
}

/// The address field of a TCP rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Address {
    All,
    SameHost,
    SameNet,
    /// An address and mask; a client matches when `client & mask == addr & mask`.
    Net {
        addr: IpAddr,
        mask: IpAddr,
    },
    /// A host name: read, never matched (no DNS lookups).
    Name(String),
}

/// A rule that parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub line: usize,
    pub conn: ConnType,
    pub databases: Vec<Token>,
    pub users: Vec<Token>,
    /// `None` for `local` lines.
    pub address: Option<Address>,
    pub method: Method,
    /// `name=value` options as PostgreSQL's view shows them.
    pub options: Vec<String>,
    /// The whole line, for the log message naming the rule a connection matched.
    pub text: String,
}

/// A line as `pg_hba_file_rules` shows it: its rule, or its error (the rule may also carry a
/// warning that PostgreSQL shows as the line's error while still using it, as for `hostssl`
/// with SSL off).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub line: usize,
    pub rule: Option<Rule>,
    pub error: Option<String>,
}

/// A parsed file: every non-empty line, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub lines: Vec<Line>,
}

/// Why a file could not be loaded, with PostgreSQL's texts: the first line's error (PostgreSQL
/// logs each; threadgres reports the first with its line) or that the file has no rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// 0 when the error is about the whole file.
    pub line: usize,
    pub message: String,
}

/// The rules in force.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    pub rules: Vec<Rule>,
}

impl Parsed {
    /// The rules, or the first error, as PostgreSQL's load_hba decides: any line with an error
    /// (other than a warning) fails the whole file, and so does a file without rules.
    pub fn rules(&self, path: &str) -> Result<Rules, LoadError> {
        if let Some(l) = self.lines.iter().find(|l| l.rule.is_none()) {
            return Err(LoadError {
                line: l.line,
                message: l.error.clone().unwrap_or_default(),
            });
        }
        let rules: Vec<Rule> = self.lines.iter().filter_map(|l| l.rule.clone()).collect();
        if rules.is_empty() {
            return Err(LoadError {
                line: 0,
                message: format!("configuration file \"{path}\" contains no entries"),
            });
        }
        Ok(Rules { rules })
    }

    /// The warnings of lines that load anyway (hostssl without SSL), for the log.
    pub fn warnings(&self) -> impl Iterator<Item = &Line> {
        self.lines
            .iter()
            .filter(|l| l.rule.is_some() && l.error.is_some())
    }
}

/// Reads `@file` includes: given the name as written, returns the text, or the error text
/// (`could not open secondary authentication file ...`).
pub type Include<'a> = &'a dyn Fn(&str) -> Result<String, String>;

/// Parses a whole rules file. `ssl` says whether the server has TLS (hostssl lines then carry
/// no warning).
pub fn parse(text: &str, ssl: bool, include: Include) -> Parsed {
    let mut lines = Vec::new();
    for (line_no, raw) in logical_lines(text) {
        let fields = match tokenize_line(&raw, include, 0) {
            Ok(f) => f,
            Err(e) => {
                lines.push(Line {
                    line: line_no,
                    rule: None,
                    error: Some(e),
                });
                continue;
            }
        };
        if fields.is_empty() {
            continue;
        }
        let mut warning = None;
        match parse_rule(line_no, &raw, fields, ssl, &mut warning) {
            Ok(rule) => lines.push(Line {
                line: line_no,
                rule: Some(rule),
                error: warning,
            }),
            Err(e) => lines.push(Line {
                line: line_no,
                rule: None,
                error: Some(e),
            }),
        }
    }
    Parsed { lines }
}

/// The file's lines joined where one ends with a backslash (PostgreSQL 15 joins before it
/// looks for comments), each with the number of its first physical line.
fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (i, physical) in text.split('\n').enumerate() {
        let physical = physical.strip_suffix('\r').unwrap_or(physical);
        let (no, mut buf) = pending.take().unwrap_or((i + 1, String::new()));
        buf.push_str(physical);
        if buf.ends_with('\\') {
            buf.pop();
            pending = Some((no, buf));
        } else {
            out.push((no, buf));
        }
    }
    if let Some(p) = pending {
        out.push(p);
    }
    out
}

/// PostgreSQL's next_token: skips blanks and commas, then reads up to an unquoted blank or
/// comma; `""` inside quotes is a quote. Returns (token, quoted, ended by a comma), or None at
/// the end of the line (or at a comment).
fn next_token(s: &[u8], pos: &mut usize) -> Option<(String, bool, bool)> {
    let blank = |c: u8| c == b' ' || c == b'\t' || c == b'\r' || c == b'\n';
    while *pos < s.len() && (blank(s[*pos]) || s[*pos] == b',') {
        *pos += 1;
    }
    let mut buf: Vec<u8> = Vec::new();
    let (mut in_quote, mut was_quote, mut saw_quote, mut initial_quote) =
        (false, false, false, false);
    let mut comma = false;
    while *pos < s.len() && (!blank(s[*pos]) || in_quote) {
        let c = s[*pos];
        *pos += 1;
        if c == b'#' && !in_quote {
            *pos = s.len();
            break;
        }
        if c == b',' && !in_quote {
            comma = true;
            break;
        }
        if c != b'"' || was_quote {
            buf.push(c);
        }
        if in_quote && c == b'"' {
            was_quote = !was_quote;
        } else {
            was_quote = false;
        }
        if c == b'"' {
            in_quote = !in_quote;
            saw_quote = true;
            if buf.is_empty() {
                initial_quote = true;
            }
        }
    }
    (saw_quote || !buf.is_empty()).then(|| {
        (
            String::from_utf8_lossy(&buf).into_owned(),
            initial_quote,
            comma,
        )
    })
}

/// A line's fields, each a list of tokens (`@file` tokens expanded in place).
fn tokenize_line(line: &str, include: Include, depth: usize) -> Result<Vec<Vec<Token>>, String> {
    let s = line.as_bytes();
    let mut pos = 0;
    let mut fields = Vec::new();
    while pos < s.len() {
        let mut field = Vec::new();
        // A field's tokens, as long as each ends with a comma.
        while let Some((text, quoted, comma)) = next_token(s, &mut pos) {
            if !quoted && text.len() > 1 && text.starts_with('@') {
                field.extend(include_file(&text[1..], include, depth + 1)?);
            } else {
                field.push(Token { text, quoted });
            }
            if !comma {
                break;
            }
        }
        if !field.is_empty() {
            fields.push(field);
        }
    }
    Ok(fields)
}

/// The tokens of an `@file`: every token of every line, whatever the line breaks.
fn include_file(name: &str, include: Include, depth: usize) -> Result<Vec<Token>, String> {
    if depth > MAX_INCLUDE_DEPTH {
        return Err(format!(
            "could not open secondary authentication file \"@{name}\": nesting too deep"
        ));
    }
    let text = include(name)?;
    let mut tokens = Vec::new();
    for (_, line) in logical_lines(&text) {
        for field in tokenize_line(&line, include, depth)? {
            tokens.extend(field);
        }
    }
    Ok(tokens)
}

fn one<'a>(field: &'a [Token], what: &str) -> Result<&'a Token, String> {
    if field.len() > 1 {
        return Err(format!("multiple values specified for {what}"));
    }
    Ok(&field[0])
}

/// PostgreSQL's parse_hba_line, error for error.
fn parse_rule(
    line: usize,
    raw: &str,
    fields: Vec<Vec<Token>>,
    ssl: bool,
    warning: &mut Option<String>,
) -> Result<Rule, String> {
    let mut fields = fields.into_iter();
    let first = fields.next().unwrap_or_default();
    let conn = match one(&first, "connection type")?.text.as_str() {
        "local" => ConnType::Local,
        "host" => ConnType::Host,
        "hostssl" => {
            if !ssl {
                *warning = Some("hostssl record cannot match because SSL is disabled".into());
            }
            ConnType::HostSsl
        }
        "hostnossl" => ConnType::HostNoSsl,
        "hostgssenc" => {
            *warning = Some(
                "hostgssenc record cannot match because GSSAPI is not supported by this build"
                    .into(),
            );
            ConnType::HostGssEnc
        }
        "hostnogssenc" => ConnType::HostNoGssEnc,
        other => return Err(format!("invalid connection type \"{other}\"")),
    };
    let databases = fields
        .next()
        .ok_or("end-of-line before database specification")?;
    let users = fields
        .next()
        .ok_or("end-of-line before role specification")?;
    let address = if conn == ConnType::Local {
        None
    } else {
        let field = fields
            .next()
            .ok_or("end-of-line before IP address specification")?;
        let token = one(&field, "host address")?;
        Some(parse_address(&token.text, &mut fields)?)
    };
    let field = fields
        .next()
        .ok_or("end-of-line before authentication method")?;
    let token = one(&field, "authentication type")?;
    let (method, supported_by_build) = match token.text.as_str() {
        "trust" => (Method::Trust, true),
        "reject" => (Method::Reject, true),
        "md5" => (Method::Md5, true),
        "password" => (Method::Password, true),
        "scram-sha-256" => (Method::ScramSha256, true),
        "ident" => (Method::Ident, true),
        "peer" => (Method::Peer, true),
        "gss" => (Method::Gss, true),
        "pam" => (Method::Pam, true),
        "ldap" => (Method::Ldap, true),
        "cert" => (Method::Cert, true),
        "radius" => (Method::Radius, true),
        "sspi" | "bsd" => (Method::Pam, false),
        other => return Err(format!("invalid authentication method \"{other}\"")),
    };
    // A method this server cannot carry out is one "this build" lacks, except on local lines,
    // which never match.
    if !supported_by_build || (conn != ConnType::Local && !method.supported()) {
        return Err(format!(
            "invalid authentication method \"{}\": not supported by this build",
            token.text
        ));
    }
    let method = if conn == ConnType::Local && method == Method::Ident {
        Method::Peer
    } else {
        method
    };
    if conn == ConnType::Local && method == Method::Gss {
        return Err("gssapi authentication is not supported on local sockets".into());
    }
    let mut options = Vec::new();
    let mut clientcert: Option<&'static str> = None;
    for field in fields {
        for t in field {
            let Some((name, value)) = t.text.split_once('=') else {
                return Err(format!(
                    "authentication option not in name=value format: {}",
                    t.text
                ));
            };
            parse_option(conn, method, name, value, &mut clientcert, &mut options)?;
        }
    }
    if let Some(cc) = clientcert {
        options.insert(0, format!("clientcert={cc}"));
    }
    Ok(Rule {
        line,
        conn,
        databases,
        users,
        address,
        method,
        options,
        text: raw.trim().to_string(),
    })
}

fn parse_address(
    text: &str,
    fields: &mut impl Iterator<Item = Vec<Token>>,
) -> Result<Address, String> {
    match text {
        "all" => return Ok(Address::All),
        "samehost" => return Ok(Address::SameHost),
        "samenet" => return Ok(Address::SameNet),
        _ => {}
    }
    let (host, bits) = match text.split_once('/') {
        Some((h, b)) => (h, Some(b)),
        None => (text, None),
    };
    let Some(addr) = parse_numeric_host(host) else {
        if bits.is_some() {
            return Err(format!(
                "specifying both host name and CIDR mask is invalid: \"{text}\""
            ));
        }
        return Ok(Address::Name(host.to_string()));
    };
    let mask = match bits {
        Some(bits) => {
            cidr_mask(addr, bits).ok_or(format!("invalid CIDR mask in address \"{text}\""))?
        }
        None => {
            let field = fields
                .next()
                .ok_or("end-of-line before netmask specification")?;
            let token = one(&field, "netmask")?;
            let mask = parse_numeric_host(&token.text).ok_or(format!(
                "invalid IP mask \"{}\": Name or service not known",
                token.text
            ))?;
            if mask.is_ipv4() != addr.is_ipv4() {
                return Err("IP address and mask do not match".into());
            }
            mask
        }
    };
    Ok(Address::Net { addr, mask })
}

/// A numeric address as getaddrinfo(AI_NUMERICHOST) reads it: IPv4 in inet_aton's forms
/// (`127.1`, `0x7f.1`), IPv6 with an optional `%zone` (dropped).
fn parse_numeric_host(s: &str) -> Option<IpAddr> {
    if let Some(v4) = inet_aton(s) {
        return Some(IpAddr::V4(v4));
    }
    let s = s.split_once('%').map_or(s, |(a, _)| a);
    s.parse::<Ipv6Addr>().ok().map(IpAddr::V6)
}

/// inet_aton: one to four parts, decimal, octal (leading 0) or hex (0x); the last part fills
/// the remaining bytes.
fn inet_aton(s: &str) -> Option<Ipv4Addr> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let mut nums = Vec::with_capacity(4);
    for p in &parts {
        let (digits, radix) = if let Some(h) = p.strip_prefix("0x").or(p.strip_prefix("0X")) {
            (h, 16)
        } else if p.len() > 1 && p.starts_with('0') {
            (&p[1..], 8)
        } else {
            (*p, 10)
        };
        if digits.is_empty() && radix != 16 {
            return None;
        }
        if !digits.chars().all(|c| c.is_digit(radix)) {
            return None;
        }
        let n = if digits.is_empty() {
            0
        } else {
            u64::from_str_radix(digits, radix).ok()?
        };
        nums.push(n);
    }
    let last = nums.len() - 1;
    let mut value: u64 = 0;
    for (i, n) in nums.iter().enumerate() {
        if i < last {
            if *n > 255 {
                return None;
            }
            value |= n << (8 * (3 - i));
        } else {
            let room = 8 * (4 - i) as u32;
            if room < 64 && *n >= (1u64 << room) {
                return None;
            }
            value |= n;
        }
    }
    Some(Ipv4Addr::from(value as u32))
}

/// The mask of a `/bits` suffix (strtol's optional sign accepted), in the address's family.
fn cidr_mask(addr: IpAddr, bits: &str) -> Option<IpAddr> {
    let bits: u32 = bits.strip_prefix('+').unwrap_or(bits).parse().ok()?;
    Some(match addr {
        IpAddr::V4(_) if bits <= 32 => {
            IpAddr::V4(Ipv4Addr::from(u32::MAX.checked_shl(32 - bits).unwrap_or(0)))
        }
        IpAddr::V6(_) if bits <= 128 => IpAddr::V6(Ipv6Addr::from(
            u128::MAX.checked_shl(128 - bits).unwrap_or(0),
        )),
        _ => return None,
    })
}

/// The authentication options PostgreSQL knows, with the methods PostgreSQL names in its
/// error for a method that does not take them.
const METHOD_OPTIONS: &[(&str, &str)] = &[
    ("pamservice", "pam"),
    ("pam_use_hostname", "pam"),
    ("ldapurl", "ldap"),
    ("ldaptls", "ldap"),
    ("ldapscheme", "ldap"),
    ("ldapserver", "ldap"),
    ("ldapport", "ldap"),
    ("ldapbinddn", "ldap"),
    ("ldapbindpasswd", "ldap"),
    ("ldapsearchattribute", "ldap"),
    ("ldapsearchfilter", "ldap"),
    ("ldapbasedn", "ldap"),
    ("ldapprefix", "ldap"),
    ("ldapsuffix", "ldap"),
    ("krb_realm", "gssapi and sspi"),
    ("include_realm", "gssapi and sspi"),
    ("compat_realm", "sspi"),
    ("upn_username", "sspi"),
    ("radiusservers", "radius"),
    ("radiussecrets", "radius"),
    ("radiusidentifiers", "radius"),
    ("radiusports", "radius"),
];

fn parse_option(
    conn: ConnType,
    method: Method,
    name: &str,
    value: &str,
    clientcert: &mut Option<&'static str>,
    options: &mut Vec<String>,
) -> Result<(), String> {
    match name {
        "map" => {
            if !matches!(
                method,
                Method::Ident | Method::Peer | Method::Gss | Method::Cert
            ) {
                return Err("authentication option \"map\" is only valid for authentication methods ident, peer, gssapi, sspi, and cert".into());
            }
            options.push(format!("map={value}"));
        }
        "clientcert" | "clientname" => {
            if conn != ConnType::HostSsl {
                return Err(format!(
                    "{name} can only be configured for \"hostssl\" rows"
                ));
            }
            if name == "clientcert" {
                *clientcert = Some(match value {
                    "verify-full" => "verify-full",
                    "verify-ca" if method == Method::Cert => {
                        return Err("clientcert only accepts \"verify-full\" when using \"cert\" authentication".into())
                    }
                    "verify-ca" => "verify-ca",
                    _ => return Err(format!("invalid value for clientcert: \"{value}\"")),
                });
            } else {
                match value {
                    "CN" | "DN" => options.push(format!("clientname={value}")),
                    _ => return Err(format!("invalid value for clientname: \"{value}\"")),
                }
            }
        }
        _ => {
            let Some((_, methods)) = METHOD_OPTIONS.iter().find(|(n, _)| *n == name) else {
                return Err(format!(
                    "unrecognized authentication option name: \"{name}\""
                ));
            };
            let fits = match *methods {
                "pam" => method == Method::Pam,
                "ldap" => method == Method::Ldap,
                "radius" => method == Method::Radius,
                "gssapi and sspi" => method == Method::Gss,
                _ => false,
            };
            if !fits {
                return Err(format!(
                    "authentication option \"{name}\" is only valid for authentication methods {methods}"
                ));
            }
            options.push(format!("{name}={value}"));
        }
    }
    Ok(())
}

/// What a connection brings to the rules.
pub struct Client<'a> {
    /// The peer's address; `None` for a Unix socket (threadgres has none yet).
    pub addr: Option<IpAddr>,
    /// Whether the connection is encrypted with TLS (the `tls` branch provides it).
    pub ssl: bool,
    pub user: &'a str,
    pub database: &'a str,
    /// Whether `user` is a member of `role` (directly or not; a role is a member of itself).
    pub member_of: &'a dyn Fn(&str, &str) -> bool,
    /// The server's interfaces (address, netmask), for `samehost` and `samenet`.
    pub interfaces: &'a [(IpAddr, IpAddr)],
}

impl Rules {
    /// The first rule that matches (PostgreSQL's check_hba); `None` rejects the connection.
    pub fn find(&self, client: &Client) -> Option<&Rule> {
        self.rules.iter().find(|r| r.matches(client))
    }

    /// Whether any rule needs the server's interface addresses.
    pub fn needs_interfaces(&self) -> bool {
        self.rules
            .iter()
            .any(|r| matches!(r.address, Some(Address::SameHost) | Some(Address::SameNet)))
    }
}

/// An IPv4 client that reached an IPv6 socket (`::ffff:a.b.c.d`) is an IPv4 client.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map(IpAddr::V4)
            .unwrap_or(IpAddr::V6(v6)),
        v4 => v4,
    }
}

/// `a & mask == b & mask`, for addresses of one family (other families never match).
fn same_net(a: IpAddr, b: IpAddr, mask: IpAddr) -> bool {
    match (a, b, mask) {
        (IpAddr::V4(a), IpAddr::V4(b), IpAddr::V4(m)) => {
            u32::from(a) & u32::from(m) == u32::from(b) & u32::from(m)
        }
        (IpAddr::V6(a), IpAddr::V6(b), IpAddr::V6(m)) => {
            u128::from(a) & u128::from(m) == u128::from(b) & u128::from(m)
        }
        _ => false,
    }
}

impl Rule {
    fn matches(&self, c: &Client) -> bool {
        match (self.conn, c.addr) {
            (ConnType::Local, None) => {}
            (ConnType::Local, Some(_)) | (_, None) => return false,
            (conn, Some(ip)) => {
                let type_ok = match conn {
                    ConnType::HostSsl => c.ssl,
                    ConnType::HostNoSsl => !c.ssl,
                    // No GSSAPI encryption: hostgssenc never matches.
                    ConnType::HostGssEnc => false,
                    _ => true,
                };
                if !type_ok {
                    return false;
                }
                let ip = canonical(ip);
                let addr_ok = match &self.address {
                    Some(Address::All) => true,
                    Some(Address::Net { addr, mask }) => same_net(ip, *addr, *mask),
                    Some(Address::SameHost) => {
                        c.interfaces.iter().any(|(a, _)| canonical(*a) == ip)
                    }
                    Some(Address::SameNet) => {
                        c.interfaces.iter().any(|(a, m)| same_net(ip, *a, *m))
                    }
                    Some(Address::Name(_)) | None => false,
                };
                if !addr_ok {
                    return false;
                }
            }
        }
        self.database_matches(c) && self.user_matches(c)
    }

    /// PostgreSQL's check_db (for a connection that is not a replication connection).
    fn database_matches(&self, c: &Client) -> bool {
        self.databases.iter().any(|t| {
            if t.is_keyword("all") {
                true
            } else if t.is_keyword("sameuser") {
                c.database == c.user
            } else if t.is_keyword("samerole") || t.is_keyword("samegroup") {
                (c.member_of)(c.user, c.database)
            } else if t.is_keyword("replication") {
                false
            } else {
                t.text == c.database
            }
        })
    }

    /// PostgreSQL's check_role.
    fn user_matches(&self, c: &Client) -> bool {
        self.users.iter().any(|t| {
            if let Some(role) = t.text.strip_prefix('+').filter(|_| !t.quoted) {
                (c.member_of)(c.user, role)
            } else {
                t.text == c.user || t.is_keyword("all")
            }
        })
    }

    /// The address and netmask columns of pg_hba_file_rules.
    pub fn address_columns(&self) -> (Option<String>, Option<String>) {
        match &self.address {
            None => (None, None),
            Some(Address::All) => (Some("all".into()), None),
            Some(Address::SameHost) => (Some("samehost".into()), None),
            Some(Address::SameNet) => (Some("samenet".into()), None),
            Some(Address::Name(n)) => (Some(n.clone()), None),
            Some(Address::Net { addr, mask }) => (Some(addr.to_string()), Some(mask.to_string())),
        }
    }
}

/// The rules when no file is given: trust from the loopback addresses (the default listen
/// address is 127.0.0.1 only), or, when the server has a password, scram-sha-256 from
/// everywhere.
pub fn default_rules(password: bool) -> Parsed {
    let text = if password {
        "host all all all scram-sha-256\n"
    } else {
        "host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n"
    };
    parse(text, false, &|_| Err(String::new()))
}

#[cfg(test)]
mod tests;
