import CFlowHostSystem
import Testing

/// flowhost reads its command line from the C runtime's argv
/// (`flowhost_process_argv`), not through Swift's `CommandLine`: the two
/// must give the same arguments.
@Suite struct ProcessArgumentsTests {
    @Test func theCapturedCommandLineIsSwiftsCommandLine() throws {
        let count = Int(flowhost_process_argc())
        #expect(count >= 1, "the initialiser did not run")
        #expect(count == Int(CommandLine.argc))
        let argv = try #require(flowhost_process_argv())
        let captured = (0..<count).map { String(cString: argv[$0]!) }
        #expect(captured == CommandLine.arguments)
    }
}
