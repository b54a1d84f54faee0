/// One line of `flowhost admin check`: a named check, whether it passed,
/// and what was found (a fix, when it failed). Nothing secret is ever in a
/// detail: names, paths, modes and counts only.
public struct HealthCheck: Sendable, Equatable {
    public let name: String
    public let passed: Bool
    public let detail: String

    public init(_ name: String, passed: Bool, _ detail: String) {
        self.name = name
        self.passed = passed
        self.detail = detail
    }

    static func failed(_ name: String, _ detail: String) -> HealthCheck { HealthCheck(name, passed: false, detail) }
}
