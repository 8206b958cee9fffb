//! The flows' ends: an indexed min-heap on (end ms, exact end, flow id), so that a
//! rate change moves one entry instead of leaving a stale one behind.

use super::*;

impl Network {
    /// By the engine's millisecond, then the exact end within it.
    pub(super) fn key(&self, f: FlowId) -> (Ms, u64, FlowId) {
        let c = &self.cold[f as usize];
        (c.end, c.end_x.max(0.0).to_bits(), f)
    }

    pub(super) fn heap_push(&mut self, f: FlowId) {
        self.cold[f as usize].heap_pos = self.heap.len() as u32;
        self.heap.push(f);
        self.sift_up(self.heap.len() - 1);
    }

    pub(super) fn heap_remove(&mut self, f: FlowId) {
        let i = self.cold[f as usize].heap_pos as usize;
        let last = self.heap.len() - 1;
        self.heap.swap(i, last);
        self.cold[self.heap[i] as usize].heap_pos = i as u32;
        self.heap.pop();
        self.cold[f as usize].heap_pos = u32::MAX;
        if i < self.heap.len() {
            self.sift_up(i);
            self.sift_down(i);
        }
    }

    pub(super) fn heap_fix(&mut self, f: FlowId) {
        let i = self.cold[f as usize].heap_pos as usize;
        self.sift_up(i);
        let i = self.cold[f as usize].heap_pos as usize;
        self.sift_down(i);
    }

    pub(super) fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let p = (i - 1) / 2;
            if self.key(self.heap[i]) < self.key(self.heap[p]) {
                self.heap.swap(i, p);
                self.cold[self.heap[i] as usize].heap_pos = i as u32;
                self.cold[self.heap[p] as usize].heap_pos = p as u32;
                i = p;
            } else {
                break;
            }
        }
    }

    pub(super) fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if l < n && self.key(self.heap[l]) < self.key(self.heap[m]) {
                m = l;
            }
            if r < n && self.key(self.heap[r]) < self.key(self.heap[m]) {
                m = r;
            }
            if m == i {
                break;
            }
            self.heap.swap(i, m);
            self.cold[self.heap[i] as usize].heap_pos = i as u32;
            self.cold[self.heap[m] as usize].heap_pos = m as u32;
            i = m;
        }
    }
}
