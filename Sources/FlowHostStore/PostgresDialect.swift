/// The store's SQL is written once, for SQLite; these are the few rewrites
/// PostgreSQL needs, applied once per statement text.
enum PostgresDialect {
    /// `?` placeholders become `$1…` (outside string literals); the table
    /// `user` (a reserved word in PostgreSQL) is quoted; SQLite's `rowid`
    /// (creation order) is the `seq` column PostgreSQL's schema adds.
    static func translate(_ sql: String) -> String {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        var inString = false
        for character in sql {
            if character == "'" { inString.toggle() }
            if character == "?" && !inString {
                number += 1
                out += "$\(number)"
            } else {
                out.append(character)
            }
        }
        return quoteUserTable(out).replacingWord("rowid", with: "seq")
    }

    /// `user` as a table name (after FROM, INTO, UPDATE, JOIN, TABLE, REFERENCES, ON).
    static func quoteUserTable(_ sql: String) -> String {
        var words = sql.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let before: Set<String> = ["FROM", "INTO", "UPDATE", "JOIN", "TABLE", "REFERENCES", "ON", "EXISTS"]
        for index in words.indices.dropFirst() {
            let word = words[index]
            let previous = words[index - 1].trimmingCharacters(in: "\n\t")
            guard before.contains(previous.uppercased()) else { continue }
            if word == "user" || word.hasPrefix("user(") || word.hasPrefix("user\n") || word == "user;" {
                words[index] = "\"user\"" + word.dropFirst(4)
            }
        }
        return words.joined(separator: " ")
    }
}

extension String {
    fileprivate func trimmingCharacters(in characters: String) -> String {
        var text = Substring(self)
        while let last = text.last, characters.contains(last) { text.removeLast() }
        while let first = text.first, characters.contains(first) { text.removeFirst() }
        return String(text)
    }

    /// Replaces `word` where it stands alone (a whole identifier).
    fileprivate func replacingWord(_ word: String, with replacement: String) -> String {
        var out = "", identifier = ""
        func flush() {
            out += identifier == word ? replacement : identifier
            identifier = ""
        }
        for character in self {
            if character.isLetter || character.isNumber || character == "_" {
                identifier.append(character)
            } else {
                flush()
                out.append(character)
            }
        }
        flush()
        return out
    }
}
