import FlowHostAccounts
import FlowHostAudit
import FlowHostCredentials
import FlowHostDelivery
import FlowHostDevices
import FlowHostNotifications
import FlowHostSessions
import FlowHostStore

/// The host's store schema: every domain's tables, registered by the
/// domains that own them, after the frozen steps that bring a store made
/// before the split up to what their baselines replace.
public enum HostSchema {
    public static let migrator = SchemaMigrator(
        LegacyAccountsSchema.register(in:), AccountsSchema.register(in:), AuditSchema.register(in:), SessionsSchema.register(in:),
        OutboxSchema.register(in:), CredentialsSchema.register(in:), RecordsSchema.register(in:), DevicesSchema.register(in:),
        NotificationsSchema.register(in:))
}
