/// The rule for a device's name, as the user's other devices will see it
/// in an approval request and as the operator sees it in `admin devices`:
/// one short line. A name of 256 bytes with line breaks could lay a forged
/// "Verification key" line into the approval text.
public enum DeviceName {
    public static let maxScalars = 64
    public static let maxBytes = 256

    /// Why `name` is not a valid device name, or nil when it is.
    public static func problem(with name: String) -> String? {
        if let problem = UserIdentifier.lengthProblem(name, maxScalars: maxScalars, maxBytes: maxBytes) { return problem }
        if name.unicodeScalars.contains(where: UserIdentifier.isForbidden) { return "must be one line, without control or format characters" }
        return nil
    }
}
