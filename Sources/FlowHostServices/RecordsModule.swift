import FlowHostCore
import FlowHostStore
import FlowHostVocabulary
import FlowJSON

#if canImport(Glibc)
import Glibc
import FlowHostServiceTypes
#endif

/// Durable state for flows that have no table of their own (a flow built
/// outside this repository, in C, say): records under the calling flow's
/// own namespace, so one flow never sees another's. `records.apply` runs
/// several writes as one transaction, each guarded by the version it
/// expects (compare-and-set).
enum RecordsModule {
    static let maxValueBytes = 65_536
    static let maxOperations = 64

    static func register(_ store: any FlowStore, in engine: HostEngine) {
        offer(engine, Services.RecordsGet.self) { caller, call in
            let (collection, key) = (try name(call.collection, "collection"), try name(call.key, "key"))
            return try store.read({ try $0.record(namespace: caller, collection: collection, key: key) }).map(outcome)
        }

        offer(engine, Services.RecordsList.self) {
            caller, call in
            let collection = try name(call.collection, "collection")
            let limit = min(max(call.limit ?? 100, 1), 1000)
            let found = try store.read { try $0.records(namespace: caller, collection: collection, prefix: call.prefix ?? "", limit: limit) }
            return Services.RecordsListOutcome(records: .array(try found.map { try outcome($0).result }))
        }

        offerReading(engine, Services.RecordsApply.self) { caller, p in
            let operations = try p.objects("operations", members: ["op", "collection", "key", "value", "expectVersion"])
            guard (1...maxOperations).contains(operations.count) else {
                throw FlowHostError.invalidParams(field: "operations", reason: "1 to \(maxOperations) operations")
            }
            let now = Int64(time(nil))
            return try store.write { tx in
                var versions: [Int] = []
                for (index, operation) in operations.enumerated() {
                    let at = "operations[\(index)]"
                    let kind = try operation.string("op")
                    let collection = try operation.string("collection")
                    let key = try operation.string("key")
                    _ = try name(collection, "\(at).collection")
                    _ = try name(key, "\(at).key")
                    let current = try tx.record(namespace: caller, collection: collection, key: key)
                    if let expected = try operation.optionalInt("expectVersion") {
                        // 0 means "must not exist".
                        guard Int64(expected) == (current?.version ?? 0) else {
                            throw FlowHostError(.versionConflict, message: "Version conflict at \(at)",
                                data: ["index": .int(index), "currentVersion": .int(Int(current?.version ?? 0))])
                        }
                    }
                    switch kind {
                    case "put":
                        guard let value = operation.opaque("value") else { throw FlowHostError.invalidParams(field: "\(at).value", reason: "required") }
                        let text = value.serialized()
                        guard text.utf8.count <= maxValueBytes else {
                            throw FlowHostError.invalidParams(field: "\(at).value", reason: "at most \(maxValueBytes) bytes")
                        }
                        versions.append(Int(try tx.putRecord(namespace: caller, collection: collection, key: key, value: text, at: now)))
                    case "delete":
                        try tx.deleteRecord(namespace: caller, collection: collection, key: key)
                        versions.append(0)
                    default:
                        throw FlowHostError.invalidParams(field: "\(at).op", reason: "put or delete")
                    }
                }
                return Services.RecordsApplyOutcome(versions: versions)
            }
        }
    }

    /// Collections and keys: 1 to 256 bytes, no control characters.
    private static func name(_ text: String, _ field: String) throws -> String {
        guard !text.isEmpty, text.utf8.count <= 256, !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw FlowHostError.invalidParams(field: field, reason: "1 to 256 bytes without control characters")
        }
        return text
    }

    private static func outcome(_ record: FlowRecord) throws -> Services.RecordsGetOutcome {
        Services.RecordsGetOutcome(collection: record.collection, key: record.key, value: try JSON.parse(record.value), version: Int(record.version))
    }
}
