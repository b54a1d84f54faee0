/// The keys a manifest may hold at each level. A key a flow's author
/// misspelled must not pass silently: `startsDialog` for `startsDialogue`
/// would quietly remove the one-dialogue guard. Each unknown key is refused
/// with its path and the nearest known key. The sets of keys are generated
/// from the published `Protocol/schemas/manifest.schema.json`
/// (`Generated/ManifestSchemaKeys.swift`), so the loader and the schema
/// refuse the same manifests.
enum ManifestKeys {
    /// The first unknown key of `object` (in key order), as the refusal's text; nil when all are known.
    /// Sorting (and the path) only when a key is unknown: every flow's
    /// manifest is checked at each start.
    static func unknown(keys: [String], at path: @autoclosure () -> String, known: Set<String>) -> String? {
        guard keys.contains(where: { !known.contains($0) }) else { return nil }
        for key in keys.sorted() where !known.contains(key) {
            let place = path().isEmpty ? key : "\(path()).\(key)"
            let suggestion = NearestName.to(key, in: known).map { "; did you mean \"\($0)\"?" } ?? ""
            return "\(place): unknown key\(suggestion)"
        }
        return nil
    }
}
