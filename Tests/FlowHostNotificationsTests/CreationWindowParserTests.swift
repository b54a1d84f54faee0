import FlowHostNotifications
import FlowHostStore
import Testing

@Suite struct CreationWindowParserTests {
    @Test func daysAndInstantsAreUTCAndInclusive() throws {
        // 2026-11-22T00:00:00Z is 1 795 305 600 (checked with `date -u -d`).
        let day = try CreationWindowParser.window(startDate: "2026-11-22", endDate: "2026-11-22")
        #expect(day == CreationWindow(from: 1_795_305_600, until: 1_795_305_600 + 86_400))
        let instant = try CreationWindowParser.window(startDate: "2026-11-22T10:15:00Z", endDate: "2026-11-22T10:15:00UTC")
        #expect(instant == CreationWindow(from: 1_795_342_500, until: 1_795_342_501))
        #expect(try CreationWindowParser.window(startDate: "", endDate: nil) == .all)
        #expect(try CreationWindowParser.window(startDate: "2024-02-29", endDate: "").from == 1_709_164_800, "a leap day")
        #expect(try CreationWindowParser.window(startDate: "1969-12-31", endDate: "").from == -86_400)
    }

    @Test func anythingElseIsRefused() {
        for text in ["2026-11-22 10:15:00", "2026-13-01", "2025-02-29", "2026-11-22T10:15:00+01:00", "2026-11-2", "２０２６-11-22", "2026-11-22T10:60:00Z"] {
            #expect(throws: NotificationError.self, "\(text)") { try CreationWindowParser.window(startDate: text, endDate: nil) }
        }
        #expect(throws: NotificationError.self) { try CreationWindowParser.window(startDate: "2026-11-23", endDate: "2026-11-22") }
    }
}
