/// An id of 32 lower-case hex digits: the first 10 the second it was made,
/// the other 22 random (88 bits from the system CSPRNG).
///
/// Why the time first: such ids are primary keys (a session, a signature's
/// receipt), and a random key put every new row on a random leaf of its
/// B-tree. With a long history each write then dirtied a page no write near
/// it touched, and every WAL checkpoint copied one more page per write: a
/// cost a fresh store did not have. In time order a new id lands at the end
/// of the tree, on the pages the writes before it just wrote. The id stays
/// unguessable (88 random bits); the second it shows is already in the
/// record it names (a session's `since`, a receipt's `signedAt`).
public enum TimeOrderedID {
    public static func make(at seconds: Int64) -> String {
        let clamped = UInt64(clamping: max(0, seconds)) & 0xFF_FFFF_FFFF  // 40 bits: until the year 36812
        let time = String(clamped, radix: 16)
        return String(repeating: "0", count: 10 - time.utf8.count) + time + RandomHex.make(bytes: 11)
    }
}
