@testable import FlowHostCore
import Testing

/// Who may publish on and subscribe to a change-feed topic (issue 21.1).
@Suite struct FeedTopicTests {
    @Test func aFlowOwnsTheNamespaceOfItsName() {
        #expect(FeedTopic.refusal(flow: "echo", reads: [], topic: "echo.chat", publishing: true) == nil)
        #expect(FeedTopic.refusal(flow: "echo", reads: [], topic: "echo.chat", publishing: false) == nil)
        #expect(FeedTopic.refusal(flow: "echo", reads: [], topic: "echoes.chat", publishing: true) != nil, "a prefix is not the namespace")
        #expect(FeedTopic.refusal(flow: "echo", reads: [], topic: "mfa.state", publishing: false)?.contains("is not among them") == true)
        #expect(FeedTopic.refusal(flow: "echo", reads: [], topic: "mfa.state", publishing: true)?.contains("belongs to flow mfa") == true)
    }

    @Test func hostTopicsAreReadOnlyAndOnlyWhenListed() {
        let reads: Set = ["notifications.updated"]
        #expect(FeedTopic.refusal(flow: "da", reads: reads, topic: "notifications.updated", publishing: false) == nil)
        #expect(FeedTopic.refusal(flow: "da", reads: reads, topic: "notifications.created", publishing: false) != nil)
        #expect(FeedTopic.refusal(flow: "da", reads: reads, topic: "notifications.updated", publishing: true)?.contains("belongs to the host") == true)
        #expect(FeedTopic.refusal(flow: "da", reads: reads, topic: "sessions.ended", publishing: true) != nil)
        #expect(FeedTopic.isHostTopic("challenge.expired") && FeedTopic.isHostTopic("session") && !FeedTopic.isHostTopic("echo.x"))
    }

    @Test func aNamespaceIsWhatComesBeforeTheFirstDot() {
        #expect(FeedTopic.namespace(of: "echo.a.b") == "echo")
        #expect(FeedTopic.namespace(of: "echo") == "echo")
        #expect(FeedTopic.namespace(of: ".echo") == "")
        #expect(FeedTopic.namespace(of: "") == "")
        #expect(FeedTopic.namespace(of: "é.x") == "é", "a letter of two bytes before the dot")
        #expect(!FeedTopic.isHostTopic("sessionsx.ended") && FeedTopic.isHostTopic("sessions.ended.x"))
    }

    @Test func aManifestMayListOnlyReadableHostTopics() throws {
        let manifest = try PluginManifest.parse(#"{"reads":["sessions.ended","notifications.created"]}"#)
        #expect(manifest.reads == ["sessions.ended", "notifications.created"])
        for bad in [#"{"reads":["echo.secrets"]}"#, #"{"reads":["challenge.expired"]}"#, #"{"reads":[1]}"#, #"{"reads":"sessions.ended"}"#] {
            #expect(throws: PluginManifest.Invalid.self, "\(bad)") { try PluginManifest.parse(bad) }
        }
    }
}
