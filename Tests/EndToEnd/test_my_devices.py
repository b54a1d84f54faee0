"""My devices (issue 53.2): getRegisteredDeviceDetails and updateDeviceDetails
in the step-up flow, for the logged-in user only. A rename is one call; a
deletion needs a step-up (challengeMode 3), revokes the device's key and ends
its sessions on every host; the cooling period after a device joins refuses
both with 146 and its end; the operator's admin devices shows the same fields."""

import json
import time

import pytest

from conftest import CHEAP_CONFIG, GOOD_PASSWORD, Deployment, activate, join_with_operator_code as join
from schemas import validate

NO_COOLING = dict(CHEAP_CONFIG, devices={"coolingPeriodSeconds": 0})
SDK_FIELDS = {"devUUID", "devName", "status", "lastAccessedTs", "lastAccessedTsEpoch", "createdTs", "createdTsEpoch", "appUuid",
              "currentDevice", "devBind"}


@pytest.fixture
def devices_deployment(tmp_path, flowhost_bin, spawn):
    """A deployment without the cooling period (its own test turns it on)."""
    return Deployment(str(tmp_path), flowhost_bin, spawn, config=NO_COOLING)


def two_devices(deployment, user="alice"):
    phone = deployment.host("phone")
    activate(phone, user, deployment.add_user(user))
    return phone, join(deployment, user, "laptop")


def listed(host, user="alice"):
    host.request("getRegisteredDeviceDetails", [user])
    event = host.wait_event("onGetRegistredDeviceDetails")
    validate("step-up.onGetRegistredDeviceDetails.params", event["params"])
    response = event["params"]["pArgs"]["response"]
    return response["StatusCode"], response["ResponseData"]


def devices_json(data, uuid, status, name=None):
    """The SDK's payload: the devices as listed, the one to change marked."""
    items = []
    for device in data["device"]:
        item = dict(device)
        if device["devUUID"] == uuid:
            item["status"] = status
            if name is not None:
                item["devName"] = name
        items.append(item)
    return json.dumps({"device": items})


def updated(host):
    event = host.wait_event("onUpdateDeviceDetails")
    validate("step-up.onUpdateDeviceDetails.params", event["params"])
    return event["params"]["pArgs"]["response"]["ResponseData"]


def delete(host, data, uuid, user="alice", password=GOOD_PASSWORD):
    host.request("updateDeviceDetails", [user, devices_json(data, uuid, "Delete")])
    ask = host.wait_event("getPassword")
    assert ask["params"]["challengeMode"] == 3, "the step-up's password, as for a notification's action"
    host.request("setPassword", [password, 3])
    return updated(host)


def password_asks(host):
    return [line for direction, line in host.transcript if direction == "<-" and '"getPassword"' in line]


def admin_devices(deployment, user="alice"):
    return {device["devUUID"]: device for device in deployment.admin("devices", user)}


def test_the_list_has_the_sdks_fields_and_marks_the_current_device(devices_deployment):
    phone, laptop = two_devices(devices_deployment)
    status, data = listed(phone)
    assert status == 100
    assert data["deviceManagementCoolingPeriodEndTimestamp"] == 0, "no cooling period in this config"
    by_id = {device["devUUID"]: device for device in data["device"]}
    assert set(by_id) == {"phone", "laptop"}
    for device in by_id.values():
        assert SDK_FIELDS <= set(device)
        assert device["status"] == "ACTIVE" and device["devBind"] == 0
        assert device["createdTs"].endswith("UTC") and device["createdTsEpoch"] <= time.time() + 1
    assert by_id["phone"]["currentDevice"] is True and by_id["laptop"]["currentDevice"] is False
    assert by_id["phone"]["devName"] == "Phone phone"
    # The other device sees itself as the current one.
    assert {device["devUUID"]: device["currentDevice"] for device in listed(laptop)[1]["device"]} == {"phone": False, "laptop": True}
    # The operator sees the same fields (and the key's public half besides).
    shown = admin_devices(devices_deployment)
    for uuid, device in by_id.items():
        for field in SDK_FIELDS - {"currentDevice"}:
            assert shown[uuid][field] == device[field], field
        assert shown[uuid]["deviceManagementCoolingPeriodEndTimestamp"] == 0
        assert shown[uuid]["keyID"]


def test_a_rename_needs_no_step_up_and_shows_everywhere(devices_deployment):
    phone, _ = two_devices(devices_deployment)
    _, data = listed(phone)
    phone.request("updateDeviceDetails", ["alice", devices_json(data, "laptop", "Update", "Work laptop")])
    result = updated(phone)
    assert result["status_code"] == 100 and result["dev_uuid"] == "laptop"
    assert {device["devUUID"]: device["devName"] for device in listed(phone)[1]["device"]}["laptop"] == "Work laptop"
    assert admin_devices(devices_deployment)["laptop"]["devName"] == "Work laptop"


def test_another_users_devices_are_neither_listed_nor_changed(devices_deployment):
    phone, _ = two_devices(devices_deployment)
    bob = devices_deployment.host("bobs-phone")
    activate(bob, "bob", devices_deployment.add_user("bob"))
    # Another user's id: 101, with nothing of theirs, whether or not they exist.
    for other in ["bob", "nobody"]:
        status, data = listed(phone, other)
        assert status == 101 and "device" not in data
    _, bobs = listed(bob, "bob")
    for payload in [devices_json(bobs, "bobs-phone", "Delete"), devices_json(bobs, "bobs-phone", "Update", "mine now")]:
        phone.request("updateDeviceDetails", ["bob", payload])
        assert updated(phone)["status_code"] == 101
        # Bob's device under alice's own id: not one of hers (116), and no password is asked for it.
        asked = len(password_asks(phone))
        phone.request("updateDeviceDetails", ["alice", payload])
        assert updated(phone)["status_code"] == 116 and len(password_asks(phone)) == asked
    device = admin_devices(devices_deployment, "bob")["bobs-phone"]
    assert device["status"] == "ACTIVE" and device["devName"] == "Phone bobs-phone" and device["keyRevokedTs"] is None


def test_the_cooling_period_refuses_changes_with_146_and_its_end(deployment):
    # The default config: the cooling period is on.
    phone, _ = two_devices(deployment)
    status, data = listed(phone)
    newest = max(device["createdTsEpoch"] for device in data["device"])
    end = data["deviceManagementCoolingPeriodEndTimestamp"]
    assert status == 100 and newest + 86_400 <= end <= newest + 86_400 + 2, "a day after the newest device joined"
    asked = len(password_asks(phone))
    phone.request("updateDeviceDetails", ["alice", devices_json(data, "laptop", "Delete")])
    refused = updated(phone)
    assert refused["status_code"] == 146 and refused["deviceManagementCoolingPeriodEndTimestamp"] == end
    assert len(password_asks(phone)) == asked, "no password asked for"
    phone.request("updateDeviceDetails", ["alice", devices_json(data, "laptop", "Update", "renamed")])
    assert updated(phone)["status_code"] == 146
    laptop = admin_devices(deployment)["laptop"]
    assert laptop["status"] == "ACTIVE" and laptop["devName"] == "Phone laptop" and laptop["keyRevokedTs"] is None
    assert laptop["deviceManagementCoolingPeriodEndTimestamp"] == end


def test_a_delete_without_the_step_up_changes_nothing(devices_deployment):
    phone, _ = two_devices(devices_deployment)
    _, data = listed(phone)
    phone.request("updateDeviceDetails", ["alice", devices_json(data, "laptop", "Delete")])
    for _ in range(3):
        ask = phone.wait_event("getPassword")
        assert ask["params"]["challengeMode"] == 3
        phone.request("setPassword", ["Wrong&Passw0rd9", 3])
    result = updated(phone)
    assert result["status_code"] == 153, "attempts exhausted: refused, then logoff (and the password's block, 141)"
    phone.wait_event("onUserLoggedOff")
    device = admin_devices(devices_deployment)["laptop"]
    assert device["status"] == "ACTIVE" and device["keyRevokedTs"] is None


def test_a_deleted_device_is_logged_off_on_its_host_and_its_key_is_refused(devices_deployment):
    phone, laptop = two_devices(devices_deployment)
    _, data = listed(phone)
    result = delete(phone, data, "laptop")
    assert result["status_code"] == 100 and result["dev_uuid"] == "laptop"
    off = laptop.wait_event("onUserLoggedOff", timeout=5)
    assert off["params"]["userID"] == "alice", "the deleted device's session ends on its own host, through the feed"
    assert [device["devUUID"] for device in listed(phone)[1]["device"]] == ["phone"]
    shown = admin_devices(devices_deployment)["laptop"]
    assert shown["status"] == "DELETE" and shown["keyRevokedTs"] is not None
    # At its next login the laptop's key is refused: it is a new device again.
    again = devices_deployment.host("laptop")
    assert again.wait_event("getUser")["params"]["userNames"] == []
    again.request("setUser", ["alice"])
    assert again.wait_event()["method"] == "addNewDeviceOptions"


def test_the_current_device_may_delete_itself_but_not_the_last_one(devices_deployment):
    phone, laptop = two_devices(devices_deployment)
    _, data = listed(laptop)
    assert delete(laptop, data, "laptop")["status_code"] == 100
    laptop.wait_event("onUserLoggedOff", timeout=5)
    # The phone is now alice's only device: deleting it would leave no way in.
    _, data = listed(phone)
    refused = delete(phone, data, "phone")
    assert refused["status_code"] == 116 and "only active device" in refused["message"]
    assert admin_devices(devices_deployment)["phone"]["status"] == "ACTIVE"
    assert listed(phone)[0] == 100, "still logged in"


def test_device_methods_need_a_logged_in_user_and_one_change_a_call(devices_deployment):
    phone, _ = two_devices(devices_deployment)
    _, data = listed(phone)
    from flowhost_client import RPCError
    both = json.loads(devices_json(data, "laptop", "Delete"))
    next(item for item in both["device"] if item["devUUID"] == "phone")["status"] = "Update"
    with pytest.raises(RPCError) as bad:
        phone.request("updateDeviceDetails", ["alice", json.dumps(both)])
    assert bad.value.code == -32602
    with pytest.raises(RPCError) as bad_name:
        phone.request("updateDeviceDetails", ["alice", devices_json(data, "laptop", "Update", "x" * 1000)])
    assert bad_name.value.code == -32602, "the host's device-name rule"
    phone.request("logOff", ["alice"])
    phone.wait_event("onUserLoggedOff")
    with pytest.raises(RPCError) as refused:
        phone.request("getRegisteredDeviceDetails", ["alice"])
    assert refused.value.code == -32006
