import FlowHostCore
import FlowHostVocabulary
import FlowJSON

/// Typed reads of a service call's params: a missing or mistyped member is
/// -32602 naming it (with its path, as `actions[1].authlevel`), the same as
/// for client calls. The JSON itself is not reachable: a service reads
/// members only through these typed accessors, and only members it
/// declared, so no value is ever read with a silent default in place of
/// the one a caller sent with the wrong type.
struct ServiceParams {
    private let json: JSON
    /// The members this object may have (nil: not checked here, the
    /// host's binder checked the top level against the declaration).
    private let members: Set<String>?
    /// Where this object is, for error messages ("" at the top level).
    private let path: String

    init(json: JSON, declared: [ParamSpec]) {
        self.init(json: json, members: Set(declared.map(\.name)), path: "")
    }

    private init(json: JSON, members: Set<String>?, path: String) {
        self.json = json
        self.members = members
        self.path = path
    }

    private func field(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// The member, after checking it is one this service declared (a
    /// service that reads another is a bug, caught by its tests).
    private func member(_ key: String) -> JSON? {
        assert(members?.contains(key) ?? true, "service reads undeclared member \(field(key))")
        guard members?.contains(key) ?? true else { return nil }
        return json[key]
    }

    /// The params as the service's generated request type (a mistyped
    /// member is -32602 naming it, as for the other reads).
    func request<Request: ServiceRequest>(_ type: Request.Type) throws(FlowHostError) -> Request {
        do { return try Request(params: json) } catch { throw FlowHostError.invalidParams(field: field(error.field), reason: error.reason) }
    }

    func string(_ key: String) throws(FlowHostError) -> String {
        guard let value = member(key)?.stringValue else { throw FlowHostError.invalidParams(field: field(key), reason: "required string") }
        return value
    }

    func int(_ key: String) throws(FlowHostError) -> Int {
        guard let value = member(key)?.intValue else { throw FlowHostError.invalidParams(field: field(key), reason: "required integer") }
        return value
    }

    func optionalString(_ key: String) throws(FlowHostError) -> String? {
        guard let value = member(key), !value.isNull else { return nil }
        guard let text = value.stringValue else { throw FlowHostError.invalidParams(field: field(key), reason: "expected string") }
        return text
    }

    func optionalInt(_ key: String) throws(FlowHostError) -> Int? {
        guard let value = member(key), !value.isNull else { return nil }
        guard let number = value.intValue else { throw FlowHostError.invalidParams(field: field(key), reason: "expected integer") }
        return number
    }

    /// An array of objects, each read in turn with its own typed accessors;
    /// an element that is not an object, or that has a member not in
    /// `members`, is -32602 naming it.
    func objects(_ key: String, members allowed: Set<String>) throws(FlowHostError) -> [ServiceParams] {
        guard let list = member(key), list.kind == .array else { throw FlowHostError.invalidParams(field: field(key), reason: "required array") }
        var items: [ServiceParams] = []
        for (index, element) in list.elements.enumerated() {
            let at = field(key) + "[\(index)]"
            guard element.kind == .object else { throw FlowHostError.invalidParams(field: at, reason: "expected object") }
            if let unknown = element.keys.sorted().first(where: { !allowed.contains($0) }) {
                throw FlowHostError.invalidParams(field: at + "." + unknown, reason: "unknown member (known: \(allowed.sorted().joined(separator: ", ")))")
            }
            items.append(ServiceParams(json: element, members: allowed, path: at))
        }
        return items
    }

    /// A declared value the service keeps or hands on whole (a flow's
    /// context, a record's value, a receipt to verify), never read member
    /// by member here; nil when absent or null.
    func opaque(_ key: String) -> JSON? {
        guard let value = member(key), !value.isNull else { return nil }
        return value
    }

    /// Whether a member is present (and not null).
    func has(_ key: String) -> Bool { opaque(key) != nil }
}
