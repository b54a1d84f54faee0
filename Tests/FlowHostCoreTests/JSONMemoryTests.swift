import CFlowHostSystem
import FlowJSON
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct JSONMemoryTests {
    @Test func theHostMakesJanssonWipeWhatItFrees() {
        flowhost_json_wipe_on_free()
        #expect(flowhost_json_wipes_on_free() == 1)
        // Values made and released afterwards go through it (nothing breaks).
        let secret: JSON = ["password": "Tr0ub4dor&Zebra-and-then-some"]
        #expect(secret["password"]?.stringValue == "Tr0ub4dor&Zebra-and-then-some")
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
