"""Languages (spec §22, "Languages"): setSDKLanguage → onSetLanguageResponse,
and every message a host sends in the language set, from the PO catalogs
(Protocol/locale), while every code stays the same."""

import os

import pytest

from conftest import GOOD_PASSWORD, activate, status_of, wait_until
from flowhost_client import RPCError
from schemas import validate

DEVICE = {"deviceID": "device-1", "deviceName": "Phone", "ldaCapabilities": []}


def set_language(host, code, direction=0):
    assert host.request("setSDKLanguage", {"localeCode": code, "languageDirection": direction}) is None
    event = host.wait_event("onSetLanguageResponse")
    validate("mfa.onSetLanguageResponse.params", event["params"])
    assert event["params"]["status"]["statusCode"] == 100 and event["params"]["error"]["longErrorCode"] == 0
    return event["params"]


def refused(host, method, params):
    with pytest.raises(RPCError) as error:
        host.request(method, params)
    return error.value


def test_french_changes_the_words_never_the_codes(deployment):
    users = {"en": "ann", "fr": "amy"}
    activate(deployment.host("device-en"), "ann", deployment.add_user("ann"))
    activate(deployment.host("device-fr"), "amy", deployment.add_user("amy"))
    english, french = deployment.host("device-en"), deployment.host("device-fr")
    for host in (english, french):
        host.wait_event("getUser")
    answer = set_language(french, "fr", 0)
    assert answer["localeCode"] == "fr" and answer["localeName"] == "Français" and answer["isFallback"] is False
    assert answer["status"]["statusMessage"] == "La langue est désormais : Français."
    for host in (english, french):
        host.request("setUser", ["nobody"])
    unknown = {name: host.wait_event("getUser")["params"]["response"]["status"] for name, host in (("en", english), ("fr", french))}
    assert unknown["en"]["statusCode"] == unknown["fr"]["statusCode"] == 101
    assert unknown["en"]["statusMessage"] == "Invalid user: nobody is not known."
    assert unknown["fr"]["statusMessage"] == "Utilisateur invalide : nobody est inconnu."

    # A wrong password: the same 102 and attempts, in French.
    for name, host in (("en", english), ("fr", french)):
        host.request("setUser", [users[name]])
        host.wait_event("getPassword")
        host.request("setPassword", ["Wrong&Passw0rd", 0])
    wrong = {name: host.wait_event("getPassword")["params"] for name, host in (("en", english), ("fr", french))}
    assert status_of({"params": wrong["en"]}) == status_of({"params": wrong["fr"]}) == 102
    assert wrong["en"]["attemptsLeft"] == wrong["fr"]["attemptsLeft"] == 2
    assert wrong["en"]["response"]["status"]["statusMessage"] == "Invalid password."
    assert wrong["fr"]["response"]["status"]["statusMessage"] == "Mot de passe invalide."
    assert wrong["fr"]["error"]["errorString"] == "Succès" and wrong["en"]["error"]["errorString"] == "Success"

    # Errors: a flow's (-32006) and the host's own (-32601): the same code and data, the words translated.
    flow_errors = [refused(host, "logOff", ["zoe"]) for host in (english, french)]
    assert flow_errors[0].code == flow_errors[1].code and flow_errors[0].data == flow_errors[1].data
    assert flow_errors[0].message == "zoe is not logged in on this device"
    assert flow_errors[1].message == "zoe n'est pas connecté sur cet appareil"
    host_errors = [refused(host, "noSuchMethod", {}) for host in (english, french)]
    assert host_errors[0].code == host_errors[1].code == -32601 and host_errors[0].data == host_errors[1].data
    assert host_errors[0].message == "Method not found: noSuchMethod"
    assert host_errors[1].message == "Méthode introuvable: noSuchMethod"

    # Back to English: the host's own words again.
    assert set_language(french, "en-GB")["localeCode"] == "en"
    assert refused(french, "noSuchMethod", {}).message == "Method not found: noSuchMethod"


def test_a_policy_violation_is_translated_and_machine_readable(deployment):
    codes = {name: deployment.add_user(name) for name in ("bea", "cid")}
    english, french = deployment.host("device-b"), deployment.host("device-c")
    for host in (english, french):
        host.wait_event("getUser")
    assert set_language(french, "fr-CA")["localeCode"] == "fr"
    asked = {}
    for name, host in (("bea", english), ("cid", french)):
        host.request("setUser", [name])
        host.wait_event("getActivationCode")
        host.request("setActivationCode", [codes[name]])
        host.wait_event("getDeviceName")
        host.request("setDeviceName", ["Phone"])
        assert host.wait_event()["method"] == "getPassword"
        host.request("setPassword", ["short1!", 1])
        asked[name] = host.wait_event("getPassword")["params"]
        validate("getPassword.params", asked[name])
    assert status_of({"params": asked["bea"]}) == status_of({"params": asked["cid"]}) == 190
    expected = [{"rule": "minL", "limit": 8}, {"rule": "minUc", "limit": 1}]
    assert asked["bea"]["policyViolations"] == asked["cid"]["policyViolations"] == expected
    assert asked["bea"]["response"]["status"]["statusMessage"] == \
        "The password does not meet the password policy: shorter than 8 characters; fewer than 1 upper-case letters."
    assert asked["cid"]["response"]["status"]["statusMessage"] == \
        "Le mot de passe ne respecte pas la politique de mots de passe : moins de 8 caractères ; moins de 1 majuscules."
    for name, host in (("bea", english), ("cid", french)):
        host.request("setPassword", [GOOD_PASSWORD, 1])
        assert host.wait_event("onUserLoggedIn")["params"]["response"]["status"]["statusCode"] == 100


def test_an_unknown_language_falls_back_to_english_and_says_so(deployment):
    host = deployment.host()
    host.wait_event("getUser")
    answer = set_language(host, "de-AT")
    assert answer["localeCode"] == "en" and answer["requestedLocaleCode"] == "de-AT" and answer["isFallback"] is True
    assert answer["status"]["statusMessage"] == "No catalog for de-AT; English is used."
    host.request("setUser", ["nobody"])
    assert host.wait_event("getUser")["params"]["response"]["status"]["statusMessage"] == "Invalid user: nobody is not known."


def test_the_direction_is_echoed(deployment):
    host = deployment.host()
    answer = set_language(host, "ar", 1)
    assert answer["languageDirection"] == 1 and answer["isFallback"] is True
    assert set_language(host, "fr", 1)["languageDirection"] == 1
    assert set_language(host, "fr", 0)["languageDirection"] == 0


@pytest.mark.parametrize("params, field", [
    ({"localeCode": "fr!", "languageDirection": 0}, "localeCode"),
    ({"localeCode": "../../etc/passwd", "languageDirection": 0}, "localeCode"),
    ({"localeCode": "", "languageDirection": 0}, "localeCode"),
    ({"localeCode": "f" * 40, "languageDirection": 0}, "localeCode"),
    ({"localeCode": "fr", "languageDirection": 2}, "languageDirection"),
    ({"localeCode": "fr", "languageDirection": "rtl"}, "languageDirection"),
    ({"localeCode": 7, "languageDirection": 0}, "localeCode"),
    ({"localeCode": "fr"}, "languageDirection"),
])
def test_bad_input_is_refused_and_changes_nothing(deployment, params, field):
    host = deployment.host()
    set_language(host, "fr")
    error = refused(host, "setSDKLanguage", params)
    assert error.code == -32602 and error.data["field"] == field
    assert not [event for event in host.events if event["method"] == "onSetLanguageResponse"][1:]
    assert refused(host, "noSuchMethod", {}).message.startswith("Méthode introuvable")


def test_a_broken_catalog_falls_back_to_english_and_is_read_only_when_asked(deployment, tmp_path):
    folder = tmp_path / "locale"
    folder.mkdir()
    (folder / "fr.po").write_text('msgid "a"\nmsgstr "b\n', encoding="utf-8")
    host = deployment.host(env={"FLOWHOST_LOCALE_DIR": str(folder), "FLOWHOST_LOG_LEVEL": "info"})
    host.wait_event("getUser")
    assert "message catalog" not in host.stderr_text()  # nothing read at start
    answer = set_language(host, "fr")
    assert answer["localeCode"] == "en" and answer["isFallback"] is True
    assert answer["status"]["statusMessage"] == "The catalog for fr could not be read; English is used."
    assert wait_until(lambda: "fr.po is not a valid PO file: line 2" in host.stderr_text(), timeout=5)
    host.request("setUser", ["nobody"])
    assert host.wait_event("getUser")["params"]["response"]["status"]["statusMessage"] == "Invalid user: nobody is not known."


@pytest.mark.parametrize("isolated", [False, True], ids=["in-process", "isolated"])
def test_a_c_flow_speaks_the_language_through_the_abi(deployment, isolated):
    extra = ["--examples"] + (["--isolate", "echo"] if isolated and os.environ.get("FLOWHOST_TEST_ISOLATE") != "all" else [])
    host = deployment.spawn_host("--store", deployment.store, "--config", deployment.config, *extra)
    host.initialize(device=DEVICE)
    english = refused(host, "echo.subscribe", {"topic": "sessions.ended"})
    set_language(host, "fr")
    french = refused(host, "echo.subscribe", {"topic": "sessions.ended"})
    assert english.code == french.code == -32016 and english.data == french.data
    assert english.message == "not permitted: the echo flow may use only its own topics (echo.…)"
    assert french.message == "non autorisé : le flux echo ne peut utiliser que ses propres sujets (echo.…)"


def initialize_with(deployment, options):
    host = deployment.spawn_host("--store", deployment.store, "--config", deployment.config)
    params = {"protocolVersion": "1.1", "clientInfo": {"name": "test", "version": "1"}, "device": DEVICE, "initOptions": options}
    return host, params


def test_initialize_sets_the_language_before_the_first_event(deployment):
    options = {"internationalizationOptions": {"localeCode": "fr", "localeName": "French", "languageDirection": 0},
               "permissionOptions": {"isLocationPermissionRequired": False}}
    host, params = initialize_with(deployment, options)
    result = host.request("initialize", params)
    validate("initialize.result", result)
    assert result["language"] == {"localeCode": "fr", "isFallback": False}
    get_user = host.wait_event("getUser")["params"]
    assert get_user["response"]["status"]["statusMessage"] == "Succès"
    host.request("setUser", ["nobody"])
    assert host.wait_event("getUser")["params"]["response"]["status"]["statusMessage"] == "Utilisateur invalide : nobody est inconnu."


@pytest.mark.parametrize("language, field", [
    ({"localeCode": "fr!", "languageDirection": 0}, "initOptions.internationalizationOptions.localeCode"),
    ({"localeCode": "fr", "languageDirection": 5}, "initOptions.internationalizationOptions.languageDirection"),
    ({"languageDirection": 0}, "initOptions.internationalizationOptions.localeCode"),
    ("fr", "initOptions.internationalizationOptions"),
])
def test_initialize_refuses_bad_language_options(deployment, language, field):
    host, params = initialize_with(deployment, {"internationalizationOptions": language})
    error = refused(host, "initialize", params)
    assert error.code == -32602 and error.data["field"] == field
    params.pop("initOptions")
    assert "language" not in host.request("initialize", params)
    assert host.wait_event("getUser")["params"]["response"]["status"]["statusMessage"] == "Success"
