const escape = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

interface Operation {
  summary?: string;
}

/** A plain HTML page listing every operation of the OpenAPI document, with a link to the JSON. */
export function docsPage(document: {
  info: { title: string; description: string };
  paths: Record<string, Record<string, Operation>>;
}): string {
  const rows = Object.entries(document.paths)
    .flatMap(([path, ops]) =>
      Object.entries(ops).map(
        ([method, op]) =>
          `<tr><td><code>${method.toUpperCase()}</code></td><td><code>${escape(path)}</code></td><td>${escape(op.summary ?? '')}</td></tr>`,
      ),
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(document.info.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#111}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem;border-bottom:1px solid #ccc;vertical-align:top}</style>
</head>
<body>
<h1>${escape(document.info.title)}</h1>
<p>${escape(document.info.description)}</p>
<p>Machine-readable: <a href="/docs/openapi.json">/docs/openapi.json</a> (OpenAPI 3.1).</p>
<table><caption>Operations</caption><thead><tr><th scope="col">Method</th><th scope="col">Path</th><th scope="col">What it does</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body>
</html>
`;
}
