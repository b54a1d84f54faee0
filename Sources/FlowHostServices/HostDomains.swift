import FlowHostAudit
import FlowHostCredentials
import FlowHostDelivery
import FlowHostNotifications
import FlowHostSessions
import FlowHostStore

/// The domain services a host (or an admin command) works with, made over
/// one context: one store, one clock, one audit log, one feed bell.
public struct HostDomains {
    public let context: DomainContext
    public let credentials: CredentialService
    public let sessions: SessionService
    /// Told of each notification made (`push.command`); nil without one.
    public var push: (any NotificationPushSink)?

    public init(
        store: any FlowStore, credentials settings: CredentialSettings = CredentialSettings(), sessions: SessionSettings = SessionSettings(),
        delivery: any CodeDelivery, clock: @escaping () -> Int64 = DomainContext.now
    ) {
        context = DomainContext(store: store, clock: clock)
        credentials = CredentialService(context, settings: settings, delivery: delivery, sessions: sessions)
        self.sessions = SessionService(context, settings: sessions)
    }

    /// The notifications domain over this context, pushing as the config says.
    public func notifications() -> NotificationService {
        let notifications = NotificationService(context)
        notifications.push = push
        return notifications
    }
}
