import FlowHostPOSIX
import Testing

/// The last `/` of a path is found by its byte, as the kernel reads paths;
/// a path's folder part, cut there, is the text before that `/`, whatever
/// characters stand either side of it.
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

    @Test func theFolderPartIsTheTextBeforeTheLastSeparator() {
        let cases: [(String, String?)] = [
            ("a/b", "a"), ("/etc", ""), ("name", nil), ("", nil), ("/a/b/c.sqlite", "/a/b"), ("a/", "a"), ("//", "/"),
            ("é/🙂/x", "é/🙂"), ("e\u{301}/x", "e\u{301}"), ("a/\u{301}b", "a"), ("🇫🇷/🇫🇷", "🇫🇷"),
        ]
        for (path, folder) in cases {
            #expect(path.folderPart == folder, "\(path)")
        }
    }

    /// The same as cutting the scalars at the last `/`, for every prefix of
    /// a path mixing one- to four-byte characters and combining marks.
    @Test func agreesWithACutByScalars() {
        let path = "/tmp/é\u{301}x/日本/🙂a/\u{301}/b"
        for length in 0...path.unicodeScalars.count {
            let scalars = Array(path.unicodeScalars.prefix(length))
            let text = String(String.UnicodeScalarView(scalars))
            let expected = scalars.lastIndex(of: "/").map { String(String.UnicodeScalarView(scalars[..<$0])) }
            #expect(text.folderPart == expected, "\(text)")
        }
    }
}
