//! pg_type's rows of the built-in range types, their arrays and their multirange types (which
//! pg_range names; threadgres has no multirange values yet), pg_range's rows, and the names of
//! the functions these rows refer to, as PostgreSQL 15 has them.

use super::types::{ty, TypeRow};

/// A range type's row: (oid, name, array oid, typalign).
const fn range(oid: u32, name: &'static str, array: u32, align: u8) -> TypeRow {
    ty(
        oid,
        name,
        -1,
        false,
        b'r',
        b'R',
        false,
        b',',
        0,
        array,
        [0, 3834, 3835, 3836, 3837, 0, 0, 3916],
        align,
        b'x',
        0,
    )
}

/// A multirange type's row.
const fn multirange(oid: u32, name: &'static str, array: u32, align: u8) -> TypeRow {
    ty(
        oid,
        name,
        -1,
        false,
        b'm',
        b'R',
        false,
        b',',
        0,
        array,
        [0, 4231, 4232, 4233, 4234, 0, 0, 4242],
        align,
        b'x',
        0,
    )
}

/// An array type's row.
const fn array(oid: u32, name: &'static str, elem: u32, align: u8) -> TypeRow {
    ty(
        oid,
        name,
        -1,
        false,
        b'b',
        b'A',
        false,
        b',',
        elem,
        0,
        [6179, 750, 751, 2400, 2401, 0, 0, 3816],
        align,
        b'x',
        0,
    )
}

pub(super) const TYPES: &[TypeRow] = &[
    range(3904, "int4range", 3905, b'i'),
    array(3905, "_int4range", 3904, b'i'),
    range(3906, "numrange", 3907, b'i'),
    array(3907, "_numrange", 3906, b'i'),
    range(3908, "tsrange", 3909, b'd'),
    array(3909, "_tsrange", 3908, b'd'),
    range(3910, "tstzrange", 3911, b'd'),
    array(3911, "_tstzrange", 3910, b'd'),
    range(3912, "daterange", 3913, b'i'),
    array(3913, "_daterange", 3912, b'i'),
    range(3926, "int8range", 3927, b'd'),
    array(3927, "_int8range", 3926, b'd'),
    multirange(4451, "int4multirange", 6150, b'i'),
    array(6150, "_int4multirange", 4451, b'i'),
    multirange(4532, "nummultirange", 6151, b'i'),
    array(6151, "_nummultirange", 4532, b'i'),
    multirange(4533, "tsmultirange", 6152, b'd'),
    array(6152, "_tsmultirange", 4533, b'd'),
    multirange(4534, "tstzmultirange", 6153, b'd'),
    array(6153, "_tstzmultirange", 4534, b'd'),
    multirange(4535, "datemultirange", 6155, b'i'),
    array(6155, "_datemultirange", 4535, b'i'),
    multirange(4536, "int8multirange", 6157, b'd'),
    array(6157, "_int8multirange", 4536, b'd'),
];

/// pg_range: (rngtypid, rngsubtype, rngmultitypid, rngsubopc, rngcanonical, rngsubdiff).
pub const RANGES: &[(u32, u32, u32, u32, u32, u32)] = &[
    (3904, 23, 4451, 1978, 3914, 3922),
    (3906, 1700, 4532, 3125, 0, 3924),
    (3908, 1114, 4533, 3128, 0, 3929),
    (3910, 1184, 4534, 3127, 0, 3930),
    (3912, 1082, 4535, 3122, 3915, 3925),
    (3926, 20, 4536, 3124, 3928, 3923),
];

/// (oid, name) of the functions these rows refer to.
pub(super) const PROCS: &[(u32, &str)] = &[
    (3834, "range_in"),
    (3835, "range_out"),
    (3836, "range_recv"),
    (3837, "range_send"),
    (3916, "range_typanalyze"),
    (4231, "multirange_in"),
    (4232, "multirange_out"),
    (4233, "multirange_recv"),
    (4234, "multirange_send"),
    (4242, "multirange_typanalyze"),
    (3914, "int4range_canonical"),
    (3915, "daterange_canonical"),
    (3928, "int8range_canonical"),
    (3922, "int4range_subdiff"),
    (3923, "int8range_subdiff"),
    (3924, "numrange_subdiff"),
    (3925, "daterange_subdiff"),
    (3929, "tsrange_subdiff"),
    (3930, "tstzrange_subdiff"),
];
