//! Assignment to part of a variable: `a[i] := v`, `a[i][j] := v`, `a[1:2] := arr`,
//! `j['key'] := v` for a jsonb, `r.f[i] := v` — the variable's new value is its old one with
//! that element, slice or member replaced, by the same rules as SQL's subscript assignment
//! (`sql::types::subscript`, `func::jsonb_set`), then assigned as a whole (so a domain's
//! checks and NOT NULL apply to it). Also the checks of a domain-typed variable.

use super::*;
use crate::sql::pl::compile::Subscript;
use crate::sql::types::{subscript, Array};

fn null_subscript(what: &str) -> PgError {
    PgError::new(
        code::NULL_VALUE_NOT_ALLOWED,
        format!("{what} subscript in assignment must not be null"),
    )
}

impl Frame<'_> {
    /// The current value of assignment target `target` (a variable or a record's field) and
    /// its declared type and typmod.
    fn target_value(&mut self, target: usize) -> PgResult<(Value, Type, i32)> {
        match self.state.body.datums[target].clone() {
            Datum::RecField { rec, field } => {
                let i = self.rec_field(rec, &field)?;
                let r = self.records[rec].as_ref().expect("checked by rec_field");
                Ok((r.values[i].clone(), r.types[i], r.typmods[i]))
            }
            _ => {
                let (ty, typmod) = self.var_type(target)?;
                Ok((self.values[target].clone(), ty, typmod))
            }
        }
    }

    /// A subscript's value as an int4 (None for an omitted slice bound).
    fn array_bound(&mut self, site: &Option<Site>) -> PgResult<Option<i32>> {
        let Some(site) = site else {
            return Ok(None);
        };
        let (v, t) = self.eval(site)?;
        let v = self.coerce(v, t, Type::INT4, -1).map_err(|_| {
            PgError::new(
                code::DATATYPE_MISMATCH,
                "array subscript must have type integer",
            )
        })?;
        match v.as_i64() {
            Some(i) => Ok(Some(i as i32)),
            None => Err(null_subscript("array")),
        }
    }

    /// `target[subs] := expr`.
    pub(in crate::sql::pl) fn assign_element(
        &mut self,
        target: usize,
        subs: &[Subscript],
        expr: &Site,
    ) -> PgResult<()> {
        let (old, ty, typmod) = self.target_value(target)?;
        let container = ty.base_type();
        if container == Type::JSONB {
            let mut path = Vec::with_capacity(subs.len());
            let mut expect_array = false;
            for (k, s) in subs.iter().enumerate() {
                let Some(site) = s.upper.as_ref().filter(|_| !s.slice) else {
                    return Err(PgError::new(
                        code::DATATYPE_MISMATCH,
                        "jsonb subscript does not support slices",
                    ));
                };
                let (v, t) = self.eval(site)?;
                if k == 0 && matches!(t, Type::INT2 | Type::INT4 | Type::INT8) {
                    expect_array = true;
                }
                match v {
                    Value::Null => return Err(null_subscript("jsonb")),
                    Value::Text(s) => path.push(s),
                    other => path.push(other.as_i64().unwrap_or(0).to_string()),
                }
            }
            let (v, t) = self.eval(expr)?;
            let v = self.coerce(v, t, Type::JSONB, -1)?;
            let new = crate::sql::func::jsonb_set::assign(&old, &path, expect_array, &v)?;
            return self.assign(target, new, Type::JSONB);
        }
        let Some(elem) = container.elem() else {
            return Err(PgError::new(
                code::DATATYPE_MISMATCH,
                format!(
                    "cannot subscript type {} because it does not support subscripting",
                    ty.name()
                ),
            ));
        };
        if subs.len() > subscript::MAX_DIMS {
            return Err(subscript::too_many_dims(subs.len()));
        }
        let slice = subs.iter().any(|s| s.slice);
        let mut lower = Vec::with_capacity(subs.len());
        let mut upper = Vec::with_capacity(subs.len());
        for s in subs {
            let l = self.array_bound(&s.lower)?;
            // `[n]` among slice bounds is `[1:n]`.
            lower.push(if slice && !s.slice { Some(1) } else { l });
            upper.push(self.array_bound(&s.upper)?);
        }
        let (v, t) = self.eval(expr)?;
        let a = match old {
            Value::Array(a) => *a,
            _ => Array {
                elem,
                dims: Vec::new(),
                items: Vec::new(),
            },
        };
        let new = if slice {
            match self.coerce(v, t, container, typmod)? {
                Value::Array(src) => subscript::set_slice(a, &lower, &upper, &src)?,
                // A NULL slice leaves the array as it was.
                _ => a,
            }
        } else {
            let v = self.coerce(v, t, elem, typmod)?;
            let idx: Vec<i32> = upper.iter().map(|u| u.unwrap_or(0)).collect();
            subscript::set_element(a, &idx, v)?
        };
        self.assign(target, Value::Array(Box::new(new)), container)
    }

    /// The type `typname` names when it is a user-defined one (a domain, an enum, ...).
    pub(super) fn user_type_named(&mut self, typname: &str) -> Option<Type> {
        let node = crate::sql::parser::parse_node(&format!("SELECT NULL::{typname}")).ok()?;
        let N::SelectStmt(sel) = &node else {
            return None;
        };
        let target = sel.target_list.first()?.node.as_ref()?;
        let N::ResTarget(rt) = target else {
            return None;
        };
        let Some(N::TypeCast(tc)) = rt.val.as_ref()?.node.as_ref() else {
            return None;
        };
        let fmt = self.spi.fmt().clone();
        let tables = self.spi.tables();
        let mut types = Vec::new();
        let mut p = Planner::new(&mut types, &fmt);
        p.tables = Some(tables);
        let t = p.resolve_type_name(tc.type_name.as_ref()?).ok()?.0;
        (t.0 >= crate::catalog::FIRST_USER_OID).then_some(t)
    }

    /// Checks a value assigned to variable `dno` of domain type `ty` against the domain's
    /// constraints: `SELECT $1::domain`, planned once per variable and state.
    pub(super) fn check_domain(&mut self, dno: usize, ty: Type, v: &Value) -> PgResult<()> {
        let plan = match self.state.domain_checks.get(&dno) {
            Some(p) => p.clone(),
            None => {
                let text = format!(
                    "SELECT $1::{}",
                    crate::sql::types::cast::format_type_with_typmod(ty, -1)
                );
                let node = crate::sql::parser::parse_node(&text)?;
                let mut types = vec![ty.base_type()];
                let (plan, _) = self.plan_node(&node, &mut types, None)?;
                let plan = Arc::new(plan);
                self.state.domain_checks.insert(dno, plan.clone());
                plan
            }
        };
        let params = [v.clone()];
        let mut cx = EvalCx {
            params: &params,
            outer: Vec::new(),
            session: self.spi.as_ctx(),
        };
        let mut ex = exec::open(&*plan);
        ex.next_row(&mut cx)?;
        Ok(())
    }
}
