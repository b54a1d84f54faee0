"""FlowHost's Python client: spawn `flowhost`, drive its flows over JSON-RPC
2.0 on stdin/stdout, with a typed method per request of the contract
(Protocol/openrpc.json). Standard library only.

    from flowhost_client import FlowHostClient
    with FlowHostClient(["flowhost"]) as host:
        host.initialize(device={"deviceID": "dev-1", "ldaCapabilities": [1]})
        host.on_request("platform/authenticateLDA", lambda params: {"authenticated": True})
        host.wait_event("getUser")
        host.set_user(userName="alice")
"""

from .client import PROTOCOL_VERSION, FlowHostClient, HostExited, RPCError
from .typed import CHALLENGES, EVENTS, HOST_REQUESTS

__all__ = ["FlowHostClient", "RPCError", "HostExited", "PROTOCOL_VERSION", "EVENTS", "CHALLENGES", "HOST_REQUESTS"]
