//! Leaves that read rows from outside the tree: the one row of SELECT without FROM, VALUES,
//! the virtual tables computed from the instance's state, and a trigger's transition tables.

use crate::error::{code, PgError, PgResult};
use crate::sql::catalog;
use crate::sql::exec::EvalCx;
use crate::sql::plan::{Node, Plan, VirtualTable};
use crate::sql::types::Value;

use super::{emit, Budget, Operator, Row, Step};

/// SELECT without FROM: one row with no columns.
#[derive(Default)]
pub(super) struct Once {
    done: bool,
}

impl Operator for Once {
    fn next(&mut self, _: &Plan, _: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        if self.done {
            return Ok(Step::Done);
        }
        if b.tick() {
            return Ok(Step::Yield);
        }
        self.done = true;
        Ok(Step::Row(Vec::new()))
    }
}

/// VALUES: each row's expressions evaluated when the row is pulled, so that an error in the
/// third row comes after two rows, as in PostgreSQL.
#[derive(Default)]
pub(super) struct Values {
    pos: usize,
}

impl Operator for Values {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        let Node::Values(rows) = &plan.node else {
            unreachable!("Values opened from another node")
        };
        let Some(exprs) = rows.get(self.pos) else {
            return Ok(Step::Done);
        };
        if b.tick() {
            return Ok(Step::Yield);
        }
        self.pos += 1;
        let mut row = Vec::with_capacity(exprs.len());
        for e in exprs {
            row.push(e.eval(&[], cx)?);
        }
        Ok(Step::Row(row))
    }
}

/// The rows of a [`crate::sql::plan::Feed`], taken at the first pull and handed out as they
/// are, each with its left-out columns' defaults evaluated.
#[derive(Default)]
pub(super) struct Feed {
    rows: Option<std::vec::IntoIter<Row>>,
    /// Rows handed out (published to the plan's `handed` with a plain store per row).
    handed: usize,
}

impl Operator for Feed {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        let Node::Feed(feed) = &plan.node else {
            unreachable!("Feed opened from another node")
        };
        let rows = self
            .rows
            .get_or_insert_with(|| std::mem::take(&mut *feed.rows.lock()).into_iter());
        if b.tick() {
            return Ok(Step::Yield);
        }
        let Some(mut row) = rows.next() else {
            return Ok(Step::Done);
        };
        self.handed += 1;
        feed.handed
            .store(self.handed, std::sync::atomic::Ordering::Relaxed);
        for (col, e) in &feed.defaults {
            row[*col] = e.eval(&[], cx)?;
        }
        Ok(Step::Row(row))
    }
}

/// A virtual table: its rows are computed at the first pull (one snapshot of the instance's
/// state), then handed out.
#[derive(Default)]
pub(super) struct Virtual {
    rows: Option<std::vec::IntoIter<Row>>,
}

impl Operator for Virtual {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        let Node::Virtual(vt) = &plan.node else {
            unreachable!("Virtual opened from another node")
        };
        if self.rows.is_none() {
            // The rules file is read when the view is, and reading it can fail.
            let rows = match vt {
                VirtualTable::HbaFileRules => super::hba_rules::rows(cx.session.instance())?,
                _ => virtual_rows(*vt, cx),
            };
            self.rows = Some(rows.into_iter());
        }
        let rows = self.rows.as_mut().expect("set above");
        Ok(emit(rows, b))
    }
}

/// A transition table read by a trigger function's statement: the rows the session holds under
/// its name, shared (each row is copied as it leaves).
#[derive(Default)]
pub(super) struct Transition {
    rows: Option<std::sync::Arc<Vec<Row>>>,
    at: usize,
}

impl Operator for Transition {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        let Node::Transition(name) = &plan.node else {
            unreachable!("Transition opened from another node")
        };
        if self.rows.is_none() {
            // A plan is kept only for the transition tables it was made with (`pl/run.rs`):
            // one missing here is a statement run where its trigger's tables are gone.
            let found = cx.session.transitions().iter().find(|t| t.name == *name);
            let Some(t) = found else {
                return Err(PgError::new(
                    code::UNDEFINED_TABLE,
                    format!("relation \"{name}\" does not exist"),
                ));
            };
            self.rows = Some(t.rows.clone());
        }
        let rows = self.rows.as_ref().expect("set above");
        let Some(r) = rows.get(self.at) else {
            return Ok(Step::Done);
        };
        if b.tick() {
            return Ok(Step::Yield);
        }
        self.at += 1;
        Ok(Step::Row(r.clone()))
    }
}

fn ts_value(v: Option<i64>) -> Value {
    v.map(Value::TimestampTz).unwrap_or(Value::Null)
}

fn text_or_null(s: Option<&str>) -> Value {
    s.map(|s| Value::Text(s.to_string())).unwrap_or(Value::Null)
}

fn virtual_rows(vt: VirtualTable, cx: &mut EvalCx) -> Vec<Row> {
    let inst = cx.session.instance();
    match vt {
        VirtualTable::HbaFileRules => unreachable!("read by Virtual::next"),
        VirtualTable::StatActivity => {
            let dbs = inst.database_names();
            inst.activity_snapshot()
                .into_iter()
                .map(|(pid, a)| {
                    let datid = dbs
                        .iter()
                        .find(|(n, _)| *n == a.datname)
                        .map(|(_, o)| Value::Oid(*o))
                        .unwrap_or(Value::Null);
                    vec![
                        datid,
                        Value::Text(a.datname.clone()),
                        Value::Int4(pid),
                        Value::Null,
                        Value::Oid(10),
                        Value::Text(a.usename.clone()),
                        Value::Text(a.application_name.clone()),
                        a.client_addr
                            .map(|c| Value::Inet(crate::sql::types::network::Inet::from_ip(c.ip())))
                            .unwrap_or(Value::Null),
                        Value::Null,
                        a.client_addr
                            .map(|c| Value::Int4(c.port() as i32))
                            .unwrap_or(Value::Int4(-1)),
                        Value::TimestampTz(a.backend_start),
                        ts_value(a.xact_start),
                        ts_value(a.query_start),
                        ts_value(a.state_change),
                        text_or_null(a.wait_event_type),
                        text_or_null(a.wait_event),
                        Value::Text(a.state.to_string()),
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Text(a.query.to_string()),
                        Value::Text("client backend".into()),
                    ]
                })
                .collect()
        }
        VirtualTable::StatNotify => {
            let s = inst.notify.stats();
            vec![vec![
                Value::Int8(s.sent as i64),
                Value::Int8(s.delivered as i64),
                Value::Int8(s.commits as i64),
                Value::Int8(s.queue_bytes as i64),
                Value::Int8(s.max_bytes as i64),
                Value::Float8(inst.notify.usage()),
                Value::Int8(s.channels as i64),
            ]]
        }
        VirtualTable::Database => {
            let names = super::catalog_rows::role_names(cx);
            let snap = cx.session.catalog_snapshot().ok();
            let inst = cx.session.instance();
            inst.database_names()
                .into_iter()
                .map(|(name, oid)| {
                    let changed = snap
                        .as_ref()
                        .and_then(|s| inst.catalog.namespaces.database_acl(&name, s));
                    let acl = match changed {
                        Some(v) => super::catalog_rows::acl_array(v.acl.as_ref(), &names),
                        None => catalog::fixed::database_acl(&name),
                    };
                    vec![
                        Value::Oid(oid),
                        Value::Text(name.clone()),
                        Value::Oid(10),
                        Value::Int4(6),
                        Value::Text("c".into()),
                        Value::Bool(name.starts_with("template")),
                        Value::Bool(name != "template0"),
                        Value::Int4(-1),
                        // threadgres has no transaction IDs yet: the values of a fresh cluster
                        Value::Oid(716),
                        Value::Oid(1),
                        Value::Oid(1663),
                        Value::Text("C.UTF-8".into()),
                        Value::Text("C.UTF-8".into()),
                        Value::Null,
                        Value::Null,
                        acl,
                    ]
                })
                .collect()
        }
        VirtualTable::Settings => {
            let names = crate::sql::guc::all_names();
            let mut rows = Vec::new();
            for (name, desc) in names {
                let Some(g) = crate::sql::guc::find(name) else {
                    continue;
                };
                if let Ok(Some(v)) = cx.session.get_setting(name, true) {
                    let r = crate::sql::guc::setting_row(g, &v);
                    rows.push(vec![
                        Value::Text(crate::sql::guc::display_name(name).to_string()),
                        Value::Text(r.setting),
                        r.unit.map_or(Value::Null, |u| Value::Text(u.into())),
                        Value::Text("Client Connection Defaults".into()),
                        Value::Text(desc.to_string()),
                        Value::Null,
                        Value::Text(r.context.into()),
                        Value::Text(r.vartype.into()),
                        Value::Text("default".into()),
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Bool(false),
                    ]);
                }
            }
            rows
        }
        VirtualTable::Type => {
            let mut rows = catalog::type_rows();
            rows.extend(super::catalog_types::rows(cx));
            rows
        }
        VirtualTable::Namespace => {
            let list: Vec<_> = catalog::NAMESPACES
                .iter()
                .map(|(oid, name, owner)| (*oid, name.to_string(), *owner))
                .chain(super::catalog_rows::created_namespaces(cx))
                .collect();
            let names = super::catalog_rows::role_names(cx);
            let snap = cx.session.catalog_snapshot().ok();
            let db = cx.session.database().to_string();
            list.into_iter()
                .map(|(oid, name, owner)| {
                    let info = snap.as_ref().and_then(|s| {
                        crate::sql::privs::schema_info(
                            &cx.session.instance().catalog,
                            s,
                            &db,
                            &name,
                        )
                    });
                    let (owner, acl) = match &info {
                        Some(i) => (
                            i.owner,
                            super::catalog_rows::acl_array(i.acl.as_ref(), &names),
                        ),
                        None => (owner, catalog::fixed::namespace_acl(oid)),
                    };
                    vec![Value::Oid(oid), Value::Text(name), Value::Oid(owner), acl]
                })
                .collect()
        }
        VirtualTable::Empty(oid) => super::catalog_rows::rows(oid, cx).unwrap_or_default(),
    }
}
