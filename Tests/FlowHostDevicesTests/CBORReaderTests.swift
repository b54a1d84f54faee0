@testable import FlowHostDevices
import Testing

/// The CBOR reader takes the definite-length CBOR authenticators send and
/// refuses everything else, within its bounds (RFC 8949 appendix A's
/// examples where they apply).
@Suite struct CBORReaderTests {
    func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    @Test func readsWhatWebAuthnUses() throws {
        #expect(try CBORReader.decode(hex("00")) == .unsigned(0))
        #expect(try CBORReader.decode(hex("1819")) == .unsigned(25))
        #expect(try CBORReader.decode(hex("1b000000e8d4a51000")) == .unsigned(1_000_000_000_000))
        #expect(try CBORReader.decode(hex("20")) == .negative(0))
        #expect(try CBORReader.decode(hex("26")).intValue == -7)
        #expect(try CBORReader.decode(hex("3bffffffffffffffff")) == .negative(UInt64.max))
        #expect(try CBORReader.decode(hex("4401020304")) == .bytes([1, 2, 3, 4]))
        #expect(try CBORReader.decode(hex("62c3bc")) == .text("ü"))
        #expect(try CBORReader.decode(hex("83010203")) == .array([.unsigned(1), .unsigned(2), .unsigned(3)]))
        #expect(try CBORReader.decode(hex("f4")) == .bool(false))
        #expect(try CBORReader.decode(hex("f6")) == .null)
        let map = try CBORReader.decode(hex("a26161016162820203"))
        #expect(map[text: "a"] == .unsigned(1) && map[text: "b"] == .array([.unsigned(2), .unsigned(3)]))
    }

    @Test(arguments: [
        ("5f42010243030405ff", "an indefinite byte string"),
        ("9f018202039f0405ffff", "an indefinite array"),
        ("bf61610161629f0203ffff", "an indefinite map"),
        ("c11a514b67b0", "a tag"),
        ("f93c00", "a half float"),
        ("fb3ff199999999999a", "a double"),
        ("f7", "undefined"),
        ("f0", "a simple value"),
        ("1817", "an argument longer than it needs to be"),
        ("190017", "a two-byte argument for a small number"),
        ("1c", "reserved additional information"),
        ("a2616101616102", "a map key given twice"),
        ("62c328", "text that is not UTF-8"),
        ("45010203", "a byte string past the end"),
        ("83010203" + "00", "bytes after the item"),
        ("8301", "an array cut short"),
        ("", "nothing"),
        ("9b0000000100000000", "an array too long to hold"),
    ])
    func refuses(_ input: String, _ what: String) {
        #expect(throws: CBORError.self, "\(what)") { try CBORReader.decode(hex(input)) }
    }

    @Test func boundsDepthAndItems() throws {
        let deep = [UInt8](repeating: 0x81, count: CBORReader.maxDepth) + [0x00]
        #expect(try CBORReader.decode(deep) != .null)
        #expect(throws: CBORError.self) { try CBORReader.decode([0x81] + deep) }
        // An array that announces more items than the bound is refused before anything is read.
        #expect(throws: CBORError.self) { try CBORReader.decode([0x99, 0x02, 0x01] + [UInt8](repeating: 0, count: 513)) }
        // Many small arrays, each within the bound, still count toward the total.
        let many: [UInt8] = [0x98, 0xff] + (0..<255).flatMap { _ in [0x82, 0x00, 0x00] as [UInt8] }
        #expect(throws: CBORError.self) { try CBORReader.decode(many) }
    }

    @Test func readsOneItemOfASlice() throws {
        var reader = CBORReader(hex("ff0102"), offset: 1)
        #expect(try reader.read() == .unsigned(1))
        #expect(reader.offset == 2)
    }
}
