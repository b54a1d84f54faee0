import Foundation
import Testing

@testable import flowhost_inspector

/// The config the page's hosts get: the operator's, with the page as the
/// WebAuthn relying party.
@Suite struct HostConfigTests {
    @Test func theConfigOptionIsFoundInEitherFormAndTheOthersKept() {
        #expect(HostConfig.withoutConfig(["--store", "s", "--config", "c.json", "--strict"]) == ("c.json", ["--store", "s", "--strict"]))
        #expect(HostConfig.withoutConfig(["serve", "--config=c.json"]) == ("c.json", ["serve"]))
        #expect(HostConfig.withoutConfig(["--store", "s"]) == (nil, ["--store", "s"]))
    }

    @Test func thePageIsTheRelyingPartyAndTheOperatorsSettingsStay() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("host-config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let operatorConfig = folder + "/config.json", written = folder + "/host-config.json"
        try Data(#"{"passwords":{"maxAttempts":3,"argon2":{"memoryKiB":1024}},"webauthn":{"rpID":"login.example.com","origins":["https://login.example.com"],"allowSynced":true}}"#.utf8)
            .write(to: URL(fileURLWithPath: operatorConfig))

        let options = HostConfig.write(serveOptions: ["--store", "s", "--config", operatorConfig], port: 8123, to: written)
        #expect(options == ["--store", "s", "--config", written])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: written))) as? [String: Any])
        let webauthn = try #require(root["webauthn"] as? [String: Any])
        #expect(webauthn["rpID"] as? String == "localhost")
        #expect(webauthn["origins"] as? [String] == ["http://localhost:8123"], "the page's origin, and no other")
        #expect(webauthn["allowSynced"] as? Bool == true)
        let passwords = try #require(root["passwords"] as? [String: Any])
        #expect(passwords["maxAttempts"] as? Int == 3 && (passwords["argon2"] as? [String: Any])?["memoryKiB"] as? Int == 1024)
        let mode = try #require(FileManager.default.attributesOfItem(atPath: written)[.posixPermissions] as? Int)
        #expect(mode == 0o600)

        // No operator config: the section alone; allowSynced at the host's default.
        #expect(HostConfig.write(serveOptions: ["--store", "s"], port: 1, to: written) == ["--store", "s", "--config", written])
        let alone = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: written))) as? [String: Any])
        #expect(Set(alone.keys) == ["webauthn"] && (alone["webauthn"] as? [String: Any])?["allowSynced"] == nil)
    }

    @Test func anOperatorConfigThatIsNotAnObjectIsLeftToTheHostToReport() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("host-config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("[1]".utf8).write(to: URL(fileURLWithPath: folder + "/config.json"))
        #expect(HostConfig.write(serveOptions: ["--config", folder + "/config.json"], port: 1, to: folder + "/out.json") == nil)
        #expect(HostConfig.write(serveOptions: ["--config", folder + "/missing.json"], port: 1, to: folder + "/out.json") == nil)
    }
}
