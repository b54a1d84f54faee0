/// Substring search by UTF-8 bytes, on `String` and `Substring`.
///
/// The host is built without `_StringProcessing`, which holds the standard
/// `firstRange(of:)` and `contains(_:)` for strings: one library fewer for
/// the dynamic linker at every start (docs/performance.md, "The start path"). Bytes, not
/// characters, are what these searches need: a URL's `://`, a user id
/// inside a password, a keyword in a message. A match may start inside a
/// character (`e` in `e\u{301}`): a search by bytes finds it where one by
/// characters does not.
///
/// The public entry points are not generic: a generic call across modules
/// is not specialised, and its first run makes the runtime fill the caches
/// of `String`'s and `PartialRangeFrom`'s conformances, pages of
/// libswiftCore's data that then stay in every host (docs/performance.md,
/// "The start path"). The one search below is generic within this module only, where
/// each use is specialised.
extension String {
    /// The first place `needle` occurs, compared byte for byte in UTF-8.
    public func firstByteRange(of needle: String) -> Range<Index>? { utf8.firstByteRange(of: needle.utf8) }

    /// Whether `needle` occurs, compared byte for byte (`firstByteRange(of:)`).
    public func containsBytes(of needle: String) -> Bool { firstByteRange(of: needle) != nil }
}

extension Substring {
    /// The first place `needle` occurs within this substring's bounds, compared byte for byte.
    public func firstByteRange(of needle: String) -> Range<Index>? { utf8.firstByteRange(of: needle.utf8) }

    /// Whether `needle` occurs, compared byte for byte (`firstByteRange(of:)`).
    public func containsBytes(of needle: String) -> Bool { firstByteRange(of: needle) != nil }
}

extension BidirectionalCollection where Element == UInt8 {
    fileprivate func firstByteRange(of pattern: String.UTF8View) -> Range<Index>? {
        guard let first = pattern.first else { return startIndex..<startIndex }
        var candidate = startIndex
        while let start = self[candidate...].firstIndex(of: first) {
            var end = start
            var at = pattern.startIndex
            while at < pattern.endIndex, end < endIndex, self[end] == pattern[at] {
                formIndex(after: &end)
                pattern.formIndex(after: &at)
            }
            if at == pattern.endIndex { return start..<end }
            candidate = index(after: start)
        }
        return nil
    }
}
