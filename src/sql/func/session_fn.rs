//! The functions evaluated through the session: their names, argument types and result types.
//!
//! now(), current_user, nextval(), has_table_privilege(), pg_get_viewdef(), ssl_version() and
//! their kin read the session or the catalogs as the session sees them, so they are not in the
//! value functions' table (`func/table.rs`); the planner resolves them here into a
//! [`SessionFn`] node. Their bodies are in `func/system/` (and nextval's family in
//! `sql::sequence`), a layer above the planner and the deparser, which they use; this registry
//! sits below the planner so that binding a call needs none of that.

use crate::sql::types::Type;

/// Functions that read or change session state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionFn {
    /// pg_client_encoding()
    ClientEncoding,
    Now,
    StatementTimestamp,
    ClockTimestamp,
    CurrentDate,
    LocalTimestamp,
    CurrentUser,
    SessionUser,
    CurrentDatabase,
    CurrentSchema,
    CurrentSchemas,
    Version,
    BackendPid,
    /// pg_reload_conf(): reads the host rules again.
    ReloadConf,
    PgNotify,
    ListeningChannels,
    NotificationQueueUsage,
    Sleep,
    CurrentSetting,
    SetConfig,
    CancelBackend,
    TerminateBackend,
    AdvisoryUnlockAll,
    /// pg_advisory_lock and its kin (one bigint key or two int4 keys).
    Advisory(AdvisoryFn),
    PostmasterStartTime,
    /// concat(any...): needs the argument types to print them.
    Concat,
    ConcatWs,
    /// format(text, any...)
    Format,
    TableIsVisible,
    TypeIsVisible,
    FormatType,
    /// has_table_privilege and its kin (`func/system/privs.rs`).
    HasPrivilege(PrivFn),
    GetUserById,
    ObjDescription,
    InetClientAddr,
    InetClientPort,
    InetServerAddr,
    InetServerPort,
    TxidCurrent,
    CurrentXactId,
    // Sequences (`sql::sequence`).
    Nextval,
    Currval,
    Setval,
    Lastval,
    GetSerialSequence,
    /// The fields of a sequence's row, for `SELECT * FROM seq` (not callable by name).
    SeqLastValue,
    SeqLogCnt,
    SeqIsCalled,
    /// The system information functions over the catalogs (`func/system/catalog.rs`).
    Catalog(CatalogFn),
    /// pg_current_wal_lsn / _insert_lsn / _flush_lsn.
    WalLsn(WalPos),
    /// pg_wal_lsn_diff(pg_lsn, pg_lsn).
    WalLsnDiff,
    /// pg_walfile_name(pg_lsn).
    WalFileName,
    /// pg_stat_ssl's information for the session itself (`func/system/ssl.rs`).
    Ssl(SslFn),
}

/// Which position of the write-ahead log a function reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WalPos {
    /// Reserved by inserters (pg_current_wal_insert_lsn).
    Insert,
    /// Written to the segment files (pg_current_wal_lsn).
    Write,
    /// Durable (pg_current_wal_flush_lsn).
    Flush,
}

/// Result type of each session function (given its argument types).
pub fn result_type(f: SessionFn) -> Type {
    use SessionFn::*;
    match f {
        Now | StatementTimestamp | ClockTimestamp | PostmasterStartTime => Type::TIMESTAMPTZ,
        LocalTimestamp => Type::TIMESTAMP,
        CurrentDate => Type::DATE,
        CurrentUser | SessionUser | CurrentDatabase | CurrentSchema | ClientEncoding => Type::NAME,
        CurrentSchemas => Type::NAME_ARRAY,
        GetUserById => Type::NAME,
        Version | CurrentSetting | SetConfig | Concat | ConcatWs | Format | FormatType
        | ObjDescription => Type::TEXT,
        ListeningChannels => Type::TEXT,
        BackendPid | InetClientPort | InetServerPort => Type::INT4,
        InetClientAddr | InetServerAddr => Type::INET,
        TxidCurrent => Type::INT8,
        WalLsn(_) => Type::PG_LSN,
        WalLsnDiff => Type::NUMERIC,
        WalFileName => Type::TEXT,
        CurrentXactId => Type::XID8,
        PgNotify | Sleep | AdvisoryUnlockAll => Type::VOID,
        NotificationQueueUsage => Type::FLOAT8,
        ReloadConf | CancelBackend | TerminateBackend | TableIsVisible | TypeIsVisible
        | HasPrivilege(_) => Type::BOOL,
        Advisory(a) => {
            if a.op == AdvisoryOp::Lock {
                Type::VOID
            } else {
                Type::BOOL
            }
        }
        Nextval | Currval | Setval | Lastval | GetSerialSequence | SeqLastValue | SeqLogCnt
        | SeqIsCalled => sequence_result_type(f),
        Catalog(c) => catalog_result_type(c),
        Ssl(f) => ssl_result_type(f),
    }
}

/// Session functions by SQL name: (function, argument types; `None` = any arguments).
pub fn lookup(name: &str, nargs: usize) -> Option<(SessionFn, Option<&'static [Type]>)> {
    use SessionFn::*;
    const T: Type = Type::TEXT;
    Some(match (name, nargs) {
        ("now", 0) | ("transaction_timestamp", 0) => (Now, Some(&[])),
        ("statement_timestamp", 0) => (StatementTimestamp, Some(&[])),
        ("clock_timestamp", 0) => (ClockTimestamp, Some(&[])),
        ("current_database", 0) | ("current_catalog", 0) => (CurrentDatabase, Some(&[])),
        ("current_schema", 0) => (CurrentSchema, Some(&[])),
        ("current_schemas", 1) => (CurrentSchemas, Some(&[Type::BOOL])),
        ("current_user", 0) | ("user", 0) | ("current_role", 0) => (CurrentUser, Some(&[])),
        ("session_user", 0) => (SessionUser, Some(&[])),
        ("version", 0) => (Version, Some(&[])),
        ("pg_client_encoding", 0) => (ClientEncoding, Some(&[])),
        ("pg_backend_pid", 0) => (BackendPid, Some(&[])),
        ("pg_reload_conf", 0) => (ReloadConf, Some(&[])),
        ("inet_client_addr", 0) => (InetClientAddr, Some(&[])),
        ("txid_current", 0) => (TxidCurrent, Some(&[])),
        ("pg_current_xact_id", 0) => (CurrentXactId, Some(&[])),
        ("pg_current_wal_lsn", 0) => (WalLsn(WalPos::Write), Some(&[])),
        ("pg_current_wal_insert_lsn", 0) => (WalLsn(WalPos::Insert), Some(&[])),
        ("pg_current_wal_flush_lsn", 0) => (WalLsn(WalPos::Flush), Some(&[])),
        ("pg_wal_lsn_diff", 2) => (WalLsnDiff, Some(&[Type::PG_LSN, Type::PG_LSN])),
        ("pg_walfile_name", 1) => (WalFileName, Some(&[Type::PG_LSN])),
        ("inet_client_port", 0) => (InetClientPort, Some(&[])),
        ("inet_server_addr", 0) => (InetServerAddr, Some(&[])),
        ("inet_server_port", 0) => (InetServerPort, Some(&[])),
        ("pg_notify", 2) => (PgNotify, Some(&[T, T])),
        ("pg_listening_channels", 0) => (ListeningChannels, Some(&[])),
        ("pg_notification_queue_usage", 0) => (NotificationQueueUsage, Some(&[])),
        ("pg_sleep", 1) => (Sleep, Some(&[Type::FLOAT8])),
        ("current_setting", 1) => (CurrentSetting, Some(&[T])),
        ("current_setting", 2) => (CurrentSetting, Some(&[T, Type::BOOL])),
        ("set_config", 3) => (SetConfig, Some(&[T, T, Type::BOOL])),
        ("pg_cancel_backend", 1) => (CancelBackend, Some(&[Type::INT4])),
        ("pg_terminate_backend", 1) => (TerminateBackend, Some(&[Type::INT4])),
        ("pg_terminate_backend", 2) => (TerminateBackend, Some(&[Type::INT4, Type::INT8])),
        ("pg_advisory_unlock_all", 0) => (AdvisoryUnlockAll, Some(&[])),
        ("pg_postmaster_start_time", 0) => (PostmasterStartTime, Some(&[])),
        ("concat", _) => (Concat, None),
        ("concat_ws", n) if n >= 1 => (ConcatWs, None),
        ("format", n) if n >= 1 => (Format, None),
        ("pg_table_is_visible", 1) => (TableIsVisible, Some(&[Type::OID])),
        ("pg_type_is_visible", 1) => (TypeIsVisible, Some(&[Type::OID])),
        ("format_type", 2) => (FormatType, Some(&[Type::OID, Type::INT4])),
        ("pg_get_userbyid", 1) => (GetUserById, Some(&[Type::OID])),
        ("obj_description", 1) => (ObjDescription, Some(&[Type::OID])),
        ("obj_description", 2) => (ObjDescription, Some(&[Type::OID, Type::NAME])),
        (n, k)
            if PrivFn::of(n).is_some_and(|f| {
                let obj = if f == PrivFn::Column { 2 } else { 1 };
                k == obj + 1 || k == obj + 2
            }) =>
        {
            (HasPrivilege(PrivFn::of(n).expect("checked")), None)
        }
        ("nextval", 1) => (Nextval, Some(&[Type::REGCLASS])),
        ("currval", 1) => (Currval, Some(&[Type::REGCLASS])),
        ("setval", 2) => (Setval, Some(&[Type::REGCLASS, Type::INT8])),
        ("setval", 3) => (Setval, Some(&[Type::REGCLASS, Type::INT8, Type::BOOL])),
        ("lastval", 0) => (Lastval, Some(&[])),
        ("pg_get_serial_sequence", 2) => (GetSerialSequence, Some(&[T, T])),
        _ if name.starts_with("ssl_") => (Ssl(ssl_lookup(name, nargs)?), Some(&[])),
        _ if name.contains("advisory") => {
            let f = AdvisoryFn::of(name)?;
            match nargs {
                1 => (Advisory(f), Some(&[Type::INT8])),
                2 => (Advisory(f), Some(&[Type::INT4, Type::INT4])),
                _ => return None,
            }
        }
        _ => {
            let (f, sig) = catalog_lookup(name, nargs)?;
            (Catalog(f), Some(sig))
        }
    })
}

/// Whether the function may be evaluated once per statement at plan time. None of these are:
/// they read session state that may change between Parse and Execute.
pub fn is_volatile(_f: SessionFn) -> bool {
    true
}

/// What an advisory lock function does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdvisoryOp {
    /// Waits for the lock.
    Lock,
    /// pg_try_advisory_*: true if granted at once, false otherwise.
    TryLock,
    Unlock,
}

/// One of the pg_advisory_* functions (pg_advisory_unlock_all apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AdvisoryFn {
    pub op: AdvisoryOp,
    /// ShareLock (`_shared`) rather than ExclusiveLock.
    pub shared: bool,
    /// Held until the transaction ends (`_xact_`) rather than the session.
    pub xact: bool,
}

impl AdvisoryFn {
    pub fn of(name: &str) -> Option<AdvisoryFn> {
        let (op, rest) = if let Some(r) = name.strip_prefix("pg_try_advisory_") {
            (AdvisoryOp::TryLock, r)
        } else if let Some(r) = name.strip_prefix("pg_advisory_unlock") {
            (AdvisoryOp::Unlock, r)
        } else {
            (AdvisoryOp::Lock, name.strip_prefix("pg_advisory_")?)
        };
        let (xact, rest) = match rest.strip_prefix("xact_") {
            Some(r) => (true, r),
            None => (false, rest),
        };
        let rest = if op == AdvisoryOp::Unlock {
            rest
        } else {
            rest.strip_prefix("lock")?
        };
        let shared = match rest {
            "" => false,
            "_shared" => true,
            _ => return None,
        };
        if xact && op == AdvisoryOp::Unlock {
            return None; // transaction-level locks cannot be unlocked
        }
        Some(AdvisoryFn { op, shared, xact })
    }
}

/// Result types of the sequence functions.
fn sequence_result_type(f: SessionFn) -> Type {
    match f {
        SessionFn::SeqIsCalled => Type::BOOL,
        SessionFn::GetSerialSequence => Type::TEXT,
        _ => Type::INT8,
    }
}

/// What a relation size function measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeOf {
    /// pg_relation_size: the relation's own rows or entries (a fork other than main: 0).
    Relation,
    /// pg_table_size: the table's rows (there is no TOAST table or free space map).
    Table,
    /// pg_indexes_size: the table's indexes.
    Indexes,
    /// pg_total_relation_size: the table and its indexes.
    Total,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CatalogFn {
    EncodingToChar,
    CharToEncoding,
    GetExpr,
    GetIndexDef,
    GetConstraintDef,
    ColDescription,
    ShobjDescription,
    /// pg_relation_size, pg_table_size, pg_total_relation_size, pg_indexes_size
    RelationSize(SizeOf),
    DatabaseSize,
    SizePretty,
    /// pg_function_is_visible: every function is a built-in in pg_catalog.
    FunctionIsVisible,
    HasRole,
    /// acldefault("char", oid): an object kind's default ACL for an owner.
    AclDefault,
    RelationIsPublishable,
    /// pg_get_statisticsobjdef_columns: there are no extended statistics.
    StatisticsObjDefColumns,
    /// pg_get_function_arguments, pg_get_function_result, pg_get_function_identity_arguments
    FunctionArguments,
    FunctionResult,
    FunctionIdentityArguments,
    FunctionDef,
    /// pg_get_function_sqlbody: a BEGIN ATOMIC body; NULL for a body given as a string.
    FunctionSqlBody,
    /// pg_tablespace_location: the built-in tablespaces live in the data directory ('').
    TablespaceLocation,
    DatabaseEncoding,
    /// pg_statistics_obj_is_visible, pg_collation_is_visible: every one is in pg_catalog.
    StatisticsObjIsVisible,
    /// pg_get_triggerdef: there are no triggers in pg_trigger, so no OID names one (NULL).
    TriggerDef,
    /// pg_get_ruledef of a rule made by CREATE RULE (NULL for other OIDs).
    RuleDef,
    /// An explicit cast of an OID to regclass (`conrelid::regclass`), planned as a call of
    /// this: a user relation's regclass is held by name (see `types::cast`), which only the
    /// catalog snapshot knows.
    RegclassOfOid,
    /// The reverse: a cast of a regclass that is not a constant to oid or an integer.
    OidOfRegclass,
    /// The regrole of an OID (`oid::regrole`) and the OID of a regrole held by name: roles
    /// made by CREATE ROLE are known only to the catalog (see `plan/regrole.rs`).
    RegroleOfOid,
    OidOfRegrole,
    /// to_regrole(text): the role's regrole, NULL where no role has the name.
    ToRegrole,
    /// pg_get_viewdef (ruleutils/viewdef.rs).
    ViewDef,
    /// pg_my_temp_schema(): the session's temporary schema's OID, 0 without one.
    MyTempSchema,
    /// pg_is_other_temp_schema(oid): another session's temporary schema.
    IsOtherTempSchema,
    /// pg_get_partkeydef(oid): a partitioned table's PARTITION BY clause.
    PartKeyDef,
    /// pg_get_partition_constraintdef(oid): what a partition's bound implies of its rows.
    PartitionConstraintDef,
    /// pg_partition_root(regclass): the top of the partition tree a relation is in.
    PartitionRoot,
}

/// Catalog functions by SQL name and argument count: (function, argument types).
pub fn catalog_lookup(name: &str, nargs: usize) -> Option<(CatalogFn, &'static [Type])> {
    use CatalogFn::*;
    const OID: Type = Type::OID;
    const T: Type = Type::TEXT;
    Some(match (name, nargs) {
        ("pg_encoding_to_char", 1) => (EncodingToChar, &[Type::INT4]),
        ("pg_char_to_encoding", 1) => (CharToEncoding, &[Type::NAME]),
        ("pg_get_expr", 2) => (GetExpr, &[Type::PG_NODE_TREE, OID]),
        ("pg_get_expr", 3) => (GetExpr, &[Type::PG_NODE_TREE, OID, Type::BOOL]),
        ("pg_get_indexdef", 1) => (GetIndexDef, &[OID]),
        ("pg_get_indexdef", 3) => (GetIndexDef, &[OID, Type::INT4, Type::BOOL]),
        ("pg_get_constraintdef", 1) => (GetConstraintDef, &[OID]),
        ("pg_get_constraintdef", 2) => (GetConstraintDef, &[OID, Type::BOOL]),
        ("col_description", 2) => (ColDescription, &[OID, Type::INT4]),
        ("shobj_description", 2) => (ShobjDescription, &[OID, Type::NAME]),
        ("pg_relation_size", 1) => (RelationSize(SizeOf::Relation), &[Type::REGCLASS]),
        ("pg_table_size", 1) => (RelationSize(SizeOf::Table), &[Type::REGCLASS]),
        ("pg_total_relation_size", 1) => (RelationSize(SizeOf::Total), &[Type::REGCLASS]),
        ("pg_indexes_size", 1) => (RelationSize(SizeOf::Indexes), &[Type::REGCLASS]),
        ("pg_relation_size", 2) => (RelationSize(SizeOf::Relation), &[Type::REGCLASS, T]),
        ("pg_database_size", 1) => (DatabaseSize, &[Type::NAME]),
        ("pg_size_pretty", 1) => (SizePretty, &[Type::NUMERIC]),
        ("pg_function_is_visible", 1) => (FunctionIsVisible, &[OID]),
        ("pg_has_role", 2) => (HasRole, &[Type::NAME, T]),
        ("pg_has_role", 3) => (HasRole, &[Type::NAME, Type::NAME, T]),
        ("acldefault", 2) => (AclDefault, &[Type::CHAR, OID]),
        ("pg_relation_is_publishable", 1) => (RelationIsPublishable, &[Type::REGCLASS]),
        ("pg_get_statisticsobjdef_columns", 1) => (StatisticsObjDefColumns, &[OID]),
        ("pg_get_function_arguments", 1) => (FunctionArguments, &[OID]),
        ("pg_get_function_result", 1) => (FunctionResult, &[OID]),
        ("pg_get_function_identity_arguments", 1) => (FunctionIdentityArguments, &[OID]),
        ("pg_get_functiondef", 1) => (FunctionDef, &[OID]),
        ("pg_get_function_sqlbody", 1) => (FunctionSqlBody, &[OID]),
        ("pg_tablespace_location", 1) => (TablespaceLocation, &[OID]),
        ("getdatabaseencoding", 0) => (DatabaseEncoding, &[]),
        ("pg_statistics_obj_is_visible", 1) | ("pg_collation_is_visible", 1) => {
            (StatisticsObjIsVisible, &[OID])
        }
        ("pg_tablespace_size", 1) => (DatabaseSize, &[OID]),
        ("pg_get_triggerdef", 1) => (TriggerDef, &[OID]),
        ("pg_get_triggerdef", 2) => (TriggerDef, &[OID, Type::BOOL]),
        ("pg_get_ruledef", 1) => (RuleDef, &[OID]),
        ("pg_get_ruledef", 2) => (RuleDef, &[OID, Type::BOOL]),
        ("pg_get_viewdef", 1) => (ViewDef, &[OID]),
        ("pg_get_viewdef", 2) => (ViewDef, &[OID, Type::BOOL]),
        ("pg_my_temp_schema", 0) => (MyTempSchema, &[]),
        ("to_regrole", 1) => (ToRegrole, &[T]),
        ("pg_is_other_temp_schema", 1) => (IsOtherTempSchema, &[OID]),
        ("pg_get_partkeydef", 1) => (PartKeyDef, &[OID]),
        ("pg_get_partition_constraintdef", 1) => (PartitionConstraintDef, &[OID]),
        ("pg_partition_root", 1) => (PartitionRoot, &[Type::REGCLASS]),
        _ => return None,
    })
}

pub fn catalog_result_type(f: CatalogFn) -> Type {
    use CatalogFn::*;
    match f {
        EncodingToChar => Type::NAME,
        CharToEncoding => Type::INT4,
        GetExpr
        | GetIndexDef
        | GetConstraintDef
        | ColDescription
        | ShobjDescription
        | SizePretty
        | StatisticsObjDefColumns
        | FunctionArguments
        | FunctionResult
        | FunctionIdentityArguments
        | FunctionDef
        | FunctionSqlBody
        | TablespaceLocation
        | TriggerDef
        | RuleDef
        | ViewDef => Type::TEXT,
        DatabaseEncoding => Type::NAME,
        RelationSize(_) | DatabaseSize => Type::INT8,
        FunctionIsVisible | HasRole | RelationIsPublishable | StatisticsObjIsVisible => Type::BOOL,
        RegclassOfOid | PartitionRoot => Type::REGCLASS,
        AclDefault => Type::ACLITEM_ARRAY,
        MyTempSchema => Type::OID,
        IsOtherTempSchema => Type::BOOL,
        PartKeyDef | PartitionConstraintDef => Type::TEXT,
        OidOfRegclass | OidOfRegrole => Type::OID,
        RegroleOfOid | ToRegrole => Type::REGROLE,
    }
}

/// Which function: table, column, any column, sequence, schema, database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrivFn {
    Table,
    Column,
    AnyColumn,
    Sequence,
    Schema,
    Database,
}

impl PrivFn {
    pub fn of(name: &str) -> Option<PrivFn> {
        Some(match name {
            "has_table_privilege" => PrivFn::Table,
            "has_column_privilege" => PrivFn::Column,
            "has_any_column_privilege" => PrivFn::AnyColumn,
            "has_sequence_privilege" => PrivFn::Sequence,
            "has_schema_privilege" => PrivFn::Schema,
            "has_database_privilege" => PrivFn::Database,
            _ => return None,
        })
    }

    /// How many arguments the object takes (the column function names a column too).
    pub fn object_args(self) -> usize {
        if self == PrivFn::Column {
            2
        } else {
            1
        }
    }
}

/// pg_control_system / _checkpoint / _init / _recovery: one row of the control data, in FROM
/// (`func/system/control.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ControlFn {
    System,
    Checkpoint,
    Init,
    Recovery,
}

impl ControlFn {
    pub fn of(name: &str) -> Option<ControlFn> {
        Some(match name {
            "pg_control_system" => ControlFn::System,
            "pg_control_checkpoint" => ControlFn::Checkpoint,
            "pg_control_init" => ControlFn::Init,
            "pg_control_recovery" => ControlFn::Recovery,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            ControlFn::System => "pg_control_system",
            ControlFn::Checkpoint => "pg_control_checkpoint",
            ControlFn::Init => "pg_control_init",
            ControlFn::Recovery => "pg_control_recovery",
        }
    }

    /// The OUT parameters, as PostgreSQL 15 declares them.
    pub fn columns(self) -> &'static [(&'static str, Type)] {
        const L: Type = Type::PG_LSN;
        const I: Type = Type::INT4;
        const X: Type = Type::XID;
        const O: Type = Type::OID;
        const B: Type = Type::BOOL;
        match self {
            ControlFn::System => &[
                ("pg_control_version", I),
                ("catalog_version_no", I),
                ("system_identifier", Type::INT8),
                ("pg_control_last_modified", Type::TIMESTAMPTZ),
            ],
            ControlFn::Checkpoint => &[
                ("checkpoint_lsn", L),
                ("redo_lsn", L),
                ("redo_wal_file", Type::TEXT),
                ("timeline_id", I),
                ("prev_timeline_id", I),
                ("full_page_writes", B),
                ("next_xid", Type::TEXT),
                ("next_oid", O),
                ("next_multixact_id", X),
                ("next_multi_offset", X),
                ("oldest_xid", X),
                ("oldest_xid_dbid", O),
                ("oldest_active_xid", X),
                ("oldest_multi_xid", X),
                ("oldest_multi_dbid", O),
                ("oldest_commit_ts_xid", X),
                ("newest_commit_ts_xid", X),
                ("checkpoint_time", Type::TIMESTAMPTZ),
            ],
            ControlFn::Init => &[
                ("max_data_alignment", I),
                ("database_block_size", I),
                ("blocks_per_segment", I),
                ("wal_block_size", I),
                ("bytes_per_wal_segment", I),
                ("max_identifier_length", I),
                ("max_index_columns", I),
                ("max_toast_chunk_size", I),
                ("large_object_chunk_size", I),
                ("float8_pass_by_value", B),
                ("data_page_checksum_version", I),
            ],
            ControlFn::Recovery => &[
                ("min_recovery_end_lsn", L),
                ("min_recovery_end_timeline", I),
                ("backup_start_lsn", L),
                ("backup_end_lsn", L),
                ("end_of_backup_record_required", B),
            ],
        }
    }
}

/// The sslinfo functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SslFn {
    IsUsed,
    Version,
    Cipher,
    ClientCertPresent,
    /// ssl_client_serial(), ssl_client_dn(), ssl_issuer_dn(): NULL without a client
    /// certificate (the issuer is the client certificate's).
    ClientSerial,
    ClientDn,
    IssuerDn,
}

/// The function of that name (all take no arguments).
pub fn ssl_lookup(name: &str, nargs: usize) -> Option<SslFn> {
    if nargs != 0 {
        return None;
    }
    Some(match name {
        "ssl_is_used" => SslFn::IsUsed,
        "ssl_version" => SslFn::Version,
        "ssl_cipher" => SslFn::Cipher,
        "ssl_client_cert_present" => SslFn::ClientCertPresent,
        "ssl_client_serial" => SslFn::ClientSerial,
        "ssl_client_dn" => SslFn::ClientDn,
        "ssl_issuer_dn" => SslFn::IssuerDn,
        _ => return None,
    })
}

pub fn ssl_result_type(f: SslFn) -> Type {
    match f {
        SslFn::IsUsed | SslFn::ClientCertPresent => Type::BOOL,
        SslFn::ClientSerial => Type::NUMERIC,
        SslFn::Version | SslFn::Cipher | SslFn::ClientDn | SslFn::IssuerDn => Type::TEXT,
    }
}
