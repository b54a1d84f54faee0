import FlowHostSDK
import Foundation
import Testing

/// What the code declares and what the published contract says must agree
/// (issue 21.16): the contract's `platform/authenticateLDA` reasons are the
/// SDK's `LDAReason` values, no more and no fewer.
@Suite struct ContractVocabularyTests {
    static let schemas = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Protocol/schemas")

    @Test func theLDAReasonsAreTheContractsEnum() throws {
        let data = try Data(contentsOf: Self.schemas.appendingPathComponent("platform.authenticateLDA.params.schema.json"))
        let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let properties = try #require(schema["properties"] as? [String: Any])
        let reason = try #require(properties["reason"] as? [String: Any])
        let listed = try #require(reason["enum"] as? [String])
        #expect(Set(listed) == Set(FlowHost.LDAReason.allCases.map(\.rawValue)))
    }
}
