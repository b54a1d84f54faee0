/// A transaction as the domains see it, over either database's connection.
struct SQLTransaction: StoreWriter {
    let db: any SQLDatabase

    func query<T>(_ sql: String, _ values: [SQLValue], _ map: (SQLRow) -> T) throws -> [T] { try db.query(sql, values, map) }

    @discardableResult func run(_ sql: String, _ values: [SQLValue]) throws -> Int { try db.run(sql, values) }

    func insert(_ sql: String, _ values: [SQLValue], returning column: String) throws -> Int64 { try db.insert(sql, values, returning: column) }
}
