import FlowHostVocabulary
import Testing

/// Time-ordered ids sort by the second they were made; the rest is random.
@Suite struct TimeOrderedIDTests {
    @Test func idsSortBySecondAndStayRandom() {
        let seconds: [Int64] = [1_800_000_000, 1_800_000_000, 1_800_000_000, 1_800_000_001, 1_800_000_060, 1_800_003_600]
        let ids = seconds.map { TimeOrderedID.make(at: $0) }
        let hex = Set("0123456789abcdef")
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(hex.contains) })
        #expect(Set(ids.map { $0.dropFirst(10) }).count == ids.count, "88 random bits each")
        #expect(Set(ids[0...2].map { $0.prefix(10) }).count == 1, "one second, one prefix")
        #expect(Array(ids[2...]) == ids[2...].sorted(), "later seconds sort later")
        #expect(ids[0].hasPrefix("006b49d200"))
        #expect(TimeOrderedID.make(at: 0).hasPrefix("0000000000") && TimeOrderedID.make(at: -5).hasPrefix("0000000000"))
        #expect(TimeOrderedID.make(at: 0xFF_FFFF_FFFF).hasPrefix("ffffffffff"))
    }
}
