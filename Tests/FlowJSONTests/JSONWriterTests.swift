import CFlowJSON
import CJansson
import FlowJSON
import Testing
import TestSupport

/// FlowHost's JSON writer against jansson's, value for value: the same
/// bytes for everything it writes, and what it declines written by jansson.
@Suite struct JSONWriterTests {
    static func expectSame(_ value: JSON, _ location: SourceLocation = #_sourceLocation) {
        #expect(value.serialized() == value.serializedByJansson(), sourceLocation: location)
    }

    /// What FlowHost's writer alone makes of `value`, or nil when it declines.
    static func ours(_ value: JSON) -> String? {
        value.withUnsafeRaw { raw in
            let length = flowhost_json_dumpb(raw, nil, 0)
            guard length != FLOWHOST_JSON_DUMP_DECLINED else { return nil }
            var bytes = [CChar](repeating: 0, count: length)
            #expect(flowhost_json_dumpb(raw, &bytes, length) == length)
            return String(decoding: bytes.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    @Test func everyKindOfValue() throws {
        let texts = [
            "null", "true", "false", "0", "-1", "9223372036854775807", "-9223372036854775808", #""""#, #""plain""#, "[]", "{}",
            #"{"a":1,"b":[true,false,null,{"c":{}}],"":"empty key"}"#, #"[[[[["deep"]]]]]"#,
            #""\"quote\" \\back\\ /slash/ \u007f del""#, #""é 中 😀 \u00e9""#,
        ]
        for text in texts {
            let value = try JSON.parse(text)
            #expect(Self.ours(value) != nil, "\(text)")
            Self.expectSame(value)
        }
    }

    @Test func everyControlCharacterInValuesAndKeys() throws {
        for code in 0..<0x20 {
            let character = String(UnicodeScalar(UInt8(code)))
            let value = JSON.object()
            value["key" + character] = .string("a" + character + "b")
            #expect(Self.ours(value) != nil)
            Self.expectSame(value)
        }
    }

    /// Bytes that are not UTF-8 (only a string made without jansson's check
    /// can hold them): declined, and jansson refuses them too.
    @Test func aStringThatIsNotUTF8IsLeftToJansson() {
        for bad: [UInt8] in [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF5, 0x80, 0x80, 0x80], [0x80], [0xE4, 0xB8]] {
            let text = bad.map { CChar(bitPattern: $0) }
            let value = JSON(taking: json_stringn_nocheck(text, text.count)!)
            #expect(Self.ours(value) == nil, "\(bad)")
            Self.expectSame(value)
        }
    }

    /// Keys in insertion order, whatever their hash.
    @Test func keysInTheOrderTheyWereSet() {
        let value = JSON.object()
        for index in (0..<200).reversed() { value["k\(index * 7919 % 1000)"] = .int(index) }
        Self.expectSame(value)
    }

    /// A real's digits are jansson's: declined, and written by jansson.
    @Test func realsAndDeepNestingAreLeftToJansson() throws {
        for text in ["1.5", "[0.1,2]", #"{"a":{"b":-1e+300}}"#] {
            let value = try JSON.parse(text)
            #expect(Self.ours(value) == nil, "\(text)")
            Self.expectSame(value)
        }
        func nested(_ depth: Int) -> JSON {
            var value = JSON.int(1)
            for _ in 0..<depth {
                let array = JSON.array()
                array.append(value)
                value = array
            }
            return value
        }
        #expect(Self.ours(nested(2048)) != nil)
        #expect(Self.ours(nested(2049)) == nil)
        Self.expectSame(nested(2049))
    }

    /// A short buffer gets the text's start and the whole length back; a
    /// text longer than the writer's stack buffer is written whole.
    @Test func aShortBufferAndALongText() throws {
        let value = try JSON.parse(#"{"name":"é and more","list":[1,2,3]}"#)
        let whole = try #require(Self.ours(value))
        var small = [CChar](repeating: 0x2A, count: 9)
        let length = value.withUnsafeRaw { flowhost_json_dumpb($0, &small, 5) }
        #expect(length == whole.utf8.count)
        #expect(small.prefix(5).map { UInt8(bitPattern: $0) } == Array(whole.utf8.prefix(5)) && small[5...].allSatisfy { $0 == 0x2A })
        let long = JSON.array()
        for index in 0..<3000 { long.append(.string("item \(index) \u{1}")) }
        Self.expectSame(long)
        #expect(long.serialized().utf8.count > 4096)
    }

    /// Trees of every kind, nested, with awkward strings, from a fixed seed.
    @Test func manyGeneratedTrees() {
        var random = SplitMix64(state: 0x5EED)
        let strings = ["", "a", "\"", "\\", "/", "\u{7F}", "\u{1F}", "\n\t", "é", "中文", "😀", "\u{0}", "end\u{8}", "\u{2028}"]
        func tree(_ depth: Int) -> JSON {
            switch random.next() % (depth > 4 ? 5 : 7) {
            case 0: return .null
            case 1: return .bool(random.next() % 2 == 0)
            case 2: return .int(Int(bitPattern: UInt(random.next())) >> Int(random.next() % 60))
            case 3, 4: return .string((0..<Int(random.next() % 4)).map { _ in strings[Int(random.next() % UInt64(strings.count))] }.joined())
            case 5:
                let array = JSON.array()
                for _ in 0..<Int(random.next() % 5) { array.append(tree(depth + 1)) }
                return array
            default:
                let object = JSON.object()
                for _ in 0..<Int(random.next() % 5) {
                    object[strings[Int(random.next() % UInt64(strings.count))] + String(random.next() % 9)] = tree(depth + 1)
                }
                return object
            }
        }
        for _ in 0..<2000 { Self.expectSame(tree(0)) }
    }
}
