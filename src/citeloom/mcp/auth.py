"""MCP over HTTP beyond loopback: one shared bearer token (``CITELOOM_MCP_TOKEN``), checked
in constant time. Imports fastmcp's auth classes only when a token is used."""

from __future__ import annotations

from typing import Any


class BearerToken:
    """A TokenVerifier (fastmcp) accepting one shared secret, compared in constant time."""

    @staticmethod
    def make(token: str) -> Any:
        import hmac

        from fastmcp.server.auth import AccessToken, TokenVerifier

        class Verifier(TokenVerifier):
            async def verify_token(self, presented: str) -> AccessToken | None:
                if hmac.compare_digest(presented.encode(), token.encode()):
                    return AccessToken(token=presented, client_id="citeloom", scopes=[])
                return None

        return Verifier()


def is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
