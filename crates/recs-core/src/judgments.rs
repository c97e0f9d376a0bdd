//! What the metrics consume: per user, the candidate items and a grade for each.

use crate::error::{RecsError, Result, check_index, check_len};

/// For each judged user, the candidate items and their grades (`0` = not relevant,
/// larger = more relevant; a rating can serve as a grade).
///
/// Invariants, checked by [`JudgmentsBuilder::build`]: users are distinct and stored in
/// increasing order; within a user, candidates are distinct and stored in increasing item
/// order; grades are finite and non-negative. A user may have candidates but no relevant
/// one; metrics decide what that means and document it.
///
/// ```
/// use recs_core::Judgments;
/// let mut builder = Judgments::builder(3, 4);
/// builder.push_user(2, &[3, 0], &[1.0, 0.0])?;
/// builder.push_user(0, &[1], &[2.0])?;
/// let judgments = builder.build()?;
/// let users: Vec<u32> = judgments.iter().map(|u| u.user).collect();
/// assert_eq!(users, [0, 2]);
/// assert_eq!(judgments.get(2).unwrap().items, &[0, 3]);
/// assert_eq!(judgments.n_candidates(), 3);
/// assert_eq!(judgments.n_relevant(1.0), 2);
/// # Ok::<(), recs_core::RecsError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Judgments {
    n_users: usize,
    n_items: usize,
    users: Vec<u32>,
    offsets: Vec<usize>,
    items: Vec<u32>,
    grades: Vec<f32>,
}

/// The judgments of one user.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UserJudgments<'a> {
    /// Dense user index.
    pub user: u32,
    /// Candidate items, strictly increasing.
    pub items: &'a [u32],
    /// Grade of each candidate, aligned with `items`.
    pub grades: &'a [f32],
}

impl UserJudgments<'_> {
    /// Number of candidates with grade at least `threshold`.
    pub fn n_relevant(&self, threshold: f32) -> usize {
        self.grades.iter().filter(|&&g| g >= threshold).count()
    }
}

/// Collects users' judgments in any order and validates them into [`Judgments`].
#[derive(Debug, Clone)]
pub struct JudgmentsBuilder {
    n_users: usize,
    n_items: usize,
    rows: Vec<(u32, Vec<(u32, f32)>)>,
}

impl Judgments {
    /// A builder for judgments over `n_users` users and `n_items` items.
    pub fn builder(n_users: usize, n_items: usize) -> JudgmentsBuilder {
        JudgmentsBuilder { n_users, n_items, rows: Vec::new() }
    }

    /// Judgments from their flat form: the judged `users` (strictly increasing), for
    /// each the range `offsets[k]..offsets[k + 1]` of `items` (strictly increasing
    /// within a user) and `grades` (finite, ≥ 0). Users without candidates are dropped.
    /// The inverse of [`Judgments::users`] with the rows of [`Judgments::iter`], without
    /// the per-user buffers of [`JudgmentsBuilder`].
    ///
    /// ```
    /// use recs_core::Judgments;
    /// let j = Judgments::from_flat(2, 3, vec![0, 1], vec![0, 2, 3], vec![0, 2, 1], vec![1.0, 0.0, 2.0])?;
    /// assert_eq!(j.get(1).unwrap().items, &[1]);
    /// # Ok::<(), recs_core::RecsError>(())
    /// ```
    ///
    /// # Errors
    /// Lengths that disagree, offsets that do not run from 0 to the number of items, an
    /// index out of range, a bad grade; [`RecsError::DuplicateUser`] or
    /// [`RecsError::DuplicateCandidate`] when users or a user's items are not strictly
    /// increasing.
    pub fn from_flat(
        n_users: usize,
        n_items: usize,
        users: Vec<u32>,
        offsets: Vec<usize>,
        items: Vec<u32>,
        grades: Vec<f32>,
    ) -> Result<Judgments> {
        check_len("offsets", users.len() + 1, offsets.len())?;
        check_len("grades", items.len(), grades.len())?;
        let ends_ok = offsets.first() == Some(&0) && offsets.last() == Some(&items.len());
        if !ends_ok || offsets.windows(2).any(|w| w[0] > w[1]) {
            return Err(RecsError::InvalidParameter {
                name: "offsets".into(),
                value: format!("{} offsets over {} items", offsets.len(), items.len()),
                expected: "increasing from 0 to the number of items".into(),
            });
        }
        if let Some(w) = users.windows(2).find(|w| w[0] >= w[1]) {
            return Err(RecsError::DuplicateUser { user: w[1] });
        }
        for &user in &users {
            check_index("user", user as usize, n_users)?;
        }
        for &item in &items {
            check_index("item", item as usize, n_items)?;
        }
        if let Some(&grade) = grades.iter().find(|g| !(g.is_finite() && **g >= 0.0)) {
            return Err(RecsError::InvalidValue {
                what: "grade",
                value: f64::from(grade),
                expected: "a finite number >= 0",
            });
        }
        let (mut kept_users, mut kept_offsets) = (Vec::with_capacity(users.len()), vec![0]);
        for (k, &user) in users.iter().enumerate() {
            let row = &items[offsets[k]..offsets[k + 1]];
            if let Some(w) = row.windows(2).find(|w| w[0] >= w[1]) {
                return Err(RecsError::DuplicateCandidate { user, item: w[1] });
            }
            if !row.is_empty() {
                kept_users.push(user);
                kept_offsets.push(offsets[k + 1]);
            }
        }
        Ok(Judgments { n_users, n_items, users: kept_users, offsets: kept_offsets, items, grades })
    }

    /// Number of users in the index space (not all need be judged).
    pub fn n_users(&self) -> usize {
        self.n_users
    }

    /// Number of items in the index space.
    pub fn n_items(&self) -> usize {
        self.n_items
    }

    /// Number of judged users.
    pub fn n_judged_users(&self) -> usize {
        self.users.len()
    }

    /// Total number of (user, candidate) pairs.
    pub fn n_candidates(&self) -> usize {
        self.items.len()
    }

    /// Number of (user, candidate) pairs with grade at least `threshold`.
    pub fn n_relevant(&self, threshold: f32) -> usize {
        self.grades.iter().filter(|&&g| g >= threshold).count()
    }

    /// The largest number of candidates any user has.
    pub fn max_candidates(&self) -> usize {
        self.offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0)
    }

    fn user_at(&self, k: usize) -> UserJudgments<'_> {
        let range = self.offsets[k]..self.offsets[k + 1];
        UserJudgments {
            user: self.users[k],
            items: &self.items[range.clone()],
            grades: &self.grades[range],
        }
    }

    /// Judged users in increasing user order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = UserJudgments<'_>> + '_ {
        (0..self.users.len()).map(move |k| self.user_at(k))
    }

    /// The judgments of `user`, if judged.
    pub fn get(&self, user: u32) -> Option<UserJudgments<'_>> {
        self.users.binary_search(&user).ok().map(|k| self.user_at(k))
    }

    /// The judged users, increasing.
    pub fn users(&self) -> &[u32] {
        &self.users
    }
}

impl JudgmentsBuilder {
    /// Adds one user's candidates and grades (any order).
    ///
    /// # Errors
    /// Mismatched lengths, an index out of range, or a grade that is negative or not finite.
    /// Duplicates are reported by [`JudgmentsBuilder::build`].
    pub fn push_user(&mut self, user: u32, items: &[u32], grades: &[f32]) -> Result<&mut Self> {
        check_len("grades", items.len(), grades.len())?;
        check_index("user", user as usize, self.n_users)?;
        let mut row = Vec::with_capacity(items.len());
        for (&item, &grade) in items.iter().zip(grades) {
            check_index("item", item as usize, self.n_items)?;
            if !(grade.is_finite() && grade >= 0.0) {
                return Err(RecsError::InvalidValue {
                    what: "grade",
                    value: f64::from(grade),
                    expected: "a finite number >= 0",
                });
            }
            row.push((item, grade));
        }
        self.rows.push((user, row));
        Ok(self)
    }

    /// Validates and freezes the judgments. Users without candidates are dropped.
    ///
    /// # Errors
    /// [`RecsError::DuplicateUser`] or [`RecsError::DuplicateCandidate`].
    pub fn build(mut self) -> Result<Judgments> {
        self.rows.sort_by_key(|(user, _)| *user);
        if let Some(w) = self.rows.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(RecsError::DuplicateUser { user: w[0].0 });
        }
        let total = self.rows.iter().map(|(_, r)| r.len()).sum();
        let mut judgments = Judgments {
            n_users: self.n_users,
            n_items: self.n_items,
            users: Vec::with_capacity(self.rows.len()),
            offsets: vec![0],
            items: Vec::with_capacity(total),
            grades: Vec::with_capacity(total),
        };
        for (user, mut row) in self.rows {
            if row.is_empty() {
                continue;
            }
            row.sort_by_key(|&(item, _)| item);
            if let Some(w) = row.windows(2).find(|w| w[0].0 == w[1].0) {
                return Err(RecsError::DuplicateCandidate { user, item: w[0].0 });
            }
            judgments.users.push(user);
            judgments.items.extend(row.iter().map(|p| p.0));
            judgments.grades.extend(row.iter().map(|p| p.1));
            judgments.offsets.push(judgments.items.len());
        }
        Ok(judgments)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn duplicates_are_refused() {
        let mut b = Judgments::builder(2, 3);
        b.push_user(0, &[1, 1], &[0.0, 1.0]).unwrap();
        assert!(matches!(b.build(), Err(RecsError::DuplicateCandidate { user: 0, item: 1 })));
        let mut b = Judgments::builder(2, 3);
        b.push_user(1, &[0], &[0.0]).unwrap();
        b.push_user(1, &[2], &[0.0]).unwrap();
        assert!(matches!(b.build(), Err(RecsError::DuplicateUser { user: 1 })));
    }

    #[test]
    fn flat_parts_are_checked() {
        let flat = |users: Vec<u32>, offsets: Vec<usize>, items: Vec<u32>, grades: Vec<f32>| {
            Judgments::from_flat(2, 3, users, offsets, items, grades)
        };
        assert!(flat(vec![0], vec![0, 2], vec![0, 2], vec![1.0, 0.0]).is_ok());
        // An empty user is dropped.
        let j = flat(vec![0, 1], vec![0, 0, 1], vec![2], vec![1.0]).unwrap();
        assert_eq!(j.users(), &[1]);
        assert!(flat(vec![0], vec![0, 2], vec![0, 2], vec![1.0]).is_err());
        assert!(flat(vec![0], vec![1, 2], vec![0, 2], vec![1.0, 0.0]).is_err());
        assert!(flat(vec![0, 1], vec![0, 2, 1], vec![0, 2], vec![1.0, 0.0]).is_err());
        assert!(matches!(
            flat(vec![1, 1], vec![0, 1, 2], vec![0, 2], vec![1.0, 0.0]),
            Err(RecsError::DuplicateUser { user: 1 })
        ));
        assert!(matches!(
            flat(vec![0], vec![0, 2], vec![2, 2], vec![1.0, 0.0]),
            Err(RecsError::DuplicateCandidate { user: 0, item: 2 })
        ));
        assert!(flat(vec![2], vec![0, 1], vec![0], vec![1.0]).is_err());
        assert!(flat(vec![0], vec![0, 1], vec![3], vec![1.0]).is_err());
        assert!(flat(vec![0], vec![0, 1], vec![0], vec![f32::NAN]).is_err());
    }

    #[test]
    fn bad_values_are_refused() {
        let mut b = Judgments::builder(2, 3);
        assert!(b.push_user(2, &[0], &[0.0]).is_err());
        assert!(b.push_user(0, &[3], &[0.0]).is_err());
        assert!(b.push_user(0, &[0], &[-1.0]).is_err());
        assert!(b.push_user(0, &[0], &[f32::NAN]).is_err());
        assert!(b.push_user(0, &[0, 1], &[1.0]).is_err());
    }

    #[test]
    fn empty_users_are_dropped() {
        let mut b = Judgments::builder(2, 3);
        b.push_user(0, &[], &[]).unwrap();
        let j = b.build().unwrap();
        assert_eq!(j.n_judged_users(), 0);
        assert_eq!(j.max_candidates(), 0);
        assert!(j.get(0).is_none());
    }

    proptest! {
        /// Building keeps every (user, item, grade) exactly once, in canonical order,
        /// whatever the input order.
        #[test]
        fn build_is_canonical(rows in proptest::collection::btree_map(0u32..6, proptest::collection::btree_map(0u32..9, 0u8..4, 1..6), 0..6)) {
            let mut forward = Judgments::builder(6, 9);
            let mut backward = Judgments::builder(6, 9);
            for (&user, row) in &rows {
                let items: Vec<u32> = row.keys().copied().collect();
                let grades: Vec<f32> = row.values().map(|&g| f32::from(g)).collect();
                forward.push_user(user, &items, &grades).unwrap();
            }
            for (&user, row) in rows.iter().rev() {
                let items: Vec<u32> = row.keys().rev().copied().collect();
                let grades: Vec<f32> = row.values().rev().map(|&g| f32::from(g)).collect();
                backward.push_user(user, &items, &grades).unwrap();
            }
            let a = forward.build().unwrap();
            let b = backward.build().unwrap();
            prop_assert_eq!(&a, &b);
            // The flat form gives the same judgments back.
            let mut offsets = vec![0];
            let (mut items, mut grades) = (Vec::new(), Vec::new());
            for u in a.iter() {
                items.extend_from_slice(u.items);
                grades.extend_from_slice(u.grades);
                offsets.push(items.len());
            }
            let flat = Judgments::from_flat(6, 9, a.users().to_vec(), offsets, items, grades).unwrap();
            prop_assert_eq!(&flat, &a);
            prop_assert_eq!(a.n_judged_users(), rows.len());
            for u in a.iter() {
                let row = &rows[&u.user];
                prop_assert_eq!(u.items.len(), row.len());
                for (item, grade) in u.items.iter().zip(u.grades) {
                    prop_assert_eq!(f32::from(row[item]), *grade);
                }
            }
        }
    }
}
