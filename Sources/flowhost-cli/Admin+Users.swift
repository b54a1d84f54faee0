import FlowHostPOSIX
import ArgumentParser
import FlowHostCore
import FlowHostServices
import FlowHostCredentials
import FlowHostDelivery
import FlowHostNotifications
import FlowHostStore
import FlowJSON
import JSONRPC
import Glibc

/// `flowhost admin`: users: create, codes, show, block, unblock, expire a password.
extension Admin {
    struct AddUser: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a user and print its activation code.")
        @OptionGroup var options: AdminOptions
        @Argument var userID: String

        func run() throws {
            try adminRun { options.emit(try options.operatorActions().addUser(userID), heading: "user \(userID) created") }
        }
    }

    struct IssueCode: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Issue a new activation code (replaces older ones).")
        @OptionGroup var options: AdminOptions
        @Argument var userID: String

        func run() throws {
            try adminRun { options.emit(try options.operatorActions().issueActivationCode(userID), heading: nil) }
        }
    }

    struct ShowUser: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a user's state (never a secret).")
        @OptionGroup var options: AdminOptions
        @Argument var userID: String

        func run() throws {
            try adminRun {
                let (user, devices, openSessions) = try options.userAndDevices(userID)
                let value: JSON = [
                    "userID": .string(user.userID), "status": .string(user.status.rawValue),
                    "blocked": .optional(user.blockReason) { .string($0.rawValue) },
                    "activationAttemptsLeft": .int(user.activationAttemptsLeft),
                    "passwordAttemptsLeft": .int(user.passwordAttemptsLeft), "passwordExpired": .bool(user.passwordExpired),
                    "devices": .int(devices.count), "openSessions": .int(openSessions), "createdAt": .string(isoTime(user.createdAt)),
                ]
                options.emit(value) {
                    TerminalText(lines: value.keys.map { "\($0): \(value[$0]!.stringValue ?? value[$0]!.serialized())" })
                }
            }
        }
    }

    struct Block: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Block a user (status 138 at setUser).")
        @OptionGroup var options: AdminOptions
        @Argument var userID: String
        func run() throws {
            try options.change(userID, { try $0.block(userID) }, report: ["userID": .string(userID), "blocked": true], text: "\(userID) blocked")
        }
    }

    struct Unblock: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Unblock a user and restore its attempts (the SDK's resetBlockedUserAccount).")
        @OptionGroup var options: AdminOptions
        @Argument var userID: String
        func run() throws {
            try options.change(userID, { try $0.unblock(userID) }, report: ["userID": .string(userID), "blocked": false], text: "\(userID) unblocked")
        }
    }

    struct ExpirePassword: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Expire a user's password (getPassword mode 4 at next login).")
        @OptionGroup var options: AdminOptions
        @Argument var userID: String
        func run() throws {
            try options.change(
                userID, { try $0.expirePassword(userID) }, report: ["userID": .string(userID), "passwordExpired": true],
                text: "\(userID): password expired")
        }
    }
}
