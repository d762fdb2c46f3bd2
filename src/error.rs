//! Errors and notices as PostgreSQL reports them.
//!
//! Every failure that reaches a client is a [`PgError`]: a severity, a five-character SQLSTATE and
//! PostgreSQL's message text, optionally with detail, hint and a 1-based character position into
//! the statement. Clients branch on the SQLSTATE (psycopg maps it to exception classes, pgbench and
//! JDBC retry on some), so the codes and texts here follow PostgreSQL's exactly. The same type
//! carries notices and warnings, which differ only in severity and in not aborting anything.

use std::fmt;

/// Severity of an ErrorResponse or NoticeResponse. `Fatal` ends the session after it is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Fatal,
    Warning,
    Notice,
    Info,
    /// LOG: reaches the client only when client_min_messages is `log` or a DEBUG level.
    Log,
    /// DEBUG1 ..= DEBUG5 (the number); all are sent as `DEBUG`.
    Debug(u8),
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "ERROR",
            Severity::Fatal => "FATAL",
            Severity::Warning => "WARNING",
            Severity::Notice => "NOTICE",
            Severity::Info => "INFO",
            Severity::Log => "LOG",
            Severity::Debug(_) => "DEBUG",
        }
    }
}

/// An error or notice with PostgreSQL's fields, boxed: errors travel in every `PgResult`,
/// and a `Result<Value, PgError>` one pointer wide on the error side keeps the executor's
/// hot paths (expression evaluation returns one per call) small.
#[derive(Clone, PartialEq, Eq)]
pub struct PgError(Box<PgErrorData>);

impl std::ops::Deref for PgError {
    type Target = PgErrorData;
    fn deref(&self) -> &PgErrorData {
        &self.0
    }
}

impl std::ops::DerefMut for PgError {
    fn deref_mut(&mut self) -> &mut PgErrorData {
        &mut self.0
    }
}

impl std::fmt::Debug for PgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl From<PgErrorData> for PgError {
    fn from(d: PgErrorData) -> PgError {
        PgError(Box::new(d))
    }
}

/// The fields of a [`PgError`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgErrorData {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    pub detail: Option<String>,
    pub hint: Option<String>,
    /// 1-based character offset into the statement text, as PostgreSQL reports it.
    pub position: Option<u32>,
    /// Where the error happened (field W, psql's CONTEXT lines), innermost first, one line
    /// each: e.g. the COPY FROM line being loaded.
    pub context: Option<String>,
    /// The schema, table, column, data type and constraint an error is about (fields s, t, c,
    /// d, n), boxed: most errors have none, and errors travel in every `PgResult`.
    pub objects: Option<Box<ErrorObjects>>,
    /// The statement a PL/pgSQL body ran when the error's position refers to it rather than
    /// to the client's statement (fields p and q: psql's `QUERY:` line and its caret).
    pub internal: Option<Box<InternalQuery>>,
}

/// An internal query and the 1-based character position in it (see [`PgErrorData::internal`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InternalQuery {
    pub position: u32,
    pub query: String,
}

/// The database objects an error names (PostgreSQL's `errtable`, `errcolumn`, ...).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ErrorObjects {
    pub schema: Option<String>,
    pub table: Option<String>,
    pub column: Option<String>,
    pub datatype: Option<String>,
    pub constraint: Option<String>,
}

pub type PgResult<T> = Result<T, PgError>;

/// An OS error as PostgreSQL's `%m` prints it (`No such file or directory`), without Rust's
/// ` (os error 2)`.
pub fn os_error_text(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// A failed file operation as PostgreSQL reports it: `what: %m`, 53100 with its hint when the
/// disk is full, 58030 otherwise.
pub fn io_error(e: &std::io::Error, what: String) -> PgError {
    if e.raw_os_error() == Some(libc::ENOSPC) {
        PgError::new(code::DISK_FULL, format!("{what}: No space left on device"))
            .with_hint("Check free disk space.")
    } else {
        PgError::new(code::IO_ERROR, format!("{what}: {}", os_error_text(e)))
    }
}

impl PgError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        PgError(Box::new(PgErrorData {
            severity: Severity::Error,
            code,
            message: message.into(),
            detail: None,
            hint: None,
            position: None,
            context: None,
            objects: None,
            internal: None,
        }))
    }

    fn with_severity(mut self, severity: Severity) -> Self {
        self.0.severity = severity;
        self
    }

    pub fn fatal(code: &'static str, message: impl Into<String>) -> Self {
        PgError::new(code, message).with_severity(Severity::Fatal)
    }

    pub fn notice(code: &'static str, message: impl Into<String>) -> Self {
        PgError::new(code, message).with_severity(Severity::Notice)
    }

    /// A DEBUG1 ..= DEBUG5 message (sent only when client_min_messages asks for that level).
    pub fn debug(level: u8, code: &'static str, message: impl Into<String>) -> Self {
        PgError::new(code, message).with_severity(Severity::Debug(level))
    }

    pub fn info(code: &'static str, message: impl Into<String>) -> Self {
        PgError::new(code, message).with_severity(Severity::Info)
    }

    pub fn warning(code: &'static str, message: impl Into<String>) -> Self {
        PgError::new(code, message).with_severity(Severity::Warning)
    }

    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// Names the table an error is about (fields s and t).
    pub fn with_table(mut self, schema: &str, table: &str) -> Self {
        let o = self.objects.get_or_insert_with(Default::default);
        o.schema = Some(schema.to_string());
        o.table = Some(table.to_string());
        self
    }

    pub fn with_column(mut self, column: &str) -> Self {
        self.objects.get_or_insert_with(Default::default).column = Some(column.to_string());
        self
    }

    /// Names the data type an error is about (fields s and d), as errdatatype does.
    pub fn with_datatype(mut self, schema: &str, name: &str) -> Self {
        let o = self.objects.get_or_insert_with(Default::default);
        o.schema = Some(schema.to_string());
        o.datatype = Some(name.to_string());
        self
    }

    pub fn with_constraint(mut self, constraint: &str) -> Self {
        self.objects.get_or_insert_with(Default::default).constraint = Some(constraint.to_string());
        self
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Adds an outer context line (after any the error already has, as PostgreSQL's error
    /// context callbacks add theirs from the innermost out).
    pub fn with_context(mut self, line: impl Into<String>) -> Self {
        let line = line.into();
        self.context = Some(match self.context.take() {
            Some(inner) => format!("{inner}\n{line}"),
            None => line,
        });
        self
    }

    pub fn with_position(mut self, position: u32) -> Self {
        self.position = Some(position);
        self
    }

    /// Sets the position only if none is set yet (the innermost location wins, as in PostgreSQL).
    pub fn at(mut self, position: Option<u32>) -> Self {
        if self.position.is_none() {
            self.position = position;
        }
        self
    }

    pub fn is_fatal(&self) -> bool {
        self.severity == Severity::Fatal
    }

    // Frequently used errors, named after PostgreSQL's condition names.

    pub fn syntax(message: impl Into<String>) -> Self {
        PgError::new(code::SYNTAX_ERROR, message)
    }

    pub fn feature_not_supported(message: impl Into<String>) -> Self {
        PgError::new(code::FEATURE_NOT_SUPPORTED, message)
    }

    pub fn protocol_violation(message: impl Into<String>) -> Self {
        PgError::fatal(code::PROTOCOL_VIOLATION, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        PgError::new(code::INTERNAL_ERROR, message)
    }

    pub fn in_failed_transaction() -> Self {
        PgError::new(
            code::IN_FAILED_SQL_TRANSACTION,
            "current transaction is aborted, commands ignored until end of transaction block",
        )
    }

    pub fn query_canceled() -> Self {
        PgError::new(
            code::QUERY_CANCELED,
            "canceling statement due to user request",
        )
    }

    pub fn statement_timeout() -> Self {
        PgError::new(
            code::QUERY_CANCELED,
            "canceling statement due to statement timeout",
        )
    }

    pub fn admin_shutdown() -> Self {
        PgError::fatal(
            code::ADMIN_SHUTDOWN,
            "terminating connection due to administrator command",
        )
    }

    pub fn division_by_zero() -> Self {
        PgError::new(code::DIVISION_BY_ZERO, "division by zero")
    }

    pub fn out_of_range(type_name: &str) -> Self {
        PgError::new(
            code::NUMERIC_VALUE_OUT_OF_RANGE,
            format!("{type_name} out of range"),
        )
    }

    pub fn invalid_text(type_name: &str, input: &str) -> Self {
        PgError::new(
            code::INVALID_TEXT_REPRESENTATION,
            format!("invalid input syntax for type {type_name}: \"{input}\""),
        )
    }
}

impl fmt::Display for PgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.severity.as_str(),
            self.code,
            self.message
        )
    }
}

impl std::error::Error for PgError {}

/// SQLSTATE codes used by threadgres (PostgreSQL's errcodes, by condition name).
pub mod code {
    pub const CASE_NOT_FOUND: &str = "20000";
    pub const FUNCTION_EXECUTED_NO_RETURN_STATEMENT: &str = "2F005";
    pub const NO_DATA_FOUND: &str = "P0002";
    pub const TOO_MANY_ROWS: &str = "P0003";
    pub const ASSERT_FAILURE: &str = "P0004";
    pub const SUCCESSFUL_COMPLETION: &str = "00000";
    pub const WARNING: &str = "01000";
    pub const INVALID_TRANSACTION_TERMINATION: &str = "2D000";
    pub const NO_ACTIVE_SQL_TRANSACTION: &str = "25P01";
    pub const ACTIVE_SQL_TRANSACTION: &str = "25001";
    pub const IN_FAILED_SQL_TRANSACTION: &str = "25P02";
    pub const READ_ONLY_SQL_TRANSACTION: &str = "25006";
    pub const INVALID_TRANSACTION_STATE: &str = "25000";
    pub const CONNECTION_EXCEPTION: &str = "08000";
    pub const PROTOCOL_VIOLATION: &str = "08P01";
    pub const FEATURE_NOT_SUPPORTED: &str = "0A000";
    pub const INVALID_AUTHORIZATION_SPECIFICATION: &str = "28000";
    pub const INVALID_PASSWORD: &str = "28P01";
    pub const CONFIG_FILE_ERROR: &str = "F0000";
    pub const UNDEFINED_FILE: &str = "58P01";
    pub const IO_ERROR: &str = "58030";
    pub const DISK_FULL: &str = "53100";
    pub const INVALID_CATALOG_NAME: &str = "3D000";
    pub const INVALID_SQL_STATEMENT_NAME: &str = "26000";
    pub const INVALID_CURSOR_NAME: &str = "34000";
    pub const INVALID_SAVEPOINT_SPECIFICATION: &str = "3B001";
    pub const DATA_EXCEPTION: &str = "22000";
    pub const DIVISION_BY_ZERO: &str = "22012";
    pub const NUMERIC_VALUE_OUT_OF_RANGE: &str = "22003";
    pub const INVALID_TEXT_REPRESENTATION: &str = "22P02";
    pub const INVALID_BINARY_REPRESENTATION: &str = "22P03";
    pub const INVALID_PARAMETER_VALUE: &str = "22023";
    pub const EXTERNAL_ROUTINE_INVOCATION_EXCEPTION: &str = "39000";
    pub const DATETIME_FIELD_OVERFLOW: &str = "22008";
    pub const INVALID_DATETIME_FORMAT: &str = "22007";
    pub const STRING_DATA_RIGHT_TRUNCATION: &str = "22001";
    pub const NULL_VALUE_NOT_ALLOWED: &str = "22004";
    pub const ARRAY_SUBSCRIPT_ERROR: &str = "2202E";
    pub const INVALID_ESCAPE_SEQUENCE: &str = "22025";
    pub const CHARACTER_NOT_IN_REPERTOIRE: &str = "22021";
    pub const INVALID_ROW_COUNT_IN_LIMIT_CLAUSE: &str = "2201W";
    pub const INVALID_ROW_COUNT_IN_RESULT_OFFSET_CLAUSE: &str = "2201X";
    pub const CARDINALITY_VIOLATION: &str = "21000";
    pub const SYNTAX_ERROR: &str = "42601";
    pub const UNDEFINED_FUNCTION: &str = "42883";
    pub const UNDEFINED_OBJECT: &str = "42704";
    pub const UNDEFINED_COLUMN: &str = "42703";
    pub const UNDEFINED_TABLE: &str = "42P01";
    pub const UNDEFINED_PARAMETER: &str = "42P02";
    pub const DUPLICATE_DATABASE: &str = "42P04";
    pub const DUPLICATE_PREPARED_STATEMENT: &str = "42P05";
    pub const DUPLICATE_CURSOR: &str = "42P03";
    pub const DUPLICATE_OBJECT: &str = "42710";
    pub const DUPLICATE_ALIAS: &str = "42712";
    pub const AMBIGUOUS_COLUMN: &str = "42702";
    pub const AMBIGUOUS_FUNCTION: &str = "42725";
    pub const DATATYPE_MISMATCH: &str = "42804";
    pub const CANNOT_COERCE: &str = "42846";
    pub const GROUPING_ERROR: &str = "42803";
    pub const INVALID_COLUMN_REFERENCE: &str = "42P10";
    pub const INVALID_RECURSION: &str = "42P19";
    pub const INVALID_OBJECT_DEFINITION: &str = "42P17";
    pub const INVALID_FUNCTION_DEFINITION: &str = "42P13";
    pub const DUPLICATE_FUNCTION: &str = "42723";
    pub const INDETERMINATE_DATATYPE: &str = "42P18";
    pub const NAME_TOO_LONG: &str = "42622";
    pub const INSUFFICIENT_PRIVILEGE: &str = "42501";
    pub const WRONG_OBJECT_TYPE: &str = "42809";
    pub const OBJECT_IN_USE: &str = "55006";
    pub const OBJECT_NOT_IN_PREREQUISITE_STATE: &str = "55000";
    pub const CANT_CHANGE_RUNTIME_PARAM: &str = "55P02";
    pub const QUERY_CANCELED: &str = "57014";
    pub const ADMIN_SHUTDOWN: &str = "57P01";
    pub const TOO_MANY_CONNECTIONS: &str = "53300";
    pub const PROGRAM_LIMIT_EXCEEDED: &str = "54000";
    pub const DUPLICATE_TABLE: &str = "42P07";
    pub const DUPLICATE_COLUMN: &str = "42701";
    pub const INVALID_TABLE_DEFINITION: &str = "42P16";
    pub const INVALID_COLUMN_DEFINITION: &str = "42611";
    pub const INVALID_SCHEMA_NAME: &str = "3F000";
    pub const TOO_MANY_COLUMNS: &str = "54011";
    pub const STATEMENT_TOO_COMPLEX: &str = "54001";
    pub const TOO_MANY_ARGUMENTS: &str = "54023";
    pub const UNIQUE_VIOLATION: &str = "23505";
    pub const NOT_NULL_VIOLATION: &str = "23502";
    pub const CHECK_VIOLATION: &str = "23514";
    pub const FOREIGN_KEY_VIOLATION: &str = "23503";
    pub const T_R_SERIALIZATION_FAILURE: &str = "40001";
    pub const T_R_DEADLOCK_DETECTED: &str = "40P01";
    pub const LOCK_NOT_AVAILABLE: &str = "55P03";
    pub const OUT_OF_MEMORY: &str = "53200";
    pub const BAD_COPY_FILE_FORMAT: &str = "22P04";
    pub const INTERNAL_ERROR: &str = "XX000";
    pub const CONNECTION_FAILURE: &str = "08006";
    pub const INVALID_PREPARED_STATEMENT_DEFINITION: &str = "42P14";
    pub const INVALID_CURSOR_STATE: &str = "24000";
    pub const IDLE_IN_TRANSACTION_SESSION_TIMEOUT: &str = "25P03";
    pub const DEPENDENT_OBJECTS_STILL_EXIST: &str = "2BP01";
    pub const ACTIVE_SQL_TRANSACTION_DISCARD: &str = "25001";
    // Sequences and identity columns.
    pub const SEQUENCE_GENERATOR_LIMIT_EXCEEDED: &str = "2200H";
    pub const INVALID_NAME: &str = "42602";
    pub const UNSAFE_NEW_ENUM_VALUE_USAGE: &str = "55P04";
    pub const GENERATED_ALWAYS: &str = "428C9";
    // Added by the value layer (types/, func.rs).
    pub const SUBSTRING_ERROR: &str = "22011";
    pub const INVALID_ARGUMENT_FOR_LOG: &str = "2201E";
    pub const INVALID_ARGUMENT_FOR_POWER_FUNCTION: &str = "2201F";
    pub const INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION: &str = "2201G";
    pub const INVALID_REGULAR_EXPRESSION: &str = "2201B";
    pub const INVALID_ESCAPE_CHARACTER: &str = "22019";
    pub const INVALID_USE_OF_ESCAPE_CHARACTER: &str = "2200C";
    pub const INVALID_TIME_ZONE_DISPLACEMENT_VALUE: &str = "22009";
    pub const DATETIME_VALUE_OUT_OF_RANGE: &str = "22008";
    pub const ARRAY_ELEMENT_ERROR: &str = "2202E";
    pub const NULL_VALUE_NOT_ALLOWED_EXTERNAL: &str = "39004";
    pub const INVALID_BINARY_DATA_FORMAT: &str = "22P03";
    pub const FLOATING_POINT_EXCEPTION: &str = "22P01";
    pub const CHARACTER_NOT_IN_REPERTOIRE_UNTRANSLATABLE: &str = "22P05";
    pub const UNTRANSLATABLE_CHARACTER: &str = "22P05";
    pub const STRING_DATA_LENGTH_MISMATCH: &str = "22026";
    pub const INVALID_CHARACTER_VALUE_FOR_CAST: &str = "22018";
}
