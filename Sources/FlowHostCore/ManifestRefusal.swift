import FlowHostPOSIX

/// Why `ManifestReader` refuses a manifest, and where: the key path of the
/// fault (`methods[2].params[0].type`) and, for text that is not JSON, its
/// place in the text.
///
/// The path is built as the refusal travels up through the levels that
/// read it, innermost first: a manifest that is read costs nothing for it.
struct ManifestRefusal: Error {
    enum Segment {
        case key(String)
        case index(Int)
    }

    /// What is wrong, without the path: `must be true or false`.
    let problem: String
    /// The byte where the text stops being JSON; nil for a fault of content.
    let offset: Int?
    private var innermostFirst: [Segment] = []

    init(_ problem: String) {
        self.problem = problem
        offset = nil
    }

    init(syntax problem: String, at offset: Int) {
        self.problem = problem
        self.offset = offset
    }

    /// This refusal, one level further out.
    func within(_ segment: Segment) -> ManifestRefusal {
        var outer = self
        outer.innermostFirst.append(segment)
        return outer
    }

    /// `methods[2].params[0].type`; empty at the manifest's top.
    var path: String {
        var text = ""
        for segment in innermostFirst.reversed() {
            switch segment {
            case .key(let key): text += text.isEmpty ? key : "." + key
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    /// The refusal's one line: `path: problem`, or for text that is not
    /// JSON, the line, column and an excerpt: a flow's SDK copies its schema
    /// texts into the manifest as they are, so this names the text its
    /// author got wrong.
    func invalid(in text: UnsafeBufferPointer<UInt8>) -> PluginManifest.Invalid {
        guard let offset else { return PluginManifest.Invalid(description: path.isEmpty ? problem : "\(path): \(problem)") }
        let place = Self.place(of: min(offset, text.count), in: text)
        let within = path.isEmpty ? "" : " (in \(path))"
        return PluginManifest.Invalid(
            description: "manifest is not JSON: \(problem) at line \(place.line), column \(place.column)\(within) near \"\(place.excerpt)\"")
    }

    /// The line and column (from 1, in bytes) of `offset`, and the text of
    /// its line around it.
    private static func place(of offset: Int, in text: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int, excerpt: String) {
        var line = 1
        var lineStart = 0
        for index in 0..<offset where text[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        var lineEnd = offset
        while lineEnd < text.count, text[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
        let from = max(lineStart, offset - 60)
        let to = min(lineEnd, offset + 20)
        let excerpt = String(utf8: UnsafeBufferPointer(rebasing: text[from..<to]))
        return (line, offset - lineStart + 1, excerpt)
    }
}
