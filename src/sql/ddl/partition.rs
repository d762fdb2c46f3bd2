//! CREATE TABLE ... PARTITION BY and ... PARTITION OF: the key read from the statement and
//! checked against the columns, the bound checked against the parent's key and its other
//! partitions (PostgreSQL's errors and SQLSTATEs), and the partition's columns and CHECK
//! constraints taken from its parent. What partitioning is and where it lives: `sql::partition`.

use super::*;
use crate::catalog::partition::{
    BoundSpec, PartitionKey, PartitionOf, Partitioning, RangeDatum, Strategy,
};
use crate::catalog::IndexItem;
use crate::sql::partition::{self as part, Bound, Datum, Descriptor};
use crate::sql::types::Value;

/// PARTITION BY as written.
#[derive(Debug, Clone)]
pub struct Spec {
    pub strategy: Strategy,
    pub items: Vec<SpecItem>,
}

#[derive(Debug, Clone)]
pub enum SpecItem {
    /// A column's name and where it stands in the statement.
    Column(String, i32),
    /// An expression (deparsed).
    Expr(String),
}

/// FOR VALUES as written: expressions deparsed.
#[derive(Debug, Clone)]
pub enum RawBound {
    Default,
    List(Vec<(String, i32)>),
    Range {
        from: Vec<(RawDatum, i32)>,
        to: Vec<(RawDatum, i32)>,
    },
    Hash {
        modulus: i32,
        remainder: i32,
    },
}

#[derive(Debug, Clone)]
pub enum RawDatum {
    Min,
    Max,
    Expr(String),
}

/// PARTITION OF parent FOR VALUES ... as written.
#[derive(Debug, Clone)]
pub struct Of {
    pub schema: String,
    pub parent: String,
    pub location: i32,
    pub bound: RawBound,
    /// 'l', 'r' or 'h': the kind of bound written (DEFAULT: none).
    pub written: char,
    pub bound_location: i32,
    /// Column options written for the partition (`a WITH OPTIONS NOT NULL`): name, NOT NULL,
    /// default.
    pub options: Vec<(String, bool, Option<String>)>,
}

pub fn analyze_spec(ps: &protobuf::PartitionSpec) -> PgResult<Spec> {
    use protobuf::PartitionStrategy as S;
    let strategy = match S::try_from(ps.strategy).unwrap_or(S::Undefined) {
        S::List => Strategy::List,
        S::Hash => Strategy::Hash,
        _ => Strategy::Range,
    };
    let mut items = Vec::new();
    for n in &ps.part_params {
        let Some(N::PartitionElem(e)) = n.node.as_ref() else {
            continue;
        };
        if !e.collation.is_empty() || !e.opclass.is_empty() {
            return Err(PgError::feature_not_supported(
                "COLLATE and operator classes in a partition key are not supported yet",
            ));
        }
        match e.expr.as_ref().and_then(|x| x.node.as_ref()) {
            // A parenthesized lone column is a column (PostgreSQL does the same).
            Some(N::ColumnRef(c)) if c.fields.len() == 1 => {
                items.push(SpecItem::Column(names_of(&c.fields).remove(0), e.location))
            }
            Some(x) => items.push(SpecItem::Expr(deparse_expr(x)?)),
            None => items.push(SpecItem::Column(e.name.clone(), e.location)),
        }
    }
    Ok(Spec { strategy, items })
}

fn range_datums(ns: &[protobuf::Node]) -> PgResult<Vec<(RawDatum, i32)>> {
    let mut out = Vec::new();
    for n in ns {
        let x = match n.node.as_ref() {
            Some(N::PartitionRangeDatum(d)) => match d.value.as_ref().and_then(|v| v.node.as_ref())
            {
                Some(v) => v.clone(),
                None => {
                    out.push((
                        if d.kind == 1 {
                            RawDatum::Min
                        } else {
                            RawDatum::Max
                        },
                        d.location,
                    ));
                    continue;
                }
            },
            Some(v) => v.clone(),
            None => continue,
        };
        let loc = crate::sql::plan::names::node_location(&x);
        if let N::ColumnRef(c) = &x {
            let names = names_of(&c.fields);
            if names.len() == 1 && names[0] == "minvalue" {
                out.push((RawDatum::Min, loc));
                continue;
            }
            if names.len() == 1 && names[0] == "maxvalue" {
                out.push((RawDatum::Max, loc));
                continue;
            }
        }
        out.push((RawDatum::Expr(deparse_expr(&x)?), loc));
    }
    Ok(out)
}

pub fn analyze_of(
    parent: &protobuf::RangeVar,
    b: &protobuf::PartitionBoundSpec,
    elts: &[protobuf::Node],
) -> PgResult<Of> {
    let bound = if b.is_default {
        RawBound::Default
    } else {
        match b.strategy.as_str() {
            "l" => {
                let mut vals = Vec::new();
                for n in &b.listdatums {
                    if let Some(x) = n.node.as_ref() {
                        let loc = crate::sql::plan::names::node_location(x);
                        vals.push((deparse_expr(x)?, loc));
                    }
                }
                RawBound::List(vals)
            }
            "r" => RawBound::Range {
                from: range_datums(&b.lowerdatums)?,
                to: range_datums(&b.upperdatums)?,
            },
            _ => RawBound::Hash {
                modulus: b.modulus,
                remainder: b.remainder,
            },
        }
    };
    let mut options = Vec::new();
    for e in elts {
        if let Some(N::ColumnDef(cd)) = e.node.as_ref() {
            let mut not_null = cd.is_not_null;
            let mut default = None;
            for k in &cd.constraints {
                if let Some(N::Constraint(k)) = k.node.as_ref() {
                    match ConstrType::try_from(k.contype).unwrap_or(ConstrType::Undefined) {
                        ConstrType::ConstrNotnull => not_null = true,
                        ConstrType::ConstrDefault => {
                            if let Some(x) = k.raw_expr.as_ref().and_then(|x| x.node.as_ref()) {
                                default = Some(deparse_expr(x)?);
                            }
                        }
                        _ => {}
                    }
                }
            }
            options.push((cd.colname.clone(), not_null, default));
        }
    }
    Ok(Of {
        schema: parent.schemaname.clone(),
        parent: parent.relname.clone(),
        location: parent.location,
        written: if b.is_default {
            'd'
        } else {
            b.strategy.chars().next().unwrap_or('r')
        },
        bound,
        bound_location: b.location,
        options,
    })
}

fn invalid_def(msg: impl Into<String>) -> PgError {
    PgError::new(code::INVALID_TABLE_DEFINITION, msg)
}

fn invalid_obj(msg: impl Into<String>) -> PgError {
    PgError::new(code::INVALID_OBJECT_DEFINITION, msg)
}

/// The key of a table made with PARTITION BY, over its `columns`.
pub fn resolve_key(spec: &Spec, columns: &[ColumnDef]) -> PgResult<PartitionKey> {
    if spec.strategy == Strategy::List && spec.items.len() > 1 {
        return Err(invalid_obj(
            "cannot use \"list\" partition strategy with more than one column",
        ));
    }
    let mut items = Vec::new();
    let mut types = Vec::new();
    for it in &spec.items {
        match it {
            SpecItem::Column(name, loc) => {
                let Some(pos) = columns.iter().position(|c| !c.dropped && &c.name == name) else {
                    if crate::catalog::SYSTEM_COLUMNS.contains(&name.as_str()) {
                        return Err(PgError::new(
                            code::FEATURE_NOT_SUPPORTED,
                            "cannot use system column \"".to_string()
                                + name
                                + "\" in partition key",
                        )
                        .at(crate::sql::plan::loc(*loc)));
                    }
                    return Err(PgError::new(
                        code::UNDEFINED_COLUMN,
                        format!("column \"{name}\" named in partition key does not exist"),
                    )
                    .at(crate::sql::plan::loc(*loc)));
                };
                let c = &columns[pos];
                if c.generated {
                    return Err(invalid_def(
                        "cannot use generated column in partition key".to_string(),
                    )
                    .with_detail(format!("Column \"{name}\" is a generated column."))
                    .at(crate::sql::plan::loc(*loc)));
                }
                items.push(IndexItem::Column(pos));
                types.push((c.type_oid, c.typmod));
            }
            SpecItem::Expr(text) => {
                let n = crate::sql::plan::modify::parse_expr(text)?;
                let (e, ty) = crate::sql::plan::partial::bind_index_text(columns, &n, false)?;
                if !e.any(&mut |x| matches!(x, crate::sql::plan::Expr::Column(_))) {
                    return Err(invalid_def(
                        "cannot use constant expression as partition key",
                    ));
                }
                items.push(IndexItem::Expr(text.clone()));
                types.push((ty.0, -1));
            }
        }
    }
    for (t, _) in &types {
        let ty = Type(*t);
        if matches!(ty, Type::JSON) {
            let am = if spec.strategy == Strategy::Hash {
                "hash"
            } else {
                "btree"
            };
            return Err(PgError::new(
                code::UNDEFINED_OBJECT,
                format!(
                    "data type {} has no default operator class for access method \"{am}\"",
                    ty.name()
                ),
            )
            .with_hint(format!(
                "You must specify a {am} operator class or define a default {am} operator class for the data type."
            )));
        }
        if spec.strategy == Strategy::Hash && !crate::sql::partition_hash::supported(ty) {
            return Err(PgError::feature_not_supported(format!(
                "hash partitioning by a key of type {} is not supported yet",
                ty.name()
            )));
        }
    }
    Ok(PartitionKey {
        strategy: spec.strategy,
        items,
        types,
    })
}

/// A bound value: the expression evaluated and converted to the key item's type.
fn bound_value(
    cx: &mut dyn SessionCtx,
    text: &str,
    ty: (u32, i32),
    colname: &str,
) -> PgResult<Value> {
    let n = crate::sql::plan::modify::parse_expr(text)?;
    let target = Type(ty.0);
    let e = super::function::with_planner(cx, None, |p| {
        let (e, from) = p.bind_over_columns("", &[], &n).map_err(|e| {
            if e.code == code::UNDEFINED_COLUMN {
                invalid_obj("cannot use column reference in partition bound expression")
            } else {
                e
            }
        })?;
        p.assign_to(e, from, target, ty.1)?.ok_or_else(|| {
            PgError::new(
                code::DATATYPE_MISMATCH,
                format!(
                    "specified value cannot be cast to type {} for column \"{colname}\"",
                    target.name()
                ),
            )
        })
    })?;
    let mut ecx = crate::sql::exec::EvalCx {
        params: &[],
        outer: Vec::new(),
        session: cx,
    };
    e.eval(&[], &mut ecx)
}

/// The bound of a new partition of `parent` as catalog text and as values, checked against
/// the key (PostgreSQL's transformPartitionBound).
pub(super) fn resolve_bound(
    cx: &mut dyn SessionCtx,
    of: &Of,
    parent: &Rel,
    key: &PartitionKey,
) -> PgResult<(BoundSpec, Bound)> {
    let names = crate::sql::ruleutils::partition::key_names(key, &parent.columns);
    let at = |e: PgError| e.at(crate::sql::plan::loc(of.bound_location));
    if matches!(of.bound, RawBound::Default) {
        if key.strategy == Strategy::Hash {
            return Err(invalid_def(
                "a hash-partitioned table may not have a default partition",
            ));
        }
        return Ok((BoundSpec::Default, Bound::Default));
    }
    let wrong = |what: &str| {
        at(invalid_def(format!(
            "invalid bound specification for a {what} partition"
        )))
    };
    match (key.strategy, &of.bound) {
        (Strategy::Hash, RawBound::Hash { modulus, remainder }) => {
            if *modulus < 1 {
                return Err(invalid_def(
                    "modulus for hash partition must be an integer value greater than zero",
                ));
            }
            if remainder >= modulus {
                return Err(invalid_def(
                    "remainder for hash partition must be less than modulus",
                ));
            }
            let (m, r) = (*modulus as u32, *remainder as u32);
            Ok((
                BoundSpec::Hash {
                    modulus: m,
                    remainder: r,
                },
                Bound::Hash {
                    modulus: m,
                    remainder: r,
                },
            ))
        }
        (Strategy::Hash, _) => Err(wrong("hash")),
        (Strategy::List, RawBound::List(vals)) => {
            let ty = key.types[0];
            let mut values: Vec<Value> = Vec::new();
            for (text, loc) in vals {
                let v = bound_value(cx, text, ty, &names[0])
                    .map_err(|e| e.at(crate::sql::plan::loc(*loc)))?;
                let dup = values.iter().any(|w| match (w.is_null(), v.is_null()) {
                    (true, true) => true,
                    (false, false) => crate::sql::types::compare(w, &v).is_eq(),
                    _ => false,
                });
                if !dup {
                    values.push(v);
                }
            }
            let spec = BoundSpec::List(
                values
                    .iter()
                    .map(|v| (!v.is_null()).then(|| part::datum_text(v, Type(ty.0))))
                    .collect(),
            );
            Ok((spec, Bound::List(values)))
        }
        (Strategy::List, _) => Err(wrong("list")),
        (Strategy::Range, RawBound::Range { from, to }) => {
            if from.len() != key.items.len() {
                return Err(at(invalid_def(
                    "FROM must specify exactly one value per partitioning column",
                )));
            }
            if to.len() != key.items.len() {
                return Err(at(invalid_def(
                    "TO must specify exactly one value per partitioning column",
                )));
            }
            let mut conv = |ds: &[(RawDatum, i32)]| -> PgResult<(Vec<RangeDatum>, Vec<Datum>)> {
                let mut texts = Vec::new();
                let mut vals = Vec::new();
                for (i, (d, loc)) in ds.iter().enumerate() {
                    match d {
                        RawDatum::Min => {
                            texts.push(RangeDatum::MinValue);
                            vals.push(Datum::Min);
                        }
                        RawDatum::Max => {
                            texts.push(RangeDatum::MaxValue);
                            vals.push(Datum::Max);
                        }
                        RawDatum::Expr(t) => {
                            let v = bound_value(cx, t, key.types[i], &names[i])
                                .map_err(|e| e.at(crate::sql::plan::loc(*loc)))?;
                            if v.is_null() {
                                return Err(invalid_obj("cannot specify NULL in range bound"));
                            }
                            texts.push(RangeDatum::Value(part::datum_text(
                                &v,
                                Type(key.types[i].0),
                            )));
                            vals.push(Datum::Val(v));
                        }
                    }
                }
                Ok((texts, vals))
            };
            let (ft, fv) = conv(from)?;
            let (tt, tv) = conv(to)?;
            for ds in [&fv, &tv] {
                // After MINVALUE / MAXVALUE only the same may follow (PostgreSQL's
                // validateInfiniteBounds).
                if let Some(i) = ds.iter().position(|d| !matches!(d, Datum::Val(_))) {
                    if ds[i..].iter().any(|d| *d != ds[i]) {
                        let what = if ds[i] == Datum::Max {
                            "MAXVALUE"
                        } else {
                            "MINVALUE"
                        };
                        return Err(invalid_def(format!(
                            "every bound following {what} must also be {what}"
                        )));
                    }
                }
            }
            Ok((
                BoundSpec::Range { from: ft, to: tt },
                Bound::Range { from: fv, to: tv },
            ))
        }
        (Strategy::Range, _) => Err(wrong("range")),
    }
}

/// Refuses a bound that overlaps a sibling's (PostgreSQL's check_new_partition_bound).
pub(super) fn check_overlap(
    cx: &dyn SessionCtx,
    name: &str,
    of: &Of,
    key: &PartitionKey,
    bound: &Bound,
    desc: &Descriptor,
) -> PgResult<()> {
    let overlap = |with: &Rel, loc: i32| {
        invalid_obj(format!(
            "partition \"{name}\" would overlap partition \"{}\"",
            with.name.name
        ))
        .at(crate::sql::plan::loc(loc))
    };
    match bound {
        Bound::Default => {
            if let Some((d, _)) = desc.parts.iter().find(|(_, b)| *b == Bound::Default) {
                return Err(invalid_obj(format!(
                    "partition \"{name}\" conflicts with existing default partition \"{}\"",
                    d.name.name
                ))
                .at(crate::sql::plan::loc(of.bound_location)));
            }
        }
        Bound::List(vals) => {
            let locs: Vec<i32> = match &of.bound {
                RawBound::List(v) => v.iter().map(|(_, l)| *l).collect(),
                _ => Vec::new(),
            };
            for (i, v) in vals.iter().enumerate() {
                for (r, b) in &desc.parts {
                    if let Bound::List(_) = b {
                        if part::holds(b, std::slice::from_ref(v), &desc.types) {
                            return Err(overlap(r, locs.get(i).copied().unwrap_or(-1)));
                        }
                    }
                }
            }
        }
        Bound::Range { from, to } => {
            let (lo_locs, hi_locs): (Vec<i32>, Vec<i32>) = match &of.bound {
                RawBound::Range { from, to } => (
                    from.iter().map(|(_, l)| *l).collect(),
                    to.iter().map(|(_, l)| *l).collect(),
                ),
                _ => (Vec::new(), Vec::new()),
            };
            let (o, i) = part::cmp_bounds(from, to);
            if o != std::cmp::Ordering::Less {
                let fmt = cx.fmt();
                return Err(invalid_obj(format!(
                    "empty range bound specified for partition \"{name}\""
                ))
                .with_detail(format!(
                    "Specified lower bound {} is greater than or equal to upper bound {}.",
                    part::show_range(from, &key.types, fmt),
                    part::show_range(to, &key.types, fmt)
                ))
                .at(crate::sql::plan::loc(lo_locs.get(i).copied().unwrap_or(-1))));
            }
            let ranges: Vec<(&Rel, &Vec<Datum>, &Vec<Datum>)> = desc
                .parts
                .iter()
                .filter_map(|(r, b)| match b {
                    Bound::Range { from, to } => Some((&**r, from, to)),
                    _ => None,
                })
                .collect();
            // The new lower bound inside an existing partition.
            if let Some((r, _, _)) = ranges.iter().find(|(_, lo, hi)| {
                part::cmp_bounds(lo, from).0.is_le() && part::cmp_bounds(from, hi).0.is_lt()
            }) {
                // Positioned at the first datum where the lower bound differs from the
                // greatest existing bound at or below it.
                let below = ranges
                    .iter()
                    .flat_map(|(_, lo, hi)| [*lo, *hi])
                    .filter(|b| part::cmp_bounds(b, from).0.is_le())
                    .max_by(|a, b| part::cmp_bounds(a, b).0)
                    .map(|b| part::cmp_bounds(from, b));
                let at = match below {
                    Some((std::cmp::Ordering::Equal, _)) | None => 0,
                    Some((_, i)) => i,
                };
                return Err(overlap(r, lo_locs.get(at).copied().unwrap_or(-1)));
            }
            // Else the next partition above starting below the new upper bound.
            if let Some((r, lo, _)) = ranges
                .iter()
                .filter(|(_, lo, _)| part::cmp_bounds(from, lo).0.is_lt())
                .min_by(|a, b| part::cmp_bounds(a.1, b.1).0)
            {
                let (o, i) = part::cmp_bounds(lo, to);
                if o.is_lt() {
                    return Err(overlap(r, hi_locs.get(i).copied().unwrap_or(-1)));
                }
            }
        }
        Bound::Hash { modulus, remainder } => {
            let hashes: Vec<(&Rel, u32, u32)> = desc
                .parts
                .iter()
                .filter_map(|(r, b)| match b {
                    Bound::Hash { modulus, remainder } => Some((&**r, *modulus, *remainder)),
                    _ => None,
                })
                .collect();
            // Every modulus must divide the next larger one.
            let smaller = hashes
                .iter()
                .filter(|h| h.1 <= *modulus)
                .max_by_key(|h| h.1);
            let larger = hashes.iter().filter(|h| h.1 > *modulus).min_by_key(|h| h.1);
            let not_factor = |m: u32, big: u32, r: &Rel| {
                invalid_obj("every hash partition modulus must be a factor of the next larger modulus")
                    .with_detail(format!(
                        "The new modulus {m} is not a factor of {big}, the modulus of existing partition \"{}\".",
                        r.name.name
                    ))
            };
            if let Some(&(r, m, _)) = smaller {
                if modulus % m != 0 {
                    return Err(PgError::new(
                        code::INVALID_OBJECT_DEFINITION,
                        "every hash partition modulus must be a factor of the next larger modulus",
                    )
                    .with_detail(format!(
                        "The new modulus {modulus} is not divisible by {m}, the modulus of existing partition \"{}\".",
                        r.name.name
                    )));
                }
            }
            if let Some(&(r, m, _)) = larger {
                if m % modulus != 0 {
                    return Err(not_factor(*modulus, m, r));
                }
            }
            // Two partitions overlap when their remainders agree modulo the smaller modulus.
            if let Some((r, _, _)) = hashes.iter().find(|(_, m, rem)| {
                let small = (*m).min(*modulus);
                rem % small == remainder % small
            }) {
                return Err(overlap(r, of.bound_location));
            }
        }
    }
    Ok(())
}

/// What CREATE TABLE ... PARTITION OF / PARTITION BY adds to the table being made: its
/// columns and CHECKs from the parent, its place in the tree.
pub struct Prepared {
    pub partitioning: Partitioning,
    /// The default partition whose rows must not belong to the new partition.
    pub default: Option<(Arc<Rel>, Bound)>,
}

/// What [`prepare_of`] returns: the statement as it is to run, the parent, the partition's
/// place, and the default partition whose rows the new bound must not take.
pub type PreparedOf = (
    CreateTable,
    Arc<Rel>,
    PartitionOf,
    Option<(Arc<Rel>, Bound)>,
);

/// Fills in a partition's columns and CHECK constraints from its parent (`ct` is the
/// statement), and resolves and checks its bound; returns the statement as it is to run.
pub fn prepare_of(cx: &mut dyn SessionCtx, ct: &CreateTable, of: &Of) -> PgResult<PreparedOf> {
    let parent = find(cx, &of.schema, &of.parent)?.ok_or_else(|| {
        PgError::new(
            code::UNDEFINED_TABLE,
            format!("relation \"{}\" does not exist", of.parent),
        )
        .at(crate::sql::plan::loc(of.location))
    })?;
    if parent.kind != RelKind::Table {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!("\"{}\" is not a table", of.parent),
        ));
    }
    let Some(key) = parent.partition_key().cloned() else {
        return Err(invalid_obj(format!("\"{}\" is not partitioned", of.parent)));
    };
    let temp = ct.persistence == Persistence::Temporary;
    let parent_temp = parent.persistence == Persistence::Temporary;
    if parent_temp && !temp {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!(
                "cannot create a permanent relation as partition of temporary relation \"{}\"",
                of.parent
            ),
        ));
    }
    if temp && !parent_temp {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!(
                "cannot create a temporary relation as partition of permanent relation \"{}\"",
                of.parent
            ),
        ));
    }
    if parent.columns.iter().any(|c| c.dropped) {
        return Err(PgError::feature_not_supported(
            "partitions of a table with dropped columns are not supported yet",
        ));
    }
    let depth = part::ancestors(cx, &parent)?.len() + 1;
    part::check_depth(depth)?;
    let snap = cx.catalog_snapshot()?;
    let desc = Descriptor::of(&cx.instance().catalog, &snap, &parent)?;
    if desc.parts.len() >= part::MAX_PARTITIONS {
        return Err(PgError::new(
            code::PROGRAM_LIMIT_EXCEEDED,
            format!(
                "table \"{}\" has the most partitions a table may have ({})",
                of.parent,
                part::MAX_PARTITIONS
            ),
        ));
    }
    if of.written != 'd' && of.written != key.strategy.code() {
        // Reported as resolve_bound reports it.
    }
    let (spec, bound) = resolve_bound(cx, of, &parent, &key)?;
    check_overlap(&*cx, &ct.name, of, &key, &bound, &desc)?;
    let fmt = cx.fmt().clone();
    let shown = part::show_bound(&bound, &key, &fmt);
    let mut out = ct.clone();
    let mut columns = Vec::new();
    for c in parent.columns.iter() {
        let (ty, typmod) = (Type(c.domain.unwrap_or(c.type_oid)), c.typmod);
        let opt = of.options.iter().find(|o| o.0 == c.name);
        columns.push(NewColumn {
            name: c.name.clone(),
            ty,
            typmod,
            pending_type: None,
            not_null: c.not_null || opt.is_some_and(|o| o.1),
            default: opt.and_then(|o| o.2.clone()).or_else(|| c.default.clone()),
            identity: None,
            generated: c.generated,
            written: c
                .default
                .as_deref()
                .filter(|_| c.generated)
                .and_then(|t| crate::sql::plan::modify::parse_expr(t).ok())
                .map(Box::new),
            error: None,
        });
    }
    for (name, _, _) in &of.options {
        if !parent.columns.iter().any(|c| &c.name == name) {
            return Err(PgError::new(
                code::UNDEFINED_COLUMN,
                format!("column \"{name}\" does not exist"),
            ));
        }
    }
    out.columns = columns;
    let mut checks: Vec<Check> = parent
        .constraints
        .iter()
        .filter_map(|k| match &k.kind {
            ConstraintKind::Check { expr } => Some((Some(k.name.clone()), expr.clone(), None)),
            _ => None,
        })
        .collect();
    checks.extend(ct.checks.iter().cloned());
    out.checks = checks;
    let default = desc
        .parts
        .iter()
        .find(|(_, b)| *b == Bound::Default)
        .map(|(r, b)| (r.clone(), b.clone()))
        .filter(|_| bound != Bound::Default);
    Ok((
        out,
        parent.clone(),
        PartitionOf {
            parent: parent.oid,
            bound: spec,
            shown,
            key: key.clone(),
        },
        default.map(|(r, _)| (r, bound)),
    ))
}

/// Checks that no row of the default partition `default` belongs in the new partition's
/// `bound` (PostgreSQL scans it the same way).
/// Whether some row of `table` that the statement sees has a partition key (under `key`) for
/// which `pred` holds. Rows are read one at a time and the scan stops at the first such row:
/// no copy of the table is held.
pub fn any_row_key(
    cx: &mut dyn SessionCtx,
    table: &Rel,
    key: &PartitionKey,
    exprs: &[crate::sql::plan::Expr],
    mut pred: impl FnMut(&[Value]) -> bool,
) -> PgResult<bool> {
    let snap = cx.catalog_snapshot()?;
    let (mut found, mut failed) = (false, None);
    engine::scan(table, 0, usize::MAX, &snap, |_, row| {
        let mut ecx = crate::sql::exec::EvalCx {
            params: &[],
            outer: Vec::new(),
            session: &mut *cx,
        };
        match crate::sql::exec::partition_route::key_of(key, exprs, row, &mut ecx) {
            Ok(k) => found = pred(&k),
            Err(e) => failed = Some(e),
        }
        !found && failed.is_none()
    });
    match failed {
        Some(e) => Err(e),
        None => Ok(found),
    }
}

pub fn check_default_rows(
    cx: &mut dyn SessionCtx,
    parent: &Rel,
    default: &Rel,
    bound: &Bound,
) -> PgResult<()> {
    let Some(key) = parent.partition_key() else {
        return Ok(());
    };
    let exprs = key_exprs(key, &parent.columns)?;
    let in_bound = |k: &[Value]| part::holds(bound, k, &key.types);
    if any_row_key(cx, default, key, &exprs, in_bound)? {
        return Err(PgError::new(
            code::CHECK_VIOLATION,
            format!(
                "updated partition constraint for default partition \"{}\" would be violated by some row",
                default.name.name
            ),
        )
        .with_table(&default.name.schema, &default.name.name));
    }
    Ok(())
}

pub use crate::sql::partition::key_exprs;

/// A PRIMARY KEY or UNIQUE constraint of a partitioned table must hold every key column
/// (each partition checks uniqueness only among its own rows).
pub fn check_unique_keys(
    table: &str,
    key: &PartitionKey,
    columns: &[ColumnDef],
    keys: &[KeySpec],
) -> PgResult<()> {
    for k in keys.iter().filter(|k| k.unique || k.primary) {
        let what = if k.primary { "PRIMARY KEY" } else { "UNIQUE" };
        for it in &key.items {
            match it {
                IndexItem::Expr(_) => {
                    return Err(PgError::feature_not_supported(format!(
                        "unsupported {what} constraint with partition key definition"
                    ))
                    .with_detail(format!(
                        "{what} constraints cannot be used when partition keys include expressions."
                    )))
                }
                IndexItem::Column(c) => {
                    let name = &columns[*c].name;
                    if !k.columns.contains(name) {
                        return Err(PgError::feature_not_supported(
                            "unique constraint on partitioned table must include all partitioning columns",
                        )
                        .with_detail(format!(
                            "{what} constraint on table \"{table}\" lacks column \"{name}\" which is part of the partition key."
                        )));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Adds to `found` (tables being dropped) the partitions of each partitioned table in it, at
/// every level, as PostgreSQL drops them with their parent.
pub fn add_partitions(cx: &mut dyn SessionCtx, found: &mut Vec<Arc<Rel>>) -> PgResult<()> {
    let mut i = 0;
    while i < found.len() {
        if found[i].partition_key().is_some() {
            let snap = cx.catalog_snapshot()?;
            let kids = crate::sql::partition::children(&cx.instance().catalog, &snap, &found[i]);
            for c in kids {
                if !found.iter().any(|f| f.oid == c.oid) {
                    found.push(c);
                }
            }
        }
        i += 1;
    }
    Ok(())
}
