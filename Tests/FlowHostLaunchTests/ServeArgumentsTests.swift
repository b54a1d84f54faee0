import FlowHostLaunch
import Testing

@testable import flowhost_cli

/// `flowhost` reads a plain serve command line itself and hands the rest to
/// `flowhost-cli`: what it reads must mean what swift-argument-parser's
/// `Serve` makes of it, and what it cannot read must be handed over.
@Suite struct ServeArgumentsTests {
    /// The parser's reading of a serve command line, as `ServeArguments`.
    static func parsedByArgumentParser(_ arguments: [String]) throws -> ServeArguments {
        let rest = arguments.first == "serve" ? Array(arguments.dropFirst()) : arguments
        return try Serve.parse(rest).arguments
    }

    static let readable: [[String]] = [
        [],
        ["serve"],
        ["--store", "/tmp/a.sqlite"],
        ["--store=/tmp/a.sqlite", "--config", "c.json", "--log-level", "debug"],
        ["serve", "--plugins", "one", "--plugins=two", "--pin", "libA.so=00ff", "--pinned-only", "--strict"],
        ["--no-default-plugins", "--examples", "--trace", "/tmp/t", "--contract", "none", "--max-frame-bytes", "4096"],
        ["--state-dir", "/tmp/s", "--device-dir", "/tmp/d", "--store", "postgresql://h/db"],
        ["--isolate", "mfa", "--isolate=step-up", "--isolate-all"],
        ["--store", "postgresql://pool/db", "--feed-store", "postgresql://server/db"],
        ["--feed-store=postgresql://server/db"],
        ["--peer-group", "flowhost", "--store", "/var/lib/flowhost/flowhost.sqlite"],
    ]

    @Test(arguments: readable)
    func aPlainCommandLineMeansWhatTheParserMakesOfIt(_ arguments: [String]) throws {
        let fast = try #require(ServeArguments.parse(arguments))
        #expect(fast == (try Self.parsedByArgumentParser(arguments)))
    }

    @Test(arguments: [
        ["--help"], ["-h"], ["--version", "--store", "x"], ["admin", "add-user", "u"], ["plugins"], ["demo"],
        ["--store"], ["--store", "--strict"], ["--store", "a", "--store", "b"], ["--feed-store", "a", "--feed-store", "b"], ["--peer-group", "a", "--peer-group=b"], ["--strict", "--strict"], ["--strict=yes"],
        ["--max-frame-bytes", "0"], ["--max-frame-bytes", "many"], ["--stor", "x"], ["stray"], ["serve", "serve"],
    ])
    func anythingElseIsHandedOver(_ arguments: [String]) {
        #expect(ServeArguments.parse(arguments) == nil)
    }

    /// Every option `Serve` declares is one `ServeArguments` reads: a new
    /// option added to one parser and not the other fails here.
    @Test func bothParsersKnowTheSameOptions() {
        let help = Serve.helpMessage(columns: 1000)
        var declared: Set<String> = []
        let characters = Array(help)
        var index = 0
        while index + 1 < characters.count {
            if characters[index] == "-", characters[index + 1] == "-", index == 0 || !characters[index - 1].isLetter {
                var end = index + 2
                while end < characters.count, characters[end] == "-" || characters[end].isLetter || characters[end].isNumber { end += 1 }
                declared.insert(String(characters[index..<end]))
                index = end
            } else {
                index += 1
            }
        }
        declared.subtract(["--help", "--version"])
        #expect(declared == ServeArguments.flags.union(ServeArguments.repeatable).union(ServeArguments.single))
    }
}
