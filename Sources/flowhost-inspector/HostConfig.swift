import Foundation

/// The config each device panel's host is given: the operator's `--config`
/// (or none) with the section `webauthn` naming the page as the relying
/// party (spec §14): `rpID` `localhost` and the page's origin,
/// `http://localhost:PORT`. A browser makes WebAuthn credentials only for
/// a domain in a secure context, and http://localhost is both, so that is
/// where the page's WebAuthn devices work; no other origin would ever
/// reach these hosts. The operator's `webauthn.allowSynced` is kept.
enum HostConfig {
    static let rpID = "localhost"

    static func origin(port: UInt16) -> String { "http://\(rpID):\(port)" }

    /// Writes the config to `path` (mode 0600) and returns the serve options
    /// that name it; nil when the operator's config is not a JSON object
    /// this can read (the host, given it as it is, says what is wrong).
    static func write(serveOptions: [String], port: UInt16, to path: String) -> [String]? {
        let (operatorPath, rest) = withoutConfig(serveOptions)
        var root: [String: Any] = [:]
        if let operatorPath {
            guard let data = FileManager.default.contents(atPath: operatorPath),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            root = object
        }
        var webauthn: [String: Any] = ["rpID": rpID, "origins": [origin(port: port)]]
        if let section = root["webauthn"] as? [String: Any], let allowSynced = section["allowSynced"] { webauthn["allowSynced"] = allowSynced }
        root["webauthn"] = webauthn
        guard let data = try? JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]),
              FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600])
        else { return nil }
        return rest + ["--config", path]
    }

    /// The value of `--config` (either form) and the other options. Options
    /// reach the inspector checked by the serve parser, where no value
    /// starts with "-", so "--config" is never another option's value.
    static func withoutConfig(_ options: [String]) -> (config: String?, rest: [String]) {
        var config: String?
        var rest: [String] = []
        var arguments = options[...]
        while let argument = arguments.popFirst() {
            if argument == "--config" {
                config = arguments.popFirst()
            } else if argument.hasPrefix("--config=") {
                config = String(argument.dropFirst("--config=".count))
            } else {
                rest.append(argument)
            }
        }
        return (config, rest)
    }
}
