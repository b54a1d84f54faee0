import FlowJSON
@testable import FlowHostCore
import JSONRPC
import Testing

/// The engine's parts, each alone: the call table, the challenge slot and
/// the table of host requests. Real loaded flows serve as owners.
@Suite struct CallTableTests {
    let h = Harness(ProbeFlow.self, TwinFlow.self)
    var probe: LoadedPlugin { h.engine.plugins[0] }
    var twin: LoadedPlugin { h.engine.plugins[1] }

    @Test func callsMadeUnderTheActiveOneAreItsChildren() {
        var table = CallTable()
        let root = table.start("a", caller: probe, provider: twin, synchronous: false) { _ in }
        table.active = root
        let child = table.start("b", caller: twin, provider: nil, synchronous: false) { _ in }
        let grandchildParent = table[child]?.parent
        table.active = nil
        let other = table.start("c", caller: twin, provider: probe, synchronous: true) { _ in }
        #expect(grandchildParent == root)
        #expect(table.roots.map(\.id) == [root, other])
        #expect(table.children(of: root).map(\.id) == [child])
        #expect(table.made(by: twin).map(\.id) == [child, other])
        #expect(table.newestServed(by: twin) == root, "a synchronous call is nobody's dialogue")
        #expect(table.oldest?.id == root)
    }

    @Test func aCallIsRemovedOnce() {
        var table = CallTable()
        let id = table.start("a", caller: probe, provider: nil, synchronous: false) { _ in }
        #expect(table.remove(id)?.service == "a")
        #expect(table.remove(id) == nil)
        #expect(table.isEmpty)
    }
}

@Suite struct ChallengeSlotTests {
    let h = Harness(ProbeFlow.self)
    var probe: LoadedPlugin { h.engine.plugins[0] }

    @Test func aRestingChallengeIsOpenButNotInProgress() {
        var slot = ChallengeSlot()
        let serial = slot.open(event: "getUser", challengeMode: nil, owner: probe, call: nil, isResting: true)
        #expect(slot.isOpen(serial: serial))
        #expect(slot.inProgress == nil)
        #expect(slot.closeInProgress() == nil)
        #expect(slot.current?.event == "getUser")
    }

    @Test func aNewerChallengeReplacesTheOlderAndOnlyItsOwnSerialExpiresIt() {
        var slot = ChallengeSlot()
        let first = slot.open(event: "getSecret", challengeMode: 1, owner: probe, call: nil, isResting: false)
        let second = slot.open(event: "getSecret", challengeMode: 2, owner: probe, call: 9, isResting: false)
        #expect(slot.close(serial: first) == nil)
        slot.close(belongingTo: 8)
        #expect(slot.isOpen(serial: second))
        slot.close(belongingTo: 9)
        #expect(slot.current == nil)
    }

    @Test func anAnswerMustFitTheOpenChallenge() {
        var slot = ChallengeSlot()
        guard case .failure(let none) = slot.admit("setSecret", answers: ["getSecret"], ownerDeclares: true, challengeMode: nil) else {
            Issue.record("admitted with nothing open"); return
        }
        #expect(none.code == .noOpenChallenge)
        _ = slot.open(event: "getSecret", challengeMode: 1, owner: probe, call: nil, isResting: false)
        guard case .failure(let other) = slot.admit("setOther", answers: ["getOther"], ownerDeclares: true, challengeMode: nil),
            case .failure(let mode) = slot.admit("setSecret", answers: ["getSecret"], ownerDeclares: true, challengeMode: 2),
            case .failure(let undeclared) = slot.admit("setSecret", answers: ["getSecret"], ownerDeclares: false, challengeMode: 1),
            case .success(let open) = slot.admit("setSecret", answers: ["getSecret"], ownerDeclares: true, challengeMode: 1)
        else { Issue.record("wrong verdicts"); return }
        #expect([other.code, mode.code, undeclared.code] == [.challengeMismatch, .challengeMismatch, .challengeMismatch])
        #expect(other.data?["open"]?["flow"]?.stringValue == "probe")
        #expect(open.challengeMode == 1)
    }
}

@Suite struct ClientRequestTableTests {
    let h = Harness(ProbeFlow.self, TwinFlow.self)
    var probe: LoadedPlugin { h.engine.plugins[0] }
    var twin: LoadedPlugin { h.engine.plugins[1] }

    @Test func requestsComeOutInSendingOrderPastNine() {
        var table = ClientRequestTable()
        for number in 1...12 {
            table.add(method: "platform/m\(number)", owner: number % 2 == 0 ? probe : twin, call: nil, deadline: 100) { _ in }
        }
        #expect(table.oldest?.id == "fh-1")
        let probes = table.remove { $0.owner === probe }
        #expect(probes.map(\.id) == ["fh-2", "fh-4", "fh-6", "fh-8", "fh-10", "fh-12"])
        #expect(table.count == 6)
        #expect(table.nextID == "fh-13")
    }

    @Test func aRequestIsLiveUntilRemovedAndOnlyAtItsDeadline() {
        var table = ClientRequestTable()
        table.add(method: "platform/x", owner: probe, call: 4, deadline: 500) { _ in }
        #expect(table.isLive("fh-1", deadline: 500))
        #expect(!table.isLive("fh-1", deadline: 499))
        #expect(table.remove("fh-1")?.call == 4)
        #expect(table.remove("fh-1") == nil)
        #expect(!table.isLive("fh-1", deadline: 500))
    }
}
