"""The step-up flow with notification actions: the seed's scenarios
(password, LDA, LDA cancelled without a password, attempts exhausted, an
expired password) and the notification methods' errors."""

import json

import pytest

from conftest import GOOD_PASSWORD, activate, status_of, wait_until
from flowhost_client import RPCError
from schemas import validate


# FlowHost's own challengeMode for a step-up that a flow which is not built in asks for (spec §6).
FLOW_STEP_UP = 1000
INVALID_PARAMS = -32602
CHALLENGE_MISMATCH = -32004


def notify(deployment, user="alice", authlevel="1"):
    return deployment.admin("notify", user, "--subject", "Pay 20 EUR to Carol?", "--message", "Invoice 42",
                            "--action", "Accept=accept:%s" % authlevel, "--action", "Reject=reject")["notification_uuid"]


def update_status(event):
    response = event["params"]["pArgs"]["response"]
    assert response["StatusCode"] == response["ResponseData"]["status_code"]
    return response["StatusCode"], event["params"]["error"]["longErrorCode"]


def logged_in_host(deployment, lda=False, lda_answer=True):
    code = deployment.add_user("alice")
    host = deployment.host("device-1", lda=[1] if lda else [], lda_answer=lda_answer)
    activate(host, "alice", code, lda=lda)
    return host


def test_scenario_1_password_step_up_with_a_wrong_then_a_right_password(deployment):
    host = logged_in_host(deployment)
    uuid = notify(deployment)
    host.request("getNotifications", [0, "", 1, "", ""])
    listed = host.wait_event("onGetNotifications")["params"]["notificationResponse"]
    assert listed["total"] == "1" and listed["notifications"][0]["notification_uuid"] == uuid
    host.request("updateNotification", [uuid, "accept"])
    ask = host.wait_event("getPassword")
    assert ask["params"]["challengeMode"] == 3 and ask["params"]["attemptsLeft"] == 3
    validate("getPassword.params", ask["params"])
    host.request("setPassword", ["Wrong&Passw0rd9", 3])
    again = host.wait_event("getPassword")
    assert status_of(again) == 102 and again["params"]["attemptsLeft"] == 2
    host.request("setPassword", [GOOD_PASSWORD, 3])
    assert update_status(host.wait_event("onUpdateNotification")) == (100, 0)
    history = deployment.admin("notifications", "alice")
    assert history[0]["status"] == "UPDATED" and history[0]["action_performed"] == "accept"
    assert deployment.admin("show-user", "alice")["passwordAttemptsLeft"] == 3, "success restores the attempts"


def test_an_action_without_authlevel_needs_no_step_up(deployment):
    host = logged_in_host(deployment)
    uuid = notify(deployment)
    host.request("updateNotification", [uuid, "reject"])
    assert update_status(host.wait_event("onUpdateNotification")) == (100, 0)
    assert not [event for event in host.events if event["method"] == "getPassword" and event["params"].get("challengeMode") == 3]


def test_scenario_2_lda_step_up_asks_the_platform_not_for_a_password(deployment):
    host = logged_in_host(deployment, lda=True)
    uuid = notify(deployment)
    host.request("updateNotification", [uuid, "accept"])
    assert update_status(host.wait_event("onUpdateNotification")) == (100, 0)
    asked = [json.loads(line)["params"] for direction, line in host.transcript if direction == "<-" and "authenticateLDA" in line]
    assert asked[-1]["reason"] == "notification"
    assert not [event for event in host.events if event["method"] == "getPassword"]


def test_scenario_4_lda_cancelled_without_a_password_is_error_131_and_a_retry_works(deployment):
    host = logged_in_host(deployment, lda=True)
    answers = iter([{"authenticated": False}, {"authenticated": True}])
    host.on_request("platform/authenticateLDA", lambda params: next(answers))
    uuid = notify(deployment)
    host.request("updateNotification", [uuid, "accept"])
    assert update_status(host.wait_event("onUpdateNotification")) == (100, 131)
    assert deployment.admin("notifications", "alice")[0]["status"] == "ACTIVE"
    host.request("updateNotification", [uuid, "accept"])
    assert update_status(host.wait_event("onUpdateNotification")) == (100, 0)


def test_scenario_5_attempts_exhausted_is_153_then_logoff(deployment):
    host = logged_in_host(deployment)
    uuid = notify(deployment)
    host.request("updateNotification", [uuid, "accept"])
    for _ in range(3):
        host.wait_event("getPassword")
        host.request("setPassword", ["Wrong&Passw0rd9", 3])
    assert update_status(host.wait_event("onUpdateNotification"))[0] == 153
    assert host.wait_event("onUserLoggedOff")["params"]["userID"] == "alice"
    host.wait_event("getUser")
    assert deployment.admin("show-user", "alice")["openSessions"] == 0
    assert deployment.admin("notifications", "alice")[0]["status"] == "ACTIVE", "nothing recorded"


def test_an_expired_password_is_110_then_logoff(deployment):
    host = logged_in_host(deployment)
    deployment.admin("expire-password", "alice")
    uuid = notify(deployment)
    host.request("updateNotification", [uuid, "accept"])
    host.wait_event("getPassword")
    host.request("setPassword", [GOOD_PASSWORD, 3])
    assert update_status(host.wait_event("onUpdateNotification"))[0] == 110
    host.wait_event("onUserLoggedOff")
    host.wait_event("getUser")


def test_notification_errors_are_refused_and_change_nothing(deployment):
    host = logged_in_host(deployment)
    deployment.add_user("bob")
    mine = notify(deployment)
    theirs = notify(deployment, user="bob")
    for uuid, action, reason in [("no-such", "accept", "unknown"), (theirs, "accept", "unknown"), (mine, "maybe", "actionNotOffered")]:
        with pytest.raises(RPCError) as refused:
            host.request("updateNotification", [uuid, action])
        assert refused.value.code == -32013 and refused.value.data["reason"] == reason
    host.request("updateNotification", [mine, "reject"])
    host.wait_event("onUpdateNotification")
    with pytest.raises(RPCError) as twice:
        host.request("updateNotification", [mine, "accept"])
    assert twice.value.data["reason"] == "alreadyAnswered"
    host.request("getNotificationHistory", [0, "", 1, "", "", "UPDATED", "reject", "invoice", ""])
    history = host.wait_event("onGetNotificationsHistory")["params"]["pArgs"]["response"]["ResponseData"]["history"]
    assert [item["notification_uuid"] for item in history] == [mine]
    assert deployment.admin("notifications", "bob")[0]["status"] == "ACTIVE"


def test_a_logged_in_host_hears_of_a_new_notification_without_polling(deployment):
    host = logged_in_host(deployment)
    uuid = notify(deployment)
    assert host.wait_event("onNotificationReceived", timeout=5)["params"] == {"userID": "alice", "notification_uuid": uuid}


def test_notification_methods_need_a_logged_in_user(deployment):
    deployment.add_user("alice")
    host = deployment.host("device-1")
    host.wait_event("getUser")
    with pytest.raises(RPCError) as refused:
        host.request("getNotifications", [0, "", 1, "", ""])
    assert refused.value.code == -32006


def test_scenario_3_lda_cancelled_falls_back_to_the_password_without_an_error(deployment):
    # A password user adds a second device with LDA: that device has both enrolled.
    first = logged_in_host(deployment)
    second = deployment.host("device-2", lda=[1], lda_answer=None)
    second.on_request("platform/authenticateLDA", lambda params: {"authenticated": True})
    second.wait_event("getUser")
    second.request("setUser", ["alice"])
    second.wait_event("addNewDeviceOptions")
    second.request("performVerifyAuth", [True])
    approval = first.wait_event("onNotificationReceived", timeout=5)["params"]["notification_uuid"]
    first.request("updateNotification", [approval, "accept"])
    first.wait_event("getPassword")
    first.request("setPassword", [GOOD_PASSWORD, 3])
    consent = second.wait_event("getUserConsentForLDA", timeout=5)
    second.request("setUserConsentForLDA", [True, consent["params"]["challengeMode"], 1])
    second.wait_event("onUserLoggedIn")
    # Logged in with LDA, both enrolled: the user cancels the biometric prompt.
    second.on_request("platform/authenticateLDA", lambda params: {"authenticated": False})
    uuid = notify(deployment)
    second.request("updateNotification", [uuid, "accept"])
    fallback = second.wait_event("getPassword")
    assert fallback["params"]["challengeMode"] == 3 and status_of(fallback) == 100, "seamless: no error status"
    second.request("setPassword", [GOOD_PASSWORD, 3])
    assert update_status(second.wait_event("onUpdateNotification")) == (100, 0)


def test_an_expired_notification_is_refused_and_pages_are_the_sdks(deployment):
    import time
    host = logged_in_host(deployment)
    short = deployment.admin("notify", "alice", "--subject", "Soon gone", "--message", "m", "--action", "OK=ok",
                             "--expires-in", "10")["notification_uuid"]
    others = [notify(deployment) for _ in range(3)]
    host.request("getNotifications", [2, "", 2, "", ""])
    page = host.wait_event("onGetNotifications")["params"]["notificationResponse"]
    assert page["total"] == "4" and page["count"] == "2" and page["start"] == "2"
    assert [item["notification_uuid"] for item in page["notifications"]] == [others[1], others[0]], "newest first"
    time.sleep(10.5)
    with pytest.raises(RPCError) as refused:
        host.request("updateNotification", [short, "ok"])
    assert refused.value.data["reason"] == "expired"
    host.request("getNotificationHistory", [0, "", 1, "", "", "EXPIRED", "", "", ""])
    history = host.wait_event("onGetNotificationsHistory")["params"]["pArgs"]["response"]["ResponseData"]["history"]
    assert [item["notification_uuid"] for item in history] == [short]


def test_date_filters_bound_the_lists_and_bad_ones_are_refused(deployment):
    import datetime
    host = logged_in_host(deployment)
    made = [notify(deployment) for _ in range(2)]

    def listed(start_date, end_date, method="getNotifications"):
        if method == "getNotifications":
            host.request(method, [0, "", 1, start_date, end_date])
            return host.wait_event("onGetNotifications")["params"]["notificationResponse"]["notifications"]
        host.request(method, [0, "", 1, start_date, end_date, "", "", "", ""])
        return host.wait_event("onGetNotificationsHistory")["params"]["pArgs"]["response"]["ResponseData"]["history"]

    every = listed("", "")
    assert {item["notification_uuid"] for item in every} == set(made)
    newest, oldest = every[0]["create_ts"], every[-1]["create_ts"]  # the SDK's text: 2026-11-22T13:40:02UTC
    day = datetime.date.fromisoformat(oldest[:10])
    assert len(listed(day.isoformat(), newest[:10])) == 2, "whole days, both ends inclusive"
    assert listed("", (day - datetime.timedelta(days=1)).isoformat()) == []
    assert listed("", (day - datetime.timedelta(days=1)).isoformat(), "getNotificationHistory") == []
    later = datetime.date.fromisoformat(newest[:10]) + datetime.timedelta(days=1)
    assert listed(later.isoformat(), "") == []
    assert {item["notification_uuid"] for item in listed(newest, newest)} >= {every[0]["notification_uuid"]}, "an SDK create_ts is accepted"
    before = datetime.datetime.strptime(oldest, "%Y-%m-%dT%H:%M:%SUTC") - datetime.timedelta(seconds=1)
    assert listed("", before.strftime("%Y-%m-%dT%H:%M:%SZ")) == [], "an RFC 3339 instant, to the second"
    for start_date, end_date in [("22/11/2026", ""), ("2026-02-30", ""), ("", "2026-11-22T25:00:00Z"), (later.isoformat(), day.isoformat())]:
        with pytest.raises(RPCError) as refused:
            host.request("getNotifications", [0, "", 1, start_date, end_date])
        assert refused.value.code == -32602, (start_date, end_date)
    with pytest.raises(RPCError) as refused:
        host.request("getNotifications", [0, "", 0, "", ""])
    assert refused.value.code == -32602 and "startIndex" in refused.value.message


def test_history_filters_apply_before_the_page_is_cut(deployment):
    host = logged_in_host(deployment)
    oldest = deployment.admin("notify", "alice", "--subject", "Café bill", "--message", "m", "--action", "OK=ok")["notification_uuid"]
    newer = [notify(deployment, authlevel="0") for _ in range(2)]
    host.request("updateNotification", [oldest, "ok"])
    assert update_status(host.wait_event("onUpdateNotification")) == (100, 0)

    def history(*filters, start=1, count=1, device=""):
        host.request("getNotificationHistory", [count, "", start, "", "", *filters, device])
        return [item["notification_uuid"] for item in
                host.wait_event("onGetNotificationsHistory")["params"]["pArgs"]["response"]["ResponseData"]["history"]]

    assert history("UPDATED", "", "") == [oldest], "the newest page of one holds the newest match, not the newest item"
    assert history("", "ok", "") == [oldest]
    assert history("", "", "CAFÉ") == [oldest], "keywords ignore case, beyond ASCII too"
    assert history("ACTIVE", "", "", start=2) == [newer[0]]
    assert history("DISMISSED", "", "", count=0) == []
    assert history("", "", "", count=0, device="device-1") == [oldest], "deviceID: the device that answered"
    assert history("", "", "", count=0, device="device-9") == []
    with pytest.raises(RPCError) as refused:
        host.request("getNotificationHistory", [0, "", 1, "", "", "ANSWERED", "", "", ""])
    assert refused.value.code == -32602 and "notificationStatus" in refused.value.message


def test_a_dismissed_step_up_is_replaced_by_the_next_update(deployment):
    """Seed 001's app dismisses the step-up modal and lets the user try
    again: the next updateNotification replaces the stale step-up (no
    -32007, nothing recorded for the first, no error logged)."""
    host = logged_in_host(deployment)
    first, second = notify(deployment), notify(deployment)
    host.request("updateNotification", [first, "accept"])
    host.wait_event("getPassword")
    host.request("getNotifications", [0, "", 1, "", ""])  # a read is answered meanwhile
    assert host.wait_event("onGetNotifications")["params"]["notificationResponse"]["total"] == "2"
    host.request("updateNotification", [second, "accept"])
    ask = host.wait_event("getPassword")
    assert ask["params"]["challengeMode"] == 3 and ask["params"]["attemptsLeft"] == 3, "dismissing cost nothing"
    host.request("setPassword", [GOOD_PASSWORD, 3])
    done = host.wait_event("onUpdateNotification")
    assert update_status(done) == (100, 0) and done["params"]["pArgs"]["response"]["ResponseData"]["notification_uuid"] == second
    assert len([event for event in host.events if event["method"] == "onUpdateNotification"]) == 1, "the replaced one says nothing"
    statuses = {item["notification_uuid"]: item["status"] for item in deployment.admin("notifications", "alice")}
    assert statuses[first] == "ACTIVE" and statuses[second] == "UPDATED"
    assert "error" not in host.stderr_text().lower()


def test_a_step_up_left_unanswered_expires_with_121_and_no_internal_error(tmp_path, flowhost_bin, spawn):
    from conftest import CHEAP_CONFIG, Deployment
    config = json.loads(json.dumps(CHEAP_CONFIG))
    config["challengeTimeoutMs"] = 600
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    host = logged_in_host(deployment)
    uuid = notify(deployment)
    host.request("updateNotification", [uuid, "accept"])
    host.wait_event("getPassword")
    done = host.wait_event("onUpdateNotification", timeout=10)
    assert update_status(done) == (121, 0)
    assert "error" not in host.stderr_text().lower(), "an ordinary expiry is no internal error"
    host.request("updateNotification", [uuid, "accept"])
    host.wait_event("getPassword")
    host.request("setPassword", [GOOD_PASSWORD, 3])
    assert update_status(host.wait_event("onUpdateNotification")) == (100, 0), "the user may try again"


def test_every_step_up_event_fits_its_schema(deployment):
    host = logged_in_host(deployment)
    uuid = notify(deployment)
    validate("step-up.onNotificationReceived.params", host.wait_event("onNotificationReceived", timeout=5)["params"])
    host.request("getNotifications", [0, "", 1, "", ""])
    listed = host.wait_event("onGetNotifications")["params"]
    validate("step-up.onGetNotifications.params", listed)
    assert len(listed["notificationResponse"]["notifications"]) == 1
    host.request("updateNotification", [uuid, "accept"])
    host.wait_event("getPassword")
    host.request("setPassword", [GOOD_PASSWORD, 3])
    validate("step-up.onUpdateNotification.params", host.wait_event("onUpdateNotification")["params"])
    deployment.admin("notify", "alice", "--subject", "s", "--message", "m", "--action", "OK=ok")
    host.request("getNotificationHistory", [0, "", 1, "", "", "", "", "", ""])
    history = host.wait_event("onGetNotificationsHistory")["params"]
    validate("step-up.onGetNotificationsHistory.params", history)
    assert sorted(item["status"] for item in history["pArgs"]["response"]["ResponseData"]["history"]) == ["ACTIVE", "UPDATED"]


def test_a_session_that_times_out_mid_step_up_records_nothing_and_refuses_late_answers(tmp_path, flowhost_bin, spawn):
    from conftest import CHEAP_CONFIG, Deployment
    config = json.loads(json.dumps(CHEAP_CONFIG))
    config["sessions"] = {"idleTimeoutSeconds": 60, "lifetimeSeconds": 3}
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    host = logged_in_host(deployment)
    uuid = notify(deployment)
    host.request("updateNotification", [uuid, "accept"])
    host.wait_event("getPassword")
    host.wait_event("onSessionTimeout", timeout=6)
    host.wait_event("onUserLoggedOff")
    host.wait_event("getUser")
    with pytest.raises(RPCError) as late:
        host.request("setPassword", [GOOD_PASSWORD, 3])
    assert late.value.code in (-32003, -32004), "the step-up's challenge ended with the session"
    host.drain(0.5)
    assert not [event for event in host.events if event["method"] == "onUpdateNotification"], "the step-up was abandoned silently"
    assert [item["status"] for item in deployment.admin("notifications", "alice")] == ["ACTIVE"], "nothing recorded"
    assert deployment.admin("show-user", "alice")["passwordAttemptsLeft"] == 3


@pytest.mark.parametrize("ending, status", [("exhausted", 153), ("expired", 110)])
def test_the_host_ends_the_session_after_153_and_110_whatever_flow_asked(deployment, test_plugins, ending, status):
    """A C flow that calls stepup.authenticate and only reports the outcome
    (it never ends the session itself): the host ends the session, after the
    flow's report, as the spec says for 153 and 110."""
    code = deployment.add_user("alice")
    host = deployment.host("device-1", extra=("--plugins", test_plugins["c_caller"]))
    activate(host, "alice", code)
    if ending == "expired":
        deployment.admin("expire-password", "alice")
    assert deployment.admin("show-user", "alice")["openSessions"] == 1
    step = {"challengeMode": FLOW_STEP_UP, "reason": "payment"}
    assert host.request("ccaller.callAsync", {"service": "stepup.authenticate", "params": step})["rc"] == 0
    for _ in range(3 if ending == "exhausted" else 1):
        host.wait_event("getPassword")
        host.request("setPassword", ["Wrong&Passw0rd9" if ending == "exhausted" else GOOD_PASSWORD, FLOW_STEP_UP])
    done = host.wait_event("onCallerDone")
    assert done["params"]["result"]["outcome"] == ending, "the outcome behind %d" % status
    host.wait_event("onUserLoggedOff")
    host.wait_event("getUser")
    names = [event["method"] for event in host.events]
    assert names.index("onCallerDone") < names.index("onUserLoggedOff"), "the flow's report comes first"
    assert deployment.admin("show-user", "alice")["openSessions"] == 0
    assert host.request("ccaller.session") is None


def test_a_flow_from_elsewhere_steps_up_with_flowhosts_own_challenge_mode_and_no_other(deployment, test_plugins):
    """A C flow found through --plugins: an SDK mode (3, a notification's
    approval; 7, which no flow here runs) is refused before the step-up
    starts, so the client never sees it; mode 1000 reaches the client in a
    getPassword that fits its schema, and only setPassword(password, 1000)
    answers it."""
    code = deployment.add_user("alice")
    host = deployment.host("device-1", extra=("--plugins", test_plugins["c_caller"]))
    activate(host, "alice", code)
    seen = len(host.events)
    for mode in (3, 7):
        step = {"challengeMode": mode, "reason": "payment"}
        assert host.request("ccaller.callAsync", {"service": "stepup.authenticate", "params": step})["rc"] == -1
        with pytest.raises(RPCError) as refused:
            host.request("ccaller.call", {"service": "stepup.authenticate", "params": step})
        assert refused.value.code == INVALID_PARAMS and refused.value.data["field"] == "challengeMode"
    assert not [event for event in host.events[seen:] if event["method"] == "getPassword"], "no SDK mode reached the client"

    step = {"challengeMode": FLOW_STEP_UP, "reason": "payment"}
    assert host.request("ccaller.callAsync", {"service": "stepup.authenticate", "params": step})["rc"] == 0
    ask = host.wait_event("getPassword")
    assert ask["params"]["challengeMode"] == FLOW_STEP_UP and ask["params"]["attemptsLeft"] == 3
    validate("getPassword.params", ask["params"])
    with pytest.raises(RPCError) as mismatch:
        host.request("setPassword", [GOOD_PASSWORD, 3])
    assert mismatch.value.code == CHALLENGE_MISMATCH
    host.request("setPassword", [GOOD_PASSWORD, FLOW_STEP_UP])
    done = host.wait_event("onCallerDone")
    assert done["params"]["result"] == {"outcome": "authenticated", "verifiedBy": "password"}
