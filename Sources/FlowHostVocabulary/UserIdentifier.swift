/// The one rule for user ids, applied where a client names a user (the
/// `userID` param format, checked before any flow runs) and where an operator
/// creates one (`flowhost admin add-user`).
///
/// Counted in Unicode scalars and in UTF-8 bytes, never in grapheme clusters:
/// "a" followed by 9 999 combining accents is one grapheme but 10 000
/// scalars, and it must not pass a limit of 128.
public enum UserIdentifier {
    public static let maxScalars = 128
    public static let maxBytes = 512

    /// Why `id` is not a valid user id, or nil when it is.
    public static func problem(with id: String) -> String? {
        if let problem = lengthProblem(id, maxScalars: maxScalars, maxBytes: maxBytes) { return problem }
        let scalars = id.unicodeScalars
        if scalars.contains(where: isForbidden) { return "must not contain control or format characters" }
        if isWhiteSpace(scalars.first!) || isWhiteSpace(scalars.last!) {
            return "must not start or end with white space"
        }
        return nil
    }

    /// Empty, or longer than `maxBytes` of UTF-8 or `maxScalars` scalars (the
    /// shared part of the rules for user ids and device names).
    static func lengthProblem(_ text: String, maxScalars: Int, maxBytes: Int) -> String? {
        let scalars = text.unicodeScalars
        if scalars.isEmpty { return "must not be empty" }
        if text.utf8.count > maxBytes { return "must be at most \(maxBytes) bytes of UTF-8" }
        if text.unicodeScalarCount > maxScalars { return "must be at most \(maxScalars) Unicode scalars" }
        return nil
    }

    /// Control characters (C0, C1, DEL), and the invisible format and
    /// separator characters that make two ids look alike (bidi overrides,
    /// zero-width joiners, line and paragraph separators).
    ///
    /// ASCII is answered without a lookup in Unicode's property tables:
    /// its only forbidden scalars are C0 and DEL, and most ids are ASCII
    /// (the device id is checked at every `initialize`, a `userID` param at
    /// every call). `UserIdentifierTests` holds both answers equal for all 128.
    public static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar.value < 0x20 || scalar.value == 0x7F }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: return true
        default: return false
        }
    }

    /// Unicode's White_Space, with ASCII's six (tab to carriage return, and
    /// space) answered without the property tables, as in `isForbidden`.
    public static func isWhiteSpace(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value) }
        return scalar.properties.isWhitespace
    }
}
