//! CREATE TABLE: the keys it makes indexes for (merged as PostgreSQL merges them), and the
//! table, its constraints, indexes, sequences and LIKE copies made in one transaction.

use super::*;

/// The keys CREATE TABLE makes indexes for: those written, where one on the same columns as an
/// earlier one (the primary key counted first) is merged into it, as PostgreSQL's
/// transformIndexConstraints does (`a int PRIMARY KEY UNIQUE` and `a int UNIQUE, UNIQUE (a)`
/// make one index each; an unnamed one takes the merged one's name); then those LIKE copies,
/// never merged.
fn merge_duplicate_keys(own: &[KeySpec], like: &[KeySpec]) -> Vec<KeySpec> {
    let pk = own.iter().position(|k| k.primary);
    // (position written, key), the primary key first as PostgreSQL compares with it first.
    let mut kept: Vec<(usize, KeySpec)> = pk.map(|i| (i, own[i].clone())).into_iter().collect();
    for (i, k) in own.iter().enumerate() {
        if Some(i) == pk {
            continue;
        }
        // A second primary key stays, for index_defs to refuse.
        // Keys differing in their timing are two constraints (PostgreSQL compares it too).
        let prior = match k.primary {
            true => None,
            false => kept.iter_mut().find(|(_, p)| {
                p.columns == k.columns && (p.deferrable, p.deferred) == (k.deferrable, k.deferred)
            }),
        };
        match prior {
            Some((_, p)) => {
                p.unique |= k.unique;
                if p.name.is_none() {
                    p.name.clone_from(&k.name);
                }
            }
            None => kept.push((i, k.clone())),
        }
    }
    kept.sort_by_key(|(i, _)| *i);
    kept.into_iter()
        .map(|(_, k)| k)
        .chain(like.iter().cloned())
        .collect()
}

pub(super) fn create_table(ct: &CreateTable, cx: &mut dyn SessionCtx) -> PgResult<()> {
    let temp = ct.persistence == Persistence::Temporary;
    let (schema, temp) = creation_schema_for(cx, &ct.schema, ct.location, temp)?;
    let persistence = if temp {
        Persistence::Temporary
    } else {
        ct.persistence
    };
    if !temp && ct.on_commit != OnCommit::Noop {
        return Err(PgError::new(
            INVALID_TABLE_DEFINITION,
            "ON COMMIT can only be used on temporary tables",
        ));
    }
    if find(cx, &schema, &ct.name)?.is_some() {
        if ct.if_not_exists {
            cx.notice(notice(
                format!("relation \"{}\" already exists, skipping", ct.name),
                code::DUPLICATE_TABLE,
            ));
            return Ok(());
        }
        return Err(already_exists(&ct.name));
    }
    // What PostgreSQL's transformation of the column definitions refuses.
    if let Some(e) = ct.columns.iter().find_map(|c| c.error.as_ref()) {
        return Err(e.clone());
    }
    // A partition takes its columns, CHECKs and keys from its parent (partition.rs).
    let prepared_of;
    let mut place = None;
    let ct = match &ct.partition_of {
        Some(of) => {
            let (c, parent, pof, default) = partition::prepare_of(cx, ct, of)?;
            prepared_of = c;
            place = Some((parent, pof, default));
            &prepared_of
        }
        None => ct,
    };
    let inherited_keys: Vec<KeySpec> = match &place {
        Some((parent, _, _)) => parent
            .indexes
            .iter()
            .filter(|d| d.plain() && !d.hash)
            .map(|d| KeySpec::of_parent(parent, d))
            .collect(),
        None => Vec::new(),
    };
    let with_keys;
    let ct = if inherited_keys.is_empty() {
        ct
    } else {
        let mut c = ct.clone();
        let mut keys = inherited_keys;
        keys.append(&mut c.keys);
        c.keys = keys;
        with_keys = c;
        &with_keys
    };
    // The keys written in the statement, before those LIKE adds.
    let own_keys = ct.keys.len();
    let expanded;
    let ct = if ct.likes.is_empty() {
        ct
    } else {
        expanded = like::expand(ct, cx)?;
        &expanded
    };
    let resolved;
    let ct = if ct.columns.iter().any(|c| c.pending_type.is_some()) {
        let mut c = ct.clone();
        for col in &mut c.columns {
            resolve_pending_type(col, cx)?;
        }
        resolved = c;
        &resolved
    } else {
        ct
    };
    for col in &ct.columns {
        super::check_not_pseudo(&col.name, col.ty)?;
    }
    if ct.columns.len() > MAX_COLUMNS {
        return Err(PgError::new(
            code::TOO_MANY_COLUMNS,
            format!("tables can have at most {MAX_COLUMNS} columns"),
        ));
    }
    let mut columns: Vec<ColumnDef> = Vec::with_capacity(ct.columns.len());
    for c in &ct.columns {
        if columns.iter().any(|x| x.name == c.name) {
            return Err(PgError::new(
                code::DUPLICATE_COLUMN,
                format!("column \"{}\" specified more than once", c.name),
            ));
        }
        let (type_oid, typmod, domain) = super::stored_type(c.ty, c.typmod);
        columns.push(ColumnDef {
            name: c.name.clone(),
            type_oid,
            typmod,
            not_null: c.not_null,
            default: c.default.clone(),
            identity: c.identity,
            generated: c.generated,
            dropped: false,
            domain,
        });
    }
    // After the duplicates, as PostgreSQL checks them when it creates the relation.
    for c in &columns {
        check_system_column_name(&c.name)?;
    }
    let key = match &ct.partition_by {
        Some(spec) => Some(partition::resolve_key(spec, &columns)?),
        None => None,
    };
    if let Some(key) = &key {
        partition::check_unique_keys(&ct.name, key, &columns, &ct.keys)?;
    }
    // Names in PostgreSQL's order (names.rs): the serial sequences, then the CHECKs, then the
    // indexes, the table itself taken by then.
    let mut names = names::Names::new(&schema);
    let mut seq_names = Vec::with_capacity(ct.sequences.len());
    for cs in &ct.sequences {
        let name = match &cs.spec.sequence_name {
            Some(_) => None,
            None => Some(names::sequence(
                cx,
                &schema,
                &ct.name,
                &ct.columns[cs.column].name,
            )?),
        };
        if let Some(n) = &name {
            names.add_relation(n);
        }
        seq_names.push(name);
    }
    names.add_relation(&ct.name);
    let mut check_names: Vec<String> = Vec::with_capacity(ct.checks.len());
    // PostgreSQL finds a name given twice when it adds the checks, after analysis has found
    // what is wrong with the keys: reported after them.
    let mut check_error = None;
    for (name, _, column) in &ct.checks {
        let name = match name {
            Some(n) => {
                if check_names.contains(n) && check_error.is_none() {
                    check_error = Some(PgError::new(
                        code::DUPLICATE_OBJECT,
                        format!("check constraint \"{n}\" already exists"),
                    ));
                }
                names.add_constraint(n);
                n.clone()
            }
            None => names.check(cx, &ct.name, column.as_deref())?,
        };
        check_names.push(name);
    }
    let keys = merge_duplicate_keys(&ct.keys[..own_keys], &ct.keys[own_keys..]);
    let indexes = index_defs(cx, &mut names, &ct.name, &columns, &keys, &[], true)?;
    if let Some(e) = check_error {
        return Err(e);
    }
    for d in &indexes {
        if d.primary {
            for &c in &d.columns {
                columns[c].not_null = true;
            }
        }
    }
    let mut constraints = Vec::new();
    // A plain index (LIKE ... INCLUDING INDEXES) backs no constraint.
    for (d, k) in indexes.iter().zip(&keys).filter(|(d, _)| d.unique) {
        constraints.push(index::key_constraint(cx, d, k)?);
    }
    for ((_, expr, _), name) in ct.checks.iter().zip(check_names) {
        constraints.push(ConstraintDef {
            oid: cx
                .instance()
                .catalog
                .new_oid()
                .map_err(|e| catalog_error(e, &name))?,
            name,
            kind: ConstraintKind::Check { expr: expr.clone() },
            deferrable: false,
            deferred: false,
        });
    }
    let table_oid = cx
        .instance()
        .catalog
        .new_oid()
        .map_err(|e| catalog_error(e, &ct.name))?;
    sequence::create_column_sequences(
        cx,
        &schema,
        &ct.name,
        table_oid,
        persistence,
        &ct.sequences,
        &seq_names,
        &mut columns,
    )?;
    // Foreign keys last (PostgreSQL adds them after the table's keys); a table referencing
    // itself names its own OID.
    let oid = Some(table_oid);
    let mut taken: Vec<String> = constraints.iter().map(|c| c.name.clone()).collect();
    for fk in &ct.foreign_keys {
        let owner = foreign_key::Owner {
            oid,
            creating: true,
            schema: &schema,
            name: &ct.name,
            columns: &columns,
            indexes: &indexes,
            constraints: &constraints,
        };
        let (def, _) = foreign_key::resolve(cx, &owner, fk, &mut taken)?;
        constraints.push(def);
    }
    let (cell, cid) = cx.writer("CREATE TABLE")?;
    let snap = cx.catalog_snapshot()?;
    let rel = NewRelation {
        name: qual(cx, &schema, &ct.name),
        kind: match ct.matview {
            Some(_) => RelKind::MatView,
            None => RelKind::Table,
        },
        persistence,
        columns,
        indexes: indexes.clone(),
        constraints,
        owner: cx.role_oid(),
        acl: None,
        column_acls: vec![],
        triggers: vec![],
        rules: vec![],
        table: None,
        matview: ct.matview.clone(),
        partition: (key.is_some() || place.is_some()).then(|| {
            Box::new(crate::catalog::partition::Partitioning {
                key: key.clone(),
                of: place.as_ref().map(|p| p.1.clone()),
            })
        }),
        data: Arc::new(TableData::new()),
    };
    if let Some((parent, _, Some((default, bound)))) = &place {
        partition::check_default_rows(cx, parent, default, bound)?;
    }
    let t = cx
        .instance()
        .catalog
        .create(Some(table_oid), rel, &snap, &cell, cid)
        .map_err(|e| catalog_error(e, &ct.name))?;
    // The generation expressions are checked once the table exists, as PostgreSQL cooks them
    // after creating it (a `'t'::regclass` naming the table resolves); an error undoes the
    // creation with the statement.
    for (pos, c) in ct.columns.iter().enumerate() {
        if c.generated {
            generated::check(cx, &ct.name, &t.columns, pos, c.written.as_deref())?;
        }
    }
    if temp {
        cx.on_commit(table_oid, ct.on_commit);
    }
    create_index_relations(cx, &t, &indexes)?;
    like::copy_comments(ct, &schema, cx)
}
