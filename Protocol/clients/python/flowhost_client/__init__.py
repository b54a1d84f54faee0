"""FlowHost's Python client: spawn `flowhost`, drive its flows over JSON-RPC
2.0 on stdin/stdout, with a typed method per request of the contract
(Protocol/openrpc.json). Standard library only.

    from flowhost_client import FlowHostClient
    with FlowHostClient(["flowhost"]) as host:
        host.initialize(device={"deviceID": "dev-1", "ldaCapabilities": [1]})
        host.on_request("platform/authenticateLDA", lambda params: {"authenticated": True})
        host.next_event("getUser")       # a GetUserEvent
        host.set_user(userName="alice")
        challenge = host.next_event("getPassword")
        challenge.challengeMode, challenge.status_code   # typed attributes
"""

from .client import PROTOCOL_VERSION, FlowHostClient, HostExited, RPCError
from .typed import CHALLENGES, EVENT_TYPES, EVENTS, HOST_REQUESTS, Event, typed_event

__all__ = ["FlowHostClient", "RPCError", "HostExited", "PROTOCOL_VERSION", "EVENTS", "CHALLENGES", "HOST_REQUESTS",
           "Event", "EVENT_TYPES", "typed_event"]
