extension StringProtocol {
    /// The first place `needle` occurs, compared byte for byte in UTF-8.
    ///
    /// The host is built without `_StringProcessing`, which holds the
    /// standard `firstRange(of:)` and `contains(_:)` for strings: one
    /// library fewer for the dynamic linker at every start (README,
    /// "Start-up"). Bytes, not characters, are what these searches need:
    /// a URL's `://`, a user id inside a password, a keyword in a message.
    /// A match may start inside a character (`e` in `e\u{301}`): a search
    /// by bytes finds it where one by characters does not.
    public func firstByteRange(of needle: some StringProtocol) -> Range<Index>? {
        let needle = Array(needle.utf8)
        guard let first = needle.first else { return startIndex..<startIndex }
        let bytes = utf8
        var candidate = bytes.startIndex
        while let start = bytes[candidate...].firstIndex(of: first) {
            var end = start
            var matched = 0
            while matched < needle.count, end < bytes.endIndex, bytes[end] == needle[matched] {
                bytes.formIndex(after: &end)
                matched += 1
            }
            if matched == needle.count { return start..<end }
            candidate = bytes.index(after: start)
        }
        return nil
    }

    /// Whether `needle` occurs, compared byte for byte (`firstByteRange(of:)`).
    public func containsBytes(of needle: some StringProtocol) -> Bool { firstByteRange(of: needle) != nil }
}
