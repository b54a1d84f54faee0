import FlowJSON
import Testing

@testable import FlowHostCore

/// The config's `store` section: `feed` only, a URL for the change feed's LISTEN.
@Suite struct StoreSectionTests {
    func parse(_ text: String) throws -> String? {
        try HostConfiguration.parse(try JSON.parse(text)).feedStore
    }

    @Test func feedIsReadAndAbsentByDefault() throws {
        #expect(try parse("{}") == nil)
        #expect(try parse(#"{"store": {"feed": "postgresql:///db?host=/run/pg"}}"#) == "postgresql:///db?host=/run/pg")
    }

    @Test(arguments: [
        (#"{"store": "postgresql:///db"}"#, "store: must be an object"),
        (#"{"store": {"fed": "postgresql:///db"}}"#, "store.fed: unknown key"),
        (#"{"store": {"feed": ""}}"#, "store.feed: must be a non-empty string"),
        (#"{"store": {"feed": 5}}"#, "store.feed: must be a non-empty string"),
    ])
    func aSlipIsNamed(_ text: String, _ message: String) {
        #expect { try parse(text) } throws: { ($0 as? HostConfiguration.Invalid)?.description == "invalid config: \(message)" }
    }
}
