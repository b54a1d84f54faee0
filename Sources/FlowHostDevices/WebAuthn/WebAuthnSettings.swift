import FlowHostVocabulary
import FlowJSON

/// The config section `webauthn`: the relying party a WebAuthn device's
/// credentials are scoped to (`rpID`, a domain), the origins its answers may
/// come from (`origins`: web origins such as `https://login.example.com`,
/// and Android apps' `android:apk-key-hash:…`), and whether a synced
/// credential (a passkey whose BE flag is set) may be a device
/// (`allowSynced`, false by default: a synced key is not one device's).
/// Without the section no WebAuthn device can be activated.
public struct WebAuthnSettings: Sendable, Equatable {
    public var rpID: String
    public var origins: [String]
    public var allowSynced: Bool

    public init(rpID: String, origins: [String], allowSynced: Bool = false) {
        self.rpID = rpID
        self.origins = origins
        self.allowSynced = allowSynced
    }

    public static let configKey = "webauthn"

    /// Nil when the section is absent.
    public static func parse(_ section: JSON?) throws(ConfigError) -> WebAuthnSettings? {
        guard let section else { return nil }
        guard section.kind == .object else { throw ConfigError(key: configKey, reason: "must be an object") }
        for key in section.keys where !["rpID", "origins", "allowSynced"].contains(key) {
            throw ConfigError(key: "\(configKey).\(key)", reason: "unknown key")
        }
        guard let rpID = section["rpID"]?.stringValue, isDomain(rpID) else {
            throw ConfigError(key: "\(configKey).rpID", reason: "required: a domain name in lower case (such as login.example.com)")
        }
        guard let list = section["origins"], list.kind == .array, (1...32).contains(list.count) else {
            throw ConfigError(key: "\(configKey).origins", reason: "required: a list of 1 to 32 origins")
        }
        var origins: [String] = []
        for (index, element) in list.elements.enumerated() {
            guard let origin = element.stringValue, isOrigin(origin) else {
                throw ConfigError(
                    key: "\(configKey).origins[\(index)]",
                    reason: "an https origin (scheme and host, an optional port, no path), http://localhost[:port], or android:apk-key-hash:<base64url>")
            }
            origins.append(origin)
        }
        var allowSynced = false
        if let value = section["allowSynced"] {
            guard let flag = value.boolValue else { throw ConfigError(key: "\(configKey).allowSynced", reason: "must be true or false") }
            allowSynced = flag
        }
        return WebAuthnSettings(rpID: rpID, origins: origins, allowSynced: allowSynced)
    }

    static func isDomain(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return text.utf8.count <= 253 && !labels.isEmpty
            && labels.allSatisfy { label in
                (1...63).contains(label.utf8.count) && label.utf8.first != UInt8(ascii: "-") && label.utf8.last != UInt8(ascii: "-")
                    && label.utf8.allSatisfy { isLowerAlphanumeric($0) || $0 == UInt8(ascii: "-") }
            }
    }

    /// The exact text a client's `origin` must equal: compared byte for byte, never parsed leniently.
    static func isOrigin(_ text: String) -> Bool {
        let apk = "android:apk-key-hash:"
        if text.hasPrefix(apk) {
            let hash = text.utf8.dropFirst(apk.utf8.count)
            return (40...64).contains(hash.count)
                && hash.allSatisfy { isLowerAlphanumeric($0) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
        }
        let rest: Substring
        if text.hasPrefix("https://") { rest = text.dropFirst(8) } else if text.hasPrefix("http://localhost") { rest = text.dropFirst(7) } else { return false }
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, isDomain(String(parts[0])) else { return false }
        if parts.count == 2 {
            guard let port = Int(parts[1]), (1...65535).contains(port), String(port) == parts[1] else { return false }
        }
        return text.hasPrefix("https://") || parts[0] == "localhost"
    }

    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
