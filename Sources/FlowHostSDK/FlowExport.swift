import CFlowHostABI
import FlowHostPOSIX
import CJansson
import FlowHostVocabulary
import FlowJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Builds the C descriptor for a Swift `Flow` type. A plugin exports it with
///
///     @_cdecl("flowhost_plugin_v1")
///     public func flowhostPluginV1() -> UnsafeRawPointer { FlowExport.descriptor(for: MyFlow.self) }
public enum FlowExport {
    /// The descriptor for `type`, built once and kept for the process's life.
    public static func descriptor<F: Flow>(for type: F.Type) -> UnsafeRawPointer {
        registry.withLock { entries in
            let key = ObjectIdentifier(type)
            if let existing = entries.first(where: { $0.type == key }) { return UnsafeRawPointer(existing.descriptor) }
            let descriptor = makeDescriptor(F.declaration)
            entries.append(Entry(type: key, descriptor: descriptor, make: { host, config throws(FlowHostError) in
                try F(host: host, config: config)
            }))
            return UnsafeRawPointer(descriptor)
        }
    }

    struct Entry {
        let type: ObjectIdentifier
        let descriptor: UnsafeMutablePointer<flowhost_plugin_descriptor_v1>
        let make: (FlowHost, JSON) throws(FlowHostError) -> any Flow
    }

    /// Written when a library's entry symbol runs, read from create,
    /// possibly on different threads: behind a lock.
    static let registry = Locked<[Entry]>([])

    private static func makeDescriptor(_ declaration: FlowDeclaration) -> UnsafeMutablePointer<flowhost_plugin_descriptor_v1> {
        var d = flowhost_plugin_descriptor_v1()
        d.struct_size = UInt32(MemoryLayout<flowhost_plugin_descriptor_v1>.size)
        d.abi_version = FLOWHOST_ABI_VERSION
        d.abi_minor = FLOWHOST_ABI_MINOR
        // These strings live as long as the process, like the library itself.
        d.name = UnsafePointer(strdup(declaration.name))
        d.version = UnsafePointer(strdup(declaration.version))
        d.manifest = UnsafePointer(strdup(declaration.manifestText()))
        d.create = { descriptor, table, context, config, abiError in
            guard let descriptor, let table, let context else { return nil }
            guard let entry = FlowExport.registry.withLock({ $0.first { UnsafePointer($0.descriptor) == descriptor } }) else {
                flowhost_error_set(abiError, Int32(ErrorCode.internalError.rawValue), 0, "unknown descriptor")
                return nil
            }
            let host = FlowHost(table: table, context: context)
            let section = config.map { JSON(borrowing: $0) } ?? .object()
            do throws(FlowHostError) {
                let flow = try entry.make(host, section)
                return Unmanaged.passRetained(FlowBox(flow, host: host)).toOpaque()
            } catch let failure {
                failure.fill(abiError)
                return nil
            }
        }
        d.start = { instance in FlowBox.from(instance).flow.start() }
        d.handle = { instance, method, params, result, abiError in
            let flow = FlowBox.from(instance).flow
            let arguments = params.map { JSON(borrowing: $0) } ?? .object()
            do throws(FlowHostError) {
                let value = try flow.handle(method: String(cString: method!), params: arguments)
                result?.pointee = value?.newReference()
                return FLOWHOST_OK
            } catch let failure {
                failure.fill(abiError)
                return FLOWHOST_ERR_FAILED
            }
        }
        d.call_service = { instance, name, params, result, abiError in
            let flow = FlowBox.from(instance).flow
            let arguments = params.map { JSON(borrowing: $0) } ?? .object()
            do throws(FlowHostError) {
                let value = try flow.callService(String(cString: name!), params: arguments)
                result?.pointee = value?.newReference()
                return FLOWHOST_OK
            } catch let failure {
                failure.fill(abiError)
                return FLOWHOST_ERR_FAILED
            }
        }
        d.serve = { instance, name, params, call in
            let box = FlowBox.from(instance)
            let arguments = params.map { JSON(borrowing: $0) } ?? .object()
            let service = String(cString: name!)
            if let serving = box.flow as? any ServingFlow {
                serving.serve(service, params: arguments, call: call)
            } else {
                do throws(FlowHostError) {
                    box.host.complete(call, .success(try box.flow.callService(service, params: arguments) ?? .null))
                } catch let failure {
                    box.host.complete(call, .failure(failure))
                }
            }
        }
        d.cancel_call = { instance, call in FlowBox.from(instance).flow.cancelled(call) }
        d.notify = { instance, topic, payload in
            FlowBox.from(instance).flow.notified(topic: String(cString: topic!), payload: payload.map { JSON(borrowing: $0) } ?? .object())
        }
        d.destroy = { instance in
            guard let instance else { return }
            FlowBox.from(instance).flow.finish()
            Unmanaged<FlowBox>.fromOpaque(instance).release()
        }
        let pointer = UnsafeMutablePointer<flowhost_plugin_descriptor_v1>.allocate(capacity: 1)
        pointer.initialize(to: d)
        return pointer
    }
}

/// Keeps a flow alive between create and destroy; its address is the
/// instance pointer the host passes back.
final class FlowBox {
    let flow: any Flow
    let host: FlowHost
    init(_ flow: any Flow, host: FlowHost) {
        self.flow = flow
        self.host = host
    }

    static func from(_ instance: UnsafeMutableRawPointer?) -> FlowBox {
        Unmanaged<FlowBox>.fromOpaque(instance!).takeUnretainedValue()
    }
}
