//! Scalar function library (stub, being completed).
use crate::error::PgResult;
use crate::sql::types::{FormatCtx, Type, Value};

pub type ScalarFn = fn(&[Value], &FormatCtx) -> PgResult<Value>;

pub struct FuncSig {
    pub name: &'static str,
    pub args: &'static [Type],
    /// The last argument repeats.
    pub variadic: bool,
    pub ret: Type,
    /// NULL in → NULL out without calling `f`.
    pub strict: bool,
    pub f: ScalarFn,
}

fn f_length(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Int4(
        a[0].as_str().unwrap_or("").chars().count() as i32
    ))
}

fn f_upper(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Text(a[0].as_str().unwrap_or("").to_uppercase()))
}

static FUNCS: &[FuncSig] = &[
    FuncSig {
        name: "length",
        args: &[Type::TEXT],
        variadic: false,
        ret: Type::INT4,
        strict: true,
        f: f_length,
    },
    FuncSig {
        name: "upper",
        args: &[Type::TEXT],
        variadic: false,
        ret: Type::TEXT,
        strict: true,
        f: f_upper,
    },
];

pub fn lookup(name: &str) -> &'static [FuncSig] {
    let start = FUNCS.iter().position(|f| f.name == name);
    match start {
        Some(s) => {
            let n = FUNCS[s..].iter().take_while(|f| f.name == name).count();
            &FUNCS[s..s + n]
        }
        None => &[],
    }
}
