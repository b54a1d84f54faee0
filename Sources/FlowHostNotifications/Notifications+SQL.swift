import FlowHostStore

/// The SQL of notifications.
extension NotificationRecord {
    static let columns =
        "uuid, user_id, body, actions, ds_required, kind, context, created_at, expires_at, status, action_performed, updated_at, answered_by_device"

    init(row: SQLRow) {
        self.init(
            uuid: row.string(0), userID: row.string(1), body: row.string(2), actions: row.string(3), dsRequired: row.bool(4),
            kind: row.string(5), context: row.optionalString(6), createdAt: row.int64(7), expiresAt: row.int64(8), status: row.string(9),
            actionPerformed: row.optionalString(10), updatedAt: row.optionalInt64(11), answeredByDevice: row.optionalString(12))
    }
}

extension StoreReader {
    public func notification(_ uuid: String) throws -> NotificationRecord? {
        try query("SELECT \(NotificationRecord.columns) FROM notification WHERE uuid = ?", [.text(uuid)], NotificationRecord.init(row:)).first
    }

    /// The user's active notifications (not answered, not expired at `now`), newest first.
    public func activeNotifications(userID: String, now: Int64, created: CreationWindow, offset: Int, limit: Int) throws -> [NotificationRecord] {
        try query(
            """
            SELECT \(NotificationRecord.columns) FROM notification WHERE user_id = ? AND status = 'ACTIVE' AND expires_at > ?
            AND created_at >= ? AND created_at < ? ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?
            """, [.text(userID), .integer(now), .integer(created.from), .integer(created.until), .int(limit), .int(offset)],
            NotificationRecord.init(row:))
    }

    public func activeNotificationCount(userID: String, now: Int64, created: CreationWindow) throws -> Int {
        try query(
            """
            SELECT COUNT(*) FROM notification WHERE user_id = ? AND status = 'ACTIVE' AND expires_at > ?
            AND created_at >= ? AND created_at < ?
            """, [.text(userID), .integer(now), .integer(created.from), .integer(created.until)]
        ) { $0.int(0) }.first ?? 0
    }

    /// The user's notifications, newest first, whatever their state.
    public func notificationHistory(userID: String, created: CreationWindow, offset: Int, limit: Int) throws -> [NotificationRecord] {
        try query(
            """
            SELECT \(NotificationRecord.columns) FROM notification WHERE user_id = ? AND created_at >= ? AND created_at < ?
            ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?
            """, [.text(userID), .integer(created.from), .integer(created.until), .int(limit), .int(offset)], NotificationRecord.init(row:))
    }
}

extension StoreWriter {
    public func insert(_ notification: NotificationRecord) throws {
        try run(
            "INSERT INTO notification (\(NotificationRecord.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(notification.uuid), .text(notification.userID), .text(notification.body), .text(notification.actions),
                .bool(notification.dsRequired), .text(notification.kind), .optional(notification.context), .integer(notification.createdAt),
                .integer(notification.expiresAt), .text(notification.status), .optional(notification.actionPerformed),
                .optional(notification.updatedAt), .optional(notification.answeredByDevice),
            ])
    }

    /// Records the answer if the notification is still active: false when
    /// it was answered, withdrawn or expired meanwhile (exactly one answer wins).
    public func answerNotification(_ uuid: String, action: String, deviceID: String, at: Int64) throws -> Bool {
        try run(
            """
            UPDATE notification SET status = 'UPDATED', action_performed = ?, updated_at = ?, answered_by_device = ?
            WHERE uuid = ? AND status = 'ACTIVE' AND expires_at > ?
            """, [.text(action), .integer(at), .text(deviceID), .text(uuid), .integer(at)]) == 1
    }

    /// Uses an accepted device approval once (it completes one activation):
    /// false when it is not the user's, not an accepted approval, or used already.
    public func consumeApproval(_ uuid: String, userID: String, at: Int64) throws -> Bool {
        try run(
            """
            UPDATE notification SET consumed_at = ? WHERE uuid = ? AND user_id = ? AND kind = 'device-approval' AND status = 'UPDATED'
              AND action_performed = 'accept' AND consumed_at IS NULL
            """, [.integer(at), .text(uuid), .text(userID)]) == 1
    }

    /// Withdraws an active notification (its dialogue was cancelled).
    @discardableResult public func withdrawNotification(_ uuid: String, at: Int64) throws -> Bool {
        try run(
            "UPDATE notification SET status = 'DISCARDED', updated_at = ? WHERE uuid = ? AND status = 'ACTIVE'", [.integer(at), .text(uuid)]) == 1
    }

    /// Deletes notifications made before `before` that can no longer be
    /// answered at `now` (answered, withdrawn or expired); returns how many.
    @discardableResult public func pruneNotifications(before: Int64, now: Int64) throws -> Int {
        try run(
            "DELETE FROM notification WHERE created_at < ? AND (status <> 'ACTIVE' OR expires_at <= ?)", [.integer(before), .integer(now)])
    }
}
