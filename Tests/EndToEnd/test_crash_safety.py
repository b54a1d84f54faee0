"""Crash safety: hosts killed with SIGKILL at random points of activations,
logins, step-ups, approvals and signings (at least 200 kills), while a second
host keeps working on the same store. Afterwards the store is intact, every
user is activated fully or not at all, no attempt counter went back up, no
code or approval worked twice, no notification was answered twice, and the
audit log never shrank. On SQLite and on PostgreSQL alike."""

import json
import os
import random
import threading
import time

import pytest

from conftest import BACKEND, CHEAP_CONFIG, GOOD_PASSWORD, Deployment, activate, store_rows
from flowhost_client import HostExited, RPCError

KILLS = int(os.environ.get("FLOWHOST_CRASH_KILLS", "200"))
WRONG = "Wrong&Passw0rd9"


def read(store, query, *args):
    return store_rows(store, query, *args)


class Worker(threading.Thread):
    """Host B: logged in as stella, signs at level 0 again and again and
    approves every new-device request it sees, until told to stop."""

    def __init__(self, host):
        super().__init__(daemon=True)
        self.host, self.stop, self.signed, self.approved, self.failure = host, threading.Event(), 0, 0, None

    def run(self):
        try:
            while not self.stop.is_set():
                self.host.request("authenticateUserAndSignData", ["keep working %d" % self.signed, 0, 0, "crash test"])
                result = self.host.wait_event("onAuthenticateUserAndSignData", timeout=10)["params"]
                assert result["status"]["statusCode"] == 100, result
                self.signed += 1
                self.host.request("getNotifications", [0, "", 1, "", ""])
                listed = self.host.wait_event("onGetNotifications", timeout=10)["params"]["notificationResponse"]
                for item in listed["notifications"]:
                    if "Approve a new device" not in json.dumps(item):
                        continue
                    try:
                        self.host.request("updateNotification", [item["notification_uuid"], "accept"])
                    except RPCError:
                        continue  # withdrawn or expired meanwhile
                    self.host.wait_event("getPassword", timeout=10)
                    self.host.request("setPassword", [GOOD_PASSWORD, 3])
                    self.host.wait_event("onUpdateNotification", timeout=10)
                    self.approved += 1
        except Exception as error:  # the main thread reports it
            self.failure = error


def test_random_kills_lose_and_corrupt_nothing(tmp_path, flowhost_bin, spawn):
    config = json.loads(json.dumps(CHEAP_CONFIG))
    config["passwords"]["maxAttempts"] = 100
    config["activation"]["maxAttempts"] = 100
    config["flows"] = {"device-activation": {"approvalSeconds": 30}}
    # One user joins many times within the hour, and killed hosts leave their
    # requests pending: past the default approval limits, which the operator may raise.
    config["approvals"] = {"pendingPerUser": 20, "perUserPerHour": 1000, "perRequesterPerHour": 100}
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    store = deployment.store
    rng = random.Random(int(os.environ.get("FLOWHOST_CRASH_SEED", "20261122")))

    # stella: steady, on device-b (host B) and device-a (the victim host's logins).
    activate(deployment.host("device-a"), "stella", deployment.add_user("stella"))
    worker_host = deployment.host("device-b")
    worker_host.wait_event("getUser")
    worker_host.request("setUser", ["stella"])
    joined = worker_host.wait_event()
    assert joined["method"] == "addNewDeviceOptions"
    worker_host.request("fallbackNewDeviceActivationFlow")
    worker_host.wait_event("getActivationCode")
    code = next(item for item in deployment.admin("outbox") if item["userID"] == "stella")["activationCode"]
    worker_host.request("setActivationCode", [code])
    worker_host.wait_event("getPassword")
    worker_host.request("setPassword", [GOOD_PASSWORD, 0])
    worker_host.wait_event("onUserLoggedIn")
    worker = Worker(worker_host)
    worker.start()

    codes = {}              # user -> code, for the activation scenario
    accepted = set()        # users whose code the host acknowledged (getDeviceName)
    victim_acknowledged = 0  # wrong tries the client saw counted
    victim_sent = 0
    audit_sizes = []
    victim_left = []
    kills = 0

    def scenario_activation(host, index):
        user = "user%03d" % index
        codes[user] = deployment.add_user(user)
        host.wait_event("getUser")
        host.request("setUser", [user])
        host.wait_event("getActivationCode")
        host.request("setActivationCode", [codes[user]])
        host.wait_event("getDeviceName")
        accepted.add(user)
        host.request("setDeviceName", ["crash"])
        host.wait_event("getPassword")
        host.request("setPassword", [GOOD_PASSWORD, 1])
        host.wait_event("onUserLoggedIn")

    def scenario_login_stepup_sign(host, index):
        host.wait_event("getUser")
        host.request("setUser", ["stella"])
        host.wait_event("getPassword")
        host.request("setPassword", [GOOD_PASSWORD, 0])
        host.wait_event("onUserLoggedIn")
        host.request("authenticateUserAndSignData", ["crash %d" % index, 1, 0, "step-up then sign"])
        host.wait_event("getPassword")
        host.request("setPassword", [GOOD_PASSWORD, 12])
        host.wait_event("onAuthenticateUserAndSignData")

    def scenario_wrong_password(host, index):
        nonlocal victim_acknowledged, victim_sent
        host.wait_event("getUser")
        host.request("setUser", ["victim"])
        if host.wait_event()["method"] != "getPassword":
            return  # not activated yet (see below)
        victim_sent += 1
        host.request("setPassword", [WRONG, 0])
        again = host.wait_event("getPassword")
        if again["params"]["response"]["status"]["statusCode"] == 102:
            victim_acknowledged += 1

    def scenario_join(host, index):
        host.wait_event("getUser")
        host.request("setUser", ["stella"])
        host.wait_event("addNewDeviceOptions")
        host.request("performVerifyAuth", [True])
        host.wait_event("getPassword", timeout=15)
        host.request("setPassword", [GOOD_PASSWORD, 0])
        host.wait_event("onUserLoggedIn")

    # The victim gets a password first (never killed), then only wrong tries.
    victim_host = deployment.host("device-v")
    activate(victim_host, "victim", deployment.add_user("victim"))
    victim_host.close()
    max_left = read(store, "SELECT password_attempts_left FROM user WHERE user_id = 'victim'")[0][0]

    scenarios = [scenario_activation, scenario_login_stepup_sign, scenario_wrong_password, scenario_join]
    index = 0
    while kills < KILLS:
        index += 1
        scenario = rng.choice(scenarios)
        device = "device-a" if scenario is scenario_login_stepup_sign else "device-v" if scenario is scenario_wrong_password \
            else "device-%d" % index
        host = deployment.host(device)
        delay = rng.uniform(0.0, 0.25 if scenario is scenario_join else 0.08)
        killer = threading.Timer(delay, host.process.kill)
        killer.start()
        try:
            scenario(host, index)
        except (HostExited, TimeoutError, RPCError, BrokenPipeError, OSError):
            pass
        killer.join()
        host.process.wait(5)
        host.close()
        kills += 1
        assert worker.failure is None, worker.failure
        audit_sizes.append(read(store, "SELECT COUNT(*) FROM audit")[0][0])
        victim_left.append(read(store, "SELECT password_attempts_left FROM user WHERE user_id = 'victim'")[0][0])

    worker.stop.set()
    worker.join(30)
    assert worker.failure is None, worker.failure
    assert worker.signed > 0

    # The store is intact.
    if BACKEND == "sqlite":
        # (On PostgreSQL the killed hosts are only clients: the server's own files are never at risk.)
        assert read(store, "PRAGMA integrity_check") == [("ok",)]
    # The audit log never shrank, and the attempt counter never went back up.
    assert audit_sizes == sorted(audit_sizes)
    assert victim_left == sorted(victim_left, reverse=True)
    left = victim_left[-1]
    assert max_left - victim_sent <= left <= max_left - victim_acknowledged, (max_left, victim_sent, victim_acknowledged, left)
    # Every user is activated fully (active, a device, a key, a password) or not at all.
    for (user,) in read(store, "SELECT user_id FROM user WHERE user_id LIKE 'user%'"):
        status = read(store, "SELECT status FROM user WHERE user_id = ?", user)[0][0]
        devices = read(store, "SELECT COUNT(*) FROM device WHERE user_id = ? AND status = 'ACTIVE'", user)[0][0]
        keys = read(store, "SELECT COUNT(*) FROM device_key WHERE user_id = ?", user)[0][0]
        passwords = read(store, "SELECT COUNT(*) FROM password WHERE user_id = ?", user)[0][0]
        if status == "active":
            assert devices == 1 and keys == 1 and passwords == 1, user
        else:
            assert status == "pending" and devices == 0 and keys == 0 and passwords == 0, user
    # A code the host acknowledged never works again.
    retry = [user for user in sorted(accepted) if read(store, "SELECT status FROM user WHERE user_id = ?", user)[0][0] == "pending"]
    for user in retry[:10]:
        host = deployment.host("device-retry-%s" % user)
        host.wait_event("getUser")
        host.request("setUser", [user])
        host.wait_event("getActivationCode")
        host.request("setActivationCode", [codes[user]])
        assert host.wait_event("getActivationCode")["params"]["response"]["status"]["statusCode"] == 106, user
        host.close()
    # No notification was answered twice, and no approval let two devices in.
    answers = read(store, "SELECT detail FROM audit WHERE action = 'notification.update' AND outcome = 'ok'")
    uuids = [json.loads(detail)["uuid"] for (detail,) in answers]
    assert len(uuids) == len(set(uuids))
    approved_devices = read(
        store, "SELECT COUNT(*) FROM audit WHERE action = 'activation.approved' AND outcome = 'ok' AND detail LIKE '%\"approval\"%'")[0][0]
    consumed = read(store, "SELECT COUNT(*) FROM notification WHERE kind = 'device-approval' AND consumed_at IS NOT NULL")[0][0]
    assert approved_devices == consumed <= len(uuids)
    print("kills=%d signed-by-B=%d approvals-by-B=%d activated=%d victim-tries=%d/%d" % (
        kills, worker.signed, worker.approved, len([u for u in accepted]), victim_acknowledged, victim_sent))
