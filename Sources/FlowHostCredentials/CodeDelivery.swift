import Crypto
import FlowHostStore
import FlowJSON
import Foundation

/// A code on its way to its user. The message body is JSON:
/// `{userID, activationCode, verificationKey, expiresAt}`.
public struct CodeMessage: Sendable {
    public let userID: String
    public let activationCode: String
    public let verificationKey: String
    public let expiresAt: Int64

    func json() -> JSON {
        [
            "userID": .string(userID), "activationCode": .string(activationCode),
            "verificationKey": .string(verificationKey), "expiresAt": .int(Int(expiresAt)),
        ]
    }
}

/// Where activation codes go: the store's outbox (default) or a command.
public protocol CodeDelivery {
    func deliver(_ message: CodeMessage, in transaction: any StoreWriter, at now: Int64) throws
}

/// Seals each message with AES-GCM under a key kept in a file beside the
/// store (mode 0600), so the store never holds a code in the clear;
/// `flowhost admin outbox` opens them.
public struct OutboxDelivery: CodeDelivery {
    let key: SymmetricKey

    public init(keyPath: String) throws {
        key = try OutboxKey.loadOrCreate(at: keyPath)
    }

    public func deliver(_ message: CodeMessage, in transaction: any StoreWriter, at now: Int64) throws {
        let body = Data(message.json().serialized().utf8)
        let sealed = try AES.GCM.seal(body, using: key, authenticating: Data(message.userID.utf8))
        try transaction.enqueue(
            OutboxMessage(userID: message.userID, kind: "activation-code", sealedBody: [UInt8](sealed.combined!), createdAt: now))
    }

    /// Opens a sealed outbox message; fails if it was altered or moved to another user.
    public func open(_ message: OutboxMessage) throws -> JSON {
        let box = try AES.GCM.SealedBox(combined: Data(message.sealedBody))
        let body = try AES.GCM.open(box, using: key, authenticating: Data(message.userID.utf8))
        return try body.withUnsafeBytes { try JSON.parse($0) }
    }
}

enum OutboxKey {
    static func loadOrCreate(at path: String) throws -> SymmetricKey {
        if let data = FileManager.default.contents(atPath: path) {
            guard data.count == 32 else { throw CredentialError("outbox key \(path) is not 32 bytes") }
            return SymmetricKey(data: data)
        }
        let bytes = SecureRandom.bytes(32)
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if fd < 0 {
            // Another process created it first: use theirs.
            if errno == EEXIST, let data = FileManager.default.contents(atPath: path), data.count == 32 {
                return SymmetricKey(data: data)
            }
            throw CredentialError("cannot create outbox key \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, 32) }) == 32 else {
            throw CredentialError("cannot write outbox key \(path)")
        }
        return SymmetricKey(data: bytes)
    }
}

/// Runs a configured program for each code, the way a deployment hands it
/// to its mail or SMS gateway. The message goes to the program's stdin (never
/// its arguments, which other users can see); a non-zero exit is a failure.
public struct CommandDelivery: CodeDelivery {
    public let argv: [String]

    public init(argv: [String]) { self.argv = argv }

    public func deliver(_ message: CodeMessage, in transaction: any StoreWriter, at now: Int64) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: argv[0])
        process.arguments = Array(argv.dropFirst())
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.standardError
        process.standardError = FileHandle.standardError
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data((message.json().serialized() + "\n").utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CredentialError("delivery command exited with status \(process.terminationStatus)")
        }
    }
}

public struct CredentialError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
