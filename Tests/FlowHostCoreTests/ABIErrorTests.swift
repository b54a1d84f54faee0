import CFlowHostABI
@testable import FlowHostCore
import FlowHostVocabulary
import FlowJSON
import Testing

/// Who said an error survives the plugin boundary: a client's answer keeps
/// its code and data whatever the sign, and nothing else can pass for one.
@Suite struct ABIErrorTests {
    /// Fills a struct as the host does for a plugin, then reads it back as the host reads a plugin's.
    func roundTrip(_ error: FlowHostError) -> (FlowHostError, Int32) {
        var raw = flowhost_error_v1()
        error.fill(&raw)
        let shortCode = raw.short_code
        return (FlowHostError(abi: &raw), shortCode)
    }

    @Test func aClientsPositiveCodeKeepsItsDataAndIsNoRefusal() {
        let answer = FlowHostError(.sdk(1), message: "dismissed", data: ["reason": "cancelled"], answeredByClient: true)
        let (read, shortCode) = roundTrip(answer)
        #expect(shortCode == FLOWHOST_SHORT_CODE_CLIENT_ANSWER)
        #expect(read.answeredByClient && read.code.rawValue == 1)
        #expect(read.data?["reason"]?.stringValue == "cancelled")
    }

    @Test func aClientsCancellationCodeIsNotTheHosts() {
        let (read, _) = roundTrip(FlowHostError(.requestCancelled, message: "no", answeredByClient: true))
        #expect(read.code == .requestCancelled && !read.isCancellation)
        let (host, _) = roundTrip(FlowHostError.requestCancelled)
        #expect(host.isCancellation)
    }

    @Test func aRefusalCannotPassForAClientsAnswer() {
        // A short code equal to the marker (from data a service or flow chose) is replaced.
        let refusal = FlowHostError.sdk(141, shortCode: Int(FLOWHOST_SHORT_CODE_CLIENT_ANSWER), "blocked")
        let (read, shortCode) = roundTrip(refusal)
        #expect(shortCode != FLOWHOST_SHORT_CODE_CLIENT_ANSWER)
        #expect(!read.answeredByClient && read.code == .sdk(141))
        #expect(read.data?["longErrorCode"]?.intValue == 141)
    }
}
