import FlowHostVocabulary

/// A session's id: 32 lower-case hex digits, the first 10 the second it was
/// opened and the other 22 random (88 bits from the system CSPRNG).
///
/// Why the time first: the session table's primary key is its id, and a
/// random key put every new session on a random leaf of that index. With a
/// long history each login then dirtied a page no other login near it
/// touched, and every WAL checkpoint copied one more page per login: a cost
/// a fresh store did not have. In time order a new id lands at the end of
/// the index, on the pages the logins before it just wrote. The id stays
/// unguessable (88 random bits); the second it shows is the session's
/// `since`, which its own client sees anyway.
public enum SessionIdentifier {
    public static func make(openedAt seconds: Int64) -> String {
        let clamped = UInt64(clamping: max(0, seconds)) & 0xFF_FFFF_FFFF  // 40 bits: until the year 36812
        let time = String(clamped, radix: 16)
        return String(repeating: "0", count: 10 - time.utf8.count) + time + RandomHex.make(bytes: 11)
    }
}
