//! The client's global allocator: size classes of powers of two with a free list each.
//!
//! Rust's default allocator on wasm32 (dlmalloc) costs about 7 KB of code; the client's workload
//! (short strings, a bounded queue, closures made once) needs none of its coalescing. A block is
//! the allocation rounded up to a power of two, at least 16 bytes; a freed block goes onto the
//! free list of its size and is reused for the next allocation of that size; new blocks are cut
//! from memory taken with `memory.grow`. Allocation and freeing are O(1). Memory is never given
//! back, so the heap is the sum of the peak use of each size: small and bounded for this client.
//! wasm32 without the atomics feature has one thread, so no locking is needed.

use core::alloc::{GlobalAlloc, Layout};
use core::cell::UnsafeCell;
use core::ptr::null_mut;

/// log2 of the smallest block (16 B: every block stays 16-aligned).
const MIN_SHIFT: u32 = 4;
/// Size classes: 16 B up to 2 GiB.
const CLASSES: usize = 28;
const PAGE: usize = 65536;

struct Heap {
    /// Head of the free list of each class; a free block holds the address of the next one.
    free: [*mut u8; CLASSES],
    /// The unused part of the memory taken so far.
    next: usize,
    end: usize,
}

pub(crate) struct Allocator(UnsafeCell<Heap>);

// SAFETY: wasm32-unknown-unknown without the atomics feature runs one thread.
unsafe impl Sync for Allocator {}

impl Allocator {
    pub(crate) const fn new() -> Allocator {
        Allocator(UnsafeCell::new(Heap {
            free: [null_mut(); CLASSES],
            next: 0,
            end: 0,
        }))
    }
}

/// The class of a layout: block size `1 << (class + MIN_SHIFT)`.
fn class_of(layout: &Layout) -> Option<usize> {
    let size = layout.size().max(layout.align()).max(1 << MIN_SHIFT);
    let class = (usize::BITS - (size - 1).leading_zeros() - MIN_SHIFT) as usize;
    (class < CLASSES).then_some(class)
}

impl Heap {
    /// A fresh block of `size` bytes aligned to `align`, cut from grown memory.
    fn cut(&mut self, size: usize, align: usize) -> *mut u8 {
        let fit = |next: usize, end: usize| {
            let at = next.checked_add(align - 1)? & !(align - 1);
            (at.checked_add(size)? <= end).then_some(at)
        };
        let at = match fit(self.next, self.end) {
            Some(at) => at,
            None => {
                let Some(pages) = size.checked_add(align).map(|n| n.div_ceil(PAGE)) else {
                    return null_mut();
                };
                let base = core::arch::wasm32::memory_grow(0, pages);
                if base == usize::MAX {
                    return null_mut();
                }
                let start = base * PAGE;
                if start != self.end {
                    // Not contiguous with what we had: the old rest is abandoned.
                    self.next = start;
                }
                self.end = start + pages * PAGE;
                match fit(self.next, self.end) {
                    Some(at) => at,
                    None => return null_mut(),
                }
            }
        };
        self.next = at + size;
        at as *mut u8
    }
}

// SAFETY: `alloc` returns null or a block of at least `layout.size()` bytes aligned to
// `layout.align()` that no other live allocation uses; `dealloc` takes back only such blocks.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let Some(class) = class_of(&layout) else {
            return null_mut();
        };
        // SAFETY: one thread, and no allocator call re-enters another.
        let heap = unsafe { &mut *self.0.get() };
        let size = 1usize << (class as u32 + MIN_SHIFT);
        let head = heap.free[class];
        // A reused block is only 16-aligned; larger alignments always get a fresh block.
        if !head.is_null() && layout.align() <= 1 << MIN_SHIFT {
            // SAFETY: a free block's first word holds the next free block of its class.
            heap.free[class] = unsafe { *(head as *mut *mut u8) };
            return head;
        }
        heap.cut(size, layout.align().max(1 << MIN_SHIFT))
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let Some(class) = class_of(&layout) else {
            return;
        };
        // SAFETY: one thread, and no allocator call re-enters another.
        let heap = unsafe { &mut *self.0.get() };
        // SAFETY: `ptr` is a block of this class (at least 16 bytes, 16-aligned) that the caller
        // gives up: its first word may hold the next free block.
        unsafe { *(ptr as *mut *mut u8) = heap.free[class] };
        heap.free[class] = ptr;
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees new_size, rounded to align, fits isize.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        if class_of(&layout).is_some() && class_of(&layout) == class_of(&new_layout) {
            return ptr;
        }
        // SAFETY: as in GlobalAlloc::realloc's default.
        unsafe {
            let new = self.alloc(new_layout);
            if !new.is_null() {
                core::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
            new
        }
    }
}
