/// The rule for a device's name, as the user's other devices will see it
/// in an approval request and as the operator sees it in `admin devices`:
/// one short line. A name of 256 bytes with line breaks could lay a forged
/// "Verification key" line into the approval text.
public enum DeviceName {
    public static let maxScalars = 64
    public static let maxBytes = 256

    /// Why `name` is not a valid device name, or nil when it is.
    public static func problem(with name: String) -> String? {
        let scalars = name.unicodeScalars
        if scalars.isEmpty { return "must not be empty" }
        if name.utf8.count > maxBytes { return "must be at most \(maxBytes) bytes of UTF-8" }
        if scalars.count > maxScalars { return "must be at most \(maxScalars) Unicode scalars" }
        if scalars.contains(where: UserIdentifier.isForbidden) { return "must be one line, without control or format characters" }
        return nil
    }
}
