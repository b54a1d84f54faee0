import FlowJSON

/// The operator's pins: a flow library's file name and the SHA-256 its
/// content must have, as Vault's plugin catalog pins by hash. A pinned
/// library whose content differs is refused before it is opened, so none
/// of its code runs; with `pinnedOnly`, so is every library not pinned.
///
/// From the config's `plugins` section and the `--pin FILE=SHA256` and
/// `--pinned-only` flags (a flag wins over the config for its file).
public struct PluginPins: Sendable, Equatable {
    /// File name (`libFlowPluginMFA.so`) → lower-case hex SHA-256.
    public private(set) var hashes: [String: String] = [:]
    public var pinnedOnly = false

    public init() {}

    public var isEmpty: Bool { hashes.isEmpty && !pinnedOnly }

    /// Pins `file` to `sha256`; a bad pin is an operator's typo, refused.
    public mutating func pin(_ file: String, _ sha256: String) throws(Invalid) {
        guard !file.isEmpty, !file.contains("/") else {
            throw Invalid(description: "pin \(file): name the library's file (libName.so), not a path")
        }
        guard PluginDigest.isSHA256(sha256) else {
            throw Invalid(description: "pin \(file): \(sha256.prefix(80)) is not a SHA-256 (64 hex digits)")
        }
        hashes[file] = sha256.lowercased()
    }

    /// `FILE=SHA256`, as `--pin` takes it.
    public mutating func pin(argument: String) throws(Invalid) {
        guard let equals = argument.firstIndex(of: "=") else {
            throw Invalid(description: "--pin \(argument.prefix(80)): expected FILE=SHA256")
        }
        try pin(String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    /// The config's `plugins` section: `{"pins": {FILE: SHA256}, "pinnedOnly": bool}`.
    public static func parse(_ section: JSON?) throws(Invalid) -> PluginPins {
        var pins = PluginPins()
        guard let section else { return pins }
        guard section.kind == .object else { throw Invalid(description: "must be an object") }
        for key in section.keys {
            let value = section[key]!
            switch key {
            case "pins":
                guard value.kind == .object else { throw Invalid(description: "pins: must be an object") }
                for file in value.keys {
                    guard let hash = value[file]?.stringValue else {
                        throw Invalid(description: "pins.\(file): must be a SHA-256 string")
                    }
                    try pins.pin(file, hash)
                }
            case "pinnedOnly":
                guard let flag = value.boolValue, value.kind == .bool else {
                    throw Invalid(description: "pinnedOnly: must be true or false")
                }
                pins.pinnedOnly = flag
            default:
                throw Invalid(description: "\(key): unknown key"
                    + (NearestName.to(key, in: ["pins", "pinnedOnly"]).map { "; did you mean \"\($0)\"?" } ?? ""))
            }
        }
        return pins
    }

    /// Why the library `file` with content hash `sha256` must not load; nil when it may.
    func problem(file: String, sha256: String) -> String? {
        if let pinned = hashes[file] {
            return pinned == sha256 ? nil : "its SHA-256 is \(sha256), but it is pinned to \(pinned)"
        }
        return pinnedOnly ? "it is not pinned and only pinned plugins load (its SHA-256 is \(sha256))" : nil
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }
}
