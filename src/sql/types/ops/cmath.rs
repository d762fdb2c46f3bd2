//! The C library's math functions, which PostgreSQL uses, so float results match it to the
//! last bit (Rust's own implementations of some of them, e.g. cbrt, round differently). They are
//! looked up in the system libm at run time; Rust's versions are the fallback.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

unsafe extern "C" {
    fn dlopen(filename: *const c_char, flag: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}

type F1 = unsafe extern "C" fn(f64) -> f64;
type F2 = unsafe extern "C" fn(f64, f64) -> f64;

fn libm() -> Option<usize> {
    static H: OnceLock<Option<usize>> = OnceLock::new();
    *H.get_or_init(|| {
        const RTLD_NOW: c_int = 2;
        for name in [c"libm.so.6", c"libm.so"] {
            // SAFETY: dlopen with a valid NUL-terminated name.
            let h = unsafe { dlopen(name.as_ptr(), RTLD_NOW) };
            if !h.is_null() {
                return Some(h as usize);
            }
        }
        None
    })
}

fn sym(name: &CStr) -> Option<*mut c_void> {
    let h = libm()?;
    // SAFETY: valid handle from dlopen and a NUL-terminated symbol name.
    let p = unsafe { dlsym(h as *mut c_void, name.as_ptr()) };
    (!p.is_null()).then_some(p)
}

macro_rules! f1 {
    ($($name:ident, $sym:expr, $fallback:expr;)*) => {
        $(pub fn $name(x: f64) -> f64 {
            static F: OnceLock<Option<usize>> = OnceLock::new();
            match *F.get_or_init(|| sym($sym).map(|p| p as usize)) {
                // SAFETY: the symbol is libm's double -> double function of that name.
                Some(p) => unsafe { std::mem::transmute::<usize, F1>(p)(x) },
                None => $fallback(x),
            }
        })*
    };
}

f1! {
    cbrt, c"cbrt", f64::cbrt;
    exp, c"exp", f64::exp;
    ln, c"log", f64::ln;
    log10, c"log10", f64::log10;
    sin, c"sin", f64::sin;
    cos, c"cos", f64::cos;
    tan, c"tan", f64::tan;
    asin, c"asin", f64::asin;
    acos, c"acos", f64::acos;
    atan, c"atan", f64::atan;
    sinh, c"sinh", f64::sinh;
    cosh, c"cosh", f64::cosh;
    tanh, c"tanh", f64::tanh;
    asinh, c"asinh", f64::asinh;
    acosh, c"acosh", f64::acosh;
    atanh, c"atanh", f64::atanh;
}

pub(super) fn f2(
    name: &CStr,
    cache: &OnceLock<Option<usize>>,
    x: f64,
    y: f64,
    fb: fn(f64, f64) -> f64,
) -> f64 {
    match *cache.get_or_init(|| sym(name).map(|p| p as usize)) {
        // SAFETY: the symbol is libm's (double, double) -> double function of that name.
        Some(p) => unsafe { std::mem::transmute::<usize, F2>(p)(x, y) },
        None => fb(x, y),
    }
}

pub fn pow(x: f64, y: f64) -> f64 {
    static F: OnceLock<Option<usize>> = OnceLock::new();
    f2(c"pow", &F, x, y, f64::powf)
}

pub fn atan2(y: f64, x: f64) -> f64 {
    static F: OnceLock<Option<usize>> = OnceLock::new();
    f2(c"atan2", &F, y, x, f64::atan2)
}
