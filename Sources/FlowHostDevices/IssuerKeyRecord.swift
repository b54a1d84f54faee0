import FlowHostPOSIX
import FlowHostStore

/// One key of the issuer's key set, as the store keeps it: never its
/// secret half, which stays in a file on each machine that signs.
public struct IssuerKeyRecord: Sendable, Equatable {
    /// staged: made and published, not yet signing; active: signing (one at
    /// a time); retired: replaced, still verifying; withdrawn: verifies
    /// nothing, and what it signed says so.
    public enum State: String, Sendable {
        case staged, active, retired, withdrawn
    }

    public let keyID: String
    public let publicKey: [UInt8]
    public let state: State
    public let createdAt: Int64
    public let activatedAt: Int64?
    public let retiredAt: Int64?
    public let withdrawnAt: Int64?
    public let withdrawnReason: String?
}

extension StoreReader {
    /// The whole key set, oldest first.
    public func issuerKeys() throws -> [IssuerKeyRecord] {
        try query(
            "SELECT key_id, public_key, state, created_at, activated_at, retired_at, withdrawn_at, withdrawn_reason FROM issuer_key ORDER BY created_at, key_id",
            [], IssuerKeyRecord.init(row:)
        ).compactMap { $0 }
    }

    public func issuerKey(_ keyID: String) throws -> IssuerKeyRecord? {
        try query(
            "SELECT key_id, public_key, state, created_at, activated_at, retired_at, withdrawn_at, withdrawn_reason FROM issuer_key WHERE key_id = ?",
            [.text(keyID)], IssuerKeyRecord.init(row:)
        ).first ?? nil
    }

    public func activeIssuerKey() throws -> IssuerKeyRecord? {
        try query(
            "SELECT key_id, public_key, state, created_at, activated_at, retired_at, withdrawn_at, withdrawn_reason FROM issuer_key WHERE state = 'active'",
            [], IssuerKeyRecord.init(row:)
        ).first ?? nil
    }
}

extension StoreWriter {
    func insertIssuerKey(keyID: String, publicKey: [UInt8], state: IssuerKeyRecord.State, at now: Int64) throws {
        try run(
            "INSERT INTO issuer_key (key_id, public_key, state, created_at, activated_at) VALUES (?, ?, ?, ?, ?)",
            [.text(keyID), .text(Hex.encode(publicKey)), .text(state.rawValue), .integer(now), .optional(state == .active ? now : nil)])
    }

    /// Moves `keyID` from `from` to `to`; false when it was not in `from`.
    func moveIssuerKey(_ keyID: String, from: IssuerKeyRecord.State, to: IssuerKeyRecord.State, at now: Int64, reason: String? = nil) throws -> Bool {
        let stamp = to == .active ? "activated_at" : to == .retired ? "retired_at" : "withdrawn_at"
        return try run(
            "UPDATE issuer_key SET state = ?, \(stamp) = ?, withdrawn_reason = COALESCE(?, withdrawn_reason) WHERE key_id = ? AND state = ?",
            [.text(to.rawValue), .integer(now), .optional(reason), .text(keyID), .text(from.rawValue)]) == 1
    }
}

extension IssuerKeyRecord {
    /// Nil for a row this binary cannot read (an unknown state, a damaged key).
    init?(row: SQLRow) {
        guard let state = State(rawValue: row.string(2)), let publicKey = HexBytes.decode(row.string(1)) else { return nil }
        self.init(
            keyID: row.string(0), publicKey: publicKey, state: state, createdAt: row.int64(3), activatedAt: row.optionalInt64(4),
            retiredAt: row.optionalInt64(5), withdrawnAt: row.optionalInt64(6), withdrawnReason: row.optionalString(7))
    }
}
