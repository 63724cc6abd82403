"""The request guard's decisions, one by one (the attacks over loopback are in tests/security/)."""

from __future__ import annotations

import pytest

from agentgym.serve.guard import GuardSettings, check_bind, guard_for, is_loopback
from agentgym.serve.run import access_for


@pytest.mark.parametrize(("host", "ok"), [
    ("127.0.0.1:8000", True), ("localhost:8000", True), ("LOCALHOST", True), ("[::1]:9", True),
    ("127.0.0.1", True),
    ("evil.example:8000", False), ("127.0.0.1.evil.example:80", False),
    ("localhost:80@evil", False),
    ("localhost:abc", False), ("[::1", False), ("", False), (None, False), ("::1", False),
])
def test_host_names_on_a_loopback_bind(host, ok):
    assert GuardSettings().host_ok(host) is ok


@pytest.mark.parametrize(("origin", "ok"), [
    (None, True), ("HTTP://LOCALHOST:8000", True), ("http://[::1]:8000", True),
    ("http://127.0.0.1:8000", True), ("http://127.0.0.1:08000", True),
    ("http://127.0.0.1:3000", False), ("http://localhost", False),  # another port: another site
    ("http://evil.example", False), ("null", False), ("http://localhost.evil.example", False),
    ("https://localhost:8000", False), ("http://localhost:80/path", False),
    ("http://localhost:8000.evil", False), ("file://", False), ("", False),
])
def test_origins(origin, ok):
    """On a server listening on port 8000, only its own origin passes (issue 35)."""
    assert GuardSettings().origin_ok(origin, 8000) is ok


def test_origins_without_a_known_port_need_an_explicit_entry():
    assert not GuardSettings().origin_ok("http://localhost:8000")
    assert GuardSettings(allowed_origins=("http://localhost:8000",)).origin_ok(
        "http://localhost:8000")


def test_tokens():
    settings = GuardSettings(token="abc")
    assert settings.token_ok("Bearer abc") and settings.token_ok("bearer abc")
    for header in (None, "", "Bearer", "Bearer abd", "Basic abc", "Bearer abcd", "abc"):
        assert not settings.token_ok(header), header
    assert GuardSettings().token_ok(None)


def test_binds_and_tokens_are_decided_in_one_place(monkeypatch):
    monkeypatch.delenv("AGENTGYM_SERVE_TOKEN", raising=False)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("[::1]")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.org")
    with pytest.raises(ValueError, match="--allow-public"):
        check_bind("0.0.0.0", allow_public=False)
    loopback = access_for("127.0.0.1")
    assert loopback.guard.token is None and not loopback.generated_token
    public = access_for("0.0.0.0", allow_public=True)
    assert public.generated_token and len(public.guard.token or "") >= 32
    assert public.guard.allowed_hosts is None  # any name: the token protects it
    monkeypatch.setenv("AGENTGYM_SERVE_TOKEN", "from-env")
    assert access_for("0.0.0.0", allow_public=True).guard.token == "from-env"
    assert access_for("127.0.0.1").guard.token == "from-env"  # given: required on loopback too
    with pytest.raises(ValueError, match="token"):
        guard_for("10.0.0.1")
