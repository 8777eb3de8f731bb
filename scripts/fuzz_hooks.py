"""Schemathesis hooks of `npm run fuzz` (scripts/fuzz.ts), loaded through SCHEMATHESIS_HOOKS.

- Authentication (docs/design.md §4 Tokens): a client-credentials token from `POST /oauth2/token`
  (HTTP Basic with FUZZ_CLIENT_ID / FUZZ_CLIENT_SECRET), sent as `Authorization: Bearer <token>` on every
  operation but the token endpoint itself, which gets the client's HTTP Basic credentials. The token lives
  3600 s; it is fetched again after FUZZ_TOKEN_REFRESH_SECONDS (default 3000) and after a 401.
- Checks beyond Schemathesis' own (docs/design.md §4 Errors): every 4xx body is Shape A (`application/json`;
  developerMessage, httpStatusCode = the status as text, defaultUserMessage, userMessageGlobalisationCode,
  errors[]), except on the AI session output routes, which answer Shape B (RFC 9457
  `application/problem+json`: type, title, status = the status, code, detail, requestId), and the token
  endpoint, whose 400/401 are RFC 6749 §5.2 (`{error, error_description}`; its other 4xx are Shape A).
- Counting: every response by status class and every failure by kind, written as JSON to FUZZ_COUNTS_FILE
  when the run ends. After FUZZ_TIME_LIMIT_SECONDS the run is interrupted (as Ctrl-C would), which ends it
  with its summary.
- A well-formed Idempotency-Key is made unique per request (`before_call`).
"""

from __future__ import annotations

import _thread
import atexit
import base64
import json
import os
import re
import threading
from collections import Counter

import requests
import schemathesis

BASE_URL = os.environ["FUZZ_BASE_URL"]
CLIENT_ID = os.environ["FUZZ_CLIENT_ID"]
CLIENT_SECRET = os.environ["FUZZ_CLIENT_SECRET"]
SCOPE = os.environ["FUZZ_SCOPE"]
COUNTS_FILE = os.environ["FUZZ_COUNTS_FILE"]
ERROR_LOG = os.environ.get("FUZZ_ERROR_LOG")
TIME_LIMIT_SECONDS = float(os.environ.get("FUZZ_TIME_LIMIT_SECONDS", "0"))
TOKEN_REFRESH_SECONDS = int(os.environ.get("FUZZ_TOKEN_REFRESH_SECONDS", "3000"))

TENANT = os.environ["FUZZ_TENANT"]
TENANT_PATTERN = re.compile(r"^[a-z0-9-]{1,64}$")
TOKEN_PATH = "/oauth2/token"
# docs/design.md §5 "Error details", Shape B (problem style) is the error body of the AI session outputs.
SHAPE_B_PATH = re.compile(r"^/v1/servicing/ai-sessions/\{[^}]+\}/outputs(/|$)")
# The service's Idempotency-Key rule (api/openapi.ts): 1-50 printable ASCII, no comma, no space at either end.
IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x2b\x2d-\x7e]([\x20-\x2b\x2d-\x7e]{0,48}[\x21-\x2b\x2d-\x7e])?$")
BASIC = "Basic " + base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()

_lock = threading.Lock()
_statuses: Counter[str] = Counter()
_codes: Counter[str] = Counter()
_failures: Counter[str] = Counter()
_accepted_failures: Counter[str] = Counter()
_tokens_issued = 0
_keys_made = 0
_interrupted = False


@schemathesis.auth(refresh_interval=TOKEN_REFRESH_SECONDS)
class ClientCredentials:
    """A bearer token of the fuzz client (client-credentials grant), refreshed before it expires."""

    def get(self, case, ctx):
        global _tokens_issued
        response = requests.post(
            BASE_URL + TOKEN_PATH,
            headers={"Authorization": BASIC},
            data={"grant_type": "client_credentials", "scope": SCOPE},
            timeout=30,
        )
        response.raise_for_status()
        with _lock:
            _tokens_issued += 1
        return response.json()["access_token"]

    def set(self, case, data, ctx):
        case.headers = case.headers or {}
        case.headers["Authorization"] = BASIC if case.operation.path == TOKEN_PATH else f"Bearer {data}"


def _status_class(status: int) -> str:
    return f"{status // 100}xx"


@schemathesis.hook
def before_call(context, case, kwargs):
    """Points a well-formed `Service-Tenant` at the fuzz tenant and makes a well-formed Idempotency-Key unique.

    - `Service-Tenant` (docs/integrating.md "The API"): a value Schemathesis generates within the documented pattern
      names a tenant the token is not entitled to (403); it becomes FUZZ_TENANT, so that requests reach the
      operations. A malformed value (negative tests) and an absent header (missing-header tests) stay as they are.
    - Idempotency-Key: Schemathesis draws keys from a small space ("0", "00", ...) and sends one key with other
      payloads; the service then answers 422 `idempotency.key.payload.mismatch`, as docs/design.md §4 asks, and the request
      never reaches the operation. A counter suffix keeps the key's first characters and its pattern.
    """
    global _keys_made
    if case.headers is None:
        return
    for name in list(case.headers):
        value = case.headers[name]
        if not isinstance(value, str):
            continue
        if name.lower() == "service-tenant" and TENANT_PATTERN.match(value):
            case.headers[name] = TENANT
        elif name.lower() == "idempotency-key" and IDEMPOTENCY_KEY.match(value):
            with _lock:
                _keys_made += 1
                suffix = f"-fz{_keys_made}"
            case.headers[name] = value[: 50 - len(suffix)].rstrip() + suffix


@schemathesis.serializer("application/x-ndjson")
def ndjson_serializer(ctx, value):
    """The boarding upload's body (`application/x-ndjson`, documented as binary): sent as generated."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    return (json.dumps(value) + "\n").encode("utf-8")


@schemathesis.hook
def after_call(context, case, response):
    """Counts the response by status class; with FUZZ_ERROR_LOG, appends each 4xx/5xx's gist to that file."""
    if ERROR_LOG and response.status_code >= 400:
        body = _json_body(response)
        gist = {
            "operation": f"{case.operation.method.upper()} {case.operation.path}",
            "status": response.status_code,
            "code": body.get("userMessageGlobalisationCode") or body.get("code") or body.get("error")
            if isinstance(body, dict)
            else None,
            "message": (body.get("developerMessage") or body.get("detail") or "")[:300] if isinstance(body, dict) else "",
        }
        with _lock, open(ERROR_LOG, "a", encoding="utf-8") as out:
            out.write(json.dumps(gist) + "\n")
    with _lock:
        _statuses[_status_class(response.status_code)] += 1
        _codes[str(response.status_code)] += 1


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """Counts each failure by its kind; drops none (the narrow exceptions are in `_accepted`)."""
    reason = _accepted(failure, case, response)
    kind = f"{getattr(failure, 'code', '')} {getattr(failure, 'kind_title', None) or failure.title}".strip()
    with _lock:
        if reason is None:
            _failures[kind] += 1
        else:
            _accepted_failures[reason] += 1
    return reason is None


def _accepted(failure, case, response) -> str | None:
    """Why a failure is Schemathesis' limitation rather than the service's fault, or None (it counts).

    - ST203 on `If-Match`: a route that requires `If-Match` answers its absence with 428 Precondition Required
      (RFC 6585 §3; documented on those routes), which Schemathesis does not list among the statuses it accepts.
    """
    code = getattr(failure, "code", None)
    if code == "ST203" and getattr(failure, "header_name", "").lower() == "if-match" and response.status_code == 428:
        return "If-Match absent → 428 (RFC 6585 §3)"
    return None


def _stop_at_time_limit() -> None:
    global _interrupted
    with _lock:
        _interrupted = True
    _thread.interrupt_main()


if TIME_LIMIT_SECONDS > 0:
    _timer = threading.Timer(TIME_LIMIT_SECONDS, _stop_at_time_limit)
    _timer.daemon = True
    _timer.start()


def _media_type(response) -> str:
    return (response.headers.get("content-type") or [""])[0].split(";")[0].strip().lower()


def _json_body(response):
    try:
        return json.loads(response.content or b"")
    except ValueError:
        return None


@schemathesis.check
def error_body_shape(ctx, response, case):
    """Every 4xx answers the spec's error shape: Shape A, Shape B on the AI session outputs (docs/design.md §4 Errors)."""
    status = response.status_code
    if not 400 <= status < 500:
        return None
    path = case.operation.path
    body = _json_body(response)
    media = _media_type(response)
    if path == TOKEN_PATH and status in (400, 401):
        # RFC 6749 §5.2: the token endpoint's own error body.
        if media != "application/json" or not isinstance(body, dict) or not isinstance(body.get("error"), str):
            raise AssertionError(f"{status} of the token endpoint is not an RFC 6749 error: {response.content[:300]!r}")
        return None
    if SHAPE_B_PATH.match(path):
        if media != "application/problem+json":
            raise AssertionError(f"{status} on an AI output route is {media or 'no body'}, not application/problem+json")
        if not isinstance(body, dict):
            raise AssertionError(f"{status} Shape B body is not a JSON object: {response.content[:300]!r}")
        missing = [key for key in ("type", "title", "status", "code", "detail", "requestId") if key not in body]
        if missing:
            raise AssertionError(f"{status} Shape B body lacks {missing}: {body}")
        if body["status"] != status:
            raise AssertionError(f"Shape B status {body['status']!r} is not the HTTP status {status}")
        for key in ("type", "title", "code", "detail", "requestId"):
            if not isinstance(body[key], str):
                raise AssertionError(f"Shape B {key} is not a string: {body[key]!r}")
        return None
    if media != "application/json":
        raise AssertionError(f"{status} is {media or 'no body'}, not a Shape A application/json body")
    if not isinstance(body, dict):
        raise AssertionError(f"{status} Shape A body is not a JSON object: {response.content[:300]!r}")
    missing = [
        key
        for key in ("developerMessage", "httpStatusCode", "defaultUserMessage", "userMessageGlobalisationCode", "errors")
        if key not in body
    ]
    if missing:
        raise AssertionError(f"{status} Shape A body lacks {missing}: {body}")
    if body["httpStatusCode"] != str(status):
        raise AssertionError(f"Shape A httpStatusCode {body['httpStatusCode']!r} is not the HTTP status {status}")
    for key in ("developerMessage", "defaultUserMessage", "userMessageGlobalisationCode"):
        if not isinstance(body[key], str) or not body[key]:
            raise AssertionError(f"Shape A {key} is not a non-empty string: {body[key]!r}")
    if not isinstance(body["errors"], list):
        raise AssertionError(f"Shape A errors is not an array: {body['errors']!r}")
    return None


@atexit.register
def _write_counts() -> None:
    with _lock:
        counts = {
            "requests": sum(_statuses.values()),
            "statuses": dict(sorted(_statuses.items())),
            "codes": dict(sorted(_codes.items())),
            "failures": dict(sorted(_failures.items())),
            "acceptedFailures": dict(sorted(_accepted_failures.items())),
            "tokensIssued": _tokens_issued,
            "stoppedAtTimeLimit": _interrupted,
        }
    with open(COUNTS_FILE, "w", encoding="utf-8") as out:
        json.dump(counts, out)
