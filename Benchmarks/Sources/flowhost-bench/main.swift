import CBenchSupport
import Foundation

// flowhost-bench: measures flowhost against a C reference in one run and
// prints one table (and writes it as JSON). Every loop is bounded.
//
//   flowhost-bench --flowhost PATH [--json OUT] [--thresholds FILE] [--quick] [--no-postgres] [--only approval-history,history]
//
// --only runs the sections named (the names of the comments below, and of
// `knownSections`) and no others: to study one row without the half hour of
// the rest. What each targeted row must meet is in the thresholds file
// (Benchmarks/thresholds.json by default), not here.

var arguments = CommandLine.arguments.dropFirst()
var flowhostPath: String?
var jsonPath = "bench-results.json"
var quick = false
var withPostgres = true
var onlySections: Set<String>?
var thresholdsPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("thresholds.json").path
while let argument = arguments.popFirst() {
    switch argument {
    case "--no-postgres": withPostgres = false  // a build without the PostgreSQL store, compared with a newer one
    case "--flowhost": flowhostPath = arguments.popFirst()
    case "--json": jsonPath = arguments.popFirst() ?? jsonPath
    case "--thresholds": thresholdsPath = arguments.popFirst() ?? thresholdsPath
    case "--quick": quick = true
    case "--only": onlySections = Set((arguments.popFirst() ?? "").split(separator: ",").map(String.init))
    default: FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8)); exit(2)
    }
}
guard let flowhostPath else {
    FileHandle.standardError.write(Data("usage: flowhost-bench --flowhost PATH [--json OUT] [--thresholds FILE] [--quick] [--no-postgres] [--only SECTIONS]\n".utf8))
    exit(2)
}
let knownSections: Set<String> = [
    "throughput", "echo-instructions", "ping-pong", "cold-start", "cold-start-ratio", "login", "login-tail", "many-hosts", "memory-per-host", "memory", "feed", "approval", "signing", "history", "many-users", "approval-history", "isolation", "appends", "fleet",
]
if let unknown = onlySections?.subtracting(knownSections), !unknown.isEmpty || onlySections?.isEmpty == true {
    FileHandle.standardError.write(Data("--only takes section names from \(knownSections.sorted()), not \(unknown.sorted())\n".utf8))
    exit(2)
}
/// Whether the section `name` runs in this run (every one unless --only).
func section(_ name: String) -> Bool {
    precondition(knownSections.contains(name), "section \(name) is not in knownSections")
    return onlySections?.contains(name) ?? true
}

let folder = NSTemporaryDirectory() + "flowhost-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: folder) }

// The reference is compiled here, from the file beside this package.
let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("reference/echo_server.c").path
let referencePath = folder + "/reference-server"
let compiler = Process()
compiler.executableURL = URL(fileURLWithPath: "/bin/sh")
compiler.arguments = ["-c", "cc -O2 -o '\(referencePath)' '\(source)' $(pkg-config --cflags --libs jansson)"]
try compiler.run()
compiler.waitUntilExit()
guard compiler.terminationStatus == 0 else { fatalError("cannot build the reference server") }

let setup = Setup(flowhost: flowhostPath, reference: referencePath, folder: folder)
var report = Report(thresholdsFile: thresholdsPath)
let scale = quick ? 10 : 1

func bothServers<T>(cpu: Int32 = -1, _ body: (Server) throws -> T) throws -> (flowhost: T, reference: T) {
    let host = try setup.startFlowhost(cpu: cpu)
    let flowhostValue = try body(host)
    host.stop()
    let reference = try setup.startReference(cpu: cpu)
    let referenceValue = try body(reference)
    reference.stop()
    return (flowhostValue, referenceValue)
}

// throughput: Pipelined throughput (best of 3, each server alternately).
if section("throughput") {
    for (name, make, threshold) in [
        ("no-op throughput (req/s)", Requests.ping, "noop-throughput"), ("echo ~200 B throughput (req/s)", Requests.echo, "echo-throughput"),
    ] as [(String, (Int) -> String, String)] {
        var best = (flowhost: 0.0, reference: 0.0)
        for _ in 0..<3 {
            let round = try bothServers { try Measure.throughput($0, count: 200_000 / scale, make: make) }
            best = (max(best.flowhost, round.flowhost), max(best.reference, round.reference))
        }
        report.add(name, flowhost: best.flowhost, reference: best.reference, higherIsBetter: true, threshold: threshold)
    }
}

// echo-instructions: Instructions per echo request, counted (not timed): the same 200-byte
// echo as above, through flowhost's echo example and through the C reference.
if section("echo-instructions") {
    if InstructionCount.available {
        let requests = quick ? 5_000 : 20_000
        let stripped = try InstructionCount.strippedFlowhost(setup.flowhost, into: folder + "/stripped")
        let host = try InstructionCount.perRequest(
            [stripped, "--examples", "--store", folder + "/instructions.sqlite"], preamble: Requests.initialize(device: "count") + "\n",
            requests: requests, folder: folder)
        let reference = try InstructionCount.perRequest([setup.reference], preamble: Requests.ping(0), requests: requests, folder: folder)
        report.add("instructions per echo request (callgrind)", flowhost: host, reference: reference, higherIsBetter: false,
                   threshold: "echo-instructions", note: "valgrind's count over \(requests) requests, the start subtracted")
    } else {
        print("(valgrind or strip is missing: no instruction counts; scripts/setup.sh --bench installs them)")
    }
}

// ping-pong: Ping-pong latency, free and pinned to one core. Wake-up latency on
// these VMs is bimodal (same core or not), so both servers are measured in
// alternating rounds and the samples pooled.
if section("ping-pong") {
    for (label, cpu, threshold) in [("free", Int32(-1), "ping-pong-p50-free"), ("one core", Int32(0), "ping-pong-p50-one-core")] {
        if cpu >= 0 { bench_pin_to_cpu(cpu) }
        var samples = (flowhost: [Double](), reference: [Double]())
        for _ in 0..<5 {
            let round = try bothServers(cpu: cpu) { try Measure.pingPong($0, count: 4_000 / scale) }
            samples.flowhost += round.flowhost
            samples.reference += round.reference
        }
        if cpu >= 0 { bench_unpin() }
        for (p, name) in [(0.5, "p50"), (0.9, "p90"), (0.99, "p99"), (1.0, "max")] {
            report.add(
                "ping-pong \(name), \(label) (µs)", flowhost: Measure.percentile(samples.flowhost, p),
                reference: Measure.percentile(samples.reference, p), higherIsBetter: false,
                threshold: name == "p50" ? threshold : nil)
        }
    }
}

// cold-start: Cold start: spawn to the initialize response, every flow loaded.
if section("cold-start") {
    var coldHost: [Double] = []
    var coldReference: [Double] = []
    for _ in 0..<(quick ? 5 : 30) {
        var started = now()
        let host = try Server([setup.flowhost, "--store", folder + "/cold.sqlite"])
        host.send(Requests.initialize(device: "cold") + "\n")
        _ = try host.readUntil(#""id":0"#)
        coldHost.append(Double(now() - started) / 1e6)
        host.stop()
        started = now()
        let reference = try setup.startReference()
        reference.send(Requests.ping(0))
        _ = try reference.readLine()
        coldReference.append(Double(now() - started) / 1e6)
        reference.stop()
    }
    report.add("cold start to initialize, median (ms)", flowhost: Measure.median(coldHost), reference: Measure.median(coldReference),
               higherIsBetter: false, threshold: "cold-start-absolute")
}

// cold-start-ratio: Cold start with every built flow (the examples too), to the initialize
// reply and the exit, against a Swift hello-world this run builds with the
// same compiler and optimisation: what a Swift process costs to start at all.
/// A Swift program of `source` built by this run with `swiftc -O`: the
/// yardstick for what any Swift process costs.
func swiftProgram(_ name: String, _ source: String, flags: [String] = []) throws -> String {
    let program = folder + "/" + name
    try source.write(toFile: program + ".swift", atomically: true, encoding: .utf8)
    let swiftc = Process()
    swiftc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    swiftc.arguments = ["swiftc", "-O"] + flags + ["-o", program, program + ".swift"]
    try swiftc.run()
    swiftc.waitUntilExit()
    guard swiftc.terminationStatus == 0 else { fatalError("cannot build \(name)") }
    return program
}

if section("cold-start-ratio") {
    let hello = try swiftProgram("hello", #"print("hello, world")"#)
    // The same program without the two modules every Swift file imports
    // unless told not to, as flowhost's own modules are built: the floor a
    // Swift process cannot go under. Shown, not targeted.
    let bareHello = try swiftProgram(
        "hello-bare", #"print("hello, world")"#,
        flags: ["-Xfrontend", "-disable-implicit-concurrency-module-import", "-Xfrontend", "-disable-implicit-string-processing-module-import"])
    var host: [Double] = []
    var helloWorld: [Double] = []
    var bareWorld: [Double] = []
    func spawnHello(_ path: String) throws -> Double {
        let started = now()
        let world = try Server([path])
        _ = try world.readLine()
        world.stop()
        return Double(now() - started) / 1e6
    }
    for _ in 0..<(quick ? 10 : 40) {
        let started = now()
        let server = try Server([setup.flowhost, "--examples", "--store", folder + "/cold-all.sqlite"])
        server.send(Requests.initialize(device: "cold") + "\n" + #"{"jsonrpc":"2.0","id":1,"method":"exit"}"# + "\n")
        _ = try server.readUntil(#""id":0"#)
        server.stop()
        host.append(Double(now() - started) / 1e6)
        helloWorld.append(try spawnHello(hello))
        bareWorld.append(try spawnHello(bareHello))
    }
    report.add("cold start, every built flow, to initialize and exit (ms)", flowhost: Measure.median(host),
               reference: Measure.median(helloWorld), higherIsBetter: false, threshold: "cold-start",
               note: "reference: a Swift hello-world built with swiftc -O in this run")
    report.add("  the same, against a hello-world without _Concurrency and _StringProcessing (ms)", flowhost: Measure.median(host),
               reference: Measure.median(bareWorld), higherIsBetter: false, threshold: nil,
               note: "reference: the hello-world above built with the implicit imports off, as flowhost's modules are")
    let listed = StartupOrder.coverage(list: ".build/release-startup-order.txt", images: URL(fileURLWithPath: setup.flowhost).deletingLastPathComponent().path)
    report.add("  start-up layout: listed functions and variables the built images hold (%)", flowhost: listed, reference: nil, higherIsBetter: true, threshold: nil,
               note: ".build/release-startup-order.txt against flowhost and libFlowPlugin*.so; a low figure means: FLOWHOST_REORDER=1 scripts/release/build.sh")
}

// login: One password login and one activation, at a cheap and at the production Argon2id setting.
// The minimal setting (8 KiB, one pass: microseconds) isolates the host's own
// share; at the production default the hash dominates and varies by more
// than the host's whole share, so there the difference is only indicative.
if section("login") {
    // The last two passes keep the device's key in the platform's custody:
    // the host asks the client for each proof and checks its signature,
    // where with its own key it only confirms it holds the key (spec §14).
    // Ed25519 shows what the platform's round trip and a check cost; P-256
    // (a Secure Enclave's key) is the targeted row.
    let passes: [(String, Int, Int, PlatformKeystore.Algorithm?)] = [
        ("minimal Argon2id m=8 KiB t=1", 8, 1, nil), ("default Argon2id m=19 MiB t=2", 19 * 1024, 2, nil),
        ("minimal Argon2id m=8 KiB t=1", 8, 1, .ed25519), ("minimal Argon2id m=8 KiB t=1", 8, 1, .es256),
    ]
    for (label, memory, iterations, platformKey) in passes {
        let flows = try FlowScenarios(setup: setup, name: "flows-\(memory)-\(platformKey?.rawValue ?? "host")", argon2: (memory, iterations),
                                      keystore: try platformKey.map(PlatformKeystore.init))
        // A round at the minimal setting takes milliseconds: 15 rounds even with
        // --quick, since its median is the host's share and 3 were too few.
        let rounds = quick && memory != 8 ? 3 : 15
        let argon = Measure.argon2Verify(memoryKiB: UInt32(memory), iterations: UInt32(iterations), rounds: rounds)
        var activations: [Double] = []
        var logins: [Double] = []
        var loginCPU: [Double] = []
        let server = try flows.host(device: "bench-\(memory)")
        for index in 0..<rounds {
            let user = "user\(index)"
            let code = try flows.addUser(user)
            activations.append(try flows.activate(server, user, code: code) * 1e6)
            try flows.logOff(server, user)
            let before = server.threadRunNanoseconds()
            logins.append(try flows.login(server, user) * 1e6)
            if let cpu = Server.cpuMicroseconds(from: before, to: server.threadRunNanoseconds()) { loginCPU.append(cpu) }
            try flows.logOff(server, user)
        }
        server.stop()
        let login = Measure.median(logins)
        let activation = Measure.median(activations)
        let minimal = memory == 8
        if let platformKey {
            let name = platformKey == .es256 ? "a P-256" : "an Ed25519"
            report.add("host's CPU per login with \(name) platform key, less the Argon2id (µs)", flowhost: Measure.median(loginCPU) - argon,
                       reference: nil, higherIsBetter: false, threshold: platformKey == .es256 ? "login-cpu-p256" : nil,
                       note: "CPU time of every host thread (schedstat): the platform request and the signature's check, not the client's signing")
            continue
        }
        report.add("password login, \(label) (µs)", flowhost: login, reference: argon, higherIsBetter: false, threshold: nil,
                   note: "reference: one Argon2id verification in-process")
        report.add("  host's own share of a login (µs)", flowhost: login - argon, reference: nil, higherIsBetter: false,
                   threshold: minimal ? "login-own-share" : nil)
        // The wall-clock share above also holds the pipes' two round trips and
        // this client's reading; the host's own CPU does not (issue 25's 250 µs).
        report.add("  host's CPU per login, less the Argon2id (µs)", flowhost: Measure.median(loginCPU) - argon, reference: nil,
                   higherIsBetter: false, threshold: minimal ? "login-cpu" : nil,
                   note: "CPU time of every host thread (schedstat), the Ed25519 work included")
        report.add("activation, \(label) (µs)", flowhost: activation, reference: 2 * argon, higherIsBetter: false, threshold: nil,
                   note: "reference: two Argon2id computations (code, password)")
        report.add("  host's own share of an activation (µs)", flowhost: activation - 2 * argon, reference: nil, higherIsBetter: false, threshold: nil)
    }
}

// login-tail: The tail of a login and logoff: 3,000 cycles (600 with --quick) by
// one user on a fresh store, each timed alone. Every 80 or so cycles the WAL
// reaches 1,000 frames and is checkpointed; the p99 and the longest cycle
// show whether a request waits for that (its two syncs are milliseconds).
if section("login-tail") {
    let flows = try FlowScenarios(setup: setup, name: "tail", argon2: (8, 1))
    let server = try flows.host(device: "tail")
    _ = try flows.activate(server, "ivan", code: try flows.addUser("ivan"))
    try flows.logOff(server, "ivan")
    var cycles: [Double] = []
    for _ in 0..<(quick ? 600 : 3000) {
        let started = now()
        _ = try flows.login(server, "ivan")
        try flows.logOff(server, "ivan")
        cycles.append(Double(now() - started) / 1000)
    }
    server.stop()
    let median = Measure.median(cycles)
    for (name, value) in [("p99", Measure.percentile(cycles, 0.99)), ("max", cycles.max() ?? 0)] {
        report.add("login + logoff \(name) (µs)", flowhost: value, reference: median, higherIsBetter: false, threshold: nil,
                   note: "reference: the p50 of the same \(cycles.count) cycles")
    }
}

/// One result per thread of `onThreads`.
// @unchecked: each thread writes only its own slot, under the lock, and the
// slots are read after the group has waited for every thread.
final class ThreadSlots<T>: @unchecked Sendable {
    let lock = NSLock()
    var values: [T?]
    init(_ count: Int) { values = Array(repeating: nil, count: count) }
}

/// Runs `body` for each index on a thread of its own, all at once, and
/// returns their results in index order when every one has finished.
func onThreads<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
    let slots = ThreadSlots<T>(count)
    let finished = DispatchGroup()
    for index in 0..<count {
        finished.enter()
        Thread {
            let value = body(index)
            slots.lock.withLock { slots.values[index] = value }
            finished.leave()
        }.start()
    }
    finished.wait()
    return slots.values.map { $0! }
}

// many-hosts: Eight hosts on one store, logins for distinct users at once: on the
// SQLite file, and on PostgreSQL (a throw-away local cluster) beside it.
func eightHostLogins(_ flows: FlowScenarios) throws -> (rate: Double, errors: Int) {
    let hosts = 8
    let servers = try (0..<hosts).map { index in
        let server = try flows.host(device: "device-\(index)")
        _ = try flows.activate(server, "c\(index)", code: try flows.addUser("c\(index)"))
        try flows.logOff(server, "c\(index)")
        return server
    }
    let duration = quick ? 1.0 : 5.0
    let started = now()
    // One thread per host: concurrentPerform runs as many at once as there
    // are cores, so on a small machine most hosts would start after the time
    // was up and the row would measure two hosts, not eight.
    let counts = onThreads(hosts) { index in
        var done = 0
        var errors = 0
        while Double(now() - started) / 1e9 < duration {
            do {
                _ = try flows.login(servers[index], "c\(index)")
                try flows.logOff(servers[index], "c\(index)")
                done += 1
            } catch {
                errors += 1
                if errors > 5 { break }
            }
        }
        return (done, errors)
    }
    let elapsed = Double(now() - started) / 1e9
    let total = counts.reduce(0) { $0 + $1.0 }
    let errors = counts.reduce(0) { $0 + $1.1 }
    for server in servers { server.stop() }
    return (Double(total) / elapsed, errors)
}

// Hosts on PostgreSQL keep their own files (outbox key, device keys) here.
setenv("FLOWHOST_STATE_DIR", folder + "/pg-state", 1)
let postgres = withPostgres && (section("many-hosts") || section("feed")) ? try PostgresCluster(folder: folder + "/pg") : nil
if postgres == nil && withPostgres && (section("many-hosts") || section("feed")) { FileHandle.standardError.write(Data("PostgreSQL is not installed: its rows are left out\n".utf8)) }

if section("many-hosts") {
    let sqlite = try eightHostLogins(try FlowScenarios(setup: setup, name: "concurrent", argon2: (1024, 1)))
    report.add("8 hosts, one store: logins/s", flowhost: sqlite.rate, reference: nil, higherIsBetter: true, threshold: nil)
    report.add("8 hosts, one store: errors", flowhost: Double(sqlite.errors), reference: nil, higherIsBetter: false, threshold: "eight-hosts-errors")
    if let postgres {
        let pg = try eightHostLogins(try FlowScenarios(setup: setup, name: "concurrent-pg", argon2: (1024, 1), store: try postgres.newDatabase()))
        report.add("8 hosts, PostgreSQL: logins/s", flowhost: pg.rate, reference: sqlite.rate, higherIsBetter: true, threshold: nil,
                   note: "reference: the same on the SQLite file")
        report.add("8 hosts, PostgreSQL: errors", flowhost: Double(pg.errors), reference: nil, higherIsBetter: false, threshold: "eight-hosts-postgres-errors")
        // The same through PgBouncer in transaction mode, each host's feed
        // LISTEN on the server itself (--feed-store), as a deployment runs.
        if let throughBouncer = try postgres.startBouncer() {
            let name = try postgres.newDatabaseName()
            var scenarios = try FlowScenarios(setup: setup, name: "concurrent-bouncer", argon2: (1024, 1), store: throughBouncer(name))
            scenarios.hostArguments = ["--feed-store", "postgresql:///\(name)?host=\(postgres.folder)&user=flowhost&passfile=\(postgres.folder)/pgpass"]
            let pooled = try eightHostLogins(scenarios)
            report.add("8 hosts, PostgreSQL through PgBouncer: logins/s", flowhost: pooled.rate, reference: pg.rate, higherIsBetter: true,
                       threshold: "eight-hosts-pgbouncer", note: "reference: the same 8 hosts connected to the server directly")
            report.add("8 hosts, PostgreSQL through PgBouncer: errors", flowhost: Double(pooled.errors), reference: nil, higherIsBetter: false,
                       threshold: "eight-hosts-postgres-errors")
        }
    }
}

// memory-per-host: Memory a deployment pays per host: eight idle hosts on one store, each
// with every flow loaded; the proportional set size (shared pages split
// among the processes that map them) of each, averaged.
if section("memory-per-host") {
    // What any idle Swift process costs: a hello-world that waits for a line.
    // Its line is flushed at once: a pipe is not a terminal, so print buffers.
    let idleHello = try swiftProgram("hello-idle", "import Glibc\nprint(\"hello, world\")\nfflush(stdout)\n_ = readLine()\n")
    var hosts: [Server] = []
    var references: [Server] = []
    for _ in 0..<8 {
        hosts.append(try setup.startFlowhost(store: folder + "/pss.sqlite"))
        let reference = try setup.startReference()
        reference.send(Requests.ping(0))
        _ = try reference.readLine()
        references.append(reference)
    }
    let host = hosts.map { $0.proportionalSetKiB() }.reduce(0, +) / 8
    let reference = references.map { $0.proportionalSetKiB() }.reduce(0, +) / 8
    for server in hosts + references { server.stop() }
    // Alone, after the hosts: running beside them, the hello-worlds would
    // share the runtime's pages with them and lower the hosts' figure.
    var hellos: [Server] = []
    for _ in 0..<8 {
        let hello = try Server([idleHello])
        _ = try hello.readLine()
        hellos.append(hello)
    }
    let swiftFloor = hellos.map { $0.proportionalSetKiB() }.reduce(0, +) / 8
    for server in hellos { server.stop() }
    report.add("PSS per idle host, 8 hosts (MiB)", flowhost: Double(host) / 1024, reference: Double(reference) / 1024, higherIsBetter: false,
               threshold: "pss-per-idle-host", note: "reference: 8 C reference servers")
    report.add("  PSS per idle Swift hello-world, 8 of them (MiB)", flowhost: Double(swiftFloor) / 1024, reference: nil, higherIsBetter: false,
               threshold: nil, note: "the Swift runtime's own share of the row above, built with swiftc -O in this run")
}

// memory: Memory: idle peak, and growth over a million no-op requests.
if section("memory") {
    let requests = quick ? 100_000 : 1_000_000
    let host = try setup.startFlowhost()
    let reference = try setup.startReference()
    reference.send(Requests.ping(0))
    _ = try reference.readLine()
    let idle = (host.memory().peak, reference.memory().peak)
    for server in [host, reference] { _ = try Measure.throughput(server, count: 100_000 / scale, make: Requests.ping) }
    let warm = (host.memory().rss, reference.memory().rss)
    for server in [host, reference] {
        var left = requests
        while left > 0 {
            let batch = min(left, 200_000)
            _ = try Measure.throughput(server, count: batch, make: Requests.ping)
            left -= batch
        }
    }
    let after = (host.memory().rss, reference.memory().rss)
    host.stop()
    reference.stop()
    report.add("idle peak RSS (MiB)", flowhost: Double(idle.0) / 1024, reference: Double(idle.1) / 1024, higherIsBetter: false,
               threshold: "idle-peak-rss")
    report.add("RSS growth over \(requests / 1000)k requests (MiB)", flowhost: Double(after.0 - warm.0) / 1024,
               reference: Double(after.1 - warm.1) / 1024, higherIsBetter: false, threshold: "rss-growth")
}

// feed: The change feed: an event published by one host reaches another host on
// the same store (publish request sent → event read from the other host),
// and what a host with a subscription costs at idle. On SQLite the wake-up is
// a watched file; on PostgreSQL, LISTEN/NOTIFY.
func feedLatencies(store: String) throws -> (latencies: [Double], listener: Server) {
    let listener = try setup.startFlowhost(store: store)
    let publisher = try setup.startFlowhost(store: store)
    listener.send(Requests.subscribe(1, topic: "echo.bench"))
    _ = try listener.readUntil(#""id":1"#)
    var latencies: [Double] = []
    for n in 0..<(quick ? 40 : 300) {
        let started = now()
        publisher.send(Requests.publish(n + 10, topic: "echo.bench", n: n))
        _ = try listener.readUntil("onEchoFeed")
        latencies.append(Double(now() - started) / 1e6)
        _ = try publisher.readUntil(#""id":\#(n + 10)"#)
        usleep(2_000)
    }
    publisher.stop()
    return (latencies, listener)
}

if section("feed") {
    let (latencies, listener) = try feedLatencies(store: folder + "/feed.sqlite")
    report.add("cross-host feed delivery p50 (ms)", flowhost: Measure.percentile(latencies, 0.5), reference: nil, higherIsBetter: false,
               threshold: "feed-p50")
    report.add("cross-host feed delivery p99 (ms)", flowhost: Measure.percentile(latencies, 0.99), reference: nil, higherIsBetter: false,
               threshold: "feed-p99")
    let window = quick ? 3.0 : 6.0
    let before = listener.contextSwitches()
    usleep(UInt32(window * 1e6))
    let wakes = Double(listener.contextSwitches() - before) / window
    listener.stop()
    report.add("idle host with a subscription: wake-ups/s", flowhost: wakes, reference: nil, higherIsBetter: false,
               threshold: "idle-subscription-wakeups", note: "context switches of all its threads over \(Int(window)) s of idleness")
    if let postgres {
        let (pgLatencies, pgListener) = try feedLatencies(store: try postgres.newDatabase())
        pgListener.stop()
        report.add("cross-host feed delivery via NOTIFY, PostgreSQL p50 (ms)", flowhost: Measure.percentile(pgLatencies, 0.5),
                   reference: Measure.percentile(latencies, 0.5), higherIsBetter: false, threshold: "feed-postgres-p50",
                   note: "reference: the SQLite file's wake-up")
        report.add("cross-host feed delivery via NOTIFY, PostgreSQL p99 (ms)", flowhost: Measure.percentile(pgLatencies, 0.99),
                   reference: Measure.percentile(latencies, 0.99), higherIsBetter: false, threshold: "feed-postgres-p99")
    }
}

// approval: A new device approved from a registered one (device-activation): from
// the approver's last step (its step-up password for Accept) to the next
// event on the waiting device, two hosts on one store; and the CPU the
// waiting device uses while nobody answers.
if section("approval") {
    let flows = try FlowScenarios(setup: setup, name: "approval", argon2: (8, 1))
    let approver = try flows.host(device: "approver")
    _ = try flows.activate(approver, "dana", code: try flows.addUser("dana"))
    var latencies: [Double] = []
    var waitingCPU: [Double] = []
    for round in 0..<(quick ? 4 : 20) {
        let newcomer = try flows.host(device: "newcomer-\(round)")
        try flows.step(newcomer, #"{"jsonrpc":"2.0","id":1,"method":"setUser","params":["dana"]}"#, until: "addNewDeviceOptions")
        newcomer.send(#"{"jsonrpc":"2.0","id":2,"method":"performVerifyAuth","params":[true]}"# + "\n")
        _ = try newcomer.readUntil(#""id":2"#)
        let pushed = try flows.read(approver, until: "onNotificationReceived")
        guard let range = pushed.range(of: #""notification_uuid":""#) else { throw BenchError("no uuid") }
        let uuid = String(pushed[range.upperBound...].prefix(36))
        if round < 3 {
            // Idle waiting: what the new device costs while nobody answers.
            let before = newcomer.cpuMilliseconds()
            usleep(1_000_000)
            waitingCPU.append(newcomer.cpuMilliseconds() - before)
        }
        try flows.step(approver, #"{"jsonrpc":"2.0","id":3,"method":"updateNotification","params":["\#(uuid)","accept"]}"#, until: "getPassword")
        let started = now()
        approver.send(#"{"jsonrpc":"2.0","id":4,"method":"setPassword","params":["\#(FlowScenarios.password)",3]}"# + "\n")
        _ = try flows.read(newcomer, until: "getPassword")
        latencies.append(Double(now() - started) / 1e6)
        _ = try flows.read(approver, until: "onUpdateNotification")
        try flows.step(newcomer, #"{"jsonrpc":"2.0","id":5,"method":"setPassword","params":["\#(FlowScenarios.password)",0]}"#, until: "onUserLoggedIn")
        newcomer.stop()
        _ = try flows.read(approver, until: "onNotificationReceived")  // the informational notice
    }
    approver.stop()
    report.add("approval: Accept on A to the next event on B, p50 (ms)", flowhost: Measure.percentile(latencies, 0.5), reference: nil,
               higherIsBetter: false, threshold: "approval-p50")
    report.add("approval: Accept on A to the next event on B, p99 (ms)", flowhost: Measure.percentile(latencies, 0.99), reference: nil,
               higherIsBetter: false, threshold: "approval-p99")
    report.add("approval: CPU of the waiting device over 1 s (ms)", flowhost: Measure.median(waitingCPU), reference: nil,
               higherIsBetter: false, threshold: "approval-waiting-cpu", note: "utime + stime from /proc while it waits for the answer")
}

// signing: A level-0 data signing (no authentication) end to end through the
// host: authenticateUserAndSignData to onAuthenticateUserAndSignData, with
// the receipt stored; beside one Ed25519 signature in-process.
if section("signing") {
    let flows = try FlowScenarios(setup: setup, name: "signing", argon2: (8, 1))
    let signer = try flows.host(device: "signer")
    _ = try flows.activate(signer, "erin", code: try flows.addUser("erin"))
    var samples: [Double] = []
    var signingCPU: [Double] = []
    let payload = String(repeating: "x", count: 200)
    for round in 0..<(quick ? 100 : 1000) {
        let before = signer.threadRunNanoseconds()
        let started = now()
        try flows.step(
            signer, #"{"jsonrpc":"2.0","id":\#(100 + round),"method":"authenticateUserAndSignData","params":["\#(payload)",0,0,"Invoice \#(round)"]}"#,
            until: "onAuthenticateUserAndSignData")
        samples.append(Double(now() - started) / 1000)
        if let cpu = Server.cpuMicroseconds(from: before, to: signer.threadRunNanoseconds()) { signingCPU.append(cpu) }
    }
    signer.stop()
    let signing = Measure.percentile(samples, 0.5)
    let signature = Measure.ed25519Sign(messageBytes: 420, rounds: quick ? 200 : 2000)
    report.add("level-0 data signing, p50 (µs)", flowhost: signing, reference: signature, higherIsBetter: false, threshold: nil,
               note: "reference: one Ed25519 signature in-process (libsodium)")
    report.add("  host's own share of a signing (µs)", flowhost: signing - signature, reference: nil, higherIsBetter: false,
               threshold: "signing-own-share", note: "the receipt is stored and audited before the event")
    report.add("  host's CPU per signing, less one signature (µs)", flowhost: Measure.percentile(signingCPU, 0.5) - signature,
               reference: nil, higherIsBetter: false, threshold: "signing-cpu",
               note: "CPU time of every host thread (schedstat)")
}

// 10–12. Cost with history behind it. Each row compares the same work on
// two stores, one fresh (the reference: its first 1,000, or first 40) and
// one with history built first, measured in turns (blocks of 100, or one
// approval each), so both halves of a ratio see the same machine: on a
// shared machine, two measurements seconds apart differ by more than the
// 10% the targets allow.

/// µs per round of `fresh` and of `aged`, run in alternating blocks: each
/// figure is the median of its blocks' means. A block of 100 holds the
/// periodic costs (a WAL checkpoint every few dozen commits); the median
/// keeps one block that the machine stalled (seen in one row or another in
/// each full run, a different row each time) from deciding a ratio that a
/// cost growing with history would raise in every block.
func inTurns(rounds: Int, block: Int, fresh: () throws -> Void, aged: () throws -> Void) throws -> (fresh: Double, aged: Double) {
    var blocks = (fresh: [Double](), aged: [Double]())
    for _ in 0..<(rounds / block) {
        var started = now()
        for _ in 0..<block { try fresh() }
        blocks.fresh.append(Double(now() - started) / 1000 / Double(block))
        started = now()
        for _ in 0..<block { try aged() }
        blocks.aged.append(Double(now() - started) / 1000 / Double(block))
    }
    return (Measure.median(blocks.fresh), Measure.median(blocks.aged))
}

// history: The same login and logoff by one user on one device, and the same
// level-0 signing, after many more on the same store (10,000 with --quick,
// else 100,000). A ratio near 1 means no statement of theirs reads what
// the earlier ones left.
if section("history") {
    let earlier = quick ? 10_000 : 100_000
    let payload = String(repeating: "x", count: 200)
    func setUp(_ name: String) throws -> (FlowScenarios, Server) {
        let flows = try FlowScenarios(setup: setup, name: name, argon2: (8, 1))
        let server = try flows.host(device: name)
        _ = try flows.activate(server, "frank", code: try flows.addUser("frank"))
        return (flows, server)
    }
    let (freshFlows, fresh) = try setUp("history-fresh")
    let (agedFlows, aged) = try setUp("history-aged")
    func signing(_ flows: FlowScenarios, _ server: Server) throws {
        try flows.step(server, #"{"jsonrpc":"2.0","id":9,"method":"authenticateUserAndSignData","params":["\#(payload)",0,0,"Invoice"]}"#, until: "onAuthenticateUserAndSignData")
    }
    func cycle(_ flows: FlowScenarios, _ server: Server) throws {
        _ = try flows.login(server, "frank")
        try flows.logOff(server, "frank")
    }
    for _ in 0..<earlier { try signing(agedFlows, aged) }
    let signings = try inTurns(rounds: 1000, block: 100, fresh: { try signing(freshFlows, fresh) }, aged: { try signing(agedFlows, aged) })
    try freshFlows.logOff(fresh, "frank")
    try agedFlows.logOff(aged, "frank")
    for _ in 0..<earlier { try cycle(agedFlows, aged) }
    let logins = try inTurns(rounds: 1000, block: 100, fresh: { try cycle(freshFlows, fresh) }, aged: { try cycle(agedFlows, aged) })
    fresh.stop()
    aged.stop()
    report.add("login + logoff with history behind it (µs)", flowhost: logins.aged, reference: logins.fresh, higherIsBetter: false,
               threshold: "login-history", note: "1,000 after \(earlier) earlier on the same store and device; reference: the first 1,000 on a fresh store, in turns")
    report.add("level-0 signing with history behind it (µs)", flowhost: signings.aged, reference: signings.fresh, higherIsBetter: false,
               threshold: "signing-history", note: "1,000 after \(earlier) earlier by the same user; reference: the first 1,000 on a fresh store, in turns")
}

// many-users: The same login, across many users: 1,000 cycles of one user on a
// device of its own, on a fresh store and on one where other users (ten to
// a device, 1,000 with --quick, else 10,000) have been activated and have
// logged in and out ten times each between them.
if section("many-users") {
    let users = quick ? 1_000 : 10_000
    let perDevice = 10
    let freshFlows = try FlowScenarios(setup: setup, name: "many-users-fresh", argon2: (8, 1))
    let flows = try FlowScenarios(setup: setup, name: "many-users", argon2: (8, 1))
    let devices = users / perDevice
    let codes = try flows.addUsers((0..<users).map { "user-\($0)" })
    let failures = UnsafeMutableBufferPointer<Int>.allocate(capacity: devices)
    failures.initialize(repeating: 0)
    DispatchQueue.concurrentPerform(iterations: devices) { device in
        do {
            let host = try flows.host(device: "many-\(device)")
            for index in (device * perDevice)..<((device + 1) * perDevice) {
                let user = "user-\(index)"
                _ = try flows.activate(host, user, code: codes[user]!)
                try flows.logOff(host, user)
                for _ in 1..<10 {
                    _ = try flows.login(host, user)
                    try flows.logOff(host, user)
                }
            }
            host.stop()
        } catch {
            failures[device] = 1
        }
    }
    let failed = failures.reduce(0, +)
    failures.deallocate()
    guard failed == 0 else { throw BenchError("\(failed) devices failed to build the many-users history") }
    func measuredHost(_ flows: FlowScenarios) throws -> Server {
        let server = try flows.host(device: "measured")
        _ = try flows.activate(server, "grace", code: try flows.addUser("grace"))
        try flows.logOff(server, "grace")
        return server
    }
    let fresh = try measuredHost(freshFlows)
    let crowded = try measuredHost(flows)
    let logins = try inTurns(
        rounds: 1000, block: 100,
        fresh: {
            _ = try freshFlows.login(fresh, "grace")
            try freshFlows.logOff(fresh, "grace")
        },
        aged: {
            _ = try flows.login(crowded, "grace")
            try flows.logOff(crowded, "grace")
        })
    fresh.stop()
    crowded.stop()
    report.add("login + logoff across many users (µs)", flowhost: logins.aged, reference: logins.fresh, higherIsBetter: false,
               threshold: "many-users",
               note: "1,000 by one user after \(users) others made \(users * 10) logins on \(devices) devices; reference: the same on a fresh store, in turns")
}

// approval-history: An approval with history behind it: one user's new devices approved
// from a registered one, on a fresh store and on one where another user
// has approved many (300 with --quick, else 900: the hourly limit per user
// is at most 1,000), in turns, 100 each (a p50 of 40 read 1.16 once and
// 1.09 in the next run of the same code). Each new device is revoked after
// its login, so no user's devices pile up.
if section("approval-history") {
    let earlier = quick ? 300 : 900
    func approver(_ flows: FlowScenarios, _ user: String) throws -> Server {
        let server = try flows.host(device: "\(user)-approver")
        _ = try flows.activate(server, user, code: try flows.addUser(user))
        return server
    }
    let freshFlows = try FlowScenarios(setup: setup, name: "approvals-fresh", argon2: (8, 1))
    let flows = try FlowScenarios(setup: setup, name: "approvals-aged", argon2: (8, 1))
    let erin = try approver(flows, "erin")
    for round in 0..<earlier { _ = try flows.approveNewDevice(erin, "erin", device: "erin-new-\(round)") }
    erin.stop()
    let freshDana = try approver(freshFlows, "dana")
    let agedDana = try approver(flows, "dana")
    var first: [Double] = []
    var later: [Double] = []
    let rounds = 100
    for round in 0..<rounds {
        first.append(try freshFlows.approveNewDevice(freshDana, "dana", device: "dana-new-\(round)"))
        later.append(try flows.approveNewDevice(agedDana, "dana", device: "dana-new-\(round)"))
    }
    freshDana.stop()
    agedDana.stop()
    report.add("approval with history behind it, p50 (ms)", flowhost: Measure.percentile(later, 0.5), reference: Measure.percentile(first, 0.5),
               higherIsBetter: false, threshold: "approval-history",
               note: "Accept on A to the next event on B, \(rounds) after \(earlier) other approvals; reference: the same on a fresh store, in turns")
}

// isolation: A flow in a process of its own (`--isolate`, issue 26): what a call
// costs over the same flow in process, for an echo and for a login, each
// measured in turns with the in-process host; and the cold start.
if section("isolation") {
    let inProcess = try setup.startFlowhost()
    let isolated = try setup.startFlowhost(extra: ["--isolate", "echo"])
    var echoes = (isolated: [Double](), inProcess: [Double]())
    for _ in 0..<(quick ? 5 : 20) {
        echoes.inProcess += try Measure.pingPong(inProcess, count: 400, make: Requests.echo)
        echoes.isolated += try Measure.pingPong(isolated, count: 400, make: Requests.echo)
    }
    inProcess.stop()
    isolated.stop()
    report.add("echo round trip, the flow isolated, p50 (µs)", flowhost: Measure.median(echoes.isolated),
               reference: Measure.median(echoes.inProcess), higherIsBetter: false, threshold: nil,
               note: "reference: the same echo with the flow in process, in turns")

    let flows = try FlowScenarios(setup: setup, name: "isolation", argon2: (8, 1))
    let codes = try flows.addUsers(["iso-in", "iso-out"])
    let hosts = (inProcess: try flows.host(device: "iso-in"), isolated: try flows.host(device: "iso-out", extra: ["--isolate", "mfa"]))
    _ = try flows.activate(hosts.inProcess, "iso-in", code: codes["iso-in"]!)
    try flows.logOff(hosts.inProcess, "iso-in")
    _ = try flows.activate(hosts.isolated, "iso-out", code: codes["iso-out"]!)
    try flows.logOff(hosts.isolated, "iso-out")
    var logins = (isolated: [Double](), inProcess: [Double]())
    for _ in 0..<(quick ? 100 : 500) {
        logins.inProcess.append(try flows.login(hosts.inProcess, "iso-in") * 1e6)
        try flows.logOff(hosts.inProcess, "iso-in")
        logins.isolated.append(try flows.login(hosts.isolated, "iso-out") * 1e6)
        try flows.logOff(hosts.isolated, "iso-out")
    }
    hosts.inProcess.stop()
    hosts.isolated.stop()
    report.add("password login, mfa isolated, minimal Argon2id, p50 (µs)", flowhost: Measure.median(logins.isolated),
               reference: Measure.median(logins.inProcess), higherIsBetter: false, threshold: nil,
               note: "reference: the same login with mfa in process, in turns")

    var cold = (isolated: [Double](), inProcess: [Double]())
    for _ in 0..<(quick ? 10 : 40) {
        for isolate in [false, true] {
            let started = now()
            let server = try Server(
                [setup.flowhost, "--examples", "--store", folder + "/cold-isolated.sqlite"] + (isolate ? ["--isolate", "echo"] : []))
            server.send(Requests.initialize(device: "cold") + "\n" + #"{"jsonrpc":"2.0","id":1,"method":"exit"}"# + "\n")
            _ = try server.readUntil(#""id":0"#)
            server.stop()
            let elapsed = Double(now() - started) / 1e6
            if isolate { cold.isolated.append(elapsed) } else { cold.inProcess.append(elapsed) }
        }
    }
    report.add("cold start, echo isolated, to initialize and exit (ms)", flowhost: Measure.median(cold.isolated),
               reference: Measure.median(cold.inProcess), higherIsBetter: false, threshold: nil,
               note: "reference: the same host with every flow in process")
}

postgres?.stop()
/// Runs one of the scripts/ probes on this run's build with `--json`, and
/// returns the rows it wrote.
func probeRows(_ script: String, _ arguments: [String], name: String) throws -> [[String: Any]] {
    let results = folder + "/\(name).json"
    let probe = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/" + script).path
    let binaries = URL(fileURLWithPath: setup.flowhost).deletingLastPathComponent().path
    // Through sh, for its errors: bench_run sends a child's output to /dev/null.
    let errors = folder + "/\(name).err"
    let words = ["/bin/sh", "-c", "exec python3 \"$@\" 2>\"\(errors)\"", "sh", probe] + arguments + ["--json", results]
    var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    let status = "FLOWHOST_BIN_DIR=\(binaries)".withCString { bench_run(&argv, strdup($0)) }
    guard status == 0, let data = FileManager.default.contents(atPath: results),
          let parsed = try JSONSerialization.jsonObject(with: data) as? [String: Any],
          let rows = parsed["rows"] as? [[String: Any]] else {
        let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        throw BenchError("scripts/\(script) failed (status \(status)): \(said.split(separator: "\n").suffix(12).joined(separator: "\n"))")
    }
    return rows
}

// appends: the change feed's appends with 8 publishers at once on
// PostgreSQL (scripts/feed-append-probe.py, pgbench on a throw-away cluster
// with fsync on). The appends hold the feed's lock shared; the reference is
// the same database with the lock taken alone by every append, as it was
// (issue 51: the global append lock gone).
let pgbenchInstalled = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
    .contains { FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/pgbench") }
if section("appends") && withPostgres && !pgbenchInstalled {
    FileHandle.standardError.write(Data("PostgreSQL is not installed: the appends row is left out\n".utf8))
}
if section("appends") && withPostgres && pgbenchInstalled {
    let rows = try probeRows("feed-append-probe.py", ["--clients", "8", "--seconds", quick ? "3" : "6", "--rounds", quick ? "1" : "3"], name: "appends")
    guard let measured = rows.first?.compactMapValues({ ($0 as? NSNumber)?.doubleValue }) else { throw BenchError("the append probe wrote no row") }
    report.add("feed appends/s, 8 publishers at once (PostgreSQL)", flowhost: measured["appends_per_second"] ?? .nan,
               reference: measured["reference_appends_per_second"], higherIsBetter: true, threshold: "feed-appends",
               note: "reference: the same with one lock per append, taken alone, as before")
}

// fleet (last: its thousand processes and their server leave the machine busy
// for a while after they exit, which the rows above would feel): A thousand hosts on one machine against one PostgreSQL with its
// default max_connections (100), their queries through a PgBouncer in
// transaction mode and their feed through the machine's one listener
// (issue 51). scripts/feed-relay-probe.py runs it: each host subscribed to
// a topic through the echo example flow, one publisher, and the same
// delivery measured with Benchmarks/reference/fanout_host.c (N processes
// woken by one datagram each, no database) as the physical limit.
let pgBouncer = FileManager.default.isExecutableFile(atPath: "/usr/sbin/pgbouncer")
if section("fleet") && withPostgres && !pgBouncer {
    FileHandle.standardError.write(Data("PgBouncer is not installed: the fleet rows are left out\n".utf8))
}
if section("fleet") && withPostgres && pgBouncer {
    let rows = try probeRows("feed-relay-probe.py", ["--hosts", "10,400,1000", "--bouncer",
                 "--max-connections", "100", "--reference", "--events", quick ? "20" : "60"], name: "fleet")
    func row(_ hosts: Int) throws -> [String: Double] {
        guard let found = rows.first(where: { ($0["hosts"] as? Int) == hosts }) else { throw BenchError("the probe has no row for \(hosts) hosts") }
        return found.compactMapValues { ($0 as? NSNumber)?.doubleValue }
    }
    let few = try row(10), many = try row(1000)
    report.add("1,000 hosts, PgBouncer, max_connections 100: hosts refused or failed", flowhost: many["failed"] ?? .nan, reference: nil,
               higherIsBetter: false, threshold: "fleet-failed", note: "each host initialised and subscribed; none may fail")
    report.add("  server backends for them (PgBouncer's pool and the one listener)", flowhost: many["backends"] ?? .nan, reference: nil,
               higherIsBetter: false, threshold: nil)
    report.add("  idle server transactions/s, 1,000 hosts", flowhost: many["idle_per_second"] ?? .nan, reference: few["idle_per_second"],
               higherIsBetter: false, threshold: "fleet-idle-load", note: "reference: the same with 10 hosts; it must not grow with them")
    report.add("  server transactions per event for its delivery, 1,000 hosts", flowhost: many["delivery_transactions"] ?? .nan,
               reference: nil, higherIsBetter: false, threshold: "fleet-delivery-transactions",
               note: "those begun while the events were published and delivered, less each publish's own: at most one per machine's listener (1 here)")
    report.add("feed delivery to 10 hosts p50 (ms)", flowhost: few["p50"] ?? .nan, reference: few["reference_p50"], higherIsBetter: false,
               threshold: "fleet-10-p50", note: "from the publish request; reference: fanout_host.c, 10 processes")
    for hosts in [400, 1000] {
        let measured = try row(hosts)
        for (quantile, threshold) in [("p50", "fleet-delivery-p50"), ("p99", "fleet-delivery-p99")] {
            report.add("feed delivery to \(hosts) hosts \(quantile) (ms)", flowhost: measured[quantile] ?? .nan,
                       reference: measured["reference_" + quantile], higherIsBetter: false, threshold: threshold,
                       note: quantile == "p50" ? "reference: fanout_host.c, \(hosts) processes woken by a datagram each, no database" : nil)
        }
    }
}

report.print()
if onlySections == nil { for id in report.unmeasuredThresholds { print("- not measured in this run: \(id)") } }
try report.writeJSON(to: jsonPath)
// exit() skips the top-level defer: the scratch folder (stores, the cluster) is removed here.
try? FileManager.default.removeItem(atPath: folder)
exit(report.allTargetsMet ? 0 : 1)
