"""An OpenEnv client, written after upstream meta-pytorch/OpenEnv (src/openenv/core/env_client.py, envs/repl_env/client.py,
src/openenv/cli/_validation.py), that checks an environment server speaks the upstream protocol.

It sends exactly what upstream's clients send: WebSocket /ws messages {"type": "reset"|"step"|"state"|"close", "data": ...}
with the action fields themselves as a step's data (REPLEnv's {"code", "is_final", "final_answer"}), the reset kwargs
as reset data (REPLEnv's context/task_prompt/expected_answer, plus an hf_token the server must ignore), stateless HTTP
/reset, /step and /state without ids, and MCP JSON-RPC over POST /mcp, WebSocket /mcp and "mcp" messages on /ws.

Usage: python3 openenv_client.py BASE_URL MAX_CONCURRENT_ENVS
Prints one JSON object {"checks": [{"name", "ok", "detail"}]} and exits 1 when a check failed.
Needs Debian's python3-websockets and python3-requests (scripts/ensure-python.sh installs them).
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any, Dict, List, Optional

import requests

try:  # websockets >= 13, what upstream's EnvClient imports
    from websockets.asyncio.client import connect as ws_connect
except ImportError:  # Debian bookworm's websockets 10.4
    from websockets import connect as ws_connect

DOCUMENT = " ".join(f"Entry {i}: district {i % 97} ships {(i * 37) % 1000} crates." for i in range(3000))
DOCUMENT = DOCUMENT + " The vault code is 4417. " + DOCUMENT
QUESTION = "What is the vault code?"
# FATHOM's REPL runs JavaScript with the document as `ctx` (REPLEnv's runs Python with it as `context`).
SEARCH = 'const m = ctx.match(/vault code is (\\d+)/); print(m[1]);'
ENVIRONMENT_METADATA_FIELDS = {"name", "description", "readme_content", "version", "author", "documentation_url"}
TIMEOUT_S = 30.0


class ServerError(RuntimeError):
    """An {"type": "error"} reply, raised as upstream's EnvClient._send_and_receive raises it."""

    def __init__(self, data: Dict[str, Any]):
        super().__init__(f"Server error: {data.get('message', 'Unknown error')} (code: {data.get('code', 'UNKNOWN')})")
        self.data = data


class EnvClient:
    """Upstream's EnvClient, reduced to what a REPLEnv episode uses: same URL rule, same messages, same replies."""

    def __init__(self, base_url: str, path: str = "/ws"):
        self._ws_url = base_url.replace("https://", "wss://").replace("http://", "ws://").rstrip("/") + path
        self._ws = None

    async def connect(self) -> "EnvClient":
        self._ws = await ws_connect(self._ws_url, open_timeout=TIMEOUT_S, max_size=100 * 1024 * 1024)
        return self

    async def _send(self, message: Dict[str, Any]) -> None:
        await self._ws.send(json.dumps(message))

    async def _receive(self) -> Dict[str, Any]:
        return json.loads(await asyncio.wait_for(self._ws.recv(), timeout=TIMEOUT_S))

    async def _send_and_receive(self, message: Dict[str, Any]) -> Dict[str, Any]:
        await self._send(message)
        response = await self._receive()
        if response.get("type") == "error":
            raise ServerError(response.get("data", {}))
        return response

    async def reset(self, **kwargs: Any) -> Dict[str, Any]:
        return (await self._send_and_receive({"type": "reset", "data": kwargs})).get("data", {})

    async def step(self, action: Dict[str, Any]) -> Dict[str, Any]:
        return (await self._send_and_receive({"type": "step", "data": action})).get("data", {})

    async def state(self) -> Dict[str, Any]:
        return (await self._send_and_receive({"type": "state"})).get("data", {})

    async def mcp(self, request: Dict[str, Any]) -> Dict[str, Any]:
        return await self._send_and_receive({"type": "mcp", "data": request})

    async def close(self) -> None:
        try:
            await self._send({"type": "close"})
        finally:
            await self._ws.close()


def repl_action(code: str = "", is_final: bool = False, final_answer: Optional[str] = None) -> Dict[str, Any]:
    """REPLEnv._step_payload of a REPLAction."""
    return {"code": code, "is_final": is_final, "final_answer": final_answer}


class Checks:
    def __init__(self) -> None:
        self.results: List[Dict[str, Any]] = []

    async def run(self, name: str, check) -> None:
        try:
            detail = await check()
            self.results.append({"name": name, "ok": True, "detail": detail})
        except Exception as error:  # a failed check is reported, and the others still run
            self.results.append({"name": name, "ok": False, "detail": f"{type(error).__name__}: {error}"})


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def rpc(method: str, params: Optional[Dict[str, Any]] = None, request_id: int = 1) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}}


async def http_basics(base: str) -> str:
    """What `openenv validate` checks of a running server: openapi, health, metadata, schema, mcp, simulation routes."""
    openapi = requests.get(f"{base}/openapi.json", timeout=TIMEOUT_S)
    expect(openapi.status_code == 200 and isinstance(openapi.json()["info"]["version"], str), "openapi info.version")
    paths = openapi.json()["paths"]
    expect(all(p in paths for p in ("/reset", "/step", "/state")), f"simulation paths in {sorted(paths)}")
    health = requests.get(f"{base}/health", timeout=TIMEOUT_S)
    expect(health.status_code == 200 and health.json().get("status") == "healthy", f"health {health.text}")
    metadata = requests.get(f"{base}/metadata", timeout=TIMEOUT_S).json()
    expect({"name", "description"} <= set(metadata), f"metadata lacks name/description: {metadata}")
    extra = set(metadata) - ENVIRONMENT_METADATA_FIELDS
    expect(not extra, f"metadata keys EnvironmentMetadata forbids: {sorted(extra)}")
    schema = requests.get(f"{base}/schema", timeout=TIMEOUT_S).json()
    expect({"action", "observation", "state"} <= set(schema), f"schema keys {sorted(schema)}")
    expect({"code", "is_final", "final_answer"} <= set(schema["action"]["properties"]), "REPLAction fields in schema")
    mcp = requests.post(f"{base}/mcp", json={}, timeout=TIMEOUT_S)
    expect(mcp.status_code == 200 and mcp.json().get("jsonrpc") == "2.0", f"POST /mcp {{}}: {mcp.status_code}")
    return "openapi, health, metadata, schema, mcp_endpoint, simulation routes"


async def http_stateless(base: str) -> str:
    """Upstream's HTTP API has no ids: reset with extra kwargs, step with only an action, state with no query."""
    reset = requests.post(
        f"{base}/reset",
        json={"seed": 7, "context": DOCUMENT, "task_prompt": QUESTION, "hf_token": "ignored"},
        timeout=TIMEOUT_S,
    )
    expect(reset.status_code == 200, f"/reset {reset.status_code} {reset.text[:300]}")
    expect({"observation", "reward", "done"} <= set(reset.json()), f"/reset reply {sorted(reset.json())}")
    step = requests.post(f"{base}/step", json={"action": repl_action("print(6 * 7)"), "timeout_s": 5}, timeout=TIMEOUT_S)
    expect(step.status_code == 200, f"/step {step.status_code} {step.text[:300]}")
    expect(step.json()["observation"]["stdout"].strip() == "42", f"/step stdout {step.json()['observation']}")
    state = requests.get(f"{base}/state", timeout=TIMEOUT_S)
    expect(state.status_code == 200 and state.json().get("step_count") == 0, f"/state {state.status_code} {state.text}")
    return "reset 200, step 200 (stdout 42), state 200"


async def ws_episode(base: str) -> str:
    """REPLEnv's own calls: reset(context=, task_prompt=), execute, state, submit_final_answer, close."""
    env = await EnvClient(base).connect()
    try:
        first = await env.reset(context=DOCUMENT, task_prompt=QUESTION, expected_answer="4417", hf_token="ignored")
        expect(first.get("done") is False, f"reset reply {first}")
        found = await env.step(repl_action(SEARCH))
        # Read as REPLEnv._parse_result reads it: observation.result is its CodeBlockResult.
        result = found["observation"].get("result", {})
        stdout = result.get("stdout", "").strip()
        expect(stdout == "4417" and result.get("success") is True, f"search step's CodeBlockResult {found}")
        expect(found["observation"].get("iteration") == 1 and found["done"] is False, f"search step {found}")
        state = await env.state()
        expect(state.get("step_count") == 1, f"state {state}")
        final = await env.step(repl_action("", is_final=True, final_answer=stdout))
        expect(final["done"] is True and final["reward"] > 0.7, f"final step {final}")
    finally:
        await env.close()
    return f"found {stdout}, reward {final['reward']:.3f}"


async def ws_mcp_message(base: str) -> str:
    """A "mcp" message on /ws: tools/list, then tools/call on this connection's episode."""
    env = await EnvClient(base).connect()
    try:
        listed = await env.mcp(rpc("tools/list"))
        expect(listed["type"] == "mcp", f"reply type {listed}")
        names = [tool["name"] for tool in listed["data"]["result"]["tools"]]
        await env.reset(context=DOCUMENT, task_prompt=QUESTION)
        called = await env.mcp(rpc("tools/call", {"name": "run_code", "arguments": {"code": SEARCH}}, 2))
        text = called["data"]["result"]["structuredContent"]["observation"]["stdout"].strip()
        expect(text == "4417", f"tools/call on the connection's episode: {called}")
    finally:
        await env.close()
    return f"tools {names}; run_code on the session printed {text}"


async def mcp_http(base: str) -> str:
    """POST /mcp: errors are HTTP 200 JSON-RPC errors; tools/call without a session uses a temporary env."""

    def post(body: Dict[str, Any]) -> requests.Response:
        return requests.post(f"{base}/mcp", json=body, timeout=TIMEOUT_S)

    parse = requests.post(f"{base}/mcp", data="{not json", headers={"content-type": "application/json"}, timeout=TIMEOUT_S)
    expect(parse.status_code == 200 and parse.json()["error"]["code"] == -32700, f"parse error {parse.status_code}")
    invalid = post({"id": 1, "method": "tools/list"})
    expect(invalid.status_code == 200 and invalid.json()["error"]["code"] == -32600, f"invalid {invalid.text}")
    tools = post(rpc("tools/list")).json()["result"]["tools"]
    expect(all({"name", "description", "inputSchema"} <= set(t) for t in tools), f"tool specs {tools}")
    call = post(rpc("tools/call", {"name": "run_code", "arguments": {"code": "print(2 + 3)"}})).json()
    expect(call["result"]["structuredContent"]["observation"]["stdout"].strip() == "5", f"temporary env call {call}")
    unknown = post(rpc("tools/call", {"name": "run_code", "arguments": {"code": "1"}, "session_id": "ghost"})).json()
    expect(unknown["error"]["code"] == -32602, f"unknown session {unknown}")
    return f"parse -32700, invalid -32600, {len(tools)} tools, temporary-env call ok, unknown session -32602"


async def ws_mcp_endpoint(base: str) -> str:
    """WebSocket /mcp: bare JSON-RPC; openenv/session/create starts this connection's episode."""
    ws = await ws_connect(base.replace("http://", "ws://") + "/mcp", open_timeout=TIMEOUT_S)
    try:
        async def call(request: Dict[str, Any]) -> Dict[str, Any]:
            await ws.send(json.dumps(request))
            return json.loads(await asyncio.wait_for(ws.recv(), timeout=TIMEOUT_S))

        tools = (await call(rpc("tools/list")))["result"]["tools"]
        created = await call(rpc("openenv/session/create", {"context": DOCUMENT, "task_prompt": QUESTION}, 2))
        session_id = created["result"]["session_id"]
        called = await call(rpc("tools/call", {"name": "run_code", "arguments": {"code": SEARCH}}, 3))
        text = called["result"]["structuredContent"]["observation"]["stdout"].strip()
        expect(text == "4417", f"tools/call on the connection's episode {called}")
        bad = await call({"jsonrpc": "2.0", "id": 4})
        expect(bad["error"]["code"] == -32600, f"invalid request {bad}")
    finally:
        await ws.close()
    return f"{len(tools)} tools, session {session_id[:8]}…, run_code printed {text}"


async def ws_capacity_at_connect(base: str, max_sessions: int) -> str:
    """Upstream refuses a WebSocket session at connect when MAX_CONCURRENT_ENVS sessions are open."""
    sockets = []
    refused = []
    try:
        for _ in range(max_sessions + 1):
            ws = await ws_connect(base.replace("http://", "ws://") + "/ws", open_timeout=TIMEOUT_S)
            sockets.append(ws)
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=1.0))
                refused.append(message)
            except asyncio.TimeoutError:
                pass
    finally:
        for ws in sockets:
            await ws.close()
    expect(len(refused) >= 1, f"no connection of {max_sessions + 1} was refused")
    codes = {m.get("data", {}).get("code") for m in refused}
    expect(codes == {"CAPACITY_REACHED"}, f"refusals {refused}")
    return f"{len(refused)} of {max_sessions + 1} idle connections refused at connect"


async def main(base: str, max_sessions: int) -> int:
    checks = Checks()
    await checks.run("http_basics", lambda: http_basics(base))
    await checks.run("http_stateless", lambda: http_stateless(base))
    await checks.run("ws_episode", lambda: ws_episode(base))
    await checks.run("ws_mcp_message", lambda: ws_mcp_message(base))
    await checks.run("mcp_http", lambda: mcp_http(base))
    await checks.run("ws_mcp_endpoint", lambda: ws_mcp_endpoint(base))
    await checks.run("ws_capacity_at_connect", lambda: ws_capacity_at_connect(base, max_sessions))
    print(json.dumps({"checks": checks.results}))
    return 0 if all(c["ok"] for c in checks.results) else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1].rstrip("/"), int(sys.argv[2]))))
