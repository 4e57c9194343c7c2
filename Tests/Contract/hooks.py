"""Schemathesis hooks for the contract test (scripts/api-contract-test).

Each session has its own bearer token, returned once by the request that created it (or
rotated it). Schemathesis's options set one token for the whole run, so these hooks keep
the tokens it has seen, by session id, and send each request the one of its session.
"""

import json
import os
import re

import schemathesis

# Session id -> the token its creation (or last rotation) returned.
TOKENS: dict[str, str] = {}
ADMIN_TOKEN = os.environ["ADMIN_TOKEN"]
ADMIN_OPERATIONS = {"listSessions", "metrics"}
# A well-formed token no session has: requests for sessions this run did not create still
# reach the session lookup (404) and the body checks, rather than stop at a missing token.
STRANGER_TOKEN = "A" * 43


# Sessions a DELETE removed, and sessions named by a replayed creation (`Idempotent-Replayed`):
# a replay answers what the first request was answered, so it may name a session deleted since.
DELETED = set()
REPLAYED = set()


@schemathesis.hook
def after_call(context, case, response):
    """Remembers the token of every session created, imported or given a new token."""
    if response.status_code == 204 and case.method.upper() == "DELETE" and case.operation.path == "/v1/sessions/{id}":
        DELETED.add((case.path_parameters or {}).get("id"))
    if response.status_code not in (200, 201):
        return
    try:
        body = json.loads(response.content)
    except ValueError:
        return
    if isinstance(body, dict) and isinstance(body.get("id"), str) and isinstance(body.get("token"), str):
        TOKENS[body["id"]] = body["token"]
        if response.headers.get("idempotent-replayed") == ["true"]:
            REPLAYED.add(body["id"])


@schemathesis.auth(refresh_interval=None)
class SessionTokens:
    """The bearer token each operation needs: the admin's, its session's, or none."""

    def get(self, case, context):
        operation_id = context.operation.definition.raw.get("operationId")
        if operation_id in ADMIN_OPERATIONS:
            return ADMIN_TOKEN
        session = (case.path_parameters or {}).get("id")
        if session is None:
            return None
        return TOKENS.get(session, STRANGER_TOKEN)

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


# The server under test runs with a short `--max-wait`, so that long polls cannot eat the
# run's time; the schema's `wait` maximum (the default, 60) is lowered to match it.
MAX_WAIT = int(os.environ.get("CONTRACT_MAX_WAIT", "60"))


@schemathesis.hook
def before_load_schema(context, raw_schema):
    raw_schema["components"]["parameters"]["Wait"]["schema"]["maximum"] = MAX_WAIT


# Refusals of schema-valid requests that depend on what the session or the run did before,
# or on rules that relate members to each other, which JSON Schema cannot state. Each is
# the server's documented answer, named by its problem code; any other refusal of a
# schema-valid request (a shape error such as `unknown_field`, `invalid_field`,
# `malformed_json`, `invalid_header`) still fails the run.
STATE_CODES = {
    "revision_mismatch",  # If-Match names a revision the session is not at
    "idempotency_key_reused",  # the run sent this key earlier with another body
    "revision_ahead",  # `after` is past the session's revision
    "history_expired",  # `after` is older than the kept events
    "stack_too_long",  # the stack already holds its maximum
    "presentations_too_deep",  # as many presentations as allowed are open
    "session_too_large",  # what the session holds and the change brings pass --max-session-bytes
    "unknown_action",  # the alert being answered has no such action
    "invalid_alert_result",  # the answer does not fit the alert being answered
    "invalid_alert",  # action or field ids repeat, or two cancel actions
    "invalid_document",  # an import whose parts contradict each other
}
# JSON Schema's maxLength counts characters; the server's limits count UTF-8 bytes.
# Screen and state names (set-state's `state`, a document's state `name`) and titles.
BYTE_LIMITS = {"screen": 128, "title": 512, "state": 128, "name": 128}


def _member_at(body, pointer):
    """The member a problem's JSON pointer names in the request body, or None."""
    value = body
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return None
    return value


def _exceeds_byte_limit(value):
    """True when a screen or state name or a title in `value` is within maxLength characters but over the byte limit."""
    if isinstance(value, dict):
        for key, member in value.items():
            limit = BYTE_LIMITS.get(key)
            if limit is not None and isinstance(member, str) and len(member.encode("utf-8", "surrogatepass")) > limit:
                return True
            if _exceeds_byte_limit(member):
                return True
    elif isinstance(value, list):
        return any(_exceeds_byte_limit(member) for member in value)
    return False


def _names_no_day(time):
    """True for an RFC 3339 time whose day is past its month's end (31 April, 29 February 2026):
    its pattern cannot say how long each month is, and the server refuses it (docs/api.md)."""
    match = re.match(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})T", time)
    if not match:
        return False
    year, month, day = (int(part) for part in match.groups())
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = {2: 29 if leap else 28, 4: 30, 6: 30, 9: 30, 11: 30}.get(month, 31)
    return day > days


def _problem(response):
    if not response.headers.get("content-type", [""])[0].startswith("application/problem+json"):
        return {}
    try:
        problem = json.loads(response.content)
    except ValueError:
        return {}
    return problem if isinstance(problem, dict) else {}


def _excused(failure, case, response):
    """Why the server's refusal is a rule JSON Schema cannot state, or None."""
    problem = _problem(response)
    code = problem.get("code")
    if failure.code == "ST202":  # a schema-valid request was refused
        if code in STATE_CODES:
            return code
        if code in ("invalid_screen", "invalid_state") and _exceeds_byte_limit(case.body):
            return f"{code} (bytes over the limit, characters within maxLength)"
        # Integers are spelled without fraction or exponent (docs/api.md); JSON Schema's
        # `integer` also admits 564.0, which hypothesis sends.
        member = _member_at(case.body, problem.get("pointer", "")) if code == "invalid_field" else None
        if isinstance(member, float) and member.is_integer():
            return "invalid_field (an integer spelled with a fraction)"
        if isinstance(member, str) and _names_no_day(member):
            return "invalid_field (a time on a day its month does not have)"
    if failure.code == "ST302" and code == "session_not_found":
        # "Created resource not found": the creation was a replay of an earlier one, whose
        # session this run has deleted since. The replay answers as the first request was
        # answered (docs/api.md, Idempotency-Key); a fresh creation must still be found.
        session = (case.path_parameters or {}).get("id")
        if session in REPLAYED and session in DELETED:
            return "a replayed creation names a session deleted since"
    if failure.code == "ST401" and failure.operation == "DELETE /v1/sessions/{id}":
        # The probe with a wrong token repeats a DELETE that has just succeeded: the session is
        # gone, so the answer is 404 session_not_found. The probe without a token still has
        # to get 401, and any other route still has to refuse a wrong token with 401.
        if getattr(failure, "scenario", None) == "invalid_auth" and "got `404 Not Found`" in failure.message:
            return "a wrong token on a session the DELETE just removed"
    return None


# Where each dropped failure is noted, so the run can say what it excused.
EXCUSED_LOG = os.environ.get("CONTRACT_EXCUSED_LOG")


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """False drops a failure: only the refusals `_excused` names."""
    reason = _excused(failure, case, response)
    if reason is None:
        return True
    if EXCUSED_LOG:
        with open(EXCUSED_LOG, "a", encoding="utf-8") as log:
            log.write(f"{failure.code} {failure.operation}: {reason}\n")
    return False
