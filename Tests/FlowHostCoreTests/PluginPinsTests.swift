@testable import FlowHostCore
import FlowHostPOSIX
import FlowJSON
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The operator's pins: typos are refused, a flag's pin is checked like the
/// config's, and a mismatch names both hashes.
@Suite struct PluginPinsTests {
    let good = String(repeating: "ab", count: 32)

    @Test func aPinMismatchNamesBothHashesAndPinnedOnlyRefusesTheRest() throws {
        var pins = PluginPins()
        try pins.pin(argument: "libA.so=\(good.uppercased())")
        #expect(pins.problem(file: "libA.so", sha256: good) == nil, "hex is read in either case")
        let other = String(repeating: "cd", count: 32)
        #expect(pins.problem(file: "libA.so", sha256: other) == "its SHA-256 is \(other), but it is pinned to \(good)")
        #expect(pins.problem(file: "libB.so", sha256: other) == nil)
        pins.pinnedOnly = true
        #expect(pins.problem(file: "libB.so", sha256: other)?.contains("not pinned") == true)
    }

    @Test func aBadPinOrSectionIsRefusedWithItsReason() {
        var pins = PluginPins()
        #expect(throws: PluginPins.Invalid.self) { try pins.pin(argument: "libA.so") }
        #expect(throws: PluginPins.Invalid.self) { try pins.pin(argument: "libA.so=1234") }
        #expect(throws: PluginPins.Invalid.self) { try pins.pin(argument: "/lib/libA.so=\(good)") }
        #expect(throws: PluginPins.Invalid.self) { try PluginPins.parse(["pins": ["libA.so": 5]]) }
        #expect(throws: PluginPins.Invalid.self) { try PluginPins.parse(["pinnedOnly": "yes"]) }
        do {
            _ = try PluginPins.parse(["pinedOnly": true])
            Issue.record("an unknown key was taken")
        } catch {
            #expect(error.description == #"pinedOnly: unknown key; did you mean "pinnedOnly"?"#)
        }
    }

    @Test func theDigestIsSHA256() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/digested"
        try SystemFile.create(path, bytes: Array("abc".utf8), mode: 0o600)
        #expect(try PluginDigest.sha256(ofFile: path).get() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
