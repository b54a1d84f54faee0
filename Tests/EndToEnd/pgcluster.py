"""A throw-away PostgreSQL cluster for the tests: initdb and pg_ctl from
Debian's postgresql package, run as an unprivileged user (the `postgres`
account when the tests run as root), listening only on a Unix socket in its
own temporary folder, with a password (SCRAM) that hosts read from a
password file. `remove()` stops it and deletes everything."""

import glob
import itertools
import os
import re
import secrets
import shutil
import subprocess


def bindir():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise RuntimeError("PostgreSQL is installed by scripts/setup.sh --test (Debian's postgresql)")
    return os.path.dirname(found[-1])


class Cluster:
    USER = "flowhost"

    def __init__(self, folder, max_connections=400, fsync=False):
        self.folder = folder
        self.max_connections = max_connections
        # Off for the tests (nothing of theirs outlives the cluster); on for a measurement of commits.
        self.fsync = fsync
        self.log_file = os.path.join(folder, "server.log")
        self.data = os.path.join(folder, "data")
        self.bin = bindir()
        self.password = secrets.token_urlsafe(18)
        self.passfile = os.path.join(folder, "pgpass")
        self._names = itertools.count(1)
        self.bouncers = []
        self._as = []
        if os.geteuid() == 0:
            # initdb refuses root: the server runs as postgres, in a folder it owns.
            self._as = ["runuser", "-u", "postgres", "--"]
            shutil.chown(folder, "postgres")
        pwfile = os.path.join(folder, "initial-password")
        with open(pwfile, "w") as handle:
            handle.write(self.password + "\n")
        if self._as:
            shutil.chown(pwfile, "postgres")
        self._run("initdb", "-D", self.data, "-U", self.USER, "--auth-local=scram-sha-256", "--auth-host=scram-sha-256",
                  "--pwfile=" + pwfile, "--locale=C", "-E", "UTF8", "--no-sync")
        os.unlink(pwfile)
        with open(self.passfile, "w") as handle:
            handle.write("%s:5432:*:%s:%s\n" % (folder, self.USER, self.password))
        os.chmod(self.passfile, 0o600)
        self.start()

    def log_backends(self, every_statement=False):
        """The server's log lines name their backend (`[PID] `), and with
        `every_statement` each statement is logged: tests read which
        backend ran what."""
        self.psql("postgres", "ALTER SYSTEM SET log_line_prefix = '[%p] '")
        if every_statement:
            self.psql("postgres", "ALTER SYSTEM SET log_statement = 'all'")
        self.psql("postgres", "SELECT pg_reload_conf()")

    def _run(self, tool, *args):
        out = subprocess.run(self._as + [os.path.join(self.bin, tool)] + list(args), capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise RuntimeError("%s failed: %s" % (tool, out.stderr or out.stdout))
        return out.stdout

    def start(self):
        options = "-c listen_addresses='' -c unix_socket_directories=%s -c max_connections=%d -c fsync=%s" % (
            self.folder, self.max_connections, "on" if self.fsync else "off")
        self._run("pg_ctl", "-D", self.data, "-o", options, "-l", os.path.join(self.folder, "server.log"), "-w", "start")

    def stop(self, mode="fast"):
        self._run("pg_ctl", "-D", self.data, "-m", mode, "-w", "stop")

    def url(self, database):
        return "postgresql:///%s?host=%s&user=%s&passfile=%s" % (database, self.folder, self.USER, self.passfile)

    def bouncer(self, **options):
        """A PgBouncer in front of this cluster (class Bouncer), stopped by remove()."""
        made = Bouncer(self, name="bouncer%d" % (len(self.bouncers) + 1), **options)
        self.bouncers.append(made)
        return made

    def psql(self, database, sql):
        out = subprocess.run([os.path.join(self.bin, "psql"), "-X", "-q", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1",
                              "-d", "dbname=%s host=%s user=%s" % (database, self.folder, self.USER), "-c", sql],
                             capture_output=True, text=True, timeout=60, env=dict(os.environ, PGPASSFILE=self.passfile))
        if out.returncode != 0:
            raise RuntimeError(out.stderr.strip())
        return [line.split("\t") for line in out.stdout.splitlines()]

    def load(self, database, path):
        """Runs a SQL file as psql does (pg_dump's output: COPY blocks, meta-commands)."""
        out = subprocess.run([os.path.join(self.bin, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1",
                              "-d", "dbname=%s host=%s user=%s" % (database, self.folder, self.USER), "-f", path],
                             capture_output=True, text=True, timeout=60, env=dict(os.environ, PGPASSFILE=self.passfile))
        if out.returncode != 0:
            raise RuntimeError(out.stderr.strip())

    def create_database(self):
        name = "t%d_%d" % (os.getpid(), next(self._names))
        self.psql("postgres", "CREATE DATABASE %s" % name)
        return name

    def drop_database(self, name):
        self.psql("postgres", "DROP DATABASE IF EXISTS %s WITH (FORCE)" % name)

    def throwaway_store(self, folder, config, url=None):
        """A new database for one test, with a config file and a state folder
        in `folder` (a pytest tmp_path), dropped when the generator ends;
        `url` names how the hosts reach it (default: the cluster itself)."""
        import json
        database = self.create_database()
        (folder / "config.json").write_text(json.dumps(config))
        yield {"url": (url or self.url)(database), "db": database, "config": str(folder / "config.json"),
               "env": {"FLOWHOST_STATE_DIR": str(folder)}}
        self.drop_database(database)

    def dump(self, name):
        out = subprocess.run([os.path.join(self.bin, "pg_dump"), "--data-only", "-d",
                              "dbname=%s host=%s user=%s" % (name, self.folder, self.USER)],
                             capture_output=True, timeout=120, env=dict(os.environ, PGPASSFILE=self.passfile))
        return out.stdout

    def remove(self):
        for bouncer in self.bouncers:
            bouncer.stop()
        try:
            self.stop("immediate")
        except Exception:
            pass
        shutil.rmtree(self.folder, ignore_errors=True)


def logged_statements(text):
    """(backend pid, statement) for each statement a server log holds
    (log_statement = 'all'; the default prefix names the backend), in
    order. A transaction's BEGIN and SET LOCAL arrive either in the
    pipeline of its first statement, one logged line each, or joined to a
    simple query's text: the joined ones are split at '; '."""
    found = []
    for match in re.finditer(r"\[(\d+)\] LOG:  (?:statement|execute [^:]*): (.*)", text):
        pid, statement = match.group(1), match.group(2)
        parts = statement.split("; ") if statement.startswith("BEGIN") else [statement]
        found.extend((pid, part) for part in parts)
    return found


def write_durabilities(text):
    """For each write transaction (BEGIN … SERIALIZABLE) in a server log,
    the synchronous_commit its next statement on the same backend sets
    inside it, or None when that statement sets none."""
    following = {}
    settings = []
    for pid, statement in logged_statements(text):
        if following.pop(pid, False):
            prefix = "SET LOCAL synchronous_commit = "
            settings.append(statement[len(prefix):].strip() if statement.startswith(prefix) else None)
        if statement.startswith("BEGIN ISOLATION LEVEL SERIALIZABLE"):
            following[pid] = True
    return settings


def bouncer_binary():
    for candidate in ("/usr/sbin/pgbouncer", shutil.which("pgbouncer")):
        if candidate and os.path.exists(candidate):
            return candidate
    raise RuntimeError("PgBouncer is installed by scripts/setup.sh --test (Debian's pgbouncer)")


class Bouncer:
    """PgBouncer in front of a Cluster, in transaction mode with an empty
    server_reset_query: each transaction may run on any server connection,
    and nothing a session set is cleaned up between clients. It listens only
    on a Unix socket in the cluster's folder (port PORT), runs as the
    cluster's user, and takes the same password (SCRAM both ways)."""

    PORT = 6432

    def __init__(self, cluster, pool_size=20, name="bouncer"):
        self.cluster = cluster
        self.port = self.PORT + sum(1 for _ in glob.glob(os.path.join(cluster.folder, "*.ini")))
        self.folder = cluster.folder
        self.config = os.path.join(cluster.folder, "%s.ini" % name)
        self.pidfile = os.path.join(cluster.folder, "%s.pid" % name)
        self.log = os.path.join(cluster.folder, "%s.log" % name)
        userlist = os.path.join(cluster.folder, "%s-users.txt" % name)
        with open(userlist, "w") as handle:
            handle.write('"%s" "%s"\n' % (cluster.USER, cluster.password))
        os.chmod(userlist, 0o600)
        with open(self.config, "w") as handle:
            handle.write("\n".join([
                "[databases]",
                "* = host=%s port=5432" % cluster.folder,
                "[pgbouncer]",
                "listen_addr =",
                "listen_port = %d" % self.port,
                "unix_socket_dir = %s" % cluster.folder,
                "auth_type = scram-sha-256",
                "auth_file = %s" % userlist,
                "admin_users = %s" % cluster.USER,
                "pool_mode = transaction",
                "server_reset_query =",
                "server_reset_query_always = 0",
                "default_pool_size = %d" % pool_size,
                "max_client_conn = 2000",
                "logfile = %s" % self.log,
                "pidfile = %s" % self.pidfile,
                ""]))
        with open(cluster.passfile, "a") as handle:
            handle.write("%s:%d:*:%s:%s\n" % (cluster.folder, self.port, cluster.USER, cluster.password))
        if cluster._as:
            for path in (userlist, self.config):
                shutil.chown(path, "postgres")
        # runuser's PAM session sets the soft limit on open files back to
        # 1024, which a thousand clients exceed: PgBouncer takes the hard one.
        raise_limit = 'ulimit -n "$(ulimit -H -n)" && exec "$0" -d "$1"'
        out = subprocess.run(cluster._as + ["sh", "-c", raise_limit, bouncer_binary(), self.config],
                             capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            raise RuntimeError("pgbouncer failed: %s" % (out.stderr or out.stdout))
        import time
        deadline = time.time() + 10
        while not os.path.exists(os.path.join(cluster.folder, ".s.PGSQL.%d" % self.port)):
            if time.time() > deadline:
                raise RuntimeError("pgbouncer did not start: %s" % open(self.log).read()[-2000:])
            time.sleep(0.05)

    def url(self, database):
        return "postgresql:///%s?host=%s&port=%d&user=%s&passfile=%s" % (
            database, self.folder, self.port, self.cluster.USER, self.cluster.passfile)

    def show(self, what):
        """The admin console's SHOW WHAT, as dicts by column name."""
        out = subprocess.run([os.path.join(self.cluster.bin, "psql"), "-X", "-A", "-F", "\t", "-P", "footer=off",
                              "-d", "dbname=pgbouncer host=%s port=%d user=%s" % (self.folder, self.port, self.cluster.USER),
                              "-c", "SHOW %s" % what],
                             capture_output=True, text=True, timeout=60, env=dict(os.environ, PGPASSFILE=self.cluster.passfile))
        if out.returncode != 0:
            raise RuntimeError(out.stderr.strip())
        lines = out.stdout.splitlines()
        names = lines[0].split("\t")
        return [dict(zip(names, line.split("\t"))) for line in lines[1:]]

    def stop(self):
        try:
            with open(self.pidfile) as handle:
                os.kill(int(handle.read().strip()), 15)
        except (OSError, ValueError):
            pass


if __name__ == "__main__":
    # `pgcluster.py [--bouncer] COMMAND...`: runs COMMAND with
    # FLOWHOST_TEST_POSTGRES_URL naming a database on a throw-away cluster
    # (with --bouncer, through a PgBouncer in transaction mode in front of
    # it), then removes the cluster. For the Swift tests of the PostgreSQL
    # store (PostgresStoreTests).
    import sys
    import tempfile
    command = sys.argv[1:]
    through_bouncer = command[:1] == ["--bouncer"]
    if through_bouncer:
        command = command[1:]
    if not command:
        sys.exit("usage: pgcluster.py [--bouncer] COMMAND [ARGUMENT...]")
    cluster = Cluster(tempfile.mkdtemp(prefix="flowhost-pg-"))
    try:
        database = cluster.create_database()
        url = (cluster.bouncer() if through_bouncer else cluster).url(database)
        sys.exit(subprocess.run(command, env=dict(os.environ, FLOWHOST_TEST_POSTGRES_URL=url)).returncode)
    finally:
        cluster.remove()
