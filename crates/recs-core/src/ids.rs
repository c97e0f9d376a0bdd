//! Translation between the external ids found in files and dense `u32` indices.

use rustc_hash::FxHashMap;

use crate::error::{RecsError, Result};

/// A bijection between external ids (as text: `"196"`, `"1008"`, `"alice"`) and dense
/// indices `0..len()`.
///
/// Indices are assigned in insertion order, so the same input sequence always gives the
/// same map. [`IdMap::from_ids_sorted`] gives a canonical order independent of input order:
/// numeric order when every id is an integer (so MovieLens user `"2"` comes before `"10"`),
/// byte order otherwise.
///
/// ```
/// use recs_core::IdMap;
/// let mut ids = IdMap::new();
/// let a = ids.insert("196")?;
/// let b = ids.insert("186")?;
/// assert_eq!((a, b), (0, 1));
/// assert_eq!(ids.insert("196")?, 0);
/// assert_eq!(ids.get("186"), Some(1));
/// assert_eq!(ids.external(1), Some("186"));
/// # Ok::<(), recs_core::RecsError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdMap {
    to_index: FxHashMap<Box<str>, u32>,
    to_external: Vec<Box<str>>,
}

impl IdMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// A map holding the distinct ids of `ids` in canonical order: ascending integer value
    /// when every id parses as an `i64`, ascending byte order otherwise.
    ///
    /// # Errors
    /// [`RecsError::TooManyIds`] when there are more than `u32::MAX` distinct ids.
    pub fn from_ids_sorted<I, S>(ids: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut distinct: Vec<Box<str>> = ids.into_iter().map(|s| s.as_ref().into()).collect();
        distinct.sort_unstable();
        distinct.dedup();
        let numeric: Option<Vec<i64>> = distinct.iter().map(|s| s.parse::<i64>().ok()).collect();
        if let Some(values) = numeric {
            let mut order: Vec<usize> = (0..distinct.len()).collect();
            // Ties in value ("7" and "07") keep byte order, so the result stays canonical.
            order.sort_by(|&a, &b| values[a].cmp(&values[b]).then(distinct[a].cmp(&distinct[b])));
            distinct = order.into_iter().map(|i| distinct[i].clone()).collect();
        }
        let mut map = IdMap::new();
        for id in distinct {
            map.insert(&id)?;
        }
        Ok(map)
    }

    /// This map's ids in canonical order ([`IdMap::from_ids_sorted`]), and for each index
    /// of this map its index in the canonical one.
    ///
    /// ```
    /// use recs_core::IdMap;
    /// let mut map = IdMap::new();
    /// for id in ["10", "2", "1"] {
    ///     map.insert(id)?;
    /// }
    /// let (sorted, remap) = map.canonical()?;
    /// assert_eq!(sorted.iter().collect::<Vec<_>>(), ["1", "2", "10"]);
    /// assert_eq!(remap, [2, 1, 0]);
    /// # Ok::<(), recs_core::RecsError>(())
    /// ```
    ///
    /// # Errors
    /// [`RecsError::TooManyIds`] as [`IdMap::from_ids_sorted`].
    pub fn canonical(&self) -> Result<(IdMap, Vec<u32>)> {
        let sorted = IdMap::from_ids_sorted(self.iter())?;
        let remap = self.iter().map(|id| sorted.get(id).unwrap_or(u32::MAX)).collect();
        Ok((sorted, remap))
    }

    /// The index of `external`, inserting it with the next free index if it is new.
    ///
    /// # Errors
    /// [`RecsError::TooManyIds`] when the map already holds `u32::MAX` ids.
    pub fn insert(&mut self, external: &str) -> Result<u32> {
        if let Some(&index) = self.to_index.get(external) {
            return Ok(index);
        }
        let index = u32::try_from(self.to_external.len())
            .ok()
            .filter(|&i| i < u32::MAX)
            .ok_or(RecsError::TooManyIds)?;
        let key: Box<str> = external.into();
        self.to_index.insert(key.clone(), index);
        self.to_external.push(key);
        Ok(index)
    }

    /// The index of `external`, if present.
    pub fn get(&self, external: &str) -> Option<u32> {
        self.to_index.get(external).copied()
    }

    /// The external id of `index`, if in range.
    pub fn external(&self, index: u32) -> Option<&str> {
        self.to_external.get(index as usize).map(|s| &**s)
    }

    /// Number of ids held.
    pub fn len(&self) -> usize {
        self.to_external.len()
    }

    /// True when no id is held.
    pub fn is_empty(&self) -> bool {
        self.to_external.is_empty()
    }

    /// External ids in index order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.to_external.iter().map(|s| &**s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn sorted_numeric_ids_follow_integer_order() {
        let map = IdMap::from_ids_sorted(["10", "2", "1", "2"]).unwrap();
        assert_eq!(map.iter().collect::<Vec<_>>(), ["1", "2", "10"]);
    }

    #[test]
    fn sorted_mixed_ids_follow_byte_order() {
        let map = IdMap::from_ids_sorted(["b", "10", "a", "2"]).unwrap();
        assert_eq!(map.iter().collect::<Vec<_>>(), ["10", "2", "a", "b"]);
    }

    #[test]
    fn unknown_lookups_are_none() {
        let map = IdMap::from_ids_sorted(["x"]).unwrap();
        assert_eq!(map.get("y"), None);
        assert_eq!(map.external(1), None);
    }

    proptest! {
        #[test]
        fn round_trip(ids in proptest::collection::vec("[a-z0-9]{1,6}", 0..60)) {
            let mut map = IdMap::new();
            let indices: Vec<u32> = ids.iter().map(|s| map.insert(s).unwrap()).collect();
            for (id, &index) in ids.iter().zip(&indices) {
                prop_assert_eq!(map.get(id), Some(index));
                prop_assert_eq!(map.external(index), Some(id.as_str()));
            }
            // Dense: indices are exactly 0..len.
            let mut seen: Vec<u32> = indices.clone();
            seen.sort_unstable();
            seen.dedup();
            prop_assert_eq!(seen, (0..map.len() as u32).collect::<Vec<_>>());
        }

        #[test]
        fn sorted_map_is_independent_of_input_order(
            mut ids in proptest::collection::vec("[0-9]{1,4}|[a-c]{1,3}", 0..40),
            seed in any::<u64>(),
        ) {
            let a = IdMap::from_ids_sorted(&ids).unwrap();
            // A deterministic shuffle driven by the seed.
            let n = ids.len();
            let mut state = seed | 1;
            for i in (1..n).rev() {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17;
                ids.swap(i, (state % (i as u64 + 1)) as usize);
            }
            let b = IdMap::from_ids_sorted(&ids).unwrap();
            prop_assert_eq!(a, b);
        }
    }
}
