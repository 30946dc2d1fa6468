"""A real ID token from the OpenID provider `shared/tools/oidc-provider` started: the code flow
with PKCE done over HTTP as its login page does it, for `alice`, with the nonce given.

Usage: real_token.py PROVIDER_TOOL_DIR FIXTURE_JSON NONCE  (prints the token response's JSON)
"""

import base64
import hashlib
import json
import secrets
import sys
import urllib.parse

sys.path.insert(0, sys.argv[1])
import _common as C  # noqa: E402

info = json.load(open(sys.argv[2]))
nonce = sys.argv[3]
verifier = secrets.token_urlsafe(48)
challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
redirect = info["redirect_uris"][0]
url = info["authorization_endpoint"] + "?" + urllib.parse.urlencode({
    "response_type": "code", "client_id": info["client_id"], "redirect_uri": redirect,
    "scope": "openid profile email groups", "state": "s", "nonce": nonce,
    "code_challenge": challenge, "code_challenge_method": "S256"})
cookies = {}
status, headers, _ = C.request("GET", url, cookies=cookies)
assert status == 302, status
query = urllib.parse.parse_qs(urllib.parse.urlsplit(headers["Location"]).query)
callback = query["callback_url"][0]
status, _, _ = C.request("POST", info["base_url"] + "/api/auth/", cookies=cookies,
                         json_body={"username": "alice", "password": info["users"]["alice"]["password"]})
assert status == 200, status
status, headers, _ = C.request("GET", callback + ("&" if "?" in callback else "?") + "g_continue", cookies=cookies)
assert status == 302, status
code = urllib.parse.parse_qs(urllib.parse.urlsplit(headers["Location"]).query)["code"][0]
status, _, body = C.request("POST", info["token_endpoint"], basic_auth=(info["client_id"], info["client_secret"]),
                            form={"grant_type": "authorization_code", "code": code, "redirect_uri": redirect,
                                  "code_verifier": verifier})
assert status == 200, (status, body)
print(body.decode())
