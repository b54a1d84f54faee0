"""Runs the shared scenario suite (Protocol/scenarios/flows.json; format in
its README) with this client against a real flowhost binary.

    python3 -m flowhost_client.scenarios FLOWHOST FOLDER [SCENARIOS]
"""

import json
import os
import re
import subprocess
import sys

from .client import FlowHostClient, RPCError
from .typed import TypedRequests

WHOLE = re.compile(r"^\{\{([^}]+)\}\}$")


class ScenarioFailure(AssertionError):
    pass


def lookup(value, path):
    for part in path.split("."):
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return None
    return value


def substitute(value, saved):
    if isinstance(value, str):
        found = WHOLE.match(value)
        if found:
            name, _, path = found.group(1).partition(".")
            if name not in saved:
                raise ScenarioFailure("nothing saved as %r" % name)
            return lookup(saved[name], path) if path else saved[name]
        return value
    if isinstance(value, list):
        return [substitute(item, saved) for item in value]
    if isinstance(value, dict):
        return {key: substitute(item, saved) for key, item in value.items()}
    return value


def check(where, value, match, saved):
    for path, expected in (match or {}).items():
        expected = substitute(expected, saved)
        actual = lookup(value, path)
        if actual != expected or type(actual) is not type(expected):
            raise ScenarioFailure("%s: %s is %r, expected %r" % (where, path, actual, expected))


def snake(name):
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name.replace(".", "_").replace("/", "_")).lower()


def run(binary, folder, path=None):
    path = path or os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))),
                                "scenarios", "flows.json")
    with open(path, encoding="utf-8") as handle:
        suite = json.load(handle)
    # FLOWHOST_SCENARIO_STORE: another store (a postgresql:// URL) instead of the folder's SQLite file.
    store = os.environ.get("FLOWHOST_SCENARIO_STORE") or os.path.join(folder, "store.sqlite")
    config = os.path.join(folder, "config.json")
    with open(config, "w", encoding="utf-8") as handle:
        json.dump(suite["config"], handle)
    saved, hosts = {}, {}
    try:
        for scenario in suite["scenarios"]:
            for number, step in enumerate(scenario["steps"], 1):
                where = "%s, step %d" % (scenario["name"], number)
                try:
                    run_step(step, binary, store, config, saved, hosts, where)
                except ScenarioFailure:
                    raise
                except Exception as error:
                    raise ScenarioFailure("%s: %s" % (where, error)) from error
            print("scenario ok: %s" % scenario["name"], flush=True)
    finally:
        for host in hosts.values():
            host.close()


def run_step(step, binary, store, config, saved, hosts, where):
    if "admin" in step:
        out = subprocess.run([binary, "admin"] + step["admin"] + ["--store", store, "--config", config, "--json"],
                             capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            raise ScenarioFailure("%s: admin %s failed: %s" % (where, step["admin"][0], out.stderr.strip()))
        if "save" in step:
            saved[step["save"]] = json.loads(out.stdout)
    elif "start" in step:
        host = FlowHostClient([binary, "--store", store, "--config", config])
        hosts[step["start"]] = host
        for method, result in step.get("handle", {}).items():
            host.on_request(method, lambda params, result=result: result)
        host.initialize(device=step["device"])
    elif "stop" in step:
        host = hosts.pop(step["stop"])
        host.request("shutdown")
        host.notify("exit")
        status = host.process.wait(timeout=10)
        host.close()
        if status != 0:
            raise ScenarioFailure("%s: the host exited with %s" % (where, status))
    elif "expect" in step:
        params = hosts[step["on"]].next_event(step["expect"]).params
        check(where + " (" + step["expect"] + ")", params, step.get("match"), saved)
        if "save" in step:
            saved[step["save"]] = params
    elif "call" in step:
        host, method = hosts[step["on"]], step["call"]
        params = substitute(step.get("params", {}), saved)
        typed = getattr(TypedRequests, snake(method), None)
        try:
            result = getattr(host, snake(method))(**params) if typed else host.request(method, params)
        except RPCError as error:
            if step.get("error") == error.code:
                return
            raise ScenarioFailure("%s: %s failed: %s" % (where, method, error))
        if "error" in step:
            raise ScenarioFailure("%s: %s succeeded, expected error %s" % (where, method, step["error"]))
        check(where + " (" + method + ")", result, step.get("match"), saved)
        if "save" in step:
            saved[step["save"]] = result
    else:
        raise ScenarioFailure("%s: unknown step %s" % (where, sorted(step)))


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: python3 -m flowhost_client.scenarios FLOWHOST FOLDER [SCENARIOS]")
    try:
        run(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    except ScenarioFailure as failure:
        sys.exit("scenario failed: %s" % failure)


if __name__ == "__main__":
    main()
