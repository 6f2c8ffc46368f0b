//! Interned prop names and, per prop, its buckets once a shape is known.

use std::collections::HashMap;
use std::sync::Arc;

use crate::prop_buckets::PropBuckets;
use crate::{PropKey, RegistryError};

#[derive(Debug, Clone)]
pub(crate) struct PropEntry {
    pub(crate) name: Arc<str>,
    /// `None` until the prop is baked and loaded, and again after it is deleted.
    pub(crate) buckets: Option<PropBuckets>,
}

#[derive(Debug, Default, Clone)]
pub(crate) struct PropTable {
    entries: Vec<PropEntry>,
    key_of_name: HashMap<Arc<str>, PropKey>,
}

impl PropTable {
    /// The key for `name`, made on first sight. Keys are never freed: a session names a
    /// few hundred props at most, and a key must stay valid for placements that outlive
    /// their prop's shape.
    pub(crate) fn intern(&mut self, name: &str) -> PropKey {
        if let Some(&key) = self.key_of_name.get(name) {
            return key;
        }
        let key = PropKey(self.entries.len() as u32);
        let name: Arc<str> = Arc::from(name);
        self.entries.push(PropEntry {
            name: Arc::clone(&name),
            buckets: None,
        });
        self.key_of_name.insert(name, key);
        key
    }

    pub(crate) fn get(&self, key: PropKey) -> Result<&PropEntry, RegistryError> {
        self.entries
            .get(key.0 as usize)
            .ok_or(RegistryError::UnknownProp { key: key.0 })
    }

    pub(crate) fn get_mut(&mut self, key: PropKey) -> Result<&mut PropEntry, RegistryError> {
        self.entries
            .get_mut(key.0 as usize)
            .ok_or(RegistryError::UnknownProp { key: key.0 })
    }

    /// The buckets of a prop known to be interned (a key stored in the placement table).
    pub(crate) fn buckets_mut(&mut self, key: PropKey) -> Option<&mut PropBuckets> {
        self.entries[key.0 as usize].buckets.as_mut()
    }

    pub(crate) fn entries(&self) -> impl Iterator<Item = (PropKey, &PropEntry)> {
        (0u32..).map(PropKey).zip(&self.entries)
    }

    pub(crate) fn entries_mut(&mut self) -> impl Iterator<Item = (PropKey, &mut PropEntry)> {
        (0u32..).map(PropKey).zip(&mut self.entries)
    }
}
