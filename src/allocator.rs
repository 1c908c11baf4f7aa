//! The addon's allocator: mimalloc for small blocks, the system's for large
//! ones (see the `mimalloc` feature in `Cargo.toml`).
//!
//! A call makes many small, short-lived allocations (names, keys, needles,
//! paths), where mimalloc is about twice as fast as glibc's malloc. Large
//! blocks (texts, buffers of a 64 KB chunk, a corpus's blocks) stay with
//! the system allocator: mimalloc gives freed large blocks back to the
//! kernel soon after, and the next one is faulted in afresh, which made the
//! 64 KB filter row twice as slow half the time.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks up to this size go to mimalloc.
const SMALL: usize = 8 << 10;

struct SmallFirst;

#[global_allocator]
static ALLOCATOR: SmallFirst = SmallFirst;

fn is_small(layout: Layout) -> bool {
    layout.size() <= SMALL
}

// SAFETY: every block is freed or resized by the allocator that made it:
// the choice depends only on the layout's size, which the caller passes
// unchanged to `dealloc` and `realloc`, and a resize across the threshold
// moves the block from one allocator to the other.
unsafe impl GlobalAlloc for SmallFirst {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            if is_small(layout) {
                mimalloc::MiMalloc.alloc(layout)
            } else {
                System.alloc(layout)
            }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            if is_small(layout) {
                mimalloc::MiMalloc.alloc_zeroed(layout)
            } else {
                System.alloc_zeroed(layout)
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was made by the allocator this layout chooses.
        unsafe {
            if is_small(layout) {
                mimalloc::MiMalloc.dealloc(ptr, layout)
            } else {
                System.dealloc(ptr, layout)
            }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract; a block that changes sides is
        // copied to a new one and the old one freed by its own allocator.
        unsafe {
            let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
            match (is_small(layout), is_small(new_layout)) {
                (true, true) => mimalloc::MiMalloc.realloc(ptr, layout, new_size),
                (false, false) => System.realloc(ptr, layout, new_size),
                _ => {
                    let moved = self.alloc(new_layout);
                    if !moved.is_null() {
                        std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                    moved
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn blocks_that_grow_and_shrink_across_the_threshold_keep_their_bytes() {
        let pattern = |i: usize| (i % 251) as u8;
        let mut bytes: Vec<u8> = (0..100).map(pattern).collect();
        for round in 0..4 {
            // Grow past the threshold a push at a time, then back under it.
            while bytes.len() < 40_000 + round {
                bytes.push(pattern(bytes.len()));
            }
            assert!(bytes.iter().enumerate().all(|(i, &b)| b == pattern(i)), "grown, round {round}");
            bytes.truncate(100 + round);
            bytes.shrink_to_fit();
            assert!(bytes.iter().enumerate().all(|(i, &b)| b == pattern(i)), "shrunk, round {round}");
        }
    }
}
