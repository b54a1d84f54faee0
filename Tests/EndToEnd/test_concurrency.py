"""Eight host processes on one store at once: activations, logins, wrong
passwords, notification approvals and signings for shared and distinct
users, for FLOWHOST_CONCURRENCY_SECONDS (30 by default). No client sees an
error, nothing is lost (what the clients saw adds up with the store), and
the wrong-password limit holds exactly when eight hosts guess at once."""

import json
import os
import threading
import time

from conftest import CHEAP_CONFIG, GOOD_PASSWORD, Deployment, activate, store_rows
from flowhost_client import RPCError

HOSTS = 8
SECONDS = float(os.environ.get("FLOWHOST_CONCURRENCY_SECONDS", "30"))
WRONG = "Wrong&Passw0rd9"


def read(store, query, *args):
    return store_rows(store, query, *args)


def status(event):
    return event["params"]["response"]["status"]["statusCode"]


class Worker(threading.Thread):
    def __init__(self, deployment, index, pending, deadline):
        super().__init__(daemon=True)
        self.deployment, self.index, self.pending, self.deadline = deployment, index, pending, deadline
        self.errors, self.signed, self.activated, self.answered, self.lost_races, self.wrong = [], 0, 0, 0, 0, 0

    def expect(self, condition, what):
        if not condition:
            self.errors.append(what)

    def log_in(self, host, user, wrong_first):
        host.request("setUser", [user])
        ask = host.wait_event("getPassword")
        if wrong_first:
            host.request("setPassword", [WRONG, 0])
            again = host.wait_event("getPassword")
            self.expect(status(again) == 102, "a wrong password: %s" % status(again))
            self.wrong += 1
        host.request("setPassword", [GOOD_PASSWORD, 0])
        host.wait_event("onUserLoggedIn")

    def sign(self, host, level):
        host.request("authenticateUserAndSignData", ["worker %d signs %d" % (self.index, self.signed), level, 0, "load"])
        if level:
            host.wait_event("getPassword")
            host.request("setPassword", [GOOD_PASSWORD, 12])
        result = host.wait_event("onAuthenticateUserAndSignData")["params"]
        self.expect(result["status"]["statusCode"] == 100 and result["error"]["longErrorCode"] == 0, "signing: %s" % result["status"])
        self.signed += 1

    def answer_shared(self, host):
        host.request("getNotifications", [0, "", 1, "", ""])
        listed = host.wait_event("onGetNotifications")["params"]["notificationResponse"]["notifications"]
        payable = [item for item in listed if any(action.get("action") == "accept" for action in item["actions"])]
        for item in payable[:2]:
            try:
                host.request("updateNotification", [item["notification_uuid"], "accept"])
            except RPCError as refused:
                # Another host answered it first: refused at once, nothing changed.
                self.expect(refused.code == -32013 and refused.data["reason"] == "alreadyAnswered", "update: %s" % refused)
                self.lost_races += 1
                continue
            host.wait_event("getPassword")
            host.request("setPassword", [GOOD_PASSWORD, 3])
            update = host.wait_event("onUpdateNotification")["params"]["pArgs"]["response"]
            if update["StatusCode"] == 100:
                self.answered += 1
            else:  # answered elsewhere between the check and the step-up's end
                self.expect(update["StatusCode"] == 114 and "could no longer be answered" in update["StatusMsg"], "update: %s" % update)
                self.lost_races += 1

    def run(self):
        try:
            host = self.deployment.host("device-w%d" % self.index)
            host.wait_event("getUser")
            rounds = 0
            while time.time() < self.deadline:
                rounds += 1
                self.log_in(host, "w%d" % self.index, wrong_first=rounds % 3 == 0)
                self.sign(host, 0)
                self.sign(host, 1)
                host.request("logOff", ["w%d" % self.index])
                host.wait_event("getUser")
                self.log_in(host, "shared", wrong_first=False)
                self.answer_shared(host)
                host.request("logOff", ["shared"])
                host.wait_event("getUser")
                if self.pending:
                    user, code = self.pending.pop()
                    host.request("setUser", [user])
                    host.wait_event("getActivationCode")
                    host.request("setActivationCode", [code])
                    host.wait_event("getDeviceName")
                    host.request("setDeviceName", ["load"])
                    host.wait_event("getPassword")
                    host.request("setPassword", [GOOD_PASSWORD, 1])
                    host.wait_event("onUserLoggedIn")
                    self.activated += 1
                    host.request("logOff", [user])
                    host.wait_event("getUser")
            host.close()
        except Exception as error:
            self.errors.append(repr(error))


def join_with_code(deployment, user, device):
    host = deployment.host(device)
    host.wait_event("getUser")
    host.request("setUser", [user])
    host.wait_event("addNewDeviceOptions")
    host.request("fallbackNewDeviceActivationFlow")
    host.wait_event("getActivationCode")
    code = [item for item in deployment.admin("outbox") if item["userID"] == user][-1]["activationCode"]
    host.request("setActivationCode", [code])
    host.wait_event("getPassword")
    host.request("setPassword", [GOOD_PASSWORD, 0])
    host.wait_event("onUserLoggedIn")
    host.close()


def test_eight_hosts_on_one_store_lose_nothing(tmp_path, flowhost_bin, spawn):
    config = json.loads(json.dumps(CHEAP_CONFIG))
    config["passwords"]["maxAttempts"] = 100
    config["activation"].update(resendIntervalSeconds=0, maxResendsPerCode=20)  # the setup joins seven devices with codes
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    activate(deployment.host("device-w0"), "shared", deployment.add_user("shared"))
    for index in range(HOSTS):
        activate(deployment.host("device-w%d" % index), "w%d" % index, deployment.add_user("w%d" % index))
        if index:
            join_with_code(deployment, "shared", "device-w%d" % index)
    pending = [[("p%d-%d" % (index, n), deployment.add_user("p%d-%d" % (index, n))) for n in range(12)] for index in range(HOSTS)]
    deadline = time.time() + SECONDS
    workers = [Worker(deployment, index, pending[index], deadline) for index in range(HOSTS)]
    for worker in workers:
        worker.start()
    notified = []
    while time.time() < deadline:
        notified.append(deployment.admin("notify", "shared", "--subject", "Pay?", "--message", "m",
                                         "--action", "Accept=accept:1")["notification_uuid"])
        time.sleep(0.5)
    for worker in workers:
        worker.join(120)
        assert not worker.is_alive()
    errors = [error for worker in workers for error in worker.errors]
    assert errors == [], errors[:5]
    store = deployment.store
    # Nothing lost: what the clients saw is what the store holds.
    assert read(store, "SELECT COUNT(*) FROM signature_receipt")[0][0] == sum(worker.signed for worker in workers)
    activated = sum(worker.activated for worker in workers)
    assert read(store, "SELECT COUNT(*) FROM user WHERE user_id LIKE 'p%' AND status = 'active'")[0][0] == activated
    answered = [json.loads(detail)["uuid"] for (detail,) in read(
        store, "SELECT detail FROM audit WHERE action = 'notification.update' AND outcome = 'ok'")]
    assert len(answered) == len(set(answered)) == sum(worker.answered for worker in workers), "each answered once, as the clients saw"
    wrong_rows = read(store, "SELECT COUNT(*) FROM audit WHERE action = 'password.verify' AND outcome = 'wrong'")[0][0]
    assert wrong_rows == sum(worker.wrong for worker in workers)
    for index in range(HOSTS):
        assert read(store, "SELECT password_attempts_left FROM user WHERE user_id = ?", "w%d" % index)[0][0] == 100, \
            "every wrong try was followed by a right one"
    print("hosts=%d seconds=%.0f signed=%d activated=%d answered=%d lost-races=%d notifications=%d" % (
        HOSTS, SECONDS, sum(w.signed for w in workers), activated, len(answered), sum(w.lost_races for w in workers), len(notified)))


def test_eight_hosts_guessing_at_once_get_exactly_the_limit(tmp_path, flowhost_bin, spawn):
    config = json.loads(json.dumps(CHEAP_CONFIG))
    config["passwords"]["maxAttempts"] = 5
    config["activation"].update(resendIntervalSeconds=0, maxResendsPerCode=20)
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    code = deployment.add_user("target")
    activate(deployment.host("device-t0"), "target", code)
    for index in range(1, HOSTS):
        join_with_code(deployment, "target", "device-t%d" % index)
    hosts = []
    for index in range(HOSTS):
        host = deployment.host("device-t%d" % index)
        host.wait_event("getUser")
        host.request("setUser", ["target"])
        host.wait_event("getPassword")
        hosts.append(host)
    outcomes = [[] for _ in hosts]
    start = threading.Barrier(HOSTS)

    def guess(index):
        host = hosts[index]
        start.wait()
        while True:
            host.request("setPassword", [WRONG, 0])
            event = host.wait_event()
            while event["method"] not in ("getPassword", "getUser"):
                event = host.wait_event()
            outcomes[index].append((event["method"], status(event)))
            if event["method"] == "getUser":
                return
    threads = [threading.Thread(target=guess, args=(index,)) for index in range(HOSTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    seen = [outcome for per_host in outcomes for outcome in per_host]
    assert seen.count(("getPassword", 102)) == 4, seen
    assert all(outcome in (("getPassword", 102), ("getUser", 141)) for outcome in seen), seen
    assert read(deployment.store, "SELECT password_attempts_left, block_reason FROM user WHERE user_id = 'target'")[0][0] == 0
    counted = read(deployment.store, "SELECT COUNT(*) FROM audit WHERE user_id = 'target' AND action = 'password.verify' "
                                     "AND outcome IN ('wrong', 'blocked')")[0][0]
    assert counted == 5, "exactly the configured number of wrong tries was counted"


def test_eight_hosts_starting_at_once_on_a_fresh_store_all_start(tmp_path, flowhost_bin):
    """Issue 21.13: one of eight sometimes read the outbox key while another
    was writing it ("outbox key … is not 32 bytes")."""
    import subprocess
    for round_ in range(5):
        folder = tmp_path / ("fresh-%d" % round_)
        folder.mkdir()
        store = str(folder / "store.sqlite")
        results = []

        def start():
            out = subprocess.run([flowhost_bin, "--no-default-plugins", "--store", store],
                                 input='{"jsonrpc":"2.0","id":1,"method":"ping"}\n', capture_output=True, text=True, timeout=60)
            results.append((out.returncode, out.stderr[-300:]))
        threads = [threading.Thread(target=start) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert all(code == 0 for code, _ in results), results
        assert not [name for name in os.listdir(str(folder)) if ".tmp-" in name]
