import FlowHostPOSIX
import FlowJSON

#if canImport(Glibc)
import Glibc
#endif

/// The published contract (`Protocol/openrpc.json`): what the declarations
/// alone cannot say, laid over the document `rpc.discover` builds from them.
///
/// The flows declare names and param types; the contract adds, by `$ref`
/// into `schemas/`, the full JSON Schema of every params and result, the
/// host requests and the error codes. So `rpc.discover` on a host with every
/// built flow answers the committed document exactly (a test holds it), and a
/// host with fewer flows answers the same entries for what it loaded. A flow
/// the contract does not know keeps its declared, inline types.
public struct PublishedContract: Sendable {
    public let path: String

    /// Only checks that the file can be read: it is read and parsed when
    /// `rpc.discover` is first asked, never at start.
    public init(path: String) throws(UnreadableContract) {
        guard access(path, R_OK) == 0 else { throw UnreadableContract(description: String(cString: strerror(errno))) }
        self.path = path
    }

    public struct UnreadableContract: Error, CustomStringConvertible { public let description: String }

    /// Keys of a method entry that only the contract carries.
    static let methodKeys = ["x-flowhost-paramsSchema", "result"]
    /// Keys of an event entry that only the contract carries.
    static let eventKeys = ["params", "x-flowhost-status"]
    /// Keys of a service entry that only the contract carries.
    static let serviceKeys = ["result"]
    /// Top-level keys that only the contract carries.
    static let documentKeys = ["x-flowhost-status-meanings", "x-flowhost-status-names", "x-flowhost-host-requests", "x-flowhost-host-request-error", "x-flowhost-errors",
                               "x-flowhost-error-schemas", "x-flowhost-schemas-without-a-place"]

    /// Lays the contract over `document`, in place. A contract that is not
    /// JSON leaves the document as declared; the caller logs `problem`.
    func apply(to document: JSON) -> String? {
        let contract: JSON
        do {
            let text = try SystemFile.read(path)
            contract = try text.withUnsafeBytes { try JSON.parse($0) }
        } catch {
            return "\(path) cannot be read as JSON: \(error)"
        }
        guard contract.kind == .object else { return "\(path) is not an OpenRPC document" }
        Self.overlay(document["methods"], from: contract["methods"], keys: Self.methodKeys) { $0["name"]?.stringValue }
        Self.overlay(document["x-flowhost-events"], from: contract["x-flowhost-events"], keys: Self.eventKeys) { event in
            event["flow"]?.stringValue.flatMap { flow in event["name"]?.stringValue.map { flow + " " + $0 } }
        }
        Self.overlay(document["x-flowhost-services"], from: contract["x-flowhost-services"], keys: Self.serviceKeys) { $0["name"]?.stringValue }
        for key in Self.documentKeys { if let value = contract[key] { document[key] = value.deepCopy() } }
        return nil
    }

    /// Copies `keys` from each published entry to the declared entry of the same identity.
    private static func overlay(_ declared: JSON?, from published: JSON?, keys: [String], identity: (JSON) -> String?) {
        var byIdentity: [String: JSON] = [:]
        for entry in published?.elements ?? [] {
            if let id = identity(entry) { byIdentity[id] = entry }
        }
        for entry in declared?.elements ?? [] {
            guard let id = identity(entry), let source = byIdentity[id] else { continue }
            for key in keys { if let value = source[key] { entry[key] = value.deepCopy() } }
        }
    }
}
