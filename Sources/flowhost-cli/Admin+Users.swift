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
        static let configuration = CommandConfiguration(
            abstract: "Create users and print their activation codes.",
            discussion: "Several users are created in order, each in its own transaction, with one store opened once; each gets its code on a line of its own (with --json, one JSON object per line). The first failure stops the command; the users before it stay created.")
        @OptionGroup var options: AdminOptions
        @Argument(help: ArgumentHelp("One or more user ids.", valueName: "user-id")) var userIDs: [String]

        func validate() throws {
            guard !userIDs.isEmpty else { throw ValidationError("name at least one user id") }
        }

        func run() throws {
            try adminRun {
                let actions = try options.operatorActions()
                for userID in userIDs { options.emit(try actions.addUser(userID), heading: "user \(userID) created") }
            }
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
