import FlowJSON
import Testing

@testable import FlowHostCore

/// The config's `isolation` section: every key checked, a slip named.
@Suite struct IsolationSettingsTests {
    func parse(_ text: String) throws -> IsolationSettings {
        try HostConfiguration.parse(try JSON.parse(text)).isolation
    }

    @Test func theDefaultsIsolateNothing() throws {
        let settings = try parse("{}")
        #expect(!settings.isActive)
        #expect(settings.addressSpaceMiB == 1024 && settings.cpuSeconds == 3600 && settings.openFiles == 64)
        #expect(settings.watchdogMilliseconds == 5000 && settings.callBudgetMilliseconds == 10000)
        #expect(settings.limits.call_budget_ms == 10000)
    }

    @Test func flowsByNameOrAllWithLimits() throws {
        let named = try parse(#"{"isolation": {"flows": ["mfa", "step-up"], "watchdogMs": 250, "callBudgetMs": 700, "addressSpaceMiB": 256}}"#)
        #expect(named.flows == ["mfa", "step-up"] && !named.all && named.isolates("mfa") && !named.isolates("echo"))
        #expect(named.limits.watchdog_ms == 250 && named.limits.address_space_bytes == 256 << 20)
        #expect(named.limits.call_budget_ms == 700)
        let all = try parse(#"{"isolation": {"flows": "all"}}"#)
        #expect(all.all && all.isolates("anything"))
    }

    @Test(arguments: [
        (#"{"isolation": []}"#, "isolation: must be an object"),
        (#"{"isolation": {"flows": "some"}}"#, "isolation.flows: must be \"all\" or an array of flow names"),
        (#"{"isolation": {"flows": [""]}}"#, "isolation.flows: must be \"all\" or an array of flow names"),
        (#"{"isolation": {"watchdogMs": 10}}"#, "isolation.watchdogMs: must be an integer from 100 to 3600000"),
        (#"{"isolation": {"callBudgetMs": 99}}"#, "isolation.callBudgetMs: must be an integer from 100 to 3600000"),
        (#"{"isolation": {"openFile": 8}}"#, "isolation.openFile: unknown key"),
    ])
    func aWrongSectionIsRefusedByName(_ text: String, _ message: String) throws {
        #expect { try parse(text) } throws: { ($0 as? HostConfiguration.Invalid)?.description == "invalid config: \(message)" }
    }
}
