import CFlowHostSystem
import CJansson
import FlowJSON
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Addresses jansson freed while `countingFree` was installed (tests in
/// other suites free values on other threads meanwhile, hence the mutex).
private let freedAddresses = Mutex<Set<UInt>>([])

private func countingFree(_ block: UnsafeMutableRawPointer?) {
    if let block { freedAddresses.withLock { _ = $0.insert(UInt(bitPattern: block)) } }
    flowhost_wipe_allocation(block)
    free(block)
}

/// Serialized: one test swaps jansson's allocator, which the other checks.
@Suite(.serialized) struct JSONMemoryTests {
    @Test func theHostMakesJanssonWipeWhatItFrees() {
        flowhost_json_wipe_on_free()
        #expect(flowhost_json_wipes_on_free() == 1)
    }

    /// The wipe only helps if a value's text is freed through jansson's
    /// allocator: a secret's bytes must come back through the installed free.
    @Test func aReleasedValueFreesItsTextThroughJansson() {
        json_set_alloc_funcs(malloc, countingFree)
        defer { flowhost_json_wipe_on_free() }
        freedAddresses.withLock { $0.removeAll() }
        var textAddress: UInt = 0
        do {
            let secret: JSON = ["password": "Tr0ub4dor&Zebra-and-then-some"]
            secret["password"]!.withUnsafeRaw { raw in textAddress = UInt(bitPattern: json_string_value(raw)) }
        }
        #expect(textAddress != 0)
        #expect(freedAddresses.withLock { $0.contains(textAddress) })
    }

    @Test func aWipedBlockHoldsOnlyZeros() throws {
        let size = 100
        let block = try #require(malloc(size))
        defer { free(block) }
        memset(block, 0x78, size)
        flowhost_wipe_allocation(block)
        let bytes = UnsafeRawBufferPointer(start: block, count: size)
        #expect(bytes.allSatisfy { $0 == 0 })
    }
}
