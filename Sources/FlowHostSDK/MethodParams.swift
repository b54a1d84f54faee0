import FlowHostVocabulary
import FlowJSON

/// A method's params as a flow reads them. The host checks them against the
/// flow's declaration before `handle` runs, so a missing or mistyped member
/// is the declaration's bug: it still answers -32602 naming the member,
/// never a crash in the plugin.
extension JSON {
    public func requiredString(_ key: String) throws(FlowHostError) -> String {
        guard let value = self[key]?.stringValue else { throw FlowHostError.invalidParams(field: key, reason: "required string") }
        return value
    }

    public func requiredInt(_ key: String) throws(FlowHostError) -> Int {
        guard let value = self[key]?.intValue else { throw FlowHostError.invalidParams(field: key, reason: "required integer") }
        return value
    }

    public func requiredBool(_ key: String) throws(FlowHostError) -> Bool {
        guard let value = self[key]?.boolValue else { throw FlowHostError.invalidParams(field: key, reason: "required boolean") }
        return value
    }
}
