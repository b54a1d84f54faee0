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
    /// Its value is a secret: masked wherever the host shows or records
    /// traffic (`DeclaredSecrets`), as a member named like one always is.
    public var secret: Bool

    public init(
        name: String, type: ParamType, required: Bool = true, description: String = "", format: ParamFormat? = nil, secret: Bool = false
    ) {
        self.name = name
        self.type = type
        self.required = required
        self.description = description
        self.format = format
        self.secret = secret
    }
}

extension ParamSpec {
    /// The contract without its prose: what two flows declaring one answer method must agree on.
    var withoutDescription: ParamSpec {
        var contract = self
        contract.description = ""
        return contract
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
    /// The errors it may return. Empty: any (as before errors could be
    /// declared); else a code outside them is the flow's fault, and the
    /// client gets an internal error instead (`DeclaredError.checked`).
    public var errors: [DeclaredError]

    public init(
        name: String, summary: String = "", params: [ParamSpec] = [], result: JSON? = nil, answers: [String] = [], startsDialogue: Bool = false,
        errors: [DeclaredError] = []
    ) {
        self.name = name
        self.summary = summary
        self.params = params
        self.result = result
        self.answers = answers
        self.startsDialogue = startsDialogue
        self.errors = errors
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
    /// Where the params schema's text lies in the manifest's, kept by either
    /// reading: the host prepares an event's schema from it on the event's
    /// first emission (`LoadedPlugin.eventSchema`), reading nothing else.
    var paramsText: Range<Int>?
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
    /// a challenge event of this flow: the reader refuses it.
    var answerOutsideItsChallenges: (method: String, event: String)? {
        let challengeEvents = Set(events.filter(\.isChallenge).map(\.name))
        for method in methods {
            if let answered = method.answers.first(where: { !challengeEvents.contains($0) }) { return (method.name, answered) }
        }
        return nil
    }

    /// A manifest refused for a reason that names the offending key, or
    /// where the text stops being JSON (`ManifestRefusal`).
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// How much of a manifest a reading keeps. The host enforces names,
    /// params, answers, uses, reads and declared error codes at once;
    /// summaries, descriptions, error messages and the schemas of results
    /// only describe (`rpc.discover`), and an event's schema is checked on
    /// its first emission. Both readings check all of it the same way.
    public enum Reading: Sendable {
        case whole
        /// What the host needs at once: descriptions are empty, schemas nil.
        /// A loaded flow is held this way, and the rest read again from the
        /// descriptor when asked (`LoadedPlugin.describedManifest`).
        case enforced
    }

    public static func parse(_ text: String, _ reading: Reading = .whole) throws(Invalid) -> PluginManifest {
        var text = text
        return try text.withUTF8 { bytes in Result { () throws(Invalid) in try ManifestReader.read(bytes, reading) } }.get()
    }

    /// The manifest in a descriptor's C string, read where it lies: a start
    /// makes no copy of each flow's manifest (a few KB each) to read it.
    static func parse(cString: UnsafePointer<CChar>, _ reading: Reading = .whole) throws(Invalid) -> PluginManifest {
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self), count: strlen(cString))
        return try ManifestReader.read(bytes, reading)
    }
}
