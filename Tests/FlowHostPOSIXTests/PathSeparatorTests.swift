import FlowHostPOSIX
import Testing

/// The last `/` of a path is found by its byte, as the kernel reads paths.
@Suite struct PathSeparatorTests {
    @Test func theLastSlashByteIsFound() {
        let path = "/work/main/.build/release/libFlowPluginMFA.so"
        #expect(path.lastPathSeparator.map { String(path[..<$0]) } == "/work/main/.build/release")
        #expect("/".lastPathSeparator == "/".startIndex)
        #expect("flowhost".lastPathSeparator == nil)
        // A combining mark after the slash makes one Character of the two:
        // a search by Character would pass over the folder's end.
        let combined = "/tmp/a/\u{301}b.so"
        #expect(combined.lastIndex(of: "/") != combined.lastPathSeparator)
        #expect(combined.lastPathSeparator.map { String(combined[..<$0]) } == "/tmp/a")
    }
}
