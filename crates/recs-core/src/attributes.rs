//! The sparse item × attribute matrix (genres, actors, ...) with its vocabulary.

use std::sync::OnceLock;

use sprs::CsMatI;

use crate::error::{RecsError, Result, check_index};
use crate::ids::IdMap;
use crate::interactions::csr;

/// Which attributes each item has, with a weight per (item, attribute) pair (`1.0` for
/// plain membership), and the names of the attributes.
///
/// Invariants: rows list attribute indices in strictly increasing order; every weight is
/// finite; the vocabulary holds exactly `n_attributes()` names.
///
/// ```
/// use recs_core::{IdMap, ItemAttributes};
/// let vocabulary = IdMap::from_ids_sorted(["Comedy", "Drama"])?;
/// let attrs = ItemAttributes::from_pairs(2, vocabulary, [(0, 1, 1.0), (1, 0, 1.0), (1, 1, 1.0)])?;
/// assert_eq!(attrs.item_attributes(1), &[0, 1]);
/// assert_eq!(attrs.attribute_items(1), &[0, 1]);
/// assert_eq!(attrs.vocabulary().external(0), Some("Comedy"));
/// # Ok::<(), recs_core::RecsError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ItemAttributes {
    matrix: CsMatI<f32, u32, usize>,
    vocabulary: IdMap,
    attribute_major: OnceLock<CsMatI<f32, u32, usize>>,
}

/// Two tables are equal when they hold the same weights under the same vocabulary; the
/// attribute-major copy is a cache and does not count.
impl PartialEq for ItemAttributes {
    fn eq(&self, other: &Self) -> bool {
        self.matrix == other.matrix && self.vocabulary == other.vocabulary
    }
}

impl ItemAttributes {
    /// Builds the matrix from (item, attribute, weight) triples in any order.
    ///
    /// # Errors
    /// An index out of range, a non-finite weight, or the same pair twice.
    pub fn from_pairs<I>(n_items: usize, vocabulary: IdMap, pairs: I) -> Result<Self>
    where
        I: IntoIterator<Item = (u32, u32, f32)>,
    {
        let n_attributes = vocabulary.len();
        let mut pairs: Vec<(u32, u32, f32)> = pairs.into_iter().collect();
        for &(item, attribute, weight) in &pairs {
            check_index("item", item as usize, n_items)?;
            check_index("attribute", attribute as usize, n_attributes)?;
            if !weight.is_finite() {
                return Err(RecsError::InvalidValue {
                    what: "attribute weight",
                    value: f64::from(weight),
                    expected: "a finite number",
                });
            }
        }
        pairs.sort_by_key(|&(item, attribute, _)| (item, attribute));
        if let Some(w) = pairs.windows(2).find(|w| (w[0].0, w[0].1) == (w[1].0, w[1].1)) {
            return Err(RecsError::Unsupported(format!(
                "item index {} has attribute index {} twice",
                w[0].0, w[0].1
            )));
        }
        let mut indptr = vec![0usize; n_items + 1];
        for &(item, _, _) in &pairs {
            indptr[item as usize + 1] += 1;
        }
        for i in 0..n_items {
            indptr[i + 1] += indptr[i];
        }
        let indices = pairs.iter().map(|p| p.1).collect();
        let data = pairs.iter().map(|p| p.2).collect();
        let matrix = csr((n_items, n_attributes), indptr, indices, data)?;
        Ok(ItemAttributes { matrix, vocabulary, attribute_major: OnceLock::new() })
    }

    /// Number of items (rows).
    pub fn n_items(&self) -> usize {
        self.matrix.rows()
    }

    /// Number of attributes (columns), the size of the vocabulary.
    pub fn n_attributes(&self) -> usize {
        self.matrix.cols()
    }

    /// Attribute names, index ↔ name.
    pub fn vocabulary(&self) -> &IdMap {
        &self.vocabulary
    }

    /// The underlying CSR matrix (rows = items, columns = attributes).
    pub fn csr(&self) -> &CsMatI<f32, u32, usize> {
        &self.matrix
    }

    fn range(matrix: &CsMatI<f32, u32, usize>, outer: usize) -> std::ops::Range<usize> {
        let indptr = matrix.indptr();
        let raw = indptr.raw_storage();
        if outer + 1 >= raw.len() {
            return 0..0;
        }
        raw[outer]..raw[outer + 1]
    }

    /// The attributes of `item` in increasing order (empty when out of range).
    pub fn item_attributes(&self, item: u32) -> &[u32] {
        &self.matrix.indices()[Self::range(&self.matrix, item as usize)]
    }

    /// The weights of `item`'s attributes, aligned with [`ItemAttributes::item_attributes`].
    pub fn item_weights(&self, item: u32) -> &[f32] {
        &self.matrix.data()[Self::range(&self.matrix, item as usize)]
    }

    /// The items having `attribute`, in increasing order (computed once, on first use).
    pub fn attribute_items(&self, attribute: u32) -> &[u32] {
        let csc = self.attribute_major.get_or_init(|| self.matrix.to_other_storage());
        &csc.indices()[Self::range(csc, attribute as usize)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocabulary() -> IdMap {
        IdMap::from_ids_sorted(["x", "y", "z"]).unwrap()
    }

    #[test]
    fn rows_and_columns_agree() {
        let attrs =
            ItemAttributes::from_pairs(3, vocabulary(), [(2, 0, 1.0), (0, 2, 0.5), (2, 2, 1.0)])
                .unwrap();
        assert_eq!((attrs.n_items(), attrs.n_attributes()), (3, 3));
        assert_eq!(attrs.item_attributes(2), &[0, 2]);
        assert_eq!(attrs.item_weights(0), &[0.5]);
        assert_eq!(attrs.item_attributes(1), &[] as &[u32]);
        assert_eq!(attrs.attribute_items(2), &[0, 2]);
        assert_eq!(attrs.attribute_items(1), &[] as &[u32]);
        assert_eq!(attrs.item_attributes(9), &[] as &[u32]);
    }

    #[test]
    fn bad_pairs_are_errors() {
        assert!(ItemAttributes::from_pairs(3, vocabulary(), [(3, 0, 1.0)]).is_err());
        assert!(ItemAttributes::from_pairs(3, vocabulary(), [(0, 3, 1.0)]).is_err());
        assert!(ItemAttributes::from_pairs(3, vocabulary(), [(0, 0, f32::INFINITY)]).is_err());
        assert!(ItemAttributes::from_pairs(3, vocabulary(), [(0, 0, 1.0), (0, 0, 1.0)]).is_err());
    }
}
