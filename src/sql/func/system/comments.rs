//! Descriptions as the session sees them: pg_description's and pg_shdescription's rows, and
//! the one description obj_description / col_description / shobj_description return.
//!
//! COMMENT (`ddl/comment.rs`) writes them into the catalog's versioned store
//! (`catalog::comments`); a description is shown only while the snapshot that reads it sees its
//! object (and, for a column, while the column is not dropped), which is how a description
//! goes away with DROP and DROP COLUMN. The fixed descriptions PostgreSQL ships are the
//! starting value of their objects' keys.

use std::collections::{HashMap, HashSet};

use crate::catalog::comments::CommentKey;
use crate::error::PgResult;
use crate::sql::catalog as builtin;
use crate::sql::context::SessionCtx;

/// pg_class, pg_namespace, pg_constraint, pg_authid: the classoids of what COMMENT names.
pub const PG_CLASS: u32 = 1259;
pub const PG_NAMESPACE: u32 = 2615;
pub const PG_CONSTRAINT: u32 = 2606;
pub const PG_AUTHID: u32 = 1260;
/// pg_type: the classoid of a user-defined type's description (COMMENT ON TYPE).
pub const PG_TYPE: u32 = 1247;
/// pg_proc: the classoid of a function's or procedure's description.
pub const PG_PROC: u32 = 1255;
/// pg_extension: the classoid of an extension's description.
pub const PG_EXTENSION: u32 = 3079;

/// The objects of the session's database that its catalog snapshot sees, by classoid: the
/// relations (with their live attnums), constraints and schemas; and the roles.
struct Live {
    relations: HashMap<u32, Vec<i32>>,
    constraints: HashSet<u32>,
    namespaces: HashSet<u32>,
    roles: HashSet<u32>,
    types: HashSet<u32>,
    functions: HashSet<u32>,
}

fn live(cx: &mut dyn SessionCtx) -> PgResult<Live> {
    let snap = cx.catalog_snapshot()?;
    let db = cx.database().to_string();
    let catalog = &cx.instance().catalog;
    let mut l = Live {
        relations: HashMap::new(),
        constraints: HashSet::new(),
        namespaces: builtin::NAMESPACES.iter().map(|n| n.0).collect(),
        roles: catalog.roles.visible(&snap).iter().map(|r| r.oid).collect(),
        types: catalog
            .types
            .visible(Some(&db), &snap)
            .iter()
            .map(|t| t.oid)
            .collect(),
        functions: catalog
            .functions
            .visible(Some(&db), &snap)
            .iter()
            .map(|f| f.oid)
            .collect(),
    };
    for r in catalog.visible(&snap) {
        if r.name.database != db {
            continue;
        }
        let cols = r.live_columns().map(|(i, _)| i as i32 + 1).collect();
        l.relations.insert(r.oid, cols);
        l.constraints.extend(r.constraints.iter().map(|c| c.oid));
    }
    l.namespaces
        .extend(catalog.namespaces.visible(&db, &snap).iter().map(|n| n.oid));
    Ok(l)
}

impl Live {
    fn sees(&self, (class, oid, sub): CommentKey) -> bool {
        match class {
            PG_CLASS => self
                .relations
                .get(&oid)
                .is_some_and(|cols| sub == 0 || cols.contains(&sub)),
            PG_CONSTRAINT => self.constraints.contains(&oid),
            PG_NAMESPACE => self.namespaces.contains(&oid),
            PG_AUTHID => self.roles.contains(&oid),
            PG_TYPE => self.types.contains(&oid),
            PG_PROC => self.functions.contains(&oid),
            _ => false,
        }
    }
}

/// pg_description's rows as the session's catalog snapshot sees them: (key, description), the
/// fixed ones first unless a COMMENT replaced them; `shared`: pg_shdescription's (roles) instead.
pub fn descriptions(cx: &mut dyn SessionCtx, shared: bool) -> PgResult<Vec<(CommentKey, String)>> {
    let snap = cx.catalog_snapshot()?;
    let set = cx.instance().catalog.comments.visible(&snap);
    let live = live(cx)?;
    let set: Vec<_> = set
        .into_iter()
        .filter(|(k, _)| (k.0 == PG_AUTHID) == shared && live.sees(*k))
        .collect();
    let mut out: Vec<(CommentKey, String)> = Vec::new();
    if !shared {
        for (oid, class, d) in builtin::fixed::descriptions() {
            if !set.iter().any(|(k, _)| *k == (class, oid, 0)) {
                out.push(((class, oid, 0), d.to_string()));
            }
        }
    }
    if !shared {
        // An installed extension's description is its control comment, as CREATE EXTENSION
        // sets it in PostgreSQL.
        let snap = cx.catalog_snapshot()?;
        let db = cx.database().to_string();
        for e in cx.instance().catalog.extensions.visible(Some(&db), &snap) {
            let key = (PG_EXTENSION, e.oid, 0);
            if let Some(spec) = crate::sql::func::extension::available(&e.def.name) {
                if !set.iter().any(|(k, _)| *k == key) {
                    out.push((key, spec.comment.to_string()));
                }
            }
        }
    }
    out.extend(set.into_iter().filter(|(_, d)| !d.is_empty()));
    Ok(out)
}

/// The description of one object (obj_description, col_description, shobj_description):
/// `class` None matches any classoid.
pub fn description(
    cx: &mut dyn SessionCtx,
    class: Option<u32>,
    oid: u32,
    sub: i32,
) -> PgResult<Option<String>> {
    let shared = class == Some(PG_AUTHID);
    Ok(descriptions(cx, shared)?
        .into_iter()
        .find(|(k, _)| k.1 == oid && k.2 == sub && class.is_none_or(|c| c == k.0))
        .map(|(_, d)| d))
}
