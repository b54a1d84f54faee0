import CArgon2Bench
import CSodiumBench
import CBenchSupport
import Foundation

/// What one run needs to start servers.
struct Setup {
    let flowhost: String
    let reference: String
    let folder: String

    func startFlowhost(store: String? = nil, config: String? = nil, cpu: Int32 = -1, extra: [String] = []) throws -> Server {
        var argv = [flowhost, "--examples", "--store", store ?? folder + "/bench-\(UUID().uuidString).sqlite"]
        if let config { argv += ["--config", config] }
        argv += extra
        let server = try Server(argv, cpu: cpu)
        server.send(Requests.initialize(device: "bench-\(UUID().uuidString.prefix(8))") + "\n")
        _ = try server.readUntil(#""id":0"#)
        // The mfa flow greets with getUser; it must not be taken for an answer.
        _ = try server.readUntil(#""method":"getUser""#)
        return server
    }

    func startReference(cpu: Int32 = -1) throws -> Server { try Server([reference], cpu: cpu) }
}

enum Requests {
    /// `keyCustody`: nil leaves it out (the host's default, "host").
    static func initialize(device: String, lda: Bool = false, keyCustody: String? = nil) -> String {
        #"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"1.1","clientInfo":{"name":"bench","version":"1"},"device":{"deviceID":"\#(device)","ldaCapabilities":\#(lda ? "[1]" : "[]")\#(keyCustody.map { #","keyCustody":"\#($0)""# } ?? "")}}}"#
    }
    static func ping(_ id: Int) -> String { #"{"jsonrpc":"2.0","id":\#(id),"method":"ping"}"# + "\n" }
    static let text = String(repeating: "flowhost-", count: 20)
    /// About 200 bytes of params.
    static func echo(_ id: Int) -> String { #"{"jsonrpc":"2.0","id":\#(id),"method":"echo","params":{"text":"\#(text)"}}"# + "\n" }
    static func subscribe(_ id: Int, topic: String) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"echo.subscribe","params":{"topic":"\#(topic)"}}"# + "\n"
    }
    static func publish(_ id: Int, topic: String, n: Int) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"echo.publish","params":{"topic":"\#(topic)","payload":{"n":\#(n)}}}"# + "\n"
    }
}

enum Measure {
    /// Requests per second with `count` requests in flight from a writer thread.
    static func throughput(_ server: Server, count: Int, make: (Int) -> String) throws -> Double {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 220)
        for id in 1...count { bytes += Array(make(id).utf8) }
        let payload = bytes
        let started = now()
        let writer = Thread { server.send(payload) }
        writer.start()
        try server.skipLines(count)
        let seconds = Double(now() - started) / 1e9
        return Double(count) / seconds
    }

    /// Round-trip times in microseconds, one request at a time.
    static func pingPong(_ server: Server, count: Int, make: (Int) -> String = Requests.ping) throws -> [Double] {
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for id in 1...count {
            let request = Array(make(id).utf8)
            let started = now()
            server.send(request)
            _ = try server.readLine()
            samples.append(Double(now() - started) / 1000)
        }
        return samples
    }

    static func percentile(_ samples: [Double], _ p: Double) -> Double {
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    static func median(_ samples: [Double]) -> Double { percentile(samples, 0.5) }

    /// Microseconds for one Argon2id verification with these parameters, in this process.
    static func argon2Verify(memoryKiB: UInt32, iterations: UInt32, rounds: Int) -> Double {
        let password = Array("Tr0ub4dor&Zebra".utf8)
        let salt = [UInt8](repeating: 7, count: 16)
        var encoded = [CChar](repeating: 0, count: 256)
        _ = argon2id_hash_encoded(iterations, memoryKiB, 1, password, password.count, salt, salt.count, 32, &encoded, 256)
        var samples: [Double] = []
        for _ in 0..<rounds {
            let started = now()
            _ = argon2id_verify(encoded, password, password.count)
            samples.append(Double(now() - started) / 1000)
        }
        return median(samples)
    }

    /// One Ed25519 signature (libsodium) over a message the size of a
    /// level-0 signing's: the part of a signing that is the signature itself.
    static func ed25519Sign(messageBytes: Int, rounds: Int) -> Double {
        _ = sodium_init()
        var publicKey = [UInt8](repeating: 0, count: 32)
        var secretKey = [UInt8](repeating: 0, count: 64)
        _ = crypto_sign_keypair(&publicKey, &secretKey)
        let message = [UInt8](repeating: 0x61, count: messageBytes)
        var signature = [UInt8](repeating: 0, count: 64)
        var samples: [Double] = []
        for _ in 0..<rounds {
            let started = now()
            _ = crypto_sign_detached(&signature, nil, message, UInt64(message.count), secretKey)
            samples.append(Double(now() - started) / 1000)
        }
        return median(samples)
    }
}
