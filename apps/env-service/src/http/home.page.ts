/** The HTML page at GET /: what this service is, and where its endpoints and docs are. */
export function homePage(version: string, maxConcurrentEnvs: number, grpcPort: number): string {
  const link = (href: string, text: string) => `<a href="${href}">${text}</a>`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>FATHOM env-service</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{background:#f4f4f4;border-radius:4px;padding:0 .3em}pre{padding:.6em;overflow:auto}td{padding:.15em .8em .15em 0;vertical-align:top}</style>
</head>
<body>
<h1>FATHOM env-service <small>v${version}</small></h1>
<p>An <a href="https://github.com/meta-pytorch/OpenEnv">OpenEnv</a>-compatible reinforcement-learning environment
for <b>Recursive Language Models</b>. Each episode is a question about a long document. The document is not in the
prompt: it sits in a sandboxed JavaScript REPL as the variable <code>ctx</code>. The policy sends code to run
(<code>print(...)</code> shows output, <code>llm(question, chunk)</code> asks a sub-model about a slice) and
finally an answer, which is scored against the gold answer.</p>
<h2>Endpoints</h2>
<table>
<tr><td><code>POST /reset</code></td><td>start an episode (the reply names its <code>episode_id</code>): <code>{seed?, split?, task_id?}</code> or an inline task <code>{context, question?, answer?, aliases?}</code> (REPLEnv's <code>task_prompt</code>, <code>expected_answer</code> too)</td></tr>
<tr><td><code>POST /step</code></td><td><code>{episode_id?, action: {code} | {answer} | {code, is_final, final_answer}, timeout_s?, request_id?}</code>; without <code>episode_id</code>, a one-off scratch episode</td></tr>
<tr><td><code>GET /state?episode_id=…</code></td><td>episode state</td></tr>
<tr><td><code>POST /close</code></td><td><code>{episode_id}</code>: end an episode and free its sandbox</td></tr>
<tr><td><code>WS /ws</code></td><td>one episode per connection: <code>{"type":"reset"|"step"|"state"|"close"|"mcp","data":…}</code></td></tr>
<tr><td><code>POST /mcp</code>, <code>WS /mcp</code></td><td>MCP (JSON-RPC 2.0): tools <code>run_code</code>, <code>submit_answer</code>; sessions via <code>openenv/session/create|close</code></td></tr>
<tr><td>gRPC <code>fathom.env.v1.Env</code></td><td>Reset, Step, State, Close on port ${grpcPort} (<code>proto/env.proto</code>)</td></tr>
<tr><td>${link('/health', 'GET /health')}</td><td>liveness</td></tr>
<tr><td>${link('/metadata', 'GET /metadata')}</td><td>name, description, version (OpenEnv's EnvironmentMetadata)</td></tr>
<tr><td>${link('/capabilities', 'GET /capabilities')}</td><td>action space, capacity, limits, transports, MCP tools</td></tr>
<tr><td>${link('/schema', 'GET /schema')}</td><td>JSON Schemas of action, observation, state</td></tr>
<tr><td>${link('/openapi.json', 'GET /openapi.json')}</td><td>OpenAPI 3.1 description of the HTTP API</td></tr>
<tr><td>${link('/metrics', 'GET /metrics')}</td><td>Prometheus metrics</td></tr>
</table>
<h2>Try it</h2>
<pre>curl -s localhost:8000/reset -H 'content-type: application/json' \\
  -d '{"context":"… the mirror is teal …","question":"What color is the mirror?","answer":"teal"}'
curl -s localhost:8000/step -H 'content-type: application/json' \\
  -d '{"episode_id":"&lt;id from reset&gt;","action":{"code":"print(ctx.match(/mirror is (\\\\w+)/)[1])"}}'</pre>
<p>At most ${maxConcurrentEnvs} sessions (HTTP episodes and WebSocket connections) are open at once; idle episodes are closed automatically.</p>
</body>
</html>
`;
}
