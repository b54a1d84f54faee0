import CFlowHostABI
import CFlowHostIsolation
import FlowHostPOSIX

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a plugin was not loaded: one line for stderr and `flowhost plugins`.
public struct PluginRefusal: Error, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "refused plugin \(path): \(reason)" }
}

/// Where a flow library was found. A built-in flow's names are its own: a
/// library found anywhere else cannot take them (`NameTable.conflict`).
public enum PluginOrigin: String, Sendable {
    /// Beside the executable (`libFlowPlugin*`): the flows the host ships with.
    case builtIn = "built-in"
    /// A `--plugins` folder.
    case pluginsOption = "--plugins"
    /// A folder of FLOWHOST_PLUGIN_PATH.
    case pluginPath = "FLOWHOST_PLUGIN_PATH"
    /// Beside the executable (`libFlowExample*`), loaded with `--examples`.
    case example = "example"
}

/// A folder to load flows from.
public struct PluginDirectory: Sendable {
    public var path: String
    /// The default folder (next to the executable) holds other build products
    /// too, so there only `libFlowPlugin*` files are taken as flows.
    public var requiredPrefix: String?
    public var origin: PluginOrigin

    public init(path: String, requiredPrefix: String? = nil, origin: PluginOrigin = .pluginsOption) {
        self.path = path
        self.requiredPrefix = requiredPrefix
        self.origin = origin
    }
}

/// A library that passed the checks made before it is loaded.
public struct PluginCandidate: Sendable {
    public var path: String
    public var origin: PluginOrigin
    /// Its SHA-256, when pins asked for it to be read.
    public var sha256: String?
    /// The file, open read-only: the checks judged this descriptor, the
    /// hash read it, and the library is loaded from it, in the host or in
    /// a flow's own process, so another file taking the name meanwhile
    /// changes nothing. -1 for a candidate made from a path alone (it is
    /// opened when loaded). Whoever made the candidates closes it.
    public var descriptor: Int32

    public init(path: String, origin: PluginOrigin, sha256: String? = nil, descriptor: Int32 = -1) {
        self.path = path
        self.origin = origin
        self.sha256 = sha256
        self.descriptor = descriptor
    }

    /// Closes its descriptor, once every load from it is done.
    public func closeDescriptor() {
        if descriptor >= 0 { close(descriptor) }
    }
}

/// A library file opened to be judged, hashed and loaded. Non-blocking, so
/// a FIFO put in a checked file's place cannot hold the host up (a regular
/// file reads the same); `O_NOFOLLOW` when `path` is already the real path.
private func openLibraryFile(_ path: String, followingLinks: Bool) -> Int32 {
    open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followingLinks ? 0 : O_NOFOLLOW))
}

/// Finds flow libraries, opens them and checks their descriptors.
///
/// A library is opened with RTLD_NOW | RTLD_LOCAL and never closed, even when
/// refused: a Swift image cannot be unloaded safely.
public enum PluginLoader {
    #if os(macOS)
    static let librarySuffix = ".dylib"
    #else
    static let librarySuffix = ".so"
    #endif

    /// The libraries to load from `directories`, in order, each real path
    /// once, and the refusals found before any of them is opened: folders
    /// named by a relative path, unsafe folders, unsafe files (see
    /// `PluginTrust`), and files the operator's `pins` do not allow. A
    /// folder that does not exist is passed over.
    public static func candidates(in directories: [PluginDirectory], pins: PluginPins = PluginPins()) -> (
        found: [PluginCandidate], refusals: [PluginRefusal]
    ) {
        var seen = Set<String>()
        var found: [PluginCandidate] = []
        var refusals: [PluginRefusal] = []
        var trust = PluginTrust()
        // The executable's folder is named twice with --examples (flows, then examples).
        var listed: [String: [String]] = [:]
        for directory in directories {
            guard directory.path.hasPrefix("/") else {
                refusals.append(PluginRefusal(path: directory.path, reason: "a plugin folder must be an absolute path"))
                continue
            }
            var info = stat()
            guard stat(directory.path, &info) == 0 else { continue }
            if let problem = trust.problem(withFolder: directory.path) {
                refusals.append(PluginRefusal(path: directory.path, reason: problem))
                continue
            }
            let names = listed[directory.path] ?? libraries(in: directory.path).sorted()
            listed[directory.path] = names
            for name in names {
                if let prefix = directory.requiredPrefix, !name.hasPrefix(prefix) { continue }
                let path = directory.path.hasSuffix("/") ? directory.path + name : directory.path + "/" + name
                let real: String
                switch trust.check(library: path, inFolder: directory.path) {
                case .failure(let refusal):
                    refusals.append(refusal)
                    continue
                case .success(let resolved):
                    real = resolved
                }
                guard seen.insert(real).inserted else { continue }
                // Opened once, here: what is judged again and hashed is
                // this descriptor, and it is what is loaded
                // (/proc/self/fd/N), so a rename between the hash and the
                // load cannot put other code under the pin.
                let descriptor = openLibraryFile(real, followingLinks: false)
                guard descriptor >= 0 else {
                    refusals.append(PluginRefusal(path: path, reason: "cannot open \(real): \(String(cString: strerror(errno)))"))
                    continue
                }
                if let problem = trust.problem(withOpenLibrary: descriptor, path: real) {
                    close(descriptor)
                    refusals.append(PluginRefusal(path: path, reason: problem))
                    continue
                }
                var candidate = PluginCandidate(path: path, origin: directory.origin, descriptor: descriptor)
                if !pins.isEmpty {
                    switch PluginDigest.sha256(ofDescriptor: descriptor, path: real) {
                    case .failure(let refusal):
                        close(descriptor)
                        refusals.append(PluginRefusal(path: path, reason: refusal.reason))
                        continue
                    case .success(let digest):
                        if let problem = pins.problem(file: name, sha256: digest) {
                            close(descriptor)
                            refusals.append(PluginRefusal(path: path, reason: problem))
                            continue
                        }
                        candidate.sha256 = digest
                    }
                }
                found.append(candidate)
            }
        }
        return (found, refusals)
    }

    /// The names in a folder that end in `librarySuffix` (none if it cannot
    /// be read). Other entries are passed over by their bytes, before any
    /// String is made or anything sorted: the executable's folder may hold
    /// much else (a build folder, a hundred entries, cost a start 230,000
    /// instructions when every name was made, sorted, then filtered).
    private static func libraries(in folder: String) -> [String] {
        guard let stream = opendir(folder) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        let suffix = Array(librarySuffix.utf8)
        while let entry = readdir(stream) {
            withUnsafeBytes(of: entry.pointee.d_name) { raw in
                let name = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
                let length = strlen(name)
                guard length >= suffix.count,
                    memcmp(raw.baseAddress! + length - suffix.count, suffix, suffix.count) == 0
                else { return }
                names.append(String(cString: name))
            }
        }
        return names
    }

    public static func open(_ candidate: PluginCandidate) -> Result<LoadedPlugin, PluginRefusal> {
        withDescriptor(of: candidate) { open(path: candidate.path, descriptor: $0) }.map { plugin in
            plugin.origin = candidate.origin
            plugin.sha256 = candidate.sha256
            return plugin
        }
    }

    /// `body` given the candidate's descriptor, or one opened for it alone
    /// (a candidate made from a path, as a test host makes one).
    static func withDescriptor<T>(
        of candidate: PluginCandidate, _ body: (Int32) -> Result<T, PluginRefusal>
    ) -> Result<T, PluginRefusal> {
        if candidate.descriptor >= 0 { return body(candidate.descriptor) }
        let descriptor = openLibraryFile(candidate.path, followingLinks: true)
        guard descriptor >= 0 else {
            return .failure(PluginRefusal(path: candidate.path, reason: "cannot open it: \(String(cString: strerror(errno)))"))
        }
        defer { close(descriptor) }
        return body(descriptor)
    }

    /// The name the dynamic linker opens a descriptor by. The image's own
    /// name is then this, not the library's: `$ORIGIN` in its run path
    /// means /proc/self/fd (no flow needs it: a release build has none, and
    /// the libraries a flow needs are the host's, loaded already).
    static func loadableName(_ descriptor: Int32) -> String {
        #if os(Linux)
        "/proc/self/fd/\(descriptor)"
        #else
        "/dev/fd/\(descriptor)"
        #endif
    }

    /// Opens the library in a child process (`executable plugin-host`) and
    /// checks the descriptor it reports, as `open` checks one in process.
    public static func openIsolated(_ candidate: PluginCandidate, settings: IsolationSettings, executable: String) -> Result<
        LoadedPlugin, PluginRefusal
    > {
        IsolatedFlowOutput.relayed
        var limits = settings.limits
        var isolation: OpaquePointer?
        var why = [CChar](repeating: 0, count: 512)
        let opened = withDescriptor(of: candidate) { library -> Result<UnsafePointer<flowhost_plugin_descriptor_v1>, PluginRefusal> in
            // The child is given this descriptor, at this start and each restart.
            guard let descriptor = flowhost_isolated_open(executable, candidate.path, library, &limits, &isolation, &why, why.count) else {
                return .failure(PluginRefusal(path: candidate.path, reason: "in its own process: " + String(utf8: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })))
            }
            return .success(descriptor)
        }
        guard case .success(let descriptor) = opened, let isolation else {
            if case .failure(let refusal) = opened { return .failure(refusal) }
            return .failure(PluginRefusal(path: candidate.path, reason: "in its own process: no proxy"))
        }
        switch validate(descriptor: descriptor, path: candidate.path) {
        case .success(let plugin):
            plugin.isolation = isolation
            plugin.origin = candidate.origin
            plugin.sha256 = candidate.sha256
            return .success(plugin)
        case .failure(let refusal):
            flowhost_isolated_close(isolation)
            return .failure(refusal)
        }
    }

    public static func open(path: String) -> Result<LoadedPlugin, PluginRefusal> {
        withDescriptor(of: PluginCandidate(path: path, origin: .pluginsOption)) { open(path: path, descriptor: $0) }
    }

    /// Loads the library open at `descriptor`; `path` names it.
    static func open(path: String, descriptor: Int32) -> Result<LoadedPlugin, PluginRefusal> {
        // The dynamic linker knows the image by the name it was opened by
        // for as long as it is loaded (for ever: never dlclosed), and takes
        // a later dlopen of that name for it without opening anything: the
        // name gets a descriptor of its own, never closed, so no other
        // library is ever given that number.
        let kept = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard kept >= 0 else {
            return .failure(PluginRefusal(path: path, reason: "cannot keep a descriptor of it: \(String(cString: strerror(errno)))"))
        }
        guard let handle = dlopen(loadableName(kept), RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "dlopen failed"
            close(kept)
            return .failure(PluginRefusal(path: path, reason: reason))
        }
        guard let symbol = dlsym(handle, FLOWHOST_ENTRY_SYMBOL_V1) else {
            return .failure(PluginRefusal(path: path, reason: "no entry symbol \(FLOWHOST_ENTRY_SYMBOL_V1)"))
        }
        if let problem = janssonProblem(handle) { return .failure(PluginRefusal(path: path, reason: problem)) }
        let entry = unsafeBitCast(symbol, to: flowhost_plugin_entry_v1.self)
        guard let descriptor = entry() else {
            return .failure(PluginRefusal(path: path, reason: "entry symbol returned no descriptor"))
        }
        return validate(descriptor: descriptor, path: path)
    }

    /// json_t values cross the boundary both ways and either side frees
    /// them, so a plugin must use the process's one libjansson: where the
    /// plugin's scope resolves `json_object`, it must be the host's. A copy
    /// linked in with exported symbols is caught here; one linked in with
    /// hidden symbols cannot be seen (the header says why not to).
    static func janssonProblem(_ handle: UnsafeMutableRawPointer) -> String? {
        let hosts = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "json_object")  // RTLD_DEFAULT
        guard let plugins = dlsym(handle, "json_object"), let hosts else { return nil }
        if plugins != hosts { return "uses its own copy of jansson (linked statically?); it must link the shared libjansson" }
        return nil
    }

    /// The size of a 1.0 descriptor, the least a 1.x host accepts.
    static let minimumDescriptorSize = Int(MemoryLayout<flowhost_plugin_descriptor_v1>.offset(of: \.abi_minor)!)

    /// Checks what the descriptor says about itself. Only its first two
    /// fields are read before its size is known; then only the bytes its
    /// header declared are copied (fields of a newer minor that this host
    /// does not know are ignored, fields an older plugin lacks are zero).
    /// Name, method and service conflicts between plugins are checked when
    /// the engine installs it.
    public static func validate(descriptor: UnsafePointer<flowhost_plugin_descriptor_v1>, path: String) -> Result<LoadedPlugin, PluginRefusal> {
        func refuse(_ reason: String) -> Result<LoadedPlugin, PluginRefusal> {
            .failure(PluginRefusal(path: path, reason: reason))
        }
        let raw = UnsafeRawPointer(descriptor)
        let size = Int(raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
        let major = raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        if major != FLOWHOST_ABI_VERSION {
            return refuse("ABI version \(major), this host speaks \(FLOWHOST_ABI_VERSION) (1.\(FLOWHOST_ABI_MINOR) and every earlier 1.x)")
        }
        if size < minimumDescriptorSize {
            return refuse("descriptor struct_size \(size) is smaller than ABI 1.0's \(minimumDescriptorSize)")
        }
        var d = flowhost_plugin_descriptor_v1()
        withUnsafeMutableBytes(of: &d) { copy in
            copy.copyMemory(from: UnsafeRawBufferPointer(start: raw, count: min(size, copy.count)))
        }
        let reservedClear = withUnsafeBytes(of: d.reserved) { $0.allSatisfy { $0 == 0 } }
        if !reservedClear { return refuse("descriptor's reserved fields are not zero") }
        let minor = size >= MemoryLayout<flowhost_plugin_descriptor_v1>.offset(of: \.abi_minor)! + 4 ? d.abi_minor : 0
        guard let rawName = d.name, case let name = String(cString: rawName), !name.isEmpty else {
            return refuse("descriptor has no flow name")
        }
        let version = d.version.map { String(cString: $0) } ?? ""
        guard d.create != nil, d.handle != nil else { return refuse("descriptor lacks create or handle") }
        guard let rawManifest = d.manifest else { return refuse("descriptor has no manifest") }
        let manifest: PluginManifest
        do {
            // Held without its descriptions: an idle host kept about 30 KB of
            // summaries and schemas that only `rpc.discover` reads.
            manifest = try PluginManifest.parse(cString: rawManifest, .enforced)
        } catch {
            return refuse(error.description)
        }
        if !manifest.services.isEmpty, d.call_service == nil, d.serve == nil {
            return refuse("manifest declares services but neither call_service nor serve is set")
        }
        return .success(
            LoadedPlugin(descriptor: descriptor, copy: d, minor: Int(minor), name: name, version: version, path: path, manifest: manifest))
    }
}
