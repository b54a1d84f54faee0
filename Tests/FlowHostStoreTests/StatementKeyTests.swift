@testable import FlowHostStore
import Testing

/// The statement cache's key hashes samples of the text but compares all of it.
@Suite struct StatementKeyTests {
    @Test func textsThatDifferOnlyBetweenTheSamplesAreDifferentKeys() {
        // Same length, same first, middle and last 8 bytes: the same hash, and still two keys.
        let one = "SELECT id, a FROM t WHERE x = ? AND y = ? ORDER BY id DESC LIMIT 1"
        let two = "SELECT id, b FROM t WHERE x = ? AND y = ? ORDER BY id DESC LIMIT 1"
        #expect(one.utf8.count == two.utf8.count)
        #expect(StatementKey(one).hashValue == StatementKey(two).hashValue)
        var cache: [StatementKey: Int] = [:]
        cache[StatementKey(one)] = 1
        cache[StatementKey(two)] = 2
        #expect(cache.count == 2)
        #expect(cache[StatementKey(one)] == 1 && cache[StatementKey(two)] == 2)
    }

    @Test func equalTextsAreOneKeyHoweverTheyWereMade() {
        let literal = "UPDATE session SET ended_at = ? WHERE session_id = ?"
        let built = ["UPDATE session SET ended_at = ?", "WHERE session_id = ?"].joined(separator: " ")
        #expect(StatementKey(literal) == StatementKey(built))
        #expect(StatementKey(literal).hashValue == StatementKey(built).hashValue)
        #expect(StatementKey("BEGIN") == StatementKey("BEGIN"))
        #expect(StatementKey("BEGIN") != StatementKey("COMMIT"))
    }
}
