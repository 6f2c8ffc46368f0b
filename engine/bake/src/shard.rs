//! Sharded bakes for a CI matrix: `--shard I/N` bakes the assets whose path hashes to
//! share `I` of `N`. The split depends only on each asset's path, so every machine of
//! the matrix agrees on it without talking to the others, and adding an asset moves
//! no other asset to another shard.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// Share `index` (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    index: u32,
    count: u32,
}

#[derive(Debug, Clone, PartialEq, Error)]
#[error("shard `{text}`: {reason} (expected I/N with 1 ≤ I ≤ N, such as 2/4)")]
pub struct ShardError {
    pub text: String,
    pub reason: &'static str,
}

impl Shard {
    pub fn new(index: u32, count: u32) -> Option<Self> {
        (count >= 1 && (1..=count).contains(&index)).then_some(Shard { index, count })
    }

    /// Whether the asset at `path` (relative to the assets folder) is this shard's.
    pub fn holds(&self, path: &str) -> bool {
        let hash = blake3::hash(path.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&hash.as_bytes()[..8]);
        u64::from_le_bytes(first) % u64::from(self.count) == u64::from(self.index - 1)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(text: &str) -> Result<Self, ShardError> {
        let error = |reason| ShardError {
            text: text.to_owned(),
            reason,
        };
        let (index, count) = text.split_once('/').ok_or_else(|| error("no `/`"))?;
        let index: u32 = index
            .trim()
            .parse()
            .map_err(|_| error("I is not a number"))?;
        let count: u32 = count
            .trim()
            .parse()
            .map_err(|_| error("N is not a number"))?;
        Shard::new(index, count).ok_or_else(|| error("I is not between 1 and N"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_belongs_to_exactly_one_shard() {
        let shards: Vec<Shard> = (1..=4).map(|i| Shard::new(i, 4).unwrap()).collect();
        let mut sizes = [0; 4];
        for n in 0..400 {
            let path = format!("rock/r{n}.glb");
            let owners: Vec<usize> = (0..4).filter(|&i| shards[i].holds(&path)).collect();
            assert_eq!(owners.len(), 1, "{path}");
            sizes[owners[0]] += 1;
        }
        assert!(sizes.iter().all(|&s| s > 60), "an even split: {sizes:?}");
        assert!(Shard::new(1, 1).unwrap().holds("anything.glb"));
    }

    #[test]
    fn parses_and_refuses_with_reasons() {
        assert_eq!("2/4".parse::<Shard>().unwrap(), Shard::new(2, 4).unwrap());
        assert_eq!("2/4".parse::<Shard>().unwrap().to_string(), "2/4");
        for (text, says) in [
            ("0/4", "between"),
            ("5/4", "between"),
            ("2", "no `/`"),
            ("a/4", "I is"),
        ] {
            let error = text.parse::<Shard>().unwrap_err().to_string();
            assert!(error.contains(says), "{text}: {error}");
        }
    }
}
