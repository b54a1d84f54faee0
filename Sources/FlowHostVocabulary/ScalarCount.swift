extension String {
    /// How many Unicode scalars the text holds: what the protocol's lengths
    /// count. Counted on the UTF-8 (every byte that does not continue a
    /// sequence starts a scalar), which a String holds valid: the
    /// `unicodeScalars` view decoded each scalar, about fifty instructions a
    /// character on every signing's payload.
    public var unicodeScalarCount: Int {
        if let count = utf8.withContiguousStorageIfAvailable({ bytes in bytes.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) } }) {
            return count
        }
        return unicodeScalars.count  // a bridged string without contiguous UTF-8
    }
}
