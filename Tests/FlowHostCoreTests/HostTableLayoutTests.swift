import CFlowHostABI
@testable import FlowHostCore
import Testing

/// The host table grows only at the end: a plugin built against an older
/// header reads a prefix of today's table, so every field it knows must
/// stay where its header put it.
@Suite struct HostTableLayoutTests {
    #if arch(x86_64) || arch(arm64)
    /// Where the 1.4 header put its fields on a 64-bit machine: a field
    /// inserted before one of them, or one that changed type, moves it.
    @Test func theFieldsOfEarlierMinorsKeepTheirOffsets() {
        typealias T = flowhost_host_v1
        let frozen: [(String, Int?, Int)] = [
            ("emit_event", MemoryLayout<T>.offset(of: \.emit_event), 8),
            ("monotonic_ms", MemoryLayout<T>.offset(of: \.monotonic_ms), 40),
            ("session_info", MemoryLayout<T>.offset(of: \.session_info), 48),
            ("cancel_requests (1.1)", MemoryLayout<T>.offset(of: \.cancel_requests), 56),
            ("abi_minor (1.1)", MemoryLayout<T>.offset(of: \.abi_minor), 64),
            ("call_service_async (1.1)", MemoryLayout<T>.offset(of: \.call_service_async), 72),
            ("unsubscribe (1.1)", MemoryLayout<T>.offset(of: \.unsubscribe), 144),
            ("abandon_dialogues (1.2)", MemoryLayout<T>.offset(of: \.abandon_dialogues), 152),
            ("set_timer_once (1.4)", MemoryLayout<T>.offset(of: \.set_timer_once), 160),
        ]
        for (field, offset, expected) in frozen {
            #expect(offset == expected, "\(field) moved")
        }
    }
    #endif

    /// The 1.5 field follows 1.4's, and the host's table covers it.
    @Test func theWallClockIsAppendedAndOffered() throws {
        let table = HostFunctionTable.make()
        let offset = try #require(MemoryLayout<flowhost_host_v1>.offset(of: \.wall_clock_ms))
        #expect(offset == MemoryLayout<flowhost_host_v1>.offset(of: \.set_timer_once)! + MemoryLayout<UnsafeRawPointer>.size)
        #expect(Int(table.struct_size) == MemoryLayout<flowhost_host_v1>.size)
        #expect(table.wall_clock_ms != nil)
    }

    /// The 1.6 field is the last one, and the host's table covers it.
    @Test func localizeIsAppendedAndOffered() throws {
        let table = HostFunctionTable.make()
        let offset = try #require(MemoryLayout<flowhost_host_v1>.offset(of: \.localize))
        #expect(offset == MemoryLayout<flowhost_host_v1>.offset(of: \.wall_clock_ms)! + MemoryLayout<UnsafeRawPointer>.size)
        #expect(offset + MemoryLayout<UnsafeRawPointer>.size == MemoryLayout<flowhost_host_v1>.size)
        #expect(Int(table.struct_size) == MemoryLayout<flowhost_host_v1>.size)
        #expect(table.abi_minor == 6 && table.localize != nil)
    }
}
