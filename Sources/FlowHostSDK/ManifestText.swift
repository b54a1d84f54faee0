import FlowHostPOSIX
import FlowJSON

/// The manifest's JSON text, written straight from a declaration.
///
/// It used to be built as a tree of JSON values (each schema text parsed
/// into one), serialised, and freed: a third of a flow library's cost at
/// start. Nothing here needs a tree. Schema texts are copied as they are;
/// the host parses the whole manifest at load (duplicate keys refused) and
/// refuses the flow, naming where, if a schema is not JSON.
struct ManifestText {
    /// UTF-8 bytes: appending bytes costs a few instructions each, where
    /// `String`'s appends and index walks cost hundreds per call.
    private var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    var text: String { String(utf8: bytes) }

    /// A schema's JSON text, as it is.
    mutating func copy(_ fragment: String) {
        if fragment.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: Array(fragment.utf8))
        }
    }

    mutating func raw(_ fragment: StaticString) {
        fragment.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `"key":` after a comma unless `first`.
    mutating func key(_ name: StaticString, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        raw(name)
        raw("\":")
    }

    /// A JSON string: quote, backslash and control characters escaped;
    /// everything else (UTF-8 included) as it is.
    mutating func string(_ value: String) {
        JSONStringText.append(value, to: &bytes)
    }

    mutating func bool(_ value: Bool) { raw(value ? "true" : "false") }

    mutating func integer(_ value: Int32) {
        var digits: [UInt8] = []
        var rest = value.magnitude
        repeat {
            digits.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        bytes.append(contentsOf: digits.reversed())
    }

    /// `"name":true` when `isSet`; a flag that is off is left out.
    mutating func flag(_ name: StaticString, _ isSet: Bool) {
        guard isSet else { return }
        key(name)
        bool(true)
    }

    /// A JSON array of `items`, each written by `element`.
    mutating func list<Item>(_ items: [Item], _ element: (inout ManifestText, Item) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for index in items.indices {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            element(&self, items[index])
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Opens an entry's object with its `name` and `summary`; the caller adds
    /// its other members and the closing brace.
    mutating func openEntry(name: String, summary: String) {
        raw("{")
        key("name", first: true)
        string(name)
        key("summary")
        string(summary)
    }

    mutating func strings(_ values: [String]) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}

extension FlowDeclaration {
    /// The descriptor's manifest (spec §4): methods, events, services, uses
    /// and reads, in that order.
    func manifestText() -> String {
        var out = ManifestText(capacity: 4096)
        out.raw("{")
        out.key("methods", first: true)
        out.list(methods) { out, method in
            out.openEntry(name: method.name, summary: method.summary)
            out.key("params")
            Self.write(method.params, to: &out)
            if let result = method.resultSchema {
                out.key("result")
                out.copy(result)
            }
            if !method.answers.isEmpty {
                out.key("answers")
                out.strings(method.answers)
            }
            out.flag("startsDialogue", method.startsDialogue)
            if !method.errors.isEmpty {
                out.key("errors")
                out.list(method.errors) { out, error in
                    out.raw("{")
                    out.key("code", first: true)
                    out.integer(error.code)
                    out.key("message")
                    out.string(error.message)
                    if !error.description.isEmpty {
                        out.key("description")
                        out.string(error.description)
                    }
                    out.raw("}")
                }
            }
            out.raw("}")
        }
        out.key("events")
        out.list(events) { out, event in
            out.openEntry(name: event.name, summary: event.summary)
            out.key("challenge")
            out.bool(event.isChallenge)
            out.flag("resting", event.isResting)
            if let params = event.paramsSchema {
                out.key("params")
                out.copy(params)
            }
            out.raw("}")
        }
        out.key("services")
        out.list(services) { out, service in
            out.openEntry(name: service.name, summary: service.summary)
            if let params = service.params {
                out.key("params")
                Self.write(params, to: &out)
            }
            out.raw("}")
        }
        out.key("uses")
        out.strings(uses)
        if !reads.isEmpty {
            out.key("reads")
            out.strings(reads)
        }
        out.raw("}")
        return out.text
    }

    private static func write(_ params: [FlowParam], to out: inout ManifestText) {
        out.list(params) { out, param in
            out.raw("{")
            out.key("name", first: true)
            out.string(param.name)
            out.key("type")
            out.string(param.kind.rawValue)
            out.key("required")
            out.bool(param.required)
            out.key("description")
            out.string(param.description)
            if let format = param.format {
                out.key("format")
                out.string(format.rawValue)
            }
            out.flag("secret", param.secret)
            out.raw("}")
        }
    }
}
