import CFlowHostABI
import CJansson
import FlowHostVocabulary
import FlowJSON
import JSONRPC

/// One flow module whose descriptor passed every check, and its instance.
///
/// Owned by the `HostEngine` and used on its loop thread only. The library
/// it came from is never unloaded (Swift images cannot be), so `descriptor`
/// stays valid for the life of the process; its functions are read from
/// `d`, a copy of only the bytes the plugin's header declared (an older
/// plugin's missing fields are zero there).
public final class LoadedPlugin {
    public let name: String
    public let version: String
    public let path: String
    /// What the host enforces of the flow's manifest (`Reading.enforced`).
    public let manifest: PluginManifest
    /// The manifest's text as the descriptor gives it (`flowhost plugins
    /// --json`), read when asked: the descriptor's string lives as long as
    /// the process (flowhost_plugin.h), and a copy held here would be 16 KB
    /// of every idle host's heap for a listing only the CLI makes.
    public var manifestText: String { String(cString: d.manifest) }
    /// The whole manifest, descriptions and schemas included, read again
    /// from the descriptor's string (`rpc.discover`): it passed the same
    /// reading at load, and the string does not change.
    public var describedManifest: PluginManifest { (try? PluginManifest.parse(cString: d.manifest)) ?? manifest }
    /// The minor ABI version the plugin was built with (0 for 1.0).
    public let abiMinor: Int
    /// Where it was found; set by the loader before it is installed.
    public internal(set) var origin: PluginOrigin = .pluginsOption
    /// Its file's SHA-256, when pins made the loader read it.
    public internal(set) var sha256: String?
    let descriptor: UnsafePointer<flowhost_plugin_descriptor_v1>
    let d: flowhost_plugin_descriptor_v1
    /// The flow's child process when it runs isolated (`descriptor` is then
    /// the proxy's); nil when it runs in this process.
    var isolation: OpaquePointer?
    private var instance: UnsafeMutableRawPointer?
    /// The context the host table's functions receive for this plugin.
    var context: PluginContext!
    /// Its events' params schemas by name, each once it was emitted (`eventSchema`).
    private var preparedEventSchemas: [String: EnforcedSchema] = [:]

    init(
        descriptor: UnsafePointer<flowhost_plugin_descriptor_v1>, copy: flowhost_plugin_descriptor_v1, minor: Int, name: String,
        version: String, path: String, manifest: PluginManifest
    ) {
        self.descriptor = descriptor
        self.d = copy
        self.abiMinor = minor
        self.name = name
        self.version = version
        self.path = path
        self.manifest = manifest
    }

    public var abiVersion: Int { Int(d.abi_version) }
    /// Built against a 1.1 header or later: its manifest may say `uses`,
    /// and the host holds it to that. A 1.0 plugin could not declare it
    /// (its manifest parser refused the key), so its calls are not checked.
    var declaresUses: Bool { Int(descriptor.pointee.struct_size) > PluginLoader.minimumDescriptorSize }
    var servesAsynchronously: Bool { d.serve != nil }

    func declaresEvent(_ event: String) -> EventSpec? { manifest.events.first { $0.name == event } }

    /// The params schema `event` declares, if any, prepared on its first
    /// emission from its text in the descriptor's manifest (which lives as
    /// long as the process): the loader keeps no schema, so a start reads
    /// none, and an event's first emission reads its schema alone.
    func eventSchema(_ spec: EventSpec) -> EnforcedSchema? {
        guard let text = spec.paramsText else { return nil }
        if let prepared = preparedEventSchemas[spec.name] { return prepared }
        let bytes = UnsafeRawBufferPointer(start: UnsafeRawPointer(d.manifest!) + text.lowerBound, count: text.count)
        // The loader read this text already; should it not be JSON now, nothing is sent.
        let prepared = (try? JSON.parse(bytes)).map(EnforcedSchema.init) ?? EnforcedSchema(unenforceable: "schema: not JSON")
        preparedEventSchemas[spec.name] = prepared
        return prepared
    }
    func declaresMethod(_ method: String) -> Bool { manifest.methods.contains { $0.name == method } }

    func create(host: UnsafePointer<flowhost_host_v1>, config: JSON) throws(FlowHostError) {
        guard let create = d.create else {
            throw FlowHostError.internalError.withMessage("descriptor has no create function")
        }
        var error = flowhost_error_v1()
        let contextPointer = OpaquePointer(Unmanaged.passUnretained(context).toOpaque())
        let made = config.withUnsafeRaw { create(descriptor, host, contextPointer, $0, &error) }
        guard let made else { throw FlowHostError(abi: &error) }
        instance = made
    }

    func start() {
        guard let instance, let start = d.start else { return }
        start(instance)
    }

    // Names go over with withCString: the implicit String-to-pointer
    // conversion copies a short name to a new heap array on every call.
    func handle(method: String, params: JSON) -> Result<JSON?, FlowHostError> {
        guard let instance, let handle = d.handle else {
            return .failure(FlowHostError.internalError.withMessage("flow \(name) cannot handle calls"))
        }
        let outcome = invoke { result, error in method.withCString { name in params.withUnsafeRaw { handle(instance, name, $0, result, error) } } }
        // Held to the errors its method declares (spec §9, "Declared errors").
        guard case .failure(let error) = outcome, let spec = manifest.methods.first(where: { $0.name == method }),
            let broken = spec.undeclared(error, by: name)
        else { return outcome }
        context?.engine.logger.error(
            "flow \(name) returned error \(error.code) from \(method), which does not declare it; the client gets \(ErrorCode.internalError)")
        return .failure(broken)
    }

    func callService(_ service: String, params: JSON) -> Result<JSON?, FlowHostError> {
        guard let instance, let call = d.call_service else {
            return .failure(FlowHostError.internalError.withMessage("flow \(name) offers no services"))
        }
        return invoke { result, error in service.withCString { name in params.withUnsafeRaw { call(instance, name, $0, result, error) } } }
    }

    /// Starts serving a call that the plugin finishes with complete_call.
    func serve(_ service: String, params: JSON, callID: UInt64) {
        guard let instance, let serve = d.serve else { return }
        service.withCString { name in params.withUnsafeRaw { serve(instance, name, $0, callID) } }
    }

    func cancelCall(_ callID: UInt64) {
        guard let instance, let cancel = d.cancel_call else { return }
        cancel(instance, callID)
    }

    func notify(_ topic: String, _ payload: JSON) {
        guard let instance, let notify = d.notify else { return }
        topic.withCString { name in payload.withUnsafeRaw { notify(instance, name, $0) } }
    }

    func destroy() {
        guard let instance else { return }
        self.instance = nil
        d.destroy?(instance)
    }

    private func invoke(
        _ call: (UnsafeMutablePointer<UnsafeMutablePointer<json_t>?>, UnsafeMutablePointer<flowhost_error_v1>) -> Int32
    ) -> Result<JSON?, FlowHostError> {
        var result: UnsafeMutablePointer<json_t>? = nil
        var error = flowhost_error_v1()
        let status = call(&result, &error)
        if status == FLOWHOST_OK {
            return .success(result.map { JSON(taking: $0) })
        }
        if let result { json_decref(result) }
        if status != FLOWHOST_ERR_FAILED || error.code == 0 {
            context?.engine.logger.error("flow \(name) failed (status \(status), error code \(error.code)) without saying why; the client gets \(ErrorCode.internalError)")
        }
        return .failure(FlowHostError(abi: &error))
    }
}
