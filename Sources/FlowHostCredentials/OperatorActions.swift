import FlowHostAccounts
import FlowHostDevices
import FlowHostSessions
import FlowHostStore
import FlowJSON

/// The operator's actions (the admin CLI): creating users and issuing
/// codes, blocking and unblocking, revoking a device, expiring a password.
/// Each is one transaction through the credentials domain it wraps.
///
/// Used from one thread at a time, like the `CredentialService` it wraps.
public final class OperatorActions {
    let credentials: CredentialService

    public init(_ credentials: CredentialService) { self.credentials = credentials }

    /// Creates a pending user and its first activation code (returned, not delivered).
    public func addUser(_ userID: String) throws -> IssuedCode {
        try CredentialService.checkUserID(userID)
        let now = credentials.clock()
        let code = ActivationCodes.newCode()
        let record = try credentials.codeRecord(userID: userID, code: code, now: now)
        try credentials.write { tx in
            try tx.insert(
                UserRecord(
                    userID: userID, activationAttemptsLeft: credentials.settings.maxActivationAttempts,
                    passwordAttemptsLeft: credentials.settings.maxPasswordAttempts, createdAt: now))
            try tx.insert(record)
            try credentials.audit.row(tx, userID, nil, "user.create", "ok")
        }
        return IssuedCode(userID: userID, activationCode: code, verificationKey: record.verificationKey, expiresAt: record.expiresAt)
    }

    /// A new code from the operator: retires older codes and unspent grants,
    /// restores the activation attempts and the resend allowance (a deliberate
    /// re-issue), ends the user's sessions, but does not unblock.
    public func issueActivationCode(_ userID: String) throws -> IssuedCode {
        let now = credentials.clock()
        let code = ActivationCodes.newCode()
        let record = try credentials.codeRecord(userID: userID, code: code, now: now)
        try credentials.write { tx in
            guard var user = try tx.user(userID) else { throw StoreError.notFound }
            try tx.retireActivationCodes(userID: userID, at: now)
            try tx.insert(record)
            user.activationAttemptsLeft = credentials.settings.maxActivationAttempts
            user.resendWindowStart = nil
            user.resendCount = 0
            try tx.update(user)
            if try credentials.sessionLedger.endAll(tx, userID: userID, reason: "code-reissued") { credentials.feedAppended = true }
            try credentials.audit.row(tx, userID, nil, "activation.issue", "ok")
        }
        return IssuedCode(userID: userID, activationCode: code, verificationKey: record.verificationKey, expiresAt: record.expiresAt)
    }

    /// Blocks the user (status 138) and ends every session they have open.
    public func block(_ userID: String) throws {
        try mutateUser(userID, action: "user.block", endingSessions: "blocked") { $0.blockReason = .admin }
    }

    /// The SDK's resetBlockedUserAccount: clears the block, restores both
    /// attempt counts, and ends any session left from before.
    public func unblock(_ userID: String) throws {
        try mutateUser(userID, action: "user.unblock", endingSessions: "unblocked") {
            $0.blockReason = nil
            $0.passwordAttemptsLeft = credentials.settings.maxPasswordAttempts
            $0.activationAttemptsLeft = credentials.settings.maxActivationAttempts
        }
    }

    /// Revokes a device: its registration and its key end, and so do its
    /// sessions; it can neither log in nor sign until activated again.
    /// Returns the key it revoked, if any (a host-custody key's file is the
    /// caller's to remove: it lives beside the host, not in the store).
    @discardableResult
    public func revokeDevice(_ userID: String, deviceID: String) throws -> DeviceKeyRecord? {
        let now = credentials.clock()
        return try credentials.write { tx in
            guard try tx.device(userID: userID, deviceID: deviceID) != nil else { throw StoreError.notFound }
            return try credentials.revokeDevice(tx, userID: userID, deviceID: deviceID, at: now, action: "device.revoke")
        }
    }

    public func expirePassword(_ userID: String) throws {
        try mutateUser(userID, action: "password.expire", endingSessions: nil) { $0.passwordExpired = true }
    }

    private func mutateUser(_ userID: String, action: String, endingSessions reason: String?, _ change: (inout UserRecord) -> Void) throws {
        try credentials.write { tx in
            guard var user = try tx.user(userID) else { throw StoreError.notFound }
            change(&user)
            try tx.update(user)
            if let reason { if try credentials.sessionLedger.endAll(tx, userID: userID, reason: reason) { credentials.feedAppended = true } }
            try credentials.audit.row(tx, userID, nil, action, "ok")
        }
    }
}
