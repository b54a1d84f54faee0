extension String {
    /// The index of the last `/` in a path, found by its byte. The kernel
    /// splits a path at every 0x2F byte, and a search by `Character` walks
    /// grapheme clusters from the end: several thousand instructions on a
    /// build folder's path, a dozen times a start.
    public var lastPathSeparator: String.Index? { utf8.lastIndex(of: UInt8(ascii: "/")) }
}
