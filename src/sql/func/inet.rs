//! Functions over inet and cidr (PostgreSQL's network.c): text, host, masklen, family, abbrev,
//! network, broadcast, netmask / hostmask, set_masklen and inet_same_family.

use super::args::{bad_arg, int, invalid_param, text};
use crate::error::PgResult;
use crate::sql::types::network;
use crate::sql::types::{FormatCtx, Value};

fn inet_arg(v: &Value) -> PgResult<&crate::sql::types::network::Inet> {
    match v {
        Value::Inet(i) => Ok(i),
        _ => Err(bad_arg(v)),
    }
}

pub(super) fn f_inet_text(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(text(network::show(inet_arg(&a[0])?)))
}

pub(super) fn f_inet_host(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(text(network::host(inet_arg(&a[0])?)))
}

pub(super) fn f_inet_masklen(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Int4(inet_arg(&a[0])?.bits as i32))
}

pub(super) fn f_inet_family(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Int4(if inet_arg(&a[0])?.is_v6() { 6 } else { 4 }))
}

pub(super) fn f_inet_abbrev(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let mut s = String::new();
    network::format(inet_arg(&a[0])?, false, &mut s);
    Ok(text(s))
}

pub(super) fn f_cidr_abbrev(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(text(network::abbrev_cidr(inet_arg(&a[0])?)))
}

pub(super) fn f_inet_network(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Inet(inet_arg(&a[0])?.network()))
}

pub(super) fn f_inet_broadcast(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Inet(inet_arg(&a[0])?.broadcast()))
}

pub(super) fn f_inet_netmask<const HOST: bool>(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Inet(inet_arg(&a[0])?.mask(HOST)))
}

/// set_masklen(inet|cidr, n); -1 means the full length. A cidr loses the bits past the mask.
pub(super) fn f_set_masklen<const CIDR: bool>(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let mut v = *inet_arg(&a[0])?;
    let mut bits = int(&a[1])?;
    if bits == -1 {
        bits = v.max_bits() as i64;
    }
    if !(0..=v.max_bits() as i64).contains(&bits) {
        return Err(invalid_param(format!("invalid mask length: {bits}")));
    }
    v.bits = bits as u8;
    Ok(Value::Inet(if CIDR { v.network() } else { v }))
}

pub(super) fn f_inet_same_family(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(
        inet_arg(&a[0])?.family == inet_arg(&a[1])?.family,
    ))
}
