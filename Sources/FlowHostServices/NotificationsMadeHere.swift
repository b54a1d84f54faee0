/// The notifications this host's flows created, so that the answer to one
/// (`notifications.updated`) reaches the host that asked, though no one is
/// logged in there: a new device waiting for its approval.
///
/// A class shared by the notifications service (which adds) and the change
/// feed (which reads); both run on the engine's loop thread only. Bounded:
/// the oldest are forgotten first, long after any approval has expired.
final class NotificationsMadeHere {
    static let capacity = 1024
    private var order: [String] = []
    private var members: Set<String> = []

    func add(_ uuid: String) {
        guard members.insert(uuid).inserted else { return }
        order.append(uuid)
        if order.count > Self.capacity { members.remove(order.removeFirst()) }
    }

    func contains(_ uuid: String) -> Bool { members.contains(uuid) }
}
