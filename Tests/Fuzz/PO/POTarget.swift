import FlowHostVocabulary
import FuzzSupport

/// The PO reader on any bytes a catalog folder may hold: entries or a
/// ParseError, never a crash; and a catalog built from what it read uses no
/// translation whose placeholders are not its msgid's.
func fuzzPO(_ input: UnsafeRawBufferPointer) {
    guard let text = String(validUTF8: Array(input)) else { return }
    guard let entries = try? POFile.parse(text) else { return }
    let catalog = MessageCatalog(language: "xx", entries: entries)
    for key in catalog.keys {
        guard let translation = catalog.translation(key), MessageKey.placeholders(in: translation) == MessageKey.placeholders(in: key.id) else {
            fatalError("a translation with other placeholders is used: \(key)")
        }
    }
}

@main struct FuzzMain {
    static func main() { FuzzEntry.run(fuzzPO) }
}
