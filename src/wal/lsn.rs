//! Log sequence numbers: byte positions in the log, printed as PostgreSQL prints them.

use std::fmt;
use std::str::FromStr;

/// A byte position in the (conceptually infinite) log. The first record of a new log starts at
/// the beginning of segment 1, so `0/0` is never a record's position: it stands for "none", as
/// `InvalidXLogRecPtr` does in PostgreSQL.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lsn(pub u64);

impl Lsn {
    pub const INVALID: Lsn = Lsn(0);

    pub fn is_valid(self) -> bool {
        self.0 != 0
    }
}

/// `%X/%X`: the high and low 32 bits in upper-case hexadecimal, as `pg_current_wal_lsn()`.
impl fmt::Display for Lsn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:X}/{:X}", self.0 >> 32, self.0 & 0xffff_ffff)
    }
}

/// Parses `X/X` (either case, 1 to 8 hex digits each side), as pg_lsn's input does.
impl FromStr for Lsn {
    type Err = ();

    fn from_str(s: &str) -> Result<Lsn, ()> {
        let (hi, lo) = s.split_once('/').ok_or(())?;
        let part = |p: &str| {
            if p.is_empty() || p.len() > 8 || !p.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(());
            }
            u32::from_str_radix(p, 16).map_err(|_| ())
        };
        Ok(Lsn(((part(hi)? as u64) << 32) | part(lo)? as u64))
    }
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::*;

    #[test]
    fn prints_and_parses_as_postgresql() {
        assert_eq!(Lsn(0x1_0000_0028).to_string(), "1/28");
        assert_eq!(Lsn(0x0100_0000).to_string(), "0/1000000");
        assert_eq!("16/B374D848".parse(), Ok(Lsn(0x16_B374_D848)));
        assert_eq!("0/0".parse(), Ok(Lsn::INVALID));
        for bad in ["", "1", "/1", "1/", "123456789/0", "1/g", " 1/2", "1/-2"] {
            assert_eq!(bad.parse::<Lsn>(), Err(()), "{bad}");
        }
        let l = Lsn(0xFFFF_FFFF_FFFF_FFF8);
        assert_eq!(l.to_string().parse(), Ok(l));
    }
}
