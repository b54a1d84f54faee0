import FlowHostPOSIX
import FlowHostVocabulary
import FlowJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The manifest reader: one pass over the text, making the Swift values
/// directly, without a tree of JSON values. Every flow's manifest is read
/// at each start, and building, walking and freeing a tree for it cost
/// several times this (docs/performance.md, "The start path").
///
/// It reads JSON as FlowHost reads it everywhere (`JSON.parse`): a key
/// given twice, text that is not UTF-8, `\u0000` and more than 2048
/// levels are refused. A refusal names what is wrong and where: the key
/// path of the fault (`methods[2].params[0].type`), the nearest known key
/// for an unknown one, and for text that is not JSON its line, column and
/// an excerpt (`ManifestRefusal`).
///
/// Schemas (a method's `result`, an event's `params`) are kept as JSON
/// values: each is found here and parsed on its own by `JSON.parse`.
///
/// What only describes (summaries, param descriptions, schemas, the
/// messages of declared errors) is checked as strictly either way, and
/// kept only when `keepsDescriptions`: the loader drops it
/// (`PluginManifest.Reading.enforced`).
struct ManifestReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var at = 0
    private let keepsDescriptions: Bool

    /// How deep JSON may nest, the levels above a schema counted
    /// (`JSON.parse`'s limit, and jansson's).
    static let maximumDepth = 2048
    /// The levels above a schema: the manifest, its list, the entry.
    private static let levelsAboveASchema = 3

    static func read(_ text: UnsafeBufferPointer<UInt8>, _ reading: PluginManifest.Reading) throws(PluginManifest.Invalid) -> PluginManifest {
        var reader = ManifestReader(bytes: text, keepsDescriptions: reading == .whole)
        do { return try reader.manifest() } catch { throw error.invalid(in: text) }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, keepsDescriptions: Bool) {
        self.bytes = bytes
        self.keepsDescriptions = keepsDescriptions
    }

    // MARK: The manifest's levels

    /// Each level's keys (Protocol/schemas/manifest.schema.json, generated
    /// as `ManifestKeys`; a test holds them equal), in the order its
    /// reader below numbers them.
    private static let rootKeys: [StaticString] = ["methods", "events", "services", "uses", "reads"]
    private static let methodKeys: [StaticString] = ["name", "summary", "params", "result", "answers", "startsDialogue", "errors"]
    private static let eventKeys: [StaticString] = ["name", "summary", "params", "challenge", "resting"]
    private static let serviceKeys: [StaticString] = ["name", "summary", "params"]
    private static let paramKeys: [StaticString] = ["name", "type", "required", "description", "format", "secret"]
    private static let errorKeys: [StaticString] = ["code", "message", "description"]

    private mutating func manifest() throws(ManifestRefusal) -> PluginManifest {
        guard let first = next else { throw ManifestRefusal(syntax: "the text is empty", at: at) }
        guard first == UInt8(ascii: "{") else {
            guard Self.beginsAValue(first) else { throw ManifestRefusal(syntax: "expected '{'", at: at) }
            throw ManifestRefusal("manifest must be an object")
        }
        var manifest = PluginManifest()
        try object(Self.rootKeys, known: ManifestKeys.root) { (reader: inout ManifestReader, key) throws(ManifestRefusal) in
            switch key {
            case 0: try reader.array { (reader: inout ManifestReader) throws(ManifestRefusal) in manifest.methods.append(try reader.method()) }
            case 1: try reader.array { (reader: inout ManifestReader) throws(ManifestRefusal) in manifest.events.append(try reader.event()) }
            case 2: try reader.array { (reader: inout ManifestReader) throws(ManifestRefusal) in manifest.services.append(try reader.service()) }
            case 3:
                try reader.array { (reader: inout ManifestReader) throws(ManifestRefusal) in
                    let name = try reader.string(orElse: "must be a service name")
                    guard !name.isEmpty else { throw ManifestRefusal("must be a service name") }
                    manifest.uses.insert(name)
                }
            default:
                try reader.array { (reader: inout ManifestReader) throws(ManifestRefusal) in
                    let topic = try reader.string(orElse: "must be a host topic a flow may read (one of \(Self.hostTopics))")
                    guard FeedTopic.readableHostTopics.contains(topic) else {
                        throw ManifestRefusal(
                            "\"\(topic.prefix(80))\" is not a host topic a flow may read (one of \(Self.hostTopics)); a flow's own topics need no listing")
                    }
                    manifest.reads.insert(topic)
                }
            }
        }
        skipSpace()
        guard at == bytes.count else { throw ManifestRefusal(syntax: "text after the manifest's end", at: at) }
        if let (method, answered) = manifest.answerOutsideItsChallenges {
            throw ManifestRefusal("method \(method) answers \"\(answered)\", which is not a challenge event of this flow")
        }
        return manifest
    }

    /// The topics `reads` may list, for a refusal.
    private static var hostTopics: String { FeedTopic.readableHostTopics.sorted().joined(separator: ", ") }

    private mutating func method() throws(ManifestRefusal) -> MethodSpec {
        var method = MethodSpec(name: "")
        try object(Self.methodKeys, known: ManifestKeys.method) { (reader: inout ManifestReader, key) throws(ManifestRefusal) in
            switch key {
            case 0: method.name = try reader.name()
            case 1: method.summary = try reader.description()
            case 2: method.params = try reader.paramList()
            case 3: method.result = try reader.describingSchema()
            case 4: method.answers = try reader.answers()
            case 5: method.startsDialogue = try reader.bool()
            default: method.errors = try reader.errorList()
            }
        }
        try Self.requireName(method.name)
        return method
    }

    private mutating func event() throws(ManifestRefusal) -> EventSpec {
        var (name, summary, params, paramsText, isChallenge, isResting) = ("", "", JSON?.none, Range<Int>?.none, false, false)
        try object(Self.eventKeys, known: ManifestKeys.event) { (reader: inout ManifestReader, key) throws(ManifestRefusal) in
            switch key {
            case 0: name = try reader.name()
            case 1: summary = try reader.description()
            case 2:
                reader.skipSpace()
                let start = reader.at
                params = try reader.describingSchema()
                paramsText = start..<reader.at
            case 3: isChallenge = try reader.bool()
            default: isResting = try reader.bool()
            }
        }
        try Self.requireName(name)
        return EventSpec(name: name, summary: summary, params: params, paramsText: paramsText, isChallenge: isChallenge, isResting: isResting)
    }

    private mutating func service() throws(ManifestRefusal) -> ServiceSpec {
        var (name, summary, params) = ("", "", [ParamSpec]?.none)
        try object(Self.serviceKeys, known: ManifestKeys.service) { (reader: inout ManifestReader, key) throws(ManifestRefusal) in
            switch key {
            case 0: name = try reader.name()
            case 1: summary = try reader.description()
            default: params = try reader.paramList()
            }
        }
        try Self.requireName(name)
        return ServiceSpec(name: name, summary: summary, params: params)
    }

    private static func requireName(_ name: String) throws(ManifestRefusal) {
        guard !name.isEmpty else { throw ManifestRefusal("required non-empty string").within(.key("name")) }
    }

    private mutating func name() throws(ManifestRefusal) -> String {
        let name = try string(orElse: "required non-empty string")
        guard !name.isEmpty else { throw ManifestRefusal("required non-empty string") }
        return name
    }

    private mutating func answers() throws(ManifestRefusal) -> [String] {
        let problem = "must be a string or an array of strings"
        if next == UInt8(ascii: "\"") { return [try string(orElse: problem)] }
        guard next == UInt8(ascii: "[") else { throw wrongValue(problem) }
        var answers: [String] = []
        do {
            try array { (reader: inout ManifestReader) throws(ManifestRefusal) in answers.append(try reader.string(orElse: problem)) }
        } catch where error.offset == nil {
            throw ManifestRefusal(problem)  // said of the whole list, as of a single string
        }
        return answers
    }

    private mutating func paramList() throws(ManifestRefusal) -> [ParamSpec] {
        var params: [ParamSpec] = []
        try array { (reader: inout ManifestReader) throws(ManifestRefusal) in params.append(try reader.param()) }
        // A handful of params: compared pairwise, no set built.
        for index in params.indices where params[..<index].contains(where: { $0.name == params[index].name }) {
            throw ManifestRefusal("duplicate parameter name \"\(params[index].name)\"")
        }
        return params
    }

    private mutating func param() throws(ManifestRefusal) -> ParamSpec {
        var (name, typeName, type, required, description, formatName, secret) = ("", "", ParamType?.none, true, "", String?.none, false)
        try object(Self.paramKeys, known: ManifestKeys.param) { (reader: inout ManifestReader, key) throws(ManifestRefusal) in
            switch key {
            case 0: name = try reader.name()
            case 1:
                typeName = try reader.string(orElse: "required non-empty string")
                type = ParamType(rawValue: typeName)
                guard type != nil else {
                    throw ManifestRefusal(typeName.isEmpty ? "required non-empty string" : "unknown type \"\(typeName)\"")
                }
            case 2: required = try reader.bool()
            case 3: description = try reader.description()
            case 4: formatName = try reader.string(orElse: "must be a string (\(ParamFormat.allCases.map(\.rawValue).joined(separator: " or ")))")
            default: secret = try reader.bool()
            }
        }
        try Self.requireName(name)
        guard let type else { throw ManifestRefusal("required non-empty string").within(.key("type")) }
        var format: ParamFormat?
        if let formatName {
            guard let known = ParamFormat(rawValue: formatName) else {
                throw ManifestRefusal("unknown format \"\(formatName)\" for a \(typeName)").within(.key("format"))
            }
            guard type == .string else {
                throw ManifestRefusal("format \"\(formatName)\" is for a string param only, not a \(typeName)").within(.key("format"))
            }
            format = known
        }
        return ParamSpec(name: name, type: type, required: required, description: description, format: format, secret: secret)
    }

    private mutating func errorList() throws(ManifestRefusal) -> [DeclaredError] {
        var errors: [DeclaredError] = []
        try array { (reader: inout ManifestReader) throws(ManifestRefusal) in
            let declared = try reader.declaredError()
            if errors.contains(where: { $0.code == declared.code }) { throw ManifestRefusal("code \(declared.code) is declared twice") }
            errors.append(declared)
        }
        return errors
    }

    private mutating func declaredError() throws(ManifestRefusal) -> DeclaredError {
        var (code, message, description) = (Int?.none, "", "")
        var hasMessage = false
        try object(Self.errorKeys, known: ManifestKeys.error) { (reader: inout ManifestReader, key) throws(ManifestRefusal) in
            switch key {
            case 0: code = try reader.errorCode()
            case 1:
                hasMessage = true
                message = try reader.description(orElse: "required non-empty string", nonEmpty: true)
            default: description = try reader.description()
            }
        }
        guard let code else { throw ManifestRefusal("required: a non-zero integer").within(.key("code")) }
        guard hasMessage else { throw ManifestRefusal("required non-empty string").within(.key("message")) }
        return DeclaredError(code: code, message: message, description: description)
    }

    /// A JSON-RPC error code as the ABI carries it: a non-zero 32-bit integer.
    private mutating func errorCode() throws(ManifestRefusal) -> Int {
        let problem = "must be a non-zero integer from -2147483648 to 2147483647"
        guard let first = next else { throw wrongValue(problem) }
        guard first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { throw wrongValue(problem) }
        let start = at
        var negative = false
        if first == UInt8(ascii: "-") {
            negative = true
            at += 1
        }
        var magnitude = 0
        let digitsStart = at
        while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) {
            magnitude = min(magnitude * 10 + Int(bytes[at] - UInt8(ascii: "0")), Int(UInt32.max))
            at += 1
        }
        guard at > digitsStart, !(bytes[digitsStart] == UInt8(ascii: "0") && at - digitsStart > 1) else {
            throw ManifestRefusal(syntax: "invalid number", at: start)
        }
        if at < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[at]) {
            throw ManifestRefusal(problem)
        }
        let code = negative ? -magnitude : magnitude
        guard code != 0, code >= Int(Int32.min), code <= Int(Int32.max) else { throw ManifestRefusal(problem) }
        return code
    }

    // MARK: JSON

    private var next: UInt8? {
        mutating get {
            skipSpace()
            return at < bytes.count ? bytes[at] : nil
        }
    }

    /// The whitespace JSON allows.
    private mutating func skipSpace() {
        while at < bytes.count {
            switch bytes[at] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): at += 1
            default: return
            }
        }
    }

    private static func beginsAValue(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"),
            UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: false
        }
    }

    /// A value of another type than the one wanted says `problem`; where no
    /// value begins at all, the text is not JSON.
    private mutating func wrongValue(_ problem: @autoclosure () -> String) -> ManifestRefusal {
        guard let byte = next else { return ManifestRefusal(syntax: "the text ends where a value should be", at: at) }
        return Self.beginsAValue(byte) ? ManifestRefusal(problem()) : ManifestRefusal(syntax: "expected a value", at: at)
    }

    /// An object whose keys are all in `keys`, none twice: `member` reads
    /// each value, given its key's place in `keys`. An unknown key is
    /// refused with the nearest of `known` (the same names, as Strings).
    private mutating func object(
        _ keys: [StaticString], known: @autoclosure () -> Set<String>, _ member: (inout ManifestReader, Int) throws(ManifestRefusal) -> Void
    ) throws(ManifestRefusal) {
        guard next == UInt8(ascii: "{") else { throw wrongValue("must be an object") }
        at += 1
        if next == UInt8(ascii: "}") {
            at += 1
            return
        }
        var seen: UInt32 = 0
        while true {
            let keyStart = at
            let index = try keyIndex(keys, known: known())
            guard seen & (1 << index) == 0 else {
                throw ManifestRefusal(syntax: "key \"\(keys[index])\" given twice", at: keyStart)
            }
            seen |= 1 << index
            guard next == UInt8(ascii: ":") else { throw ManifestRefusal(syntax: "expected ':' after a key", at: at) }
            at += 1
            do { try member(&self, index) } catch { throw error.within(.key("\(keys[index])")) }
            guard let separator = next, separator == UInt8(ascii: "}") || separator == UInt8(ascii: ",") else {
                throw ManifestRefusal(syntax: "expected ',' or '}'", at: at)
            }
            at += 1
            if separator == UInt8(ascii: "}") { return }
        }
    }

    /// The place in `keys` of the key that starts here.
    private mutating func keyIndex(_ keys: [StaticString], known: @autoclosure () -> Set<String>) throws(ManifestRefusal) -> Int {
        guard next == UInt8(ascii: "\"") else { throw ManifestRefusal(syntax: "expected a key in quotes", at: at) }
        let start = at + 1
        let runEnd = plainRun(from: start)
        if runEnd < bytes.count, bytes[runEnd] == UInt8(ascii: "\"") {
            at = runEnd + 1
            if let index = keys.firstIndex(where: { Self.same(UnsafeBufferPointer(rebasing: bytes[start..<runEnd]), $0) }) { return index }
            throw Self.unknownKey(String(utf8: UnsafeBufferPointer(rebasing: bytes[start..<runEnd])), known: known())
        }
        // A key with escapes or beyond ASCII: decoded, then compared.
        let key = try string(orElse: "")
        var decoded = key
        if let index = decoded.withUTF8({ text in keys.firstIndex { Self.same(text, $0) } }) { return index }
        throw Self.unknownKey(key, known: known())
    }

    private static func same(_ text: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        text.count == name.utf8CodeUnitCount && (text.count == 0 || memcmp(text.baseAddress!, name.utf8Start, text.count) == 0)
    }

    private static func unknownKey(_ key: String, known: Set<String>) -> ManifestRefusal {
        let suggestion = NearestName.to(key, in: known).map { "; did you mean \"\($0)\"?" } ?? ""
        return ManifestRefusal("unknown key\(suggestion)").within(.key(key))
    }

    private mutating func array(_ element: (inout ManifestReader) throws(ManifestRefusal) -> Void) throws(ManifestRefusal) {
        guard next == UInt8(ascii: "[") else { throw wrongValue("must be an array") }
        at += 1
        if next == UInt8(ascii: "]") {
            at += 1
            return
        }
        var index = 0
        while true {
            do { try element(&self) } catch { throw error.within(.index(index)) }
            index += 1
            guard let separator = next, separator == UInt8(ascii: "]") || separator == UInt8(ascii: ",") else {
                throw ManifestRefusal(syntax: "expected ',' or ']'", at: at)
            }
            at += 1
            if separator == UInt8(ascii: "]") { return }
        }
    }

    /// Where the run of plain ASCII bytes from `start` ends: at a quote,
    /// or at the first byte the careful loop in `string` must look at (a
    /// backslash, a control byte, a byte of a longer UTF-8 sequence), or at
    /// the text's end. A loop over a local index: most of a manifest's
    /// bytes are in names and summaries.
    private func plainRun(from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        var index = start
        while index < bytes.count {
            let byte = base[index]
            if byte == UInt8(ascii: "\"") || byte < 0x20 || byte >= 0x80 || byte == UInt8(ascii: "\\") { break }
            index += 1
        }
        return index
    }

    /// A string value: UTF-8, its escapes decoded; another value says `problem`.
    /// (`problem` is made only when refusing: a manifest is read at each start.)
    private mutating func string(orElse problem: @autoclosure () -> String = "must be a string") throws(ManifestRefusal) -> String {
        guard next == UInt8(ascii: "\"") else { throw wrongValue(problem()) }
        let quote = at
        at += 1
        let start = at
        // Most strings are plain ASCII to their closing quote: made at once.
        let runEnd = plainRun(from: start)
        if runEnd < bytes.count, bytes[runEnd] == UInt8(ascii: "\"") {
            at = runEnd + 1
            return String(utf8: UnsafeBufferPointer(rebasing: bytes[start..<runEnd]))
        }
        var decoded: [UInt8] = Array(bytes[start..<runEnd])
        at = runEnd
        while at < bytes.count {
            let byte = bytes[at]
            switch byte {
            case UInt8(ascii: "\""):
                at += 1
                guard let string = String(validUTF8: decoded) else { throw ManifestRefusal(syntax: "a string that is not UTF-8", at: quote) }
                return string
            case UInt8(ascii: "\\"):
                try unescape(into: &decoded)
            case 0..<0x20:
                throw ManifestRefusal(syntax: "a control character in a string (write it as an escape)", at: at)
            default:
                decoded.append(byte)
                at += 1
            }
        }
        throw ManifestRefusal(syntax: "a string without its closing quote", at: quote)
    }

    /// The escape at `at`, decoded onto `decoded`.
    private mutating func unescape(into decoded: inout [UInt8]) throws(ManifestRefusal) {
        let escape = at
        guard at + 1 < bytes.count else { throw ManifestRefusal(syntax: "a string without its closing quote", at: escape) }
        let unescaped: UInt8
        switch bytes[at + 1] {
        case UInt8(ascii: "\""): unescaped = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): unescaped = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): unescaped = UInt8(ascii: "/")
        case UInt8(ascii: "b"): unescaped = 0x08
        case UInt8(ascii: "f"): unescaped = 0x0C
        case UInt8(ascii: "n"): unescaped = 0x0A
        case UInt8(ascii: "r"): unescaped = 0x0D
        case UInt8(ascii: "t"): unescaped = 0x09
        case UInt8(ascii: "u"):
            at += 2
            var scalar = try hexQuad(escape)
            if (0xD800...0xDBFF).contains(scalar) {
                guard at + 1 < bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else {
                    throw ManifestRefusal(syntax: "a \\u escape of half a surrogate pair", at: escape)
                }
                at += 2
                let low = try hexQuad(escape)
                guard (0xDC00...0xDFFF).contains(low) else { throw ManifestRefusal(syntax: "a \\u escape of half a surrogate pair", at: escape) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw ManifestRefusal(syntax: "a \\u escape of half a surrogate pair", at: escape)
            }
            guard scalar != 0 else { throw ManifestRefusal(syntax: "\\u0000 is not allowed", at: escape) }
            Self.appendUTF8(scalar, to: &decoded)
            return
        default:
            throw ManifestRefusal(syntax: "an unknown escape", at: escape)
        }
        decoded.append(unescaped)
        at += 2
    }

    private static func appendUTF8(_ scalar: UInt32, to bytes: inout [UInt8]) {
        switch scalar {
        case 0..<0x80: bytes.append(UInt8(scalar))
        case 0x80..<0x800: bytes += [UInt8(0xC0 | scalar >> 6), UInt8(0x80 | scalar & 0x3F)]
        case 0x800..<0x10000: bytes += [UInt8(0xE0 | scalar >> 12), UInt8(0x80 | scalar >> 6 & 0x3F), UInt8(0x80 | scalar & 0x3F)]
        default:
            bytes += [UInt8(0xF0 | scalar >> 18), UInt8(0x80 | scalar >> 12 & 0x3F), UInt8(0x80 | scalar >> 6 & 0x3F), UInt8(0x80 | scalar & 0x3F)]
        }
    }

    private mutating func hexQuad(_ escape: Int) throws(ManifestRefusal) -> UInt32 {
        guard at + 4 <= bytes.count else { throw ManifestRefusal(syntax: "a \\u escape without four hex digits", at: escape) }
        var value: UInt32 = 0
        for byte in bytes[at..<(at + 4)] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw ManifestRefusal(syntax: "a \\u escape without four hex digits", at: escape)
            }
            value = value << 4 | UInt32(digit)
        }
        at += 4
        return value
    }

    /// A summary or a description: checked as any string is, and made into
    /// one only when kept. Plain ASCII is stepped over; anything else goes
    /// through `string`, the one careful reading.
    private mutating func description(orElse problem: @autoclosure () -> String = "must be a string", nonEmpty: Bool = false) throws(ManifestRefusal) -> String {
        guard next == UInt8(ascii: "\"") else { throw wrongValue(problem()) }
        if !keepsDescriptions {
            let runEnd = plainRun(from: at + 1)
            if runEnd < bytes.count, bytes[runEnd] == UInt8(ascii: "\"") {
                guard !nonEmpty || runEnd > at + 1 else { throw ManifestRefusal(problem()) }
                at = runEnd + 1
                return ""
            }
        }
        let text = try string(orElse: problem())
        guard !nonEmpty || !text.isEmpty else { throw ManifestRefusal(problem()) }
        return keepsDescriptions ? text : ""
    }

    /// A schema that only describes (a result, an event's params): checked
    /// by the strict reader either way, kept only when descriptions are.
    private mutating func describingSchema() throws(ManifestRefusal) -> JSON? {
        let schema = try schema()
        return keepsDescriptions ? schema : nil
    }

    private mutating func bool() throws(ManifestRefusal) -> Bool {
        if literal("true") { return true }
        if literal("false") { return false }
        if next == UInt8(ascii: "t") || next == UInt8(ascii: "f") { throw ManifestRefusal(syntax: "expected true or false", at: at) }
        throw wrongValue("must be true or false")
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        guard next != nil, bytes.count - at >= word.utf8CodeUnitCount,
            memcmp(bytes.baseAddress! + at, word.utf8Start, word.utf8CodeUnitCount) == 0
        else { return false }
        at += word.utf8CodeUnitCount
        return true
    }

    /// A schema: any JSON value, found by its brackets and strings, then
    /// parsed on its own by the strict reader (duplicate keys, numbers, UTF-8).
    private mutating func schema() throws(ManifestRefusal) -> JSON {
        guard next != nil else { throw ManifestRefusal(syntax: "the text ends where a value should be", at: at) }
        let start = at
        var depth = 0
        repeat {
            guard at < bytes.count else { throw ManifestRefusal(syntax: "the text ends inside a schema", at: start) }
            switch bytes[at] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                guard depth + Self.levelsAboveASchema <= Self.maximumDepth else {
                    throw ManifestRefusal(syntax: "nested deeper than \(Self.maximumDepth) levels", at: at)
                }
                at += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                guard depth >= 0 else { throw ManifestRefusal(syntax: "expected a value", at: at) }
                at += 1
            case UInt8(ascii: "\""):
                at += 1
                while at < bytes.count, bytes[at] != UInt8(ascii: "\"") { at += bytes[at] == UInt8(ascii: "\\") ? 2 : 1 }
                guard at < bytes.count else { throw ManifestRefusal(syntax: "a string without its closing quote", at: start) }
                at += 1
            case UInt8(ascii: ","), UInt8(ascii: ":"):
                guard depth > 0 else { throw ManifestRefusal(syntax: "expected a value", at: at) }
                at += 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                at += 1
            default:
                // A scalar (or junk the parse below refuses): up to the next
                // byte that is structural, a quote or whitespace.
                repeat { at += 1 } while at < bytes.count && !Self.endsScalar(bytes[at])
            }
        } while depth > 0
        let text = UnsafeBufferPointer(rebasing: bytes[start..<at])
        do {
            return try JSON.parse(UnsafeRawBufferPointer(text))
        } catch {
            throw ManifestRefusal(syntax: error.message, at: start + Self.offset(ofLine: error.line, column: error.column, in: text))
        }
    }

    /// The offset of a line and column as jansson counts them (from 1; a
    /// column past the end of its line: the line's end).
    private static func offset(ofLine line: Int, column: Int, in text: UnsafeBufferPointer<UInt8>) -> Int {
        var lineStart = 0
        var seen = 1
        for index in text.indices where seen < line && text[index] == UInt8(ascii: "\n") {
            seen += 1
            lineStart = index + 1
        }
        var lineEnd = lineStart
        while lineEnd < text.count, text[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
        return min(lineStart + max(column - 1, 0), lineEnd)
    }

    private static func endsScalar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"),
            UInt8(ascii: "\""), UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
            true
        default: false
        }
    }
}
