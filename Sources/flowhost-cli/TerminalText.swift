import FlowHostVocabulary

/// Text for the operator's terminal. What the admin commands print comes
/// from the store, and the store holds what clients sent (device ids and
/// names, user ids typed by strangers): every interpolated value is
/// escaped (`\u{1B}` for ESC, `\u{0A}` for a line break), so no value can
/// clear the screen or lay a forged line into the output. Only the
/// command's own literals are printed as they are.
struct TerminalText: ExpressibleByStringInterpolation {
    let text: String

    init(stringLiteral value: String) { text = value }
    init(stringInterpolation: Interpolation) { text = stringInterpolation.text }
    /// Lines, each escaped already, one per line.
    init(lines: [TerminalText]) { text = lines.map(\.text).joined(separator: "\n") }

    struct Interpolation: StringInterpolationProtocol {
        var text = ""
        init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity) }
        mutating func appendLiteral(_ literal: String) { text += literal }
        mutating func appendInterpolation(_ value: some CustomStringConvertible) { text += TerminalText.escaped(value.description) }
        /// Text built the same way is escaped already.
        mutating func appendInterpolation(_ value: TerminalText) { text += value.text }
    }

    static func + (left: TerminalText, right: TerminalText) -> TerminalText { TerminalText(stringLiteral: left.text + right.text) }

    /// Control, format and separator characters as `\u{…}` escapes.
    static func escaped(_ value: String) -> String {
        guard value.unicodeScalars.contains(where: UserIdentifier.isForbidden) else { return value }
        var shown = ""
        for scalar in value.unicodeScalars {
            if UserIdentifier.isForbidden(scalar) { shown += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}" } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }
}
