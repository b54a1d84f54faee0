"""The after-test search for secrets (conftest's secret_hygiene) finds each
secret wherever it lies in a file or a stream, however many there are."""
from conftest import secrets_in, secrets_in_files


def test_every_secret_is_found_in_bytes_and_in_files(tmp_path):
    secrets = ["code-%06d" % n for n in range(5000)] + ["pass:word&1", "two\nlines", "é-accented"]
    data = b"\x00binary\xff code-004999 and pass:word&1 then two\nlines, \xc3\xa9-accented"
    assert secrets_in(secrets, data) == sorted(["code-004999", "pass:word&1", "two\nlines", "é-accented"])
    assert secrets_in(secrets, b"nothing here, code-49999 is not one") == []
    clean, leaky = tmp_path / "clean.log", tmp_path / "a:b.sqlite"
    clean.write_bytes(b"x" * 100000)
    leaky.write_bytes(b"\x00" * 70000 + b"code-000000\x00code-000001" + b"two\nlines")
    assert secrets_in_files(secrets, [str(clean), str(leaky)]) == [
        (str(leaky), "code-000000"), (str(leaky), "code-000001"), (str(leaky), "two\nlines")]
