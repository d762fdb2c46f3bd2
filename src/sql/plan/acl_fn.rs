//! aclexplode(aclitem[]) in FROM: one row per privilege of each item, with the columns
//! grantor, grantee, privilege_type and is_grantable (PostgreSQL's record result; the rows are
//! made by `sql::func::privs::explode`).

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
        let col = |name: &str, ty: Type| Column {
            name: name.to_string(),
            ty,
            typmod: -1,
            origin: None,
        };
        let mut columns = vec![
            col("grantor", Type::OID),
            col("grantee", Type::OID),
            col("privilege_type", Type::TEXT),
            col("is_grantable", Type::BOOL),
        ];
        if rf.ordinality {
            columns.push(col("ordinality", Type::INT8));
        }
        let plan = Plan {
            node: Node::Function {
                srf: Srf::AclExplode,
                args: vec![e],
                arg_types: vec![t],
                scalar: None,
                ordinality: rf.ordinality,
            },
            columns,
        };
        let alias = rf
            .alias
            .as_ref()
            .map_or_else(|| name.clone(), |a| a.aliasname.clone());
        self.scope_for(plan, &alias, rf.alias.as_ref()).map(Some)
    }
}
