import CBenchSupport
import Foundation

/// A throw-away PostgreSQL cluster for the PostgreSQL rows (Debian's
/// postgresql; as the `postgres` account when the bench runs as root),
/// on a Unix socket in its own folder, password from a password file.
/// Nil when PostgreSQL is not installed: those rows are then left out.
final class PostgresCluster {
    let folder: String
    private let bin: String
    private let asUser: [String]
    private var databases = 0
    private let password: String
    private var bouncerPID: String?

    init?(folder: String) throws {
        let root = "/usr/lib/postgresql"
        guard let version = (try? FileManager.default.contentsOfDirectory(atPath: root))?.sorted().last,
              FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/initdb") else { return nil }
        bin = "\(root)/\(version)/bin"
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        asUser = getuid() == 0 ? ["runuser", "-u", "postgres", "--"] : []
        password = UUID().uuidString
        let pwfile = folder + "/initial-password"
        try (password + "\n").write(toFile: pwfile, atomically: true, encoding: .utf8)
        if getuid() == 0 {
            try run(["chown", "postgres", folder, pwfile], asServer: false)
        }
        try run([bin + "/initdb", "-D", folder + "/data", "-U", "flowhost", "--auth-local=scram-sha-256", "--pwfile=" + pwfile,
                 "--locale=C", "-E", "UTF8", "--no-sync"])
        try FileManager.default.removeItem(atPath: pwfile)
        try "\(folder):5432:*:flowhost:\(password)\n".write(toFile: folder + "/pgpass", atomically: true, encoding: .utf8)
        chmod(folder + "/pgpass", 0o600)
        try run([bin + "/pg_ctl", "-D", folder + "/data", "-l", folder + "/server.log", "-w", "start",
                 "-o", "-c listen_addresses='' -c unix_socket_directories=\(folder) -c max_connections=200"])
    }

    func stop() {
        if let bouncerPID, let pid = try? String(contentsOfFile: bouncerPID, encoding: .utf8), let number = Int32(pid.trimmingCharacters(in: .whitespacesAndNewlines)) {
            kill(number, SIGTERM)
        }
        try? run([bin + "/pg_ctl", "-D", folder + "/data", "-m", "immediate", "-w", "stop"])
    }

    /// A PgBouncer (Debian's) in front of the cluster, in transaction mode
    /// with an empty server_reset_query, as a deployment behind a pooler
    /// runs it (docs/deployment.md); nil when PgBouncer is not installed.
    /// `url(database)` reaches a database through it.
    func startBouncer(poolSize: Int = 20) throws -> ((String) -> String)? {
        let binary = "/usr/sbin/pgbouncer"
        guard FileManager.default.isExecutableFile(atPath: binary) else { return nil }
        let port = 6432
        let users = folder + "/bouncer-users.txt", config = folder + "/bouncer.ini", pidfile = folder + "/bouncer.pid"
        try "\"flowhost\" \"\(password)\"\n".write(toFile: users, atomically: true, encoding: .utf8)
        chmod(users, 0o600)
        try """
            [databases]
            * = host=\(folder) port=5432
            [pgbouncer]
            listen_addr =
            listen_port = \(port)
            unix_socket_dir = \(folder)
            auth_type = scram-sha-256
            auth_file = \(users)
            pool_mode = transaction
            server_reset_query =
            default_pool_size = \(poolSize)
            max_client_conn = 2000
            logfile = \(folder)/bouncer.log
            pidfile = \(pidfile)

            """.write(toFile: config, atomically: true, encoding: .utf8)
        let passfile = folder + "/pgpass"
        let existing = (try? String(contentsOfFile: passfile, encoding: .utf8)) ?? ""
        try (existing + "\(folder):\(port):*:flowhost:\(password)\n").write(toFile: passfile, atomically: true, encoding: .utf8)
        chmod(passfile, 0o600)
        if getuid() == 0 { try run(["chown", "postgres", users, config], asServer: false) }
        try run([binary, "-d", config])
        bouncerPID = pidfile
        let socket = folder + "/.s.PGSQL.\(port)"
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: socket) { usleep(50_000) }
        return { database in "postgresql:///\(database)?host=\(self.folder)&port=\(port)&user=flowhost&passfile=\(passfile)" }
    }

    /// A new database; its URL (no password: it is in the password file).
    func newDatabase() throws -> String {
        let name = try newDatabaseName()
        return "postgresql:///\(name)?host=\(folder)&user=flowhost&passfile=\(folder)/pgpass"
    }

    /// A new database; its name.
    func newDatabaseName() throws -> String {
        databases += 1
        let name = "bench\(databases)"
        try run([bin + "/psql", "-X", "-q", "-d", "dbname=postgres host=\(folder) user=flowhost", "-c", "CREATE DATABASE \(name)"],
                asServer: false, environment: ["PGPASSFILE": folder + "/pgpass"])
        return name
    }

    private func run(_ argv: [String], asServer: Bool = true, environment: [String: String] = [:]) throws {
        // Not Foundation's Process: its waiting hangs when the command leaves a
        // daemon behind (pg_ctl start) that inherited one of its descriptors.
        let full = (asServer ? asUser : []) + argv
        var pointers: [UnsafeMutablePointer<CChar>?] = full.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        let extra = environment.first.map { "\($0.key)=\($0.value)" }
        let status = extra.map { text in text.withCString { bench_run(&pointers, strdup($0)) } } ?? bench_run(&pointers, nil)
        guard status == 0 else { throw BenchError("\(argv[0]) failed (status \(status))") }
    }
}
