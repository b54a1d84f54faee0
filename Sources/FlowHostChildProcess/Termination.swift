import CFlowHostSystem

/// How a child ended.
public struct Termination: Sendable, Equatable {
    /// Its exit status, or 128 + the signal that ended it, as a shell says.
    public let code: Int32
    public let signalled: Bool

    /// The signal that ended it, if one did.
    public var signal: Int32? { signalled ? code - 128 : nil }

    init(code: Int32, signalled: Bool) {
        self.code = code
        self.signalled = signalled
    }

    /// From a wait status.
    init(status: Int32) {
        var signalled: Int32 = 0
        code = flowhost_exit_code(status, &signalled)
        self.signalled = signalled != 0
    }
}
