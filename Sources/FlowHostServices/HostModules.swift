import FlowHostAudit
import FlowHostCore
import FlowHostCredentials
import FlowHostDelivery
import FlowHostDevices
import FlowHostNotifications
import FlowHostSessions
import FlowHostStore

/// Assembles the host's domain modules: each registers the services it
/// offers (and the engine hooks it provides) over one store. Registering is
/// the engine's; the services hold none of it, only the parts they use
/// (the session, the client, a logger).
public enum HostModules {
    /// The config sections the modules own (each module parses its own).
    public static let configSections: Set<String> = CredentialSettings.configKeys.union([
        SessionSettings.configKey, DeliverySettings.configKey, EventSettings.configKey, RetentionSettings.configKey, ApprovalLimits.configKey,
        WebAuthnSettings.configKey, PushSettings.configKey,
    ])

    public static func register(
        _ domains: HostDomains, feedWake: (any FeedSignal)?,
        keyring: DeviceKeyring?, issuer: ReceiptIssuer, retention: RetentionSettings = RetentionSettings(),
        approvals: ApprovalLimits = ApprovalLimits(), webauthn: WebAuthnSettings? = nil, in engine: HostEngine
    ) {
        let (context, credentials, sessions) = (domains.context, domains.credentials, domains.sessions)
        if let feedWake { context.ringFeed = { feedWake.ring() } }
        let notifications = domains.notifications()
        notifications.approvalLimits = approvals
        CredentialsModule.register(credentials, store: context.store, keyring: keyring, in: engine)
        NewDevicesModule.register(AdditionalDeviceActivation(credentials), notifications: notifications, in: engine)
        AuthenticatorsModule.register(DeviceAuthenticators(credentials), in: engine)
        RecoveryModule.register(AccountRecovery(credentials), in: engine)
        ForgotPasswordModule.register(ForgotPassword(credentials), in: engine)
        SignaturesModule.register(DataSignatures(context, issuer: issuer), keyring: keyring, webauthn: webauthn, in: engine)
        DevicesModule.register(credentials.devices, keyring: keyring, webauthn: webauthn, in: engine)
        UserDevicesModule.register(UserDevices(credentials), keyring: keyring, in: engine)
        PushTokensModule.register(PushTokens(credentials), in: engine)
        SessionsModule.register(credentials, sessions: sessions, issuer: issuer, in: engine)
        AuditModule.register(context.audit, store: context.store, in: engine)
        RecordsModule.register(context.store, in: engine)
        LanguageModule.register(in: engine)
        let madeHere = NotificationsMadeHere()
        NotificationsModule.register(notifications, madeHere: madeHere, in: engine)
        engine.session.afterLogin = RetentionSweep.hourly(context.store, retention, logger: engine.logger)
        if let feedWake { engine.feed = StoreChangeFeed(store: context.store, wake: feedWake, retention: retention, madeHere: madeHere) }
    }
}
