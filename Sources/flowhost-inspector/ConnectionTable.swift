/// The browsers' connections the inspector holds, and which of them have
/// shown the token.
///
/// Full, the table makes room by closing the connection that has waited
/// longest for the rest of a head it began: a peer without the token that
/// keeps hundreds of half-sent requests open (slowloris) loses them to each
/// newcomer, and the page's requests, whose heads come at once, are served.
/// A connection that has sent nothing yet is closed only when no begun one
/// is left: on a busy machine a page's head can arrive after a peer that
/// reopens as fast as it can has opened more connections than the table
/// holds, and the page's connection would otherwise be the oldest. A connection
/// whose whole head, with the token, already waits in its socket is passed
/// over even before its task has read it: on a busy machine that read can
/// lag behind a peer that reopens as fast as it can. Admitted
/// connections are never closed to make room: when every place is one, a
/// new connection is closed at once. A connection being closed keeps its
/// place until its task has closed its socket, so the descriptors held
/// never pass the capacity by more than the one just accepted.
actor ConnectionTable {
    private struct Entry {
        var task: Task<Void, Never>?
        var closing = false
        /// Some of its head came, not all.
        var begun = false
        var descriptor: Int32
    }

    let capacity: Int
    /// Whether the bytes waiting on a socket already make a head the gate admits.
    let admittedHeadWaiting: @Sendable (Int32) -> Bool
    private var entries: [UInt64: Entry] = [:]
    /// Connections waiting for their head, oldest first.
    private var waiting: [UInt64] = []
    private var nextID: UInt64 = 0
    /// The accept loop, waiting for a connection being closed to be gone.
    private var closed: CheckedContinuation<Void, Never>?

    init(capacity: Int, admittedHeadWaiting: @escaping @Sendable (Int32) -> Bool = { _ in false }) {
        self.capacity = capacity
        self.admittedHeadWaiting = admittedHeadWaiting
    }

    /// A place for the connection on `descriptor`, just accepted, or nil if
    /// every place is admitted (or about to be).
    func open(descriptor: Int32 = -1) async -> UInt64? {
        while entries.count >= capacity {
            guard await makeRoom() else { return nil }
        }
        nextID += 1
        entries[nextID] = Entry(descriptor: descriptor)
        waiting.append(nextID)
        return nextID
    }

    /// The task serving `id`; cancelled at once if its connection is being closed.
    func attach(_ task: Task<Void, Never>, to id: UInt64) {
        entries[id]?.task = task
        if entries[id]?.closing ?? true { task.cancel() }
    }

    /// Some of the connection's head came, and it waits for the rest.
    func begun(_ id: UInt64) {
        entries[id]?.begun = true
    }

    /// The connection has shown the token: it keeps its place.
    func admit(_ id: UInt64) {
        waiting.removeAll { $0 == id }
    }

    /// Its task has closed its socket.
    func close(_ id: UInt64) {
        entries[id] = nil
        waiting.removeAll { $0 == id }
        closed?.resume()
        closed = nil
    }

    /// Closes the connection that has waited longest for the rest of its
    /// head, or if none has begun one, the one that has waited longest (one
    /// whose admitted head already waits unread is passed over), and returns
    /// once its socket is closed; false if none may be closed.
    func makeRoom() async -> Bool {
        if !entries.values.contains(where: \.closing) {
            let closable = { (id: UInt64) in !self.admittedHeadWaiting(self.entries[id]?.descriptor ?? -1) }
            guard let index = waiting.firstIndex(where: { entries[$0]?.begun == true && closable($0) }) ?? waiting.firstIndex(where: closable)
            else { return false }
            let id = waiting.remove(at: index)
            entries[id]?.closing = true
            entries[id]?.task?.cancel()
        }
        await withCheckedContinuation { closed = $0 }
        return true
    }
}
