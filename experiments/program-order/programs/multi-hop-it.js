const hits = search(question)
  .sort((a, b) => a.start - b.start)
  .map((h) => h.text);
let owner = 'unknown';
for (const part of chunks(800, { text: hits.join(' ') })) {
  owner = llm('Who owns it?', part);
  if (owner !== 'unknown') break;
}
const homes = search(owner)
  .sort((a, b) => a.start - b.start)
  .map((h) => h.text);
let reply = 'unknown';
for (const part of chunks(800, { text: homes.join(' ') })) {
  reply = llm('Where does ' + owner + ' live?', part);
  if (reply !== 'unknown') break;
}
answer(reply);
