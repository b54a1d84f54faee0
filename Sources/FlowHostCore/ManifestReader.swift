import FlowHostPOSIX
import FlowHostVocabulary
import FlowJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A manifest read in one pass over its text, without a tree of JSON
/// values: every flow's manifest is read at each start, and building,
/// walking and freeing a jansson tree for it cost several times this
/// (docs/performance.md, "The start path").
///
/// It reads only manifests that are plain and valid, and gives up on
/// anything else: an unknown or repeated key, a value of the wrong type, a
/// `\u` escape, a text that is not UTF-8, a schema nested deeper than
/// `maximumSchemaDepth`. `PluginManifest.parse` then reads the text through
/// the tree, whose refusal names what is wrong. So this reader never
/// accepts a manifest the tree reading refuses, and what it accepts it
/// reads the same way; `ManifestReaderTests` compares the two.
///
/// Schemas (a method's `result`, an event's `params`) are kept as JSON
/// values: each is found here and parsed on its own by `JSON.parse`.
///
/// What only describes (summaries, param descriptions, schemas) is checked
/// as strictly either way, and kept only when `keepsDescriptions`: the
/// loader drops it (`PluginManifest.Reading.enforced`).
struct ManifestReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var at = 0
    private let keepsDescriptions: Bool

    /// Why reading stopped; the tree reading says what is wrong.
    struct GiveUp: Error {}

    /// Deeper schemas go to the tree reading, whose limit counts the levels above them too.
    static let maximumSchemaDepth = 64

    /// The manifest in `text`, or nil when the tree reading must decide.
    static func read(_ text: UnsafeBufferPointer<UInt8>) -> PluginManifest? { read(text, .whole) }

    /// The same, keeping what only describes if `reading` says so.
    static func read(_ text: UnsafeBufferPointer<UInt8>, _ reading: PluginManifest.Reading) -> PluginManifest? {
        var reader = ManifestReader(bytes: text, keepsDescriptions: reading == .whole)
        return try? reader.manifest()
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, keepsDescriptions: Bool) {
        self.bytes = bytes
        self.keepsDescriptions = keepsDescriptions
    }

    // MARK: The manifest's levels

    /// Each level's keys (Protocol/schemas/manifest.schema.json), in the
    /// order its reader below numbers them.
    private static let rootKeys: [StaticString] = ["methods", "events", "services", "uses", "reads"]
    private static let methodKeys: [StaticString] = ["name", "summary", "params", "result", "answers", "startsDialogue"]
    private static let eventKeys: [StaticString] = ["name", "summary", "params", "challenge", "resting"]
    private static let serviceKeys: [StaticString] = ["name", "summary", "params"]
    private static let paramKeys: [StaticString] = ["name", "type", "required", "description", "format"]

    private mutating func manifest() throws(GiveUp) -> PluginManifest {
        var manifest = PluginManifest()
        manifest.readInOnePass = true
        try object(Self.rootKeys) { (reader: inout ManifestReader, key) throws(GiveUp) in
            switch key {
            case 0: try reader.array { (reader: inout ManifestReader) throws(GiveUp) in manifest.methods.append(try reader.method()) }
            case 1: try reader.array { (reader: inout ManifestReader) throws(GiveUp) in manifest.events.append(try reader.event()) }
            case 2: try reader.array { (reader: inout ManifestReader) throws(GiveUp) in manifest.services.append(try reader.service()) }
            case 3:
                try reader.array { (reader: inout ManifestReader) throws(GiveUp) in
                    let name = try reader.string()
                    guard !name.isEmpty else { throw GiveUp() }
                    manifest.uses.insert(name)
                }
            default:
                try reader.array { (reader: inout ManifestReader) throws(GiveUp) in
                    let topic = try reader.string()
                    guard FeedTopic.readableHostTopics.contains(topic) else { throw GiveUp() }
                    manifest.reads.insert(topic)
                }
            }
        }
        skipSpace()
        guard at == bytes.count else { throw GiveUp() }
        guard manifest.answerOutsideItsChallenges == nil else { throw GiveUp() }
        return manifest
    }

    private mutating func method() throws(GiveUp) -> MethodSpec {
        var (name, summary, params, result, answers, startsDialogue) = ("", "", [ParamSpec](), JSON?.none, [String](), false)
        try object(Self.methodKeys) { (reader: inout ManifestReader, key) throws(GiveUp) in
            switch key {
            case 0: name = try reader.string()
            case 1: summary = try reader.description()
            case 2: params = try reader.paramList()
            case 3: result = try reader.describingSchema()
            case 4:
                if reader.next == UInt8(ascii: "\"") {
                    answers = [try reader.string()]
                } else {
                    try reader.array { (reader: inout ManifestReader) throws(GiveUp) in answers.append(try reader.string()) }
                }
            default: startsDialogue = try reader.bool()
            }
        }
        guard !name.isEmpty else { throw GiveUp() }
        return MethodSpec(name: name, summary: summary, params: params, result: result, answers: answers, startsDialogue: startsDialogue)
    }

    private mutating func event() throws(GiveUp) -> EventSpec {
        var (name, summary, params, isChallenge, isResting) = ("", "", JSON?.none, false, false)
        try object(Self.eventKeys) { (reader: inout ManifestReader, key) throws(GiveUp) in
            switch key {
            case 0: name = try reader.string()
            case 1: summary = try reader.description()
            case 2: params = try reader.describingSchema()
            case 3: isChallenge = try reader.bool()
            default: isResting = try reader.bool()
            }
        }
        guard !name.isEmpty else { throw GiveUp() }
        return EventSpec(name: name, summary: summary, params: params, isChallenge: isChallenge, isResting: isResting)
    }

    private mutating func service() throws(GiveUp) -> ServiceSpec {
        var (name, summary, params) = ("", "", [ParamSpec]?.none)
        try object(Self.serviceKeys) { (reader: inout ManifestReader, key) throws(GiveUp) in
            switch key {
            case 0: name = try reader.string()
            case 1: summary = try reader.description()
            default: params = try reader.paramList()
            }
        }
        guard !name.isEmpty else { throw GiveUp() }
        return ServiceSpec(name: name, summary: summary, params: params)
    }

    private mutating func paramList() throws(GiveUp) -> [ParamSpec] {
        var params: [ParamSpec] = []
        try array { (reader: inout ManifestReader) throws(GiveUp) in params.append(try reader.param()) }
        guard !ParamSpec.repeatsAName(params) else { throw GiveUp() }
        return params
    }

    private mutating func param() throws(GiveUp) -> ParamSpec {
        var (name, type, required, description, format) = ("", ParamType?.none, true, "", ParamFormat?.none)
        try object(Self.paramKeys) { (reader: inout ManifestReader, key) throws(GiveUp) in
            switch key {
            case 0: name = try reader.string()
            case 1:
                guard let known = ParamType(rawValue: try reader.string()) else { throw GiveUp() }
                type = known
            case 2: required = try reader.bool()
            case 3: description = try reader.description()
            default:
                guard let known = ParamFormat(rawValue: try reader.string()) else { throw GiveUp() }
                format = known
            }
        }
        guard let type, !name.isEmpty, format == nil || type == .string else { throw GiveUp() }
        return ParamSpec(name: name, type: type, required: required, description: description, format: format)
    }

    // MARK: JSON

    private var next: UInt8? {
        mutating get {
            skipSpace()
            return at < bytes.count ? bytes[at] : nil
        }
    }

    /// The whitespace JSON allows, as the tree's reader skips it.
    private mutating func skipSpace() {
        while at < bytes.count {
            switch bytes[at] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): at += 1
            default: return
            }
        }
    }

    private mutating func take(_ byte: UInt8) throws(GiveUp) {
        guard next == byte else { throw GiveUp() }
        at += 1
    }

    /// An object whose keys are all in `keys`, none twice (the tree reading
    /// names an unknown key and refuses a repeated one): `member` reads each
    /// value, given its key's place in `keys`.
    private mutating func object(_ keys: [StaticString], _ member: (inout ManifestReader, Int) throws(GiveUp) -> Void) throws(GiveUp) {
        try take(UInt8(ascii: "{"))
        if next == UInt8(ascii: "}") {
            at += 1
            return
        }
        var seen: UInt32 = 0
        while true {
            let key = try plainString()
            guard let index = keys.firstIndex(where: { self.key(key, is: $0) }), seen & (1 << index) == 0 else { throw GiveUp() }
            seen |= 1 << index
            try take(UInt8(ascii: ":"))
            try member(&self, index)
            guard let separator = next else { throw GiveUp() }
            at += 1
            if separator == UInt8(ascii: "}") { return }
            guard separator == UInt8(ascii: ",") else { throw GiveUp() }
        }
    }

    private mutating func array(_ element: (inout ManifestReader) throws(GiveUp) -> Void) throws(GiveUp) {
        try take(UInt8(ascii: "["))
        if next == UInt8(ascii: "]") {
            at += 1
            return
        }
        while true {
            try element(&self)
            guard let separator = next else { throw GiveUp() }
            at += 1
            if separator == UInt8(ascii: "]") { return }
            guard separator == UInt8(ascii: ",") else { throw GiveUp() }
        }
    }

    private func key(_ key: Range<Int>, is name: StaticString) -> Bool {
        key.count == name.utf8CodeUnitCount && memcmp(bytes.baseAddress! + key.lowerBound, name.utf8Start, key.count) == 0
    }

    /// Where the run of plain ASCII bytes from `start` ends: at a quote,
    /// or at the first byte the careful loop in `string` must look at (a
    /// backslash, a control byte, a byte of a longer UTF-8 sequence), or at
    /// the text's end. A loop over a local index: a start reads 15 KB of
    /// manifests, most of it in names and summaries; `string`'s own share
    /// of a start was 210,000 instructions reading them byte by byte
    /// through `at` with the decoding's checks, and is 125,000 with this.
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

    /// A string without escapes, as its bytes (the quotes left out): a key.
    private mutating func plainString() throws(GiveUp) -> Range<Int> {
        try take(UInt8(ascii: "\""))
        let start = at
        while at < bytes.count {
            let byte = bytes[at]
            if byte == UInt8(ascii: "\"") {
                at += 1
                return start..<(at - 1)
            }
            guard byte >= 0x20, byte != UInt8(ascii: "\\") else { throw GiveUp() }
            at += 1
        }
        throw GiveUp()
    }

    /// A string value: UTF-8, with the one-letter escapes decoded.
    private mutating func string() throws(GiveUp) -> String {
        try take(UInt8(ascii: "\""))
        let start = at
        // Most strings are plain ASCII to their closing quote: made at once.
        let runEnd = plainRun(from: start)
        if runEnd < bytes.count, bytes[runEnd] == UInt8(ascii: "\"") {
            at = runEnd + 1
            return String(utf8: UnsafeBufferPointer(rebasing: bytes[start..<runEnd]))
        }
        var isASCII = true
        var decoded: [UInt8]?
        while at < bytes.count {
            let byte = bytes[at]
            switch byte {
            case UInt8(ascii: "\""):
                at += 1
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<(at - 1)])
                if let decoded {
                    guard let string = String(validUTF8: decoded) else { throw GiveUp() }
                    return string
                }
                if isASCII { return String(utf8: raw) }
                guard let string = String(validUTF8: raw) else { throw GiveUp() }
                return string
            case UInt8(ascii: "\\"):
                if decoded == nil { decoded = Array(bytes[start..<at]) }
                guard at + 1 < bytes.count else { throw GiveUp() }
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
                default: throw GiveUp()  // \u, or no escape at all
                }
                decoded!.append(unescaped)
                at += 2
            case 0..<0x20:
                throw GiveUp()
            default:
                if byte >= 0x80 { isASCII = false }
                decoded?.append(byte)
                at += 1
            }
        }
        throw GiveUp()
    }

    /// A summary or a description: checked as any string is, and made into
    /// one only when kept. Plain ASCII is stepped over; anything else goes
    /// through `string`, the one careful reading.
    private mutating func description() throws(GiveUp) -> String {
        if keepsDescriptions { return try string() }
        guard next == UInt8(ascii: "\"") else { throw GiveUp() }
        let quote = at
        let runEnd = plainRun(from: quote + 1)
        if runEnd < bytes.count, bytes[runEnd] == UInt8(ascii: "\"") {
            at = runEnd + 1
            return ""
        }
        _ = try string()
        return ""
    }

    /// A schema that only describes (a result, an event's params): checked
    /// by the strict reader either way, kept only when descriptions are.
    private mutating func describingSchema() throws(GiveUp) -> JSON? {
        let schema = try schema()
        return keepsDescriptions ? schema : nil
    }

    private mutating func bool() throws(GiveUp) -> Bool {
        if literal("true") { return true }
        if literal("false") { return false }
        throw GiveUp()
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
    private mutating func schema() throws(GiveUp) -> JSON {
        guard next != nil else { throw GiveUp() }
        let start = at
        var depth = 0
        repeat {
            guard at < bytes.count else { throw GiveUp() }
            switch bytes[at] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                guard depth <= Self.maximumSchemaDepth else { throw GiveUp() }
                at += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                guard depth >= 0 else { throw GiveUp() }
                at += 1
            case UInt8(ascii: "\""):
                at += 1
                while at < bytes.count, bytes[at] != UInt8(ascii: "\"") { at += bytes[at] == UInt8(ascii: "\\") ? 2 : 1 }
                guard at < bytes.count else { throw GiveUp() }
                at += 1
            case UInt8(ascii: ","), UInt8(ascii: ":"):
                guard depth > 0 else { throw GiveUp() }
                at += 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                at += 1
            default:
                // A scalar (or junk the parse below refuses): up to the next
                // byte that is structural, a quote or whitespace.
                repeat { at += 1 } while at < bytes.count && !Self.endsScalar(bytes[at])
            }
        } while depth > 0
        // The strict reader refuses what the tree reading would: text that is not UTF-8, a repeated key, a bad number.
        guard let value = try? JSON.parse(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<at]))) else { throw GiveUp() }
        return value
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
