import FlowJSON

/// The keys a manifest may hold at each level. A key a flow's author
/// misspelled must not pass silently: `startsDialog` for `startsDialogue`
/// would quietly remove the one-dialogue guard. Each unknown key is refused
/// with its path and the nearest known key. The sets of keys are generated
/// from the published `Protocol/schemas/manifest.schema.json`
/// (`Generated/ManifestSchemaKeys.swift`), so the loader and the schema
/// refuse the same manifests.
enum ManifestKeys {
    /// The first unknown key of `object` (in key order), as the refusal's text; nil when all are known.
    static func unknown(in object: JSON, at path: String, known: Set<String>) -> String? {
        guard object.kind == .object else { return nil }
        for key in object.keys.sorted() where !known.contains(key) {
            let place = path.isEmpty ? key : "\(path).\(key)"
            let suggestion = nearest(to: key, in: known).map { "; did you mean \"\($0)\"?" } ?? ""
            return "\(place): unknown key\(suggestion)"
        }
        return nil
    }

    /// The known key closest to `key` by edit distance, if it is close
    /// enough to be a slip (at most a third of the key's length, at least 1).
    static func nearest(to key: String, in known: Set<String>) -> String? {
        let limit = max(1, key.count / 3)
        let scored = known.map { (name: $0, distance: distance(key.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { ($0.distance, $0.name) < ($1.distance, $1.name) }), best.distance <= limit else { return nil }
        return best.name
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
