@testable import FlowHostCore
import TestSupport
import Testing

@Suite struct DeadlineQueueTests {
    @Test func popsInDeadlineOrderThenInsertionOrder() {
        var generator = SplitMix64(state: 7)
        var queue = DeadlineQueue<Int>()
        var expected: [(deadline: UInt64, key: Int)] = []
        for key in 0..<2000 {
            let deadline = UInt64.random(in: 0..<200, using: &generator)
            queue.insert(key, at: deadline)
            expected.append((deadline, key))
        }
        // Equal deadlines keep the order they were added in (keys ascend).
        expected.sort { ($0.deadline, $0.key) < ($1.deadline, $1.key) }
        var popped: [(deadline: UInt64, key: Int)] = []
        while let entry = queue.popDue(now: .max) { popped.append(entry) }
        #expect(popped.map(\.deadline) == expected.map(\.deadline))
        #expect(popped.map(\.key) == expected.map(\.key))
        #expect(queue.isEmpty && queue.earliest == nil)
    }

    @Test func nothingIsDueBeforeItsTime() {
        var queue = DeadlineQueue<String>()
        queue.insert("b", at: 20)
        queue.insert("a", at: 10)
        #expect(queue.popDue(now: 9) == nil)
        #expect(queue.earliest == 10)
        #expect(queue.popDue(now: 15)?.key == "a")
        #expect(queue.popDue(now: 15) == nil)
        #expect(queue.popDue(now: 20)?.key == "b")
    }

    @Test func staleEntriesAreDroppedFromTheTop() {
        var queue = DeadlineQueue<String>()
        queue.insert("answered", at: 5)
        queue.insert("waiting", at: 9)
        queue.dropStale { key, _ in key == "answered" }
        #expect(queue.earliest == 9 && queue.count == 1)
    }
}
