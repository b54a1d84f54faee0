import FlowHostCore
import FlowHostCredentials
import FlowHostDelivery
import FlowHostDevices
import FlowHostNotifications
import FlowHostSessions

/// Every domain's section of a host config, parsed and checked once: what
/// `flowhost` and `FlowHostTesting` both build a host's domains from.
public struct HostSettings {
    public var credentials: CredentialSettings
    public var sessions: SessionSettings
    public var delivery: DeliverySettings
    public var events: EventSettings
    public var push: PushSettings
    public var retention: RetentionSettings
    public var approvals: ApprovalLimits
    /// Nil without the section: no WebAuthn device can be activated.
    public var webauthn: WebAuthnSettings?

    /// Throws the first section's error, naming its key.
    public init(_ configuration: HostConfiguration) throws {
        let sections = configuration.sections
        credentials = try CredentialSettings.parse(passwords: sections["passwords"], activation: sections["activation"], devices: sections["devices"])
        sessions = try SessionSettings.parse(sections[SessionSettings.configKey])
        delivery = try DeliverySettings.parse(sections[DeliverySettings.configKey])
        events = try EventSettings.parse(sections[EventSettings.configKey])
        push = try PushSettings.parse(sections[PushSettings.configKey])
        retention = try RetentionSettings.parse(sections[RetentionSettings.configKey])
        approvals = try ApprovalLimits.parse(sections[ApprovalLimits.configKey])
        webauthn = try WebAuthnSettings.parse(sections[WebAuthnSettings.configKey])
    }
}
