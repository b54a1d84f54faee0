@testable import FlowHostLaunch
import Testing

/// flowhost reads its command line through `ProcessArguments`, not
/// `CommandLine` (the C runtime's argv is captured in `CFlowHostSystem`,
/// which `FlowHostCoreTests.ProcessArgumentsTests` checks on its own).
@Suite struct ProcessArgumentsTests {
    @Test func theArgumentsAreCommandLinesArguments() throws {
        #expect(ProcessArguments.all == CommandLine.arguments)
        let name = try #require(ProcessArguments.programName)
        #expect(String(cString: name) == CommandLine.arguments[0])
    }
}
