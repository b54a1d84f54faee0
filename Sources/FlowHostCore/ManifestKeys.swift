#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The keys a manifest may hold at each level. A key a flow's author
/// misspelled must not pass silently: `startsDialog` for `startsDialogue`
/// would quietly remove the one-dialogue guard. Each unknown key is refused
/// with its path and the nearest known key. The sets of keys are generated
/// from the published `Protocol/schemas/manifest.schema.json`
/// (`Generated/ManifestSchemaKeys.swift`), so the loader and the schema
/// refuse the same manifests.
enum ManifestKeys {
    /// The first unknown key of `object` (in key order), as the refusal's text; nil when all are known.
    /// Keys are compared as bytes first; Strings, sorting and the path only
    /// when a key is unknown: every flow's manifest is checked at each start.
    static func unknown(in object: ManifestNode, at path: @autoclosure () -> String, known: KnownKeys) -> String? {
        guard !object.hasOnlyKeys(in: known) else { return nil }
        for key in object.keys.sorted() where !known.names.contains(key) {
            let place = path().isEmpty ? key : "\(path()).\(key)"
            let suggestion = NearestName.to(key, in: known.names).map { "; did you mean \"\($0)\"?" } ?? ""
            return "\(place): unknown key\(suggestion)"
        }
        return nil
    }
}

/// One level's known keys: a set for the refusal's suggestion, and their
/// bytes, to check a key without making a String of it.
struct KnownKeys {
    let names: Set<String>
    private let spelled: [[UInt8]]

    init(_ names: Set<String>) {
        self.names = names
        spelled = names.map { Array($0.utf8) }
    }

    func contains(_ key: UnsafePointer<CChar>, length: Int) -> Bool {
        spelled.contains { $0.count == length && memcmp($0, key, length) == 0 }
    }

    static let root = KnownKeys(ManifestKeys.root)
    static let method = KnownKeys(ManifestKeys.method)
    static let event = KnownKeys(ManifestKeys.event)
    static let service = KnownKeys(ManifestKeys.service)
    static let param = KnownKeys(ManifestKeys.param)
}
