//! A process's memory: a global allocator that counts the bytes live on the heap and their highest
//! mark, and the resident set ([`rss_kib`]). The live heap is exact where the resident set also
//! holds what the allocator keeps after a free, so the flood test asserts on it and the soak and
//! flood benchmarks report it beside RSS.
//!
//! ```ignore
//! use browser_agent_testkit::heap::CountingAlloc;
//!
//! #[global_allocator]
//! static HEAP: CountingAlloc = CountingAlloc::new();
//!
//! let before = HEAP.reset_peak();
//! // … the work …
//! println!("peak +{} B, live +{} B", HEAP.peak() - before, HEAP.live() - before);
//! ```
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator with two counters: bytes live, and the most live since the last
/// [`CountingAlloc::reset_peak`].
#[derive(Debug)]
pub struct CountingAlloc {
    live: AtomicUsize,
    peak: AtomicUsize,
}

impl CountingAlloc {
    /// Counters at zero (for a `static`).
    pub const fn new() -> CountingAlloc {
        CountingAlloc {
            live: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    /// Bytes live on the heap now.
    pub fn live(&self) -> usize {
        self.live.load(Ordering::Relaxed)
    }

    /// The most bytes live at once since the last [`CountingAlloc::reset_peak`].
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// Starts a new highest mark at what is live now, and returns that.
    pub fn reset_peak(&self) -> usize {
        let now = self.live();
        self.peak.store(now, Ordering::Relaxed);
        now
    }

    fn grew(&self, size: usize) {
        let now = self.live.fetch_add(size, Ordering::Relaxed) + size;
        self.peak.fetch_max(now, Ordering::Relaxed);
    }
}

impl Default for CountingAlloc {
    fn default() -> CountingAlloc {
        CountingAlloc::new()
    }
}

// SAFETY: every call is forwarded to `System` with the same arguments; only counters are added.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            self.grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            self.grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        self.live.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            self.live.fetch_sub(layout.size(), Ordering::Relaxed);
            self.grew(new_size);
        }
        p
    }
}

/// Resident memory of this process now (`VmRSS`), in KiB; 0 where `/proc` has no answer.
pub fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}
