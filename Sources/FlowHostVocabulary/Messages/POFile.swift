/// A gettext PO file read into `(msgctxt, msgid) → msgstr`, without
/// Foundation: what translators edit (docs/translating.md). Supported:
/// `msgctxt`, `msgid`, `msgstr`, strings continued on following lines,
/// the C escapes gettext writes (`\n \t \r \" \\`), comments, and the
/// `fuzzy` flag (such an entry is skipped, as gettext does). Plural forms
/// are refused: no message of FlowHost has one.
public enum POFile {
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public let line: Int
        public let reason: String
        public var description: String { "line \(line): \(reason)" }

        public init(line: Int, reason: String) {
            self.line = line
            self.reason = reason
        }
    }

    /// The translated entries: an empty `msgstr` (not yet translated) and the
    /// header (`msgid ""`) are left out.
    public static func parse(_ text: String) throws(ParseError) -> [MessageKey: String] {
        var entries: [MessageKey: String] = [:]
        var entry = Entry()
        var field: WritableKeyPath<Entry, String?>?
        var lineNumber = 0

        func finish() throws(ParseError) {
            // A string after the entry's end continues nothing.
            defer { (entry, field) = (Entry(), nil) }
            guard entry.msgid != nil || entry.msgstr != nil || entry.msgctxt != nil else { return }
            guard let id = entry.msgid, let translation = entry.msgstr else {
                throw ParseError(line: lineNumber, reason: "an entry needs both msgid and msgstr")
            }
            guard !id.isEmpty, !translation.isEmpty, !entry.fuzzy else { return }
            let key = MessageKey(context: entry.msgctxt ?? "", id: id)
            guard entries.updateValue(translation, forKey: key) == nil else {
                throw ParseError(line: lineNumber, reason: "msgid \"\(id)\" appears twice in context \"\(key.context)\"")
            }
        }

        // "\r\n" is one Character: an editor on Windows writes it.
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let line = raw.trimmingSpaces
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                // A flags comment ("#, fuzzy, c-format") before the entry it marks.
                if line.hasPrefix("#,") {
                    if entry.msgstr != nil { try finish() }
                    if line.dropFirst(2).split(separator: ",").contains(where: { $0.trimmingSpaces == "fuzzy" }) { entry.fuzzy = true }
                }
                continue
            }
            if line.hasPrefix("\"") {
                guard let current = field else { throw ParseError(line: lineNumber, reason: "a string continues no keyword") }
                entry[keyPath: current]! += try quoted(line, lineNumber)
                continue
            }
            let keyword = line.prefix { $0 != " " && $0 != "\t" && $0 != "\"" }
            let path: WritableKeyPath<Entry, String?>
            switch keyword {
            case "msgctxt": path = \.msgctxt
            case "msgid": path = \.msgid
            case "msgstr": path = \.msgstr
            case "msgid_plural": throw ParseError(line: lineNumber, reason: "plural forms are not supported")
            default:
                if keyword.hasPrefix("msgstr[") { throw ParseError(line: lineNumber, reason: "plural forms are not supported") }
                throw ParseError(line: lineNumber, reason: "unknown keyword \(keyword)")
            }
            // A msgctxt or msgid after a msgstr starts the next entry.
            if path != \.msgstr, entry.msgstr != nil { try finish() }
            guard entry[keyPath: path] == nil else { throw ParseError(line: lineNumber, reason: "\(keyword) given twice in one entry") }
            if path == \.msgstr, entry.msgid == nil { throw ParseError(line: lineNumber, reason: "msgstr before its msgid") }
            if path == \.msgctxt, entry.msgid != nil { throw ParseError(line: lineNumber, reason: "msgctxt after its msgid") }
            entry[keyPath: path] = try quoted(line.dropFirst(keyword.count).trimmingSpaces, lineNumber)
            field = path
        }
        try finish()
        return entries
    }

    private struct Entry {
        var msgctxt: String?
        var msgid: String?
        var msgstr: String?
        var fuzzy = false
    }

    /// The text of one `"…"` with its escapes undone.
    private static func quoted(_ text: Substring, _ line: Int) throws(ParseError) -> String {
        guard text.count >= 2, text.first == "\"", text.last == "\"" else {
            throw ParseError(line: line, reason: "expected a string in double quotes")
        }
        var result = ""
        var escaped = false
        for character in text.dropFirst().dropLast() {
            if escaped {
                switch character {
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                case "\"": result.append("\"")
                case "\\": result.append("\\")
                default: throw ParseError(line: line, reason: "unknown escape \\\(character)")
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                throw ParseError(line: line, reason: "a double quote inside a string must be escaped")
            } else {
                result.append(character)
            }
        }
        if escaped { throw ParseError(line: line, reason: "the string ends in a lone backslash") }
        return result
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return text
    }
}
