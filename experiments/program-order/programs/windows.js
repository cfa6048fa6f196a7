const hits = search(question)
  .sort((a, b) => a.start - b.start)
  .map((h) => h.text);
let reply = 'unknown';
for (const part of chunks(800, { text: hits.join(' ') })) {
  reply = llm(question, part);
  if (reply !== 'unknown') break;
}
answer(reply);
