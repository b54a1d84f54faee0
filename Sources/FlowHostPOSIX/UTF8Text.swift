#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension String {
    /// `bytes` as text, with what is not UTF-8 repaired (U+FFFD), exactly as
    /// `String(decoding:as: UTF8.self)` reads them (`UTF8TextTests`).
    ///
    /// Not through `String(decoding:as:)`: generic over the encoding, its
    /// first call in a process makes the runtime instantiate the witness
    /// table of `Unicode.UTF8`'s conformance, which writes a page of
    /// libswiftCore's data that then stays in every host (docs/performance.md,
    /// "The start path"). This initialiser copies the bytes and lets the
    /// string check them, with no generic code in between.
    public init(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        self.init(unsafeUninitializedCapacity: bytes.count) { buffer in
            guard let source = bytes.baseAddress, let target = buffer.baseAddress, bytes.count > 0 else { return 0 }
            target.update(from: source, count: bytes.count)
            return bytes.count
        }
    }

    /// The same, from an array.
    public init(utf8 bytes: [UInt8]) {
        self = bytes.withUnsafeBufferPointer { String(utf8: $0) }
    }

    /// The same, from part of an array.
    public init(utf8 bytes: ArraySlice<UInt8>) {
        self = bytes.withUnsafeBufferPointer { String(utf8: $0) }
    }

    /// `bytes` as text when they are valid UTF-8, else nil: what
    /// `String(validating:as: UTF8.self)` answers, without its generic
    /// code. Valid bytes are taken as they are; anything `init(utf8:)`
    /// repaired comes out as other bytes.
    public init?(validUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        var text = String(utf8: bytes)
        guard text.utf8.count == bytes.count else { return nil }
        // Compared as memory, not through the UTF-8 view's indices: every
        // relayed feed event's topic and payload come through here.
        let same = text.withUTF8 { stored in
            guard let mine = stored.baseAddress, let theirs = bytes.baseAddress else { return true }
            return memcmp(mine, theirs, bytes.count) == 0
        }
        guard same else { return nil }
        self = text
    }

    /// The same, from an array.
    public init?(validUTF8 bytes: [UInt8]) {
        guard let text = bytes.withUnsafeBufferPointer({ String(validUTF8: $0) }) else { return nil }
        self = text
    }
}
