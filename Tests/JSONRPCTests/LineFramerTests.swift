import JSONRPC
import TestSupport
import Testing

/// Runs the framer over `input` cut into the given chunk sizes.
private func frames(_ input: [UInt8], chunks: [Int], max: Int = 1 << 20) -> [String] {
    var framer = LineFramer(maxFrameBytes: max)
    var out: [String] = []
    let collect: (LineFramer.Frame) -> Void = { frame in
        switch frame {
        case .line(let bytes): out.append(String(decoding: bytes, as: UTF8.self))
        case .oversized(let count): out.append("<oversized \(count)>")
        }
    }
    var offset = 0
    var index = 0
    while offset < input.count {
        let size = Swift.min(chunks[index % chunks.count], input.count - offset)
        input[offset..<offset + size].withUnsafeBytes { framer.push($0, collect) }
        offset += size
        index += 1
    }
    framer.finish(collect)
    return out
}

/// What the framer must agree with: split on \n, drop one trailing \r, skip blanks.
private func reference(_ input: [UInt8]) -> [String] {
    input.split(separator: 0x0A, omittingEmptySubsequences: false).compactMap { line -> String? in
        var line = Array(line)
        if line.last == 0x0D { line.removeLast() }
        return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
    }
}


private let sample: [UInt8] = Array(
    """
    {"jsonrpc":"2.0","id":1,"method":"ping"}
    {"jsonrpc":"2.0","id":"two","method":"echo","params":{"text":"a\\nb"}}\r

    [{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.0","id":3,"method":"y"}]
    {"t":"héllo ✓"}\r
    last-without-newline
    """.utf8)

@Suite struct LineFramerTests {
    @Test func byteByByteMatchesSplit() {
        #expect(frames(sample, chunks: [1]) == reference(sample))
        #expect(reference(sample).count == 5)
    }

    @Test func wholeInputMatchesSplit() {
        #expect(frames(sample, chunks: [sample.count]) == reference(sample))
    }

    @Test(arguments: [1, 2, 3, 42, 7777])
    func randomChunksMatchSplit(seed: UInt64) {
        var generator = SplitMix64(state: seed)
        var input: [UInt8] = []
        for _ in 0..<200 {
            let length = Int.random(in: 0...300, using: &generator)
            input += (0..<length).map { _ in UInt8.random(in: 0x20...0x7E, using: &generator) }
            if Bool.random(using: &generator) { input.append(0x0D) }
            input.append(0x0A)
        }
        let chunks = (0..<50).map { _ in Int.random(in: 1...700, using: &generator) }
        #expect(frames(input, chunks: chunks) == reference(input))
    }

    @Test func crlfIsStrippedOnce() {
        #expect(frames(Array("a\r\r\nb\r\n".utf8), chunks: [1]) == ["a\r", "b"])
    }

    @Test func oversizedLineIsReportedAndTheNextLineSurvives() {
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: 100)
        let input = Array("ok\n".utf8) + big + Array("\nafter\n".utf8)
        for chunk in [1, 7, 64, 1000] {
            #expect(frames(input, chunks: [chunk], max: 50) == ["ok", "<oversized 100>", "after"], "chunk \(chunk)")
        }
    }

    @Test func lineOfExactlyTheLimitPasses() {
        let line = [UInt8](repeating: UInt8(ascii: "y"), count: 50)
        #expect(frames(line + [0x0D, 0x0A], chunks: [3], max: 50) == [String(repeating: "y", count: 50)])
        #expect(frames(line + [0x79, 0x0A], chunks: [3], max: 50) == ["<oversized 51>"])
    }

    @Test func memoryStaysBoundedForAHugeLine() {
        var framer = LineFramer(maxFrameBytes: 1024)
        let chunk = [UInt8](repeating: UInt8(ascii: "z"), count: 4096)
        var reported: [Int] = []
        for _ in 0..<2560 {  // 10 MiB without a newline
            chunk.withUnsafeBytes { framer.push($0) { if case .oversized(let n) = $0 { reported.append(n) } } }
            #expect(framer.bufferedByteCount <= 1025)
        }
        Array("\n".utf8).withUnsafeBytes { framer.push($0) { if case .oversized(let n) = $0 { reported.append(n) } } }
        #expect(reported == [10 * 1024 * 1024])
    }

    @Test func unterminatedLastLineIsAFrameAtFinish() {
        #expect(frames(Array("a\nb".utf8), chunks: [1]) == ["a", "b"])
    }
}

@Suite struct NestingDepthTests {
    private func exceeds(_ text: String, _ limit: Int) -> Bool {
        Array(text.utf8).withUnsafeBytes { NestingDepth.exceeds($0, limit: limit) }
    }

    @Test func countsBracketsOutsideStrings() {
        #expect(!exceeds("[[[]]]", 3))
        #expect(exceeds("[[[[]]]]", 3))
        #expect(exceeds(#"{"a":{"b":[{}]}}"#, 3))
        #expect(!exceeds(#"{"a":"[[[[[[\"[[[["}"#, 1))
        #expect(!exceeds(#"["\\",[]]"#, 2))
        #expect(exceeds(#"["\\",[[]]]"#, 2))
    }

    /// The plain byte-at-a-time reading the scan must agree with.
    private func slowlyExceeds(_ bytes: [UInt8], _ limit: Int) -> Bool {
        var (depth, inString, escaped) = (0, false, false)
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > limit { return true }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return false
    }

    @Test func agreesWithTheByteAtATimeReadingOnRandomTexts() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array(#"[]{}"\a,"#.utf8)
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0..<40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            let limit = Int.random(in: 0..<6, using: &generator)
            let fast = text.withUnsafeBytes { NestingDepth.exceeds($0, limit: limit) }
            #expect(fast == slowlyExceeds(text, limit), "\(String(decoding: text, as: UTF8.self)) limit \(limit)")
        }
    }

    @Test func hundredThousandArrays() {
        #expect(exceeds(String(repeating: "[", count: 100_000), 64))
    }
}
