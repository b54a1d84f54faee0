import CFlowHostABI
import CJansson
import FlowHostVocabulary
import FlowJSON
import JSONRPC
import Logging

/// The host's side of one plugin: what the host table's C functions receive
/// as `flowhost_host_context *`. It holds the whole engine, since the host
/// table is the flows' door into the façade: through it they reach the
/// engine's routing (events, service calls, timers, the feed) and its parts
/// (the router, the dialogues, the session, the client's facts).
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
        guard context.engine.isOnLoopThread else {
            // The logger is safe on any thread (its sink has a lock); nothing else of the engine is touched here.
            context.engine.logger.error("flow \(context.plugin.name) called the host from a thread other than the loop; refused")
            return nil
        }
        return context
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
            guard let event, let owned, owned.kind == .object else {
                context.engine.logger.error("flow \(context.plugin.name) emitted an event without a name or with params that are not an object; dropped")
                return FLOWHOST_ERR_INVALID_ARGUMENT
            }
            return context.engine.emit(event: String(cString: event), params: owned, from: context.plugin)
        }

        table.call_service = { host, name, params, result, error in
            guard let context = PluginContext.resolve(host) else { return FLOWHOST_ERR_WRONG_THREAD }
            guard let name else { return FLOWHOST_ERR_INVALID_ARGUMENT }
            let argument = params.map { JSON(borrowing: $0) } ?? JSON.object()
            switch context.engine.router.callService(String(cString: name), params: argument, from: context.plugin) {
            case .success(let value):
                result?.pointee = value?.newReference() ?? json_null()
                return FLOWHOST_OK
            case .failure(let failure):
                failure.fill(error)
                return failure.abiCode
            }
        }

        table.send_request = { host, method, params, timeout, onResponse, userData in
            let owned = params.map { JSON(taking: $0) } ?? JSON.object()
            guard let context = PluginContext.resolve(host) else { return FLOWHOST_ERR_WRONG_THREAD }
            guard let method, let onResponse else { return FLOWHOST_ERR_INVALID_ARGUMENT }
            let sent = context.engine.router.sendClientRequest(
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
            return Int32(context.engine.router.cancelClientRequests(of: context.plugin))
        }

        table.abi_minor = FLOWHOST_ABI_MINOR

        table.call_service_async = { host, name, params, onResult, userData, callID in
            guard let context = PluginContext.resolve(host) else { return FLOWHOST_ERR_WRONG_THREAD }
            guard let name, let onResult else { return FLOWHOST_ERR_INVALID_ARGUMENT }
            let argument = params.map { JSON(borrowing: $0) } ?? JSON.object()
            let outcome = context.engine.router.callServiceAsync(String(cString: name), params: argument, from: context.plugin) { outcome in
                switch outcome {
                case .success(let value):
                    (value ?? JSON.null).withUnsafeRaw { onResult(userData, $0, nil) }
                case .failure(let failure):
                    var abiError = flowhost_error_v1()
                    failure.fill(&abiError)
                    onResult(userData, nil, &abiError)
                    if let data = abiError.data { json_decref(data) }
                }
            }
            switch outcome {
            case .success(let id):
                callID?.pointee = id
                return FLOWHOST_OK
            case .failure(let failure):
                context.engine.logger.debug("flow \(context.plugin.name): call_service_async refused: \(failure.message)")
                return failure.abiCode
            }
        }

        table.complete_call = { host, callID, result, error in
            let owned = result.map { JSON(taking: $0) }
            guard let context = PluginContext.resolve(host) else { return FLOWHOST_ERR_WRONG_THREAD }
            let outcome: Result<JSON?, FlowHostError>
            if let error {
                var copy = error.pointee
                if let data = copy.data { json_incref(data) }  // borrowed: FlowHostError takes its own reference
                outcome = .failure(FlowHostError(abi: &copy))
            } else {
                outcome = .success(owned ?? .null)
            }
            return context.engine.router.completeCall(callID, outcome, by: context.plugin) ? FLOWHOST_OK : FLOWHOST_ERR_UNKNOWN_ID
        }

        table.cancel_calls = { host in
            guard let context = PluginContext.resolve(host) else { return FLOWHOST_ERR_WRONG_THREAD }
            return Int32(context.engine.router.cancelCalls(madeBy: context.plugin))
        }

        table.set_timer = { host, delay, onFire, userData, timerID in
            guard let context = PluginContext.resolve(host) else { return FLOWHOST_ERR_WRONG_THREAD }
            guard let onFire else { return FLOWHOST_ERR_INVALID_ARGUMENT }
            // ABI 1.1's timer has no way to hear it was cancelled: it only fires.
            let id = context.engine.setTimer(delayMilliseconds: delay, owner: context.plugin) { fired in if fired { onFire(userData) } }
            timerID?.pointee = id
            return FLOWHOST_OK
        }

        table.set_timer_once = { host, delay, onDone, userData, timerID in
            guard let context = PluginContext.resolve(host) else { return FLOWHOST_ERR_WRONG_THREAD }
            guard let onDone else { return FLOWHOST_ERR_INVALID_ARGUMENT }
            let id = context.engine.setTimer(delayMilliseconds: delay, owner: context.plugin) { fired in
                onDone(userData, fired ? FLOWHOST_OK : FLOWHOST_ERR_CANCELLED)
            }
            timerID?.pointee = id
            return FLOWHOST_OK
        }

        table.cancel_timer = { host, timerID in
            guard let context = PluginContext.resolve(host) else { return FLOWHOST_ERR_WRONG_THREAD }
            return context.engine.cancelTimer(timerID, owner: context.plugin) ? FLOWHOST_OK : FLOWHOST_ERR_UNKNOWN_ID
        }

        table.session = { host in
            guard let context = PluginContext.resolve(host) else { return json_null() }
            return (context.engine.session.current?.json() ?? JSON.null).newReference()
        }

        table.end_session = { host, reason in
            guard let context = PluginContext.resolve(host) else { return FLOWHOST_ERR_WRONG_THREAD }
            let why = reason.map { String(cString: $0) } ?? "ended"
            context.engine.logger.info("flow \(context.plugin.name) ends the session (\(LogLine.clip(why)))")
            return context.engine.session.end(reason: SessionReason.name(why)) ? FLOWHOST_OK : FLOWHOST_ERR_FAILED
        }

        table.subscribe = { host, topic in
            guard let context = PluginContext.resolve(host) else { return FLOWHOST_ERR_WRONG_THREAD }
            guard let topic, case let name = String(cString: topic), FeedTopic.isValid(name) else { return FLOWHOST_ERR_INVALID_ARGUMENT }
            if let refusal = context.engine.feedRefusal(name, plugin: context.plugin, publishing: false) { return refusal }
            return context.engine.subscriptions.subscribe(name, plugin: context.plugin, polling: context.engine.scheduler) ? FLOWHOST_OK : FLOWHOST_ERR_FAILED
        }

        table.unsubscribe = { host, topic in
            guard let context = PluginContext.resolve(host) else { return FLOWHOST_ERR_WRONG_THREAD }
            guard let topic else { return FLOWHOST_ERR_INVALID_ARGUMENT }
            context.engine.subscriptions.unsubscribe(String(cString: topic), plugin: context.plugin)
            return FLOWHOST_OK
        }

        table.abandon_dialogues = { host in
            guard let context = PluginContext.resolve(host) else { return FLOWHOST_ERR_WRONG_THREAD }
            // Ending what other flows run is the session's owner's right, for the dialogues under it.
            guard context.engine.session.mayAbandonDialogues(context.plugin) else {
                context.engine.logger.warning("flow \(context.plugin.name): abandon_dialogues refused: only the flow that opened the session may")
                return FLOWHOST_ERR_NOT_PERMITTED
            }
            guard context.engine.dialogues.open() != nil else { return 0 }
            context.engine.logger.info("flow \(context.plugin.name) abandons the dialogue in progress")
            context.engine.dialogues.abandonAll()
            return 1
        }

        table.publish = { host, topic, payload in
            guard let context = PluginContext.resolve(host) else { return FLOWHOST_ERR_WRONG_THREAD }
            guard let topic, case let name = String(cString: topic), FeedTopic.isValid(name), let payload else {
                return FLOWHOST_ERR_INVALID_ARGUMENT
            }
            if let refusal = context.engine.feedRefusal(name, plugin: context.plugin, publishing: true) { return refusal }
            do throws(FlowHostError) {
                try context.engine.subscriptions.publish(name, payload: JSON(borrowing: payload))
                return FLOWHOST_OK
            } catch {
                context.engine.logger.warning("flow \(context.plugin.name): publish refused: \(error.message)")
                return FLOWHOST_ERR_FAILED
            }
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

        table.monotonic_ms = { host in
            PluginContext.resolve(host)?.engine.clock.monotonicMilliseconds ?? SystemClock.monotonicMilliseconds()
        }

        table.wall_clock_ms = { host in
            PluginContext.resolve(host)?.engine.clock.wallMilliseconds ?? SystemClock.wallMilliseconds()
        }

        table.localize = { host, messageContext, msgid, values in
            guard let context = PluginContext.resolve(host), let messageContext, let msgid else { return nil }
            let key = MessageKey(context: String(cString: messageContext), id: String(cString: msgid))
            let text = context.engine.language.text(key, values.map { MessageValues.strings(JSON(borrowing: $0)) } ?? [:])
            return JSON.string(text).newReference()
        }

        table.session_info = { host in
            guard let context = PluginContext.resolve(host) else { return json_null() }
            return (context.engine.client.hello?.infoForFlows ?? .object()).newReference()
        }
        return table
    }
}

extension FlowHostError {
    /// A service name nobody offers.
    static func unknownService(_ name: String) -> FlowHostError {
        FlowHostError(.methodNotFound, message: "Unknown service: \(name)", data: ["service": .string(name)])
    }

    var isUnknownService: Bool { code == .methodNotFound && data?["service"] != nil && !isUndeclaredService }

    /// The host-table return code for a failed service call.
    var abiCode: Int32 {
        if isUndeclaredService { return FLOWHOST_ERR_UNDECLARED_SERVICE }
        if isUnknownService { return FLOWHOST_ERR_UNKNOWN_SERVICE }
        return FLOWHOST_ERR_FAILED
    }
}

/// A session end reason from a flow: a short word, kept as it is, or "other".
enum SessionReason {
    static func name(_ text: String) -> String { FeedTopic.isValid(text) && text.utf8.count <= 32 ? text : "other" }
}
