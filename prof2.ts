import { readRequests, requestRecord, normalizePath } from './src/http/index.js';
const AG = ['Mozilla/5.0', 'curl/8.5.0'];
const n = 100000;
const lines = Array.from({ length: n }, (_, i) => JSON.stringify({ method: i % 5 ? 'GET' : 'POST', url: `https://www.example.com/static/js/p${i % 8}/app.min.js?id=${i}`, headers: [['User-Agent', AG[i % 2]], ['Accept', '*/*'], ['Cookie', `s=${i}`]], clientIp: `198.51.100.${i % 250}` })).join('\n');
const read = readRequests(lines);
for (let round = 0; round < 3; round++) {
  let t = performance.now();
  let k = 0;
  for (const r of read.requests) k += Object.keys(requestRecord(r.request)).length;
  const t2 = performance.now() - t;
  t = performance.now();
  for (let i = 0; i < n; i++) k += normalizePath(`/static/js/p${i % 8}/app.min.js`).length;
  console.log('records', t2.toFixed(0), 'ms; normalizePath', (performance.now() - t).toFixed(0), 'ms', k);
}
