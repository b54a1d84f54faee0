import FlowHostCore
import FlowJSON

/// Typed reads of a service call's params; a missing or mistyped member is
/// -32602 naming it, the same as for client calls.
struct ServiceParams {
    init(json: JSON) { self.json = json }
    let json: JSON

    func string(_ key: String) throws(ServiceError) -> String {
        guard let value = json[key]?.stringValue else { throw ServiceError.invalidParams(field: key, reason: "required string") }
        return value
    }

    func int(_ key: String) throws(ServiceError) -> Int {
        guard let value = json[key]?.intValue else { throw ServiceError.invalidParams(field: key, reason: "required integer") }
        return value
    }

    func optionalString(_ key: String) throws(ServiceError) -> String? {
        guard let value = json[key], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw ServiceError.invalidParams(field: key, reason: "expected string") }
        return text
    }

    func optionalInt(_ key: String) throws(ServiceError) -> Int? {
        guard let value = json[key], !value.isNull else { return nil }
        guard let number = value.intValue else { throw ServiceError.invalidParams(field: key, reason: "expected integer") }
        return number
    }
}
