/// Change-feed topics and who owns them.
///
/// A topic is a dotted name; its first part is its namespace, and the
/// namespace has one owner. The host's domains own `sessions`,
/// `notifications` and `devices`, and write those topics only in the
/// transaction of the change they describe. A flow owns the namespace of
/// its own name: it publishes only there, and subscribes there and to the
/// host topics its manifest lists under `reads`. The other reserved names
/// are the host's `notify` topics (`session`, `challenge.*`), which a feed
/// event must never be mistaken for, and JSON-RPC's `rpc`.
public enum FeedTopic {
    /// Namespaces no flow may take, as a topic's or as its own name.
    public static let reservedNamespaces: Set<String> = ["sessions", "notifications", "devices", "session", "challenge", "rpc", "host"]

    /// The host topics a flow may ask to read (`reads` in its manifest).
    public static let readableHostTopics: Set<String> = ManifestKeys.readableHostTopics

    /// Dotted names of letters, digits, `-` and `_`, at most 64 bytes.
    public static func isValid(_ topic: String) -> Bool {
        // ASCII letters, digits, '.', '-' and '_', checked byte by byte (a
        // Unicode property lookup per letter cost a login 14,000 instructions).
        !topic.isEmpty && topic.utf8.count <= 64
            && topic.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default: false
                }
            }
    }

    /// The part before the first dot. Found by byte: it runs for every feed
    /// event a host reads, and a dot is one byte wherever it stands.
    public static func namespace(of topic: String) -> Substring {
        guard let dot = topic.utf8.firstIndex(of: UInt8(ascii: ".")) else { return topic[...] }
        return topic[..<dot]
    }

    /// Written by the host's own domains only.
    public static func isHostTopic(_ topic: String) -> Bool { reservedNamespaces.contains(String(namespace(of: topic))) }

    /// Why `flow` (its name and its manifest's `reads`) may not publish on
    /// or subscribe to `topic`; nil when it may.
    static func refusal(flow: String, reads: Set<String>, topic: String, publishing: Bool) -> String? {
        guard isValid(topic) else { return "\"\(topic.prefix(64))\" is not a topic name" }
        if namespace(of: topic) == flow { return nil }
        if publishing {
            return "flow \(flow) may publish only on its own topics (\(flow).…); \(topic) belongs to "
                + (isHostTopic(topic) ? "the host" : "flow \(namespace(of: topic))")
        }
        if reads.contains(topic) { return nil }
        return "flow \(flow) may subscribe only to its own topics (\(flow).…) and the host topics its manifest lists under \"reads\"; "
            + "\(topic) is not among them"
    }
}
