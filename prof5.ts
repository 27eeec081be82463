import { readRequests } from './src/http/index.js';
const n = 100000;
const reqs = Array.from({ length: n }, (_, i) => ({ method: i % 5 ? 'GET' : 'POST', url: `https://www.example.com/p/${i % 8}?id=${i}`, httpVersion: 'HTTP/2', headers: [['User-Agent', 'curl/8'], ['Accept', '*/*'], ['Cookie', `s=${i}`]] as [string, string][], clientIp: `198.51.100.${i % 250}`, ...(i % 5 === 0 ? { body: `user=u${i}&password=x` } : {}) }));
const nd = reqs.map((r) => JSON.stringify(r)).join('\n');
const har = JSON.stringify({ log: { version: '1.2', entries: reqs.map((r, i) => ({ startedDateTime: new Date(1_700_000_000_000 + i).toISOString(), request: { method: r.method, url: r.url, httpVersion: r.httpVersion, headers: r.headers.map(([name, value]) => ({ name, value })), cookies: [], ...(r.body ? { postData: { mimeType: 'application/x-www-form-urlencoded', text: r.body } } : {}) }, response: { status: 200, headers: [] }, _rulekit: { clientIp: r.clientIp } })) } });
for (let k = 0; k < 3; k++) {
  let t = performance.now(); readRequests(nd); const a = performance.now() - t;
  t = performance.now(); JSON.parse(har); const b = performance.now() - t;
  t = performance.now(); readRequests(har); const c = performance.now() - t;
  console.log(`ndjson ${a.toFixed(0)} ms; HAR JSON.parse alone ${b.toFixed(0)} ms; HAR read ${c.toFixed(0)} ms; sizes ${(nd.length/1e6).toFixed(1)} / ${(har.length/1e6).toFixed(1)} MB`);
}
