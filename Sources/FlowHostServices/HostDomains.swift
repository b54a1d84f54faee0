import FlowHostAudit
import FlowHostCredentials
import FlowHostDelivery
import FlowHostSessions
import FlowHostStore

/// The domain services a host (or an admin command) works with, made over
/// one context: one store, one clock, one audit log, one feed bell.
public struct HostDomains {
    public let context: DomainContext
    public let credentials: CredentialService
    public let sessions: SessionService

    public init(
        store: any FlowStore, credentials settings: CredentialSettings = CredentialSettings(), sessions: SessionSettings = SessionSettings(),
        delivery: any CodeDelivery, clock: @escaping () -> Int64 = DomainContext.now
    ) {
        context = DomainContext(store: store, clock: clock)
        credentials = CredentialService(context, settings: settings, delivery: delivery, sessions: sessions)
        self.sessions = SessionService(context, settings: sessions)
    }
}
