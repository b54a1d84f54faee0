import FlowHostPOSIX
import FlowHostStore

/// The unit tests' one store fixture: a real SQLite file with the schema a
/// test names, in a folder of its own that goes, with everything in it,
/// when the fixture does. Keep the fixture alive as long as the store.
public final class ThrowAwayStore {
    public let folder: TemporaryFolder
    public let store: SQLiteStore
    /// The store's file (`<folder>/store.sqlite`).
    public var path: String { folder.path + "/store.sqlite" }

    public init(_ schema: SchemaMigrator, busyTimeoutSeconds: Double = 10) throws {
        folder = try TemporaryFolder()
        store = try SQLiteStore(path: folder.path + "/store.sqlite", schema: schema, busyTimeoutSeconds: busyTimeoutSeconds)
    }
}
