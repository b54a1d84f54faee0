import FlowHostPOSIX
import FlowHostVocabulary
import FlowJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ParamType {
    func accepts(_ kind: JSONKind) -> Bool {
        switch self {
        case .any: true
        case .string: kind == .string
        case .integer: kind == .integer
        case .number: kind == .integer || kind == .real
        case .boolean: kind == .bool
        case .object: kind == .object
        case .array: kind == .array
        }
    }
}

public struct ParamSpec: Equatable {
    public var name: String
    public var type: ParamType
    public var required: Bool
    public var description: String
    public var format: ParamFormat?

    public init(name: String, type: ParamType, required: Bool = true, description: String = "", format: ParamFormat? = nil) {
        self.name = name
        self.type = type
        self.required = required
        self.description = description
        self.format = format
    }
}

extension ParamSpec {
    /// The contract without its prose: what two flows declaring one answer method must agree on.
    var withoutDescription: ParamSpec {
        var contract = self
        contract.description = ""
        return contract
    }

    /// Whether two of `params` share a name: both manifest readings refuse it.
    /// A handful of params: compared pairwise, no set built.
    static func repeatsAName(_ params: [ParamSpec]) -> Bool {
        params.indices.contains { index in params[..<index].contains { $0.name == params[index].name } }
    }
}

public struct MethodSpec {
    public var name: String
    public var summary: String
    public var params: [ParamSpec]
    /// JSON Schema of the result (for rpc.discover); nil means unspecified.
    public var result: JSON?
    /// The challenge events this method answers; empty for an ordinary method.
    public var answers: [String]
    /// It starts a dialogue (challenges, host requests, service calls): it
    /// is refused while another dialogue is in progress.
    public var startsDialogue: Bool

    public init(
        name: String, summary: String = "", params: [ParamSpec] = [], result: JSON? = nil, answers: [String] = [], startsDialogue: Bool = false
    ) {
        self.name = name
        self.summary = summary
        self.params = params
        self.result = result
        self.answers = answers
        self.startsDialogue = startsDialogue
    }

    /// Two flows may both declare an answer method only if they agree on it:
    /// its challenges and its params' names, types, formats and whether
    /// each is required. Descriptions may differ (`rpc.discover` shows the
    /// first flow's).
    func isCompatible(with other: MethodSpec) -> Bool {
        !answers.isEmpty && answers == other.answers
            && params.map(\.withoutDescription) == other.params.map(\.withoutDescription)
    }
}

public struct EventSpec {
    public var name: String
    public var summary: String
    public var params: JSON?
    /// A challenge event opens a challenge that an answer method closes.
    public var isChallenge: Bool
    /// A resting challenge (the SDK's `getUser` while no one is logged in)
    /// never expires.
    public var isResting: Bool = false
}

public struct ServiceSpec {
    public var name: String
    public var summary: String
    /// Declared params, checked before the provider runs; nil: unchecked
    /// (a manifest without `params` for a service).
    public var params: [ParamSpec]?
}

/// What a flow declares about itself: the `manifest` JSON of its descriptor.
public struct PluginManifest {
    public var methods: [MethodSpec]
    public var events: [EventSpec]
    public var services: [ServiceSpec]
    /// The services this flow may call (host services included).
    public var uses: Set<String>
    /// The host's change-feed topics this flow may subscribe to (ABI 1.3);
    /// its own topics (`<name>.…`) need no listing.
    public var reads: Set<String>
    /// Read by `ManifestReader` (not through the tree): every built flow's
    /// is, and the host says at debug level of one that is not.
    var readInOnePass = false

    public init(
        methods: [MethodSpec] = [], events: [EventSpec] = [], services: [ServiceSpec] = [], uses: Set<String> = [], reads: Set<String> = []
    ) {
        self.methods = methods
        self.events = events
        self.services = services
        self.uses = uses
        self.reads = reads
    }

    /// The first method, and the event it answers, where that event is not
    /// a challenge event of this flow: both manifest readings refuse it.
    var answerOutsideItsChallenges: (method: String, event: String)? {
        let challengeEvents = Set(events.filter(\.isChallenge).map(\.name))
        for method in methods {
            if let answered = method.answers.first(where: { !challengeEvents.contains($0) }) { return (method.name, answered) }
        }
        return nil
    }

    /// A manifest refused for a reason that names the offending key.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// How much of a manifest a reading keeps. The host enforces names,
    /// params, answers, uses and reads; summaries, param descriptions and
    /// the schemas of results and events only describe (`rpc.discover`).
    /// Both readings check all of it the same way.
    public enum Reading: Sendable {
        case whole
        /// What the host enforces: descriptions are empty, schemas nil. A
        /// loaded flow is held this way, and its descriptions read again
        /// from the descriptor when asked (`LoadedPlugin.describedManifest`).
        case enforced
    }

    public static func parse(_ text: String, _ reading: Reading = .whole) throws(Invalid) -> PluginManifest {
        // The one-pass reader takes a plain, valid manifest; anything else is
        // read through the tree below, whose refusal names what is wrong.
        if let manifest = text.utf8.withContiguousStorageIfAvailable({ ManifestReader.read($0, reading) }) ?? nil { return manifest }
        return try parseThroughTree(text).kept(reading)
    }

    /// The manifest in a descriptor's C string, read where it lies: copied
    /// into a String only when the tree reading must decide, so a start
    /// makes no copy of each flow's manifest (a few KB each) to read it.
    static func parse(cString: UnsafePointer<CChar>, _ reading: Reading = .whole) throws(Invalid) -> PluginManifest {
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self), count: strlen(cString))
        if let manifest = ManifestReader.read(bytes, reading) { return manifest }
        return try parseThroughTree(String(cString: cString)).kept(reading)
    }

    /// This manifest as `reading` keeps it.
    func kept(_ reading: Reading) -> PluginManifest {
        guard reading == .enforced else { return self }
        var enforced = self
        for index in enforced.methods.indices {
            enforced.methods[index].summary = ""
            enforced.methods[index].result = nil
            enforced.methods[index].params = enforced.methods[index].params.map(\.withoutDescription)
        }
        for index in enforced.events.indices {
            enforced.events[index].summary = ""
            enforced.events[index].params = nil
        }
        for index in enforced.services.indices {
            enforced.services[index].summary = ""
            enforced.services[index].params = enforced.services[index].params?.map(\.withoutDescription)
        }
        return enforced
    }

    /// The manifest read through a tree of JSON values, every check naming
    /// the offending key: a manifest `ManifestReader` gave up on.
    static func parseThroughTree(_ text: String) throws(Invalid) -> PluginManifest {
        let root: JSON
        do { root = try JSON.parse(text) } catch { throw Invalid(description: "manifest is not JSON: \(error)\(excerpt(of: text, at: error))") }
        // Read through borrowed nodes: the root owns every value they reach.
        let outcome = root.withUnsafeRaw { raw in Result { () throws(Invalid) in try read(ManifestNode(raw: raw)) } }
        return try outcome.get()
    }

    private static func read(_ root: ManifestNode) throws(Invalid) -> PluginManifest {
        guard root.kind == .object else { throw Invalid(description: "manifest must be an object") }
        if let unknown = ManifestKeys.unknown(in: root, at: "", known: .root) { throw Invalid(description: unknown) }
        var manifest = PluginManifest()
        for (index, method) in try list(root, "methods").enumerated() {
            func at() -> String { "methods[\(index)]" }
            let name = try string(method, "name", at())
            try check(method, at(), known: .method, booleans: ["startsDialogue"], strings: ["summary"])
            let params = try paramList(method, at())
            var answers: [String] = []
            if let declared = method["answers"] {
                if let single = declared.string {
                    answers = [single]
                } else if declared.kind == .array, declared.elements.allSatisfy({ $0.kind == .string }) {
                    answers = declared.elements.compactMap(\.string)
                } else {
                    throw Invalid(description: "\(at()).answers: must be a string or an array of strings")
                }
            }
            manifest.methods.append(
                MethodSpec(
                    name: name, summary: method["summary"]?.string ?? "", params: params,
                    result: method["result"]?.retained, answers: answers, startsDialogue: method["startsDialogue"]?.bool ?? false))
        }
        for (index, event) in try list(root, "events").enumerated() {
            func at() -> String { "events[\(index)]" }
            try check(event, at(), known: .event, booleans: ["challenge", "resting"], strings: ["summary"])
            manifest.events.append(
                EventSpec(
                    name: try string(event, "name", at()), summary: event["summary"]?.string ?? "",
                    params: event["params"]?.retained, isChallenge: event["challenge"]?.bool ?? false,
                    isResting: event["resting"]?.bool ?? false))
        }
        for (index, service) in try list(root, "services").enumerated() {
            func at() -> String { "services[\(index)]" }
            try check(service, at(), known: .service, booleans: [], strings: ["summary"])
            manifest.services.append(
                ServiceSpec(
                    name: try string(service, "name", at()), summary: service["summary"]?.string ?? "",
                    params: service["params"] == nil ? nil : try paramList(service, at())))
        }
        for (index, used) in try list(root, "uses").enumerated() {
            guard let name = used.string, !name.isEmpty else { throw Invalid(description: "uses[\(index)]: must be a service name") }
            manifest.uses.insert(name)
        }
        for (index, read) in try list(root, "reads").enumerated() {
            guard let topic = read.string, FeedTopic.readableHostTopics.contains(topic) else {
                throw Invalid(
                    description: "reads[\(index)]: \(read.retained.serialized().prefix(80)) is not a host topic a flow may read (one of "
                        + FeedTopic.readableHostTopics.sorted().joined(separator: ", ") + "); a flow's own topics need no listing")
            }
            manifest.reads.insert(topic)
        }
        if let (method, answered) = manifest.answerOutsideItsChallenges {
            throw Invalid(description: "method \(method) answers \"\(answered)\", which is not a challenge event of this flow")
        }
        return manifest
    }

    /// Where a manifest stops being JSON, quoted: a flow's SDK copies its
    /// schema texts into the manifest as they are, so this names the schema
    /// its author got wrong.
    private static func excerpt(of text: String, at error: JSONParseError) -> String {
        let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard error.line >= 1, error.line <= lines.count else { return "" }
        let line = Array(lines[error.line - 1])
        let column = min(max(error.column - 1, 0), line.count)
        let near = String(utf8: line[max(0, column - 60)..<min(line.count, column + 20)])
        return " near \"\(near)\""
    }

    /// The `params` of a method or a service.
    private static func paramList(_ owner: ManifestNode, _ at: @autoclosure () -> String) throws(Invalid) -> [ParamSpec] {
        var params: [ParamSpec] = []
        for (p, param) in try list(owner, "params").enumerated() {
            func pat() -> String { "\(at()).params[\(p)]" }
            let typeName = try string(param, "type", pat())
            try check(param, pat(), known: .param, booleans: ["required"], strings: ["description"])
            guard let type = ParamType(rawValue: typeName) else {
                throw Invalid(description: "\(pat()).type: unknown type \"\(typeName)\"")
            }
            var format: ParamFormat?
            if let formatName = param["format"] {
                guard let known = formatName.string.flatMap(ParamFormat.init(rawValue:)), type == .string else {
                    throw Invalid(description: "\(pat()).format: unknown format \(formatName.retained.serialized()) for a \(typeName)")
                }
                format = known
            }
            params.append(
                ParamSpec(
                    name: try string(param, "name", pat()), type: type, required: param["required"]?.bool ?? true,
                    description: param["description"]?.string ?? "", format: format))
        }
        if ParamSpec.repeatsAName(params) { throw Invalid(description: "\(at()).params: duplicate parameter name") }
        return params
    }

    /// An entry's keys are all known, and its flags and texts have their types:
    /// `"startsDialogue": "yes"` is refused, not read as false.
    private static func check(
        _ entry: ManifestNode, _ at: @autoclosure () -> String, known: KnownKeys, booleans: [StaticString], strings: [StaticString]
    ) throws(Invalid) {
        guard entry.kind == .object else { throw Invalid(description: "\(at()): must be an object") }
        if let unknown = ManifestKeys.unknown(in: entry, at: at(), known: known) { throw Invalid(description: unknown) }
        for key in booleans where entry[key] != nil && entry[key]?.kind != .bool {
            throw Invalid(description: "\(at()).\(key): must be true or false")
        }
        for key in strings where entry[key] != nil && entry[key]?.kind != .string {
            throw Invalid(description: "\(at()).\(key): must be a string")
        }
    }

    private static func list(_ object: ManifestNode, _ key: StaticString) throws(Invalid) -> [ManifestNode] {
        guard let value = object[key] else { return [] }
        guard value.kind == .array else { throw Invalid(description: "\(key): must be an array") }
        return value.elements
    }

    private static func string(_ object: ManifestNode, _ key: StaticString, _ at: @autoclosure () -> String) throws(Invalid) -> String {
        guard object.kind == .object else { throw Invalid(description: "\(at()): must be an object") }
        guard let value = object[key]?.string, !value.isEmpty else {
            throw Invalid(description: "\(at()).\(key): required non-empty string")
        }
        return value
    }
}
