import FlowJSON

/// A call of a named service, typed: its params as Swift members, and the
/// type of its outcome. The types are generated (`Services`, by
/// scripts/contract.py) from the services' declarations and their result
/// schemas, and shared by the host module that serves a service and the
/// flows that call it: both sides agree at compile time on what a call
/// carries. Only JSON crosses the plugin boundary; each side has its copy.
public protocol ServiceRequest {
    associatedtype Outcome: ServiceOutcome
    /// The service's name, as flows declare it in `uses`.
    static var service: String { get }
    /// The params as the call sends them.
    var params: JSON { get }
    /// From a call's params (the host checked them against the declaration first).
    init(params: JSON) throws(ServiceFieldError)
}

/// What a service answers, typed: an enum of its outcomes when its result
/// schema is a `oneOf` keyed by `outcome`, a struct for one plain object,
/// `UntypedOutcome` while the service has no result schema yet.
public protocol ServiceOutcome {
    init(result: JSON) throws(ServiceFieldError)
    var result: JSON { get }
}

/// Outcomes with `refused(status:reason:)`: the user's state forbids the
/// step (a block, another device's activation), with the SDK status to show.
public protocol RefusableOutcome {
    static func refused(status: Int, reason: String) -> Self
}

/// A result that may be null (an unknown user, a record not there): nil.
extension Optional: ServiceOutcome where Wrapped: ServiceOutcome {
    public init(result: JSON) throws(ServiceFieldError) {
        self = result.kind == .null ? nil : try Wrapped(result: result)
    }

    public var result: JSON { self?.result ?? .null }
}

/// A service whose result schema is not written yet: its JSON, as sent.
public struct UntypedOutcome: ServiceOutcome {
    public let result: JSON
    public init(result: JSON) { self.result = result }
}

/// A member missing or of the wrong type, by its path: the host maps it to
/// -32602 for a service's params, and to -32603 for an answer a flow
/// cannot read (a bug on the serving side).
public struct ServiceFieldError: Error, CustomStringConvertible, Sendable {
    public let field: String
    public let reason: String
    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }
    public var description: String { "\(field): \(reason)" }
}

/// The typed reads the generated code makes.
public enum ServiceField {
    public static func string(_ json: JSON, _ key: String) throws(ServiceFieldError) -> String {
        guard let value = json[key]?.stringValue else { throw ServiceFieldError(field: key, reason: "required string") }
        return value
    }
    public static func int(_ json: JSON, _ key: String) throws(ServiceFieldError) -> Int {
        guard let value = json[key]?.intValue else { throw ServiceFieldError(field: key, reason: "required integer") }
        return value
    }
    public static func bool(_ json: JSON, _ key: String) throws(ServiceFieldError) -> Bool {
        guard let value = json[key]?.boolValue else { throw ServiceFieldError(field: key, reason: "required boolean") }
        return value
    }
    public static func value(_ json: JSON, _ key: String) throws(ServiceFieldError) -> JSON {
        guard let value = json[key], value.kind != .null else { throw ServiceFieldError(field: key, reason: "required") }
        return value
    }
    /// A member that may hold any JSON, null included: it must be there.
    public static func anyValue(_ json: JSON, _ key: String) throws(ServiceFieldError) -> JSON {
        guard let value = json[key] else { throw ServiceFieldError(field: key, reason: "required") }
        return value
    }
    public static func strings(_ json: JSON, _ key: String) throws(ServiceFieldError) -> [String] {
        try array(json, key, of: "string") { $0.stringValue }
    }
    public static func ints(_ json: JSON, _ key: String) throws(ServiceFieldError) -> [Int] {
        try array(json, key, of: "integer") { $0.intValue }
    }
    private static func array<T>(_ json: JSON, _ key: String, of kind: String, _ read: (JSON) -> T?) throws(ServiceFieldError) -> [T] {
        guard let value = json[key], value.kind == .array else { throw ServiceFieldError(field: key, reason: "required array of \(kind)s") }
        var items: [T] = []
        for (index, element) in value.elements.enumerated() {
            guard let item = read(element) else { throw ServiceFieldError(field: "\(key)[\(index)]", reason: "expected \(kind)") }
            items.append(item)
        }
        return items
    }
    /// An optional member: absent or null is nil; present with the wrong type is an error.
    public static func optional<T>(_ json: JSON, _ key: String, _ read: (JSON, String) throws(ServiceFieldError) -> T) throws(ServiceFieldError) -> T? {
        guard let value = json[key], value.kind != .null else { return nil }
        return try read(json, key)
    }
}
