#!/usr/bin/env python3
"""OpenID providers on 127.0.0.1 for the single sign-on tests (issue 29).

    oidc_provider.py real            oidc-provider-mock (PyPI), a real OpenID provider: Authlib's
                                     authorization code grant, RS256 ID tokens, its login form
    oidc_provider.py test-issuer     the test's own issuer: its own keys, which the test controls

Prints the port on its first stdout line; exits when stdin closes.

`real` is the provider every flow signs in at. It mints only well-formed tokens for the client
that asked, so what it will not make (an expired token, one signed with a key it does not
publish, one without a nonce, for another audience or from another issuer, ES256) comes from
`test-issuer`: a stand-in, in this file, with its own RSA and EC P-256 keys (joserfc, which
oidc-provider-mock brings). It is a provider as a client meets it: discovery, a JWKS,
`/authorize` answering at once with a code, and `/token`, which checks the client's secret
(client_secret_post only, as its discovery says), the code (once), the redirect URI and the
PKCE verifier against the S256 challenge (which oidc-provider-mock does not check), and answers
an ID token shaped by what the test asked for (POST /next):
    {"claims": {...}, "drop": ["nonce"], "alg": "ES256", "key": "unpublished", "tamper": "signature"}
("deny": true makes /authorize answer error=access_denied instead of a code, with the state.)
GET /stats counts the JWKS fetches; POST /rotate publishes another RSA key, "rsa-2";
POST /mint signs the claims given (for a test of the verifier without a sign-in).
"""
import base64
import hashlib
import json
import os
import secrets
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def serve_real():
    os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"
    import logging
    import warnings
    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    import werkzeug.serving
    import oidc_provider_mock
    app = oidc_provider_mock.app(require_nonce=True)
    server = werkzeug.serving.make_server("127.0.0.1", 0, app, threaded=True)
    print(server.server_port, flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    server.shutdown()


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Issuer:
    def __init__(self, client_id, client_secret):
        from joserfc.jwk import ECKey, RSAKey
        self.client_id, self.client_secret = client_id, client_secret
        self.keys = {
            "rsa-1": RSAKey.generate_key(2048, parameters={"kid": "rsa-1", "alg": "RS256", "use": "sig"}),
            "ec-1": ECKey.generate_key("P-256", parameters={"kid": "ec-1", "alg": "ES256", "use": "sig"}),
        }
        # Never published: a token it signs has a bad signature for every key of the set.
        self.unpublished = RSAKey.generate_key(2048, parameters={"kid": "rsa-1", "alg": "RS256", "use": "sig"})
        self.authorizations = {}
        self.next = {}
        self.jwks_fetches = 0
        self.token_requests = []
        self.lock = threading.Lock()

    def jwks(self):
        return {"keys": [key.as_dict(private=False) for key in self.keys.values()]}

    def rotate(self):
        from joserfc.jwk import RSAKey
        self.keys["rsa-2"] = RSAKey.generate_key(2048, parameters={"kid": "rsa-2", "alg": "RS256", "use": "sig"})

    def sign(self, claims, alg="RS256", key=None, tamper=None, kid=None):
        from joserfc import jwt
        if key == "unpublished":
            signing = self.unpublished
        else:
            signing = self.keys[key or ("ec-1" if alg == "ES256" else "rsa-1")]
        header = {"alg": alg, "kid": kid or signing.kid}
        token = jwt.encode(header, claims, signing, algorithms=[alg])
        if tamper == "signature":
            head, payload, signature = token.split(".")
            raw = bytearray(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)))
            raw[len(raw) // 2] ^= 0x01
            token = ".".join([head, payload, b64url(bytes(raw))])
        elif tamper == "payload":
            # Claims changed after signing (another audience written in): the signature no longer covers them.
            head, payload, signature = token.split(".")
            data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
            data["sub"] = data["sub"] + "-forged"
            token = ".".join([head, b64url(json.dumps(data).encode()), signature])
        return token


def serve_test_issuer(client_id, client_secret):
    issuer = Issuer(client_id, client_secret)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        @property
        def base(self):
            return f"http://127.0.0.1:{self.server.server_port}"

        def answer(self, status, body=None, headers=()):
            data = json.dumps(body).encode() if body is not None else b""
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            if body is not None:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def body(self):
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            query = dict(urllib.parse.parse_qsl(url.query))
            if url.path == "/.well-known/openid-configuration":
                return self.answer(200, {
                    "issuer": self.base, "authorization_endpoint": self.base + "/authorize",
                    "token_endpoint": self.base + "/token", "jwks_uri": self.base + "/jwks",
                    "token_endpoint_auth_methods_supported": ["client_secret_post"],
                    "id_token_signing_alg_values_supported": ["RS256", "ES256"],
                })
            if url.path == "/jwks":
                with issuer.lock:
                    issuer.jwks_fetches += 1
                    return self.answer(200, issuer.jwks())
            if url.path == "/authorize":
                code = secrets.token_urlsafe(16)
                with issuer.lock:
                    issuer.authorizations[code] = query
                    deny = issuer.next.pop("deny", False)
                answer = {"error": "access_denied", "error_description": "the person said no"} if deny else {"code": code}
                target = query["redirect_uri"] + "?" + urllib.parse.urlencode(answer | {"state": query.get("state", "")})
                return self.answer(302, headers=[("Location", target)])
            if url.path == "/stats":
                with issuer.lock:
                    return self.answer(200, {"jwks_fetches": issuer.jwks_fetches, "token_requests": issuer.token_requests})
            self.answer(404, {"error": "not_found"})

        def do_POST(self):
            url = urllib.parse.urlsplit(self.path)
            if url.path == "/token":
                form = dict(urllib.parse.parse_qsl(self.body().decode()))
                with issuer.lock:
                    issuer.token_requests.append({k: v for k, v in form.items() if k != "client_secret"}
                                                 | {"authorization": "Basic" if self.headers.get("Authorization") else None})
                    asked = issuer.authorizations.pop(form.get("code", ""), None)
                    shape, issuer.next = issuer.next, {}
                if form.get("client_id") != issuer.client_id or form.get("client_secret") != issuer.client_secret:
                    return self.answer(401, {"error": "invalid_client"})
                if asked is None or form.get("grant_type") != "authorization_code" or form.get("redirect_uri") != asked.get("redirect_uri"):
                    return self.answer(400, {"error": "invalid_grant"})
                challenge = b64url(hashlib.sha256(form.get("code_verifier", "").encode()).digest())
                if asked.get("code_challenge_method") != "S256" or challenge != asked.get("code_challenge"):
                    return self.answer(400, {"error": "invalid_grant", "error_description": "PKCE verifier does not match"})
                now = int(time.time())
                claims = {"iss": self.base, "sub": "test-subject", "aud": issuer.client_id, "iat": now, "exp": now + 300,
                          "nonce": asked.get("nonce"), "email": "tess@example.com", "email_verified": True,
                          "preferred_username": "tess"}
                claims.update(shape.get("claims", {}))
                for name in shape.get("drop", []):
                    claims.pop(name, None)
                token = issuer.sign(claims, alg=shape.get("alg", "RS256"), key=shape.get("key"), tamper=shape.get("tamper"),
                                    kid=shape.get("kid"))
                return self.answer(200, {"access_token": "at-" + secrets.token_urlsafe(8), "token_type": "Bearer",
                                         "expires_in": 300, "id_token": token})
            if url.path == "/next":
                with issuer.lock:
                    issuer.next = json.loads(self.body() or b"{}")
                return self.answer(204)
            if url.path == "/rotate":
                with issuer.lock:
                    issuer.rotate()
                return self.answer(204)
            if url.path == "/mint":
                shape = json.loads(self.body() or b"{}")
                with issuer.lock:
                    token = issuer.sign(shape["claims"], alg=shape.get("alg", "RS256"), key=shape.get("key"),
                                        tamper=shape.get("tamper"), kid=shape.get("kid"))
                return self.answer(200, {"token": token})
            self.answer(404, {"error": "not_found"})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_port, flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    server.shutdown()


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "real":
        serve_real()
    elif mode == "test-issuer":
        serve_test_issuer(os.environ.get("CLIENT_ID", "feedctl-test"), os.environ.get("CLIENT_SECRET", "test-secret"))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
