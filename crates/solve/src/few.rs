//! `Few`: at most eight small values kept inline, for the lists the frontier makes by the
//! thousand (a cell's numbers, a variable's cells) where a heap allocation each would cost
//! more than the work.

use std::cmp::Ordering;
use std::ops::Deref;

/// Up to eight values inline; a ninth is ignored (no list the solver makes has one: a cell
/// has eight neighbours).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Few<T> {
    items: [T; 8],
    len: u8,
}

impl<T: Copy + Default> Few<T> {
    pub(crate) fn new() -> Few<T> {
        Few {
            items: [T::default(); 8],
            len: 0,
        }
    }

    pub(crate) fn push(&mut self, item: T) {
        if let Some(slot) = self.items.get_mut(usize::from(self.len)) {
            *slot = item;
            self.len += 1;
        }
    }
}

impl<T: Copy + Default> FromIterator<T> for Few<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Few<T> {
        let mut few = Few::new();
        for item in iter {
            few.push(item);
        }
        few
    }
}

impl<T> Deref for Few<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.items.get(..usize::from(self.len)).unwrap_or(&[])
    }
}

impl<T: PartialEq> PartialEq for Few<T> {
    fn eq(&self, other: &Few<T>) -> bool {
        **self == **other
    }
}

impl<T: Eq> Eq for Few<T> {}

impl<T: Ord> PartialOrd for Few<T> {
    fn partial_cmp(&self, other: &Few<T>) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T: Ord> Ord for Few<T> {
    fn cmp(&self, other: &Few<T>) -> Ordering {
        (**self).cmp(&**other)
    }
}

impl<'a, T> IntoIterator for &'a Few<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
