import ArgumentParser
import FlowHostCore
import FlowHostServices
import FlowJSON

#if canImport(Glibc)
import Glibc
#endif

extension Admin {
    struct Prune: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete what the config's retention no longer keeps (feed events, old notifications, ended sessions, spent device challenges, old audit rows and hourly counts, finished outbox messages); hosts also do it hourly.")
        @OptionGroup var options: AdminOptions

        func run() throws {
            try adminRun {
                let settings: RetentionSettings
                do {
                    let configuration = try options.config.map { try HostConfiguration.load(path: $0, moduleSections: HostModules.configSections) }
                    settings = try RetentionSettings.parse(configuration?.sections[RetentionSettings.configKey])
                } catch { throw ValidationError("\(error)") }
                let removed = try RetentionSweep.run(try options.store(), settings, now: Int64(time(nil)))
                let report: JSON = [
                    "feedEvents": .int(removed.feedEvents), "notifications": .int(removed.notifications),
                    "endedSessions": .int(removed.endedSessions), "deviceChallenges": .int(removed.deviceChallenges),
                    "counters": .int(removed.counters), "auditRows": .int(removed.auditRows), "outboxMessages": .int(removed.outboxMessages),
                ]
                options.emit(report) { "removed \(removed.summary)" }
            }
        }
    }
}
