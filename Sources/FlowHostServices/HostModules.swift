import FlowHostCore
import FlowHostCredentials
import FlowHostDelivery
import FlowHostDevices
import FlowHostNotifications
import FlowHostSessions
import FlowHostStore

/// Assembles the host's domain modules: each registers the services it
/// offers (and the engine hooks it provides) over one store.
public enum HostModules {
    /// The config sections the modules own (each module parses its own).
    public static let configSections: Set<String> = CredentialSettings.configKeys.union([
        SessionSettings.configKey, DeliverySettings.configKey, RetentionSettings.configKey, ApprovalLimits.configKey,
    ])

    public static func register(
        _ credentials: CredentialService, feedWake: (any FeedSignal)?, keyring: DeviceKeyring?, issuer: ReceiptIssuer,
        retention: RetentionSettings = RetentionSettings(), approvals: ApprovalLimits = ApprovalLimits(), in engine: HostEngine
    ) {
        // The engine owns the services registered here: capturing it strongly would keep it alive forever.
        unowned let engine = engine
        let notifications = NotificationService(store: credentials.store, audit: credentials.audit, clock: CredentialService.now)
        notifications.approvalLimits = approvals
        if let feedWake { notifications.ringFeed = { feedWake.ring() } }
        CredentialsModule.register(credentials, keyring: keyring, in: engine)
        NewDevicesModule.register(AdditionalDeviceActivation(credentials), notifications: notifications, in: engine)
        AuthenticatorsModule.register(DeviceAuthenticators(credentials), in: engine)
        RecoveryModule.register(AccountRecovery(credentials), in: engine)
        SignaturesModule.register(
            DataSignatures(store: credentials.store, audit: credentials.audit, issuer: issuer, clock: CredentialService.now), keyring: keyring,
            in: engine)
        DevicesModule.register(credentials, keyring: keyring, in: engine)
        SessionsModule.register(credentials, issuer: issuer, in: engine)
        AuditModule.register(credentials, in: engine)
        RecordsModule.register(credentials.store, in: engine)
        NotificationsModule.register(notifications, in: engine)
        engine.afterLogin = RetentionSweep.hourly(credentials.store, retention, logger: engine.logger)
        if let feedWake {
            engine.feed = StoreChangeFeed(store: credentials.store, wake: feedWake, retention: retention)
            credentials.ringFeed = { feedWake.ring() }
        }
    }
}
