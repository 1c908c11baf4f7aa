//! Where a corpus keeps its ASCII texts: a few large blocks, each text in
//! one piece inside one block.
//!
//! A run's results are large and kept until the run ends. Given a heap
//! allocation each, they are scattered over fresh memory, and every 4 KiB
//! page of it is faulted in on its first write; on a run of large results
//! that costs more than reading and lower-casing the text. So texts are
//! appended to blocks that grow with the corpus: from 64 KiB, doubling with
//! what the corpus holds, and 2 MiB (or the text's size, if larger) once the
//! corpus holds 256 KiB. When an arena is dropped (its corpus cleared or
//! collected), its blocks go to a spare list of its thread, up to
//! [`SPARE_BYTES`], and the next arena on that thread takes them before
//! asking for new memory: memory already faulted in is far cheaper to fill.
//!
//! What it costs: a text that does not fit the rest of the current block
//! starts a new one, and that rest stays unused. The blocks' capacity is
//! reported by [`TextArena::heap_bytes`].
//!
//! Blocks are not advised as huge pages: on this project's machine (a VM) a
//! fresh 2 MiB huge page sometimes cost several times what its 512 small
//! pages did, and a huge page is backed in full even when a corpus uses a
//! sliver of it.

use std::alloc::{self, Layout};
use std::cell::RefCell;
use std::mem::MaybeUninit;
use std::ptr::NonNull;

/// The first block's size.
const FIRST_BLOCK: usize = 64 << 10;

/// The block size a corpus of 256 KiB and more grows by.
const BIG_BLOCK: usize = 2 << 20;

/// Where a text lies: block, offset, length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    block: usize,
    start: usize,
    len: usize,
}

impl Span {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[derive(Debug)]
struct Block {
    memory: NonNull<u8>,
    layout: Layout,
    /// Bytes at the front that hold texts; all of them are initialised.
    used: usize,
}

// SAFETY: a block owns its memory outright, as a `Vec<u8>` does.
unsafe impl Send for Block {}
unsafe impl Sync for Block {}

thread_local! {
    /// Blocks of arenas that were dropped on this thread, kept for the next
    /// corpus: memory already faulted in is far cheaper to fill than fresh
    /// memory. At most [`SPARE_BYTES`] in all.
    static SPARE: RefCell<Vec<Block>> = const { RefCell::new(Vec::new()) };
}

/// How much memory of dropped arenas a thread keeps for reuse.
pub const SPARE_BYTES: usize = 16 << 20;

impl Block {
    /// A block of at least `size` bytes: a spare one of at most twice that
    /// size if this thread has one, else a new one.
    fn new(size: usize) -> Self {
        let spare = SPARE.try_with(|spare| {
            let mut spare = spare.borrow_mut();
            let fits =
                spare.iter().position(|block| (size..=size.saturating_mul(2)).contains(&block.layout.size()));
            fits.map(|index| spare.swap_remove(index))
        });
        if let Ok(Some(block)) = spare {
            return block;
        }
        Self::allocate(size)
    }

    fn allocate(size: usize) -> Self {
        let layout =
            Layout::from_size_align(size.next_multiple_of(64), 64).expect("a block size below isize::MAX");
        // SAFETY: `size` is at least FIRST_BLOCK, never zero.
        let memory = NonNull::new(unsafe { alloc::alloc(layout) })
            .unwrap_or_else(|| alloc::handle_alloc_error(layout));
        Block { memory, layout, used: 0 }
    }

    fn room(&self) -> usize {
        self.layout.size() - self.used
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        // SAFETY: allocated in `Block::new` with this very layout.
        unsafe { alloc::dealloc(self.memory.as_ptr(), self.layout) }
    }
}

/// Append-only storage for byte texts.
#[derive(Debug, Default)]
pub struct TextArena {
    blocks: Vec<Block>,
    /// The capacity of every block so far, in bytes.
    capacity: usize,
}

impl TextArena {
    pub fn new() -> Self {
        Self::default()
    }

    /// A block with at least `room` bytes free at its end: the last one, or
    /// a new one.
    fn block_with_room(&mut self, room: usize) -> usize {
        if self.blocks.last().is_none_or(|block| block.room() < room) {
            let mut size = self.capacity.clamp(FIRST_BLOCK, BIG_BLOCK).max(room);
            if self.capacity >= BIG_BLOCK / 8 {
                size = size.max(BIG_BLOCK);
            }
            let block = Block::new(size);
            self.capacity += block.layout.size();
            self.blocks.push(block);
        }
        self.blocks.len() - 1
    }

    /// Appends a text of at most `room` bytes that `fill` writes. `fill` is
    /// handed `room` bytes and returns how many it wrote, or an error, in
    /// which case nothing is appended. Then `finish` sees the written bytes
    /// and says whether to keep them.
    ///
    /// # Safety
    ///
    /// When `fill` returns `Ok(n)`, it must have initialised the first `n`
    /// bytes it was handed, and `n` must be at most `room`.
    pub unsafe fn append_with<E>(
        &mut self,
        room: usize,
        fill: impl FnOnce(&mut [MaybeUninit<u8>]) -> Result<usize, E>,
        finish: impl FnOnce(&mut [u8]) -> bool,
    ) -> Result<Option<Span>, E> {
        let index = self.block_with_room(room);
        let block = &mut self.blocks[index];
        let start = block.used;
        // SAFETY: `start + room` is within the block, which this borrow owns.
        let spare = unsafe {
            std::slice::from_raw_parts_mut(block.memory.as_ptr().add(start).cast::<MaybeUninit<u8>>(), room)
        };
        let written = fill(spare)?;
        assert!(written <= room, "a fill that wrote past its room");
        // SAFETY: the caller's word: `fill` initialised `written` bytes here.
        let text = unsafe { std::slice::from_raw_parts_mut(block.memory.as_ptr().add(start), written) };
        if !finish(text) {
            return Ok(None);
        }
        block.used += written;
        Ok(Some(Span { block: index, start, len: written }))
    }

    /// Appends a copy of `text`, which `finish` may change in place.
    pub fn append_copy(&mut self, text: &[u8], finish: impl FnOnce(&mut [u8]) -> bool) -> Option<Span> {
        let fill = |spare: &mut [MaybeUninit<u8>]| {
            for (slot, &byte) in spare.iter_mut().zip(text) {
                slot.write(byte);
            }
            Ok::<_, std::convert::Infallible>(text.len())
        };
        // SAFETY: `fill` writes exactly the `text.len()` bytes it reports.
        match unsafe { self.append_with(text.len(), fill, finish) } {
            Ok(span) => span,
            Err(never) => match never {},
        }
    }

    /// The text at `span`.
    pub fn text(&self, span: Span) -> &[u8] {
        let block = &self.blocks[span.block];
        assert!(span.start + span.len <= block.used, "a span of this arena");
        // SAFETY: within the block's used, initialised front.
        unsafe { std::slice::from_raw_parts(block.memory.as_ptr().add(span.start), span.len) }
    }

    /// The memory the blocks hold, in bytes.
    pub fn heap_bytes(&self) -> usize {
        self.capacity
    }
}

impl Drop for TextArena {
    /// Hands the blocks to this thread's spares while they fit its bound;
    /// the rest are freed.
    fn drop(&mut self) {
        let mut blocks = std::mem::take(&mut self.blocks);
        let _ = SPARE.try_with(|spare| {
            let mut spare = spare.borrow_mut();
            let mut kept: usize = spare.iter().map(|block| block.layout.size()).sum();
            for mut block in blocks.drain(..) {
                if kept + block.layout.size() <= SPARE_BYTES {
                    kept += block.layout.size();
                    block.used = 0;
                    spare.push(block);
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_come_back_as_appended_across_blocks() {
        let mut arena = TextArena::new();
        let texts: Vec<Vec<u8>> =
            (0..200).map(|i| vec![b'a' + (i % 26) as u8; 1 + i * 977 % 150_000]).collect();
        let spans: Vec<Span> =
            texts.iter().map(|text| arena.append_copy(text, |_| true).expect("kept")).collect();
        for (text, span) in texts.iter().zip(&spans) {
            assert_eq!(arena.text(*span), &text[..]);
        }
        assert!(arena.blocks.len() > 1);
        let held: usize = texts.iter().map(Vec::len).sum();
        assert!(arena.heap_bytes() >= held);
    }

    #[test]
    fn finish_can_change_or_refuse_a_text() {
        let mut arena = TextArena::new();
        let upper = arena.append_copy(b"ABC", |text| {
            text.make_ascii_lowercase();
            true
        });
        assert!(arena.append_copy(b"refused", |_| false).is_none());
        let next = arena.append_copy(b"next", |_| true).expect("kept");
        assert_eq!(arena.text(upper.expect("kept")), b"abc");
        // A refused text leaves no trace: the next one starts where it did.
        assert_eq!(arena.text(next), b"next");
        assert_eq!(next.start, 3);
    }

    #[test]
    fn a_text_larger_than_a_big_block_gets_a_block_of_its_own() {
        let mut arena = TextArena::new();
        let small = arena.append_copy(b"small", |_| true).expect("kept");
        let big = vec![b'x'; BIG_BLOCK + 3];
        let span = arena.append_copy(&big, |_| true).expect("kept");
        assert_eq!(arena.text(span).len(), big.len());
        assert_eq!(arena.text(small), b"small");
        assert_eq!(span.block, 1);
    }

    #[test]
    fn dropped_blocks_are_reused_on_the_same_thread() {
        // A thread of its own, so that no other test's arenas share its spares.
        std::thread::spawn(|| {
            let mut arena = TextArena::new();
            let first = arena.append_copy(&vec![b'a'; BIG_BLOCK], |_| true).expect("kept");
            let memory = arena.blocks[first.block].memory;
            drop(arena);
            assert_eq!(SPARE.with(|spare| spare.borrow().len()), 1);
            let mut again = TextArena::new();
            let second = again.append_copy(&vec![b'b'; BIG_BLOCK - 1], |_| true).expect("kept");
            assert_eq!(again.blocks[second.block].memory, memory);
            assert_eq!(again.text(second), &vec![b'b'; BIG_BLOCK - 1][..]);
            assert_eq!(SPARE.with(|spare| spare.borrow().len()), 0);
            // Past the bound, blocks are freed rather than kept.
            let mut big = TextArena::new();
            for _ in 0..(SPARE_BYTES / BIG_BLOCK + 3) {
                big.append_copy(&vec![b'c'; BIG_BLOCK], |_| true).expect("kept");
            }
            drop((again, big));
            let kept: usize =
                SPARE.with(|spare| spare.borrow().iter().map(|block| block.layout.size()).sum());
            assert!((SPARE_BYTES - BIG_BLOCK..=SPARE_BYTES).contains(&kept), "{kept}");
        })
        .join()
        .expect("the test thread");
    }

    #[test]
    fn a_failed_fill_appends_nothing() {
        let mut arena = TextArena::new();
        let failed: Result<Option<Span>, &str> = unsafe { arena.append_with(10, |_| Err("no"), |_| true) };
        assert_eq!(failed, Err("no"));
        let next = arena.append_copy(b"after", |_| true).expect("kept");
        assert_eq!(next.start, 0);
    }
}
