//! The loaded form of a dataset: interactions, id maps and metadata together.

use std::path::PathBuf;

use recs_core::{IdMap, Interactions, ItemAttributes};
use serde::{Deserialize, Serialize};

use crate::error::Result;

/// What the values of a dataset's events mean.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Feedback {
    /// Ratings on the closed scale `[min, max]`.
    Explicit {
        /// Lowest rating allowed.
        min: f32,
        /// Highest rating allowed.
        max: f32,
    },
    /// Every event is an occurrence (a visit, a purchase); values are `1.0`.
    Implicit,
}

/// Descriptive fields of one item, as far as the source provides them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemInfo {
    /// Title, decoded to UTF-8.
    pub title: Option<String>,
    /// Release date as written in the source (MovieLens 100K: `01-Jan-1995`).
    pub release_date: Option<String>,
    /// A URL (MovieLens 100K: IMDb link; MS Web: the vroot path such as `/autoroute`).
    pub url: Option<String>,
}

/// Demographic fields of one user (MovieLens 100K `u.user`, MovieLens 1M `users.dat`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserInfo {
    /// Age in years (1M: the age-group code).
    pub age: Option<u32>,
    /// Gender code as written (`M`/`F`).
    pub gender: Option<String>,
    /// Occupation (100K: a name; 1M: a numeric code as text).
    pub occupation: Option<String>,
    /// Zip code, as text.
    pub zip: Option<String>,
}

/// A file a dataset was read from, with its sha256 (lower-case hex).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFile {
    /// Where the file was read.
    pub path: PathBuf,
    /// Its sha256, lower-case hex.
    pub sha256: String,
}

/// A loaded dataset: the event matrix, the id maps that translate its indices, and what
/// else the source carries.
///
/// Invariants kept by every loader of this crate: `users.len() == interactions.n_users()`,
/// `items.len() == interactions.n_items()`; `test`, when present, has the same dimensions
/// (same index spaces); `item_info` and `item_attributes` are empty/absent or cover every
/// item; `user_info` is empty or covers every user. Id maps are canonical (numeric order
/// of the external ids when all are integers; for MS Web read with separate test people,
/// training cases then test cases), so indices never depend on line order.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Short name (`ml-100k`, `msweb`, or the file name for generic files).
    pub name: String,
    /// The events (for MS Web: the training file).
    pub interactions: Interactions,
    /// A test part shipped by the source itself (MS Web's `.test` file), if any.
    pub test: Option<Interactions>,
    /// External user ids ↔ dense user indices.
    pub users: IdMap,
    /// External item ids ↔ dense item indices.
    pub items: IdMap,
    /// Item × attribute matrix (MovieLens genres), if the source has one.
    pub item_attributes: Option<ItemAttributes>,
    /// Per item descriptive fields, indexed by item index (empty when unknown).
    pub item_info: Vec<ItemInfo>,
    /// Per user demographic fields, indexed by user index (empty when unknown).
    pub user_info: Vec<UserInfo>,
    /// What event values mean.
    pub feedback: Feedback,
    /// The files read, with their sha256 when computed.
    pub sources: Vec<SourceFile>,
}

impl Dataset {
    /// A dataset made of interactions and their id maps only.
    ///
    /// # Errors
    /// [`recs_core::RecsError::LengthMismatch`] when a map's size differs from the
    /// matrix dimension it translates.
    pub fn new(
        name: impl Into<String>,
        interactions: Interactions,
        users: IdMap,
        items: IdMap,
        feedback: Feedback,
    ) -> Result<Self> {
        check_len("user id map", interactions.n_users(), users.len())?;
        check_len("item id map", interactions.n_items(), items.len())?;
        Ok(Dataset {
            name: name.into(),
            interactions,
            test: None,
            users,
            items,
            item_attributes: None,
            item_info: Vec::new(),
            user_info: Vec::new(),
            feedback,
            sources: Vec::new(),
        })
    }

    /// Number of users.
    pub fn n_users(&self) -> usize {
        self.interactions.n_users()
    }

    /// Number of items.
    pub fn n_items(&self) -> usize {
        self.interactions.n_items()
    }

    /// Number of events (of the main part; the test part is not counted).
    pub fn n_events(&self) -> usize {
        self.interactions.n_events()
    }
}

pub(crate) fn check_len(what: &'static str, expected: usize, found: usize) -> Result<()> {
    if expected == found {
        Ok(())
    } else {
        Err(recs_core::RecsError::LengthMismatch { what, expected, found }.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::{DuplicatePolicy, Event};

    #[test]
    fn new_checks_map_sizes() {
        let m = Interactions::from_events(2, 1, [Event::new(1, 0, 1.0)], DuplicatePolicy::Error)
            .unwrap();
        let one = IdMap::from_ids_sorted(["a"]).unwrap();
        let two = IdMap::from_ids_sorted(["a", "b"]).unwrap();
        assert!(
            Dataset::new("x", m.clone(), one.clone(), one.clone(), Feedback::Implicit).is_err()
        );
        let d = Dataset::new("x", m, two, one, Feedback::Implicit).unwrap();
        assert_eq!((d.n_users(), d.n_items(), d.n_events()), (2, 1, 1));
    }
}
