//! System functions of record result with fixed columns, in FROM: aclexplode(aclitem[]), one
//! row per privilege of each item, with the columns grantor, grantee, privilege_type and
//! is_grantable (the rows are made by `sql::func::privs::explode`); pg_control_system() and
//! its kin, one row of the control data (`sql::func::system::control`).

use pg_query::protobuf::{self};

use super::{Column, Node, Plan, Planner, Scope, Srf};
use crate::error::PgResult;
use crate::sql::types::Type;

impl Planner<'_> {
    /// The plan of `aclexplode(arg)` in FROM; None when `fc` is another function.
    pub(super) fn plan_aclexplode(
        &mut self,
        fc: &protobuf::FuncCall,
        rf: &protobuf::RangeFunction,
    ) -> PgResult<Option<(Plan, Scope)>> {
        let name = super::names_of(&fc.funcname)
            .last()
            .cloned()
            .unwrap_or_default();
        if name != "aclexplode" || fc.args.len() != 1 {
            return Ok(None);
        }
        let Some(arg) = fc.args[0].node.as_ref() else {
            return Ok(None);
        };
        let (e, t) = self.bind(arg, &Scope::default(), None)?;
        let columns = [
            ("grantor", Type::OID),
            ("grantee", Type::OID),
            ("privilege_type", Type::TEXT),
            ("is_grantable", Type::BOOL),
        ];
        self.system_srf_item(Srf::AclExplode, vec![e], vec![t], &columns, rf, &name)
            .map(Some)
    }
}

impl super::Planner<'_> {
    /// `pg_control_system()` and its kin in FROM: one row, their OUT parameters as columns;
    /// None for another function. Arguments are refused as PostgreSQL refuses them (no such
    /// function).
    pub(super) fn plan_control_fn(
        &mut self,
        fc: &protobuf::FuncCall,
        rf: &protobuf::RangeFunction,
    ) -> PgResult<Option<(Plan, Scope)>> {
        let names = super::names_of(&fc.funcname);
        let name = names.last().cloned().unwrap_or_default();
        let schema_ok = names.len() == 1 || names[0] == "pg_catalog";
        let Some(f) = crate::sql::func::session_fn::ControlFn::of(&name).filter(|_| schema_ok)
        else {
            return Ok(None);
        };
        if !fc.args.is_empty() {
            return Ok(None);
        }
        self.system_srf_item(
            Srf::Control(f),
            Vec::new(),
            Vec::new(),
            f.columns(),
            rf,
            &name,
        )
        .map(Some)
    }

    /// The FROM item of a system function whose result columns are fixed: `columns` (and
    /// WITH ORDINALITY's), under the item's alias or the function's name.
    pub(super) fn system_srf_item(
        &mut self,
        srf: Srf,
        args: Vec<super::Expr>,
        arg_types: Vec<Type>,
        columns: &[(&str, Type)],
        rf: &protobuf::RangeFunction,
        name: &str,
    ) -> PgResult<(Plan, Scope)> {
        let col = |name: &str, ty: Type| Column {
            name: name.to_string(),
            ty,
            typmod: -1,
            origin: None,
        };
        let mut columns: Vec<Column> = columns.iter().map(|&(n, t)| col(n, t)).collect();
        if rf.ordinality {
            columns.push(col("ordinality", Type::INT8));
        }
        let plan = Plan {
            node: Node::Function {
                srf,
                args,
                arg_types,
                scalar: None,
                ordinality: rf.ordinality,
            },
            columns,
        };
        let alias = rf
            .alias
            .as_ref()
            .map_or_else(|| name.to_string(), |a| a.aliasname.clone());
        self.scope_for(plan, &alias, rf.alias.as_ref())
    }
}
