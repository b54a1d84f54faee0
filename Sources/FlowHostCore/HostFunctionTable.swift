import CFlowHostABI
import CJansson
import FlowJSON
import JSONRPC
import Logging

/// The host's side of one plugin: what the host table's C functions receive
/// as `flowhost_host_context *`.
final class PluginContext {
    unowned let engine: HostEngine
    unowned let plugin: LoadedPlugin

    init(engine: HostEngine, plugin: LoadedPlugin) {
        self.engine = engine
        self.plugin = plugin
    }

    var opaque: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    /// The context behind a pointer the host handed out, if the caller is on
    /// the loop thread (the only thread allowed to call the host).
    static func resolve(_ pointer: OpaquePointer?) -> PluginContext? {
        guard let pointer else { return nil }
        let context = Unmanaged<PluginContext>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
        return context.engine.isOnLoopThread ? context : nil
    }
}

/// Builds the `flowhost_host_v1` table. Its functions capture nothing: every
/// call finds its engine and plugin through the context pointer.
enum HostFunctionTable {
    static func make() -> flowhost_host_v1 {
        var table = flowhost_host_v1()
        table.struct_size = UInt32(MemoryLayout<flowhost_host_v1>.size)
        table.abi_version = FLOWHOST_ABI_VERSION

        table.emit_event = { host, event, params in
            // `params` is stolen: own it before anything can fail.
            let owned = params.map { JSON(taking: $0) }
            guard let context = PluginContext.resolve(host) else { return FLOWHOST_ERR_WRONG_THREAD }
            guard let event, let owned, owned.kind == .object else { return FLOWHOST_ERR_INVALID_ARGUMENT }
            return context.engine.emit(event: String(cString: event), params: owned, from: context.plugin)
        }

        table.call_service = { host, name, params, result, error in
            guard let context = PluginContext.resolve(host) else { return FLOWHOST_ERR_WRONG_THREAD }
            guard let name else { return FLOWHOST_ERR_INVALID_ARGUMENT }
            let argument = params.map { JSON(borrowing: $0) } ?? JSON.object()
            switch context.engine.callService(String(cString: name), params: argument) {
            case .success(let value):
                result?.pointee = value?.newReference() ?? json_null()
                return FLOWHOST_OK
            case .failure(let failure):
                failure.fill(error)
                return failure.isUnknownService ? FLOWHOST_ERR_UNKNOWN_SERVICE : FLOWHOST_ERR_FAILED
            }
        }

        table.send_request = { host, method, params, timeout, onResponse, userData in
            let owned = params.map { JSON(taking: $0) } ?? JSON.object()
            guard let context = PluginContext.resolve(host) else { return FLOWHOST_ERR_WRONG_THREAD }
            guard let method, let onResponse else { return FLOWHOST_ERR_INVALID_ARGUMENT }
            let sent = context.engine.sendClientRequest(
                method: String(cString: method), params: owned, timeoutMilliseconds: timeout, from: context.plugin
            ) { outcome in
                switch outcome {
                case .success(let value):
                    value.withUnsafeRaw { onResponse(userData, $0, nil) }
                case .failure(let failure):
                    var abiError = flowhost_error_v1()
                    failure.fill(&abiError)
                    onResponse(userData, nil, &abiError)
                    if let data = abiError.data { json_decref(data) }
                }
            }
            return sent ? FLOWHOST_OK : FLOWHOST_ERR_LIMIT
        }

        table.cancel_requests = { host in
            guard let context = PluginContext.resolve(host) else { return FLOWHOST_ERR_WRONG_THREAD }
            return Int32(context.engine.cancelClientRequests(of: context.plugin))
        }

        table.log = { host, level, message in
            guard let context = PluginContext.resolve(host), let message else { return }
            let logLevel: Logger.Level =
                switch level {
                case FLOWHOST_LOG_DEBUG: .debug
                case FLOWHOST_LOG_INFO: .info
                case FLOWHOST_LOG_WARNING: .warning
                default: .error
                }
            context.engine.logger.log(
                level: logLevel, "\(String(cString: message))", metadata: ["flow": "\(context.plugin.name)"])
        }

        table.monotonic_ms = { _ in MonotonicClock.nowMilliseconds() }

        table.session_info = { host in
            guard let context = PluginContext.resolve(host) else { return json_null() }
            return context.engine.sessionInfo().newReference()
        }
        return table
    }
}

extension RPCError {
    /// A service name nobody offers.
    static func unknownService(_ name: String) -> RPCError {
        RPCError(code: -32601, message: "Unknown service: \(name)", data: ["service": .string(name)])
    }

    var isUnknownService: Bool { code == -32601 && data?["service"] != nil }
}
