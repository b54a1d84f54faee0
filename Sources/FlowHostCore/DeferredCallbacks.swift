/// Callbacks that must not run inside the call that caused them (a service
/// result, a session notice): the engine runs them before the loop waits
/// again. A class: the router and the session queue them, the engine runs
/// them. Loop thread only.
final class DeferredCallbacks {
    private var queue: [() -> Void] = []

    var isEmpty: Bool { queue.isEmpty }

    func append(_ callback: @escaping () -> Void) { queue.append(callback) }

    /// Runs what is queued, and what that queues in turn, in order.
    func runAll() {
        while !queue.isEmpty {
            let next = queue.removeFirst()
            next()
        }
    }
}
