//! The session's open portals, with the unnamed one in a slot of its own.
//!
//! Almost every driver runs its statements through the unnamed portal: Bind, Describe and
//! Execute each look it up, and Execute takes it out and puts it back. In a hash map that is
//! four hashings and key compares per statement for a name that is always the empty string;
//! the slot makes them a branch. Named portals (cursors, drivers that name their portals)
//! stay in the map. The two together behave as one map keyed by name.

use rustc_hash::FxHashMap;

/// Open portals by name; `""` is the unnamed portal.
pub(super) struct Portals<P> {
    unnamed: Option<P>,
    // Fx: the keys are this session's own names, so a hostile client only slows itself.
    named: FxHashMap<String, P>,
}

impl<P> Default for Portals<P> {
    fn default() -> Self {
        Portals {
            unnamed: None,
            named: FxHashMap::default(),
        }
    }
}

impl<P> Portals<P> {
    pub(super) fn get(&self, name: &str) -> Option<&P> {
        if name.is_empty() {
            self.unnamed.as_ref()
        } else {
            self.named.get(name)
        }
    }

    pub(super) fn get_mut(&mut self, name: &str) -> Option<&mut P> {
        if name.is_empty() {
            self.unnamed.as_mut()
        } else {
            self.named.get_mut(name)
        }
    }

    pub(super) fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Puts `portal` under `name`, returning the portal it replaces.
    pub(super) fn insert(&mut self, name: String, portal: P) -> Option<P> {
        if name.is_empty() {
            self.unnamed.replace(portal)
        } else {
            self.named.insert(name, portal)
        }
    }

    pub(super) fn remove(&mut self, name: &str) -> Option<P> {
        if name.is_empty() {
            self.unnamed.take()
        } else {
            self.named.remove(name)
        }
    }

    pub(super) fn len(&self) -> usize {
        usize::from(self.unnamed.is_some()) + self.named.len()
    }

    pub(super) fn clear(&mut self) {
        self.unnamed = None;
        self.named.clear();
    }

    /// Keeps only the portals for which `keep` says so.
    pub(super) fn retain(&mut self, mut keep: impl FnMut(&str, &mut P) -> bool) {
        if let Some(p) = self.unnamed.as_mut() {
            if !keep("", p) {
                self.unnamed = None;
            }
        }
        self.named.retain(|name, p| keep(name, p));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_as_one_map() {
        let mut p = Portals::default();
        assert_eq!(p.insert(String::new(), 1), None);
        assert_eq!(p.insert("c".to_string(), 2), None);
        assert_eq!(p.len(), 2);
        assert_eq!(p.get(""), Some(&1));
        assert_eq!(p.get("c"), Some(&2));
        assert_eq!(p.insert(String::new(), 3), Some(1), "rebinding replaces");
        *p.get_mut("c").unwrap() += 10;
        assert_eq!(p.get("c"), Some(&12));
        p.retain(|name, v| !name.is_empty() && *v > 10);
        assert!(!p.contains_key(""));
        assert!(p.contains_key("c"));
        assert_eq!(p.remove("c"), Some(12));
        assert_eq!(p.len(), 0);
        p.insert(String::new(), 4);
        p.clear();
        assert_eq!(p.len(), 0);
        assert_eq!(p.remove(""), None);
    }
}
