import FlowHostPOSIX
import TestSupport
import Testing

/// `String(utf8:)` stands in for `String(decoding:as: UTF8.self)` and
/// `String(validUTF8:)` for `String(validating:as: UTF8.self)`: the same
/// answer for every input, invalid UTF-8 repaired or refused the same way.
@Suite struct UTF8TextTests {
    @Test func itReadsEveryInputAsDecodingDoes() {
        // Bytes chosen to make every kind of sequence, valid or broken:
        // ASCII, NUL, lone continuation bytes, overlong and surrogate
        // starts, two- to four-byte sequences cut short, bytes never valid.
        let awkward: [UInt8] = [0x41, 0x7A, 0x00, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xED, 0xA0, 0xF0, 0x9F, 0x94, 0x91, 0xF4, 0x90, 0xF5, 0xFE, 0xFF]
        let whole: [[UInt8]] = [[0x61], [0x00], [0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x94, 0x91], [0xEF, 0xBF, 0xBD]]
        var generator = SplitMix64(state: 25)
        var validCount = 0
        for round in 0..<20_000 {
            let count = Int(generator.next() % 41)
            let bytes: [UInt8]
            switch round % 3 {
            case 0:  // whole sequences: valid text
                bytes = (0..<count / 3).flatMap { _ in whole[Int(generator.next() % UInt64(whole.count))] }
            case 1: bytes = (0..<count).map { _ in awkward[Int(generator.next() % UInt64(awkward.count))] }
            default: bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            }
            let expected = String(decoding: bytes, as: UTF8.self)
            let read = String(utf8: bytes)
            #expect(Array(read.utf8) == Array(expected.utf8), "\(bytes)")
            #expect(String(utf8: bytes[...]) == expected)
            #expect(bytes.withUnsafeBufferPointer { String(utf8: $0) } == expected)
            let valid = String(validating: bytes, as: UTF8.self)
            #expect(String(validUTF8: bytes) == valid, "\(bytes)")
            #expect(bytes.withUnsafeBufferPointer { String(validUTF8: $0) } == valid)
            if valid != nil { validCount += 1 }
        }
        // Both answers were compared: valid inputs and broken ones.
        #expect(validCount > 6_000 && validCount < 19_000)
        #expect(String(utf8: [UInt8]()) == "")
        #expect(String(validUTF8: [UInt8]()) == "")
        #expect(String(utf8: UnsafeBufferPointer<UInt8>(start: nil, count: 0)) == "")
    }
}
