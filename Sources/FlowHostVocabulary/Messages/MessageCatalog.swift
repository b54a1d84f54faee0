#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FlowHostPOSIX

/// The messages of one language, read from its PO file (`<language>.po`).
/// English needs none: a message's English text is its key, so the
/// built-in default costs nothing at start.
public final class MessageCatalog {
    /// The language's code as its file is named ("fr").
    public let language: String
    private let entries: [MessageKey: String]
    /// Translations left out because their placeholders are not their
    /// msgid's: such a message is sent in English.
    public let refused: [MessageKey]

    /// A translation must name exactly its msgid's placeholders: one that
    /// drops a placeholder hides a value, one that adds a placeholder shows a
    /// value its message never named. Neither is ever used.
    public init(language: String, entries: [MessageKey: String]) {
        self.language = language
        var kept: [MessageKey: String] = [:]
        var refused: [MessageKey] = []
        for (key, translation) in entries {
            if MessageKey.placeholders(in: translation) == MessageKey.placeholders(in: key.id) {
                kept[key] = translation
            } else {
                refused.append(key)
            }
        }
        self.entries = kept
        self.refused = refused.sorted { $0.description < $1.description }
    }

    /// The largest catalog read: the shipped ones are a few dozen KiB.
    public static let maxFileSize = 4 << 20

    /// The translation of `key`, or nil when the catalog has none.
    public func translation(_ key: MessageKey) -> String? { entries[key] }

    public var keys: Dictionary<MessageKey, String>.Keys { entries.keys }

    /// The text of `key` in this language (English when untranslated), its placeholders filled.
    public func text(_ key: MessageKey, _ values: [String: String] = [:]) -> String {
        MessageKey.fill(entries[key] ?? key.id, values)
    }

    /// Why a catalog could not be read.
    public enum LoadError: Error, CustomStringConvertible {
        case absent(language: String)
        case unreadable(path: String, reason: String)
        case malformed(path: String, ParseErrorDescription)

        public typealias ParseErrorDescription = POFile.ParseError

        public var description: String {
            switch self {
            case .absent(let language): "no catalog for \(language)"
            case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
            case .malformed(let path, let error): "\(path) is not a valid PO file: \(error)"
            }
        }
    }

    /// The first `<folder>/<language>.po` present in `folders`, parsed.
    public static func load(language: String, from folders: [String]) throws(LoadError) -> MessageCatalog {
        for folder in folders {
            let path = folder + "/" + language + ".po"
            let bytes: [UInt8]?
            do {
                bytes = try SystemFile.readIfPresent(path) { info throws(CatalogFileRefused) in
                    guard info.st_mode & S_IFMT == S_IFREG else { throw CatalogFileRefused(reason: "not a regular file") }
                    guard info.st_size <= maxFileSize else { throw CatalogFileRefused(reason: "larger than \(maxFileSize) bytes") }
                }
            } catch let refused as CatalogFileRefused {
                throw .unreadable(path: path, reason: refused.reason)
            } catch {
                throw .unreadable(path: path, reason: "\(error)")
            }
            guard let bytes else { continue }
            guard let text = String(validUTF8: bytes) else { throw .unreadable(path: path, reason: "not UTF-8") }
            do { return MessageCatalog(language: language, entries: try POFile.parse(text)) } catch { throw .malformed(path: path, error) }
        }
        throw .absent(language: language)
    }
}

private struct CatalogFileRefused: Error {
    let reason: String
}
