import FlowHostVocabulary

/// A parameter a method declares; the host checks it before the flow runs.
public struct FlowParam: Sendable {
    /// The host's own list of param types and formats (one definition, in FlowHostVocabulary).
    public typealias Kind = ParamType
    public typealias Format = ParamFormat
    public var name: String
    public var kind: Kind
    public var required: Bool
    public var description: String
    public var format: Format?
    /// Its value is a secret: the host masks it wherever it shows or records
    /// traffic, whatever its name (spec §8).
    public var secret: Bool

    public init(_ name: String, _ kind: Kind, required: Bool = true, description: String = "", format: Format? = nil, secret: Bool = false) {
        self.name = name
        self.kind = kind
        self.required = required
        self.description = description
        self.format = format
        self.secret = secret
    }
}

/// An error a method declares it may return: listed in `rpc.discover`, and
/// once a method declares any, the host holds it to them (spec §9,
/// "Declared errors").
public struct FlowErrorDeclaration: Sendable {
    public var code: Int32
    public var message: String
    public var description: String

    public init(_ code: Int32, _ message: String, description: String = "") {
        self.code = code
        self.message = message
        self.description = description
    }
}

public struct FlowMethod: Sendable {
    public var name: String
    public var summary: String
    public var params: [FlowParam]
    /// Result schema as JSON text (for rpc.discover), if any.
    public var resultSchema: String?
    /// Challenge events this method answers (empty: an ordinary method).
    public var answers: [String]
    /// It starts a dialogue: the host refuses it while another is in progress.
    public var startsDialogue: Bool
    /// The errors it may return; empty: undeclared (any).
    public var errors: [FlowErrorDeclaration]

    public init(
        _ name: String, summary: String = "", params: [FlowParam] = [], resultSchema: String? = nil, answers: [String] = [],
        startsDialogue: Bool = false, errors: [FlowErrorDeclaration] = []
    ) {
        self.name = name
        self.summary = summary
        self.params = params
        self.resultSchema = resultSchema
        self.answers = answers
        self.startsDialogue = startsDialogue
        self.errors = errors
    }
}

public struct FlowEvent: Sendable {
    public var name: String
    public var summary: String
    /// Params schema as JSON text, if any: the host checks each emission
    /// against it, and masks a property whose schema says `"secret": true`.
    public var paramsSchema: String?
    public var isChallenge: Bool
    /// A resting challenge (what is asked while nothing happens) never expires.
    public var isResting: Bool

    public init(_ name: String, summary: String = "", paramsSchema: String? = nil, challenge: Bool = false, resting: Bool = false) {
        self.name = name
        self.summary = summary
        self.paramsSchema = paramsSchema
        self.isChallenge = challenge
        self.isResting = resting
    }
}

public struct FlowService: Sendable {
    public var name: String
    public var summary: String
    /// Declared params (the host checks them before the flow serves); nil: unchecked.
    public var params: [FlowParam]?
    public init(_ name: String, summary: String = "", params: [FlowParam]? = nil) {
        self.name = name
        self.summary = summary
        self.params = params
    }
}

/// Everything a flow declares; `manifestText()` (ManifestText.swift) turns it into the descriptor's manifest.
public struct FlowDeclaration: Sendable {
    public var name: String
    public var version: String
    public var methods: [FlowMethod]
    public var events: [FlowEvent]
    public var services: [FlowService]
    /// The services this flow calls (the host refuses any other).
    public var uses: [String]
    /// The host's change-feed topics this flow subscribes to (the host
    /// refuses any other; the flow's own `<name>.…` topics need no listing).
    public var reads: [String]

    public init(
        name: String, version: String, methods: [FlowMethod] = [], events: [FlowEvent] = [], services: [FlowService] = [],
        uses: [String] = [], reads: [String] = []
    ) {
        self.name = name
        self.version = version
        self.methods = methods
        self.events = events
        self.services = services
        self.uses = uses
        self.reads = reads
    }
}
