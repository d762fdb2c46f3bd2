//! The names threadgres makes up for objects the user did not name: the index of a primary key
//! or unique constraint, an index made by CREATE INDEX without a name, the sequence of a serial
//! or identity column, and CHECK and foreign-key constraints. Every one of them is chosen here,
//! by PostgreSQL 15's rules, because applications read them back: Django's migrations look up
//! a constraint by the name PostgreSQL would have given it, and a schema dumped from PostgreSQL
//! and loaded here (or the reverse) must name the same things the same way.
//!
//! **The shape.** A generated name is `name1_name2_label`: the table, then what the object is
//! about (its columns), then a label that says what it is: `pkey`, `key` (unique constraint),
//! `excl` (exclusion constraint), `idx` (plain index, also CREATE UNIQUE INDEX), `seq`, `check`
//! or `fkey`. The middle part is absent for a primary key (`t_pkey`). A CHECK is named after
//! the one column its expression refers to (`t_a_check`, however often it names it), and after
//! the table alone when it refers to none or to several (`t_check`). For several columns
//! the middle part is their names joined by `_` (`t_a_b_key`); the joining stops once it has
//! passed 63 bytes, since no more can be used. An index's columns are first given distinct
//! names (a column indexed twice becomes `a`, `a1`; an expression is `expr`, `expr1`, ...), as
//! PostgreSQL names the index's own columns.
//!
//! **Fitting in 63 bytes.** A name holds at most NAMEDATALEN - 1 = 63 bytes. The label is never
//! shortened (the numbers of the next paragraph go there); the two names share what is left,
//! the longer one giving up a byte at a time until they fit (on a tie the second gives). So
//! with a 63-byte table name the table part is what gets short (`..._pkey`, never a cut that
//! gives back the table's own name). Each part is then cut back to a whole character, so a
//! multibyte name may come out a byte or two shorter than 63.
//!
//! **Collisions.** If the name is taken, the label gets a number: `key1`, `key2`, ... (so
//! `t_a_key1`, `t_a_idx1`, `t_id_seq1`, `t_check1`), recomputing the fit each time since the
//! label grew. What counts as taken depends on the object:
//! - indexes and sequences are relations: the name must be free among the relations of the
//!   schema (tables, indexes, sequences, views);
//! - the index of a constraint (primary key, unique, exclusion) must also not be the name of
//!   any constraint in the schema, and neither may CHECK and foreign-key names: PostgreSQL
//!   keeps generated constraint names unique in the schema, not only in the table, as the SQL
//!   standard asks (so a table renamed away still holds its `t_a_check` and the new `t` gets
//!   `t_a_check1`). A plain index ignores constraint names.
//! - names chosen earlier in the same statement count, in PostgreSQL's order: in CREATE TABLE
//!   the serial sequences are named first (against the catalog only, before the table exists),
//!   then the CHECK constraints in the order written (an explicit name that an earlier
//!   generated one already took is an error), then the indexes with the primary key first, then
//!   the indexes of LIKE ... INCLUDING INDEXES, and last the foreign keys; in ALTER TABLE the
//!   keys before the CHECKs, and an index the statement drops frees its name.
//!
//! [`Names`] holds what one statement has to avoid: the schema's relations and constraints
//! (looked up in the catalog name by name), and the names the statement has already made. The
//! table being changed may be told apart, with its constraints given by the caller, because
//! its catalog version may not show the statement's own changes yet.

use crate::catalog::Oid;
use crate::error::PgResult;
use crate::sql::context::SessionCtx;

/// NAMEDATALEN - 1: the most bytes a name holds.
pub const NAME_BYTES: usize = 63;

/// What a generated index name's label says the index is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexKind {
    Primary,
    /// The index of a unique constraint.
    Unique,
    /// The index of an exclusion constraint.
    Exclusion,
    /// CREATE [UNIQUE] INDEX, and an index LIKE copies that backs no constraint.
    Plain,
}

/// The longest start of `s` that has at most `n` bytes and ends between two characters.
fn clip(s: &str, n: usize) -> &str {
    let mut end = n.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// `name1_name2_label` (`name1_label` without `name2`) in at most 63 bytes: the label whole,
/// the two names shortened, the longer first, then each cut back to a whole character.
pub fn object_name(name1: &str, name2: Option<&str>, label: &str) -> String {
    let overhead = label.len() + 1 + usize::from(name2.is_some());
    let room = NAME_BYTES.saturating_sub(overhead);
    let (mut keep1, mut keep2) = (name1.len(), name2.map_or(0, str::len));
    // The byte goes from the longer; on a tie from name2, so name1 keeps the odd byte.
    while keep1 + keep2 > room {
        if keep1 > keep2 {
            keep1 -= 1;
        } else {
            keep2 -= 1;
        }
    }
    let mut out = String::with_capacity(NAME_BYTES);
    out.push_str(clip(name1, keep1));
    if let Some(n2) = name2 {
        out.push('_');
        out.push_str(clip(n2, keep2));
    }
    out.push('_');
    out.push_str(label);
    out
}

/// The middle part for several columns: their names joined by `_`, stopping once more than 63
/// bytes are there (the rest could never fit).
pub fn joined<S: AsRef<str>>(names: &[S]) -> String {
    let mut out = String::new();
    for n in names {
        if !out.is_empty() {
            out.push('_');
        }
        out.push_str(clip(n.as_ref(), NAME_BYTES));
        if out.len() > NAME_BYTES {
            break;
        }
    }
    out
}

/// Distinct names for an index's columns: a column's own name (`None`: an expression,
/// `expr`), with 1, 2, ... appended (within 63 bytes) to a name an earlier column has.
pub fn index_column_names(columns: &[Option<&str>]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(columns.len());
    for c in columns {
        let base = c.unwrap_or("expr");
        let mut name = base.to_string();
        let mut n = 0u32;
        while out.contains(&name) {
            n += 1;
            let digits = n.to_string();
            name = format!("{}{digits}", clip(base, NAME_BYTES - digits.len()));
        }
        out.push(name);
    }
    out
}

/// The first of `name1_name2_label`, `..._label1`, `..._label2`, ... that `taken` says is free.
fn first_free(
    name1: &str,
    name2: Option<&str>,
    label: &str,
    mut taken: impl FnMut(&str) -> PgResult<bool>,
) -> PgResult<String> {
    let mut name = object_name(name1, name2, label);
    let mut n = 0u32;
    while taken(&name)? {
        n += 1;
        name = object_name(name1, name2, &format!("{label}{n}"));
    }
    Ok(name)
}

/// What the names a statement generates must avoid in one schema (see the module comment).
pub struct Names {
    schema: String,
    /// The relation whose constraints are in `constraints` rather than read from the catalog.
    table: Option<Oid>,
    /// Relation names this statement made or chose.
    relations: Vec<String>,
    /// Relation names this statement has dropped, which the catalog may still show.
    dropped: Vec<String>,
    /// Constraint names this statement made or chose, and those of `table`.
    constraints: Vec<String>,
}

impl Names {
    /// For a statement that makes objects in `schema` (no table of it changed yet).
    pub fn new(schema: &str) -> Names {
        Names {
            schema: schema.to_string(),
            table: None,
            relations: Vec::new(),
            dropped: Vec::new(),
            constraints: Vec::new(),
        }
    }

    /// For a statement that changes table `oid` of `schema`, whose constraints are now
    /// `constraints` (what the statement has made so far included).
    pub fn for_table<'a>(
        schema: &str,
        oid: Oid,
        constraints: impl IntoIterator<Item = &'a str>,
    ) -> Names {
        let mut n = Names::new(schema);
        n.table = Some(oid);
        n.constraints = constraints.into_iter().map(str::to_string).collect();
        n
    }

    /// A relation name the statement has made (or will make) that the catalog does not show.
    pub fn add_relation(&mut self, name: &str) {
        self.relations.push(name.to_string());
    }

    /// A relation name the statement has given up (an index it dropped).
    pub fn drop_relation(&mut self, name: &str) {
        self.dropped.push(name.to_string());
    }

    /// A constraint name the statement has made (or will make) that the catalog does not show.
    pub fn add_constraint(&mut self, name: &str) {
        self.constraints.push(name.to_string());
    }

    /// Whether a constraint of the schema (the statement's own included) is called `name`.
    pub fn constraint_exists(&self, cx: &mut dyn SessionCtx, name: &str) -> PgResult<bool> {
        if self.constraints.iter().any(|c| c == name) {
            return Ok(true);
        }
        // A walk over the catalog per name asked (a few per statement), comparing in place:
        // collecting the schema's constraint names would cost more for each statement.
        let snap = cx.catalog_snapshot()?;
        let db = cx.database();
        Ok(cx.instance().catalog.any_visible(&snap, |r| {
            r.constraints.iter().any(|c| c.name == name)
                && r.name.schema == self.schema
                && r.name.database == db
                && Some(r.oid) != self.table
        }))
    }

    fn relation_exists(&self, cx: &mut dyn SessionCtx, name: &str) -> PgResult<bool> {
        if self.relations.iter().any(|r| r == name) {
            return Ok(true);
        }
        Ok(!self.dropped.iter().any(|r| r == name)
            && super::find(cx, &self.schema, name)?.is_some())
    }

    /// PostgreSQL's ChooseRelationName: a name no relation of the schema has (with
    /// `constraint`, no constraint either). The statement is taken to make it.
    pub fn relation(
        &mut self,
        cx: &mut dyn SessionCtx,
        name1: &str,
        name2: Option<&str>,
        label: &str,
        constraint: bool,
    ) -> PgResult<String> {
        let name = first_free(name1, name2, label, |n| {
            Ok(self.relation_exists(cx, n)? || (constraint && self.constraint_exists(cx, n)?))
        })?;
        self.add_relation(&name);
        if constraint {
            self.add_constraint(&name);
        }
        Ok(name)
    }

    /// PostgreSQL's ChooseConstraintName: a name no constraint of the schema has. The
    /// statement is taken to make it.
    pub fn constraint(
        &mut self,
        cx: &mut dyn SessionCtx,
        name1: &str,
        name2: Option<&str>,
        label: &str,
    ) -> PgResult<String> {
        let name = first_free(name1, name2, label, |n| self.constraint_exists(cx, n))?;
        self.add_constraint(&name);
        Ok(name)
    }

    /// The name of a new index of `table` over `columns` (`None`: an expression).
    pub fn index(
        &mut self,
        cx: &mut dyn SessionCtx,
        table: &str,
        columns: &[Option<&str>],
        kind: IndexKind,
    ) -> PgResult<String> {
        let middle = joined(&index_column_names(columns));
        match kind {
            IndexKind::Primary => self.relation(cx, table, None, "pkey", true),
            IndexKind::Unique => self.relation(cx, table, Some(&middle), "key", true),
            IndexKind::Exclusion => self.relation(cx, table, Some(&middle), "excl", true),
            IndexKind::Plain => self.relation(cx, table, Some(&middle), "idx", false),
        }
    }

    /// The name of a CHECK constraint of `table` that refers to `column` alone (None: to no
    /// column or to several).
    pub fn check(
        &mut self,
        cx: &mut dyn SessionCtx,
        table: &str,
        column: Option<&str>,
    ) -> PgResult<String> {
        self.constraint(cx, table, column, "check")
    }

    /// The name of a foreign key of `table` over `columns` (the referencing ones).
    pub fn foreign_key<S: AsRef<str>>(
        &mut self,
        cx: &mut dyn SessionCtx,
        table: &str,
        columns: &[S],
    ) -> PgResult<String> {
        self.constraint(cx, table, Some(&joined(columns)), "fkey")
    }
}

/// The name of the sequence of serial or identity column `column` of `table`: free among the
/// relations the catalog shows (not those the statement is about to make, as in PostgreSQL,
/// which names it before it makes anything).
pub fn sequence(
    cx: &mut dyn SessionCtx,
    schema: &str,
    table: &str,
    column: &str,
) -> PgResult<String> {
    Names::new(schema).relation(cx, table, Some(column), "seq", false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_are_joined_whole() {
        assert_eq!(object_name("t", Some("a"), "key"), "t_a_key");
        assert_eq!(object_name("t", None, "pkey"), "t_pkey");
        assert_eq!(joined(&["a", "b", "c"]), "a_b_c");
    }

    #[test]
    fn the_longer_name_gives_way_first() {
        let table = "a".repeat(63);
        let n = object_name(&table, None, "pkey");
        assert_eq!(n, format!("{}_pkey", "a".repeat(58)));
        let n = object_name(&"t".repeat(60), Some("col"), "key");
        assert_eq!(n.len(), 63);
        assert!(n.ends_with("_col_key"));
        // Equal lengths: name2 loses the odd byte.
        let n = object_name(&"x".repeat(40), Some(&"y".repeat(40)), "idx");
        assert_eq!(n, format!("{}_{}_idx", "x".repeat(29), "y".repeat(29)));
        let n = object_name(&"x".repeat(40), Some(&"y".repeat(40)), "seq1");
        assert_eq!(n, format!("{}_{}_seq1", "x".repeat(29), "y".repeat(28)));
    }

    #[test]
    fn multibyte_names_are_cut_between_characters() {
        // 31 two-byte characters and 23 two-byte + 3 three-byte ones (PostgreSQL 15 gives
        // a 61-byte name).
        let table = "é".repeat(31);
        let col = format!("{}日本語", "ñ".repeat(23));
        let n = object_name(&table, Some(&col), "seq");
        assert_eq!(n, format!("{}_{}_seq", "é".repeat(14), "ñ".repeat(14)));
        assert_eq!(n.len(), 61);
    }

    #[test]
    fn index_columns_get_distinct_names() {
        assert_eq!(
            index_column_names(&[Some("a"), None, Some("a"), None, Some("a")]),
            ["a", "expr", "a1", "expr1", "a2"]
        );
        let long = "c".repeat(63);
        let names = index_column_names(&[Some(&long), Some(&long)]);
        assert_eq!(names[1], format!("{}1", "c".repeat(62)));
    }

    #[test]
    fn joining_stops_past_63_bytes() {
        let a = "a".repeat(40);
        let j = joined(&[a.as_str(), a.as_str(), "b"]);
        assert_eq!(j, format!("{a}_{a}"));
    }

    #[test]
    fn first_free_numbers_the_label() {
        let taken = ["t_a_key", "t_a_key1"];
        let n = first_free("t", Some("a"), "key", |n| Ok(taken.contains(&n))).unwrap();
        assert_eq!(n, "t_a_key2");
    }
}
