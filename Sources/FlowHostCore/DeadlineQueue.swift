/// Deadlines in a binary min-heap: the earliest is read in O(1), added and
/// removed in O(log n), so a loop pass never scans every pending deadline.
///
/// Entries are removed lazily: the owner of a key that no longer waits
/// (answered, cancelled) leaves its entry, and `popDue` skips entries whose
/// key the caller says is stale. Touched only on the loop thread.
struct DeadlineQueue<Key> {
    private var heap: [(deadline: UInt64, sequence: UInt64, key: Key)] = []
    private var nextSequence: UInt64 = 0

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }
    var earliest: UInt64? { heap.first?.deadline }

    mutating func insert(_ key: Key, at deadline: UInt64) {
        heap.append((deadline, nextSequence, key))
        nextSequence &+= 1
        siftUp(heap.count - 1)
    }

    /// Removes and returns the earliest entry if it is due at `now`.
    mutating func popDue(now: UInt64) -> (deadline: UInt64, key: Key)? {
        guard let first = heap.first, first.deadline <= now else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return (first.deadline, first.key)
    }

    /// Drops stale entries from the top, so `earliest` is a live deadline.
    mutating func dropStale(_ isStale: (Key, UInt64) -> Bool) {
        while let first = heap.first, isStale(first.key, first.deadline) {
            _ = popDue(now: .max)
        }
    }

    private func precedes(_ a: Int, _ b: Int) -> Bool {
        (heap[a].deadline, heap[a].sequence) < (heap[b].deadline, heap[b].sequence)
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(child, parent) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, precedes(left, smallest) { smallest = left }
            if right < heap.count, precedes(right, smallest) { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
