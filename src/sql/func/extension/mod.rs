//! The extensions threadgres has built in, and the functions their CREATE EXTENSION makes.
//!
//! PostgreSQL installs an extension by running its script, which creates functions whose
//! bodies are C symbols of a shared library (`LANGUAGE c AS 'MODULE_PATHNAME', 'symbol'`).
//! threadgres has no loadable code: each extension here is a list of functions whose bodies
//! are symbols of this table, and CREATE EXTENSION (`sql/ddl/extension.rs`) makes them as
//! ordinary catalog functions (in language c, as PostgreSQL shows them, with the symbol as
//! their body), so that they live in the extension's schema, are listed by `\df`, follow
//! search_path, are granted and dropped like any function, and survive a restart with the
//! catalog. A call of such a function binds straight to the symbol's Rust function
//! ([`internal`]).
//!
//! | extension | file | what it has |
//! |-----------|------|-------------|
//! | uuid-ossp | `uuid_ossp.rs` | uuid_generate_v1 / v1mc / v3 / v4 / v5, uuid_nil, uuid_ns_* |
//! | pgcrypto | `pgcrypto.rs` | digest, hmac, crypt, gen_salt, gen_random_bytes, gen_random_uuid |
//! | fuzzystrmatch | `fuzzystrmatch.rs` | levenshtein, soundex, text_soundex, difference |
//! | hstore | `hstore.rs` | the hstore type (made at CREATE EXTENSION), its operators (`->`, `?`, `@>`, `||`, `-` ...) and functions (akeys, slice, hstore_to_json ...) |
//! | citext | `citext.rs` | the citext type (made at CREATE EXTENSION; its values are `sql::types::citext`), its comparisons, LIKE and regular-expression operators, citext_cmp / citext_hash, and its regexp_match / regexp_replace / regexp_split_to_array / strpos / replace / split_part / translate |
//! | pg_trgm | `pg_trgm.rs`, `trgm_gin.rs` | show_trgm, similarity, word_similarity, strict_word_similarity, their operators (`%`, `<->` ...), set_limit / show_limit; the GIN operator class gin_trgm_ops |
//!
//! pgcrypto's PGP functions (pgp_sym_encrypt ...), raw encrypt / decrypt and armor are not
//! built: its CREATE EXTENSION makes only the functions above, so a call of the others is
//! "function does not exist" (42883), not a wrong answer.
//!
//! # Bounds
//!
//! The tables are static; every function bounds its own work (gen_random_bytes at 1,024
//! bytes, bcrypt's cost at 31 as PostgreSQL's pgcrypto does).

pub mod citext;
mod fuzzystrmatch;
pub mod hstore;
pub mod pg_trgm;
mod pgcrypto;
pub mod trgm_gin;
mod uuid_ossp;

use super::ScalarFn;
use crate::sql::types::Type;

/// One function an extension's script makes.
pub struct ExtFunc {
    pub name: &'static str,
    /// (name, type) of each input parameter; an empty name for an unnamed one.
    pub args: &'static [(&'static str, Type)],
    pub returns: Type,
    /// pg_proc.prosrc: the symbol [`internal`] finds.
    pub symbol: &'static str,
    /// pg_proc.provolatile.
    pub volatility: char,
    pub strict: bool,
}

impl ExtFunc {
    /// An entry of an extension's function list.
    pub const fn new(
        name: &'static str,
        args: &'static [(&'static str, Type)],
        returns: Type,
        symbol: &'static str,
        volatility: char,
        strict: bool,
    ) -> ExtFunc {
        ExtFunc {
            name,
            args,
            returns,
            symbol,
            volatility,
            strict,
        }
    }
}

/// A base type an extension's script makes (PostgreSQL: CREATE TYPE over C I/O functions):
/// CREATE EXTENSION gives it and its array type OIDs, and its values are read and written by
/// the built-in implementation `builtin` names (`sql::types::Type::builtin`).
pub struct ExtType {
    pub name: &'static str,
    pub builtin: &'static str,
}

/// Stand-ins, in an extension's function signatures, for the type its CREATE EXTENSION makes
/// and that type's array (OIDs 1 and 2 are no type's); `ddl/extension.rs` puts the OIDs it
/// gave them in their place.
pub const SELF_TYPE: Type = Type(1);
pub const SELF_ARRAY: Type = Type(2);

/// An extension CREATE EXTENSION can install.
pub struct ExtSpec {
    pub name: &'static str,
    pub version: &'static str,
    /// Its control file's comment (pg_available_extensions.comment; `\dx`'s Description).
    pub comment: &'static str,
    pub relocatable: bool,
    /// The type it makes, if any (made before its functions, which may use it).
    pub types: &'static [ExtType],
    pub functions: &'static [ExtFunc],
}

/// plpgsql: installed in every database from the start (it has no row in the catalog's
/// extensions; pg_extension shows it with this OID, PostgreSQL 15's).
pub const PLPGSQL_OID: u32 = 13559;
pub const PLPGSQL: ExtSpec = ExtSpec {
    name: "plpgsql",
    version: "1.0",
    comment: "PL/pgSQL procedural language",
    relocatable: false,
    types: &[],
    functions: &[],
};

/// The extensions that can be installed, by name.
pub const EXTENSIONS: &[ExtSpec] = &[
    citext::SPEC,
    fuzzystrmatch::SPEC,
    hstore::SPEC,
    pgcrypto::SPEC,
    pg_trgm::SPEC,
    PLPGSQL,
    uuid_ossp::SPEC,
];

/// The extension called `name`, if threadgres has it.
pub fn available(name: &str) -> Option<&'static ExtSpec> {
    EXTENSIONS.iter().find(|e| e.name == name)
}

/// The Rust function behind symbol `symbol`: the body of an extension's function, or of a
/// superuser's `CREATE FUNCTION ... LANGUAGE internal AS 'symbol'`.
pub fn internal(symbol: &str) -> Option<ScalarFn> {
    pgcrypto::symbol(symbol)
        .or_else(|| uuid_ossp::symbol(symbol))
        .or_else(|| fuzzystrmatch::symbol(symbol))
        .or_else(|| pg_trgm::symbol(symbol))
        .or_else(|| hstore::symbol(symbol))
        .or_else(|| citext::symbol(symbol))
}
