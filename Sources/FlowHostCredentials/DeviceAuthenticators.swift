import FlowHostAccounts
import FlowHostAudit
import FlowHostStore
import FlowJSON

/// How a user authenticates on one registered device: LDA enrolled or not,
/// and the password that must exist when LDA goes. Its own domain over the
/// credentials' transaction-level steps. The verification before a change
/// (step-up) is the caller's; each change re-reads the user and the device
/// in its own write transaction, so a block or a deregistration between
/// the verification and the change refuses it.
///
/// Used from one thread at a time, like the `CredentialService` it wraps.
public final class DeviceAuthenticators {
    let credentials: CredentialService

    public init(_ credentials: CredentialService) { self.credentials = credentials }

    public enum Change: Sendable, Equatable {
        case changed
        /// Already in the asked state (nothing changed).
        case unchanged
        /// Disabling LDA for a user with no password needs one first.
        case passwordRequired
        /// The new password breaks the policy (190), with what is wrong.
        case violatesPolicy([PolicyViolation])
        /// The new password is one of the last ones (164).
        case reused
        case refused(Refusal)
    }

    /// Enrolls `ldaType` on the device. The password stays: the user then has both.
    public func enableLDA(_ userID: String, deviceID: String, ldaType: Int) throws -> Change {
        try credentials.write { tx in
            guard let user = try tx.user(userID) else { throw StoreError.notFound }
            if let refusal = try credentials.loginRefusal(tx, user, deviceID: deviceID) { return .refused(refusal) }
            guard var device = try tx.device(userID: userID, deviceID: deviceID) else { return .refused(.notRegisteredOnDevice) }
            if device.ldaType == ldaType { return .unchanged }
            device.ldaType = ldaType
            try tx.save(device)
            try credentials.audit.row(tx, userID, deviceID, "lda.enable", "ok", ["ldaType": .int(ldaType)])
            return .changed
        }
    }

    /// Removes LDA from the device, setting `newPassword` (checked against
    /// the policy and the history) in the same step. A user with no password
    /// must give one, so no user is ever left without a way in.
    public func disableLDA(_ userID: String, deviceID: String, newPassword: String?) throws -> Change {
        if let newPassword {
            switch try credentials.checkNewPassword(userID, newPassword) {
            case .acceptable: break
            case .violatesPolicy(let problems):
                try credentials.write { try credentials.audit.count($0, userID, "lda.disable", "policy") }
                return .violatesPolicy(problems)
            case .reused:
                try credentials.write { try credentials.audit.count($0, userID, "lda.disable", "reused") }
                return .reused
            }
        }
        let hash = try newPassword.map { try credentials.settings.hasher.hash($0) }
        return try credentials.write { tx in
            guard let user = try tx.user(userID) else { throw StoreError.notFound }
            if let refusal = try credentials.loginRefusal(tx, user, deviceID: deviceID) { return .refused(refusal) }
            guard var device = try tx.device(userID: userID, deviceID: deviceID) else { return .refused(.notRegisteredOnDevice) }
            guard device.ldaType != nil else { return .unchanged }
            let hasPassword = !(try tx.passwords(userID: userID, limit: 1)).isEmpty
            if !hasPassword && hash == nil { return .passwordRequired }
            // Seed 003: disabling sets a new password (challengeMode 14); for a user who
            // had one it replaces it, through the same history as any change.
            if let hash { try credentials.storePassword(tx, userID: userID, hash: hash) }
            device.ldaType = nil
            try tx.save(device)
            try credentials.audit.row(tx, userID, deviceID, "lda.disable", "ok", ["passwordSet": .bool(hash != nil)])
            return .changed
        }
    }
}
