//! What a run shares with its checkpoints: the tables that make up most of
//! a long run's state and change only in a few places at a time.
//!
//! - [`Rows`] keeps each row (or, in [`Grows`], each chunk of rows) behind
//!   an `Arc`: its attempts, its job tasks, its flow records. A copy of the
//!   run (a checkpoint, or the run restored from one) copies the table's
//!   pointers, not its rows; the run's first change to a shared row copies
//!   that row alone (`Arc::make_mut`), and a row no copy shares any more is
//!   changed in place.
//! - [`Fixed`] keeps a table whose length never changes behind one `Arc`:
//!   a job's maps, reduces, replicas and index lists. The jobs themselves
//!   are a plain vector (`sim::jobs`), read on every heartbeat as often as
//!   anything in the engine, so they cost no pointer more to read; a copy
//!   of a job copies its counters and shares its tables.
//!
//! So a checkpoint of a long run costs a pointer a row (or a table) and a
//! few hundred bytes a job, the run then copies, once, what it goes on
//! changing (the running jobs' task tables, the chunks of the running
//! attempts), and restoring a checkpoint costs as little again. Changing
//! a shared table costs an atomic check: docs/performance.md has the
//! figures.

use std::sync::Arc;

/// A table of rows each shared with the run's copies until the run
/// changes it.
#[derive(Clone, Debug)]
pub struct Rows<T> {
    rows: Vec<Arc<T>>,
}

impl<T> Default for Rows<T> {
    fn default() -> Rows<T> {
        Rows { rows: Vec::new() }
    }
}

impl<T: Clone> Rows<T> {
    #[inline]
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        self.rows.get(i).map(|r| &**r)
    }

    pub fn last(&self) -> Option<&T> {
        self.rows.last().map(|r| &**r)
    }

    pub fn iter(&self) -> RowsIter<'_, T> {
        self.rows.iter().map(|r| &**r)
    }

    pub fn push(&mut self, row: T) {
        self.rows.push(Arc::new(row));
    }

    /// Row `i`'s size as this table's part of it: all of `bytes` when no
    /// copy shares it, an equal part when some do.
    pub fn part(&self, i: usize, bytes: usize) -> usize {
        bytes / Arc::strong_count(&self.rows[i])
    }
}

impl<T: Clone> FromIterator<T> for Rows<T> {
    fn from_iter<I: IntoIterator<Item = T>>(rows: I) -> Rows<T> {
        Rows {
            rows: rows.into_iter().map(Arc::new).collect(),
        }
    }
}

/// The rows of a [`Rows`], in order.
pub type RowsIter<'a, T> = std::iter::Map<std::slice::Iter<'a, Arc<T>>, fn(&Arc<T>) -> &T>;

impl<T> std::ops::Index<usize> for Rows<T> {
    type Output = T;

    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.rows[i]
    }
}

impl<T: Clone> std::ops::IndexMut<usize> for Rows<T> {
    /// Row `i` to change: copied first if a copy of the table shares it.
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        Arc::make_mut(&mut self.rows[i])
    }
}

impl<'a, T: Clone> IntoIterator for &'a Rows<T> {
    type Item = &'a T;
    type IntoIter = RowsIter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Rows a [`Grows`] keeps in one shared chunk.
const ROWS: usize = 256;

/// A table that only grows (rows are added, and a row may change while
/// what it records runs), in chunks each shared with the run's copies
/// until the run changes it.
#[derive(Clone, Debug)]
pub struct Grows<T> {
    chunks: Rows<Vec<T>>,
    len: usize,
}

impl<T> Default for Grows<T> {
    fn default() -> Grows<T> {
        Grows {
            chunks: Rows::default(),
            len: 0,
        }
    }
}

impl<T: Clone> Grows<T> {
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn push(&mut self, row: T) {
        if self.len.is_multiple_of(ROWS) {
            self.chunks.push(Vec::with_capacity(ROWS));
        }
        self.chunks[self.len / ROWS].push(row);
        self.len += 1;
    }

    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        (i < self.len).then(|| &self.chunks[i / ROWS][i % ROWS])
    }

    pub fn last(&self) -> Option<&T> {
        self.len.checked_sub(1).and_then(|i| self.get(i))
    }

    /// Every row, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + Clone {
        self.chunks.iter().flat_map(|c| c.iter())
    }
}

impl<T: Clone> std::ops::Index<usize> for Grows<T> {
    type Output = T;

    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.chunks[i / ROWS][i % ROWS]
    }
}

impl<T: Clone> std::ops::IndexMut<usize> for Grows<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i / ROWS][i % ROWS]
    }
}

/// A table whose length never changes once built (a job's maps, its
/// reduces, its replicas, its index's lists), shared with the run's copies
/// until the run changes it: reading it costs what reading a vector does
/// (one pointer to its rows), changing it an atomic check, and its first
/// change after a copy copies the table.
#[derive(Debug)]
pub struct Fixed<T>(Arc<[T]>);

impl<T> Clone for Fixed<T> {
    fn clone(&self) -> Fixed<T> {
        Fixed(Arc::clone(&self.0))
    }
}

impl<T> Default for Fixed<T> {
    fn default() -> Fixed<T> {
        Fixed(Arc::new([]))
    }
}

impl<T> From<Vec<T>> for Fixed<T> {
    fn from(rows: Vec<T>) -> Fixed<T> {
        Fixed(rows.into())
    }
}

impl<T> FromIterator<T> for Fixed<T> {
    fn from_iter<I: IntoIterator<Item = T>>(rows: I) -> Fixed<T> {
        Fixed(rows.into_iter().collect())
    }
}

impl<T> Fixed<T> {
    /// `bytes`, this table's size, as this holder's part of it: all of it
    /// when no copy shares it, an equal part when some do.
    pub fn part(&self, bytes: usize) -> usize {
        bytes / Arc::strong_count(&self.0)
    }
}

impl<T> std::ops::Deref for Fixed<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<T: Clone> std::ops::DerefMut for Fixed<T> {
    /// The rows to change: copied first if a copy shares them.
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        Arc::make_mut(&mut self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_shares_every_row_until_the_run_changes_one() {
        let mut run = Rows::default();
        run.push(vec![0]);
        run.push(vec![1]);
        let checkpoint = run.clone();
        assert!(
            Arc::ptr_eq(&run.rows[0], &checkpoint.rows[0]),
            "shared, not copied"
        );
        assert_eq!(run.part(0, 300), 150);
        run[1].push(7);
        assert_eq!((&run[1], &checkpoint[1]), (&vec![1, 7], &vec![1]));
        assert!(
            Arc::ptr_eq(&run.rows[0], &checkpoint.rows[0]),
            "the other still shared"
        );
        assert!(
            !Arc::ptr_eq(&run.rows[1], &checkpoint.rows[1]),
            "the changed one copied"
        );
        // Restored from the checkpoint: shared again, nothing copied.
        let restored = checkpoint.clone();
        assert!(Arc::ptr_eq(&restored.rows[1], &checkpoint.rows[1]));
        drop(checkpoint);
        drop(restored);
        assert_eq!(run.part(0, 300), 300, "no copy shares it any more");
        run[0].push(5);
        assert_eq!(run[0], vec![0, 5]);
    }

    #[test]
    fn a_fixed_table_is_shared_until_changed() {
        let mut run: Fixed<u32> = vec![1, 2, 3].into();
        let checkpoint = run.clone();
        assert!(Arc::ptr_eq(&run.0, &checkpoint.0), "shared, not copied");
        assert_eq!(run.part(300), 150);
        run[1] = 7;
        assert_eq!(
            (&run[..], &checkpoint[..]),
            (&[1, 7, 3][..], &[1, 2, 3][..])
        );
        assert_eq!(run.part(300), 300);
        drop(checkpoint);
        let before = Arc::as_ptr(&run.0);
        run[0] = 9;
        assert_eq!(
            Arc::as_ptr(&run.0),
            before,
            "changed in place when no copy shares it"
        );
    }

    #[test]
    fn a_growing_table_shares_its_chunks_and_copies_the_one_it_changes() {
        let mut t = Grows::default();
        for i in 0..(2 * ROWS + 3) {
            t.push(i);
        }
        let copy = t.clone();
        t[5] = 1_000;
        t.push(7);
        assert_eq!((t[5], copy[5]), (1_000, 5));
        assert_eq!((t.len(), copy.len()), (2 * ROWS + 4, 2 * ROWS + 3));
        assert_eq!(
            copy.iter().copied().sum::<usize>(),
            (0..2 * ROWS + 3).sum::<usize>()
        );
        assert!(
            Arc::ptr_eq(&t.chunks.rows[1], &copy.chunks.rows[1]),
            "untouched: shared"
        );
        assert!(
            !Arc::ptr_eq(&t.chunks.rows[0], &copy.chunks.rows[0]),
            "changed: copied"
        );
        assert_eq!(t.get(2 * ROWS + 4), None);
    }
}
