//! Catalogs that pg_dump, pg_dumpall and psql read where threadgres has no such objects (operator
//! classes, text search, casts, security labels, default privileges, ...): PostgreSQL 15's
//! columns and OIDs, so their queries plan and find no rows.

use super::Relation;

/// Catalogs with no rows here (columns as in PostgreSQL 15).
pub(super) const RELATIONS_EMPTY: &[Relation] = &[
    Relation {
        name: "pg_default_acl",
        oid: 826,
        columns: &[
            ("oid", 26),
            ("defaclrole", 26),
            ("defaclnamespace", 26),
            ("defaclobjtype", 18),
            ("defaclacl", 1034),
        ],
    },
    Relation {
        name: "pg_amop",
        oid: 2602,
        columns: &[
            ("oid", 26),
            ("amopfamily", 26),
            ("amoplefttype", 26),
            ("amoprighttype", 26),
            ("amopstrategy", 21),
            ("amoppurpose", 18),
            ("amopopr", 26),
            ("amopmethod", 26),
            ("amopsortfamily", 26),
        ],
    },
    Relation {
        name: "pg_amproc",
        oid: 2603,
        columns: &[
            ("oid", 26),
            ("amprocfamily", 26),
            ("amproclefttype", 26),
            ("amprocrighttype", 26),
            ("amprocnum", 21),
            ("amproc", 24),
        ],
    },
    Relation {
        name: "pg_cast",
        oid: 2605,
        columns: &[
            ("oid", 26),
            ("castsource", 26),
            ("casttarget", 26),
            ("castfunc", 26),
            ("castcontext", 18),
            ("castmethod", 18),
        ],
    },
    Relation {
        name: "pg_conversion",
        oid: 2607,
        columns: &[
            ("oid", 26),
            ("conname", 19),
            ("connamespace", 26),
            ("conowner", 26),
            ("conforencoding", 23),
            ("contoencoding", 23),
            ("conproc", 24),
            ("condefault", 16),
        ],
    },
    Relation {
        name: "pg_opclass",
        oid: 2616,
        columns: &[
            ("oid", 26),
            ("opcmethod", 26),
            ("opcname", 19),
            ("opcnamespace", 26),
            ("opcowner", 26),
            ("opcfamily", 26),
            ("opcintype", 26),
            ("opcdefault", 16),
            ("opckeytype", 26),
        ],
    },
    Relation {
        name: "pg_opfamily",
        oid: 2753,
        columns: &[
            ("oid", 26),
            ("opfmethod", 26),
            ("opfname", 19),
            ("opfnamespace", 26),
            ("opfowner", 26),
        ],
    },
    Relation {
        name: "pg_init_privs",
        oid: 3394,
        columns: &[
            ("objoid", 26),
            ("classoid", 26),
            ("objsubid", 23),
            ("privtype", 18),
            ("initprivs", 1034),
        ],
    },
    Relation {
        name: "pg_transform",
        oid: 3576,
        columns: &[
            ("oid", 26),
            ("trftype", 26),
            ("trflang", 26),
            ("trffromsql", 24),
            ("trftosql", 24),
        ],
    },
    Relation {
        name: "pg_shseclabel",
        oid: 3592,
        columns: &[
            ("objoid", 26),
            ("classoid", 26),
            ("provider", 25),
            ("label", 25),
        ],
    },
    Relation {
        name: "pg_seclabel",
        oid: 3596,
        columns: &[
            ("objoid", 26),
            ("classoid", 26),
            ("objsubid", 23),
            ("provider", 25),
            ("label", 25),
        ],
    },
    Relation {
        name: "pg_ts_dict",
        oid: 3600,
        columns: &[
            ("oid", 26),
            ("dictname", 19),
            ("dictnamespace", 26),
            ("dictowner", 26),
            ("dicttemplate", 26),
            ("dictinitoption", 25),
        ],
    },
    Relation {
        name: "pg_ts_parser",
        oid: 3601,
        columns: &[
            ("oid", 26),
            ("prsname", 19),
            ("prsnamespace", 26),
            ("prsstart", 24),
            ("prstoken", 24),
            ("prsend", 24),
            ("prsheadline", 24),
            ("prslextype", 24),
        ],
    },
    Relation {
        name: "pg_ts_config",
        oid: 3602,
        columns: &[
            ("oid", 26),
            ("cfgname", 19),
            ("cfgnamespace", 26),
            ("cfgowner", 26),
            ("cfgparser", 26),
        ],
    },
    Relation {
        name: "pg_ts_config_map",
        oid: 3603,
        columns: &[
            ("mapcfg", 26),
            ("maptokentype", 23),
            ("mapseqno", 23),
            ("mapdict", 26),
        ],
    },
    Relation {
        name: "pg_ts_template",
        oid: 3764,
        columns: &[
            ("oid", 26),
            ("tmplname", 19),
            ("tmplnamespace", 26),
            ("tmplinit", 24),
            ("tmpllexize", 24),
        ],
    },
    Relation {
        name: "pg_parameter_acl",
        oid: 6243,
        columns: &[("oid", 26), ("parname", 25), ("paracl", 1034)],
    },
    Relation {
        name: "pg_seclabels",
        oid: 12099,
        columns: &[
            ("objoid", 26),
            ("classoid", 26),
            ("objsubid", 23),
            ("objtype", 25),
            ("objnamespace", 26),
            ("objname", 25),
            ("provider", 25),
            ("label", 25),
        ],
    },
];
