import FlowJSON

extension AuditEntry {
    /// The row as the stream and `events.command` carry it: `seq` (the id,
    /// the reader's cursor and key for removing duplicates), `at` (as
    /// `time` spells it), `action`, `outcome`, `userID`, `deviceID`,
    /// `detail` (JSON, or null). The row holds no secret, and neither does this.
    public func streamJSON(time: (Int64) -> String) -> JSON {
        let item: JSON = [
            "seq": .int(Int(id ?? 0)), "at": .string(time(at)), "action": .string(action), "outcome": .string(outcome),
            "userID": .optional(userID, JSON.string), "deviceID": .optional(deviceID, JSON.string),
            "detail": detail.flatMap { try? JSON.parse($0) } ?? .null,
        ]
        return item
    }
}
