//! SQL types and values.
//!
//! A [`Type`] is a PostgreSQL type OID: threadgres has no catalog tables yet, so the built-in
//! types are constants here and everything a client sees (RowDescription, ParameterDescription)
//! is PostgreSQL's OID for the same type. A [`Value`] is one datum in its in-memory form. Values do
//! not carry their type: the planner types every expression statically, as PostgreSQL does, and
//! passes the type to the I/O and cast functions.
//!
//! Text family types (text, varchar, bpchar, name, unknown literals) share `Value::Text`;
//! timestamps are microseconds since 2000-01-01 (PostgreSQL's epoch), dates days since then.
//!
//! Submodules: `io` (text and binary input/output for every type, session-dependent formatting
//! through [`FormatCtx`]), `cast` (coercions), `ops` (operators), `datetime`, `numeric` and
//! `format` (to_char / to_timestamp / to_number templates), `json` (json/jsonb), `network`
//! (inet/cidr), `citext` (the citext extension's case-insensitive values) and `lookup3`
//! (PostgreSQL's hash of bytes).

pub mod cast;
pub mod citext;
pub mod datetime;
pub mod format;
pub mod geo;
pub mod hstore;
pub mod io;
pub mod json;
pub mod lookup3;
pub mod lsn;
pub mod multirange;
pub mod network;
pub mod numeric;
pub mod ops;
pub mod range;
pub mod subscript;
pub mod tid;

use std::cmp::Ordering;
use std::fmt;

pub use multirange::Multirange;
pub use numeric::Numeric;
pub use range::Range;

use crate::catalog::types as enums;

/// A type, identified by its PostgreSQL OID.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Type(pub u32);

impl Type {
    pub const BOOL: Type = Type(16);
    pub const BYTEA: Type = Type(17);
    pub const CHAR: Type = Type(18);
    pub const NAME: Type = Type(19);
    pub const INT8: Type = Type(20);
    pub const INT2: Type = Type(21);
    pub const INT4: Type = Type(23);
    pub const REGPROC: Type = Type(24);
    pub const TEXT: Type = Type(25);
    pub const OID: Type = Type(26);
    pub const JSON: Type = Type(114);
    pub const FLOAT4: Type = Type(700);
    pub const FLOAT8: Type = Type(701);
    pub const UNKNOWN: Type = Type(705);
    pub const BPCHAR: Type = Type(1042);
    pub const VARCHAR: Type = Type(1043);
    pub const DATE: Type = Type(1082);
    pub const TIME: Type = Type(1083);
    pub const TIMESTAMP: Type = Type(1114);
    pub const TIMESTAMPTZ: Type = Type(1184);
    pub const INTERVAL: Type = Type(1186);
    pub const NUMERIC: Type = Type(1700);
    pub const REGCLASS: Type = Type(2205);
    pub const REGTYPE: Type = Type(2206);
    pub const VOID: Type = Type(2278);
    /// The pseudo-types of type I/O functions' arguments and results (CREATE FUNCTION
    /// int42_in(cstring) ... LANGUAGE internal); no value is of them.
    pub const CSTRING: Type = Type(2275);
    pub const INTERNAL: Type = Type(2281);
    pub const RECORD: Type = Type(2249);
    pub const UUID: Type = Type(2950);
    /// 64-bit transaction id (pg_current_xact_id()); held as Value::Int8.
    pub const XID8: Type = Type(5069);
    pub const PG_LSN: Type = Type(3220);
    /// The geometric types (`geo.rs`), held as `Value::Bytea` of their binary form.
    pub const POINT: Type = Type(600);
    pub const LSEG: Type = Type(601);
    pub const BOX: Type = Type(603);
    pub const CIRCLE: Type = Type(718);
    pub const TIMETZ: Type = Type(1266);
    pub const INET: Type = Type(869);
    pub const CIDR: Type = Type(650);
    pub const JSONB: Type = Type(3802);
    pub const ANY: Type = Type(2276);
    pub const ANYELEMENT: Type = Type(2283);
    pub const ANYARRAY: Type = Type(2277);
    /// Any range type, in the signatures of the range operators (`plan/range.rs` binds it).
    pub const ANYRANGE: Type = Type(3831);
    pub const INT4RANGE: Type = Type(3904);
    pub const NUMRANGE: Type = Type(3906);
    pub const TSRANGE: Type = Type(3908);
    pub const TSTZRANGE: Type = Type(3910);
    pub const DATERANGE: Type = Type(3912);
    pub const INT8RANGE: Type = Type(3926);
    /// Any multirange type (`plan/range.rs` binds it with anyrange).
    pub const ANYMULTIRANGE: Type = Type(4537);
    pub const INT4MULTIRANGE: Type = Type(4451);
    pub const NUMMULTIRANGE: Type = Type(4532);
    pub const TSMULTIRANGE: Type = Type(4533);
    pub const TSTZMULTIRANGE: Type = Type(4534);
    pub const DATEMULTIRANGE: Type = Type(4535);
    pub const INT8MULTIRANGE: Type = Type(4536);
    // The other polymorphic pseudo-types (user functions' signatures, `plan/polymorphic.rs`).
    pub const ANYNONARRAY: Type = Type(2776);
    pub const ANYENUM: Type = Type(3500);
    pub const ANYCOMPATIBLE: Type = Type(5077);
    pub const ANYCOMPATIBLEARRAY: Type = Type(5078);
    pub const ANYCOMPATIBLENONARRAY: Type = Type(5079);
    pub const ANYCOMPATIBLERANGE: Type = Type(5080);
    pub const ANYCOMPATIBLEMULTIRANGE: Type = Type(4538);
    // Types that only appear as catalog columns (their values are always NULL here).
    pub const INT2VECTOR: Type = Type(22);
    pub const XID: Type = Type(28);
    /// A row version's place (the ctid system column), held as `Value::Int8` (`tid.rs`).
    pub const TID: Type = Type(27);
    /// A command id (cmin, cmax), held as `Value::Oid`; xid is too.
    pub const CID: Type = Type(29);
    pub const TID_ARRAY: Type = Type(1010);
    pub const XID_ARRAY: Type = Type(1011);
    pub const CID_ARRAY: Type = Type(1012);
    pub const OIDVECTOR: Type = Type(30);
    pub const PG_NODE_TREE: Type = Type(194);
    pub const ACLITEM_ARRAY: Type = Type(1034);
    /// An access privilege item, held as its text form (`postgres=CTc/postgres`).
    pub const ACLITEM: Type = Type(1033);
    /// A schema, by OID (regnamespace); prints the schema's name.
    pub const REGNAMESPACE: Type = Type(4089);
    /// A role, by OID (regrole); prints the role's name. A role made by CREATE ROLE is held by
    /// name, as a user relation's regclass is (`plan/regrole.rs`).
    pub const REGROLE: Type = Type(4096);
    /// A function with its argument types, by OID (regprocedure): prints `abs(integer)`.
    pub const REGPROCEDURE: Type = Type(2202);

    pub const BOOL_ARRAY: Type = Type(1000);
    pub const BYTEA_ARRAY: Type = Type(1001);
    pub const CHAR_ARRAY: Type = Type(1002);
    pub const NAME_ARRAY: Type = Type(1003);
    pub const INT2_ARRAY: Type = Type(1005);
    pub const INT4_ARRAY: Type = Type(1007);
    pub const TEXT_ARRAY: Type = Type(1009);
    pub const BPCHAR_ARRAY: Type = Type(1014);
    pub const VARCHAR_ARRAY: Type = Type(1015);
    pub const INT8_ARRAY: Type = Type(1016);
    pub const FLOAT4_ARRAY: Type = Type(1021);
    pub const FLOAT8_ARRAY: Type = Type(1022);
    pub const OID_ARRAY: Type = Type(1028);
    pub const TIMESTAMP_ARRAY: Type = Type(1115);
    pub const DATE_ARRAY: Type = Type(1182);
    pub const TIME_ARRAY: Type = Type(1183);
    pub const TIMESTAMPTZ_ARRAY: Type = Type(1185);
    pub const INTERVAL_ARRAY: Type = Type(1187);
    pub const NUMERIC_ARRAY: Type = Type(1231);
    pub const REGTYPE_ARRAY: Type = Type(2211);
    pub const UUID_ARRAY: Type = Type(2951);
    pub const PG_LSN_ARRAY: Type = Type(3221);
    pub const POINT_ARRAY: Type = Type(1017);
    pub const LSEG_ARRAY: Type = Type(1018);
    pub const BOX_ARRAY: Type = Type(1020);
    pub const CIRCLE_ARRAY: Type = Type(719);
    pub const JSON_ARRAY: Type = Type(199);
    pub const JSONB_ARRAY: Type = Type(3807);
    pub const TIMETZ_ARRAY: Type = Type(1270);
    pub const INET_ARRAY: Type = Type(1041);
    pub const CIDR_ARRAY: Type = Type(651);
    pub const RECORD_ARRAY: Type = Type(2287);
    pub const INT4RANGE_ARRAY: Type = Type(3905);
    pub const NUMRANGE_ARRAY: Type = Type(3907);
    pub const TSRANGE_ARRAY: Type = Type(3909);
    pub const TSTZRANGE_ARRAY: Type = Type(3911);
    pub const DATERANGE_ARRAY: Type = Type(3913);
    pub const INT8RANGE_ARRAY: Type = Type(3927);
    pub const INT4MULTIRANGE_ARRAY: Type = Type(6150);
    pub const NUMMULTIRANGE_ARRAY: Type = Type(6151);
    pub const TSMULTIRANGE_ARRAY: Type = Type(6152);
    pub const TSTZMULTIRANGE_ARRAY: Type = Type(6153);
    pub const DATEMULTIRANGE_ARRAY: Type = Type(6155);
    pub const INT8MULTIRANGE_ARRAY: Type = Type(6157);

    /// (element, array) pairs of every built-in type that has an array type here.
    const ARRAYS: &'static [(Type, Type)] = &[
        (Type::BOOL, Type::BOOL_ARRAY),
        (Type::BYTEA, Type::BYTEA_ARRAY),
        (Type::CHAR, Type::CHAR_ARRAY),
        (Type::NAME, Type::NAME_ARRAY),
        (Type::INT2, Type::INT2_ARRAY),
        (Type::INT4, Type::INT4_ARRAY),
        (Type::TEXT, Type::TEXT_ARRAY),
        (Type::BPCHAR, Type::BPCHAR_ARRAY),
        (Type::VARCHAR, Type::VARCHAR_ARRAY),
        (Type::INT8, Type::INT8_ARRAY),
        (Type::FLOAT4, Type::FLOAT4_ARRAY),
        (Type::FLOAT8, Type::FLOAT8_ARRAY),
        (Type::OID, Type::OID_ARRAY),
        (Type::TIMESTAMP, Type::TIMESTAMP_ARRAY),
        (Type::DATE, Type::DATE_ARRAY),
        (Type::TIME, Type::TIME_ARRAY),
        (Type::TIMESTAMPTZ, Type::TIMESTAMPTZ_ARRAY),
        (Type::INTERVAL, Type::INTERVAL_ARRAY),
        (Type::NUMERIC, Type::NUMERIC_ARRAY),
        (Type::REGTYPE, Type::REGTYPE_ARRAY),
        (Type::UUID, Type::UUID_ARRAY),
        (Type::PG_LSN, Type::PG_LSN_ARRAY),
        (Type::POINT, Type::POINT_ARRAY),
        (Type::LSEG, Type::LSEG_ARRAY),
        (Type::BOX, Type::BOX_ARRAY),
        (Type::CIRCLE, Type::CIRCLE_ARRAY),
        (Type::TID, Type::TID_ARRAY),
        (Type::XID, Type::XID_ARRAY),
        (Type::CID, Type::CID_ARRAY),
        (Type::JSON, Type::JSON_ARRAY),
        (Type::JSONB, Type::JSONB_ARRAY),
        (Type::TIMETZ, Type::TIMETZ_ARRAY),
        (Type::INET, Type::INET_ARRAY),
        (Type::CIDR, Type::CIDR_ARRAY),
        (Type::RECORD, Type::RECORD_ARRAY),
        (Type::ACLITEM, Type::ACLITEM_ARRAY),
        (Type::INT4RANGE, Type::INT4RANGE_ARRAY),
        (Type::NUMRANGE, Type::NUMRANGE_ARRAY),
        (Type::TSRANGE, Type::TSRANGE_ARRAY),
        (Type::TSTZRANGE, Type::TSTZRANGE_ARRAY),
        (Type::DATERANGE, Type::DATERANGE_ARRAY),
        (Type::INT8RANGE, Type::INT8RANGE_ARRAY),
        (Type::INT4MULTIRANGE, Type::INT4MULTIRANGE_ARRAY),
        (Type::NUMMULTIRANGE, Type::NUMMULTIRANGE_ARRAY),
        (Type::TSMULTIRANGE, Type::TSMULTIRANGE_ARRAY),
        (Type::TSTZMULTIRANGE, Type::TSTZMULTIRANGE_ARRAY),
        (Type::DATEMULTIRANGE, Type::DATEMULTIRANGE_ARRAY),
        (Type::INT8MULTIRANGE, Type::INT8MULTIRANGE_ARRAY),
    ];

    /// The element type if this is an array type.
    pub fn elem(self) -> Option<Type> {
        Type::ARRAYS
            .iter()
            .find(|(_, a)| *a == self)
            .map(|(e, _)| *e)
            .or_else(|| enums::array_elem(self.0).map(Type))
    }

    /// The array type whose elements are of this type.
    pub fn array(self) -> Option<Type> {
        Type::ARRAYS
            .iter()
            .find(|(e, _)| *e == self)
            .map(|(_, a)| *a)
            .or_else(|| enums::array_of(self.0).map(Type))
    }

    /// Whether this is a user-defined enum type (CREATE TYPE ... AS ENUM).
    pub fn is_enum(self) -> bool {
        enums::type_info(self.0).is_some_and(|t| t.def.is_enum())
    }

    /// Whether this is the hstore extension's type (its OID is made by CREATE EXTENSION;
    /// values are held in normal text form, `hstore.rs`).
    pub fn is_hstore(self) -> bool {
        self.builtin() == Some("hstore")
    }

    /// Whether this is the citext extension's type (its OID is made by CREATE EXTENSION;
    /// values are `Value::CiText`, `citext.rs`).
    pub fn is_citext(self) -> bool {
        self.builtin() == Some("citext")
    }

    /// The built-in implementation of an extension's base type this is (`hstore`, `citext`),
    /// if any.
    pub fn builtin(self) -> Option<&'static str> {
        if self.0 < crate::catalog::FIRST_USER_OID {
            return None;
        }
        // The registry answers for the array type's OID too.
        let t = enums::type_info(self.0).filter(|t| t.oid == self.0)?;
        match t.def.builtin.as_deref() {
            Some("hstore") => Some("hstore"),
            Some("citext") => Some("citext"),
            _ => None,
        }
    }

    /// Whether this is a composite type: made by CREATE TYPE ... AS, or a table's row type
    /// the planner has looked up (`Planner::composite_fields`).
    pub fn is_composite(self) -> bool {
        enums::row_fields(self.0).is_some()
    }

    /// Whether this is a range type (built-in or CREATE TYPE ... AS RANGE).
    pub fn is_range(self) -> bool {
        range::subtype(self).is_some()
    }

    /// The subtype of a range type.
    pub fn range_subtype(self) -> Option<Type> {
        range::subtype(self)
    }

    /// Whether this is a multirange type (built-in or made with a CREATE TYPE ... AS RANGE).
    pub fn is_multirange(self) -> bool {
        multirange::range_type(self).is_some()
    }

    /// The range type of a multirange type.
    pub fn multirange_range(self) -> Option<Type> {
        multirange::range_type(self)
    }

    /// The multirange type of a range type.
    pub fn range_multirange(self) -> Option<Type> {
        multirange::of_range(self)
    }

    /// Whether this is a domain (CREATE DOMAIN).
    pub fn is_domain(self) -> bool {
        enums::domain_info(self.0).is_some()
    }

    /// The type values of this type are held and computed as, with the typmod a domain gives
    /// it: a domain's base type (down a chain of domains), an array of domains' the array of
    /// that base; any other type is itself (typmod -1). Expressions are typed by this, so a
    /// domain value works as its base type does everywhere (PostgreSQL's implicit coercion
    /// of a domain to its base type), and clients see the base type, as PostgreSQL's
    /// RowDescription shows it.
    pub fn base(self) -> (Type, i32) {
        if self.0 < crate::catalog::FIRST_USER_OID {
            return (self, -1);
        }
        if let Some((b, m)) = enums::domain_base(self.0) {
            return (Type(b), m);
        }
        if let Some(e) = self.elem().filter(|e| e.is_domain()) {
            let (b, _) = e.base();
            return (b.array().unwrap_or(b), -1);
        }
        (self, -1)
    }

    /// [`Type::base`] without the typmod.
    pub fn base_type(self) -> Type {
        self.base().0
    }

    /// The type a subscript of this type yields: an array's element, or the element of the
    /// catalogs' vector types (int2vector, oidvector).
    pub fn subscript_elem(self) -> Option<Type> {
        match self {
            Type::INT2VECTOR => Some(Type::INT2),
            Type::OIDVECTOR => Some(Type::OID),
            // A name is a fixed array of 64 bytes: name[0] is its first "char".
            Type::NAME => Some(Type::CHAR),
            // Fixed-length arrays from 0: a point's coordinates, a box's or lseg's points.
            Type::POINT => Some(Type::FLOAT8),
            Type::LSEG | Type::BOX => Some(Type::POINT),
            t => t.elem(),
        }
    }

    /// Whether this is one of the polymorphic pseudo-types (PostgreSQL's IsPolymorphicType).
    pub fn is_polymorphic(self) -> bool {
        matches!(
            self,
            Type::ANYELEMENT
                | Type::ANYARRAY
                | Type::ANYNONARRAY
                | Type::ANYENUM
                | Type::ANYRANGE
                | Type::ANYMULTIRANGE
                | Type::ANYCOMPATIBLE
                | Type::ANYCOMPATIBLEARRAY
                | Type::ANYCOMPATIBLENONARRAY
                | Type::ANYCOMPATIBLERANGE
                | Type::ANYCOMPATIBLEMULTIRANGE
        )
    }

    pub fn is_array(self) -> bool {
        self.elem().is_some()
    }

    /// PostgreSQL's type name as `format_type` prints it (used in error messages and regtype).
    pub fn name(self) -> String {
        if let Some(e) = self.elem() {
            return format!("{}[]", e.name());
        }
        match self {
            Type::BOOL => "boolean",
            Type::BYTEA => "bytea",
            Type::CHAR => "\"char\"",
            Type::NAME => "name",
            Type::INT8 => "bigint",
            Type::INT2 => "smallint",
            Type::INT4 => "integer",
            Type::REGPROC => "regproc",
            Type::TEXT => "text",
            Type::OID => "oid",
            Type::JSON => "json",
            Type::FLOAT4 => "real",
            Type::FLOAT8 => "double precision",
            Type::UNKNOWN => "unknown",
            Type::BPCHAR => "character",
            Type::VARCHAR => "character varying",
            Type::DATE => "date",
            Type::TIME => "time without time zone",
            Type::TIMETZ => "time with time zone",
            Type::INET => "inet",
            Type::XID8 => "xid8",
            Type::PG_LSN => "pg_lsn",
            Type::POINT => "point",
            Type::LSEG => "lseg",
            Type::BOX => "box",
            Type::CIRCLE => "circle",
            Type::CIDR => "cidr",
            Type::TIMESTAMP => "timestamp without time zone",
            Type::TIMESTAMPTZ => "timestamp with time zone",
            Type::INTERVAL => "interval",
            Type::NUMERIC => "numeric",
            Type::REGCLASS => "regclass",
            Type::REGTYPE => "regtype",
            Type::VOID => "void",
            Type::CSTRING => "cstring",
            Type::INTERNAL => "internal",
            Type::RECORD => "record",
            Type::UUID => "uuid",
            Type::JSONB => "jsonb",
            Type::ANY => "\"any\"",
            Type::ANYELEMENT => "anyelement",
            Type::ANYARRAY => "anyarray",
            Type::ANYRANGE => "anyrange",
            Type::ANYMULTIRANGE => "anymultirange",
            Type::ANYNONARRAY => "anynonarray",
            Type::ANYENUM => "anyenum",
            Type::ANYCOMPATIBLE => "anycompatible",
            Type::ANYCOMPATIBLEARRAY => "anycompatiblearray",
            Type::ANYCOMPATIBLENONARRAY => "anycompatiblenonarray",
            Type::ANYCOMPATIBLERANGE => "anycompatiblerange",
            Type::ANYCOMPATIBLEMULTIRANGE => "anycompatiblemultirange",
            Type::INT4RANGE => "int4range",
            Type::NUMRANGE => "numrange",
            Type::TSRANGE => "tsrange",
            Type::TSTZRANGE => "tstzrange",
            Type::DATERANGE => "daterange",
            Type::INT8RANGE => "int8range",
            Type::INT4MULTIRANGE => "int4multirange",
            Type::NUMMULTIRANGE => "nummultirange",
            Type::TSMULTIRANGE => "tsmultirange",
            Type::TSTZMULTIRANGE => "tstzmultirange",
            Type::DATEMULTIRANGE => "datemultirange",
            Type::INT8MULTIRANGE => "int8multirange",
            Type::INT2VECTOR => "int2vector",
            Type::XID => "xid",
            Type::TID => "tid",
            Type::CID => "cid",
            Type::OIDVECTOR => "oidvector",
            Type::PG_NODE_TREE => "pg_node_tree",
            Type::ACLITEM => "aclitem",
            Type::REGNAMESPACE => "regnamespace",
            Type::REGROLE => "regrole",
            Type::REGPROCEDURE => "regprocedure",
            _ => {
                if let Some(t) = enums::type_info(self.0) {
                    return qualified_name(&t.def.schema, &t.def.name);
                }
                if let Some(f) = enums::row_fields(self.0) {
                    return qualified_name(&f.schema, &f.name);
                }
                if let Some((schema, name)) = enums::multirange_name(self.0) {
                    return qualified_name(&schema, &name);
                }
                return format!("type {}", self.0);
            }
        }
        .to_string()
    }

    /// The short internal name (pg_type.typname), as in `int4`, `_int4`.
    pub fn typname(self) -> String {
        if let Some(e) = self.elem() {
            return format!("_{}", e.typname());
        }
        match self {
            Type::BOOL => "bool",
            Type::BYTEA => "bytea",
            Type::CHAR => "char",
            Type::NAME => "name",
            Type::INT8 => "int8",
            Type::INT2 => "int2",
            Type::INT4 => "int4",
            Type::TEXT => "text",
            Type::OID => "oid",
            Type::FLOAT4 => "float4",
            Type::FLOAT8 => "float8",
            Type::BPCHAR => "bpchar",
            Type::VARCHAR => "varchar",
            Type::TIMESTAMPTZ => "timestamptz",
            Type::TIMESTAMP => "timestamp",
            Type::INTERVAL => "interval",
            Type::TIME => "time",
            Type::TIMETZ => "timetz",
            _ => match enums::type_info(self.0) {
                Some(t) => return t.def.name.clone(),
                None => return self.name(),
            },
        }
        .to_string()
    }

    /// Looks a type up by any name SQL accepts for it (`int`, `integer`, `int4`, `pg_catalog.int4`,
    /// `character varying`, `_int4`, `timestamptz`, ...). Names are already lower-cased by the parser.
    pub fn from_name(name: &str) -> Option<Type> {
        // Array markers are peeled in a loop (a name is client input: `'____…'::regtype`).
        let mut name = name;
        let mut arrays = 0usize;
        loop {
            name = name.strip_prefix("pg_catalog.").unwrap_or(name);
            if let Some(elem) = name.strip_prefix('_') {
                name = elem;
            } else if let Some(elem) = name.strip_suffix("[]") {
                name = elem;
            } else {
                break;
            }
            arrays += 1;
        }
        let mut t = Type::scalar_from_name(name)?;
        for _ in 0..arrays {
            t = t.array()?;
        }
        Some(t)
    }

    /// [`Type::from_name`] of a name without array markers.
    fn scalar_from_name(name: &str) -> Option<Type> {
        Some(match name {
            "bool" | "boolean" => Type::BOOL,
            "bytea" => Type::BYTEA,
            "char" | "\"char\"" => Type::CHAR,
            "name" => Type::NAME,
            "int8" | "bigint" => Type::INT8,
            "int2" | "smallint" => Type::INT2,
            "int4" | "int" | "integer" => Type::INT4,
            "text" => Type::TEXT,
            "oid" => Type::OID,
            "json" => Type::JSON,
            "jsonb" => Type::JSONB,
            "float4" | "real" => Type::FLOAT4,
            "float8" | "double precision" | "float" => Type::FLOAT8,
            "unknown" => Type::UNKNOWN,
            "bpchar" | "character" => Type::BPCHAR,
            "varchar" | "character varying" => Type::VARCHAR,
            "date" => Type::DATE,
            "time" | "time without time zone" => Type::TIME,
            "timetz" | "time with time zone" => Type::TIMETZ,
            "inet" => Type::INET,
            "xid8" => Type::XID8,
            "xid" => Type::XID,
            "tid" => Type::TID,
            "cid" => Type::CID,
            "pg_lsn" => Type::PG_LSN,
            "point" => Type::POINT,
            "lseg" => Type::LSEG,
            "box" => Type::BOX,
            "circle" => Type::CIRCLE,
            "cidr" => Type::CIDR,
            "timestamp" | "timestamp without time zone" => Type::TIMESTAMP,
            "timestamptz" | "timestamp with time zone" => Type::TIMESTAMPTZ,
            "interval" => Type::INTERVAL,
            "numeric" | "decimal" => Type::NUMERIC,
            "regclass" => Type::REGCLASS,
            "regtype" => Type::REGTYPE,
            "regproc" => Type::REGPROC,
            "regnamespace" => Type::REGNAMESPACE,
            "regrole" => Type::REGROLE,
            "regprocedure" => Type::REGPROCEDURE,
            "aclitem" => Type::ACLITEM,
            "int2vector" => Type::INT2VECTOR,
            "oidvector" => Type::OIDVECTOR,
            "void" => Type::VOID,
            "cstring" => Type::CSTRING,
            "internal" => Type::INTERNAL,
            "record" => Type::RECORD,
            "uuid" => Type::UUID,
            "int4range" => Type::INT4RANGE,
            "numrange" => Type::NUMRANGE,
            "tsrange" => Type::TSRANGE,
            "tstzrange" => Type::TSTZRANGE,
            "daterange" => Type::DATERANGE,
            "int8range" => Type::INT8RANGE,
            "int4multirange" => Type::INT4MULTIRANGE,
            "nummultirange" => Type::NUMMULTIRANGE,
            "tsmultirange" => Type::TSMULTIRANGE,
            "tstzmultirange" => Type::TSTZMULTIRANGE,
            "datemultirange" => Type::DATEMULTIRANGE,
            "int8multirange" => Type::INT8MULTIRANGE,
            "any" => Type::ANY,
            "anyelement" => Type::ANYELEMENT,
            "anyarray" => Type::ANYARRAY,
            "anyrange" => Type::ANYRANGE,
            "anymultirange" => Type::ANYMULTIRANGE,
            "anynonarray" => Type::ANYNONARRAY,
            "anyenum" => Type::ANYENUM,
            "anycompatible" => Type::ANYCOMPATIBLE,
            "anycompatiblearray" => Type::ANYCOMPATIBLEARRAY,
            "anycompatiblenonarray" => Type::ANYCOMPATIBLENONARRAY,
            "anycompatiblerange" => Type::ANYCOMPATIBLERANGE,
            "anycompatiblemultirange" => Type::ANYCOMPATIBLEMULTIRANGE,
            _ => return None,
        })
    }

    /// pg_type.typlen: the fixed size in bytes, or -1 for variable length, -2 for C strings.
    pub fn typlen(self) -> i16 {
        match self {
            Type::BOOL | Type::CHAR => 1,
            Type::INT2 => 2,
            Type::INT4 | Type::OID | Type::FLOAT4 | Type::DATE | Type::REGCLASS => 4,
            Type::REGTYPE | Type::REGPROC | Type::VOID | Type::XID | Type::REGNAMESPACE => 4,
            Type::CID => 4,
            Type::TID => 6,
            Type::REGPROCEDURE | Type::REGROLE => 4,
            // trigger, a pseudo-type whose typlen is 4.
            Type(2279) => 4,
            Type::ACLITEM => 12,
            Type::INT8 | Type::FLOAT8 | Type::TIMESTAMP | Type::TIMESTAMPTZ | Type::TIME => 8,
            Type::XID8 | Type::PG_LSN => 8,
            Type::INTERVAL | Type::UUID | Type::POINT => 16,
            Type::BOX | Type::LSEG => 32,
            Type::CIRCLE => 24,
            Type::TIMETZ => 12,
            Type::NAME => 64,
            Type::UNKNOWN => -2,
            // An enum value is its label's 4-byte OID.
            t if t.is_enum() => 4,
            t if t.is_domain() => t.base_type().typlen(),
            _ => -1,
        }
    }

    /// PostgreSQL's type category (pg_type.typcategory), used by operator and function
    /// resolution to prefer candidates within a category.
    pub fn category(self) -> char {
        if self.is_array() {
            return 'A';
        }
        match self {
            Type::BOOL => 'B',
            Type::INT2 | Type::INT4 | Type::INT8 | Type::FLOAT4 | Type::FLOAT8 | Type::NUMERIC => {
                'N'
            }
            Type::OID
            | Type::REGCLASS
            | Type::REGTYPE
            | Type::REGPROC
            | Type::REGNAMESPACE
            | Type::REGROLE
            | Type::REGPROCEDURE => 'N',
            Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::CHAR => 'S',
            Type::DATE | Type::TIMESTAMP | Type::TIMESTAMPTZ | Type::TIME | Type::TIMETZ => 'D',
            Type::INET | Type::CIDR => 'I',
            Type::POINT | Type::LSEG | Type::BOX | Type::CIRCLE => 'G',
            Type::INTERVAL => 'T',
            Type::UNKNOWN => 'X',
            Type::BYTEA | Type::UUID | Type::JSON | Type::JSONB => 'U',
            Type::VOID
            | Type::RECORD
            | Type::ANY
            | Type::ANYELEMENT
            | Type::ANYARRAY
            | Type::ANYRANGE
            | Type::ANYMULTIRANGE => 'P',
            t if t.is_polymorphic() => 'P',
            t if t.is_enum() => 'E',
            // citext is of the string category, as its CREATE TYPE says (CATEGORY = 'S').
            t if t.is_citext() => 'S',
            t if t.is_domain() => t.base_type().category(),
            t if t.is_composite() => 'C',
            t if t.is_range() || t.is_multirange() => 'R',
            _ => 'U',
        }
    }

    /// Whether this is the preferred type of its category (text, float8, timestamptz, ...).
    pub fn is_preferred(self) -> bool {
        matches!(
            self,
            Type::TEXT
                | Type::FLOAT8
                | Type::TIMESTAMPTZ
                | Type::INTERVAL
                | Type::BOOL
                | Type::OID
                | Type::INET
        )
    }

    pub fn is_text_like(self) -> bool {
        matches!(
            self,
            Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN | Type::CHAR
        )
    }

    pub fn is_numeric_like(self) -> bool {
        matches!(
            self,
            Type::INT2 | Type::INT4 | Type::INT8 | Type::FLOAT4 | Type::FLOAT8 | Type::NUMERIC
        )
    }
}

impl fmt::Debug for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.typname())
    }
}

/// PostgreSQL interval: months, days and microseconds are kept apart, as in PostgreSQL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Interval {
    pub months: i32,
    pub days: i32,
    pub micros: i64,
}

impl Interval {
    /// The ordering key PostgreSQL compares intervals by (30-day months, 24-hour days).
    pub fn sort_key(&self) -> i128 {
        (self.months as i128 * 30 + self.days as i128) * 86_400_000_000 + self.micros as i128
    }
}

/// An array value: PostgreSQL arrays may be multi-dimensional; `dims` holds (length, lower bound)
/// per dimension and `items` the elements in row-major order.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    pub elem: Type,
    pub dims: Vec<(i32, i32)>,
    pub items: Vec<Value>,
}

impl Array {
    pub fn one_dim(elem: Type, items: Vec<Value>) -> Array {
        let dims = if items.is_empty() {
            Vec::new()
        } else {
            vec![(items.len() as i32, 1)]
        };
        Array { elem, dims, items }
    }

    /// A value of the catalogs' vector types (int2vector, oidvector): one dimension whose
    /// subscripts start at 0, as PostgreSQL's do.
    /// An empty vector still has its one dimension (PostgreSQL sends it so in binary).
    pub fn vector(elem: Type, items: Vec<Value>) -> Array {
        Array {
            elem,
            dims: vec![(items.len() as i32, 0)],
            items,
        }
    }
}

/// One datum.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int2(i16),
    Int4(i32),
    Int8(i64),
    Float4(f32),
    Float8(f64),
    Numeric(Box<Numeric>),
    /// text, varchar, bpchar, name, "char", unknown, json, regtype/regclass text forms.
    Text(String),
    /// A citext value as it was written: it compares, sorts and hashes by its lower-case
    /// form (`citext.rs` says why the value, not the type, carries this).
    CiText(String),
    Bytea(Vec<u8>),
    /// Days since 2000-01-01 (i32::MIN / i32::MAX are -infinity / infinity).
    Date(i32),
    /// Microseconds since midnight.
    Time(i64),
    /// time with time zone: microseconds since midnight (local) and the zone in seconds *west*
    /// of Greenwich, PostgreSQL's sign and binary layout.
    TimeTz(i64, i32),
    /// Microseconds since 2000-01-01 00:00:00 (i64::MIN / i64::MAX are -infinity / infinity).
    Timestamp(i64),
    /// Microseconds since 2000-01-01 00:00:00 UTC.
    TimestampTz(i64),
    Interval(Interval),
    Oid(u32),
    Uuid([u8; 16]),
    /// inet or cidr (the type says which; cidr values have no host bits).
    Inet(network::Inet),
    Array(Box<Array>),
    /// A row value `(a, b, ...)`, used for row comparisons and record output.
    Record(Vec<Value>),
    Void,
    /// A value of an enum type: the OID of its pg_enum row (`catalog::types` says how it
    /// prints and sorts).
    Enum(u32),
    /// A value of a range type (`range.rs`).
    Range(Box<Range>),
    /// A value of a multirange type (`multirange.rs`).
    Multirange(Box<Multirange>),
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// Integer value of any integer-typed datum.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int2(v) => Some(*v as i64),
            Value::Int4(v) => Some(*v as i64),
            Value::Int8(v) => Some(*v),
            Value::Oid(v) => Some(*v as i64),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Text(s) | Value::CiText(s) => Some(s),
            _ => None,
        }
    }
}

/// Session settings that change how values are read and written as text.
#[derive(Clone, Debug)]
pub struct FormatCtx {
    /// DateStyle output: ISO (the only one clients rely on) and the order for ambiguous input.
    pub date_style: DateStyle,
    /// Session time zone for timestamptz I/O.
    pub time_zone: TimeZone,
    pub extra_float_digits: i32,
    pub interval_style: IntervalStyle,
    /// pg_trgm's similarity_threshold, word_similarity_threshold and
    /// strict_word_similarity_threshold, which its operators compare against
    /// (`func::extension::pg_trgm`).
    pub trgm: [f64; 3],
}

/// A user object's name as format_type and regproc output print it: qualified unless in
/// public (or pg_catalog), as PostgreSQL qualifies one not visible on the default search_path.
pub fn qualified_name(schema: &str, name: &str) -> String {
    let name = crate::sql::quote::quote_ident(name);
    match schema {
        "public" | "pg_catalog" => name,
        s => format!("{}.{name}", crate::sql::quote::quote_ident(s)),
    }
}

/// The defaults of [`FormatCtx::trgm`]: PostgreSQL's float constants (0.3f ...) widened to
/// double, as pg_trgm's variables hold them before any SET.
pub const TRGM_DEFAULTS: [f64; 3] = [0.3f32 as f64, 0.6f32 as f64, 0.5f32 as f64];

impl Default for FormatCtx {
    fn default() -> Self {
        FormatCtx {
            date_style: DateStyle::default(),
            time_zone: TimeZone::Utc,
            extra_float_digits: 1,
            interval_style: IntervalStyle::Postgres,
            trgm: TRGM_DEFAULTS,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateOutput {
    Iso,
    Postgres,
    Sql,
    German,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateOrder {
    Mdy,
    Dmy,
    Ymd,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DateStyle {
    pub output: DateOutput,
    pub order: DateOrder,
}

impl Default for DateStyle {
    fn default() -> Self {
        DateStyle {
            output: DateOutput::Iso,
            order: DateOrder::Mdy,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntervalStyle {
    Postgres,
    PostgresVerbose,
    SqlStandard,
    Iso8601,
}

/// A session time zone: UTC, a fixed offset (seconds east of Greenwich), or an IANA zone.
#[derive(Clone, Debug, PartialEq)]
pub enum TimeZone {
    Utc,
    Fixed(i32),
    Named(chrono_tz::Tz),
}

/// Total order used by ORDER BY, DISTINCT, GROUP BY, min/max and comparisons. NULLs are handled
/// by the caller; NaN sorts above every number, as in PostgreSQL.
pub fn compare(a: &Value, b: &Value) -> Ordering {
    ops::compare_values(a, b)
}
