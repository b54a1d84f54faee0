import CJansson
import FlowJSON

/// A borrowed value of a manifest being read: no owner and no reference
/// count of its own. It lives only inside `PluginManifest.parse`, within the
/// parsed root's `withUnsafeRaw`, so the root keeps every value it reaches
/// alive. Every flow's manifest is read at each start, and an owning `JSON`
/// per member read cost more than parsing the text.
struct ManifestNode {
    let raw: UnsafeMutablePointer<json_t>

    var kind: JSONKind { JSON.kind(of: raw) }

    /// The member `key` of an object (nil for a missing key or another kind).
    subscript(key: StaticString) -> ManifestNode? {
        guard kind == .object else { return nil }
        let member = key.withUTF8Buffer { name in
            name.baseAddress!.withMemoryRebound(to: CChar.self, capacity: name.count + 1) { json_object_getn(raw, $0, name.count) }
        }
        return member.map(ManifestNode.init(raw:))
    }

    /// Whether every key of an object is in `known` (true for another kind: it has none).
    func hasOnlyKeys(in known: KnownKeys) -> Bool {
        guard kind == .object else { return true }
        var iterator = json_object_iter(raw)
        while let current = iterator {
            guard known.contains(json_object_iter_key(current), length: json_object_iter_key_len(current)) else { return false }
            iterator = json_object_iter_next(raw, current)
        }
        return true
    }

    /// An object's keys, in their order.
    var keys: [String] { JSON.keys(of: raw) }

    var elements: [ManifestNode] {
        guard kind == .array else { return [] }
        return (0..<json_array_size(raw)).map { ManifestNode(raw: json_array_get(raw, $0)) }
    }

    var string: String? { JSON.stringValue(of: raw) }

    var bool: Bool? { JSON.boolValue(of: raw) }

    /// An owner of this value that outlives the parse (a schema kept for `rpc.discover`).
    var retained: JSON { JSON(borrowing: raw) }
}
