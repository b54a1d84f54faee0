import FlowJSON
import TestSupport
import Testing

/// Whatever bytes arrive, the engine answers only with well-formed frames
/// and keeps serving.
@Suite struct EngineRobustnessTests {

    static let seeds: [String] = [
        request(1, "probe.emit", #"{"text":"x"}"#), request(2, "probe.challenge", #"{"challengeMode":3}"#),
        request(3, "setSecret", #"["right",3]"#), #"[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","method":"ping"}]"#,
        request(5, "probe.call", #"{"service":"probe.double","params":{"n":2}}"#), #"{"jsonrpc":"2.0","id":"fh-1","result":{}}"#,
    ]

    @Test(arguments: [11, 22, 33])
    func mutatedFramesNeverBreakTheStream(seed: UInt64) throws {
        var generator = SplitMix64(state: seed)
        let h = Harness(ProbeFlow.self)
        h.initialize()
        for round in 0..<400 {
            var bytes = Array(Self.seeds[Int.random(in: 0..<Self.seeds.count, using: &generator)].utf8)
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.remove(at: index)
                default: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: index)
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            bytes.removeAll { $0 == 0x0A }
            h.sink.reset()
            h.receive(bytes + [0x0A])
            try h.engine.flush()
            for line in h.sink.lines {
                let frame = try JSON.parse(line)
                let messages = frame.kind == .array ? frame.elements : [frame]
                for message in messages {
                    #expect(message["jsonrpc"]?.stringValue == "2.0", "round \(round): \(line)")
                }
            }
            // The host still answers a plain request after every mutation.
            let ping = h.exchange(request(9000 + round, "ping"))
            #expect(ping.contains { $0["id"]?.intValue == 9000 + round }, "round \(round)")
        }
    }
}
