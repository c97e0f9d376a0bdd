//! The lines of a qrels source gathered as columns, then checked and made into [`Qrels`].
//!
//! A user is kept once per run of its lines, an item and a grade per line, and the line
//! numbers as runs of consecutive lines: about 8 bytes per candidate while a file is read
//! (a row per line took 16, and the columns were built beside it). Files in `(user, item)`
//! order, as [`write_qrels`](super::write_qrels) writes them, are never sorted or copied
//! again; other files are sorted once.

use std::path::Path;

use rayon::prelude::*;
use recs_core::{IdMap, Judgments};

use super::{Qrels, parse_error};
use crate::error::Result;

/// Qrels lines in source order, ids numbered as their maps number them.
#[derive(Debug, Default)]
pub(super) struct QrelsColumns {
    /// `(user, number of lines)` for each run of consecutive lines of one user.
    users: Vec<(u32, usize)>,
    items: Vec<u32>,
    grades: Vec<f32>,
    lines: LineNumbers,
}

/// The source line of each entry, as runs of consecutive lines: `(entry, line)` where a
/// run starts (files without blank or comment lines have one run per piece).
#[derive(Debug, Default)]
struct LineNumbers {
    starts: Vec<(usize, usize)>,
}

impl LineNumbers {
    fn push(&mut self, entry: usize, line: usize) {
        let continues = |&(e, l): &(usize, usize)| line.checked_sub(l) == Some(entry - e);
        if !self.starts.last().is_some_and(continues) {
            self.starts.push((entry, line));
        }
    }

    /// The line of `entry` (an index below the number of entries pushed).
    fn line(&self, entry: usize) -> usize {
        let run = self.starts.partition_point(|&(e, _)| e <= entry).saturating_sub(1);
        self.starts.get(run).map_or(0, |&(e, l)| l + (entry - e))
    }
}

impl QrelsColumns {
    /// Adds one line: `user`'s `item` graded `grade`, from source line `line`.
    #[inline]
    pub(super) fn push(&mut self, user: u32, item: u32, grade: f32, line: usize) {
        match self.users.last_mut() {
            Some((last, n)) if *last == user => *n += 1,
            _ => self.users.push((user, 1)),
        }
        self.lines.push(self.items.len(), line);
        self.items.push(item);
        self.grades.push(grade);
    }

    /// Adds the lines of `other`, which follow these in the source (same id numbering).
    pub(super) fn append(&mut self, other: QrelsColumns) {
        let offset = self.items.len();
        let mut runs = other.users.into_iter();
        if let (Some((last, n)), Some(&(first, m))) =
            (self.users.last_mut(), runs.as_slice().first())
            && *last == first
        {
            *n += m;
            runs.next();
        }
        self.users.extend(runs);
        self.items.extend(other.items);
        self.grades.extend(other.grades);
        for (entry, line) in other.lines.starts {
            self.lines.push(offset + entry, line);
        }
    }

    /// Renumbers users and items: `users[old]` and `items[old]` are the new indices.
    pub(super) fn remap(&mut self, users: &[u32], items: &[u32]) {
        for (user, _) in &mut self.users {
            *user = users[*user as usize];
        }
        self.items.par_chunks_mut(1 << 16).for_each(|chunk| {
            for item in chunk {
                *item = items[*item as usize];
            }
        });
    }

    /// The qrels of these lines, whose ids `users` and `items` name; ids are made
    /// canonical ([`IdMap::canonical`]) whatever the order of the lines.
    ///
    /// # Errors
    /// [`MetricsError::Parse`](crate::MetricsError::Parse) at the later line of the first
    /// `(user, item)` pair (in canonical order) listed twice.
    pub(super) fn into_qrels(mut self, users: IdMap, items: IdMap, path: &Path) -> Result<Qrels> {
        let (users, user_remap) = users.canonical()?;
        let (items, item_remap) = items.canonical()?;
        self.remap(&user_remap, &item_remap);
        if !self.is_sorted() {
            self = self.sorted();
        }
        self.check_no_repeats(&users, &items, path)?;
        let judged = self.users.iter().map(|&(user, _)| user).collect();
        let offsets = std::iter::once(0)
            .chain(self.users.iter().scan(0, |end, &(_, n)| {
                *end += n;
                Some(*end)
            }))
            .collect();
        let judgments = Judgments::from_flat(
            users.len(),
            items.len(),
            judged,
            offsets,
            self.items,
            self.grades,
        )?;
        Ok(Qrels { users, items, judgments })
    }

    /// The items of each user run, with the run's user and first entry.
    fn rows(&self) -> impl Iterator<Item = (u32, usize, &[u32])> {
        self.users.iter().scan(0, |start, &(user, n)| {
            let row = (user, *start, &self.items[*start..*start + n]);
            *start += n;
            Some(row)
        })
    }

    /// Whether users come in increasing order, each in one run, with its items in
    /// non-decreasing order (a repeated pair is found later).
    fn is_sorted(&self) -> bool {
        self.users.windows(2).all(|w| w[0].0 < w[1].0)
            && self.rows().all(|(_, _, items)| items.is_sorted())
    }

    /// These lines in `(user, item, line)` order.
    fn sorted(self) -> QrelsColumns {
        let mut lines: Vec<(u32, u32, usize, f32)> = self
            .rows()
            .flat_map(|(user, start, items)| {
                items.iter().enumerate().map(move |(k, &item)| (user, item, start + k))
            })
            .map(|(user, item, entry)| (user, item, self.lines.line(entry), self.grades[entry]))
            .collect();
        drop(self);
        lines.par_sort_unstable_by_key(|&(user, item, line, _)| (user, item, line));
        let mut sorted = QrelsColumns::default();
        for (user, item, line, grade) in lines {
            sorted.push(user, item, grade, line);
        }
        sorted
    }

    /// In sorted columns: an error at the first `(user, item)` pair listed twice.
    fn check_no_repeats(&self, users: &IdMap, items: &IdMap, path: &Path) -> Result<()> {
        for (user, start, row) in self.rows() {
            if let Some(k) = row.windows(2).position(|w| w[0] == w[1]) {
                let a = self.lines.line(start + k);
                let b = self.lines.line(start + k + 1);
                let (first, again) = (a.min(b), a.max(b));
                return Err(parse_error(
                    path,
                    again,
                    format!(
                        "user `{}` lists item `{}` again (first on line {first})",
                        users.external(user).unwrap_or("?"),
                        items.external(row[k]).unwrap_or("?"),
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_numbers_are_kept_as_runs_and_read_back() {
        let lines = [3, 4, 5, 9, 10, 2, 3, 40];
        let mut numbers = LineNumbers::default();
        for (entry, &line) in lines.iter().enumerate() {
            numbers.push(entry, line);
        }
        assert_eq!(numbers.starts, [(0, 3), (3, 9), (5, 2), (7, 40)]);
        for (entry, &line) in lines.iter().enumerate() {
            assert_eq!(numbers.line(entry), line);
        }
    }

    #[test]
    fn appended_columns_merge_the_user_run_and_keep_lines() {
        let mut a = QrelsColumns::default();
        a.push(0, 1, 1.0, 1);
        a.push(0, 2, 0.0, 2);
        let mut b = QrelsColumns::default();
        b.push(0, 3, 2.0, 4);
        b.push(1, 1, 0.0, 5);
        a.append(b);
        assert_eq!(a.users, [(0, 3), (1, 1)]);
        assert_eq!(a.items, [1, 2, 3, 1]);
        assert_eq!(a.grades, [1.0, 0.0, 2.0, 0.0]);
        assert_eq!((0..4).map(|e| a.lines.line(e)).collect::<Vec<_>>(), [1, 2, 4, 5]);
        assert!(a.is_sorted());
        a.push(0, 9, 1.0, 6);
        assert!(!a.is_sorted());
        let sorted = a.sorted();
        assert_eq!(sorted.users, [(0, 4), (1, 1)]);
        assert_eq!(sorted.items, [1, 2, 3, 9, 1]);
        assert_eq!((0..5).map(|e| sorted.lines.line(e)).collect::<Vec<_>>(), [1, 2, 4, 6, 5]);
    }
}
