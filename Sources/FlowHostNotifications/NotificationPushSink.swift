import FlowHostStore

/// Where a deployment's `push.command` learns of new notifications: a sink
/// that `NotificationService.create` hands each one to, inside the
/// notification's transaction, so that the pushes it keeps commit with the
/// notification or not at all. Which devices are pushed, and the command
/// itself, are the sink's (`FlowHostCredentials.NotificationPushes`).
public protocol NotificationPushSink: AnyObject {
    func created(_ notification: NotificationRecord, subject: String, message: String, in tx: any StoreWriter) throws
}
