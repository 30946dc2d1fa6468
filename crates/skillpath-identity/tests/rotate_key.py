"""Rotates the signing key of the OpenID provider `shared/tools/oidc-provider` started: a new
RSA key from openssl, set through glewlwyd's admin API, so that new tokens name a key the old
key set lacks.

Usage: rotate_key.py PROVIDER_TOOL_DIR FIXTURE_JSON WORK_DIR
"""

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, sys.argv[1])
import _common as C  # noqa: E402

info = json.load(open(sys.argv[2]))
work = Path(sys.argv[3])
key, pub = work / "rotated.pem", work / "rotated.pub.pem"
subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", str(key)],
               check=True, capture_output=True)
subprocess.run(["openssl", "pkey", "-in", str(key), "-pubout", "-out", str(pub)], check=True, capture_output=True)
cookies = {}
status, _, _ = C.request("POST", info["base_url"] + "/api/auth/", cookies=cookies,
                         json_body={"username": info["admin"]["username"], "password": info["admin"]["password"]})
assert status == 200, status
status, _, body = C.request("GET", info["base_url"] + "/api/mod/plugin/oidc", cookies=cookies)
assert status == 200, status
plugin = json.loads(body)
plugin["parameters"]["key"] = key.read_text()
plugin["parameters"]["cert"] = pub.read_text()
status, _, body = C.request("PUT", info["base_url"] + "/api/mod/plugin/oidc", cookies=cookies, json_body=plugin)
assert status == 200, (status, body)
# The plugin keeps its key until it is reset.
status, _, body = C.request("PUT", info["base_url"] + "/api/mod/plugin/oidc/reset", cookies=cookies)
assert status == 200, (status, body)
print("rotated")
