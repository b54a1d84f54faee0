import CFlowJSON
import CJansson
import FlowJSON
import Testing

/// FlowHost's JSON reader against jansson's, text for text: it may refuse
/// a text jansson takes (the caller then asks jansson), but it must never
/// take a text jansson refuses, nor read one differently.
@Suite struct JSONReaderTests {
    enum Reading: Equatable {
        case refused
        case value(String)  // jansson's compact text of it, keys in order
    }

    /// `read` over the bytes (with a byte after them, so even none has an address).
    static func reading(_ bytes: [UInt8], _ read: (UnsafePointer<CChar>, Int) -> UnsafeMutablePointer<json_t>?) -> Reading {
        let value = (bytes + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { read($0.baseAddress!, bytes.count) }
        }
        guard let value else { return .refused }
        return .value(JSON(taking: value).serialized())
    }

    static func fast(_ bytes: [UInt8]) -> Reading { reading(bytes) { flowhost_json_parse($0, $1) } }

    static func jansson(_ bytes: [UInt8]) -> Reading {
        var error = json_error_t()
        return reading(bytes) { json_loadb($0, $1, fh_json_load_flags(), &error) }
    }

    /// Both read it alike; `strict`: the fast reader may not refuse what jansson takes either.
    static func expectAgreement(_ bytes: [UInt8], strict: Bool = true, _ location: SourceLocation = #_sourceLocation) {
        let (ours, theirs) = (fast(bytes), jansson(bytes))
        let text = String(decoding: bytes.prefix(120), as: UTF8.self)
        if ours != .refused {
            #expect(ours == theirs, "read differently from jansson: \(text)", sourceLocation: location)
        } else if strict {
            #expect(theirs == .refused, "refused what jansson takes: \(text)", sourceLocation: location)
        }
    }

    static let cases: [String] = [
        "", " ", "1", " 1 ", "-0", "0", "0123", "-", "--1", "+1", "1.", ".5", "1.5", "1e", "1e+", "1E5", "1e-5", "-1.25e+10",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "1e400", "-1e400", "1e-400",
        "true", "false", "null", "tru", "truex", "nul", "nulll", "True", "[]", "[1,]", "[,1]", "[1 2]", "[[]]", "{}", #"{"a":1}"#,
        #"{"a":1,}"#, #"{"a" 1}"#, #"{"a":1,"a":2}"#, #"{"a":1,"b":{"a":2}}"#, #"{1:2}"#, #"{"a"}"#, #""abc""#, #""a\"b""#,
        #""\u0041\u00e9\u4e2d""#, #""\ud83d\ude00""#, #""\ud83d\u0041""#, #""\ud800""#, #""\udc00""#, #""\u0000""#, #""\u00""#,
        #""\x""#, #""\/\b\f\n\r\t\\""#, "\"tab\there\"", "\"unterminated", "\"a\"b", "[1]x", "[1] ", "\t\n\r[1]\r\n",
        #"{"k\u00e9y":"v","":0}"#, #"{"a":[1,{"b":null}],"c":"d"}"#, "[1,2,3.0,-4e2,\"x\",true,false,null]",
    ]

    @Test func knownTexts() {
        for text in Self.cases { Self.expectAgreement(Array(text.utf8)) }
    }

    @Test func bytesThatAreNotUTF8() {
        for bad: [UInt8] in [[0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
            [0x80], [0xE4, 0xB8], [0xC3, 0xA9], [0xF0, 0x9F, 0x98, 0x80], [0x00], [0x1F], [0x7F]]
        {
            Self.expectAgreement([0x22] + bad + [0x22])
            Self.expectAgreement([0x5B] + bad + [0x5D])
        }
    }

    @Test func nestingAtJanssonsLimit() {
        for depth in [2046, 2047, 2048, 2049] {
            let text = String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
            Self.expectAgreement(Array(text.utf8))
            let objects = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
            Self.expectAgreement(Array(objects.utf8))
        }
    }

    @Test func longStringsAndNumbers() {
        Self.expectAgreement(Array(("\"" + String(repeating: "é\\n", count: 500) + "\"").utf8))
        Self.expectAgreement(Array(("{\"" + String(repeating: "k\\u00e9", count: 100) + "\":1}").utf8))
        Self.expectAgreement(Array(("1" + String(repeating: "0", count: 400)).utf8))
        Self.expectAgreement(Array(("0." + String(repeating: "1", count: 400) + "e5").utf8))
    }

    /// Random values (strings with escapes and every width of UTF-8) written
    /// by jansson, then bent byte by byte: wherever the two readers both
    /// take a text, they read it alike, and the fast one never takes a bent
    /// text jansson refuses.
    @Test func randomTextsAndTheirMutations() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "é", "中", "😀", "\"", "\\", "/", "\n", "\t", "\u{1}", " ", "{", "}", "[", "]", ":", ",", "0", "-"]
        func randomValue(_ depth: Int) -> JSON {
            switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &generator) {
            case 0: return .int(Int.random(in: Int.min...Int.max, using: &generator) >> Int.random(in: 0..<63, using: &generator))
            case 1: return .double(Double.random(in: -1e6...1e6, using: &generator))
            case 2: return .bool(Bool.random(using: &generator))
            case 3: return .null
            case 4: return .string((0..<Int.random(in: 0..<12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined())
            case 5: return .array((0..<Int.random(in: 0..<4, using: &generator)).map { _ in randomValue(depth + 1) })
            default:
                let object: JSON = [:]
                for index in 0..<Int.random(in: 0..<4, using: &generator) {
                    object["k\(index)" + (pieces.randomElement(using: &generator) ?? "")] = randomValue(depth + 1)
                }
                return object
            }
        }
        let alphabet = Array(#"{}[]:,"\\u0aeE+-.tfn 9"#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xE4, 0xF0, 0xFF]
        for _ in 0..<3_000 {
            let text = Array(randomValue(0).serialized().utf8)
            Self.expectAgreement(text)
            for _ in 0..<5 {
                var bent = text
                let at = Int.random(in: 0...bent.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0 where at < bent.count: bent[at] = alphabet.randomElement(using: &generator)!
                case 1 where at < bent.count: bent.remove(at: at)
                default: bent.insert(alphabet.randomElement(using: &generator)!, at: at)
                }
                Self.expectAgreement(bent, strict: false)
            }
        }
    }
}
