"""The issuer's key set (spec §19, "The issuer's keys"): a rotation in two
steps (stage, then activate once every machine holds the key), retired
keys that keep verifying what they signed, withdrawal that makes it read
`revoked`, and `admin check` failing on a machine that lacks a key."""

import base64
import os
import stat
import subprocess
import threading

import pytest

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from conftest import ON_POSTGRES, activate, store_environment, store_location
from test_data_signing import sign, signed


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def jwks(deployment):
    return {key["kid"]: key for key in deployment.admin("export-key", "--issuer", "--jwks")["keys"]}


def verifies(key, token):
    """Whether the JWK `key` verifies the compact JWS `token` (as any third party would)."""
    header, claims, signature = token.split(".")
    try:
        Ed25519PublicKey.from_public_bytes(unb64url(key["x"])).verify(unb64url(signature), (header + "." + claims).encode())
        return True
    except Exception:
        return False


def logged_in_and_signed(deployment, user, device):
    """A new host for `device`: `user` activated on it, one level-0 signature; (host, token, receipt)."""
    code = deployment.add_user(user)
    host = deployment.host(device)
    token = activate(host, user, code)["params"]["response"]["additionalInfo"]["jwtJsonTokenInfo"]
    sign(host)
    return host, token, signed(host)["receipt"]


def key_folder(deployment):
    return os.path.join(os.path.dirname(deployment.store), "issuer-keys") if ON_POSTGRES else deployment.store + ".issuer-keys"


def test_a_rotation_in_two_steps_keeps_what_each_key_signed_verifiable(deployment):
    host, first_token, first_receipt = logged_in_and_signed(deployment, "alice", "device-1")
    [first] = jwks(deployment).values()
    assert first["flowhostState"] == "active" and first["kid"] == first_receipt["issuer"]["keyID"]
    assert first["kty"] == "OKP" and first["crv"] == "Ed25519" and first["use"] == "sig" and first["alg"] == "EdDSA"
    assert verifies(first, first_token)

    staged = deployment.admin("rotate-issuer")
    assert staged["state"] == "staged" and staged["keyID"] != first["kid"]
    file = os.path.join(key_folder(deployment), staged["keyID"] + ".key")
    assert stat.S_IMODE(os.stat(file).st_mode) == 0o600 and stat.S_IMODE(os.stat(key_folder(deployment)).st_mode) == 0o700
    keys = jwks(deployment)
    assert {kid: key["flowhostState"] for kid, key in keys.items()} == {first["kid"]: "active", staged["keyID"]: "staged"}
    assert deployment.admin("export-key", "--issuer")["keyID"] == first["kid"], "a staged key does not sign"

    activated = deployment.admin("rotate-issuer", "--activate", staged["keyID"])
    assert activated["state"] == "active" and activated["activatedAt"] >= activated["createdAt"]
    assert deployment.admin("export-key", "--issuer")["keyID"] == staged["keyID"]
    keys = jwks(deployment)
    assert keys[first["kid"]]["flowhostState"] == "retired" and keys[staged["keyID"]]["flowhostState"] == "active"

    # A host that starts now signs with the new key; what the old one signed still holds.
    _, second_token, second_receipt = logged_in_and_signed(deployment, "bob", "device-2")
    assert second_receipt["issuer"]["keyID"] == staged["keyID"]
    assert verifies(keys[staged["keyID"]], second_token) and not verifies(keys[first["kid"]], second_token)
    assert verifies(keys[first["kid"]], first_token)
    for receipt in (first_receipt, second_receipt):
        assert deployment.admin("verify-signature", receipt["dataSignatureID"])["reason"] == "valid"
    check = host.request("verifyDataSignature", {"dataSignatureID": first_receipt["dataSignatureID"]})
    assert check["valid"]


def test_a_withdrawn_key_makes_what_it_signed_read_revoked_with_the_reason(deployment):
    _, _, receipt = logged_in_and_signed(deployment, "alice", "device-1")
    first = receipt["issuer"]["keyID"]
    refused = deployment.admin("withdraw-issuer", first, "--reason", "the laptop was stolen", check=False)
    assert refused.returncode == 1 and "is the active key: stage and activate another first" in refused.stderr

    second = deployment.admin("rotate-issuer")["keyID"]
    deployment.admin("rotate-issuer", "--activate", second)
    withdrawn = deployment.admin("withdraw-issuer", first, "--reason", "the laptop was stolen")
    assert withdrawn["state"] == "withdrawn" and withdrawn["withdrawnReason"] == "the laptop was stolen"
    assert first not in jwks(deployment), "a third party's key set drops it"

    out = deployment.admin("verify-signature", receipt["dataSignatureID"], check=False)
    assert out.returncode == 1
    import json
    verdict = json.loads(out.stdout)
    assert (verdict["valid"], verdict["reason"]) == (False, "revoked")
    assert verdict["detail"] == "the issuer key %s was withdrawn: the laptop was stolen" % first

    again = deployment.admin("withdraw-issuer", first, "--reason", "twice", check=False)
    assert again.returncode == 1 and "withdrawn already" in again.stderr


def test_one_staged_key_at_a_time_and_only_a_staged_key_activates(deployment):
    deployment.add_user("alice")
    active = deployment.admin("export-key", "--issuer")["keyID"]
    for wrong in (active, "0" * 32):
        out = deployment.admin("rotate-issuer", "--activate", wrong, check=False)
        assert out.returncode == 1 and "no staged issuer key %s" % wrong in out.stderr

    # Two operators staging at once: one key is staged, the other is told which.
    results = []
    environment = dict(os.environ, **store_environment(deployment.store))
    command = [deployment.bin, "admin", "rotate-issuer", "--store", store_location(deployment.store), "--config", deployment.config, "--json"]

    def stage():
        results.append(subprocess.run(command, capture_output=True, text=True, timeout=60, env=environment))
    threads = [threading.Thread(target=stage) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(result.returncode for result in results) == [0, 1], [result.stderr for result in results]
    assert "staged already" in next(r for r in results if r.returncode).stderr or "staged meanwhile" in next(r for r in results if r.returncode).stderr
    states = sorted(key["flowhostState"] for key in jwks(deployment).values())
    assert states == ["active", "staged"]
    files = os.listdir(key_folder(deployment))
    assert len(files) == 1, "the refused stage removed its file: %s" % files


def test_a_machine_without_the_staged_or_active_key_fails_the_check_and_cannot_activate(deployment):
    logged_in_and_signed(deployment, "alice", "device-1")
    staged = deployment.admin("rotate-issuer")["keyID"]
    file = os.path.join(key_folder(deployment), staged + ".key")
    kept = open(file, "rb").read()
    os.unlink(file)  # this machine, before the operator copied the staged key here

    def issuer_check():
        out = subprocess.run([deployment.bin, "admin", "check", "--store", store_location(deployment.store), "--config", deployment.config, "--json"],
                             capture_output=True, text=True, timeout=60, env=dict(os.environ, **store_environment(deployment.store)))
        import json
        return out.returncode, {item["name"]: item for item in json.loads(out.stdout)["checks"]}["issuer"]

    status, check = issuer_check()
    assert status == 1 and not check["ok"]
    assert check["detail"] == "the issuer's staged key %s is not on this machine: copy %s (mode 0600) from the machine that made it" % (staged, file)
    out = deployment.admin("rotate-issuer", "--activate", staged, check=False)
    assert out.returncode == 1 and "is not on this machine" in out.stderr
    assert deployment.admin("export-key", "--issuer")["keyID"] != staged

    fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, kept)
    os.close(fd)
    status, check = issuer_check()
    assert status == 0 and check["detail"].endswith("and the staged key %s" % staged)
    deployment.admin("rotate-issuer", "--activate", staged)
    assert issuer_check()[0] == 0


@pytest.mark.skipif(not ON_POSTGRES, reason="machines share a store only on PostgreSQL")
def test_a_second_machine_without_the_key_files_fails_the_check_and_signs_nothing(deployment, tmp_path):
    """Machine B: its own state folder, the same database. The first key was
    made on machine A; B has none of it until the operator copies it."""
    host, _, _ = logged_in_and_signed(deployment, "alice", "device-1")
    machine_b = tmp_path / "machine-b"
    machine_b.mkdir(mode=0o700)
    environment = dict(os.environ, FLOWHOST_STATE_DIR=str(machine_b))
    environment.update({key: value for key, value in store_environment(deployment.store).items() if key != "FLOWHOST_STATE_DIR"})
    command = [deployment.bin, "admin", "check", "--store", store_location(deployment.store), "--config", deployment.config, "--json"]
    import json
    out = subprocess.run(command, capture_output=True, text=True, timeout=60, env=environment)
    issuer = {item["name"]: item for item in json.loads(out.stdout)["checks"]}["issuer"]
    assert out.returncode == 1 and "is not on this machine: copy" in issuer["detail"]
    assert not os.path.exists(machine_b / "issuer.key"), "the check made no key of its own"

    # A host on B logs in, but makes no token with a key of its own: none that verifies elsewhere.
    code = deployment.add_user("bob")
    b_host = deployment.spawn_host("--store", deployment.store, "--config", deployment.config, env={"FLOWHOST_STATE_DIR": str(machine_b)})
    b_host.initialize(device={"deviceID": "device-b", "deviceName": "b", "ldaCapabilities": []})
    event = activate(b_host, "bob", code)
    assert "jwtJsonTokenInfo" not in event["params"]["response"]["additionalInfo"], event
    assert len(jwks(deployment)) == 1 and not os.path.exists(machine_b / "issuer.key"), "B made and registered no key"

    # The operator copies A's issuer key to B: B passes.
    folder = os.path.dirname(deployment.store)
    fd = os.open(str(machine_b / "issuer.key"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, open(os.path.join(folder, "issuer.key"), "rb").read())
    os.close(fd)
    assert subprocess.run(command, capture_output=True, text=True, timeout=60, env=environment).returncode == 0
