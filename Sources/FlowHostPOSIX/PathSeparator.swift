extension String {
    /// The index of the last `/` in a path, found by its byte. The kernel
    /// splits a path at every 0x2F byte, and a search by `Character` walks
    /// grapheme clusters from the end: several thousand instructions on a
    /// build folder's path, a dozen times a start.
    public var lastPathSeparator: String.Index? { utf8.lastIndex(of: UInt8(ascii: "/")) }

    /// The folder part of a path: what comes before its last `/`, empty for
    /// a name in the root folder (`/etc` gives ""), nil when the path has no
    /// `/`. Each caller says what a bare name or the root means to it.
    ///
    /// Cut by bytes, as the separator is found: a `/` always stands between
    /// characters, so the string need not check, as `self[..<slash]` does,
    /// that the cut falls on a boundary.
    public var folderPart: String? {
        guard let slash = lastPathSeparator else { return nil }
        let length = utf8.distance(from: utf8.startIndex, to: slash)
        return utf8.withContiguousStorageIfAvailable { String(utf8: UnsafeBufferPointer(rebasing: $0[..<length])) }
            ?? String(self[..<slash])
    }

    /// The name part of a path: what comes after its last `/` (the whole
    /// path when it has none).
    public var namePart: String {
        guard let slash = lastPathSeparator else { return self }
        return String(self[index(after: slash)...])
    }
}
